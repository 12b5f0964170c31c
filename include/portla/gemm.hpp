/// \file
/// Dense matrix product C = alpha A B + beta C on row-major storage, dispatched to the
/// executor's backend, with a choice of implementation (the steps from naive to near-vendor).
#pragma once

#include <cstddef>
#include <string>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/dense.hpp"

namespace portla {

/// Which implementation computes the product.
///  - naive:    one work-item per element of C, operands read from global memory (cuda);
///              a parallel loop over rows of C (omp).
///  - tiled:    a row tile of A staged in shared memory by a 1 x B work-group, barriers (cuda).
///  - subgroup: each lane holds one element of A's row tile and broadcasts it with warp
///              shuffles: no shared memory, no barriers (cuda).
///  - fast:     block, warp and register tiling, 16-byte loads, double-buffered shared memory,
///              tile sizes chosen per shape (cuda; double through the FP64 tensor cores);
///              cache-blocked with packed panels and a register-tile micro-kernel (omp).
///  - vendor:   cuBLAS with pedantic fp32/fp64 maths, no TF32 (cuda); OpenBLAS (omp).
/// The reference backend has one implementation, a plain triple loop summing in double, and
/// runs it for every variant. tiled and subgroup exist on cuda; opencl has naive, tiled (16 x 16
/// tiles of A and B in local memory) and fast (= tiled).
enum class GemmVariant { naive, tiled, subgroup, fast, vendor };

/// "naive", "tiled", "subgroup", "fast" or "vendor".
std::string to_string(GemmVariant variant);
/// The variant called `name`; throws BadInput for any other name.
GemmVariant parse_gemm_variant(const std::string& name);
/// Whether `backend` implements `variant` (reference: every variant, by its one loop).
bool gemm_supported(Backend backend, GemmVariant variant);

/// C = alpha A B + beta C, with A m x k, B k x n and C m x n, all row-major and dense
/// (leading dimensions k, n, n) in memory of `exec`. With beta == 0, C is not read (it may
/// hold NaN), as in BLAS. C must not alias A or B. Asynchronous on cuda.
/// Throws DimensionMismatch when a view's size is not the product of its dimensions, BadInput
/// when a dimension exceeds 2^31 - 1, Unsupported when the backend lacks `variant`.
template <typename T>
void gemm(const Executor& exec, std::size_t m, std::size_t n, std::size_t k, T alpha,
          const_view<T> a, const_view<T> b, T beta, view<T> c,
          GemmVariant variant = GemmVariant::fast);

/// C = alpha A B + beta C for Dense operands on A's executor (B must share it), C given as
/// row-major storage of a.rows() x b.cols() elements. Throws as the view form, and
/// DimensionMismatch when a.cols() != b.rows().
template <typename T>
void gemm(T alpha, const Dense<T>& a, const Dense<T>& b, T beta, view<T> c,
          GemmVariant variant = GemmVariant::fast);

}  // namespace portla
