// Vector kernels of the cuda backend. Block size and items per thread: copy, axpby, dot, norm2
// and the fused CG update take them from tuning::launch_for (exec.launch() when the caller set
// it, else the device's tuning profile for the kernel and n); fill, pointwise_mul and
// invert_diagonal from exec.launch(). Everything runs on the stream of exec's device (stream_of).
//
// Access pattern: the element-wise kernels (fill, copy, axpby, pointwise_mul) read and write
// packs of 16 bytes (two doubles, four floats: one ld/st.global.v2.f64 or .v4.f32) where every
// vector of the call is 16-byte aligned, else packs of one element; the n % W elements after
// the last whole pack go to the last block's first threads. Reductions take packs of one (see
// launch_reduction). The packs are cut into tiles of blockDim * items_per_thread packs (so
// items_per_thread counts packs: 16 bytes each in the packed element-wise kernels, one element
// elsewhere); block b takes tiles b, b + gridDim, ... (grid-stride). Inside a tile, thread t
// handles packs t, t + blockDim, t + 2 blockDim, ..., so each warp access is one coalesced run.
// PORTLA_PACKED_LOADS=off forces packs of one (for measurements). Packs are processed in
// batches of batch_of<W>(): all loads of a batch are issued before its arithmetic and stores,
// which keeps several loads in flight per thread.
//
// Grid: element-wise kernels one block per tile (tile_grid); reductions enough tiles to cover n,
// at most one full wave of the kernel's resident blocks
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, cached: resident_blocks in scratch.hpp) and at
// most the partials' scratch.
//
// Reductions (dot, norm2, rr of fused_cg_update) are one launch, with no host synchronisation:
// cuda/reduction.cuh's grid_sum (block sums, a ticket, the last block sums the partials in a
// fixed order: deterministic; a grid of one block needs no ticket), then result.data[0]. A grid
// of 2-16 blocks on sm_90 is launched as one thread block cluster and sums through cluster_sum
// instead (the same order and bits, without the fence, ticket and L2 round trip: launch_sum).
// H100, dot as a stream of 20 calls at 2048-8192 doubles (2026-11-26): 4.11-4.38 us per call
// against 4.66-4.92 with the ticket.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/scaled_norm.hpp"
#include "core/kernels/blas1_kernels.hpp"
#include "cuda/complex.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "portla/error.hpp"
#include "portla/kernel_choices.hpp"
#include "portla/tuning.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr int kBatch = 4;  // elements of 8 bytes or less per thread per batch, one at a time

// Packs per batch: the same bytes in flight per vector as kBatch single elements, so the same
// registers (4 packs of double2 per vector made the fused update, when it was packed, too large
// to launch at 1024 x 16; the reductions now take packs of one, launch_reduction).
template <int W>
constexpr int batch_of() {
    return kBatch / W > 0 ? kBatch / W : 1;
}

// W consecutive elements loaded or stored as one access: 16 bytes (double2, float4) where every
// vector of the call is 16-byte aligned, else 1 (Pack<T, 1>).
template <typename T, int W>
struct alignas(W * sizeof(T)) Pack {
    T v[W];
};
template <typename T>
constexpr int kPackWidth = 16 / sizeof(T);

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int W, typename T>
__device__ __forceinline__ Pack<T, W> load_pack(const T* p, std::size_t chunk) {
    return reinterpret_cast<const Pack<T, W>*>(p)[chunk];
}
template <int W, typename T>
__device__ __forceinline__ void store_pack(T* p, std::size_t chunk, const Pack<T, W>& v) {
    reinterpret_cast<Pack<T, W>*>(p)[chunk] = v;
}
template <int W, typename T>
__device__ __forceinline__ Pack<T, W> zero_pack() {
    Pack<T, W> z;
#pragma unroll
    for (int w = 0; w < W; ++w) z.v[w] = T(0);
    return z;
}

