// The operator-apply kernels (y = A x), declared once for every backend of the list (see
// core/dispatch.hpp). Each backend defines them as templates in src/<name>/matrix_kernels.{cpp,cu}
// and instantiates them with PORTLA_INSTANTIATE_MATRIX_KERNELS, so a definition whose signature
// drifts fails the build. Kernels assume valid input (structures are checked in core).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_MATRIX_KERNELS(backend)                                                     \
    namespace backend {                                                                            \
    /* y = A x, A dense row-major rows x cols */                                                   \
    template <typename T>                                                                          \
    void dense_apply(tag, const Executor& exec, std::size_t rows, std::size_t cols,                \
                     const_view<T> values, const_view<T> x, view<T> y);                            \
    /* y = A x, A CSR with rows + 1 row pointers */                                                \
    template <typename T>                                                                          \
    void csr_apply(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs, \
                   const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,       \
                   view<T> y);                                                                     \
    /* y = A x, A ELL column-major rows x width, padding column -1 */                              \
    template <typename T>                                                                          \
    void ell_apply(tag, const Executor& exec, std::size_t rows, std::size_t width,                 \
                   const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,       \
                   view<T> y);                                                                     \
    /* y = A x, A the dim-D Poisson stencil on points^dim grid points (matrix/stencil.hpp) */      \
    template <typename T>                                                                          \
    void stencil_apply(tag, const Executor& exec, int dim, std::size_t points, const_view<T> x,    \
                       view<T> y);                                                                 \
    }

#define PORTLA_INSTANTIATE_MATRIX_KERNELS(T)                                                     \
    template void dense_apply<T>(tag, const Executor&, std::size_t, std::size_t, const_view<T>,  \
                                 const_view<T>, view<T>);                                        \
    template void csr_apply<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,      \
                               const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>); \
    template void ell_apply<T>(tag, const Executor&, std::size_t, std::size_t,                   \
                               const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>); \
    template void stencil_apply<T>(tag, const Executor&, int, std::size_t, const_view<T>, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_MATRIX_KERNELS)
}  // namespace portla::kernels
