// The batched direct solve of the cuda backend when PORTLA_WITH_CUDA is OFF: it throws
// NotCompiled{"cuda"} (only a cuda executor calls it, and none can exist in such a build).
#include "core/kernels/batch_direct_kernels.hpp"
#include "portla/error.hpp"

// The signature names every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels::cuda {

PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(double) { throw NotCompiled("cuda"); }
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(float) { throw NotCompiled("cuda"); }

}  // namespace portla::kernels::cuda