// Calls op.template step<W>(first, stride, count, chunks) for every batch of this thread over
// the `chunks` packs of W elements: packs first + j * stride for j < count (and
// first + j * stride < chunks, which op checks). Then the n % W elements after the last whole
// pack, one per thread of the grid's last block, as packs of 1.
template <int W, typename Op>
__device__ __forceinline__ void for_each_batch(std::size_t n, int items_per_thread, Op& op) {
    constexpr int B = batch_of<W>();
    const std::size_t chunks = n / W;
    const std::size_t stride = blockDim.x;
    const std::size_t tile = stride * static_cast<std::size_t>(items_per_thread);
    for (std::size_t start = blockIdx.x * tile; start < chunks; start += gridDim.x * tile) {
        for (int k = 0; k < items_per_thread; k += B) {
            const std::size_t first = start + static_cast<std::size_t>(k) * stride;
            if (first >= chunks) break;
            op.template step<W>(first + threadIdx.x, stride, min(B, items_per_thread - k), chunks);
        }
    }
    if (W > 1 && blockIdx.x == gridDim.x - 1 && threadIdx.x < n % W)
        op.template step<1>(chunks * W + threadIdx.x, 0, 1, n);
}

__device__ __forceinline__ bool in_batch(int j, int count, std::size_t i, std::size_t n) {
    return j < count && i < n;
}

template <typename T>
struct FillOp {
    T value;
    T* y;
    bool aligned() const { return aligned16(y); }
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> v;
#pragma unroll
        for (int w = 0; w < W; ++w) v.v[w] = value;
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            if (!in_batch(j, count, i, chunks)) continue;
            store_pack<W>(y, i, v);
        }
    }
};

template <typename T>
struct CopyOp {
    const T* x;
    T* y;
    bool aligned() const { return aligned16(x) && aligned16(y); }
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> xv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            xv[j] = in_batch(j, count, i, chunks) ? load_pack<W>(x, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            if (!in_batch(j, count, i, chunks)) continue;
            store_pack<W>(y, i, xv[j]);
        }
    }
};

// y = a x + b y; with b == 0, y is not read (BLAS convention: NaN or garbage in y is ignored).
template <typename T>
struct AxpbyOp {
    T a, b;
    bool read_y;
    const T* x;
    T* y;
    bool aligned() const { return aligned16(x) && aligned16(y); }
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> xv[B], yv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            const bool ok = in_batch(j, count, i, chunks);
            xv[j] = ok ? load_pack<W>(x, i) : zero_pack<W, T>();
            yv[j] = ok && read_y ? load_pack<W>(y, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            if (!in_batch(j, count, i, chunks)) continue;
            Pack<T, W> out;
#pragma unroll
            for (int w = 0; w < W; ++w)
                out.v[w] = read_y ? a * xv[j].v[w] + b * yv[j].v[w] : a * xv[j].v[w];
            store_pack<W>(y, i, out);
        }
    }
};

template <typename T>
struct PointwiseMulOp {
    const T* x;
    const T* y;
    T* z;
    bool aligned() const { return aligned16(x) && aligned16(y) && aligned16(z); }
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> xv[B], yv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            const bool ok = in_batch(j, count, i, chunks);
            xv[j] = ok ? load_pack<W>(x, i) : zero_pack<W, T>();
            yv[j] = ok ? load_pack<W>(y, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            if (!in_batch(j, count, i, chunks)) continue;
            Pack<T, W> out;
#pragma unroll
            for (int w = 0; w < W; ++w) out.v[w] = xv[j].v[w] * yv[j].v[w];
            store_pack<W>(z, i, out);
        }
    }
};

template <int W, typename Op>
__global__ void elementwise_kernel(std::size_t n, int items_per_thread, Op op) {
    for_each_batch<W>(n, items_per_thread, op);
}

