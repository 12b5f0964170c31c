// Operator-apply kernels (y = A x) of the cuda backend. Block size from exec.launch()
// (items_per_thread does not apply); grids are capped at one wave of resident blocks and the
// kernels loop grid-stride over rows, so any size fits in the grid limits. All indexing of
// the values is 64-bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/kernels/matrix_kernels.hpp"
#include "core/kernels/csr_split_kernels.hpp"

#include "common/csr_pattern.hpp"
#include "common/stencil_row.hpp"
#include "cuda/csr_lanes.hpp"
#include "cuda/complex.cuh"
#include "cuda/csr_split.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/line_tiles.cuh"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "cuda/sparse_row.cuh"
#include "portla/kernel_choices.hpp"

namespace portla::kernels::cuda {
namespace {

// Blocks of `threads` threads of `kernel` needed for `work_threads` threads of work, at most one
// wave of its resident blocks.
template <typename Kernel>
unsigned blocks_for(const Executor& exec, Kernel* kernel, std::size_t work_threads,
                    unsigned threads) {
    const std::size_t needed = (work_threads + threads - 1) / threads;
    const std::size_t wave = resident_blocks(exec.device_id(), static_cast<int>(threads),
                                             reinterpret_cast<const void*>(kernel));
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
}

// The longest row of 32-bit offsets: a grid-stride max, a warp max, an atomicMax per warp.
__global__ void csr_longest_row_kernel(std::size_t rows, const std::int32_t* __restrict__ row_ptrs,
                                       std::uint32_t* __restrict__ longest) {
    std::uint32_t m = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
         i += stride)
        m = max(m, static_cast<std::uint32_t>(__ldg(row_ptrs + i + 1) - __ldg(row_ptrs + i)));
    m = __reduce_max_sync(kFullWarpMask, m);
    if ((threadIdx.x & 31u) == 0 && m > 0) atomicMax(longest, m);
}

// Dense row-major gemv: one warp per row, lanes stride over the columns (coalesced), warp
// shuffle sum (warp_sum). The loop bound is warp-uniform, so full-mask shuffles are safe.
template <typename T>
__global__ void dense_apply_kernel(std::size_t rows, std::size_t cols, const T* __restrict__ values,
                                   const T* __restrict__ x, T* __restrict__ y) {
    const unsigned lane = threadIdx.x & 31u;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
         row < rows; row += warps) {
        const T* a = values + row * cols;
        T sum = T(0);
#pragma unroll 4
        for (std::size_t c = lane; c < cols; c += 32) sum = madd(sum, a[c], x[c]);
        sum = warp_sum(sum);
        if (lane == 0) y[row] = sum;
    }
}

// Vector CSR: a group of G lanes (power of two <= 32) per row, 32 / G rows per warp per step.
// The loop bound is warp-uniform (rows handled per warp step), so full-mask shuffles are safe;
// the width-G shuffle sums within each group into its lane 0. Row offsets P and column indices I
// of the matrix's index form (CsrIndex), each instantiation without a test of the form.
template <int G, typename T, int C, typename P, typename I>
__global__ void csr_apply_kernel(std::size_t rows, const P* __restrict__ row_ptrs,
                                 const I* __restrict__ col_idxs, const T* __restrict__ values,
                                 const T* __restrict__ x, T* __restrict__ y) {
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::size_t first = warp * rows_per_warp; first < rows; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        T sum = T(0);
        if (row < rows) {
            const auto read = [x](std::size_t j) { return ldg(x + j); };
            sum = csr_lane_sum<T, C>(std::int64_t{row_ptrs[row]} + member, row_ptrs[row + 1], G,
                                     col_idxs, values, read);
        }
        sum = warp_sum<G>(sum);
        if (row < rows && member == 0) y[row] = sum;
    }
}

// ELL: one thread per row (cuda/sparse_row.cuh).
template <typename T>
__global__ void ell_apply_kernel(std::size_t rows, std::size_t width,
                                 const std::int32_t* __restrict__ col_idxs,
                                 const T* __restrict__ values, const T* __restrict__ x,
                                 T* __restrict__ y) {
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const auto read = [x](std::size_t j) { return ldg(x + j); };
    for (std::size_t row = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         row < rows; row += threads)
        y[row] = ell_row_sum<T>(row, rows, width, col_idxs, values, read);
}

