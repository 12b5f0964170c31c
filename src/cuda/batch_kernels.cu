// Batch kernels of the cuda backend: one launch for the whole batch. Systems of at most
// kWarpMaxRows rows are solved one per warp, kSystemsPerBlock per block (WarpGroup: sums by
// shuffles, __syncwarp for barriers, no block barrier after the block's copy of the index
// pattern); larger ones one per thread block (BlockGroup). Warps / blocks loop over systems when
// the batch is larger than what the device holds at once.
//
// Placement: common/batch/placement.hpp (shared memory while it fits, else a global
// workspace of one region per resident block, or per warp). The limit is what the device allows
// a block after opting in (227 KiB on the H100), split among the block's warps. Block size (a
// multiple of 32, one row per thread up to 256 rows) and the placement are chosen at run time
// from the system size, so one kernel per (precision, solver) serves every size and format.
//
// Why the warp kernel (measured on the H100 and H200, 3-point stencil n = 64, 2^17 systems,
// rtol 1e-6): one block of 64 threads per system spends its time in three block sums of two
// barriers each per iteration (CG 2.17 ms); one warp per system with the fused reductions of
// system_solvers.hpp executes about half the instructions, and capped at 64 registers
// (kWarpMinBlocks) it takes CG to 1.25 ms in shared memory (1.55 ms global), BiCGSTAB 2.63 ->
// 1.86 ms. The register variant (Rows > 0: owner-only vectors in registers, shared pointers
// known at compile time) takes CG to 0.96 ms against 1.50 ms global, BiCGSTAB 1.26 against
// 2.29 ms (H200).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/batch/placement.hpp"
#include "common/batch/system_solvers.hpp"
#include "core/kernels/batch_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "portla/array.hpp"
#include "portla/timer.hpp"

