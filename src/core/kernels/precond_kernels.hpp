// The kernels of the preconditioners (include/portla/solver/block_jacobi.hpp), declared once for
// every backend of the list (see core/dispatch.hpp). Each backend defines them as templates in
// src/<name>/precond_kernels.{cpp,cu} and instantiates them with
// PORTLA_INSTANTIATE_PRECOND_KERNELS, so a definition whose signature drifts fails the build.
// Kernels assume valid input (sizes are checked in core).
#pragma once

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_PRECOND_KERNELS(backend)                                                  \
    namespace backend {                                                                          \
    /* z = blockdiag(B_0, B_1, ...) r, n = r.size. Block b covers rows [b bs, min((b+1) bs, */   \
    /* n)) (the last one may be smaller: m_b rows); B_b is stored column-major in the bs * bs */ \
    /* entries blocks[b bs^2, (b+1) bs^2): entry (i, j) at b bs^2 + j bs + i, i, j < m_b. */     \
    /* Each z_i is the sum over j = 0 ... m_b - 1 in that order. z must not alias r. */          \
    template <typename T>                                                                        \
    void block_jacobi_apply(tag, const Executor& exec, int block_size, const_view<T> blocks,     \
                            const_view<T> r, view<T> z);                                         \
    }

#define PORTLA_INSTANTIATE_PRECOND_KERNELS(T)                                                    \
    template void block_jacobi_apply<T>(tag, const Executor&, int, const_view<T>, const_view<T>, \
                                        view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_PRECOND_KERNELS)
}  // namespace portla::kernels
