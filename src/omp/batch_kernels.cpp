// Batch kernels of the omp backend: systems shared out to the threads (dynamic schedule, since
// systems of one batch may take very different iteration counts), one workspace per thread.
#include <chrono>

#include "common/batch/cpu_batch.hpp"
#include "core/kernels/batch_kernels.hpp"

namespace portla::kernels::omp {

#define PORTLA_OMP_BATCH(T)                                                                       \
    PORTLA_DECLARE_BATCH_SOLVE_KERNEL(T) {                                                        \
        (void)exec;                                                                               \
        info = {};                                                                                \
        const auto start = std::chrono::steady_clock::now();                                      \
        _Pragma("omp parallel") {                                                                 \
            batch::detail::CpuWorkspace<T> work(args);                                            \
            _Pragma("omp for schedule(dynamic, 8)") for (int s = 0; s < args.num_systems; ++s)    \
                work.solve(args, s);                                                              \
        }                                                                                         \
        time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); \
    }                                                                                             \
    PORTLA_DECLARE_BATCH_RESIDUAL_KERNEL(T) {                                                     \
        (void)exec;                                                                               \
        _Pragma("omp parallel for schedule(static)") for (int s = 0; s < args.num_systems; ++s)   \
            batch::detail::residual_norm_of(args, s, res, bnorm);                                 \
    }                                                                                             \
    PORTLA_DECLARE_BATCH_APPLY_KERNEL(T) {                                                        \
        (void)exec;                                                                               \
        _Pragma("omp parallel for schedule(static)") for (int s = 0; s < args.num_systems; ++s)   \
            batch::detail::apply_of(args, s, x, y);                                               \
    }

PORTLA_OMP_BATCH(double)
PORTLA_OMP_BATCH(float)

}  // namespace portla::kernels::omp