// dim-D Poisson stencil on points^dim grid points (x fastest), homogeneous Dirichlet:
// y_i = 2 dim x_i - (sum of the neighbours inside the grid). One thread per point. Index is
// uint32 when the grid has < 2^31 points (cheap division), else uint64; with < 2^31 points,
// i + grid stride (< 2^31) cannot wrap in 32 bits.
template <typename Index, typename T>
__global__ void stencil_apply_kernel(int dim, Index points, Index total, const T* __restrict__ x,
                                     T* __restrict__ y) {
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    const T diagonal = static_cast<T>(2 * dim);
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += threads) {
        T neighbours = T(0);
        const Index ix = i % points;
        if (ix > 0) neighbours += x[i - 1];
        if (ix + 1 < points) neighbours += x[i + 1];
        if (dim >= 2) {
            const Index line = i / points;
            const Index iy = line % points;
            if (iy > 0) neighbours += x[i - points];
            if (iy + 1 < points) neighbours += x[i + points];
            if (dim == 3) {
                const Index plane = points * points;
                const Index iz = line / points;
                if (iz > 0) neighbours += x[i - plane];
                if (iz + 1 < points) neighbours += x[i + plane];
            }
        }
        y[i] = diagonal * x[i] - neighbours;
    }
}

// x . y of a slab kernel (Dot): each thread's sum over its rows, then grid_sum's one partial
// per block into the reductions' scratch, and the last block stores the total in *d.dot or adds
// it (d.add). Every thread of every block must call it.
template <typename T>
struct SlabDot {
    T* dot;
    bool add;
    T* partials;
    unsigned int* counter;
};

template <bool Dot, typename T>
__device__ __forceinline__ void finish_slab_dot(T sum, const SlabDot<T>& d) {
    if constexpr (Dot) {
        T v[1] = {sum};
        if (grid_sum(v, d.partials, d.counter) && threadIdx.x == 0)
            *d.dot = d.add ? *d.dot + v[0] : v[0];
    }
}

// Rows [begin, end) of a slab of the stencil split along its outermost dimension (one per rank),
// one thread per row; the row is common::slab_stencil_row (ghost planes below/above). Dot: and
// x . y over the rows (finish_slab_dot).
template <bool Dot, typename Index, typename T>
__global__ void slab_stencil_kernel(int dim, Index nx, Index ny, Index planes, Index begin,
                                    Index end, const T* __restrict__ below,
                                    const T* __restrict__ above, const T* __restrict__ x,
                                    T* __restrict__ y, SlabDot<T> d) {
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    T sum = T(0);
    for (Index i = begin + static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < end;
         i += threads) {
        const T yi = common::slab_stencil_row<Index>(dim, nx, ny, planes, i, x, below, above);
        y[i] = yi;
        if constexpr (Dot) sum += x[i] * yi;
    }
    finish_slab_dot<Dot>(sum, d);
}