// Reduction bodies: accumulate into `sum` (of type Acc, cuda/complex.cuh's device_acc_t) in a
// fixed order; finish() maps the total to T.
template <typename T>
struct DotOp {
    using Acc = device_acc_t<T>;
    const T* x;
    const T* y;
    Acc sum;
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> xv[B], yv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            const bool ok = in_batch(j, count, i, chunks);
            xv[j] = ok ? load_pack<W>(x, i) : zero_pack<W, T>();
            yv[j] = ok ? load_pack<W>(y, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j)
#pragma unroll
            for (int w = 0; w < W; ++w) sum = madd_conj(sum, xv[j].v[w], yv[j].v[w]);
    }
    __device__ static T finish(Acc total) { return narrow<T>(total); }
};

// ||x|| by Blue's three scaled sums of squares (common/scaled_norm.hpp): no underflow or
// overflow for any finite x, in the same single pass as the plain sum of squares.
template <typename T>
struct Norm2Op {
    const T* x;
    common::ScaledSumOfSquares<T> acc;
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> xv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            xv[j] = in_batch(j, count, i, chunks) ? load_pack<W>(x, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j)
#pragma unroll
            for (int w = 0; w < W; ++w) acc.add(fabs(xv[j].v[w]));
    }
};

// x += alpha p; r -= alpha q; sum += r_new^H r_new
template <typename T>
struct FusedCgOp {
    using Acc = device_acc_t<T>;
    T alpha;
    const T* p;
    const T* q;
    T* x;
    T* r;
    Acc sum;
    template <int W>
    __device__ void step(std::size_t first, std::size_t stride, int count, std::size_t chunks) {
        constexpr int B = batch_of<W>();
        Pack<T, W> pv[B], qv[B], xv[B], rv[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            const bool ok = in_batch(j, count, i, chunks);
            pv[j] = ok ? load_pack<W>(p, i) : zero_pack<W, T>();
            qv[j] = ok ? load_pack<W>(q, i) : zero_pack<W, T>();
            xv[j] = ok ? load_pack<W>(x, i) : zero_pack<W, T>();
            rv[j] = ok ? load_pack<W>(r, i) : zero_pack<W, T>();
        }
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const std::size_t i = first + j * stride;
            if (!in_batch(j, count, i, chunks)) continue;
#pragma unroll
            for (int w = 0; w < W; ++w) {
                rv[j].v[w] -= alpha * qv[j].v[w];
                xv[j].v[w] += alpha * pv[j].v[w];
                sum = madd_conj(sum, rv[j].v[w], rv[j].v[w]);
            }
            store_pack<W>(x, i, xv[j]);
            store_pack<W>(r, i, rv[j]);
        }
    }
    __device__ static T finish(Acc total) { return narrow<T>(total); }
};

// One launch: the grid's sum of op.sum through grid_sum (cuda/reduction.cuh), mapped by
// Op::finish into result[0]. Packs of one element (see launch_reduction).
// Cluster: the grid is one thread block cluster and sums through cluster_sum (same bits as
// grid_sum for the same grid); partials and counter are then unused.
template <typename T, typename Op, bool Cluster>
__global__ void reduce_kernel(std::size_t n, int items_per_thread, Op op,
                              typename Op::Acc* partials, unsigned int* counter, T* result) {
    using Acc = typename Op::Acc;
    op.sum = Acc(0);
    for_each_batch<1>(n, items_per_thread, op);
    Acc v[1] = {op.sum};
    const bool total = Cluster ? cluster_sum(v) : grid_sum(v, partials, counter);
    if (total && threadIdx.x == 0) result[0] = Op::finish(v[0]);
}

// The three sums of Norm2Op over the grid in one launch (cuda/reduction.cuh's grid_sum, or
// cluster_sum as above); partials: 3 * gridDim.x entries.
template <typename T, bool Cluster>
__global__ void norm2_kernel(std::size_t n, int items_per_thread, Norm2Op<T> op, T* partials,
                             unsigned int* counter, T* result) {
    for_each_batch<1>(n, items_per_thread, op);
    T v[3] = {op.acc.small, op.acc.medium, op.acc.big};
    const bool total = Cluster ? cluster_sum(v) : grid_sum(v, partials, counter);
    if (total && threadIdx.x == 0)
        result[0] = common::ScaledSumOfSquares<T>{v[0], v[1], v[2]}.finish();
}

