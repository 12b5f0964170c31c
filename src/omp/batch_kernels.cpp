// Batch kernels of the omp backend: systems shared out to the threads (dynamic schedule, since
// systems of one batch may take very different iteration counts), one workspace per thread.
#include "common/batch/cpu_batch.hpp"
#include "core/kernels/batch_kernels.hpp"

namespace portla::kernels::omp {

template <typename T>
void batch_solve(tag, const Executor&, const batch::detail::BatchArgs<T>& args, Timer& timer,
                 batch::LaunchInfo& info) {
    info = {};
    timer.start();  // the threads' workspaces are set up inside the parallel region, so timed
#pragma omp parallel
    {
        batch::detail::CpuWorkspace<T> work(args);
#pragma omp for schedule(dynamic, 8)
        for (int s = 0; s < args.num_systems; ++s) work.solve(args, s);
    }
    timer.stop();
}

template <typename T>
void batch_residual_norms(tag, const Executor&, const batch::detail::BatchArgs<T>& args,
                          double* res, double* bnorm) {
#pragma omp parallel for schedule(static)
    for (int s = 0; s < args.num_systems; ++s) batch::detail::residual_norm_of(args, s, res, bnorm);
}

template <typename T>
void batch_apply(tag, const Executor&, const batch::detail::BatchArgs<T>& args, const T* x, T* y) {
#pragma omp parallel for schedule(static)
    for (int s = 0; s < args.num_systems; ++s) batch::detail::apply_of(args, s, x, y);
}

PORTLA_INSTANTIATE_BATCH_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_KERNELS(float);

}  // namespace portla::kernels::omp
