// The sparse and aggregation kernels of the cuda backend: one thread per row (grid-stride, 256
// threads per block) running the row functions of common/sparse/rows.hpp, on the stream of the
// executor's device. The prefix sums are CUB's (cub::DeviceScan). count_rows reduces each
// block's count with __syncthreads_count and adds it to a device counter (one atomic per block),
// read back once.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr unsigned kThreads = 256;

template <typename F>
__global__ void rows_kernel(std::size_t first, std::size_t last, F f) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < last; i += stride)
        f(i);
}

template <typename F>
__global__ void count_kernel(std::size_t n, F f, unsigned long long* total) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned long long count = 0;
    // Every thread of the block runs the same number of passes (__syncthreads_count is a barrier).
    for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < n;
         base += stride) {
        const std::size_t i = base + threadIdx.x;
        count += static_cast<unsigned long long>(__syncthreads_count(i < n && f(i) != 0));
    }
    if (threadIdx.x == 0 && count > 0) atomicAdd(total, count);
}

unsigned grid_for(const Executor& exec, std::size_t n) {
    const std::size_t needed = (n + kThreads - 1) / kThreads;
    const std::size_t wave =
        8 * static_cast<std::size_t>(resident_blocks(exec.device_id(), kThreads));
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
}

template <typename F>
void for_rows(const Executor& exec, std::size_t first, std::size_t last, F f) {
    if (last <= first) return;
    activate(exec.device_id());
    rows_kernel<<<grid_for(exec, last - first), kThreads, 0, stream_of(exec)>>>(first, last, f);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename F>
std::size_t count_rows(const Executor& exec, std::size_t n, F f) {
    if (n == 0) return 0;
    activate(exec.device_id());
    Array<unsigned long long> total(exec, 1);
    const cudaStream_t stream = stream_of(exec);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, sizeof(unsigned long long), stream));
    count_kernel<<<grid_for(exec, n), kThreads, 0, stream>>>(n, f, total.data());
    PORTLA_CUDA_CHECK_LAUNCH();
    unsigned long long host = 0;
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(&host, total.data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<std::size_t>(host);
}

}  // namespace

template <typename I>
void exclusive_scan(tag, const Executor& exec, const_view<I> in, view<I> out) {
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(out.data, 0, sizeof(I), stream));
    if (in.size == 0) return;
    std::size_t bytes = 0;
    PORTLA_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(nullptr, bytes, in.data, out.data + 1, in.size, stream));
    Array<unsigned char> temp(exec, std::max<std::size_t>(bytes, 1));
    PORTLA_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(temp.data(), bytes, in.data, out.data + 1, in.size, stream));
    // temp is freed at return: the scan must have read it by then.
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#include "core/kernels/row_kernels.inc"

PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::cuda