struct Grid {
    unsigned blocks;
    unsigned threads;
    int items_per_thread;
};

// Tiles of cfg (blockDim * items_per_thread packs) that cover `chunks` packs.
inline std::size_t tiles_of(const LaunchConfig& cfg, std::size_t chunks) {
    const std::size_t tile = static_cast<std::size_t>(cfg.work_group_size) *
                             static_cast<std::size_t>(cfg.items_per_thread);
    return (chunks + tile - 1) / tile;
}

// Tiles of cfg needed to cover n, at most one wave of `kernel`'s resident blocks (from its
// registers: resident_blocks) and at most `cap`.
template <typename Kernel>
Grid make_grid(const Executor& exec, const LaunchConfig& cfg, Kernel* kernel, std::size_t n,
               std::size_t cap = ~std::size_t(0)) {
    const std::size_t tiles = tiles_of(cfg, n);
    const std::size_t wave = resident_blocks(exec.device_id(), cfg.work_group_size,
                                             reinterpret_cast<const void*>(kernel));
    const std::size_t blocks = std::max<std::size_t>(1, std::min({tiles, wave, cap}));
    return {static_cast<unsigned>(blocks), static_cast<unsigned>(cfg.work_group_size),
            cfg.items_per_thread};
}

// Launches a reduction on grid g: cluster_kernel (its Cluster = true instantiation) as one
// thread block cluster where g has 2 ... max_cluster_blocks blocks (16 on the H100, 8 where only
// the portable size is placed or KernelOptions::cluster_max is 8; 0 where the kernel's cluster
// code cannot run), else ticket_kernel (grid_sum's ticket). KernelOptions::cluster_sums = false
// keeps the ticket everywhere (for measurements).
template <typename... Params, typename... Args>
void launch_sum(const Executor& exec, const Grid& g, void (*cluster_kernel)(Params...),
                void (*ticket_kernel)(Params...), Args... args) {
    const KernelOptions& options = exec.kernel_options();
    const auto stream = stream_of(exec);
    if (options.cluster_sums && g.blocks > 1 && g.blocks <= kMaxClusterBlocks &&
        g.blocks <= static_cast<unsigned>(options.cluster_max) &&
        g.blocks <= kernel_on_device(exec.device_id(), static_cast<int>(g.threads),
                                     reinterpret_cast<const void*>(cluster_kernel))
                        .max_cluster_blocks) {
        // A cluster the device cannot place now (a MIG slice, say) falls back to the ticket.
        if (launch_in_cluster(cluster_kernel, g.blocks, g.threads, stream, args...) ==
            cudaSuccess) {
            portla::detail::note_kernel("blas1.sum", "cluster");
            return;
        }
        (void)cudaGetLastError();
    }
    portla::detail::note_kernel("blas1.sum", g.blocks > 1 ? "ticket" : "one-block");
    ticket_kernel<<<g.blocks, g.threads, 0, stream>>>(args...);
    PORTLA_CUDA_CHECK_LAUNCH();
}

// fn(std::integral_constant<int, W>{}) with W = 16 bytes of T where every vector of op is
// 16-byte aligned and `packed` (KernelOptions::packed_loads), else 1.
template <typename T, typename Op, typename Fn>
void with_pack_width(bool packed, const Op& op, Fn&& fn) {
    if (packed && op.aligned())
        fn(std::integral_constant<int, kPackWidth<T>>{});
    else
        fn(std::integral_constant<int, 1>{});
}

