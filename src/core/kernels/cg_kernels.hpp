// The steps of the conjugate gradient method (src/core/cg.cpp), declared once for every backend
// of the list: each step is one fused kernel (on cuda one launch with a one-launch reduction)
// that reads and writes the solve's scalars in the executor's memory and takes its decisions
// through src/common/cg_step.hpp. Every step returns at once when the state says the solve has
// stopped, so a captured sequence of iterations can run past the stop without changing anything.
#pragma once

#include <cstddef>

#include "common/cg_step.hpp"
#include "common/scalar.hpp"
#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"

namespace portla::kernels {

/// Everything a CG step touches; pointers are memory of the executor. The state's scalars are
/// real for complex values too (CG of a Hermitian A: r^H z and p^H A p are real).
template <typename T>
struct CgArgs {
    common::CgState<common::real_t<T>>* state = nullptr;
    common::CgControl control;
    std::size_t n = 0;
    const T* b = nullptr;
    T* x = nullptr;
    T* r = nullptr;
    T* z = nullptr;               ///< nullptr without preconditioning (z is r)
    const T* inv_diag = nullptr;  ///< Jacobi, applied by the steps; nullptr when deferred
    T* p0 = nullptr;  ///< p ping-pongs between p0 and p1 by the parity of state->iteration
    T* p1 = nullptr;
    T* q = nullptr;
    T* ax = nullptr;  ///< A x of a replacement, when the operator is applied from outside
    /// p_new . q left by the operator's apply (LinearOperator::apply_and_dot, this process's
    /// rows), read by cg_direction_dot instead of its sum; nullptr: cg_direction_dot sums it
    const T* pq = nullptr;
    FusedOperator<T> op;  ///< read by the fused steps (kind != none)
};

}  // namespace portla::kernels

#define PORTLA_DECLARE_CG_KERNELS(backend)                                                       \
    namespace backend {                                                                          \
    /* from a given r: [z = M^-1 r]; rr = r.r; [rz = r.z]; then finish_residual(mode) */         \
    template <typename T>                                                                        \
    void cg_initialize(tag, const Executor& exec, const CgArgs<T>& args, common::CgFinish mode); \
    /* fused (args.op.kind != none): p_new = z + beta p_old; q = A p_new; pq -> finish */        \
    template <typename T>                                                                        \
    void cg_direction(tag, const Executor& exec, const CgArgs<T>& args);                         \
    /* any operator, first half: p_new = z + beta p_old */                                       \
    template <typename T>                                                                        \
    void cg_form_direction(tag, const Executor& exec, const CgArgs<T>& args);                    \
    /* any operator, second half after q = A p_new: pq = p_new . q (or *args.pq) -> finish */    \
    template <typename T>                                                                        \
    void cg_direction_dot(tag, const Executor& exec, const CgArgs<T>& args);                     \
    /* x += alpha p_new; unless replacing: r -= alpha q; [z]; rr; [rz] -> finish_residual */     \
    template <typename T>                                                                        \
    void cg_update(tag, const Executor& exec, const CgArgs<T>& args);                            \
    /* fused, when replacing: r = b - A x; [z]; rr; [rz] -> finish_residual(replaced) */         \
    template <typename T>                                                                        \
    void cg_replace(tag, const Executor& exec, const CgArgs<T>& args);                           \
    /* any operator, when replacing, after ax = A x: r = b - ax; [z]; rr; [rz] -> finish */      \
    template <typename T>                                                                        \
    void cg_replace_from_ax(tag, const Executor& exec, const CgArgs<T>& args);                   \
    /* deferred preconditioning, after z = M^-1 r: rz = r.z -> finish of the pending residual */ \
    template <typename T>                                                                        \
    void cg_finish_preconditioned(tag, const Executor& exec, const CgArgs<T>& args);             \
    /* fused, no replacement: up to `count` whole iterations (direction and update) in one       \
       launch where the backend has such a path for this system; false: take the steps */        \
    template <typename T>                                                                        \
    bool cg_iterations(tag, const Executor& exec, const CgArgs<T>& args, int count);             \
    }

#define PORTLA_INSTANTIATE_CG_KERNELS(T)                                                      \
    template void cg_initialize<T>(tag, const Executor&, const CgArgs<T>&, common::CgFinish); \
    template void cg_direction<T>(tag, const Executor&, const CgArgs<T>&);                    \
    template void cg_form_direction<T>(tag, const Executor&, const CgArgs<T>&);               \
    template void cg_direction_dot<T>(tag, const Executor&, const CgArgs<T>&);                \
    template void cg_update<T>(tag, const Executor&, const CgArgs<T>&);                       \
    template void cg_replace<T>(tag, const Executor&, const CgArgs<T>&);                      \
    template void cg_replace_from_ax<T>(tag, const Executor&, const CgArgs<T>&);              \
    template void cg_finish_preconditioned<T>(tag, const Executor&, const CgArgs<T>&);        \
    template bool cg_iterations<T>(tag, const Executor&, const CgArgs<T>&, int)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_CG_KERNELS)
}  // namespace portla::kernels
