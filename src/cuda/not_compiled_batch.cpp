// The batch kernels when the cuda backend is switched off: each throws NotCompiled{"cuda"}.
#include "core/kernels/batch_kernels.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {

#define PORTLA_NOT_COMPILED_BATCH(T)                      \
    PORTLA_DECLARE_BATCH_SOLVE_KERNEL(T) {                \
        (void)exec, (void)args, (void)info, (void)time_s; \
        throw NotCompiled("cuda");                        \
    }                                                     \
    PORTLA_DECLARE_BATCH_RESIDUAL_KERNEL(T) {             \
        (void)exec, (void)args, (void)res, (void)bnorm;   \
        throw NotCompiled("cuda");                        \
    }                                                     \
    PORTLA_DECLARE_BATCH_APPLY_KERNEL(T) {                \
        (void)exec, (void)args, (void)x, (void)y;         \
        throw NotCompiled("cuda");                        \
    }

PORTLA_NOT_COMPILED_BATCH(double)
PORTLA_NOT_COMPILED_BATCH(float)

}  // namespace portla::kernels::cuda
