// The cuda matrix product when PORTLA_WITH_CUDA is OFF: throws NotCompiled{"cuda"}.
#include "core/kernels/gemm_kernels.hpp"
#include "portla/error.hpp"

// The macro names every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels::cuda {

PORTLA_DECLARE_GEMM_KERNEL(double) { throw NotCompiled("cuda"); }
PORTLA_DECLARE_GEMM_KERNEL(float) { throw NotCompiled("cuda"); }

}  // namespace portla::kernels::cuda
