// Vendor-library implementations of the kernels, for side-by-side benchmarks: cuBLAS and
// cuSPARSE on cuda memory (src/cuda/vendor_kernels.cu), OpenBLAS on host memory
// (src/omp/openblas_kernels.cpp). cuBLAS has no axpby: its reference is axpy (y = a x + y,
// the same 3 n words of traffic).
#pragma once

#include <cstddef>
#include <cstdint>

#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_VENDOR_BLAS_KERNELS(T)                                                      \
    /* y = a x + y */                                                                              \
    void axpy(const ::portla::Executor& exec, T a, ::portla::const_view<T> x,                      \
              ::portla::view<T> y);                                                                \
    /* y = x */                                                                                    \
    void copy(const ::portla::Executor& exec, ::portla::const_view<T> x, ::portla::view<T> y);     \
    /* result[0] = x . y in the executor's memory (cuBLAS: pointer mode device) */                 \
    void dot(const ::portla::Executor& exec, ::portla::const_view<T> x, ::portla::const_view<T> y, \
             ::portla::view<T> result);                                                            \
    /* x . y to the host (cuBLAS: pointer mode host, synchronising) */                             \
    T dot_host(const ::portla::Executor& exec, ::portla::const_view<T> x,                          \
               ::portla::const_view<T> y);                                                         \
    /* result[0] = ||x||, in the executor's memory */                                              \
    void nrm2(const ::portla::Executor& exec, ::portla::const_view<T> x,                           \
              ::portla::view<T> result);                                                           \
    /* y = A x, A dense row-major rows x cols */                                                   \
    void gemv(const ::portla::Executor& exec, std::size_t rows, std::size_t cols,                  \
              ::portla::const_view<T> values, ::portla::const_view<T> x, ::portla::view<T> y)

namespace portla::kernels {
namespace cublas {
bool available();  ///< compiled in (a GPU is still needed to run)
PORTLA_DECLARE_VENDOR_BLAS_KERNELS(double);
PORTLA_DECLARE_VENDOR_BLAS_KERNELS(float);
}  // namespace cublas
namespace openblas {
bool available();
PORTLA_DECLARE_VENDOR_BLAS_KERNELS(double);
PORTLA_DECLARE_VENDOR_BLAS_KERNELS(float);
}  // namespace openblas
namespace cusparse {
bool available();
/// y = A x with cusparseSpMV (CSR, int32 indices). The descriptors are cached per matrix
/// (keyed by the values pointer), so repeated calls time the SpMV alone.
#define PORTLA_DECLARE_CUSPARSE_SPMV(T)                                                        \
    void csr_spmv(const ::portla::Executor& exec, std::size_t rows, std::size_t cols,          \
                  ::portla::const_view<std::int32_t> row_ptrs,                                 \
                  ::portla::const_view<std::int32_t> col_idxs, ::portla::const_view<T> values, \
                  ::portla::const_view<T> x, ::portla::view<T> y)
PORTLA_DECLARE_CUSPARSE_SPMV(double);
PORTLA_DECLARE_CUSPARSE_SPMV(float);

/// The vendor-baseline CG, built the usual way from cuBLAS and cuSPARSE calls with the scalars
/// read back to the host every iteration (cublasDdot in host pointer mode): no preconditioner,
/// x0 = 0, stop when ||r|| <= rtol ||b|| or after max_iters. Returns iterations done.
#define PORTLA_DECLARE_VENDOR_CG(T)                                                     \
    int cg(const ::portla::Executor& exec, std::size_t rows,                            \
           ::portla::const_view<std::int32_t> row_ptrs,                                 \
           ::portla::const_view<std::int32_t> col_idxs, ::portla::const_view<T> values, \
           ::portla::const_view<T> b, ::portla::view<T> x, double rtol, int max_iters)
PORTLA_DECLARE_VENDOR_CG(double);
PORTLA_DECLARE_VENDOR_CG(float);
}  // namespace cusparse
}  // namespace portla::kernels