namespace portla::kernels::cuda {
namespace {

using namespace ::portla::batch::detail;

constexpr int kScratch = 32;  // doubles of shared memory for the block reductions
constexpr int kMaxThreads = 256;
static_assert(kMaxThreads / 32 <= 8 && kScratch >= 32,
              "the block sums keep two halves of 2 x 8 warp partials in the scratch");
constexpr int kSystemsPerBlock = 4;  ///< warp kernel
constexpr int kWarpBlockThreads = 32 * kSystemsPerBlock;
/// Resident blocks the warp kernel is compiled for: 8 x 4 warps, at most 64 registers (CG n =
/// 64 at 2^17: 1.24 ms, 1.66 ms at the 128 registers ptxas takes uncapped, H100, 2026-11-26).
constexpr int kWarpMinBlocks = 8;
/// Systems of at most this many rows are solved one per warp (the warp kernel), larger ones one
/// per block (n = 128, 2^17, uncapped warp kernel against the block kernel: CG 2.69 vs 4.31 ms,
/// BiCGSTAB 4.11 vs 6.48 ms, H100, 2026-11-26).
constexpr int kWarpMaxRows = 128;

/// The thread block as a group (see system_solvers.hpp).
struct BlockGroup {
    static constexpr int kRows = 0;  ///< rows per member: any number
    double* scratch;                 ///< kScratch doubles: two halves of 2 x 8 warp partials
    int half = 0;                    ///< the half of scratch the next sum writes
    __host__ __device__ int rank() const {
#ifdef __CUDA_ARCH__
        return threadIdx.x;
#else
        return 0;
#endif
    }
    __host__ __device__ int size() const {
#ifdef __CUDA_ARCH__
        return blockDim.x;
#else
        return 1;
#endif
    }
    __host__ __device__ void sync() const {
#ifdef __CUDA_ARCH__
        __syncthreads();
#endif
    }
    /// Warp shuffles, one partial per warp in shared memory, then every thread adds the
    /// partials in the same order (all get the same, deterministic total). One barrier: the
    /// sums alternate between the halves of scratch, and a half is written again only after
    /// the next sum's barrier, which every thread passes after reading it.
    __host__ __device__ double sum(double v) {
#ifdef __CUDA_ARCH__
        v = warp_sum(v);  // cuda/reduction.cuh: valid in lane 0 of each warp
        double* part = next_half();
        if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = v;
        __syncthreads();
        return add_partials(part);
#else
        return v;
#endif
    }
    /// Two sums with one barrier.
    __host__ __device__ void sum2(double& a, double& b) {
#ifdef __CUDA_ARCH__
        a = warp_sum(a);
        b = warp_sum(b);
        double* part = next_half();
        if ((threadIdx.x & 31) == 0) {
            part[threadIdx.x / 32] = a;
            part[8 + threadIdx.x / 32] = b;
        }
        __syncthreads();
        a = add_partials(part);
        b = add_partials(part + 8);
#else
        (void)a, (void)b;
#endif
    }
    /// to[0, count) = from[0, count), strided over the block (no barrier)
    template <typename U>
    __device__ void copy(const U* from, U* to, long long count) const {
        for (long long i = threadIdx.x; i < count; i += blockDim.x) to[i] = from[i];
    }

private:
    __host__ __device__ double* next_half() {
        double* part = scratch + 16 * half;
        half ^= 1;
        return part;
    }
    __host__ __device__ double add_partials(const double* part) const {
        double total = 0;
#ifdef __CUDA_ARCH__
        const int warps = (blockDim.x + 31) / 32;
        for (int w = 0; w < warps; ++w) total += part[w];
#else
        (void)part;
#endif
        return total;
    }
};

/// One warp as a group: one system per warp, several warps (systems) per block, no block
/// barrier once the block has started. Sums by butterfly shuffles: each step adds the same
/// two partials in every lane (a + b == b + a), so every lane holds the same total and the
/// control flow that depends on it stays uniform. Rows > 0: at most Rows rows per lane (n <=
/// 32 Rows), the owner-only vectors of CG and BiCGSTAB in registers (system_solvers.hpp).
template <int Rows>
struct WarpGroup {
    static constexpr int kRows = Rows;
    __host__ __device__ int rank() const {
#ifdef __CUDA_ARCH__
        return threadIdx.x & 31;
#else
        return 0;
#endif
    }
    __host__ __device__ int size() const { return 32; }
    __host__ __device__ void sync() const {
#ifdef __CUDA_ARCH__
        __syncwarp();
#endif
    }
    /// __syncwarp first: the sum orders the warp's memory accesses like sync().
    __host__ __device__ double sum(double v) const {
#ifdef __CUDA_ARCH__
        __syncwarp();
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_xor_sync(kFullWarpMask, v, offset);
#endif
        return v;
    }
    __host__ __device__ void sum2(double& a, double& b) const {
#ifdef __CUDA_ARCH__
        __syncwarp();
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) {
            a += __shfl_xor_sync(kFullWarpMask, a, offset);
            b += __shfl_xor_sync(kFullWarpMask, b, offset);
        }
#else
        (void)a, (void)b;
#endif
    }
    /// to[0, count) = from[0, count), strided over the warp (no barrier)
    template <typename U>
    __device__ void copy(const U* from, U* to, long long count) const {
        for (long long i = threadIdx.x & 31; i < count; i += 32) to[i] = from[i];
    }
};

template <typename T>
__device__ T* item_ptr(const Layout& lay, int item, T* sh, T* gl) {
    return (lay.shared[item] ? sh : gl) + lay.offset[item];
}

template <typename T>
__device__ T* shared_values() {
    extern __shared__ double portla_batch_smem[];  // double: 8-byte alignment for both precisions
    return reinterpret_cast<T*>(portla_batch_smem + kScratch);
}
__device__ double* shared_scratch() {
    extern __shared__ double portla_batch_smem[];
    return portla_batch_smem;
}

/// The systems first, first + stride, ... of one group (a block or a warp): the work vectors'
/// pointers (shared region `sh`, global region `gl`), then per system the matrix values into
/// shared memory where placed there, x (in place or a copy), the solve, x back, the outcome.
/// row_ptrs / col_idxs: the index pattern to use (the warp kernel's shared copy, or the
/// batch's). OnChip: every item but x is in shared memory (x in place), known at compile time:
/// the pointers come from `sh` alone, never chosen at run time, so the compiler knows them to
/// be shared (shared loads with 32-bit addresses instead of generic ones).
template <Solver S, bool RowLocal, bool OnChip, typename G, typename T>
__device__ __forceinline__ void solve_systems(G& g, const BatchArgs<T>& a, const Layout& lay, T* sh,
                                              T* gl, long long first, long long stride,
                                              const std::int32_t* row_ptrs,
                                              const std::int32_t* col_idxs) {
    const int xs = x_slot(S);
    Workspace<T> w;
    bool x_shared = false, matrix_shared = true;
    if constexpr (OnChip) {
        static_assert(S != Solver::gmres, "OnChip: CG and BiCGSTAB");
        constexpr int slots = slots_needed(S, 0);
#pragma unroll
        for (int k = 0; k < slots; ++k) w.vec[k] = sh + lay.offset[k];
        w.precond = sh + lay.offset[item_precond(slots)];
    } else {
        for (int k = 0; k < lay.slots; ++k) w.vec[k] = item_ptr(lay, k, sh, gl);
        w.precond = item_ptr(lay, item_precond(lay.slots), sh, gl);
        w.scalars = item_ptr(lay, item_scalars(lay.slots), sh, gl);
        x_shared = lay.shared[xs];
        matrix_shared = lay.shared[item_matrix(lay.slots)];
    }
    for (long long s = first; s < a.num_systems; s += stride) {
        SystemMatrix<T> A = a.system(static_cast<int>(s));
        A.row_ptrs = row_ptrs;
        A.col_idxs = col_idxs;
        T* x = a.x + s * a.n;
        if (OnChip || matrix_shared) {
            T* m = sh + lay.offset[item_matrix(lay.slots)];
            g.copy(A.values, m, a.stored);
            A.values = m;
        }
        if (OnChip || !x_shared)
            w.vec[xs] = x;
        else if (a.options.use_initial_guess)
            g.copy(x, w.vec[xs], a.n);
        g.sync();
        const Outcome out =
            solve_system_with<S, RowLocal>(g, A, a.b + s * a.n, a.options, a.ilu, w);
        g.sync();
        if (!OnChip && x_shared) g.copy(w.vec[xs], x, a.n);
        if (g.rank() == 0) {
            a.iterations[s] = out.iterations;
            a.reasons[s] = out.reason;
        }
        g.sync();  // shared memory is reused by the next system
    }
}

template <typename T, Solver S>
__global__ void __launch_bounds__(kMaxThreads)
    batch_solve_kernel(BatchArgs<T> a, Layout lay, T* workspace) {
    BlockGroup g{shared_scratch()};
    solve_systems<S, false, false>(g, a, lay, shared_values<T>(),
                                   workspace + blockIdx.x * lay.global_elems, blockIdx.x, gridDim.x,
                                   a.row_ptrs, a.col_idxs);
}

/// Elements of the index pattern (csr: row pointers and column indices; ell: column indices)
/// that the warp kernel keeps in shared memory, one copy per block.
template <typename T>
long long pattern_elems(const BatchArgs<T>& a) {
    if (a.format == Format::csr) return a.n + 1LL + a.stored;
    if (a.format == Format::ell) return a.stored;
    return 0;
}

/// Resident blocks the warp kernel is compiled for (its register cap: 65536 / (128 x blocks),
/// rounded down to 8). Rows = 0, work vectors in memory: kWarpMinBlocks. Rows > 0 (registers):
/// the most blocks at which ptxas (CUDA 13, sm_90, double) spills at most a few bytes: CG 8 up
/// to 2 rows per lane (64 registers), 6 (80) above; BiCGSTAB 6 up to 2 rows, 5 (96) above.
template <Solver S, int Rows>
constexpr int kWarpMinBlocksFor = Rows == 0         ? kWarpMinBlocks
                                  : S == Solver::cg ? (Rows <= 2 ? 8 : 6)
                                                    : (Rows <= 2 ? 6 : 5);

/// One system per warp, kSystemsPerBlock warps per block (RowLocal: o.precond is none or Jacobi,
/// the other preconditioners' code left out; Rows > 0: at most Rows rows per lane, owner-only
/// vectors in registers, needs RowLocal); each warp has its own shared region of `region`
/// elements (laid out by `lay`) and its own global one. `pattern` > 0: the block first copies
/// the index pattern (pattern_elems) behind the regions, the only block barrier.
template <typename T, Solver S, bool RowLocal, int Rows, int MinBlocks = kWarpMinBlocksFor<S, Rows>>
__global__ void __launch_bounds__(kWarpBlockThreads, MinBlocks)
    batch_solve_warp_kernel(BatchArgs<T> a, Layout lay, long long region, long long pattern,
                            T* workspace) {
    extern __shared__ double portla_batch_smem[];
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
    const std::int32_t* row_ptrs = a.row_ptrs;
    const std::int32_t* col_idxs = a.col_idxs;
    auto* idx =
        reinterpret_cast<std::int32_t*>(reinterpret_cast<T*>(portla_batch_smem) + warps * region);
    if (pattern > 0) {
        BlockGroup block{nullptr};
        if (a.format == Format::csr) {
            block.copy(a.row_ptrs, idx, a.n + 1LL);
            block.copy(a.col_idxs, idx + a.n + 1, a.stored);
        } else {
            block.copy(a.col_idxs, idx, a.stored);
        }
        __syncthreads();
    }
    // Rows > 0 (on chip, launch_warp): the copy is there (or the format dense, which has no
    // pattern); shared pointers, not chosen at run time
    if (Rows > 0 || pattern > 0) {
        row_ptrs = idx;
        col_idxs = a.format == Format::csr ? idx + a.n + 1 : idx;
    }
    const long long unit = static_cast<long long>(blockIdx.x) * warps + warp;
    WarpGroup<Rows> g;
    solve_systems<S, RowLocal, (Rows > 0)>(
        g, a, lay, reinterpret_cast<T*>(portla_batch_smem) + warp * region,
        workspace + unit * lay.global_elems, unit, static_cast<long long>(gridDim.x) * warps,
        row_ptrs, col_idxs);
}

template <typename T>
__global__ void __launch_bounds__(kMaxThreads)
    batch_residual_kernel(BatchArgs<T> a, double* res, double* bnorm) {
    BlockGroup g{shared_scratch()};
    for (int s = blockIdx.x; s < a.num_systems; s += gridDim.x) {
        const long long off = static_cast<long long>(s) * a.n;
        residual_norm(g, a.system(s), a.b + off, a.x + off, res + s, bnorm + s);
    }
}

template <typename T>
__global__ void __launch_bounds__(kMaxThreads)
    batch_apply_kernel(BatchArgs<T> a, const T* x, T* y) {
    BlockGroup g{shared_scratch()};
    for (int s = blockIdx.x; s < a.num_systems; s += gridDim.x) {
        const long long off = static_cast<long long>(s) * a.n;
        spmv(g, a.system(s), x + off, y + off);
    }
}

int threads_for(int n) { return std::min(kMaxThreads, std::max(32, (n + 31) / 32 * 32)); }

/// Blocks for a grid-stride loop over systems: what the device holds at once, at most one per
/// system.
template <typename Kernel>
int grid_for(const Executor& exec, Kernel kernel, int threads, std::size_t smem, int systems) {
    int per_sm = 0;
    PORTLA_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    if (per_sm < 1)
        throw DeviceError("batch kernel: no block of " + std::to_string(threads) +
                          " threads with " + std::to_string(smem) +
                          " bytes of shared memory fits on the device");
    const long long blocks =
        static_cast<long long>(per_sm) * device_limits(exec.device_id()).multiprocessors;
    return static_cast<int>(std::max<long long>(1, std::min<long long>(blocks, systems)));
}

/// The largest n solved one system per warp: KernelOptions::batch_warp_max_rows, kWarpMaxRows by
/// default (0 sends every size to the block kernel).
int warp_max_rows(const Executor& exec) {
    static_assert(KernelOptions{}.batch_warp_max_rows == kWarpMaxRows);
    return exec.kernel_options().batch_warp_max_rows;
}

/// The launch's LaunchInfo.
void record_launch(batch::LaunchInfo& info, int threads, int grid, std::size_t smem,
                   const Layout& lay, Solver S, Preconditioner precond) {
    info.block_size = threads;
    info.grid_size = grid;
    info.shared_bytes = smem;
    describe(lay, S, precond, info);
}

/// The warp kernel's launch (Rows: see batch_solve_warp_kernel).
template <typename T, Solver S, bool RowLocal, int Rows, int MinBlocks = kWarpMinBlocksFor<S, Rows>>
void launch_warp(const Executor& exec, const BatchArgs<T>& a, std::size_t limit, Timer& timer,
                 batch::LaunchInfo& info) {
    // the index pattern in shared memory when it takes at most a quarter of it (CG n = 64:
    // 1.656 ms against 1.672 ms with it in global memory, uncapped kernel, H100, 2026-11-26)
    long long pattern = a.shared_memory ? pattern_elems(a) : 0;
    std::size_t pattern_bytes = (pattern * sizeof(std::int32_t) + 15) / 16 * 16;
    if (pattern_bytes > limit / 4) pattern = 0, pattern_bytes = 0;
    const Layout lay =
        plan(a, S,
             static_cast<long long>((limit - pattern_bytes) / kSystemsPerBlock / sizeof(T)) / 4 * 4,
             Rows > 0);
    if constexpr (Rows > 0) {  // on chip: everything but x in shared memory, else memory views
        bool on_chip = pattern > 0 || a.format == Format::dense;
        for (int k = 0; k < lay.slots; ++k)
            if (!owner_only(S, k) && !lay.shared[k]) on_chip = false;
        if (a.options.precond != Preconditioner::none && !lay.shared[item_precond(lay.slots)])
            on_chip = false;
        if (!lay.shared[item_matrix(lay.slots)]) on_chip = false;
        if (!on_chip) return launch_warp<T, S, RowLocal, 0>(exec, a, limit, timer, info);
    }
    const long long region = (lay.shared_elems + 3) / 4 * 4;  // 16-byte aligned regions
    const std::size_t smem =
        static_cast<std::size_t>(region) * kSystemsPerBlock * sizeof(T) + pattern_bytes;
    const auto kernel = batch_solve_warp_kernel<T, S, RowLocal, Rows, MinBlocks>;
    allow_dynamic_shared(exec.device_id(), kernel, smem);
    const int units = static_cast<int>((a.num_systems + kSystemsPerBlock - 1) / kSystemsPerBlock);
    const int grid = grid_for(exec, kernel, kWarpBlockThreads, smem, units);
    Array<T> workspace(exec, static_cast<std::size_t>(grid) * kSystemsPerBlock *
                                 static_cast<std::size_t>(lay.global_elems));
    timer.start();
    kernel<<<grid, kWarpBlockThreads, smem, stream_of(exec)>>>(a, lay, region, pattern,
                                                               workspace.data());
    timer.stop();
    PORTLA_CUDA_CHECK_LAUNCH();
    record_launch(info, kWarpBlockThreads, grid, smem, lay, S, a.options.precond);
}

/// Whether the warp kernel keeps the owner-only vectors in registers where it can (on-chip
/// placement, CG / BiCGSTAB, none / Jacobi, n <= 128); KernelOptions::batch_registers = false
/// (for measurements) keeps them in shared memory.
bool warp_registers(const Executor& exec) { return exec.kernel_options().batch_registers; }

/// KernelOptions::batch_reg_min_blocks (for measurements, double only): the register variants'
/// cap as 5, 6 or 8 resident blocks instead of kWarpMinBlocksFor; 0: the default.
int reg_min_blocks(const Executor& exec) { return exec.kernel_options().batch_reg_min_blocks; }

/// The register variant of Rows rows per lane.
template <typename T, Solver S, int Rows>
void launch_rows(const Executor& exec, const BatchArgs<T>& a, std::size_t limit, Timer& timer,
                 batch::LaunchInfo& info) {
    if constexpr (std::is_same_v<T, double>) {
        switch (reg_min_blocks(exec)) {
            case 5:
                return launch_warp<T, S, true, Rows, 5>(exec, a, limit, timer, info);
            case 6:
                return launch_warp<T, S, true, Rows, 6>(exec, a, limit, timer, info);
            case 8:
                return launch_warp<T, S, true, Rows, 8>(exec, a, limit, timer, info);
            default:
                break;
        }
    }
    launch_warp<T, S, true, Rows>(exec, a, limit, timer, info);
}

// The launch of one solve: layout (from the device's cached opt-in shared memory limit),
// block size, shared memory, grid; the workspace is allocated before the timer starts, so
// `timer` covers the kernel alone.
template <typename T, Solver S, bool RowLocal>
void launch_solve(const Executor& exec, const BatchArgs<T>& a, Timer& timer,
                  batch::LaunchInfo& info) {
    info = {};
    if (a.num_systems == 0 || a.n == 0) {
        timer.start();  // nothing to time, but seconds() stays valid
        timer.stop();
        return;
    }
    const int device = exec.device_id();
    activate(device);
    const std::size_t limit =
        static_cast<std::size_t>(device_limits(device).max_shared_memory_per_block_optin);
    if (a.n <= warp_max_rows(exec)) {
        if constexpr (RowLocal && S != Solver::gmres) {
            if (a.shared_memory && warp_registers(exec) && a.n <= 4 * 32) {
                const int rows = (a.n + 31) / 32;
                if (rows == 1) return launch_rows<T, S, 1>(exec, a, limit, timer, info);
                if (rows == 2) return launch_rows<T, S, 2>(exec, a, limit, timer, info);
                if (rows == 3) return launch_rows<T, S, 3>(exec, a, limit, timer, info);
                return launch_rows<T, S, 4>(exec, a, limit, timer, info);
            }
        }
        return launch_warp<T, S, RowLocal, 0>(exec, a, limit, timer, info);
    }
    const Layout lay =
        plan(a, S, static_cast<long long>((limit - kScratch * sizeof(double)) / sizeof(T)));
    const int threads = threads_for(a.n);
    const std::size_t smem =
        kScratch * sizeof(double) + static_cast<std::size_t>(lay.shared_elems) * sizeof(T);
    const auto kernel = batch_solve_kernel<T, S>;
    allow_dynamic_shared(exec.device_id(), kernel, smem);
    const int grid = grid_for(exec, kernel, threads, smem, a.num_systems);
    Array<T> workspace(exec,
                       static_cast<std::size_t>(grid) * static_cast<std::size_t>(lay.global_elems));
    timer.start();
    kernel<<<grid, threads, smem, stream_of(exec)>>>(a, lay, workspace.data());
    timer.stop();
    PORTLA_CUDA_CHECK_LAUNCH();
    record_launch(info, threads, grid, smem, lay, S, a.options.precond);
}

}  // namespace

