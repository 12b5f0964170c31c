// The warp, block and grid sums of the cuda backend, written once for every kernel family.
//
// grid_sum is the one-launch deterministic reduction: each block reduces its values (warp
// shuffles, then one partial per warp in shared memory), thread 0 stores the block's partial in
// `partials`, __threadfence, and takes a ticket with atomicInc. The block that draws the last
// ticket sums the partials in a fixed order (same grid, same result) and returns true; a grid of
// one block returns true at once.
// atomicInc(counter, grid - 1) wraps to 0 on the last ticket, so the counter is zero again for
// the next reduction.
//
// cluster_sum is the same sum for a grid that is one thread block cluster (sm_90: up to
// kMaxClusterBlocks blocks): each block's thread 0 writes its partial into block 0's shared
// memory (distributed shared memory, once the cluster's blocks have all entered: a split
// arrive / wait around the block's own sum), one cluster barrier, and block 0 sums the partials
// exactly as grid_sum's last block does (the same order, so the same bits for the same grid), with
// no fence, no ticket and no round trip through L2. Launch with launch_in_cluster (below).
#pragma once

#include <cooperative_groups.h>
#include <cuda/std/complex>
#include <cuda_runtime.h>

#include <utility>

namespace portla::kernels::cuda {

constexpr unsigned kFullWarpMask = 0xffffffffu;

/// Sum over the `Width` lanes of a (sub-)warp group, valid in the group's first lane.
template <int Width = 32, typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(kFullWarpMask, v, offset, Width);
    return v;
}

/// Sums v[k] over the block into warp 0's v[k] (valid in thread 0). warp_sums: NV x 32 shared.
/// Callers that reuse warp_sums afterwards must pass a __syncthreads() first.
template <int NV, typename T>
__device__ __forceinline__ void block_sum(T (&v)[NV], T (*warp_sums)[32]) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
        const T s = warp_sum(v[k]);
        if (lane == 0) warp_sums[k][warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < NV; ++k)
            v[k] = warp_sum(lane < (blockDim.x >> 5) ? warp_sums[k][lane] : T(0));
    }
}

/// Sums v[k] over the whole grid in one launch, in a fixed order. Returns true in the block that
/// finished last (every thread of it); the totals are then in thread 0's v[k]. Every thread of
/// every block must call it. partials: NV * gridDim.x entries; counter: zero between calls.
template <int NV, typename T>
__device__ bool grid_sum(T (&v)[NV], T* partials, unsigned int* counter) {
    __shared__ T warp_sums[NV][32];
    __shared__ bool is_last;
    block_sum(v, warp_sums);
    // One block (small n): thread 0's sums are the totals (what the last-block pass below would
    // give: each total plus zeros), without the partials' round trip through L2 and the ticket.
    if (gridDim.x == 1) return true;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < NV; ++k) partials[k * gridDim.x + blockIdx.x] = v[k];
        __threadfence();  // the partials are visible device-wide before the ticket is taken
        is_last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;  // wraps to 0 on the last
    }
    __syncthreads();  // also orders warp 0's reads of warp_sums before their reuse below
    if (!is_last) return false;
    __threadfence();
#pragma unroll
    for (int k = 0; k < NV; ++k) {
        T total = T(0);
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            total += __ldcg(partials + k * gridDim.x + b);  // L2, never a stale L1 line
        v[k] = total;
    }
    block_sum(v, warp_sums);
    return true;
}

/// Most blocks of a cluster_sum grid: 8 is the portable cluster size; up to 16 where the kernel
/// allows non-portable sizes and the device can place them (KernelOnDevice::max_cluster_blocks).
constexpr unsigned kMaxClusterBlocks = 16;

