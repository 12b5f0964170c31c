// Declaration of the dense matrix product kernel, stamped into every backend namespace. Each
// backend defines it in its own gemm_kernels.{cpp,cu}. Kernels assume valid input, checked in
// src/core/gemm.cpp: m, n, k >= 1 and <= INT_MAX, views of m k, k n and m n elements, a variant
// the backend implements.
#pragma once

#include <cstddef>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/gemm.hpp"

// C = alpha A B + beta C, row-major; C not read when beta == 0
#define PORTLA_DECLARE_GEMM_KERNEL(T)                                                          \
    void gemm([[maybe_unused]] const ::portla::Executor& exec, ::portla::GemmVariant variant,  \
              std::size_t m, std::size_t n, std::size_t k, T alpha, ::portla::const_view<T> a, \
              ::portla::const_view<T> b, T beta, ::portla::view<T> c)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_GEMM_KERNEL(double);
PORTLA_DECLARE_GEMM_KERNEL(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_GEMM_KERNEL(double);
PORTLA_DECLARE_GEMM_KERNEL(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_GEMM_KERNEL(double);
PORTLA_DECLARE_GEMM_KERNEL(float);
}  // namespace cuda
}  // namespace portla::kernels
