// Batched dense direct solve on cuda: the vendor reference of the batched iterative solvers,
// cuBLAS getrfBatched + getrsBatched on a copy of the matrices.
//
// Layout: portla's dense batch is row-major per system, cuBLAS is column-major, so the n x n
// block of system s read by cuBLAS (lda = n) is A_s^T. getrf factors P A_s^T = L U, and
// A_s x = b_s is (A_s^T)^T x = b_s: getrs with CUBLAS_OP_T on those factors.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernels/batch_direct_kernels.hpp"
#include "core/runtime.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "cuda/vendor_handles.hpp"
#include "portla/array.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"

namespace portla::kernels::cuda {
namespace {

// flag[s] = 1 when A_s or b_s holds a NaN or Inf (one block per system, grid-stride over
// systems). cuBLAS would factor such a system without complaint.
template <typename T>
__global__ void find_non_finite(std::size_t num_systems, std::size_t n, const T* values, const T* b,
                                int* flag) {
    for (std::size_t s = blockIdx.x; s < num_systems; s += gridDim.x) {
        const T* a = values + s * n * n;
        bool bad = false;
        for (std::size_t k = threadIdx.x; k < n * n; k += blockDim.x) bad |= !isfinite(a[k]);
        for (std::size_t k = threadIdx.x; k < n; k += blockDim.x) bad |= !isfinite(b[s * n + k]);
        bad = __syncthreads_or(bad);
        if (threadIdx.x == 0) flag[s] = bad ? 1 : 0;
    }
}

// The pointer arrays of the batched cuBLAS calls: a[s] = lu + s n^2, x[s] = x + s n.
template <typename T>
__global__ void set_pointers(std::size_t num_systems, std::size_t n, T* lu, T* x, T** a_ptrs,
                             T** x_ptrs) {
    for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s < num_systems;
         s += std::size_t{gridDim.x} * blockDim.x) {
        a_ptrs[s] = lu + s * n * n;
        x_ptrs[s] = x + s * n;
    }
}

cublasStatus_t getrf_batched(cublasHandle_t h, int n, double* const a[], int* pivots, int* info,
                             int batch) {
    return PORTLA_VENDOR(cublas, cublasDgetrfBatched)(h, n, a, n, pivots, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, float* const a[], int* pivots, int* info,
                             int batch) {
    return PORTLA_VENDOR(cublas, cublasSgetrfBatched)(h, n, a, n, pivots, info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, const double* const a[], const int* pivots,
                             double* const x[], int* info, int batch) {
    return PORTLA_VENDOR(cublas, cublasDgetrsBatched)(h, CUBLAS_OP_T, n, 1, a, n, pivots, x, n,
                                                      info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, const float* const a[], const int* pivots,
                             float* const x[], int* info, int batch) {
    return PORTLA_VENDOR(cublas, cublasSgetrsBatched)(h, CUBLAS_OP_T, n, 1, a, n, pivots, x, n,
                                                      info, batch);
}

// a * b + c in bytes, or SIZE_MAX when it overflows (then no device can hold it).
std::size_t bytes_of(std::size_t a, std::size_t b, std::size_t c = 0) {
    if (a != 0 && b > (SIZE_MAX - c) / a) return SIZE_MAX;
    return a * b + c;
}

}  // namespace

template <typename T>
void batch_lu_solve(tag, const Executor& exec, std::size_t num_systems, std::size_t n,
                    const_view<T> values, const_view<T> b, view<T> x, std::vector<int>& info,
                    Timer& timer) {
    info.assign(num_systems, 0);
    if (num_systems == 0 || n == 0) {
        timer.start();  // nothing to time, but seconds() stays valid
        timer.stop();
        return;
    }
    const std::string where = "batch::direct_solve on cuda (" + std::to_string(num_systems) +
                              " systems of " + std::to_string(n) + " x " + std::to_string(n) + ")";
    if (n > static_cast<std::size_t>(INT_MAX) || num_systems > static_cast<std::size_t>(INT_MAX))
        throw BadInput(where + ": cuBLAS batched LU takes int sizes and batch counts");
    const int device = exec.device_id();
    activate(device);

    // The factors overwrite their input, so they go to a copy: B n^2 values more, plus pivots,
    // flags and pointer arrays. Checked against the free memory first, for a message that says
    // what did not fit (and so that none of the sizes below overflows).
    const std::size_t lu_bytes = bytes_of(bytes_of(num_systems, n), n * sizeof(T));
    const std::size_t int_bytes = bytes_of(num_systems, (n + 2) * sizeof(int));
    const std::size_t ptr_bytes = bytes_of(num_systems, 2 * sizeof(T*));
    const std::size_t total = bytes_of(1, lu_bytes, bytes_of(1, int_bytes, ptr_bytes));
    std::size_t free_bytes = 0, total_bytes = 0;
    exec.runtime().memory_info(free_bytes, total_bytes);
    if (total > free_bytes)
        throw OutOfMemory(where + ": the LU factors need a copy of the B n^2 matrix values (" +
                              std::to_string(free_bytes) + " bytes free on the device)",
                          total);

    // Released on every path out of the solve.
    Array<T> lu(exec, num_systems * n * n);
    Array<int> pivots(exec, num_systems * n);
    Array<int> getrf_info(exec, num_systems);
    Array<int> non_finite(exec, num_systems);
    Array<T*> a_ptrs(exec, num_systems);
    Array<T*> x_ptrs(exec, num_systems);

    const cudaStream_t stream = stream_of(exec);
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(lu.data(), values.data, lu_bytes, cudaMemcpyDeviceToDevice, stream));
    PORTLA_CUDA_CHECK(cudaMemcpyAsync(x.data, b.data, num_systems * n * sizeof(T),
                                      cudaMemcpyDeviceToDevice, stream));
    const unsigned blocks = static_cast<unsigned>(
        std::min<std::size_t>(num_systems, std::size_t{resident_blocks(device, 128)}));
    find_non_finite<T>
        <<<blocks, 128, 0, stream>>>(num_systems, n, values.data, b.data, non_finite.data());
    PORTLA_CUDA_CHECK_LAUNCH();
    set_pointers<T><<<blocks, 128, 0, stream>>>(num_systems, n, lu.data(), x.data, a_ptrs.data(),
                                                x_ptrs.data());
    PORTLA_CUDA_CHECK_LAUNCH();

    // On the stream of exec's device, like the copies and kernels above.
    cublasHandle_t handle = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    const int n_int = static_cast<int>(n), batch = static_cast<int>(num_systems);
    int getrs_info = 0;  // host: reports an invalid argument only
    // Timed: the factorisations and the solves alone.
    timer.start();
    PORTLA_CUBLAS_CHECK(
        getrf_batched(handle, n_int, a_ptrs.data(), pivots.data(), getrf_info.data(), batch));
    PORTLA_CUBLAS_CHECK(getrs_batched(handle, n_int, a_ptrs.data(), pivots.data(), x_ptrs.data(),
                                      &getrs_info, batch));
    timer.stop();
    if (getrs_info != 0)
        throw DeviceError(where + ": cublas getrsBatched rejected argument " +
                          std::to_string(-getrs_info));

    // Blocking copies after the work on the stream.
    info = getrf_info.to_host();
    const std::vector<int> flags = non_finite.to_host();
    for (std::size_t s = 0; s < num_systems; ++s)
        if (flags[s]) info[s] = -1;
}

PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(float);

}  // namespace portla::kernels::cuda
