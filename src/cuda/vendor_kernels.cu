// cuBLAS and cuSPARSE wrappers on cuda memory: the vendor baselines of the GPU benchmarks.
//
// Handles: per device, created on first use and cached until exit; two cuBLAS handles, one in
// host and one in device pointer mode, so no call ever switches the mode of a shared handle.
// Every call runs on the stream of the executor's device (stream_of; set once, when the handle
// is created), ordered with the backend's own kernels. The _64
// interfaces take 64-bit sizes, so vectors longer than 2^31 need no splitting.
//
// SpMV plans: the CSR descriptor and the external buffer of cusparseSpMV are created once per
// matrix and kept in a small most-recently-used cache, so repeated calls (benchmarks) time the
// SpMV alone. The key is every pointer and size of the matrix: a matrix freed and another
// allocated at the same addresses with the same sizes hits a plan whose descriptor points at
// exactly its arrays, and no preprocessing state is kept (cusparseSpMV_preprocess is not
// called), so a stale hit is still correct.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>

#include "core/kernels/vendor_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "cuda/vendor_handles.hpp"

namespace portla::kernels {
namespace cuda {
namespace {

struct DeviceHandles {
    cublasHandle_t blas_host = nullptr;
    cublasHandle_t blas_device = nullptr;
    cusparseHandle_t sparse = nullptr;
};

std::mutex handles_mutex;
std::map<int, DeviceHandles> handles;  // never-destroyed state, released by VendorReleaser

struct SpmvKey {
    int device;
    const void* row_ptrs;
    const void* col_idxs;
    const void* values;
    std::size_t rows, cols, nnz;
    cudaDataType type;
    bool operator==(const SpmvKey& o) const {
        return device == o.device && row_ptrs == o.row_ptrs && col_idxs == o.col_idxs &&
               values == o.values && rows == o.rows && cols == o.cols && nnz == o.nnz &&
               type == o.type;
    }
};

struct SpmvPlan {
    SpmvKey key;
    cusparseConstSpMatDescr_t matrix = nullptr;
    void* buffer = nullptr;
};

// Enough for the matrices of one benchmark run plus a solver's; an evicted plan is rebuilt.
constexpr std::size_t kSpmvPlans = 8;
std::mutex spmv_mutex;           // held for the whole csr_spmv call: plans and the handle
std::list<SpmvPlan> spmv_plans;  // most recently used first

// Errors dropped: runs on eviction and at exit. cudaFree waits for the device, so a buffer still
// used by an SpMV in flight is released only after it.
void destroy_plan(SpmvPlan& plan) noexcept {
    if (cudaSetDevice(plan.key.device) == cudaSuccess) {
        if (plan.matrix) (void)PORTLA_VENDOR(cusparse, cusparseDestroySpMat)(plan.matrix);
        if (plan.buffer) (void)cudaFree(plan.buffer);
    }
    (void)cudaGetLastError();
    plan = SpmvPlan{};
}

// Releases plans and handles at exit. Constructed on the first handle creation, i.e. after the
// CUDA runtime registered its exit handler (activate() initialised it) and after cuBLAS and
// cuSPARSE were opened (open_vendor_libraries), so it runs before the runtime tears the contexts
// down (as ScratchReleaser in runtime.cu) and before either library's own exit handlers.
struct VendorReleaser {
    ~VendorReleaser() {
        std::scoped_lock lock(spmv_mutex, handles_mutex);
        for (auto& plan : spmv_plans) destroy_plan(plan);
        spmv_plans.clear();
        for (auto& [device, h] : handles) {
            if (cudaSetDevice(device) != cudaSuccess) continue;
            if (h.blas_host) (void)PORTLA_VENDOR(cublas, cublasDestroy)(h.blas_host);
            if (h.blas_device) (void)PORTLA_VENDOR(cublas, cublasDestroy)(h.blas_device);
            if (h.sparse) (void)PORTLA_VENDOR(cusparse, cusparseDestroy)(h.sparse);
            h = DeviceHandles{};
        }
        (void)cudaGetLastError();
    }
};

void register_releaser() { static VendorReleaser releaser; }

}  // namespace

// The stream is set once, at creation: the device has one stream (stream_of) for the process,
// shared by every executor of the device, and cublasSetStream would also reset the workspace.
cublasHandle_t cublas_handle(const Executor& exec, cublasPointerMode_t mode) {
    open_vendor_libraries();  // both, before the releaser exists
    const int device = exec.device_id();
    activate(device);
    std::lock_guard<std::mutex> lock(handles_mutex);
    DeviceHandles& h = handles[device];
    cublasHandle_t& slot = mode == CUBLAS_POINTER_MODE_DEVICE ? h.blas_device : h.blas_host;
    if (!slot) {
        cublasHandle_t created = nullptr;
        PORTLA_CUBLAS_CHECK(
            PORTLA_VENDOR(cublas, cublasCreate)(&created));  // on the current device
        cublasStatus_t status = PORTLA_VENDOR(cublas, cublasSetPointerMode)(created, mode);
        const char* call = "cublasSetPointerMode";
        if (status == CUBLAS_STATUS_SUCCESS) {
            status = PORTLA_VENDOR(cublas, cublasSetStream)(created, stream_of(exec));
            call = "cublasSetStream";
        }
        if (status != CUBLAS_STATUS_SUCCESS) {
            (void)PORTLA_VENDOR(cublas, cublasDestroy)(created);
            throw_cublas_error(status, call, __FILE__, __LINE__);
        }
        slot = created;
        register_releaser();
    }
    return slot;
}

cusparseHandle_t cusparse_handle(const Executor& exec) {
    open_vendor_libraries();  // both, before the releaser exists
    const int device = exec.device_id();
    activate(device);
    std::lock_guard<std::mutex> lock(handles_mutex);
    DeviceHandles& h = handles[device];
    if (!h.sparse) {
        cusparseHandle_t created = nullptr;
        PORTLA_CUSPARSE_CHECK(
            PORTLA_VENDOR(cusparse, cusparseCreate)(&created));  // host pointer mode
        const cusparseStatus_t status =
            PORTLA_VENDOR(cusparse, cusparseSetStream)(created, stream_of(exec));
        if (status != CUSPARSE_STATUS_SUCCESS) {
            (void)PORTLA_VENDOR(cusparse, cusparseDestroy)(created);
            throw_cusparse_error(status, "cusparseSetStream", __FILE__, __LINE__);
        }
        h.sparse = created;
        register_releaser();
    }
    return h.sparse;
}

namespace {

std::int64_t n64(std::size_t n) { return static_cast<std::int64_t>(n); }

// The cuBLAS names not shared with vendor_cg.cu (those are in vendor_handles.hpp).
cublasStatus_t call_nrm2(cublasHandle_t h, std::int64_t n, const double* x, double* result) {
    return PORTLA_VENDOR(cublas, cublasDnrm2_64)(h, n, x, 1, result);
}
cublasStatus_t call_nrm2(cublasHandle_t h, std::int64_t n, const float* x, float* result) {
    return PORTLA_VENDOR(cublas, cublasSnrm2_64)(h, n, x, 1, result);
}
// y = A x for A row-major rows x cols: A is the column-major cols x rows matrix A^T, so
// y = (A^T)^T x with op = T, m = cols, n = rows, lda = cols.
cublasStatus_t call_gemv(cublasHandle_t h, std::int64_t rows, std::int64_t cols, const double* a,
                         const double* x, double* y) {
    const double one = 1, zero = 0;
    return PORTLA_VENDOR(cublas, cublasDgemv_64)(h, CUBLAS_OP_T, cols, rows, &one, a, cols, x, 1,
                                                 &zero, y, 1);
}
cublasStatus_t call_gemv(cublasHandle_t h, std::int64_t rows, std::int64_t cols, const float* a,
                         const float* x, float* y) {
    const float one = 1, zero = 0;
    return PORTLA_VENDOR(cublas, cublasSgemv_64)(h, CUBLAS_OP_T, cols, rows, &one, a, cols, x, 1,
                                                 &zero, y, 1);
}

// data[0, n) = 0 (all-zero bits are +0.0), on the stream of exec's device like a kernel.
template <typename T>
void zero_device(const Executor& exec, T* data, std::size_t n) {
    activate(exec.device_id());
    PORTLA_CUDA_CHECK(cudaMemsetAsync(data, 0, n * sizeof(T), stream_of(exec)));
}

// Destroys the dense-vector descriptors of one call, also when cuSPARSE throws.
struct DenseVectors {
    cusparseConstDnVecDescr_t x = nullptr;
    cusparseDnVecDescr_t y = nullptr;
    DenseVectors() = default;
    DenseVectors(const DenseVectors&) = delete;
    DenseVectors& operator=(const DenseVectors&) = delete;
    ~DenseVectors() {
        if (x) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(x);
        if (y) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(y);
    }
};

constexpr cusparseSpMVAlg_t kSpmvAlg = CUSPARSE_SPMV_CSR_ALG1;

// The cached plan of `key`, moved to the front, or a new one (evicting the least recently used).
// Caller holds spmv_mutex.
template <typename T>
const SpmvPlan& spmv_plan(cusparseHandle_t handle, const SpmvKey& key, const DenseVectors& v,
                          const T* one, const T* zero) {
    auto& plans = spmv_plans;
    for (auto it = plans.begin(); it != plans.end(); ++it)
        if (it->key == key) {
            plans.splice(plans.begin(), plans, it);
            return plans.front();
        }
    if (plans.size() >= kSpmvPlans) {
        destroy_plan(plans.back());
        plans.pop_back();
    }
    activate(key.device);  // destroy_plan may have switched the device
    SpmvPlan plan;
    plan.key = key;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseCreateConstCsr)(
        &plan.matrix, n64(key.rows), n64(key.cols), n64(key.nnz), key.row_ptrs, key.col_idxs,
        key.values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, key.type));
    try {
        std::size_t bytes = 0;
        PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMV_bufferSize)(
            handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, plan.matrix, v.x, zero, v.y, key.type,
            kSpmvAlg, &bytes));
        if (bytes > 0) PORTLA_CUDA_CHECK(cudaMalloc(&plan.buffer, bytes));
    } catch (...) {
        destroy_plan(plan);  // leaves key.device current
        throw;
    }
    plans.push_front(plan);
    return plans.front();
}

}  // namespace

