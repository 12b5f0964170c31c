// The vendor-baseline CG: the textbook loop written the way a cuBLAS/cuSPARSE user writes it,
// one library call per vector operation, every scalar read back to the host (dots in host
// pointer mode, which synchronise). No preconditioner, x0 = 0. Per iteration:
//   1 SpMV, 2 dots (each a host round trip), 3 axpy, 1 scal.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/kernels/vendor_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "cuda/vendor_handles.hpp"

namespace portla::kernels::cuda {
namespace {

// cublas{D,S}scal, host pointer mode (axpy, copy and dot: vendor_handles.hpp).
cublasStatus_t call_scal(cublasHandle_t h, std::int64_t n, double a, double* x) {
    return PORTLA_VENDOR(cublas, cublasDscal_64)(h, n, &a, x, 1);
}
cublasStatus_t call_scal(cublasHandle_t h, std::int64_t n, float a, float* x) {
    return PORTLA_VENDOR(cublas, cublasSscal_64)(h, n, &a, x, 1);
}

// Everything one solve allocates, released on return and when a call throws.
struct CgResources {
    int device = 0;
    void* vectors = nullptr;  // r, p, q
    void* spmv_buffer = nullptr;
    cusparseConstSpMatDescr_t matrix = nullptr;
    cusparseConstDnVecDescr_t p = nullptr;
    cusparseDnVecDescr_t q = nullptr;

    explicit CgResources(int d) : device(d) {}
    CgResources(const CgResources&) = delete;
    CgResources& operator=(const CgResources&) = delete;
    ~CgResources() {
        if (q) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(q);
        if (p) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(p);
        if (matrix) (void)PORTLA_VENDOR(cusparse, cusparseDestroySpMat)(matrix);
        if (cudaSetDevice(device) == cudaSuccess) {
            if (spmv_buffer) (void)cudaFree(spmv_buffer);
            if (vectors) (void)cudaFree(vectors);
        }
        (void)cudaGetLastError();
    }
};

void* device_malloc(std::size_t bytes, int device) {
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory("cuda:" + std::to_string(device) + ": vendor CG", bytes);
    }
    PORTLA_CUDA_CHECK(err);
    return ptr;
}

}  // namespace

template <typename T>
int vendor_cg(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs,
              const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> b, view<T> x,
              double rtol, int max_iters) {
    if (rows == 0) return 0;
    const int device = exec.device_id();
    const std::int64_t n = static_cast<std::int64_t>(rows);
    // Both on the stream of exec's device, and both leave `device` current.
    cublasHandle_t blas = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    cusparseHandle_t sparse = cusparse_handle(exec);

    CgResources res(device);
    res.vectors = device_malloc(3 * rows * sizeof(T), device);
    T* r = static_cast<T*>(res.vectors);
    T* p = r + rows;
    T* q = p + rows;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseCreateConstCsr)(
        &res.matrix, n, n, static_cast<std::int64_t>(values.size), row_ptrs.data, col_idxs.data,
        values.data, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
        data_type<T>()));
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateConstDnVec)(&res.p, n, p, data_type<T>()));
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateDnVec)(&res.q, n, q, data_type<T>()));
    const T one = 1, zero = 0;
    const cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG1;
    std::size_t buffer_bytes = 0;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMV_bufferSize)(
        sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, res.matrix, res.p, &zero, res.q,
        data_type<T>(), alg, &buffer_bytes));
    if (buffer_bytes > 0) res.spmv_buffer = device_malloc(buffer_bytes, device);

    // x = 0 (all-zero bits are +0.0);  r = b;  p = r;  rr = r . r
    PORTLA_CUDA_CHECK(cudaMemsetAsync(x.data, 0, rows * sizeof(T), stream_of(exec)));
    PORTLA_CUBLAS_CHECK(call_copy(blas, n, b.data, r));
    PORTLA_CUBLAS_CHECK(call_copy(blas, n, r, p));
    T rr{};
    PORTLA_CUBLAS_CHECK(call_dot(blas, n, r, r, &rr));
    // ||r0|| = ||b||: stop when ||r|| <= rtol ||b|| (b = 0: x = 0 is exact, no iteration).
    const double stop = rtol * std::sqrt(static_cast<double>(rr));
    if (std::sqrt(static_cast<double>(rr)) <= stop) return 0;

    int iterations = 0;
    while (iterations < max_iters) {
        // q = A p
        PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMV)(
            sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, res.matrix, res.p, &zero, res.q,
            data_type<T>(), alg, res.spmv_buffer));
        // alpha = rr / (p . q)
        T pq{};
        PORTLA_CUBLAS_CHECK(call_dot(blas, n, p, q, &pq));
        const T alpha = rr / pq, minus_alpha = -alpha;
        // x += alpha p;  r -= alpha q;  rr_new = r . r
        PORTLA_CUBLAS_CHECK(call_axpy(blas, n, &alpha, p, x.data));
        PORTLA_CUBLAS_CHECK(call_axpy(blas, n, &minus_alpha, q, r));
        T rr_new{};
        PORTLA_CUBLAS_CHECK(call_dot(blas, n, r, r, &rr_new));
        ++iterations;
        // A NaN or Inf (p . q = 0 on a singular or indefinite operator) ends the loop too: the
        // caller sees it in the residual.
        if (!std::isfinite(static_cast<double>(rr_new)) ||
            std::sqrt(static_cast<double>(rr_new)) <= stop)
            break;
        // p = r + beta p, beta = rr_new / rr:  p *= beta;  p += r
        PORTLA_CUBLAS_CHECK(call_scal(blas, n, rr_new / rr, p));
        PORTLA_CUBLAS_CHECK(call_axpy(blas, n, &one, r, p));
        rr = rr_new;
    }
    return iterations;
}

PORTLA_INSTANTIATE_VENDOR_CG_KERNEL(double);
PORTLA_INSTANTIATE_VENDOR_CG_KERNEL(float);

}  // namespace portla::kernels::cuda
