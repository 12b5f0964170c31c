// The Krylov-basis kernels of the cuda backend (core/kernels/krylov_kernels.hpp).
//
// basis_project: one launch, one wave of blocks at most, each block taking rows grid-stride and
// every column of the block in groups of kGroup (kGroup sums per thread, one block_sum per group;
// w is read once per group, from L2 after the first). Each block stores its kGroup partials per
// group, takes one ticket; the last block sums the partials of every column in a fixed order
// (deterministic) and writes h. basis_update: one thread per row, h staged in shared memory.
// Complex values: h[j] = V_j^H w, summed in complex of double (cuda/complex.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <cstddef>

#include "core/kernels/krylov_kernels.hpp"
#include "cuda/complex.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr int kGroup = 4;         // columns reduced together
constexpr int kMaxShared = 1024;  // h entries staged in shared memory by basis_update

// The partial sums of one column: Acc, of which a complex one is two real sums.
template <typename T>
constexpr int kParts = common::is_complex_v<device_acc_t<T>> ? 2 : 1;
template <typename T>
using part_t = common::real_t<device_acc_t<T>>;

template <typename T>
__global__ void project_kernel(std::size_t n, int k, const T* __restrict__ V, std::size_t ld,
                               const T* __restrict__ w, T* __restrict__ h,
                               device_acc_t<T>* partials, unsigned int* counter) {
    using Acc = device_acc_t<T>;
    __shared__ part_t<T> warp_sums[kGroup * kParts<T>][32];
    __shared__ bool is_last;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (int j0 = 0; j0 < k; j0 += kGroup) {
        Acc acc[kGroup];
#pragma unroll
        for (int c = 0; c < kGroup; ++c) acc[c] = Acc(0);
        for (std::size_t i = first; i < n; i += stride) {
            const T wi = w[i];
#pragma unroll
            for (int c = 0; c < kGroup; ++c)
                if (j0 + c < k)
                    acc[c] = madd_conj(acc[c], V[static_cast<std::size_t>(j0 + c) * ld + i], wi);
        }
        block_sum(acc, warp_sums);
        if (threadIdx.x == 0)
            for (int c = 0; c < kGroup && j0 + c < k; ++c)
                partials[static_cast<std::size_t>(j0 + c) * gridDim.x + blockIdx.x] = acc[c];
        __syncthreads();  // warp_sums is reused by the next group
    }
    if (threadIdx.x == 0) {
        __threadfence();  // the partials are visible device-wide before the ticket is taken
        is_last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;  // wraps to 0 on the last
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    for (int j = threadIdx.x; j < k; j += blockDim.x) {  // one thread per column, fixed order
        Acc total = Acc(0);
        for (unsigned b = 0; b < gridDim.x; ++b)
            total += ldcg(partials + static_cast<std::size_t>(j) * gridDim.x + b);
        h[j] = narrow<T>(total);
    }
}

template <typename T>
__global__ void update_kernel(std::size_t n, int k, const T* __restrict__ V, std::size_t ld,
                              const T* __restrict__ h, T alpha, T beta, T* __restrict__ w) {
    // raw storage: a __shared__ array of a class type (complex) may not be constructed
    __shared__ alignas(T) unsigned char staged[kMaxShared * sizeof(T)];
    T* hs = reinterpret_cast<T*>(staged);
    for (int j = threadIdx.x; j < k; j += blockDim.x) hs[j] = h[j];
    __syncthreads();
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        T acc = T(0);
        for (int j = 0; j < k; ++j) acc = madd(acc, hs[j], V[static_cast<std::size_t>(j) * ld + i]);
        w[i] = (beta == T(0) ? T(0) : beta * w[i]) + alpha * acc;
    }
}

}  // namespace

template <typename T>
void basis_project(tag, const Executor& exec, std::size_t n, int k, const T* V, std::size_t ld,
                   const T* w, T* h) {
    const int device = exec.device_id();
    activate(device);
    const unsigned threads = 256;
    using D = device_t<T>;
    using Acc = device_acc_t<D>;
    const ReductionScratch scratch = reduction_scratch(device);
    const std::size_t needed = std::max<std::size_t>(1, (n + threads - 1) / threads);
    // capacity counts doubles; a complex sum takes two
    const std::size_t room =
        scratch.capacity * sizeof(double) / std::max(sizeof(Acc), sizeof(double));
    const std::size_t cap = std::max<std::size_t>(1, room / std::max(k, 1));
    const unsigned blocks = static_cast<unsigned>(
        std::min({needed, cap, static_cast<std::size_t>(resident_blocks(device, threads))}));
    project_kernel<D><<<blocks, threads, 0, stream_of(exec)>>>(
        n, k, device_ptr(V), ld, device_ptr(w), device_ptr(h), static_cast<Acc*>(scratch.partials),
        scratch.counter);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void basis_update(tag, const Executor& exec, std::size_t n, int k, const T* V, std::size_t ld,
                  const T* h, T alpha, T beta, T* w) {
    if (n == 0) return;
    const int device = exec.device_id();
    activate(device);
    const unsigned threads = 256;
    const std::size_t needed = (n + threads - 1) / threads;
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(
        needed, 4 * static_cast<std::size_t>(resident_blocks(device, threads))));
    // Columns past kMaxShared: in chunks, each adding to w.
    for (int j0 = 0; j0 == 0 || j0 < k; j0 += kMaxShared) {
        const int kc = std::min(k - j0, kMaxShared);
        update_kernel<device_t<T>><<<blocks, threads, 0, stream_of(exec)>>>(
            n, std::max(kc, 0), device_ptr(V + static_cast<std::size_t>(j0) * ld), ld,
            device_ptr(h + j0), device_value(alpha), device_value(j0 == 0 ? beta : T(1)),
            device_ptr(w));
        PORTLA_CUDA_CHECK_LAUNCH();
    }
}

PORTLA_INSTANTIATE_KRYLOV_KERNELS(double);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(float);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::cuda
