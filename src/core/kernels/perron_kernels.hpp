// Declarations of the kernels of the dominant-eigenpair iteration for positive matrices
// (include/portla/eigen/perron.hpp), stamped into every backend namespace. A is n x n,
// row-major. `variant` says how a reduction combines its terms on cuda (every term an atomic,
// one atomic per warp, one per work-group); the CPU backends compute the same values and ignore
// it. Kernels assume valid input (sizes and positivity are checked in core).
#pragma once

#include <cstddef>

#include "portla/array.hpp"
#include "portla/eigen/perron.hpp"
#include "portla/executor.hpp"

// s_i = sum_j a_ij
#define PORTLA_DECLARE_PERRON_ROW_SUMS_KERNEL(T)                                     \
    void perron_row_sums([[maybe_unused]] const ::portla::Executor& exec,            \
                         [[maybe_unused]] ::portla::eigen::ReductionVariant variant, \
                         std::size_t n, ::portla::const_view<T> a, ::portla::view<T> s)
// s_i = (A v)_i / v_i   (the row sums of D^-1 A D, D = diag(v), without forming it)
#define PORTLA_DECLARE_PERRON_WEIGHTED_ROW_SUMS_KERNEL(T)                                     \
    void perron_weighted_row_sums([[maybe_unused]] const ::portla::Executor& exec,            \
                                  [[maybe_unused]] ::portla::eigen::ReductionVariant variant, \
                                  std::size_t n, ::portla::const_view<T> a,                   \
                                  ::portla::const_view<T> v, ::portla::view<T> s)
// result[0] = max_i x_i   (x_i >= 0; a NaN anywhere gives NaN)
#define PORTLA_DECLARE_PERRON_MAX_KERNEL(T)                                     \
    void perron_max([[maybe_unused]] const ::portla::Executor& exec,            \
                    [[maybe_unused]] ::portla::eigen::ReductionVariant variant, \
                    ::portla::const_view<T> x, ::portla::view<T> result)
// v_i = v_i * (s_i / m[0])
#define PORTLA_DECLARE_PERRON_SCALE_KERNEL(T)                                                     \
    void perron_scale([[maybe_unused]] const ::portla::Executor& exec, ::portla::const_view<T> s, \
                      ::portla::const_view<T> m, ::portla::view<T> v)
// a_ij = a_ij * s_j / s_i   (A <- D^-1 A D, D = diag(s))
#define PORTLA_DECLARE_PERRON_TRANSFORM_KERNEL(T)                                         \
    void perron_transform([[maybe_unused]] const ::portla::Executor& exec, std::size_t n, \
                          ::portla::const_view<T> s, ::portla::view<T> a)
// result[0] = max_i |s_i - s_{(i+1) mod n}|   (the stop test's quantity; NaN propagates)
#define PORTLA_DECLARE_PERRON_STOP_TEST_KERNEL(T)                                     \
    void perron_stop_test([[maybe_unused]] const ::portla::Executor& exec,            \
                          [[maybe_unused]] ::portla::eigen::ReductionVariant variant, \
                          ::portla::const_view<T> s, ::portla::view<T> result)
// a_ij = a_ij * s_j / s_i and s_next_i = sum_j (new a_ij), in one pass over A
#define PORTLA_DECLARE_PERRON_FUSED_KERNEL(T)                                      \
    void perron_fused_transform_row_sums(                                          \
        [[maybe_unused]] const ::portla::Executor& exec,                           \
        [[maybe_unused]] ::portla::eigen::ReductionVariant variant, std::size_t n, \
        ::portla::const_view<T> s, ::portla::view<T> a, ::portla::view<T> s_next)

#define PORTLA_DECLARE_PERRON_KERNELS(T)               \
    PORTLA_DECLARE_PERRON_ROW_SUMS_KERNEL(T);          \
    PORTLA_DECLARE_PERRON_WEIGHTED_ROW_SUMS_KERNEL(T); \
    PORTLA_DECLARE_PERRON_MAX_KERNEL(T);               \
    PORTLA_DECLARE_PERRON_SCALE_KERNEL(T);             \
    PORTLA_DECLARE_PERRON_TRANSFORM_KERNEL(T);         \
    PORTLA_DECLARE_PERRON_STOP_TEST_KERNEL(T);         \
    PORTLA_DECLARE_PERRON_FUSED_KERNEL(T)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_PERRON_KERNELS(double);
PORTLA_DECLARE_PERRON_KERNELS(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_PERRON_KERNELS(double);
PORTLA_DECLARE_PERRON_KERNELS(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_PERRON_KERNELS(double);
PORTLA_DECLARE_PERRON_KERNELS(float);
}  // namespace cuda
}  // namespace portla::kernels
