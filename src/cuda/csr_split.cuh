// CSR with long rows on the cuda backend: the rows longer than CsrLongRows::from
// entries (common/csr_long_rows.hpp) are split into segments of kCsrSegment entries, one warp per
// segment, before the other rows are taken by row blocks (consecutive rows of at most
// kCsrBlockEntries entries together, a warp each: csr_row_blocks). A row of one segment is written
// by its warp. A row of several: each warp stores its segment's sum in `partials`, __threadfence,
// and takes a ticket on the row's counter (the one of its first segment); the warp that draws the
// last ticket sums the row's partials in segment order (the same bits whichever warp is last) and
// writes the row; atomicInc has wrapped the counter back to zero for the next launch. Nobody
// waits on anybody.
//
// Segments go to the warps of the grid in turn (segment s to warp s mod warps), then the row
// blocks (block b to warp b mod warps), so the work of each warp is known before the launch: the
// fused CG step adds p_row times each segment's sum to its warp's p.q (p.q = sum over segments), in
// an order fixed by the grid, as every other sum of the backend.
//
// 32-bit indices only (the plan is made for CsrIndex::int32; the 64-bit forms keep the groups).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/csr_long_rows.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "cuda/sparse_row.cuh"
#include "portla/operator.hpp"

namespace portla::kernels::cuda {

/// The long rows' segments given to warp `warp` of `warps` (every lane of the warp calls it, the
/// loop is warp-uniform): out[row] = (A v)_row once the row's last segment is in, and
/// on_segment(row, sum) in lane 0 for each segment's sum.
template <typename T, typename Src, typename OnSegment>
__device__ __forceinline__ void csr_long_segments(const SplitRows<T>& lr,
                                                  const std::int32_t* row_ptrs,
                                                  const std::int32_t* col_idxs, const T* values,
                                                  const Src& v, std::size_t warp, std::size_t warps,
                                                  T* out, OnSegment on_segment) {
    constexpr std::int64_t kSegment = static_cast<std::int64_t>(common::kCsrSegment);
    const unsigned lane = threadIdx.x & 31u;
    for (std::size_t s = warp; s < lr.segments; s += warps) {
        const std::int32_t row = __ldg(lr.rows + s);
        const std::int32_t part = __ldg(lr.parts + s);
        const std::int64_t begin = __ldg(row_ptrs + row);
        const std::int64_t end = __ldg(row_ptrs + row + 1);
        const std::int64_t first = begin + std::int64_t{part} * kSegment;
        const std::int64_t last = first + kSegment < end ? first + kSegment : end;
        T sum = csr_lane_sum<T, kCsrChunk, true>(first + lane, last, 32, col_idxs, values, v);
        sum = warp_sum(sum);
        if (lane == 0) on_segment(static_cast<std::size_t>(row), sum);
        const std::int64_t parts = (end - begin + kSegment - 1) / kSegment;
        if (parts == 1) {
            if (lane == 0) out[row] = sum;
            continue;
        }
        const std::size_t head = s - static_cast<std::size_t>(part);
        unsigned last_in = 0;
        if (lane == 0) {
            lr.partials[s] = sum;
            __threadfence();  // the partial is visible device-wide before the ticket
            // atomicInc wraps the counter back to zero on the last ticket (ready for the next
            // launch), as grid_sum's does
            const auto wrap = static_cast<unsigned>(parts - 1);
            last_in = atomicInc(lr.counters + head, wrap) == wrap;
        }
        last_in = __shfl_sync(kFullWarpMask, last_in, 0);
        if (last_in) {
            __threadfence();
            T total = T(0);
            for (std::int64_t k = lane; k < parts; k += 32)
                total += __ldcg(lr.partials + head + k);  // L2, never a stale L1 line
            total = warp_sum(total);
            if (lane == 0) out[row] = total;
        }
    }
}

/// Threads of a block of the split kernels (their row blocks' shared memory is sized for them).
constexpr unsigned kCsrSplitThreads = 256;

/// The row blocks (all rows but the long ones) given to warp `warp` of `warps` in turn (every
/// lane of the warp calls it): the warp loads the block's entries, 8 a lane, each lane its own
/// (columns and values as streams, __ldcs: read once, they leave the cache to the gathered
/// vector), and stores the products in `products` (kCsrBlockEntries of the warp's shared memory);
/// then groups of g lanes, g = 32 / (the block's rows rounded up to a power of two), add each
/// row's products in order and lane 0 of the group calls on_row(row, (A v)_row).
template <typename T, typename Src, typename OnRow>
__device__ __forceinline__ void csr_row_blocks(const CsrLongRows& lr, const std::int32_t* row_ptrs,
                                               const std::int32_t* col_idxs, const T* values,
                                               const Src& v, std::size_t warp, std::size_t warps,
                                               T* products, OnRow on_row) {
    constexpr int kCap = static_cast<int>(common::kCsrBlockEntries);
    constexpr int kPerLane = kCap / 32;
    static_assert(common::kCsrBlockEntries == 8 * 32 && common::kCsrBlockRows <= 32,
                  "8 entries a lane; a lane (or more) a row");
    const int lane = static_cast<int>(threadIdx.x & 31u);
    for (std::size_t b = warp; b < lr.block_count; b += warps) {
        const std::int32_t r0 = __ldg(lr.blocks + b);
        const std::int32_t r1 = __ldg(lr.blocks + b + 1);
        const std::int32_t base = __ldg(row_ptrs + r0);
        const std::int32_t end = __ldg(row_ptrs + r1);
        const int entries = end - base;
        if (entries > kCap) continue;  // a long row: its segments
        // Indexed from the block's first entry: base + 255 may pass 2^31 - 1 near the end of
        // the 32-bit form's largest matrices, entries - 1 never does.
        const std::int32_t* block_cols = col_idxs + base;
        const T* block_values = values + base;
        std::int32_t c[kPerLane];
        T w[kPerLane];
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
            const int k = j * 32 + lane;
            c[j] = k < entries ? __ldcs(block_cols + k) : 0;
            w[j] = k < entries ? __ldcs(block_values + k) : T(0);
        }
#pragma unroll
        for (int j = 0; j < kPerLane; ++j)
            if (j * 32 + lane < entries)
                products[j * 32 + lane] = w[j] * v(static_cast<std::size_t>(c[j]));
        __syncwarp();
        const int rows = r1 - r0;
        const int g = rows > 16  ? 1
                      : rows > 8 ? 2
                      : rows > 4 ? 4
                      : rows > 2 ? 8
                      : rows > 1 ? 16
                                 : 32;
        const int mine = lane / g, member = lane % g;
        T acc = T(0);
        if (mine < rows) {
            const std::int32_t first = __ldg(row_ptrs + r0 + mine) - base;
            const std::int32_t last = __ldg(row_ptrs + r0 + mine + 1) - base;
            for (std::int32_t k = first + member; k < last; k += g) acc += products[k];
        }
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            const T other = __shfl_down_sync(kFullWarpMask, acc, offset);
            if (offset < g) acc += other;
        }
        if (mine < rows && member == 0) on_row(static_cast<std::size_t>(r0 + mine), acc);
        __syncwarp();  // the products are read before the next block's are stored
    }
}

