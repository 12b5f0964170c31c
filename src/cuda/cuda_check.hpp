// Checking macros for CUDA runtime calls and kernel launches (cuda backend only).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "portla/error.hpp"

namespace portla::kernels::cuda {

/// Throws the portla error that matches `err`: OutOfMemory for cudaErrorMemoryAllocation
/// (bytes unknown here, reported as 0), DeviceError otherwise. Clears the runtime's last error.
[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
    (void)cudaGetLastError();
    const std::string where = std::string(file) + ":" + std::to_string(line) + ": " + call;
    if (err == cudaErrorMemoryAllocation) throw OutOfMemory(where, 0);
    throw DeviceError(where + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace portla::kernels::cuda

#define PORTLA_CUDA_CHECK(call)                                                          \
    do {                                                                                 \
        const cudaError_t portla_cuda_err_ = (call);                                     \
        if (portla_cuda_err_ != cudaSuccess)                                             \
            ::portla::kernels::cuda::throw_cuda_error(portla_cuda_err_, #call, __FILE__, \
                                                      __LINE__);                         \
    } while (false)

// After every <<<...>>>: a bad configuration shows up here, a fault in the kernel at the next
// synchronising call.
#define PORTLA_CUDA_CHECK_LAUNCH() PORTLA_CUDA_CHECK(cudaGetLastError())
