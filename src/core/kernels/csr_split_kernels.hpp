// The CSR SpMV by the plan of a matrix with long rows (cuda/csr_split.cuh): cuda only, 32-bit
// indices. Csr calls it when its set-up made a plan (common/csr_long_rows.hpp) on a cuda executor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"

namespace portla::kernels::cuda {

/// y = A x: the rows longer than long_rows.from entries by segments of a warp each, the others
/// by row blocks.
template <typename T>
void csr_split_apply(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs,
                     const_view<std::int32_t> col_idxs, const_view<T> values,
                     const CsrLongRows<T>& long_rows, const_view<T> x, view<T> y);

/// The entries of the longest row of valid 32-bit offsets in device memory (a borrowed matrix:
/// its offsets are copied to the host for the plan only when a row is long).
std::size_t csr_longest_row(tag, const Executor& exec, std::size_t rows,
                            const_view<std::int32_t> row_ptrs);

}  // namespace portla::kernels::cuda