/// The warp's index and count of the grid, and its kCsrBlockEntries of shared memory, for the
/// split kernels (launched with kCsrSplitThreads threads).
template <typename T>
struct SplitWarp {
    std::size_t warp, warps;
    T* products;
};

template <typename T>
__device__ __forceinline__ SplitWarp<T> split_warp(
    T (&shared)[kCsrSplitThreads / 32][common::kCsrBlockEntries]) {
    return {(static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5,
            (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5, shared[threadIdx.x >> 5]};
}

/// No gate: the plain SpMV always runs.
struct Ungated {
    __device__ __forceinline__ bool operator()() const { return false; }
};

/// y = A x with the long rows split; returns at once when gate() says so (the CG replacement
/// step: only when a replacement is due).
template <typename T, typename Gate>
__global__ void __launch_bounds__(kCsrSplitThreads)
    csr_split_apply_kernel(const std::int32_t* __restrict__ row_ptrs,
                           const std::int32_t* __restrict__ col_idxs, const T* __restrict__ values,
                           SplitRows<T> lr, const T* __restrict__ x, T* __restrict__ y, Gate gate) {
    __shared__ T shared[kCsrSplitThreads / 32][common::kCsrBlockEntries];
    if (gate()) return;
    const SplitWarp<T> w = split_warp(shared);
    const auto read = [x](std::size_t j) { return __ldg(x + j); };
    csr_long_segments(lr, row_ptrs, col_idxs, values, read, w.warp, w.warps, y,
                      [](std::size_t, T) {});
    csr_row_blocks(lr, row_ptrs, col_idxs, values, read, w.warp, w.warps, w.products,
                   [y](std::size_t row, T sum) { y[row] = sum; });
}

}  // namespace portla::kernels::cuda
