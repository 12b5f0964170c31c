// The cuda backend when PORTLA_WITH_CUDA is OFF: everything links, every entry point that would
// need a GPU throws NotCompiled{"cuda"}. Signatures come from the declaring macros, so one that
// drifts fails the build.
#include "core/kernels/blas1_kernels.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/kernels/runtime.hpp"
#include "portla/error.hpp"

// The macros name every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels::cuda {

bool compiled() { return false; }
int device_count() { return 0; }
DeviceInfo device_info(int device) { throw NotCompiled("cuda"); }
void* allocate(int device, std::size_t bytes) { throw NotCompiled("cuda"); }
void deallocate(int device, void* ptr) noexcept {}
void copy_to_device(int device, void* dst, const void* src, std::size_t bytes) {
    throw NotCompiled("cuda");
}
void copy_to_host(int device, void* dst, const void* src, std::size_t bytes) {
    throw NotCompiled("cuda");
}
void copy_device_to_device(int device, void* dst, const void* src, std::size_t bytes) {
    throw NotCompiled("cuda");
}
void synchronize(int device) { throw NotCompiled("cuda"); }
void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes) {
    throw NotCompiled("cuda");
}
void* event_create(int device) { throw NotCompiled("cuda"); }
void event_destroy(void*) noexcept {}
void event_record(int device, void* event) { throw NotCompiled("cuda"); }
double event_elapsed_s(void* start, void* stop) { throw NotCompiled("cuda"); }

#define PORTLA_NOT_COMPILED_KERNELS(T)                                      \
    PORTLA_DECLARE_FILL_KERNEL(T) { throw NotCompiled("cuda"); }            \
    PORTLA_DECLARE_COPY_KERNEL(T) { throw NotCompiled("cuda"); }            \
    PORTLA_DECLARE_AXPBY_KERNEL(T) { throw NotCompiled("cuda"); }           \
    PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T) { throw NotCompiled("cuda"); }   \
    PORTLA_DECLARE_DOT_KERNEL(T) { throw NotCompiled("cuda"); }             \
    PORTLA_DECLARE_NORM2_KERNEL(T) { throw NotCompiled("cuda"); }           \
    PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T) { throw NotCompiled("cuda"); } \
    PORTLA_DECLARE_DENSE_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }     \
    PORTLA_DECLARE_CSR_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }       \
    PORTLA_DECLARE_ELL_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }       \
    PORTLA_DECLARE_STENCIL_APPLY_KERNEL(T) { throw NotCompiled("cuda"); }

PORTLA_NOT_COMPILED_KERNELS(double)
PORTLA_NOT_COMPILED_KERNELS(float)

#undef PORTLA_NOT_COMPILED_KERNELS

}  // namespace portla::kernels::cuda
