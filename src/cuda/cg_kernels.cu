// The CG steps of the cuda backend (core/kernels/cg_kernels.hpp): each step is one launch on the
// device's stream with a one-launch deterministic reduction (cuda/reduction.cuh), and the
// decisions of src/common/cg_step.hpp run in the last block to finish.
//
// Fused steps: the direction p_new = z + beta p_old is formed on the fly at every point the
// operator reads (one rounding, the same at every point), so direction reads r, p_old and writes
// p_new, q (32 n bytes for the double stencil: the neighbours' reads hit L1/L2); update reads
// p_new, q, x, r and writes x, r (48 n): 80 n per iteration, against 104 n for the unfused steps
// (form the direction, apply, p.q, update). Jacobi adds 16 n. ELL forms p_new on the fly like
// the stencil while z and p_old fit in L2; CSR (and ELL past L2) form it in a pass of its own
// (24 n) before their direction kernel reads the matrix and p_new (direction_on_the_fly).
// Measured (H100 80GB HBM3, double, 3-D stencil, `portla bench cg` per iteration): 2^21 points
// 75.3 us, 2^27 points 4.39 ms (docs/performance.md; floor 80 n B / 3.03 TB/s = 55 us and
// 3.54 ms). Per-step launch state (grid, scratch) is looked up at each
// launch: once per capture on the graph path, a few microseconds per iteration otherwise.
//
// Every kernel first reads the stop flag and returns at once when it is set, so a graph's
// launches after the stopping iteration cost a launch each and change nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "common/csr_pattern.hpp"
#include "common/stencil_row.hpp"
#include "core/kernels/cg_kernels.hpp"
#include "cuda/csr_lanes.hpp"
#include "cuda/csr_split.cuh"
#include "cuda/complex.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/line_tiles.cuh"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "cuda/sparse_row.cuh"
#include "portla/error.hpp"
#include "portla/kernel_choices.hpp"

