/// \file
/// The index widths of a compressed sparse row matrix (Csr) and of the fused CSR steps.
#pragma once

#include <cstddef>
#include <string>

namespace portla {

/// The widths of a Csr's row offsets and column indices. The 32-bit form is the fast path
/// (8 + 4 bytes per double non-zero); past its range the offsets widen first: a matrix with more
/// than 2^31 - 1 non-zeros but fewer columns (a 27-point stencil on 10^8 rows: 2.7 * 10^9
/// non-zeros) keeps 32-bit columns, 12 bytes per non-zero read by every SpMV against 16 with
/// 64-bit columns; only a matrix with 2^31 - 1 columns or more needs 64-bit column indices.
enum class CsrIndex {
    automatic,  ///< at construction: the narrowest form below that holds the matrix
    int32,      ///< 32-bit row offsets and column indices
    offsets64,  ///< 64-bit row offsets, 32-bit column indices
    int64,      ///< 64-bit row offsets and column indices
};

/// "auto", "32", "64/32" (64-bit offsets, 32-bit columns), "64".
std::string to_string(CsrIndex index);
/// The inverse of to_string; throws BadInput for any other text.
CsrIndex csr_index_from_string(const std::string& text);
/// The form `automatic` gives a rows x cols matrix of `nnz` non-zeros; otherwise `asked`, after
/// checking that it holds the matrix (BadInput naming what exceeds the 32-bit range).
CsrIndex csr_index_for(CsrIndex asked, std::size_t rows, std::size_t cols, std::size_t nnz);

}  // namespace portla
