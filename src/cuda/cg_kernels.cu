// The device-resident CG of the cuda backend (see core/kernels/cg_kernels.hpp).
//
// Per iteration (it = iterations done so far; p ping-pongs between two buffers by it's parity):
//   direction: p_new = z + beta p_old, computed on the fly at every point the operator reads
//              (z = r without preconditioning), q = A p_new, pq = p_new . q;
//              last block: alpha = rho / pq, or stop (pq not finite: non_finite; pq <= 0:
//              indefinite)
//   update:    x += alpha p_new; r -= alpha q; [z = inv_diag .* r]; rr = r . r; [rz = r . z];
//              last block: ||r|| into the history, the stopping test, rho = rz (or rr),
//              beta = rho_new / rho, breakdown tests, iteration limit
//   replace:   a no-op unless it + 1 is a multiple of residual_replacement (decided by the
//              direction kernel's last block, in the state); then the update above only moves x,
//              and this kernel computes r = b - A x, [z], rr, [rz] and does the last-block work
//              (after the stagnation test of detail::Progress::replaced).
// Every kernel first reads the stop code and returns at once when it is set, so the graph's
// launches after the stopping iteration cost a launch each and change nothing.
//
// Bytes per iteration, double, stencil, no preconditioner: direction reads r, p_old and writes
// p_new, q (32 n: the neighbours' reads hit L1/L2); update reads p_new, q, x, r and writes x, r
// (48 n): 80 n, against 104 n for the host loop's apply, dot, fused update and axpby. Jacobi
// adds 16 n (inv_diag read and z written in the update). CSR reads row_ptrs, col_idxs and values
// (4 n + 12 nnz) in the direction kernel in place of the stencil's arithmetic.
// Measured 2026-11 (H100 80GB HBM3, double, 3-D stencil, per iteration, test_cg_device
// DISABLED_TimePerIteration): 128^3: 78 us (host loop 106 us, floor 80 n B / 3.03 TB/s = 55 us);
// 464^3: 3.56 ms (host loop 3.69 ms, floor 2.64 ms). The gap at 464^3 is in the kernels, not in
// launches or synchronisation: not yet profiled (suspects: the direction kernel's 14 loads and
// 4 integer divisions per point; grids sized for theoretical rather than achieved occupancy).
//
// Reductions are deterministic: per-block partials in this solve's own scratch, then the last
// block to take a ticket sums them in a fixed order (as in blas1_kernels.cu). Everything runs
// on a stream of this solve; work the caller queued on the legacy default stream is waited for
// through an event before each batch.
#include "core/kernels/cg_kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr int kHistory = CgLoop<double>::batch;  // residual norms kept per batch, by it % batch
constexpr int kItems = 4;                        // elements per thread per step of the update
constexpr unsigned kFullMask = 0xffffffffu;

constexpr int kRunning = static_cast<int>(CgStop::running);
constexpr int kConverged = static_cast<int>(CgStop::converged);
constexpr int kMaxIterations = static_cast<int>(CgStop::max_iterations);
constexpr int kBreakdown = static_cast<int>(CgStop::breakdown);
constexpr int kNonFinite = static_cast<int>(CgStop::non_finite);
constexpr int kIndefinite = static_cast<int>(CgStop::indefinite);
constexpr int kStagnation = static_cast<int>(CgStop::stagnation);

// The solve's scalars, in device memory; read back whole after each batch.
template <typename T>
struct CgState {
    double rho;                // r . z of the current residual (double, as on the host)
    double best_replaced;      // smallest true residual at a replacement so far
    double history[kHistory];  // ||r|| of iteration i at i % kHistory
    T alpha;
    T beta;
    int iteration;       // iterations done
    int done;            // a CgStop
    int best_iteration;  // iteration of best_replaced
    int stale;           // replacements since the last new minimum
    int replace_now;     // this iteration ends with r = b - A x (set by direction)
};

