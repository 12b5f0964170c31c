// Sparse triangular solves of the cuda backend.
//
// portla's own solve (sptrsv): ONE launch per triangular solve, sync-free (the scheme of Liu et
// al., Euro-Par 2016), over the rows in level order: a warp per row, lanes stride over the row's
// off-diagonal entries; a lane first waits until the x_j it needs is final (ready[j] equals this
// solve's generation, an acquire load), the warp sums, lane 0 writes x_i and publishes ready[i]
// (a release store). So an ILU(0)/IC(0) apply is two launches, whatever the number of levels
// (a launch per level costs a few us each: ~4000 launches per apply for a 1000 x 1000 Poisson
// grid in natural order).
//
// No deadlock: a block takes its place in the level order from a global counter (atomicAdd at
// its start), not from blockIdx, so every row before it belongs to a block that has started and
// stays resident until it finishes; a row waits only on rows earlier in the level order (a
// topological order). No memset per solve: ready[] holds the generation of the solve that wrote
// it (reset only when the 32-bit generation wraps) and the counter only grows (this solve's
// blocks are numbered from the value it had before the launch).
//
// Vendor solve (vendor_sptrsv): cuSPARSE SpSV; descriptors, buffer and analysis made once by
// vendor_sptrsv_analysis and kept in the plan.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/kernels/sptrsv_kernels.hpp"
#include "cuda/complex.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "cuda/vendor_handles.hpp"

namespace portla::kernels::cuda {
namespace {

// 4 warps = 4 rows per block: small blocks keep the dynamic row assignment fine-grained (not
// measured; `portla bench --kernel ilu0-apply` on an H100 is the measurement to decide it).
constexpr unsigned kSolveBlock = 128;
constexpr unsigned kRowsPerBlock = kSolveBlock / 32;

struct SyncFreePlan : SptrsvPlan {
    Array<std::uint32_t> ready;                // ready[i] == generation: x_i of this solve is final
    Array<unsigned long long> blocks_started;  // over every solve of this plan
    std::uint32_t generation = 0;
    unsigned long long first_block = 0;  // the counter's value before the next launch
};

template <typename T>
__global__ void __launch_bounds__(kSolveBlock)
    sptrsv_sync_free_kernel(std::size_t n, bool lower, bool unit_diagonal,
                            const std::int32_t* __restrict__ row_ptrs,
                            const std::int32_t* __restrict__ col_idxs, const T* __restrict__ values,
                            const std::int32_t* __restrict__ level_rows, const T* __restrict__ b,
                            T* x, std::uint32_t* ready, unsigned long long* blocks_started,
                            unsigned long long first_block, std::uint32_t generation) {
    __shared__ unsigned long long place;  // this block's place in the level order
    if (threadIdx.x == 0) place = atomicAdd(blocks_started, 1ull) - first_block;
    __syncthreads();
    const std::size_t position = place * kRowsPerBlock + threadIdx.x / 32;
    if (position >= n) return;  // warp-uniform
    const unsigned lane = threadIdx.x & 31u;
    const std::int32_t row = level_rows[position];
    std::int32_t begin = row_ptrs[row], end = row_ptrs[row + 1];
    T diag = T(1);
    if (!unit_diagonal) diag = lower ? values[--end] : values[begin++];
    // sum = sum_{j != i} a_ij x_j, each x_j read once final.
    T sum = T(0);
    for (std::int32_t k = begin + lane; k < end; k += 32) {
        const std::int32_t j = col_idxs[k];
        ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> flag(ready[j]);
        while (flag.load(::cuda::memory_order_acquire) != generation) {
        }
        sum = madd(sum, values[k], ldcg(x + j));  // L2: never a stale line of L1
    }
    sum = warp_sum(sum);
    if (lane == 0) {
        const T xi = b[row] - sum;
        x[row] = unit_diagonal ? xi : xi / diag;
        ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> flag(ready[row]);
        flag.store(generation, ::cuda::memory_order_release);
    }
}

}  // namespace

template <typename T>
std::unique_ptr<SptrsvPlan> sptrsv_analysis(tag, const Executor& exec,
                                            const TriangularMatrix<T>& a) {
    auto plan = std::make_unique<SyncFreePlan>();
    plan->ready = Array<std::uint32_t>(exec, a.rows);
    plan->blocks_started = Array<unsigned long long>(exec, 1);
    activate(exec.device_id());
    if (a.rows > 0)
        PORTLA_CUDA_CHECK(cudaMemsetAsync(plan->ready.data(), 0, a.rows * sizeof(std::uint32_t),
                                          stream_of(exec)));
    PORTLA_CUDA_CHECK(cudaMemsetAsync(plan->blocks_started.data(), 0, sizeof(unsigned long long),
                                      stream_of(exec)));
    return plan;
}

template <typename T>
void sptrsv(tag, const Executor& exec, const TriangularMatrix<T>& a, SptrsvPlan* plan_base,
            const_view<T> b, view<T> x) {
    const std::size_t n = a.rows;
    if (n == 0) return;
    auto& plan = static_cast<SyncFreePlan&>(*plan_base);  // made by sptrsv_analysis above
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    if (++plan.generation == 0) {  // wrapped: no stale flag may equal the new generation
        PORTLA_CUDA_CHECK(cudaMemsetAsync(plan.ready.data(), 0, n * sizeof(std::uint32_t), stream));
        plan.generation = 1;
    }
    const unsigned long long blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
    sptrsv_sync_free_kernel<device_t<T>><<<static_cast<unsigned>(blocks), kSolveBlock, 0, stream>>>(
        n, a.lower, a.unit_diagonal, a.row_ptrs.data, a.col_idxs.data, device_ptr(a.values.data),
        a.level_rows.data, device_ptr(b.data), device_ptr(x.data), plan.ready.data(),
        plan.blocks_started.data(), plan.first_block, plan.generation);
    PORTLA_CUDA_CHECK_LAUNCH();
    plan.first_block += blocks;  // after the check: a launch that failed started no block
}

// ---- cuSPARSE SpSV ----

namespace {

struct SpsvPlan : SptrsvPlan {
    int device = 0;
    bool identity = false;  // unit diagonal and nothing else stored: x = b
    cusparseSpMatDescr_t matrix = nullptr;
    cusparseSpSVDescr_t spsv = nullptr;
    void* buffer = nullptr;
    // Errors dropped: a destructor. cudaFree waits for the device, so a buffer still used by a
    // solve in flight is released only after it.
    ~SpsvPlan() override {
        if (cudaSetDevice(device) == cudaSuccess) {
            if (spsv) (void)PORTLA_VENDOR(cusparse, cusparseSpSV_destroyDescr)(spsv);
            if (matrix) (void)PORTLA_VENDOR(cusparse, cusparseDestroySpMat)(matrix);
            if (buffer) (void)cudaFree(buffer);
        }
        (void)cudaGetLastError();
    }
};

// Destroys the dense-vector descriptors of one call, also when cuSPARSE throws.
struct DenseVectors {
    cusparseConstDnVecDescr_t b = nullptr;
    cusparseDnVecDescr_t x = nullptr;
    DenseVectors() = default;
    DenseVectors(const DenseVectors&) = delete;
    DenseVectors& operator=(const DenseVectors&) = delete;
    ~DenseVectors() {
        if (b) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(b);
        if (x) (void)PORTLA_VENDOR(cusparse, cusparseDestroyDnVec)(x);
    }
};

constexpr cusparseSpSVAlg_t kSpsvAlg = CUSPARSE_SPSV_ALG_DEFAULT;

}  // namespace

template <typename T>
std::unique_ptr<SptrsvPlan> vendor_sptrsv_analysis(tag, const Executor& exec,
                                                   const TriangularMatrix<T>& a) {
    auto plan = std::make_unique<SpsvPlan>();
    plan->device = exec.device_id();
    const std::size_t n = a.rows;
    plan->identity = a.unit_diagonal && a.values.size == 0;
    if (n == 0 || plan->identity) return plan;
    cusparseHandle_t handle = cusparse_handle(exec);  // makes the device current
    const auto n64 = static_cast<std::int64_t>(n);
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseCreateCsr)(
        &plan->matrix, n64, n64, static_cast<std::int64_t>(a.values.size),
        const_cast<std::int32_t*>(a.row_ptrs.data), const_cast<std::int32_t*>(a.col_idxs.data),
        const_cast<T*>(a.values.data), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    cusparseFillMode_t fill = a.lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag =
        a.unit_diagonal ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMatSetAttribute)(
        plan->matrix, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)));
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpMatSetAttribute)(
        plan->matrix, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof(diag)));
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpSV_createDescr)(&plan->spsv));
    // The analysis needs vectors for their type and size only: scratch, zeroed.
    Array<T> b(exec, n), x(exec, n);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(b.data(), 0, n * sizeof(T), stream_of(exec)));
    PORTLA_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, n * sizeof(T), stream_of(exec)));
    DenseVectors v;
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateConstDnVec)(&v.b, n64, b.data(), data_type<T>()));
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateDnVec)(&v.x, n64, x.data(), data_type<T>()));
    const T one = 1;
    std::size_t bytes = 0;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpSV_bufferSize)(
        handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, plan->matrix, v.b, v.x, data_type<T>(),
        kSpsvAlg, plan->spsv, &bytes));
    if (bytes > 0) PORTLA_CUDA_CHECK(cudaMalloc(&plan->buffer, bytes));
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpSV_analysis)(
        handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, plan->matrix, v.b, v.x, data_type<T>(),
        kSpsvAlg, plan->spsv, plan->buffer));
    // b and x are freed on return: the analysis must be done with them first.
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return plan;
}

