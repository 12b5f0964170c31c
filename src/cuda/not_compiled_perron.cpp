// The eigenpair kernels when the cuda backend is switched off: each throws NotCompiled{"cuda"}.
#include "core/kernels/perron_kernels.hpp"
#include "portla/error.hpp"

// The macros name every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels::cuda {

#define PORTLA_NOT_COMPILED_PERRON(T)                                                \
    PORTLA_DECLARE_PERRON_ROW_SUMS_KERNEL(T) { throw NotCompiled("cuda"); }          \
    PORTLA_DECLARE_PERRON_WEIGHTED_ROW_SUMS_KERNEL(T) { throw NotCompiled("cuda"); } \
    PORTLA_DECLARE_PERRON_MAX_KERNEL(T) { throw NotCompiled("cuda"); }               \
    PORTLA_DECLARE_PERRON_SCALE_KERNEL(T) { throw NotCompiled("cuda"); }             \
    PORTLA_DECLARE_PERRON_TRANSFORM_KERNEL(T) { throw NotCompiled("cuda"); }         \
    PORTLA_DECLARE_PERRON_STOP_TEST_KERNEL(T) { throw NotCompiled("cuda"); }         \
    PORTLA_DECLARE_PERRON_FUSED_KERNEL(T) { throw NotCompiled("cuda"); }

PORTLA_NOT_COMPILED_PERRON(double)
PORTLA_NOT_COMPILED_PERRON(float)

#undef PORTLA_NOT_COMPILED_PERRON

}  // namespace portla::kernels::cuda