namespace portla::kernels::cuda {
namespace {

using common::CgFinish;
using common::CgState;

constexpr int kItems = 4;  // elements per thread per step of the update

// The reduction scratch of the device (shared by every reduction; all run in order on the
// device's stream): room for two sums per block.
// Complex values (CG of a Hermitian A, cuda/complex.cuh): the state's scalars and the sums are
// real, of R = common::real_t<T> (Re r^H z, Re p^H A p), the vectors complex.
template <typename T>
using State = CgState<common::real_t<T>>;

template <typename T>
struct Reduce {
    common::real_t<T>* partials;
    unsigned int* counter;
};

__device__ __forceinline__ double fused_madd(double a, double b, double c) {
    return __fma_rn(a, b, c);
}
__device__ __forceinline__ float fused_madd(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
template <typename R>
__device__ __forceinline__ ::cuda::std::complex<R> fused_madd(R a, ::cuda::std::complex<R> b,
                                                              ::cuda::std::complex<R> c) {
    return ::cuda::std::complex<R>(fused_madd(a, b.real(), c.real()),
                                   fused_madd(a, b.imag(), c.imag()));
}

// r_i (given), z_i = inv_diag_i r_i, and their contributions to rr and rz.
template <typename T>
__device__ __forceinline__ void store_z(const CgArgs<T>& a, std::size_t i, T ri,
                                        common::real_t<T> (&sums)[2]) {
    sums[0] += re_mul(ri, ri);
    if (a.inv_diag) {
        const T zi = mul(a.inv_diag[i], ri);
        a.z[i] = zi;
        sums[1] += re_mul(ri, zi);
    }
}

// The vector the operator is applied to: p_new = z + beta p_old, formed wherever it is read,
// or x.
template <typename T>
struct Direction {
    const T* z;
    const T* p;
    common::real_t<T> beta;
    __device__ __forceinline__ T operator()(std::size_t j) const {
        return fused_madd(beta, ldg(p + j), ldg(z + j));
    }
};
template <typename T>
struct Plain {
    const T* x;
    __device__ __forceinline__ T operator()(std::size_t j) const { return ldg(x + j); }
};

using common::stencil_row;

template <typename T>
__device__ __forceinline__ const T* p_old(const CgArgs<T>& a, int iteration) {
    return (iteration & 1) ? a.p1 : a.p0;
}
template <typename T>
__device__ __forceinline__ T* p_new(const CgArgs<T>& a, int iteration) {
    return (iteration & 1) ? a.p0 : a.p1;
}

// Sums over the grid, then the last block's thread 0 runs `finish(sums)`.
template <int NV, typename T, typename Finish>
__device__ __forceinline__ void reduce_then(common::real_t<T> (&sums)[NV], const Reduce<T>& red,
                                            Finish finish) {
    if (grid_sum(sums, red.partials, red.counter) && threadIdx.x == 0) finish(sums);
}

// ---- fused direction: p_new = z + beta p_old; q = A p_new; pq = p_new . q ------------------

// One thread per grid point. Index: uint32 when the grid has < 2^31 points (cheap division).
template <typename Index, typename T>
__global__ void stencil_direction_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    const Direction<T> v{a.z ? a.z : a.r, p_old(a, it), s->beta};
    T* fresh = p_new(a, it);
    const Index points = static_cast<Index>(a.op.points);
    const Index total = static_cast<Index>(a.n);
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    common::real_t<T> sum[1] = {0};
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += threads) {
        const T pi = v(i);
        const T qi = stencil_row(a.op.dim, points, i, v, pi);
        fresh[i] = pi;
        a.q[i] = qi;
        sum[0] += re_mul(pi, qi);
    }
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// The fused CSR matrix's array of index type U (row offsets or column indices): its 32-bit or
// its 64-bit pointer.
template <typename U>
__device__ __forceinline__ const U* index_array(const std::int32_t* narrow,
                                                const std::int64_t* wide) {
    if constexpr (sizeof(U) == 8)
        return wide;
    else
        return narrow;
}

// ---- fused direction on the 3-D stencil: tiles of whole x-lines marching along z ------------
// A block owns `rows` consecutive y-rows of whole x-lines (rows * points <= 2048 points per
// plane) over a range of z-planes, and walks up the planes: p_new is formed once per point (and
// once per point of the two y-halo rows), the planes below and above stay in registers, the
// current one (with its halo rows) in shared memory for the x and y neighbours, two buffers so
// one barrier per plane suffices; z and p_old of the plane after next are loaded while the
// current plane is computed. A tile's points of a plane are one contiguous range, so every load
// and store is a whole line: no x halo (32 x 32 tiles lose 25% of their reads to the x-halo
// sectors). q_i adds the same neighbours in stencil_row's order (a neighbour
// outside the grid is a +0 here, which changes no sum), so q is as before; p.q is summed in
// another order. Reads 16 n bytes plus the halo rows (2 / rows of a plane, L2 hits when the
// neighbouring tile read them) and 2 / planes of a plane at the ends of each tile. Measured at
// 512^3 (ncu, H100, 2026-11-26): 2.47-2.50 GB read where 16 n = 2.15 GB, 1.60-1.65 ms, 83-86%
// of DRAM peak; one thread per point 2.45-2.93 GB, 2.32-2.46 ms, 59-62%.
constexpr unsigned kLineTilePoints = 2048;  // points of a tile's plane (rows * points)
constexpr unsigned kLineMaxPoints = 512;    // largest N: the halo rows (2 N points) are two
                                            // points per thread of 512, the two buffers 48 KiB

template <int Threads, typename T>
__global__ void __launch_bounds__(Threads, 1)
    stencil_lines_direction_kernel(CgArgs<T> a, Reduce<T> red, LineTiles g) {
    constexpr int kPer = kLineTilePoints / Threads;  // tile points per thread and plane
    constexpr int kHalo = 2 * kLineMaxPoints / Threads;
    extern __shared__ __align__(16) unsigned char line_shared[];
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    const T* zv = a.z ? a.z : a.r;
    const T* pv = p_old(a, it);
    const T beta = s->beta;
    T* fresh = p_new(a, it);
    const std::uint32_t N = g.points;
    const std::uint32_t plane = N * N;
    const std::uint32_t buffer = (g.rows + 2) * N;  // halo row, rows, halo row
    T* const shared = reinterpret_cast<T*>(line_shared);
    const std::uint32_t tid = threadIdx.x;
    common::real_t<T> sum[1] = {0};
    for (std::uint32_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
        const TileLanes<kPer, kHalo> t = tile_lanes<Threads, kPer, kHalo>(g, tile, tid);
        const std::uint32_t z0 = t.z0, z1 = t.z1, first = t.first;
        T below[kPer], cur[kPer], above[kPer], next_z[kPer], next_p[kPer];
        T halo_z[kHalo], halo_p[kHalo];
        auto form = [&](std::uint32_t at) {
            return fused_madd(beta, __ldg(pv + at), __ldg(zv + at));
        };
        auto fetch = [&](std::uint32_t k, bool with_halo) {  // z and p_old of plane k
            const std::uint32_t base = k * plane;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) {
                    next_p[j] = __ldg(pv + base + first + tid + j * Threads);
                    next_z[j] = __ldg(zv + base + first + tid + j * Threads);
                }
            if (with_halo) {
#pragma unroll
                for (int m = 0; m < kHalo; ++m)
                    if (t.halo[m] && t.real[m]) {
                        halo_p[m] = __ldg(pv + base + (t.halo_shared[m] + t.halo_from));
                        halo_z[m] = __ldg(zv + base + (t.halo_shared[m] + t.halo_from));
                    }
            }
        };
        // Plane z0 into buffer 0 and registers, plane z0 - 1 below, plane z0 + 1 on its way.
        {
            const std::uint32_t base = z0 * plane;
#pragma unroll
            for (int j = 0; j < kPer; ++j) {
                const std::uint32_t at = base + first + tid + j * Threads;
                below[j] = t.in[j] && z0 > 0 ? form(at - plane) : T(0);
                cur[j] = t.in[j] ? form(at) : T(0);
                if (t.in[j]) shared[N + tid + j * Threads] = cur[j];
            }
#pragma unroll
            for (int m = 0; m < kHalo; ++m)
                if (t.halo[m])
                    shared[t.halo_shared[m]] =
                        t.real[m] ? form(base + (t.halo_shared[m] + t.halo_from)) : T(0);
            if (z0 + 1 < N) fetch(z0 + 1, z0 + 1 < z1);
        }
        __syncthreads();
        for (std::uint32_t k = z0; k < z1; ++k) {
            const T* now = shared + ((k - z0) & 1u) * buffer;
            T* then = shared + (((k - z0) & 1u) ^ 1u) * buffer;
            const bool has_above = k + 1 < N;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                above[j] = t.in[j] && has_above ? fused_madd(beta, next_p[j], next_z[j]) : T(0);
            if (k + 1 < z1) {  // plane k + 1 into the other buffer, plane k + 2 on its way
#pragma unroll
                for (int j = 0; j < kPer; ++j)
                    if (t.in[j]) then[N + tid + j * Threads] = above[j];
#pragma unroll
                for (int m = 0; m < kHalo; ++m)
                    if (t.halo[m])
                        then[t.halo_shared[m]] =
                            t.real[m] ? fused_madd(beta, halo_p[m], halo_z[m]) : T(0);
                if (k + 2 < N) fetch(k + 2, k + 2 < z1);
            }
            const std::uint32_t base = k * plane + first;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) {
                    const std::uint32_t c = N + tid + j * Threads;
                    // stencil_row's order: x-, x+, y-, y+, z-, z+
                    T neighbours = t.left[j] ? now[c - 1] : T(0);
                    if (t.right[j]) neighbours += now[c + 1];
                    neighbours += now[c - N];
                    neighbours += now[c + N];
                    neighbours += below[j];
                    neighbours += above[j];
                    const T qi = static_cast<T>(6) * cur[j] - neighbours;
                    fresh[base + tid + j * Threads] = cur[j];
                    a.q[base + tid + j * Threads] = qi;
                    sum[0] += re_mul(cur[j], qi);
                }
#pragma unroll
            for (int j = 0; j < kPer; ++j) {
                below[j] = cur[j];
                cur[j] = above[j];
            }
            __syncthreads();
        }
    }
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// The same tiles with twice the rows (rows * points <= 4096: half the halo rows per point) and
// the planes in shared memory instead of registers: a ring of four buffers holds planes k - 1,
// k, k + 1 and the one being formed, k + 2, from z and p_old loaded one step ahead into
// registers. 1024 threads, 4 points each; 160 KiB of shared memory at N = 512 in double.
// Any N up to kRingMaxPoints: the 2 N halo points of a plane are Halo per thread (1 up to N =
// 512, 2 up to 1024, 4 up to 2048; ring_halo), a tile has max(1, 4096 / N) rows (a line of more
// than 4096 points would be a tile of its own, past the shared memory anyway), and a point's
// place in a vector is 64-bit (N^3 passes 2^32 above N = 1625).
template <int Halo, typename T>
__global__ void __launch_bounds__(kRingThreads, 1)
    stencil_ring_direction_kernel(CgArgs<T> a, Reduce<T> red, LineTiles g) {
    constexpr int kPer = kRingTilePoints / kRingThreads;
    constexpr int kHalo = Halo;
    extern __shared__ __align__(16) unsigned char ring_shared[];
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    const T* zv = a.z ? a.z : a.r;
    const T* pv = p_old(a, it);
    const T beta = s->beta;
    T* fresh = p_new(a, it);
    const RingTile<T> r = ring_tile<T>(g, ring_shared);
    const std::uint32_t N = r.N, plane = r.plane;
    auto slot = [&](std::uint32_t k) { return r.slot(k); };
    const std::uint32_t tid = threadIdx.x;
    common::real_t<T> sum[1] = {0};
    for (std::uint32_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
        const TileLanes<kPer, kHalo> t = tile_lanes<kRingThreads, kPer, kHalo>(g, tile, tid);
        const std::uint32_t z0 = t.z0, z1 = t.z1, first = t.first;
        T next_z[kPer], next_p[kPer], halo_z[kHalo], halo_p[kHalo];
        // z and p_old of plane k into registers (with the halo rows when asked)
        auto fetch = [&](std::uint32_t k, bool with_halo) {
            const std::size_t base = std::size_t{k} * plane;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) {
                    next_p[j] = __ldg(pv + base + first + tid + j * kRingThreads);
                    next_z[j] = __ldg(zv + base + first + tid + j * kRingThreads);
                }
            if (with_halo) {
#pragma unroll
                for (int m = 0; m < kHalo; ++m)
                    if (t.halo[m] && t.real[m]) {
                        halo_p[m] = __ldg(pv + base + (t.halo_shared[m] + t.halo_from));
                        halo_z[m] = __ldg(zv + base + (t.halo_shared[m] + t.halo_from));
                    }
            }
        };
        // p_new of plane k from the fetched registers into its buffer (zero past the grid)
        auto store = [&](std::uint32_t k, bool with_halo) {
            T* b = slot(k);
            const bool inside = k < N;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j])
                    b[N + tid + j * kRingThreads] =
                        inside ? fused_madd(beta, next_p[j], next_z[j]) : T(0);
            if (with_halo) {
#pragma unroll
                for (int m = 0; m < kHalo; ++m)
                    if (t.halo[m])
                        b[t.halo_shared[m]] =
                            inside && t.real[m] ? fused_madd(beta, halo_p[m], halo_z[m]) : T(0);
            }
        };
        // Planes z0 - 1 (interior), z0 and z0 + 1 (with halo rows inside the tile's range).
        if (z0 > 0) fetch(z0 - 1, false);
        if (z0 > 0) {
            store(z0 - 1, false);
        } else {
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) slot(z0 + 3)[N + tid + j * kRingThreads] = T(0);  // slot of z0 - 1
        }
        fetch(z0, true);
        store(z0, true);
        if (z0 + 1 < N) fetch(z0 + 1, z0 + 1 < z1);
        store(z0 + 1, z0 + 1 < z1);
        if (z0 + 2 < N && z0 + 1 < z1) fetch(z0 + 2, z0 + 2 < z1);
        __syncthreads();
        for (std::uint32_t k = z0; k < z1; ++k) {
            if (k + 1 < z1) {  // plane k + 2 into the buffer of plane k - 2, k + 3 on its way
                store(k + 2, k + 2 < z1);
                if (k + 3 < N && k + 2 < z1) fetch(k + 3, k + 3 < z1);
            }
            const T* below = slot(k + 3);
            const T* now = slot(k);
            const T* above = slot(k + 1);
            const std::size_t base = std::size_t{k} * plane + first;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) {
                    const std::uint32_t c = N + tid + j * kRingThreads;
                    const T pi = now[c];
                    // stencil_row's order: x-, x+, y-, y+, z-, z+
                    T neighbours = t.left[j] ? now[c - 1] : T(0);
                    if (t.right[j]) neighbours += now[c + 1];
                    neighbours += now[c - N];
                    neighbours += now[c + N];
                    neighbours += below[c];
                    neighbours += above[c];
                    const T qi = static_cast<T>(6) * pi - neighbours;
                    fresh[base + tid + j * kRingThreads] = pi;
                    a.q[base + tid + j * kRingThreads] = qi;
                    sum[0] += re_mul(pi, qi);
                }
            __syncthreads();
        }
    }
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// A group of G lanes per row (as csr_apply_kernel in matrix_kernels.cu); lane 0 of the group
// forms the row's own p_new and the product. The loop bound is warp-uniform. Row offsets P and
// column indices I of the matrix's CsrIndex form (int32 and int32 unless the matrix passes the
// 32-bit range), each form its own instantiation.
template <int G, typename P, typename I, typename T, typename Src>
__device__ __forceinline__ T csr_row_group(const CgArgs<T>& a, std::size_t row, unsigned member,
                                           const Src& v) {
    T acc = T(0);
    if (row < a.n) {
        // Through the read-only cache (__ldg): CgArgs' pointers carry no __restrict__, and
        // without it the loads were generic ones.
        const P* ptrs = index_array<P>(a.op.row_ptrs, a.op.row_ptrs64);
        const std::int64_t end = __ldg(ptrs + row + 1);
        // 32-bit offsets: the lane's first entry in 32-bit arithmetic, as before the 64-bit
        // forms (the same machine code for the 32-bit path); 64-bit: in 64-bit.
        std::int64_t first;
        if constexpr (sizeof(P) == 4)
            first = __ldg(ptrs + row) + member;
        else
            first = std::int64_t{__ldg(ptrs + row)} + member;
        acc = csr_lane_sum<T>(first, end, G, index_array<I>(a.op.col_idxs, a.op.col_idxs64),
                              a.op.values, v);
    }
    return warp_sum<G>(acc);
}