// Planes [g.z_first, g.z_last) of a 3-D slab of `planes` planes of N x N points by tiles of whole
// x-lines walking up z (cuda/line_tiles.cuh), as the CG direction step's ring: a ring of four
// shared-memory buffers holds planes k - 1, k and k + 1 of the tile (k with its two halo rows) and
// takes plane k + 2 from the registers it was loaded into, while planes k + 3 and k + 4 are on
// their way into two sets of registers that take turns: one barrier per plane, every load and store
// a run of whole lines. Two planes ahead: 64 KiB of x in flight per block of 4096 points in double,
// as much as the CG ring's one plane of z and p_old ahead (its whole CG iteration, 80 bytes a
// point, runs at 20.6-22.1 ps a point on the H200); one plane ahead would be half. Plane -1 is
// `below`, plane `planes` is `above` (zero where nullptr). Reads each point of x once (and the halo
// rows, 2 / rows of a plane, and two planes at the ends of each tile), writes y once: a cost per
// point that does not depend on N, where one thread per row (slab_stencil_kernel) needs three
// planes of x in L2. The row's value is common::slab_stencil_value with slab_stencil_row's
// neighbours in its order (a neighbour outside the grid a zero in the buffer): the same sums as
// slab_stencil_kernel. Dot: and x . y over the planes, x_i from the buffer the row read it from
// (finish_slab_dot: no extra pass over memory; 16 of the 104 bytes a point of the distributed
// CG iteration). 64 registers, no spills, except in double: 16 bytes with four halo points
// (N > 1024), and with the dot 28 bytes with four, 8 with one (N <= 512: one 4-byte reload from
// L1 per plane step, against the step's 8 loads and stores of x and y; ptxas and SASS, sm_90).
template <int Halo, bool Dot, typename T>
__global__ void __launch_bounds__(kRingThreads, 1)
    slab_stencil_ring_kernel(LineTiles g, std::uint32_t planes, const T* __restrict__ below,
                             const T* __restrict__ above, const T* __restrict__ x,
                             T* __restrict__ y, SlabDot<T> d) {
    constexpr int kPer = kRingTilePoints / kRingThreads;
    extern __shared__ __align__(16) unsigned char slab_shared[];
    const RingTile<T> r = ring_tile<T>(g, slab_shared);
    const std::uint32_t N = r.N, plane = r.plane;
    auto slot = [&](std::uint32_t k) { return r.slot(k); };
    const std::uint32_t tid = threadIdx.x;
    T sum = T(0);
    for (std::uint32_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
        const TileLanes<kPer, Halo> t = tile_lanes<kRingThreads, kPer, Halo>(g, tile, tid);
        const std::uint32_t z0 = t.z0, z1 = t.z1, first = t.first;
        struct Staged {  // a plane's points (and halo points) of the tile, loaded ahead
            T v[kPer], halo[Halo];
        };
        // plane k of x into registers (with the halo rows when asked: only for k in [z0, z1));
        // k = planes is `above`, k = 2^32 - 1 is `below`, zeros where that is nullptr
        auto fetch = [&](Staged& s, std::uint32_t k, bool with_halo) {
            const T* from = k < planes ? x + std::size_t{k} * plane : k == planes ? above : below;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) s.v[j] = from ? __ldg(from + first + tid + j * kRingThreads) : T(0);
            if (with_halo) {
#pragma unroll
                for (int m = 0; m < Halo; ++m)
                    if (t.halo[m] && t.real[m])
                        s.halo[m] = __ldg(from + (t.halo_shared[m] + t.halo_from));
            }
        };
        // the fetched registers into plane k's buffer (zero halo rows outside the grid)
        auto store = [&](const Staged& s, std::uint32_t k, bool with_halo) {
            T* b = slot(k);
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) b[N + tid + j * kRingThreads] = s.v[j];
            if (with_halo) {
#pragma unroll
                for (int m = 0; m < Halo; ++m)
                    if (t.halo[m]) b[t.halo_shared[m]] = t.real[m] ? s.halo[m] : T(0);
            }
        };
        // Planes z0 - 1, z0 and z0 + 1 (halo rows for those in the tile's range); z0 + 2 and
        // z0 + 3 loading, into two sets of registers that take turns.
        Staged even, odd;
        fetch(even, z0 - 1, false);
        store(even, z0 - 1, false);
        fetch(even, z0, true);
        store(even, z0, true);
        fetch(even, z0 + 1, z0 + 1 < z1);
        store(even, z0 + 1, z0 + 1 < z1);
        if (z0 + 1 < z1) fetch(even, z0 + 2, z0 + 2 < z1);
        if (z0 + 2 < z1) fetch(odd, z0 + 3, z0 + 3 < z1);
        __syncthreads();
        // Plane k from the buffers of k - 1, k, k + 1; first plane k + 2 from `s` into the buffer
        // of plane k - 2, and plane k + 4 into `s`.
        auto step = [&](std::uint32_t k, Staged& s) {
            if (k + 1 < z1) {
                store(s, k + 2, k + 2 < z1);
                if (k + 3 < z1) fetch(s, k + 4, k + 4 < z1);
            }
            const T* lower = slot(k - 1);
            const T* now = slot(k);
            const T* upper = slot(k + 1);
            const std::size_t base = std::size_t{k} * plane + first;
#pragma unroll
            for (int j = 0; j < kPer; ++j)
                if (t.in[j]) {
                    const std::uint32_t c = N + tid + j * kRingThreads;
                    const T yi = common::slab_stencil_value(
                        3, now[c], t.left[j] ? now[c - 1] : T(0), t.right[j] ? now[c + 1] : T(0),
                        now[c - N], now[c + N], lower[c], upper[c]);
                    y[base + tid + j * kRingThreads] = yi;
                    if constexpr (Dot) sum += now[c] * yi;
                }
            __syncthreads();
        };
        for (std::uint32_t k = z0; k < z1; k += 2) {
            step(k, even);
            if (k + 1 < z1) step(k + 1, odd);
        }
    }
    finish_slab_dot<Dot>(sum, d);
}

template <typename T>
__global__ void gather_kernel(std::size_t n, const std::int32_t* __restrict__ idx,
                              const T* __restrict__ x, T* __restrict__ out) {
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
        out[i] = x[idx[i]];
}

