// Preconditioner kernels of the cuda backend, on the stream of exec's device (stream_of).
//
// Block Jacobi: one thread per row (grid-stride, exec.launch().work_group_size threads per
// work-group, at most one wave of resident work-groups). Thread i of block b = i / bs computes
// z_i = sum_j B_b(i - b bs, j) r_{b bs + j}. The inverted blocks are stored column-major, so at
// each j the rows of one block read one contiguous run of B_b's column j, and r_{b bs + j} is
// the same address for all of them (one broadcast load). A warp per block was not chosen: it
// leaves 32 - bs lanes idle for the small blocks (bs = 1 ... 8) that are the common case, and
// a thread per row keeps every lane busy at any block size; the sums run in the reference's
// order (j = 0, 1, ...), so the two agree to the bit up to fused multiply-adds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include <complex>

#include "core/kernels/precond_kernels.hpp"
#include "cuda/complex.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"

namespace portla::kernels::cuda {
namespace {

template <typename T>
__global__ void block_jacobi_kernel(std::size_t n, std::size_t bs, const T* __restrict__ blocks,
                                    const T* __restrict__ r, T* __restrict__ z) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const std::size_t b = i / bs, start = b * bs;
        const std::size_t m = min(bs, n - start);
        const T* row = blocks + b * bs * bs + (i - start);  // entry (i - start, j) at j bs
        T sum(0);
        for (std::size_t j = 0; j < m; ++j) sum = madd(sum, row[j * bs], r[start + j]);
        z[i] = sum;
    }
}

}  // namespace

template <typename T>
void block_jacobi_apply(tag, const Executor& exec, int block_size, const_view<T> blocks,
                        const_view<T> r, view<T> z) {
    const std::size_t n = r.size;
    if (n == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    const std::size_t needed = (n + threads - 1) / threads;
    const std::size_t wave = resident_blocks(exec.device_id(), static_cast<int>(threads));
    const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
    block_jacobi_kernel<device_t<T>><<<grid, threads, 0, stream_of(exec)>>>(
        n, static_cast<std::size_t>(block_size), device_ptr(blocks.data), device_ptr(r.data),
        device_ptr(z.data));
    PORTLA_CUDA_CHECK_LAUNCH();
}

PORTLA_INSTANTIATE_PRECOND_KERNELS(double);
PORTLA_INSTANTIATE_PRECOND_KERNELS(float);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<float>);

}  // namespace portla::kernels::cuda