// CSR: p_new = z + beta p_old is formed first (form_direction_kernel: one pass over z and
// p_old; then q = A p_new and p.q read p_new once per non-zero) or, with OnTheFly (only with
// PORTLA_CG_DIRECTION=fly), at every column read as the stencil does, each row's group writing
// its own p_new_i. On the fly reads z and p_old (16 bytes) per non-zero instead of p_new (8) but
// saves the pass: 3% slower at 128^3 (H100), 1.5x slower at 10^8 rows where z and p_old leave
// L2 (H200).
template <int G, bool OnTheFly, typename P, typename I, typename T>
__global__ void csr_direction_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    T* fresh = p_new(a, it);
    const Direction<T> formed{a.z ? a.z : a.r, p_old(a, it), s->beta};
    const Plain<T> stored{fresh};
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    common::real_t<T> sum[1] = {0};
    for (std::size_t first = warp * rows_per_warp; first < a.n; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        T acc;
        if constexpr (OnTheFly)
            acc = csr_row_group<G, P, I>(a, row, member, formed);
        else
            acc = csr_row_group<G, P, I>(a, row, member, stored);
        if (row < a.n && member == 0) {
            a.q[row] = acc;
            T pi;
            if constexpr (OnTheFly) {
                pi = formed(row);
                fresh[row] = pi;
            } else {
                pi = fresh[row];
            }
            sum[0] += re_mul(pi, acc);
        }
    }
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// CSR with long rows (cuda/csr_split.cuh, 32-bit indices): the long rows' segments, a warp
// each, then the row blocks; p_new formed in a pass before (never on the fly: the segments of a
// row would each form its p_new). p.q adds p_row times each segment's sum. lr: a.op.long_rows
// with the device's split scratch.
template <typename T>
__global__ void __launch_bounds__(kCsrSplitThreads)
    csr_split_direction_kernel(CgArgs<T> a, Reduce<T> red, SplitRows<T> lr) {
    __shared__ T shared[kCsrSplitThreads / 32][common::kCsrBlockEntries];
    State<T>* s = a.state;
    if (s->stopped) return;
    const T* fresh = p_new(a, s->iteration);
    const Plain<T> v{fresh};
    const SplitWarp<T> w = split_warp(shared);
    common::real_t<T> sum[1] = {0};
    csr_long_segments(lr, a.op.row_ptrs, a.op.col_idxs, a.op.values, v, w.warp, w.warps, a.q,
                      [&](std::size_t row, T part) { sum[0] += re_mul(fresh[row], part); });
    csr_row_blocks(lr, a.op.row_ptrs, a.op.col_idxs, a.op.values, v, w.warp, w.warps, w.products,
                   [&](std::size_t row, T qi) {
                       a.q[row] = qi;
                       sum[0] += re_mul(fresh[row], qi);
                   });
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// The replacement's gate of csr_split_apply_kernel: run only when a replacement is due.
template <typename T>
struct ReplaceDue {
    const State<T>* s;
    __device__ __forceinline__ bool operator()() const { return s->stopped || s->replace_now == 0; }
};

// (A v)_i of the fused ELL matrix (cuda/sparse_row.cuh).
template <typename T, typename Src>
__device__ __forceinline__ T ell_row(const CgArgs<T>& a, std::size_t i, const Src& v) {
    return ell_row_sum<T>(i, a.n, a.op.width, a.op.col_idxs, a.op.values, v);
}

// ELL: one thread per row (column-major storage: a warp reads 32 consecutive entries of each
// column); p_new formed first or on the fly, as for CSR.
template <bool OnTheFly, typename T>
__global__ void ell_direction_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    T* fresh = p_new(a, it);
    const Direction<T> formed{a.z ? a.z : a.r, p_old(a, it), s->beta};
    const Plain<T> stored{fresh};
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sum[1] = {0};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride) {
        T qi, pi;
        if constexpr (OnTheFly) {
            qi = ell_row(a, i, formed);
            pi = formed(i);
            fresh[i] = pi;
        } else {
            qi = ell_row(a, i, stored);
            pi = fresh[i];
        }
        a.q[i] = qi;
        sum[0] += re_mul(pi, qi);
    }
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// ---- composite direction (any operator): p_new = z + beta p_old, then pq after q = A p_new --

