// The vendor-library kernels behind include/portla/vendor.hpp, declared once for every backend
// of the list (see core/dispatch.hpp): cuBLAS and cuSPARSE on cuda (src/cuda/vendor_kernels.cu,
// src/cuda/vendor_cg.cu), OpenBLAS on omp and reference (src/<name>/vendor_kernels.cpp through
// src/host/openblas.hpp). Each backend defines them as templates and instantiates them with
// PORTLA_INSTANTIATE_VENDOR_KERNELS. The names carry a vendor_ prefix: the same backend
// namespace holds portla's own copy, dot, ... (blas1_kernels.hpp). Kernels assume valid input
// (sizes are checked in src/core/vendor.cpp); a backend without a sparse vendor library throws
// Unsupported from vendor_csr_spmv and vendor_cg.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_VENDOR_KERNELS(backend)                                                    \
    namespace backend {                                                                           \
    /* y = a x + y */                                                                             \
    template <typename T>                                                                         \
    void vendor_axpy(tag, const Executor& exec, T a, const_view<T> x, view<T> y);                 \
    /* y = x */                                                                                   \
    template <typename T>                                                                         \
    void vendor_copy(tag, const Executor& exec, const_view<T> x, view<T> y);                      \
    /* result[0] = x . y in the executor's memory (cuBLAS: pointer mode device) */                \
    template <typename T>                                                                         \
    void vendor_dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result); \
    /* x . y to the host (cuBLAS: pointer mode host, synchronising) */                            \
    template <typename T>                                                                         \
    T vendor_dot_host(tag, const Executor& exec, const_view<T> x, const_view<T> y);               \
    /* result[0] = ||x||, in the executor's memory */                                             \
    template <typename T>                                                                         \
    void vendor_nrm2(tag, const Executor& exec, const_view<T> x, view<T> result);                 \
    /* y = A x, A dense row-major rows x cols */                                                  \
    template <typename T>                                                                         \
    void vendor_gemv(tag, const Executor& exec, std::size_t rows, std::size_t cols,               \
                     const_view<T> values, const_view<T> x, view<T> y);                           \
    /* y = A x, A CSR rows x cols, int32 indices */                                               \
    template <typename T>                                                                         \
    void vendor_csr_spmv(tag, const Executor& exec, std::size_t rows, std::size_t cols,           \
                         const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,    \
                         const_view<T> values, const_view<T> x, view<T> y);                       \
    /* the vendor-baseline CG (include/portla/vendor.hpp); returns the iterations done */         \
    template <typename T>                                                                         \
    int vendor_cg(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs, \
                  const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> b,       \
                  view<T> x, double rtol, int max_iters);                                         \
    }

// The dense and sparse kernels except vendor_cg, ...
#define PORTLA_INSTANTIATE_VENDOR_BLAS_KERNELS(T)                                               \
    template void vendor_axpy<T>(tag, const Executor&, T, const_view<T>, view<T>);              \
    template void vendor_copy<T>(tag, const Executor&, const_view<T>, view<T>);                 \
    template void vendor_dot<T>(tag, const Executor&, const_view<T>, const_view<T>, view<T>);   \
    template T vendor_dot_host<T>(tag, const Executor&, const_view<T>, const_view<T>);          \
    template void vendor_nrm2<T>(tag, const Executor&, const_view<T>, view<T>);                 \
    template void vendor_gemv<T>(tag, const Executor&, std::size_t, std::size_t, const_view<T>, \
                                 const_view<T>, view<T>);                                       \
    template void vendor_csr_spmv<T>(tag, const Executor&, std::size_t, std::size_t,            \
                                     const_view<std::int32_t>, const_view<std::int32_t>,        \
                                     const_view<T>, const_view<T>, view<T>)
// ... vendor_cg alone (cuda defines it in a file of its own, vendor_cg.cu) ...
#define PORTLA_INSTANTIATE_VENDOR_CG_KERNEL(T)                                                 \
    template int vendor_cg<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,     \
                              const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>, \
                              double, int)
// ... and all of them.
#define PORTLA_INSTANTIATE_VENDOR_KERNELS(T)   \
    PORTLA_INSTANTIATE_VENDOR_BLAS_KERNELS(T); \
    PORTLA_INSTANTIATE_VENDOR_CG_KERNEL(T)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_VENDOR_KERNELS)
}  // namespace portla::kernels
