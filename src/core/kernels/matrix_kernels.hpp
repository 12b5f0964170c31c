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
    /* y = A x, A CSR with rows + 1 row offsets P and column indices C (int32 or int64: the        \
       forms of CsrIndex) */                                                                       \
    template <typename T, typename P, typename C>                                                  \
    void csr_apply(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,            \
                   const_view<C> col_idxs, const_view<T> values, const_view<T> x, view<T> y);      \
    /* y = A x, A ELL column-major rows x width, padding column -1 */                              \
    template <typename T>                                                                          \
    void ell_apply(tag, const Executor& exec, std::size_t rows, std::size_t width,                 \
                   const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,       \
                   view<T> y);                                                                     \
    /* y = A x, A the dim-D Poisson stencil on points^dim grid points (matrix/stencil.hpp) */      \
    template <typename T>                                                                          \
    void stencil_apply(tag, const Executor& exec, int dim, std::size_t points, const_view<T> x,    \
                       view<T> y);                                                                 \
    /* y = A x on planes [first, last) of a slab of `planes` planes of the dim-D Poisson stencil   \
       split along its outermost dimension (common/stencil_row.hpp: slab_stencil_row); below and   \
       above: the neighbouring slabs' planes in this executor's memory, nullptr at the boundary.   \
       dot: nullptr, or one value in this executor's memory that receives x . y over the rows      \
       written (planes [first, last)), in the same pass; stored, or added to it when add_dot (the  \
       sum of several ranges' calls) */                                                            \
    template <typename T>                                                                          \
    void slab_stencil_apply(tag, const Executor& exec, int dim, std::size_t points,                \
                            std::size_t planes, std::size_t first, std::size_t last,               \
                            const T* below, const T* above, const_view<T> x, view<T> y, T* dot,    \
                            bool add_dot);                                                         \
    /* out[i] = x[idx[i]] for i < idx.size (a distributed operator's halo entries to send) */      \
    template <typename T>                                                                          \
    void gather(tag, const Executor& exec, const_view<std::int32_t> idx, const_view<T> x,          \
                view<T> out);                                                                      \
    /* d[i] = sum of the stored entries (i, i) of a CSR matrix, i < rows (0 where none) */         \
    template <typename T, typename P, typename C>                                                  \
    void csr_diagonal(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,         \
                      const_view<C> col_idxs, const_view<T> values, view<T> d);                    \
    /* The pattern of a CSR matrix over memory of this executor, checked where it lies (rows + 1   \
       row pointers, checked by the caller): kCsrInvalid when the row pointers do not start at 0,  \
       decrease or end elsewhere than col_idxs.size, or a column index is outside [0, cols);       \
       kCsrDiagonalMissing when some row i < min(rows, cols) stores no entry (i, i); 0 otherwise   \
     */                                                                                            \
    std::uint32_t csr_pattern_check(tag, const Executor& exec, std::size_t rows, std::size_t cols, \
                                    const_view<std::int32_t> row_ptrs,                             \
                                    const_view<std::int32_t> col_idxs);                            \
    }

// The CSR kernels of one index form (CsrIndex: int32/int32, int64/int32, int64/int64).
#define PORTLA_INSTANTIATE_CSR_KERNELS(T, P, C)                                             \
    template void csr_apply<T, P, C>(tag, const Executor&, std::size_t, const_view<P>,      \
                                     const_view<C>, const_view<T>, const_view<T>, view<T>); \
    template void csr_diagonal<T, P, C>(tag, const Executor&, std::size_t, const_view<P>,   \
                                        const_view<C>, const_view<T>, view<T>)

/// The kernels a complex T has (on the backends of PORTLA_FOR_EACH_COMPLEX_BACKEND,
/// core/dispatch_values.hpp): CSR SpMV and the diagonal in every index form, dense and ELL SpMV,
/// and gather.
#define PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(T)                                             \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int32_t, std::int32_t);                               \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int64_t, std::int32_t);                               \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int64_t, std::int64_t);                               \
    template void dense_apply<T>(tag, const Executor&, std::size_t, std::size_t, const_view<T>,  \
                                 const_view<T>, view<T>);                                        \
    template void ell_apply<T>(tag, const Executor&, std::size_t, std::size_t,                   \
                               const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>); \
    template void gather<T>(tag, const Executor&, const_view<std::int32_t>, const_view<T>, view<T>)

#define PORTLA_INSTANTIATE_MATRIX_KERNELS(T)                                                     \
    template void dense_apply<T>(tag, const Executor&, std::size_t, std::size_t, const_view<T>,  \
                                 const_view<T>, view<T>);                                        \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int32_t, std::int32_t);                               \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int64_t, std::int32_t);                               \
    PORTLA_INSTANTIATE_CSR_KERNELS(T, std::int64_t, std::int64_t);                               \
    template void ell_apply<T>(tag, const Executor&, std::size_t, std::size_t,                   \
                               const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>); \
    template void stencil_apply<T>(tag, const Executor&, int, std::size_t, const_view<T>,        \
                                   view<T>);                                                     \
    template void slab_stencil_apply<T>(tag, const Executor&, int, std::size_t, std::size_t,     \
                                        std::size_t, std::size_t, const T*, const T*,            \
                                        const_view<T>, view<T>, T*, bool);                       \
    template void gather<T>(tag, const Executor&, const_view<std::int32_t>, const_view<T>, view<T>)

namespace portla::kernels {
/// csr_pattern_check's result bits.
inline constexpr std::uint32_t kCsrInvalid = 1;
inline constexpr std::uint32_t kCsrDiagonalMissing = 2;

PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_MATRIX_KERNELS)
}  // namespace portla::kernels
