// Batch kernels of the cuda backend: one launch for the whole batch, one thread block per
// system (blocks loop over systems when the batch is larger than what the device holds at once).
//
// Placement: common/batch/placement.hpp (shared memory while it fits, else a global
// workspace of one region per resident block). The limit is what the device allows a block
// after opting in (227 KiB on the H100). Block size (a multiple of 32, one row per thread up
// to 256 rows) and the placement are chosen at run time from the system size, so one kernel
// per (precision, solver) serves every size and format.
//
// Measured (H100, 2026-11-21, docs/results/h100-2026-11-21/batch_shared_vs_global*.json): the
// placement buys 1.01x (CG) / 1.04x (BiCGSTAB) at n = 64 and 1.20x at n = 1024 over the
// all-global switch: on the H100 shared memory and L1 are one SRAM, a block's small global
// workspace stays in L1, and this kernel is bound by instruction issue and barriers.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

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

/// The thread block as a group (see system_solvers.hpp).
struct BlockGroup {
    double* scratch;
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
    /// partials in the same order (all get the same, deterministic total).
    __host__ __device__ double sum(double v) const {
#ifdef __CUDA_ARCH__
        v = warp_sum(v);  // cuda/reduction.cuh: valid in lane 0 of each warp
        const int warps = (blockDim.x + 31) / 32;
        if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = v;
        __syncthreads();
        double total = 0;
        for (int w = 0; w < warps; ++w) total += scratch[w];
        __syncthreads();  // scratch is free again
        return total;
#else
        return v;
#endif
    }
    template <typename F>
    __host__ __device__ void single(F&& f) const {
        if (rank() == 0) f();
        sync();
    }
};

template <typename T>
__device__ T* item_ptr(const Layout& lay, int item, T* sh, T* gl) {
    return (lay.shared[item] ? sh : gl) + lay.offset[item];
}

template <typename T>
__device__ void block_copy(const T* from, T* to, long long count) {
    for (long long i = threadIdx.x; i < count; i += blockDim.x) to[i] = from[i];
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

template <typename T, Solver S>
__global__ void __launch_bounds__(kMaxThreads)
    batch_solve_kernel(BatchArgs<T> a, Layout lay, T* workspace) {
    BlockGroup g{shared_scratch()};
    T* sh = shared_values<T>();
    T* gl = workspace + blockIdx.x * lay.global_elems;
    const int xs = x_slot(S);
    Workspace<T> w;
    for (int k = 0; k < lay.slots; ++k) w.vec[k] = item_ptr(lay, k, sh, gl);
    w.precond = item_ptr(lay, item_precond(lay.slots), sh, gl);
    w.scalars = item_ptr(lay, item_scalars(lay.slots), sh, gl);
    const bool x_shared = lay.shared[xs], matrix_shared = lay.shared[item_matrix(lay.slots)];
    for (int s = blockIdx.x; s < a.num_systems; s += gridDim.x) {
        SystemMatrix<T> A = a.system(s);
        T* x = a.x + static_cast<long long>(s) * a.n;
        if (matrix_shared) {
            T* m = sh + lay.offset[item_matrix(lay.slots)];
            block_copy(A.values, m, a.stored);
            A.values = m;
        }
        if (!x_shared)
            w.vec[xs] = x;
        else if (a.options.use_initial_guess)
            block_copy<T>(x, w.vec[xs], a.n);
        __syncthreads();
        const Outcome out =
            solve_system_with<S>(g, A, a.b + static_cast<long long>(s) * a.n, a.options, a.ilu, w);
        __syncthreads();
        if (x_shared) block_copy<T>(w.vec[xs], x, a.n);
        if (threadIdx.x == 0) {
            a.iterations[s] = out.iterations;
            a.reasons[s] = out.reason;
        }
        __syncthreads();  // shared memory is reused by the next system
    }
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

// The launch of one solve: layout (from the device's cached opt-in shared memory limit),
// block size, shared memory, grid; the workspace is allocated before the timer starts, so
// `timer` covers the kernel alone.
template <typename T, Solver S>
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
    const Layout lay =
        plan(a, S, static_cast<long long>((limit - kScratch * sizeof(double)) / sizeof(T)));
    const int threads = threads_for(a.n);
    const std::size_t smem =
        kScratch * sizeof(double) + static_cast<std::size_t>(lay.shared_elems) * sizeof(T);
    const auto kernel = batch_solve_kernel<T, S>;
    PORTLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    const int grid = grid_for(exec, kernel, threads, smem, a.num_systems);
    Array<T> workspace(exec,
                       static_cast<std::size_t>(grid) * static_cast<std::size_t>(lay.global_elems));
    timer.start();
    kernel<<<grid, threads, smem, stream_of(exec)>>>(a, lay, workspace.data());
    timer.stop();
    PORTLA_CUDA_CHECK_LAUNCH();
    info.block_size = threads;
    info.grid_size = grid;
    info.shared_bytes = smem;
    describe(lay, S, a.options.precond, info);
}

}  // namespace

template <typename T>
void batch_solve(tag, const Executor& exec, const BatchArgs<T>& args, Timer& timer,
                 batch::LaunchInfo& info) {
    switch (args.options.solver) {
        case Solver::cg:
            return launch_solve<T, Solver::cg>(exec, args, timer, info);
        case Solver::bicgstab:
            return launch_solve<T, Solver::bicgstab>(exec, args, timer, info);
        case Solver::gmres:
            break;
        case Solver::pipecg:  // refused by batch::solve
            throw Unsupported("batch_solve: pipecg is not a batched solver");
    }
    return launch_solve<T, Solver::gmres>(exec, args, timer, info);
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
