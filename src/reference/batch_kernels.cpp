// Batch kernels of the reference backend: the systems one after another.
#include <chrono>

#include "common/batch/cpu_batch.hpp"
#include "core/kernels/batch_kernels.hpp"

namespace portla::kernels::reference {

#define PORTLA_REFERENCE_BATCH(T)                                                                 \
    PORTLA_DECLARE_BATCH_SOLVE_KERNEL(T) {                                                        \
        (void)exec;                                                                               \
        info = {};                                                                                \
        const auto start = std::chrono::steady_clock::now();                                      \
        batch::detail::CpuWorkspace<T> work(args);                                                \
        for (int s = 0; s < args.num_systems; ++s) work.solve(args, s);                           \
        time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); \
    }                                                                                             \
    PORTLA_DECLARE_BATCH_RESIDUAL_KERNEL(T) {                                                     \
        (void)exec;                                                                               \
        for (int s = 0; s < args.num_systems; ++s)                                                \
            batch::detail::residual_norm_of(args, s, res, bnorm);                                 \
    }                                                                                             \
    PORTLA_DECLARE_BATCH_APPLY_KERNEL(T) {                                                        \
        (void)exec;                                                                               \
        for (int s = 0; s < args.num_systems; ++s) batch::detail::apply_of(args, s, x, y);        \
    }

PORTLA_REFERENCE_BATCH(double)
PORTLA_REFERENCE_BATCH(float)

}  // namespace portla::kernels::reference