template <typename T>
__global__ void form_direction_kernel(CgArgs<T> a) {
    State<T>* s = a.state;
    if (s->stopped) return;
    const int it = s->iteration;
    const Direction<T> v{a.z ? a.z : a.r, p_old(a, it), s->beta};
    T* fresh = p_new(a, it);
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride)
        fresh[i] = v(i);
}

// p_new . q, or *a.pq where the operator's apply left it (launched as one block)
template <typename T>
__global__ void direction_dot_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped) return;
    if (a.pq) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            // p^H A p of a Hermitian A is real: its real part (the value itself for real T)
            if constexpr (common::is_complex_v<T>)
                common::cg_finish_direction(s, a.control, a.pq->real());
            else
                common::cg_finish_direction(s, a.control, *a.pq);
        }
        return;
    }
    const T* p = p_new(a, s->iteration);
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sum[1] = {0};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride)
        sum[0] += re_mul(p[i], a.q[i]);
    reduce_then(sum, red,
                [&](common::real_t<T>(&t)[1]) { common::cg_finish_direction(s, a.control, t[0]); });
}

// ---- deferred preconditioning: rz = r . z -> the pending residual's decisions -----------------

template <typename T>
__global__ void finish_preconditioned_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->pending_mode < 0) return;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sum[1] = {0};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride)
        sum[0] += re_mul(a.r[i], a.z[i]);
    reduce_then(sum, red, [&](common::real_t<T>(&t)[1]) {
        common::cg_finish_preconditioned(s, a.control, double(t[0]));
    });
}

// ---- update: x += alpha p; r -= alpha q; [z = inv_diag .* r]; rr; [rz] ----------------------