template <typename T>
void batch_solve(tag, const Executor& exec, const BatchArgs<T>& args, Timer& timer,
                 batch::LaunchInfo& info) {
    // warp kernels without the code of block Jacobi and ILU(0) where they are not used: fewer
    // registers (CG and BiCGSTAB; GMRES and the block kernel have one kernel each)
    const bool row_local = ::portla::batch::detail::row_local(args.options.precond);
    switch (args.options.solver) {
        case Solver::cg:
            return row_local ? launch_solve<T, Solver::cg, true>(exec, args, timer, info)
                             : launch_solve<T, Solver::cg, false>(exec, args, timer, info);
        case Solver::bicgstab:
            return row_local ? launch_solve<T, Solver::bicgstab, true>(exec, args, timer, info)
                             : launch_solve<T, Solver::bicgstab, false>(exec, args, timer, info);
        case Solver::gmres:
            break;
        default:  // the monolithic solvers (pipecg, minres, ...), refused by batch::solve
            throw Unsupported("batch_solve: " + ::portla::solver::to_string(args.options.solver) +
                              " is not a batched solver");
    }
    return launch_solve<T, Solver::gmres, false>(exec, args, timer, info);
}

template <typename T>
void batch_residual_norms(tag, const Executor& exec, const BatchArgs<T>& args, double* res,
                          double* bnorm) {
    if (args.num_systems == 0) return;
    activate(exec.device_id());
    const int threads = threads_for(args.n);
    const std::size_t smem = kScratch * sizeof(double);
    const int grid = grid_for(exec, batch_residual_kernel<T>, threads, smem, args.num_systems);
    batch_residual_kernel<T><<<grid, threads, smem, stream_of(exec)>>>(args, res, bnorm);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void batch_apply(tag, const Executor& exec, const BatchArgs<T>& args, const T* x, T* y) {
    if (args.num_systems == 0) return;
    activate(exec.device_id());
    const int threads = threads_for(args.n);
    const std::size_t smem = kScratch * sizeof(double);
    const int grid = grid_for(exec, batch_apply_kernel<T>, threads, smem, args.num_systems);
    batch_apply_kernel<T><<<grid, threads, smem, stream_of(exec)>>>(args, x, y);
    PORTLA_CUDA_CHECK_LAUNCH();
}

PORTLA_INSTANTIATE_BATCH_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_KERNELS(float);

}  // namespace portla::kernels::cuda
