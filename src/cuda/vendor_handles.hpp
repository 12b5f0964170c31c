// cuBLAS and cuSPARSE handles, status checks and the cuBLAS names shared by the vendor-library
// paths (vendor_kernels.cu, vendor_cg.cu, gemm_kernels.cu, batch_direct_kernels.cu). Internal
// to src/cuda.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <cstdint>
#include <string>
#include <complex>
#include <type_traits>

#include "cuda/scratch.hpp"
#include "cuda/vendor_library.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

#if CUBLAS_VER_MAJOR < 12
#error "portla's cuBLAS path needs cuBLAS 12 or later (the _64 interfaces)"
#endif

namespace portla::kernels::cuda {

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call,
                                            const char* file, int line) {
    throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                      PORTLA_VENDOR(cublas, cublasGetStatusString)(status));
}

[[noreturn]] inline void throw_cusparse_error(cusparseStatus_t status, const char* call,
                                              const char* file, int line) {
    throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                      PORTLA_VENDOR(cusparse, cusparseGetErrorString)(status));
}

/// The cuBLAS handle of exec's device whose pointer mode is `mode` (one handle per mode, so the
/// mode is never switched on a shared handle). Created on first use, on the device's one stream
/// (stream_of: set once at creation, so cuBLAS runs in order with the backend's own kernels),
/// and cached until exit. Makes the device current. Thread-safe. Throws DeviceError.
cublasHandle_t cublas_handle(const Executor& exec, cublasPointerMode_t mode);

/// The cuSPARSE handle of exec's device (host pointer mode, the device's stream), cached like
/// cublas_handle. Makes the device current. Thread-safe. Throws DeviceError.
cusparseHandle_t cusparse_handle(const Executor& exec);

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

/// The CUDA data type of T (double or float).
template <typename T>
constexpr cudaDataType data_type() {
    static_assert(std::is_same<T, double>::value || std::is_same<T, float>::value ||
                      std::is_same<T, std::complex<double>>::value ||
                      std::is_same<T, std::complex<float>>::value,
                  "double, float or their complex");
    if (std::is_same<T, std::complex<double>>::value) return CUDA_C_64F;
    if (std::is_same<T, std::complex<float>>::value) return CUDA_C_32F;
    return std::is_same<T, double>::value ? CUDA_R_64F : CUDA_R_32F;
}

// The cuBLAS names, overloaded on the value type (unit strides; `a` and `result` in the
// handle's pointer mode).
inline cublasStatus_t call_axpy(cublasHandle_t h, std::int64_t n, const double* a, const double* x,
                                double* y) {
    return PORTLA_VENDOR(cublas, cublasDaxpy_64)(h, n, a, x, 1, y, 1);
}
inline cublasStatus_t call_axpy(cublasHandle_t h, std::int64_t n, const float* a, const float* x,
                                float* y) {
    return PORTLA_VENDOR(cublas, cublasSaxpy_64)(h, n, a, x, 1, y, 1);
}
inline cublasStatus_t call_copy(cublasHandle_t h, std::int64_t n, const double* x, double* y) {
    return PORTLA_VENDOR(cublas, cublasDcopy_64)(h, n, x, 1, y, 1);
}
inline cublasStatus_t call_copy(cublasHandle_t h, std::int64_t n, const float* x, float* y) {
    return PORTLA_VENDOR(cublas, cublasScopy_64)(h, n, x, 1, y, 1);
}
inline cublasStatus_t call_dot(cublasHandle_t h, std::int64_t n, const double* x, const double* y,
                               double* result) {
    return PORTLA_VENDOR(cublas, cublasDdot_64)(h, n, x, 1, y, 1, result);
}
inline cublasStatus_t call_dot(cublasHandle_t h, std::int64_t n, const float* x, const float* y,
                               float* result) {
    return PORTLA_VENDOR(cublas, cublasSdot_64)(h, n, x, 1, y, 1, result);
}

}  // namespace portla::kernels::cuda
