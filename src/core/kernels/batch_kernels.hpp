// Declarations of the batch kernels, stamped into every backend namespace.
#pragma once

#include "common/batch/system_solvers.hpp"
#include "portla/batch/solver.hpp"
#include "portla/executor.hpp"

// Solves every system of args (outcomes into args.iterations / args.reasons); `time_s` gets
// the time of the solve itself, `info` the launch layout (cuda).
#define PORTLA_DECLARE_BATCH_SOLVE_KERNEL(T)                            \
    void batch_solve(const ::portla::Executor& exec,                    \
                     const ::portla::batch::detail::BatchArgs<T>& args, \
                     ::portla::batch::LaunchInfo& info, double& time_s)
// res[s] = ||b_s - A_s x_s||, bnorm[s] = ||b_s|| (arrays of num_systems doubles in exec's memory)
#define PORTLA_DECLARE_BATCH_RESIDUAL_KERNEL(T)                                               \
    void batch_residual_norms(const ::portla::Executor& exec,                                 \
                              const ::portla::batch::detail::BatchArgs<T>& args, double* res, \
                              double* bnorm)
// y_s = A_s x_s (args.x is ignored; x and y have num_systems * n entries)
#define PORTLA_DECLARE_BATCH_APPLY_KERNEL(T)         \
    void batch_apply(const ::portla::Executor& exec, \
                     const ::portla::batch::detail::BatchArgs<T>& args, const T* x, T* y)

#define PORTLA_DECLARE_BATCH_KERNELS(T)      \
    PORTLA_DECLARE_BATCH_SOLVE_KERNEL(T);    \
    PORTLA_DECLARE_BATCH_RESIDUAL_KERNEL(T); \
    PORTLA_DECLARE_BATCH_APPLY_KERNEL(T)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_BATCH_KERNELS(double);
PORTLA_DECLARE_BATCH_KERNELS(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_BATCH_KERNELS(double);
PORTLA_DECLARE_BATCH_KERNELS(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_BATCH_KERNELS(double);
PORTLA_DECLARE_BATCH_KERNELS(float);
}  // namespace cuda
}  // namespace portla::kernels