template <typename T>
void vendor_axpy(tag, const Executor& exec, T a, const_view<T> x, view<T> y) {
    if (y.size == 0) return;
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    PORTLA_CUBLAS_CHECK(call_axpy(h, n64(y.size), &a, x.data, y.data));
}

template <typename T>
void vendor_copy(tag, const Executor& exec, const_view<T> x, view<T> y) {
    if (y.size == 0) return;
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    PORTLA_CUBLAS_CHECK(call_copy(h, n64(y.size), x.data, y.data));
}

template <typename T>
void vendor_dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    if (x.size == 0) return zero_device(exec, result.data, 1);
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_DEVICE);
    PORTLA_CUBLAS_CHECK(call_dot(h, n64(x.size), x.data, y.data, result.data));
}

// Host pointer mode: cuBLAS returns once the value is in `result` (synchronising).
template <typename T>
T vendor_dot_host(tag, const Executor& exec, const_view<T> x, const_view<T> y) {
    if (x.size == 0) return T(0);
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    T result{};
    PORTLA_CUBLAS_CHECK(call_dot(h, n64(x.size), x.data, y.data, &result));
    return result;
}

template <typename T>
void vendor_nrm2(tag, const Executor& exec, const_view<T> x, view<T> result) {
    if (x.size == 0) return zero_device(exec, result.data, 1);
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_DEVICE);
    PORTLA_CUBLAS_CHECK(call_nrm2(h, n64(x.size), x.data, result.data));
}