// One thread per row; the flags of every row or-ed into *flags.
__global__ void csr_pattern_kernel(std::size_t rows, std::size_t cols, std::size_t entries,
                                   const std::int32_t* __restrict__ row_ptrs,
                                   const std::int32_t* __restrict__ col_idxs,
                                   std::uint32_t* flags) {
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    std::uint32_t mine = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows; i += threads)
        mine |= common::csr_row_pattern(i, rows, cols, entries, row_ptrs, col_idxs);
    if (mine) atomicOr(reinterpret_cast<unsigned*>(flags), mine);
}

template <typename T, typename P, typename I>
__global__ void csr_diagonal_kernel(std::size_t rows, const P* __restrict__ row_ptrs,
                                    const I* __restrict__ col_idxs, const T* __restrict__ values,
                                    T* __restrict__ d) {
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows; i += threads)
        d[i] = common::csr_row_diagonal(i, row_ptrs, col_idxs, values);
}

template <int G, typename T, typename P, typename I>
void launch_csr(const Executor& exec, std::size_t rows, const P* row_ptrs, const I* col_idxs,
                const T* values, const T* x, T* y) {
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    const std::size_t warps = (rows + 32 / G - 1) / (32 / G);
    // KernelOptions::CsrRow::loop: one entry per step (measurements: the SpMV at 2^24 rows
    // 2835 GB/s chunked against 2637, H100, 2026-11-26).
    const bool loop = exec.kernel_options().csr_row == KernelOptions::CsrRow::loop;
    const auto kernel =
        loop ? csr_apply_kernel<G, T, 1, P, I> : csr_apply_kernel<G, T, kCsrChunk, P, I>;
    const unsigned blocks = blocks_for(exec, kernel, warps * 32, threads);
    kernel<<<blocks, threads, 0, stream_of(exec)>>>(rows, row_ptrs, col_idxs, values, x, y);
    PORTLA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void dense_apply(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                 const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    using D = device_t<T>;
    const unsigned blocks = blocks_for(exec, dense_apply_kernel<D>, rows * 32, threads);
    dense_apply_kernel<D><<<blocks, threads, 0, stream_of(exec)>>>(
        rows, cols, device_ptr(values.data), device_ptr(x.data), device_ptr(y.data));
    PORTLA_CUDA_CHECK_LAUNCH();
}

// Complex values (T = std::complex<R>) run the kernels over device_t<T> (cuda/complex.cuh).
template <typename T, typename P, typename I>
void csr_apply(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,
               const_view<I> col_idxs, const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    activate(exec.device_id());
    const auto* rp = row_ptrs.data;
    const auto* ci = col_idxs.data;
    portla::detail::note_kernel("csr.apply", "lanes");
    with_lanes(csr_lanes(values.size, rows), [&](auto group) {
        launch_csr<decltype(group)::value>(exec, rows, rp, ci, device_ptr(values.data),
                                           device_ptr(x.data), device_ptr(y.data));
    });
}

int csr_group_lanes(tag, std::size_t entries, std::size_t rows) { return csr_lanes(entries, rows); }

void csr_split_reserve(tag, const Executor& exec, std::size_t segments) {
    split_scratch(exec.device_id(), segments);
}

std::size_t csr_longest_row(tag, const Executor& exec, std::size_t rows,
                            const_view<std::int32_t> row_ptrs) {
    if (rows == 0) return 0;
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    // The result lives in the reductions' scratch (ordered with them on the device's stream), as
    // csr_pattern_check's flags: no allocation per borrow.
    auto* longest = static_cast<std::uint32_t*>(reduction_scratch(exec.device_id()).partials);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(longest, 0, sizeof(std::uint32_t), stream));
    const unsigned threads = 256;
    csr_longest_row_kernel<<<blocks_for(exec, csr_longest_row_kernel, rows, threads), threads, 0,
                             stream>>>(rows, row_ptrs.data, longest);
    PORTLA_CUDA_CHECK_LAUNCH();
    std::uint32_t result = 0;
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(&result, longest, sizeof(result), cudaMemcpyDeviceToHost, stream));
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