template <typename T>
struct CgArgs {
    CgState<T>* state;
    T* partials;            // 2 * gridDim.x used by each reduction
    unsigned int* counter;  // zero between reductions
    const T* b;
    T* x;
    T* r;
    T* z;  // nullptr without preconditioning (then z is r)
    const T* inv_diag;
    T* p0;
    T* p1;
    T* q;
    std::size_t n;
    int dim;  // stencil dimension, 0 for CSR
    const std::int32_t* row_ptrs;
    const std::int32_t* col_idxs;
    const T* values;
    double threshold;
    int max_iters;
    int replacement;
};

__device__ __forceinline__ double fused_madd(double a, double b, double c) {
    return __fma_rn(a, b, c);
}
__device__ __forceinline__ float fused_madd(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    return v;
}

// Sums v[k] over the block into warp 0's v[k] (valid in thread 0).
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

// Sums v[k] over the whole grid in one launch, in a fixed order. Returns true in the block that
// finished last (every thread of it); the totals are then in thread 0's v[k]. Every thread of
// every block must call it.
template <int NV, typename T>
__device__ bool grid_sum(T (&v)[NV], T* partials, unsigned int* counter) {
    __shared__ T warp_sums[NV][32];
    __shared__ bool is_last;
    block_sum(v, warp_sums);
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

__device__ __forceinline__ bool replace_at(int replacement, int iteration) {
    return replacement > 0 && iteration % replacement == 0;
}

enum class Finish { initial, resume, record, replaced };

// The last block's scalar work after the residual (and z) of an iteration are known, in the
// order of the host loop in src/core/cg.cpp. One thread.
template <typename T>
__device__ void finish_residual(const CgArgs<T>& a, T rr_sum, T rz_sum, Finish mode) {
    CgState<T>* s = a.state;
    const double rr = rr_sum;
    const double rho_new = a.z ? static_cast<double>(rz_sum) : rr;
    if (mode == Finish::initial) {
        s->rho = rho_new;
        s->beta = T(0);
        return;
    }
    int it = s->iteration;
    if (mode == Finish::resume) {
        s->done = kRunning;
    } else {
        ++it;
        const double rnorm = sqrt(rr);
        if (mode == Finish::replaced) {  // detail::Progress::replaced
            s->replace_now = 0;
            if (rnorm < 0.99 * s->best_replaced) {
                s->best_replaced = rnorm;
                s->best_iteration = it;
                s->stale = 0;
            } else if (++s->stale >= 4 && it - s->best_iteration >= 200) {
                s->done = kStagnation;
                return;
            }
        }
        s->history[it % kHistory] = rnorm;
        s->iteration = it;
        if (!isfinite(rnorm)) {
            s->done = kNonFinite;
            return;
        }
        if (rnorm <= a.threshold) {
            s->done = kConverged;
            return;
        }
    }
    if (rho_new == 0) {
        s->done = kBreakdown;
        return;
    }
    if (rho_new < 0) {
        s->done = kIndefinite;
        return;
    }
    s->beta = static_cast<T>(rho_new / s->rho);
    s->rho = rho_new;
    if (it >= a.max_iters) s->done = kMaxIterations;
}

// alpha = rho / pq, or stop; and whether this iteration replaces the residual (decided here,
// before the update may advance the iteration count, so that update and replace agree).
template <typename T>
__device__ void finish_direction(const CgArgs<T>& a, T pq_sum) {
    CgState<T>* s = a.state;
    s->replace_now = replace_at(a.replacement, s->iteration + 1);
    const double pq = pq_sum;
    if (!isfinite(pq))
        s->done = kNonFinite;
    else if (pq <= 0)
        s->done = kIndefinite;
    else
        s->alpha = static_cast<T>(s->rho / pq);
}

// r_i (given), z_i = inv_diag_i r_i, and their contributions to rr and rz.
template <typename T>
__device__ __forceinline__ void store_z(const CgArgs<T>& a, std::size_t i, T ri, T (&sums)[2]) {
    sums[0] += ri * ri;
    if (a.z) {
        const T zi = a.inv_diag[i] * ri;
        a.z[i] = zi;
        sums[1] += ri * zi;
    }
}

// The vector the operator is applied to: p_new = z + beta p_old, formed wherever it is read
// (one rounding, the same at every point that reads it), or x.
template <typename T>
struct Direction {
    const T* z;
    const T* p;
    T beta;
    __device__ __forceinline__ T operator()(std::size_t j) const {
        return fused_madd(beta, __ldg(p + j), __ldg(z + j));
    }
};
template <typename T>
struct Plain {
    const T* x;
    __device__ __forceinline__ T operator()(std::size_t j) const { return __ldg(x + j); }
};

// (A v)_i for the dim-D Poisson stencil, v_i = center; neighbours outside the grid are zero.
template <typename Index, typename T, typename Src>
__device__ __forceinline__ T stencil_row(int dim, Index points, Index i, const Src& v, T center) {
    T neighbours = T(0);
    const Index ix = i % points;
    if (ix > 0) neighbours += v(i - 1);
    if (ix + 1 < points) neighbours += v(i + 1);
    if (dim >= 2) {
        const Index line = i / points;
        const Index iy = line % points;
        if (iy > 0) neighbours += v(i - points);
        if (iy + 1 < points) neighbours += v(i + points);
        if (dim == 3) {
            const Index plane = points * points;
            const Index iz = line / points;
            if (iz > 0) neighbours += v(i - plane);
            if (iz + 1 < points) neighbours += v(i + plane);
        }
    }
    return static_cast<T>(2 * dim) * center - neighbours;
}

template <typename T>
struct IterationView {
    const T* p_old;
    T* p_new;
};

template <typename T>
__device__ __forceinline__ IterationView<T> buffers(const CgArgs<T>& a, int iteration) {
    return (iteration & 1) ? IterationView<T>{a.p1, a.p0} : IterationView<T>{a.p0, a.p1};
}

// ---- direction: p_new = z + beta p_old; q = A p_new; pq = p_new . q ------------------------

// One thread per grid point. Index: uint32 when the grid has < 2^31 points (cheap division).
template <typename Index, typename T>
__global__ void stencil_direction_kernel(CgArgs<T> a, Index points) {
    CgState<T>* s = a.state;
    if (s->done != kRunning) return;
    const IterationView<T> p = buffers(a, s->iteration);
    const Direction<T> v{a.z ? a.z : a.r, p.p_old, s->beta};
    const Index total = static_cast<Index>(a.n);
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    T sum[1] = {T(0)};
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += threads) {
        const T pi = v(i);
        const T qi = stencil_row(a.dim, points, i, v, pi);
        p.p_new[i] = pi;
        a.q[i] = qi;
        sum[0] += pi * qi;
    }
    if (grid_sum(sum, a.partials, a.counter) && threadIdx.x == 0) finish_direction(a, sum[0]);
}

