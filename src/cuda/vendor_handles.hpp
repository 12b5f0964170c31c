// cuBLAS and cuSPARSE handles and status checks of the vendor-library paths
// (vendor_kernels.cu, vendor_cg.cu). Internal to src/cuda.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <string>

#include "cuda/scratch.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

#if CUBLAS_VER_MAJOR < 12
#error "portla's cuBLAS path needs cuBLAS 12 or later (the _64 interfaces)"
#endif

namespace portla::kernels::cuda {

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call,
                                            const char* file, int line) {
    throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                      cublasGetStatusString(status));
}

[[noreturn]] inline void throw_cusparse_error(cusparseStatus_t status, const char* call,
                                              const char* file, int line) {
    throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                      cusparseGetErrorString(status));
}

/// The cuBLAS handle of `device` whose pointer mode is `mode` (one handle per mode, so the mode
/// is never switched on a shared handle). Created on first use, cached until exit. Makes
/// `device` current. Thread-safe. Throws DeviceError. Use the Executor overload below, which
/// also sets the handle's stream.
cublasHandle_t cublas_handle(int device, cublasPointerMode_t mode);

/// The cuSPARSE handle of `device` (host pointer mode), cached like cublas_handle. Makes
/// `device` current. Thread-safe. Throws DeviceError. Use the Executor overload below.
cusparseHandle_t cusparse_handle(int device);

}  // namespace portla::kernels::cuda

#define PORTLA_CUBLAS_CHECK(call)                                                               \
    do {                                                                                        \
        const cublasStatus_t portla_cublas_status_ = (call);                                    \
        if (portla_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                     \
            ::portla::kernels::cuda::throw_cublas_error(portla_cublas_status_, #call, __FILE__, \
                                                        __LINE__);                              \
    } while (false)

#define PORTLA_CUSPARSE_CHECK(call)                                                       \
    do {                                                                                  \
        const cusparseStatus_t portla_cusparse_status_ = (call);                          \
        if (portla_cusparse_status_ != CUSPARSE_STATUS_SUCCESS)                           \
            ::portla::kernels::cuda::throw_cusparse_error(portla_cusparse_status_, #call, \
                                                          __FILE__, __LINE__);            \
    } while (false)

namespace portla::kernels::cuda {

/// cublas_handle(exec.device_id(), mode), set to the stream of exec's device (stream_of), so
/// cuBLAS runs in order with the backend's own kernels. Set before each use: the handle is
/// shared by every executor of the device.
inline cublasHandle_t cublas_handle(const Executor& exec, cublasPointerMode_t mode) {
    cublasHandle_t handle = cublas_handle(exec.device_id(), mode);
    PORTLA_CUBLAS_CHECK(cublasSetStream(handle, stream_of(exec)));
    return handle;
}

/// cusparse_handle(exec.device_id()), set to the stream of exec's device (stream_of).
inline cusparseHandle_t cusparse_handle(const Executor& exec) {
    cusparseHandle_t handle = cusparse_handle(exec.device_id());
    PORTLA_CUSPARSE_CHECK(cusparseSetStream(handle, stream_of(exec)));
    return handle;
}

}  // namespace portla::kernels::cuda