template <typename T>
__global__ void update_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped) return;
    const common::real_t<T> alpha = s->alpha;
    const T* p = p_new(a, s->iteration);
    // At a replacement the replace kernel recomputes r (and z): only x moves here.
    const bool replace = s->replace_now != 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sums[2] = {0, 0};
    for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         first < a.n; first += kItems * stride) {
        T pv[kItems], xv[kItems], qv[kItems], rv[kItems];
#pragma unroll
        for (int j = 0; j < kItems; ++j) {  // all loads first: several in flight per thread
            const std::size_t i = first + j * stride;
            const bool ok = i < a.n;
            pv[j] = ok ? p[i] : T(0);
            xv[j] = ok ? a.x[i] : T(0);
            qv[j] = ok && !replace ? a.q[i] : T(0);
            rv[j] = ok && !replace ? a.r[i] : T(0);
        }
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const std::size_t i = first + j * stride;
            if (i < a.n) {
                a.x[i] = xv[j] + alpha * pv[j];
                if (!replace) {
                    const T ri = rv[j] - alpha * qv[j];
                    a.r[i] = ri;
                    store_z(a, i, ri, sums);
                }
            }
        }
    }
    if (replace) return;
    reduce_then(sums, red, [&](common::real_t<T>(&t)[2]) {
        common::cg_finish_residual(s, a.control, t[0], t[1], CgFinish::record);
    });
}

// ---- replace: r = b - A x; [z]; rr; [rz] (only when the direction step set replace_now) -----

template <typename Index, typename T>
__global__ void stencil_replace_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped || s->replace_now == 0) return;
    const Plain<T> v{a.x};
    const Index points = static_cast<Index>(a.op.points);
    const Index total = static_cast<Index>(a.n);
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    common::real_t<T> sums[2] = {0, 0};
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += threads) {
        const T ri = a.b[i] - stencil_row(a.op.dim, points, i, v, v(i));
        a.r[i] = ri;
        store_z(a, i, ri, sums);
    }
    reduce_then(sums, red, [&](common::real_t<T>(&t)[2]) {
        common::cg_finish_residual(s, a.control, t[0], t[1], CgFinish::replaced);
    });
}

template <int G, typename P, typename I, typename T>
__global__ void csr_replace_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped || s->replace_now == 0) return;
    const Plain<T> v{a.x};
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    common::real_t<T> sums[2] = {0, 0};
    for (std::size_t first = warp * rows_per_warp; first < a.n; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        const T acc = csr_row_group<G, P, I>(a, row, member, v);
        if (row < a.n && member == 0) {
            const T ri = a.b[row] - acc;
            a.r[row] = ri;
            store_z(a, row, ri, sums);
        }
    }
    reduce_then(sums, red, [&](common::real_t<T>(&t)[2]) {
        common::cg_finish_residual(s, a.control, t[0], t[1], CgFinish::replaced);
    });
}

template <typename T>
__global__ void ell_replace_kernel(CgArgs<T> a, Reduce<T> red) {
    State<T>* s = a.state;
    if (s->stopped || s->replace_now == 0) return;
    const Plain<T> v{a.x};
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sums[2] = {0, 0};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride) {
        const T ri = a.b[i] - ell_row(a, i, v);
        a.r[i] = ri;
        store_z(a, i, ri, sums);
    }
    reduce_then(sums, red, [&](common::real_t<T>(&t)[2]) {
        common::cg_finish_residual(s, a.control, t[0], t[1], CgFinish::replaced);
    });
}

// From a given residual: r = b - ax (replace_from_ax) or r as it is (initialize); [z]; rr; [rz].
template <typename T>
__global__ void residual_kernel(CgArgs<T> a, Reduce<T> red, CgFinish mode, bool from_ax) {
    State<T>* s = a.state;
    if (from_ax && (s->stopped || s->replace_now == 0)) return;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    common::real_t<T> sums[2] = {0, 0};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride) {
        T ri = a.r[i];
        if (from_ax) {
            ri = a.b[i] - a.ax[i];
            a.r[i] = ri;
        }
        store_z(a, i, ri, sums);
    }
    reduce_then(sums, red, [&](common::real_t<T>(&t)[2]) {
        common::cg_finish_residual(s, a.control, t[0], t[1], mode);
    });
}

// Launch geometry of one step: one wave of resident blocks at most (the kernels loop
// grid-stride), and at most half the reduction scratch (two sums per block).
struct Launch {
    cudaStream_t stream;
    unsigned threads;
    unsigned wave;  // the most blocks the reduction scratch has room for
    int device;
    // One wave of `kernel`'s resident blocks at most (grid-stride loops do the rest), blocks of
    // `block` threads (default: the executor's work-group size).
    template <typename Kernel>
    unsigned blocks(Kernel* kernel, std::size_t work_threads, unsigned block = 0) const {
        if (block == 0) block = threads;
        const std::size_t needed = (work_threads + block - 1) / block;
        const std::size_t resident =
            std::min<std::size_t>(wave, resident_blocks(device, static_cast<int>(block),
                                                        reinterpret_cast<const void*>(kernel)));
        return static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, resident)));
    }
};

template <typename T>
Launch launch_of(const Executor& exec, Reduce<T>& red) {
    Launch l;
    l.device = exec.device_id();
    activate(l.device);
    l.stream = stream_of(exec);
    l.threads = static_cast<unsigned>(exec.launch().work_group_size);
    const ReductionScratch scratch = reduction_scratch(l.device);
    red.partials = static_cast<common::real_t<T>*>(scratch.partials);
    red.counter = scratch.counter;
    l.wave = static_cast<unsigned>(scratch.capacity / 2);
    return l;
}

// Lanes per CSR row: csr_lanes (about two entries of an average row per lane).
template <typename T>
int csr_group(const CgArgs<T>& a) {
    return csr_lanes(a.op.nnz, a.n);
}

// The ELL direction step forms p_new on the fly when z and p_old fit in L2 together (2 n
// sizeof(T) bytes): 0.1548 against 0.1577 ms per iteration at 128^3 (H100, 2026-11-24).
// KernelOptions::cg_direction pass or fly overrides it, for ELL and CSR (tests, measurements).
template <typename T>
bool direction_on_the_fly(const Launch& l, std::size_t n, KernelOptions::CgDirection how) {
    if (how != KernelOptions::CgDirection::automatic) return how == KernelOptions::CgDirection::fly;
    return 2.0 * double(n) * sizeof(T) <= double(device_limits(l.device).l2_bytes);
}