// A group of G lanes per row (as csr_apply_kernel in matrix_kernels.cu); lane 0 of the group
// forms the row's own p_new and the product. The loop bound is warp-uniform.
template <int G, typename T>
__global__ void csr_direction_kernel(CgArgs<T> a) {
    CgState<T>* s = a.state;
    if (s->done != kRunning) return;
    const IterationView<T> p = buffers(a, s->iteration);
    const Direction<T> v{a.z ? a.z : a.r, p.p_old, s->beta};
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    T sum[1] = {T(0)};
    for (std::size_t first = warp * rows_per_warp; first < a.n; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        T acc = T(0);
        if (row < a.n) {
            const std::int64_t end = a.row_ptrs[row + 1];
            for (std::int64_t k = a.row_ptrs[row] + member; k < end; k += G)
                acc += a.values[k] * v(static_cast<std::size_t>(a.col_idxs[k]));
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2)
            acc += __shfl_down_sync(kFullMask, acc, offset, G);
        if (row < a.n && member == 0) {
            const T pi = v(row);
            p.p_new[row] = pi;
            a.q[row] = acc;
            sum[0] += pi * acc;
        }
    }
    if (grid_sum(sum, a.partials, a.counter) && threadIdx.x == 0) finish_direction(a, sum[0]);
}

// ---- update: x += alpha p; r -= alpha q; [z = inv_diag .* r]; rr; [rz] ----------------------

