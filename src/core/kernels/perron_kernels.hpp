// The kernels of the dominant-eigenpair iteration for positive matrices
// (include/portla/eigen/perron.hpp), declared once for every backend of the list (see
// core/dispatch.hpp). Each backend defines them as templates in src/<name>/perron_kernels.{cpp,cu}
// and instantiates them with PORTLA_INSTANTIATE_PERRON_KERNELS. A is n x n, row-major. `variant`
// says how a reduction combines its terms on cuda (every term an atomic, one atomic per warp, one
// per work-group); the CPU backends compute the same values and ignore it. Kernels assume valid
// input (sizes and positivity are checked in core).
#pragma once

#include <cstddef>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/eigen/perron.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_PERRON_KERNELS(backend)                                                   \
    namespace backend {                                                                          \
    /* s_i = sum_j a_ij */                                                                       \
    template <typename T>                                                                        \
    void perron_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,             \
                         std::size_t n, const_view<T> a, view<T> s);                             \
    /* s_i = (A v)_i / v_i   (the row sums of D^-1 A D, D = diag(v), without forming it) */      \
    template <typename T>                                                                        \
    void perron_weighted_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,    \
                                  std::size_t n, const_view<T> a, const_view<T> v, view<T> s);   \
    /* result[0] = max_i x_i   (x_i >= 0; a NaN anywhere gives NaN) */                           \
    template <typename T>                                                                        \
    void perron_max(tag, const Executor& exec, eigen::ReductionVariant variant, const_view<T> x, \
                    view<T> result);                                                             \
    /* v_i = v_i * (s_i / m[0]) */                                                               \
    template <typename T>                                                                        \
    void perron_scale(tag, const Executor& exec, const_view<T> s, const_view<T> m, view<T> v);   \
    /* a_ij = a_ij * s_j / s_i   (A <- D^-1 A D, D = diag(s)) */                                 \
    template <typename T>                                                                        \
    void perron_transform(tag, const Executor& exec, std::size_t n, const_view<T> s, view<T> a); \
    /* result[0] = max_i |s_i - s_{(i+1) mod n}|   (the stop test's quantity; NaN propagates) */ \
    template <typename T>                                                                        \
    void perron_stop_test(tag, const Executor& exec, eigen::ReductionVariant variant,            \
                          const_view<T> s, view<T> result);                                      \
    /* a_ij = a_ij * s_j / s_i and s_next_i = sum_j (new a_ij), in one pass over A */            \
    template <typename T>                                                                        \
    void perron_fused_transform_row_sums(tag, const Executor& exec,                              \
                                         eigen::ReductionVariant variant, std::size_t n,         \
                                         const_view<T> s, view<T> a, view<T> s_next);            \
    }

#define PORTLA_INSTANTIATE_PERRON_KERNELS(T)                                                       \
    template void perron_row_sums<T>(tag, const Executor&, eigen::ReductionVariant, std::size_t,   \
                                     const_view<T>, view<T>);                                      \
    template void perron_weighted_row_sums<T>(tag, const Executor&, eigen::ReductionVariant,       \
                                              std::size_t, const_view<T>, const_view<T>, view<T>); \
    template void perron_max<T>(tag, const Executor&, eigen::ReductionVariant, const_view<T>,      \
                                view<T>);                                                          \
    template void perron_scale<T>(tag, const Executor&, const_view<T>, const_view<T>, view<T>);    \
    template void perron_transform<T>(tag, const Executor&, std::size_t, const_view<T>, view<T>);  \
    template void perron_stop_test<T>(tag, const Executor&, eigen::ReductionVariant,               \
                                      const_view<T>, view<T>);                                     \
    template void perron_fused_transform_row_sums<T>(tag, const Executor&,                         \
                                                     eigen::ReductionVariant, std::size_t,         \
                                                     const_view<T>, view<T>, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_PERRON_KERNELS)
}  // namespace portla::kernels
