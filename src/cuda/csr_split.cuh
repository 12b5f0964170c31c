// CSR with long rows on the cuda backend (issue 17): the rows longer than CsrLongRows::from
// entries (common/csr_long_rows.hpp) are split into segments of kCsrSegment entries, one warp per
// segment, before the other rows take their groups of G lanes (csr_lanes: by the average row);
// the groups skip the long rows. A row of one segment is written by its warp. A row of several:
// each warp stores its segment's sum in `partials`, __threadfence, and takes a ticket on the
// row's counter (the one of its first segment); the warp that draws the last ticket sums the
// row's partials in segment order (the same bits whichever warp is last) and writes the row,
// then sets the counter back to zero for the next launch. Nobody waits on anybody.
//
// Segments go to the warps of the grid in turn (segment s to warp s mod warps), the rest by
// rows as before, so the work of each warp is known before the launch: the fused CG step adds
// p_row times each segment's sum to its warp's p.q (p.q = sum over segments), in an order fixed
// by the grid, as every other sum of the backend.
//
// 32-bit indices only (the plan is made for CsrIndex::int32; the 64-bit forms keep the groups).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/csr_long_rows.hpp"
#include "cuda/reduction.cuh"
#include "cuda/sparse_row.cuh"
#include "portla/operator.hpp"

namespace portla::kernels::cuda {

/// The long rows' segments given to warp `warp` of `warps` (every lane of the warp calls it, the
/// loop is warp-uniform): out[row] = (A v)_row once the row's last segment is in, and
/// on_segment(row, sum) in lane 0 for each segment's sum.
template <typename T, typename Src, typename OnSegment>
__device__ __forceinline__ void csr_long_segments(const CsrLongRows<T>& lr,
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
        T sum = csr_lane_sum<T>(first + lane, last, 32, col_idxs, values, v);
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
            last_in = atomicAdd(lr.counters + head, 1u) == static_cast<unsigned>(parts - 1);
        }
        last_in = __shfl_sync(kFullWarpMask, last_in, 0);
        if (last_in) {
            __threadfence();
            T total = T(0);
            for (std::int64_t k = lane; k < parts; k += 32)
                total += __ldcg(lr.partials + head + k);  // L2, never a stale L1 line
            total = warp_sum(total);
            if (lane == 0) {
                out[row] = total;
                lr.counters[head] = 0;
            }
        }
    }
}

/// The groups of G lanes over the rows of at most lr.from entries (the long ones skipped):
/// on_row(row, (A v)_row) in the group's lane 0. Every lane of the warp calls it.
template <int G, typename T, typename Src, typename OnRow>
__device__ __forceinline__ void csr_short_rows(std::size_t rows, std::size_t from,
                                               const std::int32_t* row_ptrs,
                                               const std::int32_t* col_idxs, const T* values,
                                               const Src& v, std::size_t warp, std::size_t warps,
                                               OnRow on_row) {
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    for (std::size_t first = warp * rows_per_warp; first < rows; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        T acc = T(0);
        bool mine = false;
        if (row < rows) {
            const std::int32_t begin = __ldg(row_ptrs + row);
            const std::int32_t end = __ldg(row_ptrs + row + 1);
            mine = static_cast<std::size_t>(end - begin) <= from;
            if (mine)
                acc = csr_lane_sum<T>(std::int64_t{begin} + member, end, G, col_idxs, values, v);
        }
        acc = warp_sum<G>(acc);
        if (mine && member == 0) on_row(row, acc);
    }
}

/// No gate: the plain SpMV always runs.
struct Ungated {
    __device__ __forceinline__ bool operator()() const { return false; }
};

/// y = A x with the long rows split; returns at once when gate() says so (the CG replacement
/// step: only when a replacement is due).
template <int G, typename T, typename Gate>
__global__ void csr_split_apply_kernel(std::size_t rows, const std::int32_t* __restrict__ row_ptrs,
                                       const std::int32_t* __restrict__ col_idxs,
                                       const T* __restrict__ values, CsrLongRows<T> lr,
                                       const T* __restrict__ x, T* __restrict__ y, Gate gate) {
    if (gate()) return;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    const auto read = [x](std::size_t j) { return __ldg(x + j); };
    csr_long_segments(lr, row_ptrs, col_idxs, values, read, warp, warps, y, [](std::size_t, T) {});
    csr_short_rows<G, T>(rows, lr.from, row_ptrs, col_idxs, values, read, warp, warps,
                         [y](std::size_t row, T sum) { y[row] = sum; });
}

}  // namespace portla::kernels::cuda