template <typename T>
__global__ void update_kernel(CgArgs<T> a) {
    CgState<T>* s = a.state;
    if (s->done != kRunning) return;
    const int it = s->iteration;
    const T alpha = s->alpha;
    const T* p = buffers(a, it).p_new;
    // At a replacement the replace kernel recomputes r (and z): only x moves here.
    const bool replace = s->replace_now != 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    T sums[2] = {T(0), T(0)};
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
    if (grid_sum(sums, a.partials, a.counter) && threadIdx.x == 0)
        finish_residual(a, sums[0], sums[1], Finish::record);
}

// ---- replace: r = b - A x; [z]; rr; [rz] (only every `replacement` iterations) ---------------

template <typename Index, typename T>
__global__ void stencil_replace_kernel(CgArgs<T> a, Index points) {
    CgState<T>* s = a.state;
    if (s->done != kRunning || s->replace_now == 0) return;
    const Plain<T> v{a.x};
    const Index total = static_cast<Index>(a.n);
    const Index threads = static_cast<Index>(gridDim.x) * blockDim.x;
    T sums[2] = {T(0), T(0)};
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += threads) {
        const T ri = a.b[i] - stencil_row(a.dim, points, i, v, v(i));
        a.r[i] = ri;
        store_z(a, i, ri, sums);
    }
    if (grid_sum(sums, a.partials, a.counter) && threadIdx.x == 0)
        finish_residual(a, sums[0], sums[1], Finish::replaced);
}

template <int G, typename T>
__global__ void csr_replace_kernel(CgArgs<T> a) {
    CgState<T>* s = a.state;
    if (s->done != kRunning || s->replace_now == 0) return;
    const Plain<T> v{a.x};
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    T sums[2] = {T(0), T(0)};
    for (std::size_t first = warp * rows_per_warp; first < a.n; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        T acc = T(0);
        if (row < a.n) {
            const std::int64_t end = a.row_ptrs[row + 1];
            for (std::int64_t k = a.row_ptrs[row] + member; k < end; k += G)
                acc += a.values[k] * v(static_cast<std::size_t>(a.col_idxs[k]));
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2)
            acc += __shfl_down_sync(kFullMask, acc, offset, G);
        if (row < a.n && member == 0) {
            const T ri = a.b[row] - acc;
            a.r[row] = ri;
            store_z(a, row, ri, sums);
        }
    }
    if (grid_sum(sums, a.partials, a.counter) && threadIdx.x == 0)
        finish_residual(a, sums[0], sums[1], Finish::replaced);
}

// ---- from a given r: [z = inv_diag .* r]; rr; [rz]; then rho (initial) or resume -----------

template <typename T>
__global__ void precondition_kernel(CgArgs<T> a, Finish mode) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    T sums[2] = {T(0), T(0)};
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += stride)
        store_z(a, i, a.r[i], sums);
    if (grid_sum(sums, a.partials, a.counter) && threadIdx.x == 0)
        finish_residual(a, sums[0], sums[1], mode);
}

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

void* device_malloc(int device, std::size_t bytes, const char* what) {
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory("cuda:" + std::to_string(device) + ": " + what, bytes);
    }
    PORTLA_CUDA_CHECK(err);
    return ptr;
}

}  // namespace

template <typename T>
struct CgLoop<T>::Impl {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t ready = nullptr;
    cudaGraphExec_t graph = nullptr;
    void* scalars = nullptr;  // counter, state, partials
    void* vectors = nullptr;  // p0, p1, q, [z]
    CgArgs<T> args{};
    CgState<T> host{};
    std::size_t points = 0;
    int group = 0;  // CSR lanes per row; 0 for the stencil
    unsigned threads = 0;
    unsigned operator_blocks = 0;
    unsigned vector_blocks = 0;

    ~Impl() {
        // Errors are dropped: this runs in a destructor, possibly during unwinding. cudaFree
        // waits for the kernels still using the memory.
        (void)cudaSetDevice(device);
        if (graph) (void)cudaGraphExecDestroy(graph);
        if (stream) (void)cudaStreamSynchronize(stream);
        if (vectors) (void)cudaFree(vectors);
        if (scalars) (void)cudaFree(scalars);
        if (ready) (void)cudaEventDestroy(ready);
        if (stream) (void)cudaStreamDestroy(stream);
        (void)cudaGetLastError();
    }