// One block per tile of cfg (element-wise kernels: no partials to bound the grid). H100, axpby
// at 2^20 ... 2^27 doubles, same run (2026-11-26): W_a 3044 GB/s against 2894 with at most one
// wave of resident blocks walking the tiles (cublasDaxpy 3092); copy 2993 against 2823.
inline Grid tile_grid(const LaunchConfig& cfg, std::size_t chunks) {
    const std::size_t blocks = std::max<std::size_t>(1, tiles_of(cfg, chunks));
    // gridDim.x's limit, 2^31 - 1 blocks: past 2^36 elements with the smallest tile (32 x 1),
    // more than any device's memory holds today.
    if (blocks > std::size_t{0x7fffffff})
        throw DeviceError(
            "cuda: " + std::to_string(chunks) + " packs need more than 2^31 - 1 blocks of " +
            std::to_string(cfg.work_group_size) + " x " + std::to_string(cfg.items_per_thread));
    return {static_cast<unsigned>(blocks), static_cast<unsigned>(cfg.work_group_size),
            cfg.items_per_thread};
}

template <typename T, typename Op>
void launch_elementwise(const Executor& exec, const LaunchConfig& cfg, std::size_t n, Op op) {
    if (n == 0) return;
    activate(exec.device_id());
    with_pack_width<T>(exec.kernel_options().packed_loads, op, [&](auto width) {
        constexpr int W = decltype(width)::value;
        const Grid g = tile_grid(cfg, n / W);
        elementwise_kernel<W>
            <<<g.blocks, g.threads, 0, stream_of(exec)>>>(n, g.items_per_thread, op);
    });
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T, typename Op>
void launch_reduction(const Executor& exec, const LaunchConfig& cfg, std::size_t n, Op op,
                      T* result) {
    activate(exec.device_id());
    if (n == 0) {
        // All-zero bits are +0.0 (IEEE 754); ordered on the stream like a kernel.
        PORTLA_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream_of(exec)));
        return;
    }
    // One element per access: the summation order (and so the rounding) of every reduction is
    // what it was before the element-wise kernels took 16-byte packs. Packed dot, norm2 and
    // fused update changed the rounding of rounding-bound solves on the H100 (2026-11-26):
    // 662_bus GMRES + Jacobi stopped converging in 20000 iterations, and 494_bus BiCGSTAB +
    // Jacobi, already over its test bound (1462 against 1412, the same at 3344b73), went to
    // 1487 (docs/real-matrices.md), for no measured speed: dot's W_a was at cuBLAS's either way.
    // DotOp, Norm2Op and FusedCgOp are written for any W, like the element-wise ops; only
    // W = 1 is instantiated.
    using Acc = typename Op::Acc;
    const ReductionScratch scratch = reduction_scratch(exec.device_id());
    // capacity counts doubles; a complex sum takes two
    const std::size_t room =
        scratch.capacity * sizeof(double) / std::max(sizeof(Acc), sizeof(double));
    const Grid g = make_grid(exec, cfg, reduce_kernel<T, Op, false>, n, room);
    launch_sum(exec, g, reduce_kernel<T, Op, true>, reduce_kernel<T, Op, false>, n,
               g.items_per_thread, op, static_cast<Acc*>(scratch.partials), scratch.counter,
               result);
}

// A real T: Norm2Op's one pass. ||x|| of n complex values is that of the 2n real values of
// their parts, written into the real part of result[0] (its imaginary part set to zero).
template <typename T>
void launch_norm2(const Executor& exec, const_view<T> x, T* result) {
    activate(exec.device_id());
    if constexpr (common::is_complex_v<T>) {
        using R = common::real_t<T>;
        PORTLA_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream_of(exec)));
        launch_norm2(exec, const_view<R>(reinterpret_cast<const R*>(x.data), 2 * x.size),
                     reinterpret_cast<R*>(result));
    } else {
        if (x.size == 0) {
            PORTLA_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream_of(exec)));  // +0.0
            return;
        }
        const ReductionScratch scratch = reduction_scratch(exec.device_id());
        const LaunchConfig cfg = tuning::launch_for(exec, tuning::Kernel::norm2, x.size);
        const Grid g = make_grid(exec, cfg, norm2_kernel<T, false>, x.size, scratch.capacity / 3);
        launch_sum(exec, g, norm2_kernel<T, true>, norm2_kernel<T, false>, x.size,
                   g.items_per_thread, Norm2Op<T>{x.data, {}}, static_cast<T*>(scratch.partials),
                   scratch.counter, result);
    }
}

