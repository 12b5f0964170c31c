// Rows of sparse matrices on the cuda backend, for the SpMVs and the fused CG steps.
//
// ELL (column-major: entry k of row i at k * rows + i, so a warp reads 32 consecutive entries of
// each column), one thread per row:
// The columns and values of kEllChunk entries of the row are loaded before any of their
// products, so a thread has up to 2 kEllChunk loads in flight; common::ell_row's loop issued one
// entry's loads at a time. The products then follow common::ell_row's order (same sum, same
// rounding), padding (column -1) skipped. H100, CG on poisson3d:128 assembled (ELL, width 7),
// same run (2026-11-26): 0.1310-0.1316 ms per iteration against 0.1476-0.1478 with the loop
// (floor 0.1159: 1.13x against 1.27x); 160^3: 0.2590 against 0.2789-0.2798.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/complex.cuh"

namespace portla::kernels::cuda {

constexpr int kEllChunk = 8;

/// sum_k values[k * rows + i] * v(cols[k * rows + i]) over the row's entries with column >= 0.
/// v(j) returns entry j of the vector (it may form it: the CG direction).
template <typename T, typename Src>
__device__ __forceinline__ T ell_row_sum(std::size_t i, std::size_t rows, std::size_t width,
                                         const std::int32_t* cols, const T* vals, const Src& v) {
    T acc = T(0);
    for (std::size_t k0 = 0; k0 < width; k0 += kEllChunk) {
        std::int32_t c[kEllChunk];
        T w[kEllChunk];
#pragma unroll
        for (int j = 0; j < kEllChunk; ++j) {
            const bool in = k0 + j < width;
            const std::size_t e = (k0 + j) * rows + i;
            c[j] = in ? __ldg(cols + e) : -1;
            w[j] = in ? ldg(vals + e) : T(0);
        }
#pragma unroll
        for (int j = 0; j < kEllChunk; ++j)
            if (c[j] >= 0) acc = madd(acc, w[j], v(static_cast<std::size_t>(c[j])));
    }
    return acc;
}

// CSR, a group of lanes per row: the lane's share of row sum, entries k = first, first + step,
// ... < end. kCsrChunk entries' columns and values are loaded before their products, then the
// products are added in the loop's order (same partial sum, same rounding as one entry at a
// time). H100 (2026-11-26): SpMV at 2^24 rows 2835 GB/s against 2637 one entry at a time, same
// run; CG on poisson3d:128 with --format csr 0.1440-0.1443 ms per iteration (1.24x its floor)
// against 0.1487-0.1515 in an earlier call that day.
constexpr int kCsrChunk = 4;

// Column indices I: int32, or int64 for a matrix of 2^31 or more columns (CsrIndex::int64).
// Streams: columns and values loaded with __ldcs (read once: they leave the caches to the
// gathered vector; the long rows' segments, cuda/csr_split.cuh: 2.5% on the power-law SpMV,
// H100, 2026-11-27).
template <typename T, int C = kCsrChunk, bool Streams = false, typename I, typename Src>
__device__ __forceinline__ T csr_lane_sum(std::int64_t first, std::int64_t end, int step,
                                          const I* cols, const T* vals, const Src& v) {
    T acc = T(0);
    for (std::int64_t k0 = first; k0 < end; k0 += std::int64_t{step} * C) {
        I c[C];
        T w[C];
#pragma unroll
        for (int j = 0; j < C; ++j) {
            const std::int64_t k = k0 + std::int64_t{j} * step;
            if constexpr (Streams) {
                c[j] = k < end ? __ldcs(cols + k) : 0;
                w[j] = k < end ? ldcs(vals + k) : T(0);
            } else {
                c[j] = k < end ? __ldg(cols + k) : 0;
                w[j] = k < end ? ldg(vals + k) : T(0);
            }
        }
#pragma unroll
        for (int j = 0; j < C; ++j)
            if (k0 + std::int64_t{j} * step < end)
                acc = madd(acc, w[j], v(static_cast<std::size_t>(c[j])));
    }
    return acc;
}

}  // namespace portla::kernels::cuda
