/// \file
/// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reader and writer.
/// Supported: coordinate and array; real, integer and pattern; general, symmetric and
/// skew-symmetric. Complex (and hermitian) give Unsupported. Indices in files are 1-based.
#pragma once

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

/// Reads a matrix; symmetric and skew-symmetric files are expanded to both triangles.
/// Throws BadInput("file:line: what") for malformed input, Unsupported for complex/hermitian,
/// BadInput when the file cannot be opened.
MatrixData read_matrix_market(const std::string& path, const ReadOptions& options = {});
/// The same, from a stream; `name` is used in error messages.
MatrixData read_matrix_market(std::istream& in, const std::string& name,
                              const ReadOptions& options = {});

/// The same matrix as host CSR, built straight from the file's entries (no coordinate copy):
/// rows sorted by column, duplicates summed in file order, symmetric and skew-symmetric files
/// expanded. The text is parsed a block at a time by all the host's threads (OMP_NUM_THREADS
/// limits them). Errors as read_matrix_market, except that any number of entries is taken
/// (64-bit row offsets; rows and columns stay below 2^31 - 1, BadInput past it).
CsrData read_matrix_market_csr(const std::string& path, const ReadOptions& options = {});
/// The same, from a stream; `name` is used in error messages.
CsrData read_matrix_market_csr(std::istream& in, const std::string& name,
                               const ReadOptions& options = {});

/// Reads a vector: an array file n x 1 (or 1 x n), or a coordinate file n x 1.
std::vector<double> read_vector(const std::string& path, const ReadOptions& options = {});

/// Writes a vector as "array real general" n x 1 with full precision.
void write_vector(const std::string& path, const std::vector<double>& values);
/// Writes coordinate data as "coordinate real general".
void write_matrix_market(const std::string& path, const MatrixData& data);

}  // namespace portla::io
