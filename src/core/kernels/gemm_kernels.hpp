// The dense matrix product kernel, declared once for every backend of the list (see
// core/dispatch.hpp). Each backend defines it as a template in src/<name>/gemm_kernels.{cpp,cu}
// and instantiates it with PORTLA_INSTANTIATE_GEMM_KERNELS. Kernels assume valid input, checked
// in src/core/gemm.cpp: m, n, k >= 1 and <= INT_MAX, views of m k, k n and m n elements, a
// variant the backend implements.
#pragma once

#include <cstddef>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/gemm.hpp"

#define PORTLA_DECLARE_GEMM_KERNELS(backend)                                                \
    namespace backend {                                                                     \
    /* C = alpha A B + beta C, row-major; C not read when beta == 0 */                      \
    template <typename T>                                                                   \
    void gemm(tag, const Executor& exec, GemmVariant variant, std::size_t m, std::size_t n, \
              std::size_t k, T alpha, const_view<T> a, const_view<T> b, T beta, view<T> c); \
    }

#define PORTLA_INSTANTIATE_GEMM_KERNELS(T)                                             \
    template void gemm<T>(tag, const Executor&, GemmVariant, std::size_t, std::size_t, \
                          std::size_t, T, const_view<T>, const_view<T>, T, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_GEMM_KERNELS)
}  // namespace portla::kernels