template <typename T>
void vendor_sptrsv(tag, const Executor& exec, const TriangularMatrix<T>& a, SptrsvPlan& plan_base,
                   const_view<T> b, view<T> x) {
    const std::size_t n = a.rows;
    if (n == 0) return;
    auto& plan = static_cast<SpsvPlan&>(plan_base);  // made by vendor_sptrsv_analysis above
    if (plan.identity) {
        activate(exec.device_id());
        PORTLA_CUDA_CHECK(cudaMemcpyAsync(x.data, b.data, n * sizeof(T), cudaMemcpyDeviceToDevice,
                                          stream_of(exec)));
        return;
    }
    cusparseHandle_t handle = cusparse_handle(exec);
    const auto n64 = static_cast<std::int64_t>(n);
    DenseVectors v;
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateConstDnVec)(&v.b, n64, b.data, data_type<T>()));
    PORTLA_CUSPARSE_CHECK(
        PORTLA_VENDOR(cusparse, cusparseCreateDnVec)(&v.x, n64, x.data, data_type<T>()));
    const T one = 1;
    PORTLA_CUSPARSE_CHECK(PORTLA_VENDOR(cusparse, cusparseSpSV_solve)(
        handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, plan.matrix, v.b, v.x, data_type<T>(),
        kSpsvAlg, plan.spsv));
}

PORTLA_INSTANTIATE_SPTRSV_KERNELS(double);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(float);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::cuda