// The 3-D stencil's direction step by tiles of whole x-lines (stencil_ring_direction_kernel by
// default from 128^3 to 2048^3, stencil_lines_direction_kernel) or one thread per point
// (stencil_direction_kernel). CG per iteration on the H100, lines -> ring: 512^3 3.874 / 3.897
// -> 3.841 / 3.842 ms (1.084x the floor), 128^3 0.0688 / 0.0697 -> 0.0665 / 0.0685, 256^3
// 0.4901 / 0.4909 -> 0.4923 / 0.4949 (0.5-0.8% slower; one thread per point 0.497 there). The
// z-split counts the blocks the kernel's registers allow (two 1024-thread blocks per SM) where
// its shared memory lets one fit: 1.087x the floor at 512^3 on the H100. Splitting by the
// shared-memory residency instead measured 0.998 / 0.988 / 0.910x at 512^3 / 256^3 / 128^3 on an
// H200 but 3.97-3.99 ms at 512^3 (1.12x) on the H100. Fixed planes per tile (cg_stencil ring
// with cg_stencil_planes) on the H100: 512^3 256 planes 3.865 / 3.869 ms against the default's
// 3.857 / 3.867; 128^3 4 planes 0.0663 / 0.0667 against 0.0688 / 0.0683 (3% faster): not yet a
// rule. A tile kernel whose shared memory the
// device cannot give falls back: ring (4 planes of 4096 points, 160 KiB at 512^3 in double) ->
// lines (2 of 2048; N <= 512) -> points. KernelOptions::cg_stencil lines, lines1024, ring (each
// with cg_stencil_planes, z-planes per tile) or points overrides the choice by size (tests,
// measurements).
constexpr int kLineThreads = 512;
constexpr std::size_t kLinesFrom = 128;  // smallest N of the default choice

struct StencilChoice {
    enum class Kernel { points, lines, lines1024, ring } kernel = Kernel::points;
    std::uint32_t planes = 0;  // 0: from the grid
    int halo = 0;              // ring's halo points per thread; 0: from the grid
};

template <typename T>
StencilChoice stencil_choice(const CgArgs<T>& a, const KernelOptions& options) {
    using Kernel = StencilChoice::Kernel;
    using Forced = KernelOptions::CgStencil;
    StencilChoice c;
    c.halo = options.cg_stencil_ring_halo;
    const bool cube = a.op.dim == 3 && a.op.points >= 1;
    const bool fits = cube && a.op.points <= kLineMaxPoints;       // lines
    const bool ring_fits = cube && a.op.points <= kRingMaxPoints;  // ring
    if (ring_fits && a.op.points >= kLinesFrom) c.kernel = Kernel::ring;
    switch (options.cg_stencil) {
        case Forced::automatic:
            return c;
        case Forced::points:
            c.kernel = Kernel::points;
            break;
        case Forced::lines:
            c.kernel = fits ? Kernel::lines : Kernel::points;
            break;
        case Forced::lines1024:
            c.kernel = fits ? Kernel::lines1024 : Kernel::points;
            break;
        case Forced::ring:
            c.kernel = ring_fits ? Kernel::ring : Kernel::points;
            break;
    }
    c.planes = static_cast<std::uint32_t>(options.cg_stencil_planes);
    return c;
}

// buffers: shared-memory planes of rows + 2 lines (2 for lines: 48 KiB at N = 512 in double,
// over the default limit with the reduction's static shared memory; 4 for ring: 160 KiB).
template <typename Kernel, typename T>
void launch_stencil_tiles(const Launch& l, const CgArgs<T>& a, const Reduce<T>& red, Kernel* kernel,
                          int threads, unsigned tile_points, int buffers, std::uint32_t planes) {
    const unsigned resident =
        resident_blocks(l.device, threads, reinterpret_cast<const void*>(kernel));
    const LineTiles g = line_tiles(a.op.points, 0, a.op.points, tile_points, resident, planes);
    const std::size_t shared = buffers * std::size_t{g.rows + 2} * g.points * sizeof(T);
    allow_dynamic_shared(l.device, kernel, shared);
    const unsigned blocks = std::min({g.tiles, resident, l.wave});
    kernel<<<blocks, threads, shared, l.stream>>>(a, red, g);
}

// The step that forms p_new and q = A p_new, as kernel_choices() names it.
constexpr const char* kDirectionStep = "cg.direction";

// CSR with long rows (32-bit indices): p_new in a pass, then csr_split_direction_kernel; the
// replacement as two launches, q = A x (q is free after the update) and r = b - q with the sums
// (residual_kernel), since r.r needs each long row whole.
template <typename T>
void launch_csr_split(const Launch& l, const CgArgs<T>& a, const Reduce<T>& red, bool direction) {
    const std::size_t work = (a.op.long_rows.block_count + a.op.long_rows.segments) * 32;
    const SplitRows<T> lr = split_rows<T>(l.device, a.op.long_rows);
    if (direction) {
        portla::detail::note_kernel(kDirectionStep, "csr-split");
        form_direction_kernel<T>
            <<<l.blocks(form_direction_kernel<T>, a.n), l.threads, 0, l.stream>>>(a);
        const auto kernel = csr_split_direction_kernel<T>;
        kernel<<<l.blocks(kernel, work, kCsrSplitThreads), kCsrSplitThreads, 0, l.stream>>>(a, red,
                                                                                            lr);
    } else {
        const auto kernel = csr_split_apply_kernel<T, ReplaceDue<T>>;
        kernel<<<l.blocks(kernel, work, kCsrSplitThreads), kCsrSplitThreads, 0, l.stream>>>(
            a.op.row_ptrs, a.op.col_idxs, a.op.values, lr, a.x, a.q, ReplaceDue<T>{a.state});
        CgArgs<T> from_q = a;
        from_q.ax = a.q;
        residual_kernel<T><<<l.blocks(residual_kernel<T>, a.n), l.threads, 0, l.stream>>>(
            from_q, red, CgFinish::replaced, true);
    }
    PORTLA_CUDA_CHECK_LAUNCH();
}

