// Row functions of the stored sparse formats, on the host and on a device: the CSR pattern check
// and diagonal (kernels' csr_pattern_check and csr_diagonal: every backend reads a borrowed matrix
// where it lies) and an ELL row of the fused CG steps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/stopping.hpp"  // PORTLA_HOST_DEVICE

namespace portla::common {

/// Row i's part of csr_pattern_check: kCsrInvalid (1) when its row pointers are out of order or
/// out of [0, entries] (the first must be 0, the last `entries`) or one of its column indices
/// is outside [0, cols); kCsrDiagonalMissing (2) when i < cols and no entry (i, i) is stored.
/// The row's entries are read only when its pointers are in range. Row offsets P of 32 or 64
/// bits (the 64-bit ones checked on the host, by Csr::borrow).
template <typename P>
PORTLA_HOST_DEVICE inline std::uint32_t csr_row_pattern(std::size_t i, std::size_t rows,
                                                        std::size_t cols, std::size_t entries,
                                                        const P* row_ptrs,
                                                        const std::int32_t* col_idxs) {
    const std::int64_t begin = row_ptrs[i], end = row_ptrs[i + 1];
    if ((i == 0 && begin != 0) || (i + 1 == rows && end != static_cast<std::int64_t>(entries)) ||
        begin < 0 || end < begin || end > static_cast<std::int64_t>(entries))
        return 1;
    bool diagonal = false;
    for (std::int64_t k = begin; k < end; ++k) {
        const std::int32_t c = col_idxs[k];
        if (c < 0 || static_cast<std::size_t>(c) >= cols) return 1;
        diagonal = diagonal || static_cast<std::size_t>(c) == i;
    }
    return diagonal || i >= cols ? 0u : 2u;
}

/// (A v)_i for an ELL matrix of `rows` rows stored column-major, `width` entries per row,
/// padding column -1; `col(e)`, `val(e)` and `v(j)` read the columns, values and vector (a GPU
/// reads them through the read-only cache).
template <typename T, typename Col, typename Val, typename Src>
PORTLA_HOST_DEVICE inline T ell_row(std::size_t i, std::size_t rows, std::size_t width,
                                    const Col& col, const Val& val, const Src& v) {
    T acc = T(0);
    for (std::size_t k = 0; k < width; ++k) {
        const std::int32_t c = col(k * rows + i);
        if (c >= 0) acc += val(k * rows + i) * v(static_cast<std::size_t>(c));
    }
    return acc;
}

/// Row i's diagonal: the sum of its stored entries (i, i), 0 where there is none (row offsets P
/// and column indices C of 32 or 64 bits).
template <typename T, typename P, typename C>
PORTLA_HOST_DEVICE inline T csr_row_diagonal(std::size_t i, const P* row_ptrs, const C* col_idxs,
                                             const T* values) {
    T d = T(0);
    for (std::int64_t k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
        if (static_cast<std::size_t>(col_idxs[k]) == i) d += values[k];
    return d;
}

}  // namespace portla::common
