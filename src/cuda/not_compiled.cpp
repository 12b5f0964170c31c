// TRANSITIONAL: stubs of the kernel families still declared per backend by hand; a family moved
// to core/dispatch.hpp needs none (dispatch throws NotCompiled{"cuda"} itself).
#include "core/kernels/matrix_kernels.hpp"
#include "portla/error.hpp"

// The macros name every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels::cuda {

#define PORTLA_NOT_COMPILED_KERNELS(T)                                  \
    PORTLA_DECLARE_DENSE_APPLY_KERNEL(T) { throw NotCompiled("cuda"); } \
    PORTLA_DECLARE_CSR_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }   \
    PORTLA_DECLARE_ELL_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }   \
    PORTLA_DECLARE_STENCIL_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }

PORTLA_NOT_COMPILED_KERNELS(double)
PORTLA_NOT_COMPILED_KERNELS(float)

#undef PORTLA_NOT_COMPILED_KERNELS

}  // namespace portla::kernels::cuda
