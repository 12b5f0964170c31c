/// \file
/// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reader and writer.
/// Supported: coordinate and array; real, integer and pattern; general, symmetric and
/// skew-symmetric. Complex files (general, symmetric, skew-symmetric, hermitian) are read by
/// read_matrix_market_complex; the real readers give Unsupported for them. Indices in files are
/// 1-based.
#pragma once

#include <complex>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "portla/matrix/matrix_data.hpp"

/// Matrix Market files: reading matrices and vectors, writing them.
namespace portla::io {

/// Options of the Matrix Market readers.
struct ReadOptions {
    /// Reject NaN and Inf values (BadInput naming file and line).
    bool require_finite = true;
};

/// What a file's banner and size line declare, the entries not read.
struct MatrixMarketHeader {
    std::int64_t rows = 0;  ///< the declared number of rows
    std::int64_t cols = 0;  ///< the declared number of columns
    /// Entry lines the file declares: a coordinate file's third size, an array file's
    /// rows * cols (the stored triangle of a symmetric one).
    std::int64_t entries = 0;
    bool array = false;      ///< an array (dense, column-major) file
    bool symmetric = false;  ///< symmetric or skew-symmetric: one triangle stored
    bool skew = false;       ///< skew-symmetric (symmetric is set too)
    bool complex = false;    ///< the complex field (read_matrix_market_complex reads it)
    bool hermitian = false;  ///< hermitian (complex and symmetric are set too)
    long size_line = 0;      ///< the line number of the size line
};

/// Reads a file's header with the reader's own rules (line length at most 1 MiB; a byte-order
/// mark, CRLF line ends, blank and indented comment lines allowed) and nothing after it.
/// Throws as read_matrix_market for a malformed header; does not check memory.
MatrixMarketHeader read_matrix_market_header(const std::string& path);
/// The same, from a stream; `name` is used in error messages.
MatrixMarketHeader read_matrix_market_header(std::istream& in, const std::string& name);

/// Reads a matrix; symmetric and skew-symmetric files are expanded to both triangles.
/// Throws BadInput("file:line: what") for malformed input, Unsupported for complex/hermitian,
/// BadInput when the file cannot be opened.
MatrixData read_matrix_market(const std::string& path, const ReadOptions& options = {});
/// The same, from a stream; `name` is used in error messages.
MatrixData read_matrix_market(std::istream& in, const std::string& name,
                              const ReadOptions& options = {});

/// The same matrix as host CSR, built straight from the file's entries (no coordinate copy):
/// rows sorted by column, duplicates summed in file order, symmetric and skew-symmetric files
/// expanded. A coordinate file is read in parts split at line boundaries, one per host thread
/// (OMP_NUM_THREADS limits them), straight into the CSR arrays: it is read twice (counting
/// entries per row, then placing them), a file by pread, a stream by seeking it (a stream that
/// cannot seek is read line by line). Values are the correctly rounded doubles of their text,
/// as strtod reads them. Errors as read_matrix_market, except that any number of entries is
/// taken (64-bit row offsets; rows and columns stay below 2^31 - 1, BadInput past it).
CsrData read_matrix_market_csr(const std::string& path, const ReadOptions& options = {});
/// The same, from a stream; `name` is used in error messages.
CsrData read_matrix_market_csr(std::istream& in, const std::string& name,
                               const ReadOptions& options = {});

/// Reads a vector: an array file n x 1 (or 1 x n), or a coordinate file n x 1.
std::vector<double> read_vector(const std::string& path, const ReadOptions& options = {});

/// A complex matrix as coordinate entries on the host: entry k is values[k] at (row_idx[k],
/// col_idx[k]), 0-based, in file order (duplicates not summed).
struct ComplexMatrixData {
    std::int64_t rows = 0;                     ///< number of rows
    std::int64_t cols = 0;                     ///< number of columns
    std::vector<std::int64_t> row_idx;         ///< row of each entry, 0-based
    std::vector<std::int64_t> col_idx;         ///< column of each entry, 0-based
    std::vector<std::complex<double>> values;  ///< value of each entry
};

/// Reads a complex matrix ("complex" field; general, symmetric, skew-symmetric or hermitian,
/// coordinate or array): both triangles of a symmetric file, a hermitian one's mirrored entries
/// conjugated. BadInput ("file:line: what") for malformed input, for a hermitian diagonal entry
/// that is not real, and for a file that is not complex.
ComplexMatrixData read_matrix_market_complex(const std::string& path,
                                             const ReadOptions& options = {});
/// The same, from a stream; `name` is used in error messages.
ComplexMatrixData read_matrix_market_complex(std::istream& in, const std::string& name,
                                             const ReadOptions& options = {});

/// Writes a vector as "array real general" n x 1 with full precision.
void write_vector(const std::string& path, const std::vector<double>& values);
/// Writes a complex vector as "array complex general" n x 1 with full precision.
void write_complex_vector(const std::string& path, const std::vector<std::complex<double>>& values);
/// Writes coordinate data as "coordinate real general".
void write_matrix_market(const std::string& path, const MatrixData& data);

}  // namespace portla::io
