// Batch kernels of the reference backend: the systems one after another.
#include "common/batch/cpu_batch.hpp"
#include "core/kernels/batch_kernels.hpp"

namespace portla::kernels::reference {

template <typename T>
void batch_solve(tag, const Executor&, const batch::detail::BatchArgs<T>& args, Timer& timer,
                 batch::LaunchInfo& info) {
    info = {};
    batch::detail::CpuWorkspace<T> work(args);
    timer.start();
    for (int s = 0; s < args.num_systems; ++s) work.solve(args, s);
    timer.stop();
}

template <typename T>
void batch_residual_norms(tag, const Executor&, const batch::detail::BatchArgs<T>& args,
                          double* res, double* bnorm) {
    for (int s = 0; s < args.num_systems; ++s) batch::detail::residual_norm_of(args, s, res, bnorm);
}

template <typename T>
void batch_apply(tag, const Executor&, const batch::detail::BatchArgs<T>& args, const T* x, T* y) {
    for (int s = 0; s < args.num_systems; ++s) batch::detail::apply_of(args, s, x, y);
}

PORTLA_INSTANTIATE_BATCH_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_KERNELS(float);

}  // namespace portla::kernels::reference
