/// \file
/// Vendor-library baselines behind the executor's backend, for side-by-side benchmarks: cuBLAS
/// and cuSPARSE on cuda, OpenBLAS on omp and reference (host memory). The same operations as
/// portla's own kernels, computed by the vendor library, so a benchmark compares like with like.
/// cuBLAS has no axpby: the baseline is axpy (y = a x + y, the same 3 n words of traffic).
#pragma once

#include <cstddef>
#include <cstdint>

#include "portla/array.hpp"
#include "portla/executor.hpp"

/// Vendor-library baselines (cuBLAS, cuSPARSE, OpenBLAS) of portla's own kernels.
namespace portla::vendor {

/// True when the vendor BLAS of `backend` (cuBLAS on cuda, OpenBLAS on omp and reference) is
/// compiled in. A GPU is still needed to run the cuda one.
bool available(Backend backend);
/// available(exec.backend())
inline bool available(const Executor& exec) { return available(exec.backend()); }

/// True when the sparse vendor operations (csr_spmv, cg) exist on `backend`: cuSPARSE on cuda
/// when compiled in; never on the CPU backends (they throw Unsupported).
bool sparse_available(Backend backend);
/// sparse_available(exec.backend())
inline bool sparse_available(const Executor& exec) { return sparse_available(exec.backend()); }

/// y = a x + y
template <typename T>
void axpy(const Executor& exec, T a, const_view<T> x, view<T> y);

/// y = x
template <typename T>
void copy(const Executor& exec, const_view<T> x, view<T> y);

/// result[0] = x . y, in the executor's memory (cuBLAS: pointer mode device, no host wait).
template <typename T>
void dot(const Executor& exec, const_view<T> x, const_view<T> y, view<T> result);

/// x . y to the host (cuBLAS: pointer mode host, synchronising).
template <typename T>
T dot_host(const Executor& exec, const_view<T> x, const_view<T> y);

/// result[0] = ||x||_2, in the executor's memory.
template <typename T>
void nrm2(const Executor& exec, const_view<T> x, view<T> result);

/// y = A x, A dense row-major rows x cols (values: rows * cols elements).
template <typename T>
void gemv(const Executor& exec, std::size_t rows, std::size_t cols, const_view<T> values,
          const_view<T> x, view<T> y);

/// y = A x, A CSR rows x cols with int32 indices (cusparseSpMV). The descriptors are cached per
/// matrix, so repeated calls time the SpMV alone. cuda only: throws Unsupported on the CPU
/// backends.
template <typename T>
void csr_spmv(const Executor& exec, std::size_t rows, std::size_t cols,
              const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
              const_view<T> values, const_view<T> x, view<T> y);

/// The vendor-baseline CG on a square CSR matrix, built the usual way from cuBLAS and cuSPARSE
/// calls with the scalars read back to the host every iteration: no preconditioner, x0 = 0,
/// stop when ||r|| <= rtol ||b|| or after max_iters. Returns the iterations done. cuda only:
/// throws Unsupported on the CPU backends.
template <typename T>
int cg(const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs,
       const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> b, view<T> x,
       double rtol, int max_iters);

}  // namespace portla::vendor