template <typename T>
void csr_split_apply(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs,
                     const_view<std::int32_t> col_idxs, const_view<T> values,
                     const CsrLongRows& long_rows, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    activate(exec.device_id());
    portla::detail::note_kernel("csr.apply", "split");
    const auto kernel = csr_split_apply_kernel<T, Ungated>;
    const std::size_t warps = long_rows.block_count + long_rows.segments;
    kernel<<<blocks_for(exec, kernel, warps * 32, kCsrSplitThreads), kCsrSplitThreads, 0,
             stream_of(exec)>>>(row_ptrs.data, col_idxs.data, values.data,
                                split_rows<T>(exec.device_id(), long_rows), x.data, y.data,
                                Ungated{});
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void ell_apply(tag, const Executor& exec, std::size_t rows, std::size_t width,
               const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,
               view<T> y) {
    if (rows == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    using D = device_t<T>;
    const unsigned blocks = blocks_for(exec, ell_apply_kernel<D>, rows, threads);
    ell_apply_kernel<D><<<blocks, threads, 0, stream_of(exec)>>>(
        rows, width, col_idxs.data, device_ptr(values.data), device_ptr(x.data),
        device_ptr(y.data));
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void stencil_apply(tag, const Executor& exec, int dim, std::size_t points, const_view<T> x,
                   view<T> y) {
    std::size_t total = 1;
    for (int d = 0; d < dim; ++d) total *= points;
    if (points == 0 || total == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    auto run = [&](auto index) {
        using I = decltype(index);
        const auto kernel = stencil_apply_kernel<I, T>;
        kernel<<<blocks_for(exec, kernel, total, threads), threads, 0, stream_of(exec)>>>(
            dim, static_cast<I>(points), static_cast<I>(total), x.data, y.data);
    };
    if (total <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        run(std::uint32_t{});
    else
        run(std::uint64_t{});
    PORTLA_CUDA_CHECK_LAUNCH();
}

// The 3-D slab by tiles (slab_stencil_ring_kernel) where N <= kRingMaxPoints and the device
// gives a block its 4 (rows + 2) N values of shared memory (160 KiB at N = 512, 182 KiB at N =
// 813, 192 KiB at N = 1024 in double; 227 KiB on the H100 and H200) besides the kernel's own
// (the dot's block sum); otherwise, in 1-D and 2-D and with KernelOptions::slab_stencil points,
// one thread per row (slab_stencil_kernel). kernel_choices() names it under "slab.apply": ring or
// points. With a dot, the same kernels sum x . y as they go, one partial per block in the
// reductions' scratch (at most its capacity of blocks; the kernels loop over the rest).
template <typename T>
void slab_stencil_apply(tag, const Executor& exec, int dim, std::size_t points, std::size_t planes,
                        std::size_t first, std::size_t last, const T* below, const T* above,
                        const_view<T> x, view<T> y, T* dot, bool add_dot) {
    const std::size_t nx = dim >= 2 ? points : 1, ny = dim >= 3 ? points : 1;
    const std::size_t begin = first * nx * ny, end = last * nx * ny;
    const int device = exec.device_id();
    if (begin >= end) {
        if (dot && !add_dot) {
            activate(device);
            PORTLA_CUDA_CHECK(cudaMemsetAsync(dot, 0, sizeof(T), stream_of(exec)));
        }
        return;
    }
    activate(device);
    SlabDot<T> d{dot, add_dot, nullptr, nullptr};
    unsigned most = std::numeric_limits<unsigned>::max();  // blocks
    if (dot) {
        const ReductionScratch scratch = reduction_scratch(device);
        d.partials = static_cast<T*>(scratch.partials);
        d.counter = scratch.counter;
        most = static_cast<unsigned>(scratch.capacity);
    }
    const std::size_t room =  // what the device gives a block (opt-in)
        static_cast<std::size_t>(device_limits(device).max_shared_memory_per_block_optin);
    const std::size_t shared = tile_shared<T>(points, kRingTilePoints, 4);
    auto ring = [&](auto kernel) {
        const void* key = reinterpret_cast<const void*>(kernel);
        cudaFuncAttributes attributes{};
        PORTLA_CUDA_CHECK(cudaFuncGetAttributes(&attributes, key));
        if (shared + attributes.sharedSizeBytes > room) return false;
        portla::detail::note_kernel("slab.apply", "ring");
        const unsigned resident = resident_blocks(device, kRingThreads, key);
        const LineTiles g = line_tiles(points, first, last, kRingTilePoints, resident, 0);
        allow_dynamic_shared(device, key, shared);
        kernel<<<std::max(1u, std::min({g.tiles, resident, most})), kRingThreads, shared,
                 stream_of(exec)>>>(g, static_cast<std::uint32_t>(planes), below, above, x.data,
                                    y.data, d);
        PORTLA_CUDA_CHECK_LAUNCH();
        return true;
    };
    auto ring_of = [&](auto with_dot) {
        constexpr bool D = decltype(with_dot)::value;
        const int halo = ring_halo(points, 0);
        if (halo == 1) return ring(slab_stencil_ring_kernel<1, D, T>);
        if (halo == 2) return ring(slab_stencil_ring_kernel<2, D, T>);
        return ring(slab_stencil_ring_kernel<4, D, T>);
    };
    if (dim == 3 && points <= kRingMaxPoints && shared <= room &&
        exec.kernel_options().slab_stencil != KernelOptions::SlabStencil::points &&
        (dot ? ring_of(std::true_type{}) : ring_of(std::false_type{})))
        return;
    portla::detail::note_kernel("slab.apply", "points");
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    auto run = [&](auto index, auto with_dot) {
        using I = decltype(index);
        const auto kernel = slab_stencil_kernel<decltype(with_dot)::value, I, T>;
        const unsigned blocks = std::min(blocks_for(exec, kernel, end - begin, threads), most);
        kernel<<<blocks, threads, 0, stream_of(exec)>>>(dim, I(nx), I(ny), I(planes), I(begin),
                                                        I(end), below, above, x.data, y.data, d);
    };
    const bool narrow =
        planes * nx * ny <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
    if (narrow && dot)
        run(std::uint32_t{}, std::true_type{});
    else if (narrow)
        run(std::uint32_t{}, std::false_type{});
    else if (dot)
        run(std::uint64_t{}, std::true_type{});
    else
        run(std::uint64_t{}, std::false_type{});
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void gather(tag, const Executor& exec, const_view<std::int32_t> idx, const_view<T> x, view<T> out) {
    if (idx.size == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    using D = device_t<T>;
    const unsigned blocks = blocks_for(exec, gather_kernel<D>, idx.size, threads);
    gather_kernel<D><<<blocks, threads, 0, stream_of(exec)>>>(
        idx.size, idx.data, device_ptr(x.data), device_ptr(out.data));
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T, typename P, typename I>
void csr_diagonal(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,
                  const_view<I> col_idxs, const_view<T> values, view<T> d) {
    if (rows == 0) return;
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    const auto kernel = csr_diagonal_kernel<device_t<T>, P, I>;
    kernel<<<blocks_for(exec, kernel, rows, threads), threads, 0, stream_of(exec)>>>(
        rows, row_ptrs.data, col_idxs.data, device_ptr(values.data), device_ptr(d.data));
    PORTLA_CUDA_CHECK_LAUNCH();
}

std::uint32_t csr_pattern_check(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                                const_view<std::int32_t> row_ptrs,
                                const_view<std::int32_t> col_idxs) {
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    std::uint32_t result = 0;
    if (rows == 0) {
        std::int32_t first = -1;
        PORTLA_CUDA_CHECK(
            cudaMemcpyAsync(&first, row_ptrs.data, sizeof(first), cudaMemcpyDeviceToHost, stream));
        PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
        return first == 0 && col_idxs.size == 0 ? 0u : kCsrInvalid;
    }
    // The flags live in the reductions' scratch (ordered with them on the device's stream).
    auto* flags = static_cast<std::uint32_t*>(reduction_scratch(exec.device_id()).partials);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(flags, 0, sizeof(std::uint32_t), stream));
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    csr_pattern_kernel<<<blocks_for(exec, csr_pattern_kernel, rows, threads), threads, 0, stream>>>(
        rows, cols, col_idxs.size, row_ptrs.data, col_idxs.data, flags);
    PORTLA_CUDA_CHECK_LAUNCH();
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(&result, flags, sizeof(result), cudaMemcpyDeviceToHost, stream));
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

PORTLA_INSTANTIATE_MATRIX_KERNELS(double);
PORTLA_INSTANTIATE_MATRIX_KERNELS(float);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<float>);
template void csr_split_apply<double>(tag, const Executor&, std::size_t, const_view<std::int32_t>,
                                      const_view<std::int32_t>, const_view<double>,
                                      const CsrLongRows&, const_view<double>, view<double>);
template void csr_split_apply<float>(tag, const Executor&, std::size_t, const_view<std::int32_t>,
                                     const_view<std::int32_t>, const_view<float>,
                                     const CsrLongRows&, const_view<float>, view<float>);

}  // namespace portla::kernels::cuda