template <typename T>
void vendor_gemv(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                 const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    // gemv quick-returns for cols == 0 without writing y, where y = A x = 0.
    if (cols == 0) return zero_device(exec, y.data, rows);
    cublasHandle_t h = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    PORTLA_CUBLAS_CHECK(call_gemv(h, n64(rows), n64(cols), values.data, x.data, y.data));
}

template <typename T>
void vendor_csr_spmv(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                     const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                     const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    const int device = exec.device_id();
    if (values.size == 0 || cols == 0) return zero_device(exec, y.data, rows);

    std::lock_guard<std::mutex> lock(spmv_mutex);
    cusparseHandle_t handle = cusparse_handle(exec);
    DenseVectors v;
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateConstDnVec)(&v.x, n64(cols), x.data, data_type<T>()));
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateDnVec)(&v.y, n64(rows), y.data, data_type<T>()));
    const T one = 1, zero = 0;
    const SpmvKey key{device, row_ptrs.data, col_idxs.data, values.data,
                      rows,   cols,          values.size,   data_type<T>()};
    const SpmvPlan& plan = spmv_plan<T>(handle, key, v, &one, &zero);
    // y = 1 A x + 0 y (beta = 0: y is not read)
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMV)(
        handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, plan.matrix, v.x, &zero, v.y,
        data_type<T>(), kSpmvAlg, plan.buffer));
}

// vendor_cg: src/cuda/vendor_cg.cu.
PORTLA_INSTANTIATE_VENDOR_BLAS_KERNELS(double);
PORTLA_INSTANTIATE_VENDOR_BLAS_KERNELS(float);

}  // namespace cuda
}  // namespace portla::kernels
