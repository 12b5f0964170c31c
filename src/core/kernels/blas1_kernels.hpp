// Declarations of the vector kernels, stamped into every backend namespace. Each backend
// defines them in its own blas1_kernels.{cpp,cu} and instantiates them through the same macros,
// so a signature that drifts fails the build. Kernels assume valid input (sizes checked in core).
#pragma once

#include "portla/array.hpp"
#include "portla/executor.hpp"

// x[i] = value
#define PORTLA_DECLARE_FILL_KERNEL(T) \
    void fill([[maybe_unused]] const ::portla::Executor& exec, ::portla::view<T> x, T value)
// y = x
#define PORTLA_DECLARE_COPY_KERNEL(T)                                                     \
    void copy([[maybe_unused]] const ::portla::Executor& exec, ::portla::const_view<T> x, \
              ::portla::view<T> y)
// y = a x + b y
#define PORTLA_DECLARE_AXPBY_KERNEL(T)                                                          \
    void axpby([[maybe_unused]] const ::portla::Executor& exec, T a, ::portla::const_view<T> x, \
               T b, ::portla::view<T> y)
// z = x .* y
#define PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T)                                                     \
    void pointwise_mul([[maybe_unused]] const ::portla::Executor& exec, ::portla::const_view<T> x, \
                       ::portla::const_view<T> y, ::portla::view<T> z)
// result[0] = x . y  (result in the executor's memory)
#define PORTLA_DECLARE_DOT_KERNEL(T)                                                     \
    void dot([[maybe_unused]] const ::portla::Executor& exec, ::portla::const_view<T> x, \
             ::portla::const_view<T> y, ::portla::view<T> result)
// result[0] = ||x||_2  (result in the executor's memory)
#define PORTLA_DECLARE_NORM2_KERNEL(T)                                                     \
    void norm2([[maybe_unused]] const ::portla::Executor& exec, ::portla::const_view<T> x, \
               ::portla::view<T> result)
// x += alpha p; r -= alpha q; rr[0] = r . r   (one pass)
#define PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T)                                   \
    void fused_cg_update([[maybe_unused]] const ::portla::Executor& exec, T alpha, \
                         ::portla::const_view<T> p, ::portla::const_view<T> q,     \
                         ::portla::view<T> x, ::portla::view<T> r, ::portla::view<T> rr)

#define PORTLA_DECLARE_BLAS1_KERNELS(T)     \
    PORTLA_DECLARE_FILL_KERNEL(T);          \
    PORTLA_DECLARE_COPY_KERNEL(T);          \
    PORTLA_DECLARE_AXPBY_KERNEL(T);         \
    PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T); \
    PORTLA_DECLARE_DOT_KERNEL(T);           \
    PORTLA_DECLARE_NORM2_KERNEL(T);         \
    PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_BLAS1_KERNELS(double);
PORTLA_DECLARE_BLAS1_KERNELS(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_BLAS1_KERNELS(double);
PORTLA_DECLARE_BLAS1_KERNELS(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_BLAS1_KERNELS(double);
PORTLA_DECLARE_BLAS1_KERNELS(float);
}  // namespace cuda
}  // namespace portla::kernels