/// grid_sum for a grid that is one cluster of at most kMaxClusterBlocks blocks (sm_90 and later;
/// earlier machine code traps, and the host never launches it there: KernelOnDevice::clusters).
/// Returns true in block 0 (every thread of it); the totals are then in thread 0's v[k].
template <int NV, typename T>
__device__ bool cluster_sum(T (&v)[NV]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ T warp_sums[NV][32];
    __shared__ T partials[NV][kMaxClusterBlocks];
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    // Block 0's shared memory may be written only once block 0 runs: every block arrives here
    // and waits below, after its own sum (racecheck: "a block that might not have entered yet").
    auto entered = cluster.barrier_arrive();
    block_sum(v, warp_sums);
    const unsigned rank = cluster.block_rank();
    cluster.barrier_wait(std::move(entered));
    if (threadIdx.x == 0) {
        T* first = cluster.map_shared_rank(&partials[0][0], 0);
#pragma unroll
        for (int k = 0; k < NV; ++k) first[k * kMaxClusterBlocks + rank] = v[k];
    }
    cluster.sync();  // release / acquire: block 0 sees every partial
    if (rank != 0) return false;
    const unsigned blocks = cluster.num_blocks();
#pragma unroll
    for (int k = 0; k < NV; ++k)
        v[k] = T(0) + (threadIdx.x < blocks ? partials[k][threadIdx.x] : T(0));  // as grid_sum
    block_sum(v, warp_sums);  // cluster.sync() above also ordered the first one's reads
    return true;
#else
    __trap();
    return false;
#endif
}

// Complex sums (cuda/complex.cuh): the sums of the real and imaginary parts, each as a real
// sum above (the same order, so the same bits for the same grid); partials hold the parts of
// value k at 2k and 2k + 1 in the real layout (as many bytes as NV complex sums).
template <int NV, typename R>
__device__ __forceinline__ void split_parts(const ::cuda::std::complex<R> (&v)[NV],
                                            R (&parts)[2 * NV]) {
#pragma unroll
    for (int k = 0; k < NV; ++k) {
        parts[2 * k] = v[k].real();
        parts[2 * k + 1] = v[k].imag();
    }
}
template <int NV, typename R>
__device__ __forceinline__ void join_parts(const R (&parts)[2 * NV],
                                           ::cuda::std::complex<R> (&v)[NV]) {
#pragma unroll
    for (int k = 0; k < NV; ++k) v[k] = ::cuda::std::complex<R>(parts[2 * k], parts[2 * k + 1]);
}

template <int Width = 32, typename R>
__device__ __forceinline__ ::cuda::std::complex<R> warp_sum(::cuda::std::complex<R> v) {
    return ::cuda::std::complex<R>(warp_sum<Width>(v.real()), warp_sum<Width>(v.imag()));
}

/// block_sum of complex values; warp_sums: 2 NV x 32 shared values of the real type.
template <int NV, typename R>
__device__ __forceinline__ void block_sum(::cuda::std::complex<R> (&v)[NV], R (*warp_sums)[32]) {
    R parts[2 * NV];
    split_parts(v, parts);
    block_sum(parts, warp_sums);
    join_parts(parts, v);
}

template <int NV, typename R>
__device__ bool grid_sum(::cuda::std::complex<R> (&v)[NV], ::cuda::std::complex<R>* partials,
                         unsigned int* counter) {
    R parts[2 * NV];
    split_parts(v, parts);
    const bool last = grid_sum(parts, reinterpret_cast<R*>(partials), counter);
    join_parts(parts, v);
    return last;
}

template <int NV, typename R>
__device__ bool cluster_sum(::cuda::std::complex<R> (&v)[NV]) {
    R parts[2 * NV];
    split_parts(v, parts);
    const bool first = cluster_sum(parts);
    join_parts(parts, v);
    return first;
}

/// kernel<<<blocks, threads, 0, stream>>>(args...) as one thread block cluster of `blocks`
/// blocks (at most KernelOnDevice::max_cluster_blocks). Returns the launch's error (the caller
/// checks it).
template <typename... Params, typename... Args>
cudaError_t launch_in_cluster(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                              cudaStream_t stream, Args&&... args) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = blocks;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace portla::kernels::cuda
