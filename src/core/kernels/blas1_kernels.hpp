// The vector kernels, declared once for every backend of the list (see core/dispatch.hpp). Each
// backend defines them as templates in src/<name>/blas1_kernels.{cpp,cu} and instantiates them
// with PORTLA_INSTANTIATE_BLAS1_KERNELS, so a definition whose signature drifts fails the build.
// Kernels assume valid input (sizes are checked in core).
#pragma once

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_BLAS1_KERNELS(backend)                                                    \
    namespace backend {                                                                          \
    /* x[i] = value */                                                                           \
    template <typename T>                                                                        \
    void fill(tag, const Executor& exec, view<T> x, T value);                                    \
    /* y = x */                                                                                  \
    template <typename T>                                                                        \
    void copy(tag, const Executor& exec, const_view<T> x, view<T> y);                            \
    /* y = a x + b y (y is not read when b = 0) */                                               \
    template <typename T>                                                                        \
    void axpby(tag, const Executor& exec, T a, const_view<T> x, T b, view<T> y);                 \
    /* z = x .* y (z may alias x or y) */                                                        \
    template <typename T>                                                                        \
    void pointwise_mul(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> z);  \
    /* result[0] = x . y, in the executor's memory */                                            \
    template <typename T>                                                                        \
    void dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result);       \
    /* result[0] = ||x||_2, in the executor's memory */                                          \
    template <typename T>                                                                        \
    void norm2(tag, const Executor& exec, const_view<T> x, view<T> result);                      \
    /* d[i] = 1 / d[i] where d[i] is finite and non-zero; first_bad[0] = the smallest i where */ \
    /* it is not (untouched when there is none) */                                               \
    template <typename T>                                                                        \
    void invert_diagonal(tag, const Executor& exec, view<T> d,                                   \
                         view<unsigned long long> first_bad);                                    \
    /* x += alpha p; r -= alpha q; rr[0] = r . r   (one pass) */                                 \
    template <typename T>                                                                        \
    void fused_cg_update(tag, const Executor& exec, T alpha, const_view<T> p, const_view<T> q,   \
                         view<T> x, view<T> r, view<T> rr);                                      \
    }

#define PORTLA_INSTANTIATE_BLAS1_KERNELS(T)                                                      \
    template void fill<T>(tag, const Executor&, view<T>, T);                                     \
    template void copy<T>(tag, const Executor&, const_view<T>, view<T>);                         \
    template void axpby<T>(tag, const Executor&, T, const_view<T>, T, view<T>);                  \
    template void pointwise_mul<T>(tag, const Executor&, const_view<T>, const_view<T>, view<T>); \
    template void dot<T>(tag, const Executor&, const_view<T>, const_view<T>, view<T>);           \
    template void norm2<T>(tag, const Executor&, const_view<T>, view<T>);                        \
    template void invert_diagonal<T>(tag, const Executor&, view<T>, view<unsigned long long>);   \
    template void fused_cg_update<T>(tag, const Executor&, T, const_view<T>, const_view<T>,      \
                                     view<T>, view<T>, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_BLAS1_KERNELS)
}  // namespace portla::kernels