    // The caller's work on the legacy default stream (r = b - A x, the true residual) comes
    // first.
    void after_default_stream() {
        PORTLA_CUDA_CHECK(cudaEventRecord(ready, cudaStreamLegacy));
        PORTLA_CUDA_CHECK(cudaStreamWaitEvent(stream, ready, 0));
    }

    void launch_precondition(Finish mode) {
        precondition_kernel<T><<<vector_blocks, threads, 0, stream>>>(args, mode);
        PORTLA_CUDA_CHECK_LAUNCH();
    }

    template <int G>
    void launch_csr(bool direction) {
        if (direction)
            csr_direction_kernel<G, T><<<operator_blocks, threads, 0, stream>>>(args);
        else
            csr_replace_kernel<G, T><<<operator_blocks, threads, 0, stream>>>(args);
    }

    void launch_operator(bool direction) {
        if (group == 0) {
            if (args.n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
                const auto pts = static_cast<std::uint32_t>(points);
                if (direction)
                    stencil_direction_kernel<std::uint32_t, T>
                        <<<operator_blocks, threads, 0, stream>>>(args, pts);
                else
                    stencil_replace_kernel<std::uint32_t, T>
                        <<<operator_blocks, threads, 0, stream>>>(args, pts);
            } else {
                const auto pts = static_cast<std::uint64_t>(points);
                if (direction)
                    stencil_direction_kernel<std::uint64_t, T>
                        <<<operator_blocks, threads, 0, stream>>>(args, pts);
                else
                    stencil_replace_kernel<std::uint64_t, T>
                        <<<operator_blocks, threads, 0, stream>>>(args, pts);
            }
        } else if (group == 4) {
            launch_csr<4>(direction);
        } else if (group == 8) {
            launch_csr<8>(direction);
        } else if (group == 16) {
            launch_csr<16>(direction);
        } else {
            launch_csr<32>(direction);
        }
    }

    // `batch` iterations, captured once: direction, update, [replace] per iteration.
    void capture() {
        PORTLA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < CgLoop<T>::batch; ++k) {
            launch_operator(true);
            update_kernel<T><<<vector_blocks, threads, 0, stream>>>(args);
            if (args.replacement > 0) launch_operator(false);
        }
        const cudaError_t launch_err = cudaGetLastError();
        cudaGraph_t captured = nullptr;
        const cudaError_t end_err = cudaStreamEndCapture(stream, &captured);
        if (launch_err != cudaSuccess || end_err != cudaSuccess) {
            if (captured) (void)cudaGraphDestroy(captured);
            PORTLA_CUDA_CHECK(launch_err);
            PORTLA_CUDA_CHECK(end_err);
        }
        const cudaError_t inst_err = cudaGraphInstantiate(&graph, captured, 0);
        (void)cudaGraphDestroy(captured);
        PORTLA_CUDA_CHECK(inst_err);
    }
};