template <typename T>
__global__ void invert_diagonal_kernel(std::size_t n, T* d, unsigned long long* first_bad) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const T v = d[i];
        if (v == T(0) || !finite(v))
            atomicMin(first_bad, static_cast<unsigned long long>(i));
        else
            d[i] = T(1) / v;
    }
}

}  // namespace

// The entry points over T (std::complex<R> for complex values) run the kernels over
// D = device_t<T> (cuda/complex.cuh).
template <typename T>
void invert_diagonal(tag, const Executor& exec, view<T> d, view<unsigned long long> first_bad) {
    using D = device_t<T>;
    if (d.size == 0) return;
    activate(exec.device_id());
    const Grid g = make_grid(exec, exec.launch(), invert_diagonal_kernel<D>, d.size);
    invert_diagonal_kernel<<<g.blocks, g.threads, 0, stream_of(exec)>>>(d.size, device_ptr(d.data),
                                                                        first_bad.data);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void fill(tag, const Executor& exec, view<T> x, T value) {
    using D = device_t<T>;
    launch_elementwise<D>(exec, exec.launch(), x.size,
                          FillOp<D>{device_value(value), device_ptr(x.data)});
}

template <typename T>
void copy(tag, const Executor& exec, const_view<T> x, view<T> y) {
    using D = device_t<T>;
    launch_elementwise<D>(exec, tuning::launch_for(exec, tuning::Kernel::copy, y.size), y.size,
                          CopyOp<D>{device_ptr(x.data), device_ptr(y.data)});
}

template <typename T>
void axpby(tag, const Executor& exec, T a, const_view<T> x, T b, view<T> y) {
    using D = device_t<T>;
    launch_elementwise<D>(exec, tuning::launch_for(exec, tuning::Kernel::axpby, y.size), y.size,
                          AxpbyOp<D>{device_value(a), device_value(b), b != T(0),
                                     device_ptr(x.data), device_ptr(y.data)});
}

template <typename T>
void pointwise_mul(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> z) {
    using D = device_t<T>;
    launch_elementwise<D>(
        exec, exec.launch(), z.size,
        PointwiseMulOp<D>{device_ptr(x.data), device_ptr(y.data), device_ptr(z.data)});
}

template <typename T>
void dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    using D = device_t<T>;
    launch_reduction(exec, tuning::launch_for(exec, tuning::Kernel::dot, x.size), x.size,
                     DotOp<D>{device_ptr(x.data), device_ptr(y.data), {}}, device_ptr(result.data));
}

template <typename T>
void norm2(tag, const Executor& exec, const_view<T> x, view<T> result) {
    launch_norm2(exec, x, result.data);
}

template <typename T>
void fused_cg_update(tag, const Executor& exec, T alpha, const_view<T> p, const_view<T> q,
                     view<T> x, view<T> r, view<T> rr) {
    using D = device_t<T>;
    launch_reduction(exec, tuning::launch_for(exec, tuning::Kernel::fused_cg, r.size), r.size,
                     FusedCgOp<D>{device_value(alpha),
                                  device_ptr(p.data),
                                  device_ptr(q.data),
                                  device_ptr(x.data),
                                  device_ptr(r.data),
                                  {}},
                     device_ptr(rr.data));
}

PORTLA_INSTANTIATE_BLAS1_KERNELS(double);
PORTLA_INSTANTIATE_BLAS1_KERNELS(float);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<float>);

}  // namespace portla::kernels::cuda
