// The Krylov-basis kernels of GMRES (src/core/gmres.cpp), declared once for every backend of the
// list: the basis V is one block of k columns of length n, column j at V + j * ld, so the
// classical Gram-Schmidt projection and its correction are one pass each over the block instead
// of k dot products and k axpys (2 launches instead of 2 k on cuda).
#pragma once

#include <cstddef>

#include "core/dispatch.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_KRYLOV_KERNELS(backend)                                                     \
    namespace backend {                                                                            \
    /* h[j] = V_j . w for j < k (h in the executor's memory; k >= 1) */                            \
    template <typename T>                                                                          \
    void basis_project(tag, const Executor& exec, std::size_t n, int k, const T* V,                \
                       std::size_t ld, const T* w, T* h);                                          \
    /* w = beta w + alpha sum_{j<k} h[j] V_j (w is not read when beta = 0; k may be 0) */          \
    template <typename T>                                                                          \
    void basis_update(tag, const Executor& exec, std::size_t n, int k, const T* V, std::size_t ld, \
                      const T* h, T alpha, T beta, T* w);                                          \
    }

#define PORTLA_INSTANTIATE_KRYLOV_KERNELS(T)                                                      \
    template void basis_project<T>(tag, const Executor&, std::size_t, int, const T*, std::size_t, \
                                   const T*, T*);                                                 \
    template void basis_update<T>(tag, const Executor&, std::size_t, int, const T*, std::size_t,  \
                                  const T*, T, T, T*)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_KRYLOV_KERNELS)
}  // namespace portla::kernels
