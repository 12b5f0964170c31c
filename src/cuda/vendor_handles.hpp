// cuBLAS and cuSPARSE handles and status checks of the vendor-library paths
// (vendor_kernels.cu, vendor_cg.cu). Internal to src/cuda.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <string>

#include "portla/error.hpp"

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
/// is never switched on a shared handle). Created on first use, cached until exit, on the
/// default stream like every kernel of the backend. Makes `device` current. Thread-safe.
/// Throws DeviceError.
cublasHandle_t cublas_handle(int device, cublasPointerMode_t mode);

/// The cuSPARSE handle of `device` (host pointer mode, default stream), cached like
/// cublas_handle. Makes `device` current. Thread-safe. Throws DeviceError.
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
