// Declarations of the operator-apply kernels (y = A x), stamped into every backend namespace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "portla/array.hpp"
#include "portla/executor.hpp"

// y = A x, A dense row-major rows x cols
#define PORTLA_DECLARE_DENSE_APPLY_KERNEL(T)                                                      \
    void dense_apply([[maybe_unused]] const ::portla::Executor& exec, std::size_t rows,           \
                     std::size_t cols, ::portla::const_view<T> values, ::portla::const_view<T> x, \
                     ::portla::view<T> y)
// y = A x, A CSR with rows + 1 row pointers
#define PORTLA_DECLARE_CSR_APPLY_KERNEL(T)                                                      \
    void csr_apply([[maybe_unused]] const ::portla::Executor& exec, std::size_t rows,           \
                   ::portla::const_view<std::int32_t> row_ptrs,                                 \
                   ::portla::const_view<std::int32_t> col_idxs, ::portla::const_view<T> values, \
                   ::portla::const_view<T> x, ::portla::view<T> y)
// y = A x, A ELL column-major rows x width, padding column -1
#define PORTLA_DECLARE_ELL_APPLY_KERNEL(T)                                            \
    void ell_apply([[maybe_unused]] const ::portla::Executor& exec, std::size_t rows, \
                   std::size_t width, ::portla::const_view<std::int32_t> col_idxs,    \
                   ::portla::const_view<T> values, ::portla::const_view<T> x, ::portla::view<T> y)
// y = A x, A the dim-D Poisson stencil on points^dim grid points (see matrix/stencil.hpp)
#define PORTLA_DECLARE_STENCIL_APPLY_KERNEL(T)                                   \
    void stencil_apply([[maybe_unused]] const ::portla::Executor& exec, int dim, \
                       std::size_t points, ::portla::const_view<T> x, ::portla::view<T> y)

#define PORTLA_DECLARE_MATRIX_KERNELS(T)  \
    PORTLA_DECLARE_DENSE_APPLY_KERNEL(T); \
    PORTLA_DECLARE_CSR_APPLY_KERNEL(T);   \
    PORTLA_DECLARE_ELL_APPLY_KERNEL(T);   \
    PORTLA_DECLARE_STENCIL_APPLY_KERNEL(T)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_MATRIX_KERNELS(double);
PORTLA_DECLARE_MATRIX_KERNELS(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_MATRIX_KERNELS(double);
PORTLA_DECLARE_MATRIX_KERNELS(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_MATRIX_KERNELS(double);
PORTLA_DECLARE_MATRIX_KERNELS(float);
}  // namespace cuda
}  // namespace portla::kernels