template <typename T>
CgLoop<T>::CgLoop(const Executor& exec, const CgProblem<T>& pb) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.device = exec.device_id();
    activate(m.device);
    const std::size_t n = pb.n;
    const bool precond = pb.inv_diag != nullptr;

    // Grids: one wave of resident blocks at most (the kernels loop grid-stride).
    m.threads = static_cast<unsigned>(exec.launch().work_group_size);
    const std::size_t wave = resident_blocks(m.device, static_cast<int>(m.threads));
    auto blocks = [&](std::size_t work_threads) {
        const std::size_t needed = (work_threads + m.threads - 1) / m.threads;
        return static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
    };
    m.points = pb.points;
    if (pb.stencil_dim > 0) {
        m.group = 0;
        m.operator_blocks = blocks(n);
    } else {
        // The smallest group of lanes that covers an average row in one pass.
        const std::size_t avg = (pb.nnz + n - 1) / n;
        m.group = avg <= 4 ? 4 : avg <= 8 ? 8 : avg <= 16 ? 16 : 32;
        const std::size_t rows_per_warp = 32 / static_cast<std::size_t>(m.group);
        m.operator_blocks = blocks((n + rows_per_warp - 1) / rows_per_warp * 32);
    }
    m.vector_blocks = blocks((n + kItems - 1) / kItems);

    PORTLA_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
    PORTLA_CUDA_CHECK(cudaEventCreateWithFlags(&m.ready, cudaEventDisableTiming));

    const std::size_t state_offset = 256;  // after the counter
    const std::size_t partials_offset = state_offset + round_up(sizeof(CgState<T>), 256);
    const std::size_t partials_bytes = 2 * wave * sizeof(T);
    m.scalars = device_malloc(m.device, partials_offset + partials_bytes, "CG scalars");
    const std::size_t vector_count = precond ? 4 : 3;
    const std::size_t stride = round_up(n * sizeof(T), 256);
    m.vectors = device_malloc(m.device, vector_count * stride, "CG work vectors");

    auto* base = static_cast<unsigned char*>(m.scalars);
    auto* vec = static_cast<unsigned char*>(m.vectors);
    CgArgs<T>& a = m.args;
    a.counter = reinterpret_cast<unsigned int*>(base);
    a.state = reinterpret_cast<CgState<T>*>(base + state_offset);
    a.partials = reinterpret_cast<T*>(base + partials_offset);
    a.b = pb.b;
    a.x = pb.x;
    a.r = pb.r;
    a.p0 = reinterpret_cast<T*>(vec);
    a.p1 = reinterpret_cast<T*>(vec + stride);
    a.q = reinterpret_cast<T*>(vec + 2 * stride);
    a.z = precond ? reinterpret_cast<T*>(vec + 3 * stride) : nullptr;
    a.inv_diag = pb.inv_diag;
    a.n = n;
    a.dim = pb.stencil_dim;
    a.row_ptrs = pb.row_ptrs;
    a.col_idxs = pb.col_idxs;
    a.values = pb.values;
    a.threshold = pb.threshold;
    a.max_iters = pb.max_iters;
    a.replacement = pb.residual_replacement;

    m.host = CgState<T>{};
    m.host.best_replaced = std::numeric_limits<double>::infinity();
    m.host.done = kRunning;
    PORTLA_CUDA_CHECK(cudaMemsetAsync(a.counter, 0, sizeof(unsigned int), m.stream));
    // p_old of the first iteration is multiplied by beta = 0: zero, never garbage (0 * NaN).
    PORTLA_CUDA_CHECK(cudaMemsetAsync(vec, 0, 2 * stride, m.stream));
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(a.state, &m.host, sizeof(CgState<T>), cudaMemcpyHostToDevice, m.stream));
    m.after_default_stream();
    m.launch_precondition(Finish::initial);  // z = M^-1 r; rho = r . z; beta = 0
    m.capture();
}

template <typename T>
CgLoop<T>::~CgLoop() = default;

template <typename T>
void CgLoop<T>::run_batch() {
    Impl& m = *impl_;
    activate(m.device);
    m.after_default_stream();
    PORTLA_CUDA_CHECK(cudaGraphLaunch(m.graph, m.stream));
    PORTLA_CUDA_CHECK(cudaMemcpyAsync(&m.host, m.args.state, sizeof(CgState<T>),
                                      cudaMemcpyDeviceToHost, m.stream));
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

template <typename T>
int CgLoop<T>::iterations() const {
    return impl_->host.iteration;
}

template <typename T>
CgStop CgLoop<T>::stop() const {
    return static_cast<CgStop>(impl_->host.done);
}

template <typename T>
double CgLoop<T>::residual_norm(int iteration) const {
    return impl_->host.history[iteration % kHistory];
}

template <typename T>
void CgLoop<T>::resume() {
    Impl& m = *impl_;
    activate(m.device);
    m.after_default_stream();
    m.launch_precondition(Finish::resume);
}

template class CgLoop<double>;
template class CgLoop<float>;

}  // namespace portla::kernels::cuda