// CSR (every value type): p_new in a pass (or on the fly), then q = A p_new and p.q; or the
// replacement r = b - A x with its sums.
template <typename T>
void launch_fused_csr(const Executor& exec, const Launch& l, const CgArgs<T>& a,
                      const Reduce<T>& red, bool direction) {
    const int g = csr_group(a);
    const std::size_t rows_per_warp = 32 / static_cast<std::size_t>(g);
    const std::size_t work = (a.n + rows_per_warp - 1) / rows_per_warp * 32;
    // On the fly measured 3% slower for CSR (0.1689 vs 0.1636 ms per iteration at 128^3,
    // H100, 2026-11-24; ELL 2% faster): the CSR path keeps the pass unless forced.
    const bool fly =
        direction && exec.kernel_options().cg_direction == KernelOptions::CgDirection::fly;
    if (direction) portla::detail::note_kernel(kDirectionStep, fly ? "csr-fly" : "csr-pass");
    if (direction && !fly)
        form_direction_kernel<T>
            <<<l.blocks(form_direction_kernel<T>, a.n), l.threads, 0, l.stream>>>(a);
    // The index form picks the instantiation once per launch (CsrIndex).
    const auto with_index = [&](auto p, auto i) {
        using P = decltype(p);
        using I = decltype(i);
        auto run = [&](auto group) {
            constexpr int G = decltype(group)::value;
            const auto kernel = !direction ? csr_replace_kernel<G, P, I, T>
                                : fly      ? csr_direction_kernel<G, true, P, I, T>
                                           : csr_direction_kernel<G, false, P, I, T>;
            kernel<<<l.blocks(kernel, work), l.threads, 0, l.stream>>>(a, red);
        };
        with_lanes(g, run);
    };
    if (a.op.index == CsrIndex::offsets64)
        with_index(std::int64_t{}, std::int32_t{});
    else if (a.op.index == CsrIndex::int64)
        with_index(std::int64_t{}, std::int64_t{});
    else
        with_index(std::int32_t{}, std::int32_t{});
    PORTLA_CUDA_CHECK_LAUNCH();
}

// The fused operator kernels: direction (true) or replace (false). Complex values have CSR
// operators only (the stencils and ELL are real), without the long-row split.
template <typename T>
void launch_fused(const Executor& exec, const CgArgs<T>& a, bool direction) {
    Reduce<T> red{};
    const Launch l = launch_of(exec, red);
    if constexpr (!common::is_complex_v<T>) {
        if (a.op.kind == FusedOperator<T>::Kind::stencil && direction) {
            using Kernel = StencilChoice::Kernel;
            StencilChoice c = stencil_choice(a, exec.kernel_options());
            // What the device gives a block (opt-in), less room for the kernels' static arrays.
            const std::size_t room =
                static_cast<std::size_t>(
                    device_limits(l.device).max_shared_memory_per_block_optin) -
                1024;
            if (c.kernel == Kernel::ring && tile_shared<T>(a.op.points, kRingTilePoints, 4) > room)
                c.kernel = a.op.points <= kLineMaxPoints ? Kernel::lines : Kernel::points;
            if (c.kernel != Kernel::points &&
                tile_shared<T>(a.op.points, kLineTilePoints, 2) > room)
                c.kernel = Kernel::points;
            if (c.kernel != Kernel::points) {
                portla::detail::note_kernel(kDirectionStep,
                                            c.kernel == Kernel::ring        ? "stencil-ring"
                                            : c.kernel == Kernel::lines1024 ? "stencil-lines1024"
                                                                            : "stencil-lines");
                if (c.kernel == Kernel::ring) {
                    // halo points per thread: 2 N / 1024 rounded up to 1, 2 or 4
                    const int halo = ring_halo(a.op.points, c.halo);
                    auto ring = [&](auto kernel) {
                        launch_stencil_tiles(l, a, red, kernel, kRingThreads, kRingTilePoints, 4,
                                             c.planes);
                    };
                    if (halo == 1)
                        ring(stencil_ring_direction_kernel<1, T>);
                    else if (halo == 2)
                        ring(stencil_ring_direction_kernel<2, T>);
                    else
                        ring(stencil_ring_direction_kernel<4, T>);
                } else if (c.kernel == Kernel::lines1024)
                    launch_stencil_tiles(l, a, red, stencil_lines_direction_kernel<1024, T>, 1024,
                                         kLineTilePoints, 2, c.planes);
                else
                    launch_stencil_tiles(l, a, red, stencil_lines_direction_kernel<kLineThreads, T>,
                                         kLineThreads, kLineTilePoints, 2, c.planes);
                PORTLA_CUDA_CHECK_LAUNCH();
                return;
            }
        }
        if (a.op.kind == FusedOperator<T>::Kind::stencil) {
            if (direction) portla::detail::note_kernel(kDirectionStep, "stencil-points");
            auto run = [&](auto kernel) {
                kernel<<<l.blocks(kernel, a.n), l.threads, 0, l.stream>>>(a, red);
            };
            if (a.n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
                run(direction ? stencil_direction_kernel<std::uint32_t, T>
                              : stencil_replace_kernel<std::uint32_t, T>);
            else
                run(direction ? stencil_direction_kernel<std::uint64_t, T>
                              : stencil_replace_kernel<std::uint64_t, T>);
            PORTLA_CUDA_CHECK_LAUNCH();
            return;
        } else if (a.op.kind == FusedOperator<T>::Kind::ell) {
            if (direction) {
                const bool fly =
                    direction_on_the_fly<T>(l, a.n, exec.kernel_options().cg_direction);
                portla::detail::note_kernel(kDirectionStep, fly ? "ell-fly" : "ell-pass");
                if (!fly)
                    form_direction_kernel<T>
                        <<<l.blocks(form_direction_kernel<T>, a.n), l.threads, 0, l.stream>>>(a);
                const auto kernel =
                    fly ? ell_direction_kernel<true, T> : ell_direction_kernel<false, T>;
                kernel<<<l.blocks(kernel, a.n), l.threads, 0, l.stream>>>(a, red);
            } else {
                ell_replace_kernel<T>
                    <<<l.blocks(ell_replace_kernel<T>, a.n), l.threads, 0, l.stream>>>(a, red);
            }
            PORTLA_CUDA_CHECK_LAUNCH();
            return;
        } else if (a.op.long_rows.block_count > 0 && a.op.index == CsrIndex::int32) {
            launch_csr_split(l, a, red, direction);
            return;
        }
    }
    launch_fused_csr(exec, l, a, red, direction);
}

// ---- small systems: whole iterations in one thread block ------------------------------------
// Below a few thousand rows every step above is a launch of a few blocks whose time is the
// launch, the dependent loads and the grid reduction's ticket (1138_bus: 11.7 us per iteration,
// H100, 2026-11-23). One block runs `count` iterations in one launch instead: the same steps,
// the same decisions (common/cg_step.hpp, by thread 0 between barriers), p_new formed in a pass
// before the product reads it (the same FMA as on the fly). Vectors written inside the launch
// are read with plain loads (never __ldg, whose cache is not coherent with the launch's own
// stores); the matrix through the read-only cache.
constexpr int kBlockLoopThreads = 1024;

template <typename T>
struct Written {  // a vector this launch writes
    const T* x;
    __device__ __forceinline__ T operator()(std::size_t j) const { return x[j]; }
};

template <typename T>
__device__ __forceinline__ T block_loop_row(const CgArgs<T>& a, std::size_t i, const T* v) {
    const Written<T> src{v};
    if constexpr (!common::is_complex_v<T>) {  // complex values have CSR operators only
        if (a.op.kind == FusedOperator<T>::Kind::stencil)
            return stencil_row(a.op.dim, static_cast<std::uint32_t>(a.op.points),
                               static_cast<std::uint32_t>(i), src, v[i]);
        if (a.op.kind == FusedOperator<T>::Kind::ell) return ell_row(a, i, src);
    }
    return csr_row_group<1, std::int32_t, std::int32_t>(a, i, 0u, src);
}

template <typename T>
__global__ void __launch_bounds__(kBlockLoopThreads) cg_block_loop_kernel(CgArgs<T> a, int count) {
    __shared__ common::real_t<T> warp_sums[2][32];
    State<T>* s = a.state;
    const T* z = a.z ? a.z : a.r;
    for (int k = 0; k < count; ++k) {
        if (s->stopped) return;  // read by every thread after the barrier: uniform
        const int it = s->iteration;
        const T* old = p_old(a, it);
        T* fresh = p_new(a, it);
        const common::real_t<T> beta = s->beta;
        for (std::size_t i = threadIdx.x; i < a.n; i += blockDim.x)
            fresh[i] = fused_madd(beta, old[i], z[i]);
        __syncthreads();
        common::real_t<T> pq[1] = {0};
        for (std::size_t i = threadIdx.x; i < a.n; i += blockDim.x) {
            const T qi = block_loop_row(a, i, fresh);
            a.q[i] = qi;
            pq[0] += re_mul(fresh[i], qi);
        }
        block_sum(pq, warp_sums);
        if (threadIdx.x == 0) common::cg_finish_direction(s, a.control, pq[0]);
        __syncthreads();
        if (s->stopped) return;
        const common::real_t<T> alpha = s->alpha;
        common::real_t<T> sums[2] = {0, 0};
        for (std::size_t i = threadIdx.x; i < a.n; i += blockDim.x) {
            a.x[i] += alpha * fresh[i];
            const T ri = a.r[i] - alpha * a.q[i];
            a.r[i] = ri;
            store_z(a, i, ri, sums);
        }
        block_sum(sums, warp_sums);
        if (threadIdx.x == 0)
            common::cg_finish_residual(s, a.control, sums[0], sums[1], CgFinish::record);
        __syncthreads();
    }
}

// The steps' arguments over device_t<T> (cuda/complex.cuh): CgArgs holds pointers and the
// operator's description only, the same bytes for std::complex<R> and ::cuda::std::complex<R>.
template <typename T>
const CgArgs<device_t<T>>& device_args(const CgArgs<T>& host) {
    static_assert(sizeof(CgArgs<device_t<T>>) == sizeof(CgArgs<T>));
    return reinterpret_cast<const CgArgs<device_t<T>>&>(host);
}

}  // namespace

