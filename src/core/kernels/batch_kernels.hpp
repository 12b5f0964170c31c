// The batch kernels, declared once for every backend of the list (see core/dispatch.hpp). Each
// backend defines them as templates in src/<name>/batch_kernels.{cpp,cu} and instantiates them
// with PORTLA_INSTANTIATE_BATCH_KERNELS, so a definition whose signature drifts fails the build.
// Kernels assume valid input (checked in core/batch); batch_solve times the solve itself on the
// caller's Timer, core reads it.
#pragma once

#include "common/batch/system_solvers.hpp"
#include "core/dispatch.hpp"
#include "portla/batch/solver.hpp"
#include "portla/executor.hpp"
#include "portla/timer.hpp"

#define PORTLA_DECLARE_BATCH_KERNELS(backend)                                                      \
    namespace backend {                                                                            \
    /* Solves every system of args (outcomes into args.iterations / args.reasons); `info` gets     \
       the launch layout (cuda; zeros elsewhere). `timer` (on exec): start() right before the      \
       solve itself and stop() right after it, each called exactly once on every path that         \
       returns (cuda: the kernel alone, its launch set-up and workspace outside). */               \
    template <typename T>                                                                          \
    void batch_solve(tag, const Executor& exec, const ::portla::batch::detail::BatchArgs<T>& args, \
                     Timer& timer, ::portla::batch::LaunchInfo& info);                             \
    /* res[s] = ||b_s - A_s x_s||, bnorm[s] = ||b_s|| (num_systems doubles in exec's memory) */    \
    template <typename T>                                                                          \
    void batch_residual_norms(tag, const Executor& exec,                                           \
                              const ::portla::batch::detail::BatchArgs<T>& args, double* res,      \
                              double* bnorm);                                                      \
    /* y_s = A_s x_s (args.x is ignored; x and y have num_systems * n entries) */                  \
    template <typename T>                                                                          \
    void batch_apply(tag, const Executor& exec, const ::portla::batch::detail::BatchArgs<T>& args, \
                     const T* x, T* y);                                                            \
    }

#define PORTLA_INSTANTIATE_BATCH_KERNELS(T)                                                    \
    template void batch_solve<T>(tag, const Executor&,                                         \
                                 const ::portla::batch::detail::BatchArgs<T>&, Timer&,         \
                                 ::portla::batch::LaunchInfo&);                                \
    template void batch_residual_norms<T>(                                                     \
        tag, const Executor&, const ::portla::batch::detail::BatchArgs<T>&, double*, double*); \
    template void batch_apply<T>(tag, const Executor&,                                         \
                                 const ::portla::batch::detail::BatchArgs<T>&, const T*, T*)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_BATCH_KERNELS)
}  // namespace portla::kernels