// Each step runs its kernels over D = device_t<T>.
template <typename T>
void cg_initialize(tag, const Executor& exec, const CgArgs<T>& host, common::CgFinish mode) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    residual_kernel<D>
        <<<l.blocks(residual_kernel<D>, a.n), l.threads, 0, l.stream>>>(a, red, mode, false);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void cg_direction(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    launch_fused(exec, a, true);
}

template <typename T>
void cg_form_direction(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    form_direction_kernel<D>
        <<<l.blocks(form_direction_kernel<D>, a.n), l.threads, 0, l.stream>>>(a);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void cg_direction_dot(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    const unsigned blocks = a.pq ? 1u : l.blocks(direction_dot_kernel<D>, a.n);
    direction_dot_kernel<D><<<blocks, l.threads, 0, l.stream>>>(a, red);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void cg_update(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    update_kernel<D>
        <<<l.blocks(update_kernel<D>, (a.n + kItems - 1) / kItems), l.threads, 0, l.stream>>>(a,
                                                                                              red);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void cg_replace(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    launch_fused(exec, a, false);
}

template <typename T>
void cg_replace_from_ax(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    residual_kernel<D><<<l.blocks(residual_kernel<D>, a.n), l.threads, 0, l.stream>>>(
        a, red, common::CgFinish::replaced, true);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void cg_finish_preconditioned(tag, const Executor& exec, const CgArgs<T>& host) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    Reduce<D> red{};
    const Launch l = launch_of(exec, red);
    finish_preconditioned_kernel<D>
        <<<l.blocks(finish_preconditioned_kernel<D>, a.n), l.threads, 0, l.stream>>>(a, red);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
bool cg_iterations(tag, const Executor& exec, const CgArgs<T>& host, int count) {
    using D = device_t<T>;
    const CgArgs<D>& a = device_args(host);
    // The one-block loop reads CSR with 32-bit indices only: the 64-bit forms (matrices past the
    // 32-bit range, far above its rows) take the steps.
    if (a.op.kind == FusedOperator<D>::Kind::none || a.control.replacement > 0 ||
        a.control.distributed || a.n == 0 || a.n > exec.kernel_options().cg_block_loop_rows ||
        (a.op.kind == FusedOperator<D>::Kind::csr && a.op.index != CsrIndex::int32)) {
        portla::detail::note_kernel("cg.iterations", "steps");
        return false;
    }
    activate(exec.device_id());
    const unsigned threads =
        static_cast<unsigned>(std::min<std::size_t>(kBlockLoopThreads, (a.n + 31) / 32 * 32));
    portla::detail::note_kernel("cg.iterations", "one-block");
    cg_block_loop_kernel<D><<<1, threads, 0, stream_of(exec)>>>(a, count);
    PORTLA_CUDA_CHECK_LAUNCH();
    return true;
}

PORTLA_INSTANTIATE_CG_KERNELS(double);
PORTLA_INSTANTIATE_CG_KERNELS(float);
PORTLA_INSTANTIATE_CG_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_CG_KERNELS(std::complex<float>);

}  // namespace portla::kernels::cuda
