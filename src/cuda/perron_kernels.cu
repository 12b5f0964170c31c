// Kernels of the dominant-eigenpair iteration on cuda, each reduction in the three published
// variants (ReductionVariant, a template parameter here):
//   atomic    every term is an atomic on its result (atomicAdd into the row sum, atomicMax
//             into the maximum)
//   subgroup  each thread sums its terms, a warp reduction (shuffles), one atomic per warp
//   local     warp results combined in shared memory, one atomic per work-group
// Results are zeroed (cudaMemsetAsync) before the kernel that accumulates into them.
//
// Matrix kernels (row sums, weighted row sums, transform, fused transform + row sums): one
// work-group per row, exec.launch().work_group_size threads; thread t takes columns t,
// t + blockDim, ... (each warp access one coalesced run), kBatch loads issued before their use.
// A row is a work-group's alone, so the weighted row sum can divide by v_i once its own
// atomics are done. Vector reductions (max, stop test): a grid-stride loop over at most one
// wave of work-groups.
//
// The maximum works on the bit patterns of non-negative values (IEEE 754 orders them like
// unsigned integers): NaN maps to the largest pattern, so a NaN anywhere wins, as in the
// reference; -0 and negative values map to +0. Maxima are exact in any order.
//
// The transform computes a * s_j / s_i exactly as the reference does (IEEE division), so the
// two agree to the bit; sums are in T, in the order each variant gives.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "core/kernels/perron_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"

namespace portla::kernels::cuda {
namespace {

using eigen::ReductionVariant;

constexpr int kBatch = 8;  // loads in flight per thread in the row kernels
// Every kernel launches with up to 1024 threads (LaunchConfig), so registers are capped at 64:
// without the bound the double transform asked for more and a 1024-thread launch failed
// (cudaErrorLaunchOutOfResources, H100, 2026-11-21).
constexpr int kMaxThreads = 1024;
constexpr unsigned kFullMask = 0xffffffffu;

// Sum: the row sums.
template <typename T>
struct SumOp {
    using Value = T;
    __device__ static Value identity() { return T(0); }
    __device__ static Value key(T x) { return x; }
    __device__ static Value combine(Value a, Value b) { return a + b; }
    __device__ static void atomic(Value* target, Value v) { atomicAdd(target, v); }
};

template <typename T>
struct Bits;
template <>
struct Bits<float> {
    using type = unsigned int;
    static constexpr type nan = 0x7fc00000u;
    __device__ static type of(float x) { return __float_as_uint(x); }
};
template <>
struct Bits<double> {
    using type = unsigned long long;
    static constexpr type nan = 0x7ff8000000000000ull;
    __device__ static type of(double x) { return static_cast<type>(__double_as_longlong(x)); }
};

// Max of non-negative values on their bit patterns (see the file comment).
template <typename T>
struct MaxOp {
    using Value = typename Bits<T>::type;
    __device__ static Value identity() { return 0; }
    __device__ static Value key(T x) {
        return x != x ? Bits<T>::nan : (x > T(0) ? Bits<T>::of(x) : 0);
    }
    __device__ static Value combine(Value a, Value b) { return a > b ? a : b; }
    __device__ static void atomic(Value* target, Value v) { atomicMax(target, v); }
};

template <typename Value>
__device__ __forceinline__ Value shuffle_down(Value v, int offset) {
    return __shfl_down_sync(kFullMask, v, offset);
}

template <typename Op>
__device__ __forceinline__ typename Op::Value warp_reduce(typename Op::Value v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v = Op::combine(v, shuffle_down(v, offset));
    return v;
}

// Adds a thread's term into *target as the variant says. For `atomic` the terms were already
// added one by one (see Accumulator), so nothing is left to do.
template <ReductionVariant Variant, typename Op>
__device__ __forceinline__ void reduce_into(typename Op::Value* target, typename Op::Value v) {
    using Value = typename Op::Value;
    if constexpr (Variant == ReductionVariant::subgroup) {
        v = warp_reduce<Op>(v);
        if ((threadIdx.x & 31u) == 0) Op::atomic(target, v);
    } else if constexpr (Variant == ReductionVariant::local) {
        extern __shared__ __align__(16) unsigned char shared_raw[];
        Value* warp_values = reinterpret_cast<Value*>(shared_raw);
        const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
        v = warp_reduce<Op>(v);
        if (lane == 0) warp_values[warp] = v;
        __syncthreads();
        if (warp == 0) {
            v = lane < (blockDim.x >> 5) ? warp_values[lane] : Op::identity();
            v = warp_reduce<Op>(v);
            if (lane == 0) Op::atomic(target, v);
        }
    }
}

// A thread's share of one reduction: every term an atomic (atomic variant), or a running
// partial handed to reduce_into at the end.
template <ReductionVariant Variant, typename Op>
struct Accumulator {
    typename Op::Value* target;
    typename Op::Value partial = Op::identity();
    __device__ void add(typename Op::Value v) {
        if constexpr (Variant == ReductionVariant::atomic)
            Op::atomic(target, v);
        else
            partial = Op::combine(partial, v);
    }
    __device__ void finish() { reduce_into<Variant, Op>(target, partial); }
};

// Row bodies: load(j, a, w) reads column j's operands, term(j, a, w) computes (and for the
// transforms stores) the new value and returns its contribution to the row's sum.
template <typename T>
struct RowSumBody {
    static constexpr bool reduces = true;
    const T* row;
    __device__ void load(std::size_t j, T& a, T&) const { a = row[j]; }
    __device__ T term(std::size_t, T a, T) const { return a; }
};

template <typename T>
struct WeightedRowSumBody {  // (A v)_i; divided by v_i at the end
    static constexpr bool reduces = true;
    const T* row;
    const T* v;
    __device__ void load(std::size_t j, T& a, T& w) const {
        a = row[j];
        w = __ldg(v + j);
    }
    __device__ T term(std::size_t, T a, T w) const { return a * w; }
};

template <typename T, bool Reduces>
struct TransformBody {  // a_ij = a_ij * s_j / s_i (and its sum, fused)
    static constexpr bool reduces = Reduces;
    T* row;
    const T* s;
    T si;
    __device__ void load(std::size_t j, T& a, T& w) const {
        a = row[j];
        w = __ldg(s + j);
    }
    __device__ T term(std::size_t j, T a, T w) const {
        const T x = a * w / si;
        row[j] = x;
        return x;
    }
};

// One work-group per row i = blockIdx.x; the row's sum goes into sums[i] by the variant.
template <ReductionVariant Variant, typename T, typename Body>
__device__ __forceinline__ void row_pass(std::size_t n, const Body& body, T* sum_target) {
    Accumulator<Variant, SumOp<T>> acc{sum_target};
    const std::size_t stride = blockDim.x;
    for (std::size_t start = threadIdx.x; start < n; start += stride * kBatch) {
        T a[kBatch], w[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const std::size_t j = start + b * stride;
            a[b] = T(0);
            w[b] = T(0);
            if (j < n) body.load(j, a[b], w[b]);
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const std::size_t j = start + b * stride;
            if (j < n) {
                const T x = body.term(j, a[b], w[b]);
                if constexpr (Body::reduces) acc.add(x);
            }
        }
    }
    if constexpr (Body::reduces) acc.finish();
}

template <ReductionVariant Variant, typename T>
__global__ void __launch_bounds__(kMaxThreads) row_sums_kernel(std::size_t n, const T* a, T* s) {
    const std::size_t i = blockIdx.x;
    row_pass<Variant>(n, RowSumBody<T>{a + i * n}, s + i);
}

template <ReductionVariant Variant, typename T>
__global__ void __launch_bounds__(kMaxThreads)
    weighted_row_sums_kernel(std::size_t n, const T* a, const T* v, T* s) {
    const std::size_t i = blockIdx.x;
    row_pass<Variant>(n, WeightedRowSumBody<T>{a + i * n, v}, s + i);
    // Every atomic of this work-group on s[i] (and no other work-group's) is done after the
    // fence and barrier; the atomic read sees their total at L2.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s[i] = atomicAdd(s + i, T(0)) / v[i];
}

template <ReductionVariant Variant, typename T>
__global__ void __launch_bounds__(kMaxThreads)
    fused_kernel(std::size_t n, const T* s, T* a, T* s_next) {
    const std::size_t i = blockIdx.x;
    row_pass<Variant>(n, TransformBody<T, true>{a + i * n, s, s[i]}, s_next + i);
}

template <typename T>
__global__ void __launch_bounds__(kMaxThreads) transform_kernel(std::size_t n, const T* s, T* a) {
    const std::size_t i = blockIdx.x;
    row_pass<ReductionVariant::local, T>(n, TransformBody<T, false>{a + i * n, s, s[i]}, nullptr);
}

// result = max_i f(i) over a grid-stride loop; f(i) >= 0 (NaN wins).
template <typename T>
struct Identity {
    const T* x;
    __device__ T operator()(std::size_t i, std::size_t) const { return x[i]; }
};
template <typename T>
struct NeighbourDifference {
    const T* s;
    __device__ T operator()(std::size_t i, std::size_t n) const {
        return fabs(s[i] - s[i + 1 == n ? 0 : i + 1]);
    }
};

template <ReductionVariant Variant, typename T, typename F>
__global__ void __launch_bounds__(kMaxThreads) max_kernel(std::size_t n, F f, T* result) {
    using Op = MaxOp<T>;
    Accumulator<Variant, Op> acc{reinterpret_cast<typename Op::Value*>(result)};
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        acc.add(Op::key(f(i, n)));
    acc.finish();
}

template <typename T>
__global__ void __launch_bounds__(kMaxThreads)
    scale_kernel(std::size_t n, const T* s, const T* m, T* v) {
    const T mv = *m;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        v[i] = v[i] * (s[i] / mv);
}

// Calls launch(std::integral_constant<ReductionVariant, v>) for the run-time variant.
template <typename Launch>
void with_variant(ReductionVariant variant, Launch launch) {
    switch (variant) {
        case ReductionVariant::atomic:
            return launch(std::integral_constant<ReductionVariant, ReductionVariant::atomic>{});
        case ReductionVariant::subgroup:
            return launch(std::integral_constant<ReductionVariant, ReductionVariant::subgroup>{});
        case ReductionVariant::local:
            return launch(std::integral_constant<ReductionVariant, ReductionVariant::local>{});
    }
}

struct Launch {
    unsigned blocks, threads;
    std::size_t shared_bytes;
};

// One work-group per row.
template <typename T>
Launch row_launch(const Executor& exec, std::size_t n) {
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    return {static_cast<unsigned>(n), threads, (threads / 32) * sizeof(T)};
}

// Enough work-groups to cover n, at most one wave.
template <typename T>
Launch vector_launch(const Executor& exec, std::size_t n) {
    activate(exec.device_id());
    const unsigned threads = static_cast<unsigned>(exec.launch().work_group_size);
    const std::size_t wave = resident_blocks(exec.device_id(), static_cast<int>(threads));
    const std::size_t blocks =
        std::max<std::size_t>(1, std::min((n + threads - 1) / threads, wave));
    return {static_cast<unsigned>(blocks), threads, (threads / 32) * sizeof(T)};
}

template <typename T>
void zero(const Executor& exec, T* p, std::size_t n) {
    PORTLA_CUDA_CHECK(
        cudaMemsetAsync(p, 0, n * sizeof(T), stream_of(exec)));  // all-zero bits: +0.0
}

template <typename T, typename F>
void max_impl(const Executor& exec, ReductionVariant variant, std::size_t n, F f, T* result) {
    const Launch l = vector_launch<T>(exec, n);
    zero(exec, result, 1);
    if (n == 0) return;
    with_variant(variant, [&](auto v) {
        max_kernel<decltype(v)::value, T>
            <<<l.blocks, l.threads, l.shared_bytes, stream_of(exec)>>>(n, f, result);
    });
    PORTLA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void perron_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant, std::size_t n,
                     const_view<T> a, view<T> s) {
    const Launch l = row_launch<T>(exec, n);
    zero(exec, s.data, n);
    with_variant(variant, [&](auto v) {
        row_sums_kernel<decltype(v)::value, T>
            <<<l.blocks, l.threads, l.shared_bytes, stream_of(exec)>>>(n, a.data, s.data);
    });
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void perron_weighted_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,
                              std::size_t n, const_view<T> a, const_view<T> v, view<T> s) {
    const Launch l = row_launch<T>(exec, n);
    zero(exec, s.data, n);
    with_variant(variant, [&](auto var) {
        weighted_row_sums_kernel<decltype(var)::value, T>
            <<<l.blocks, l.threads, l.shared_bytes, stream_of(exec)>>>(n, a.data, v.data, s.data);
    });
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void perron_fused_transform_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,
                                     std::size_t n, const_view<T> s, view<T> a, view<T> s_next) {
    const Launch l = row_launch<T>(exec, n);
    zero(exec, s_next.data, n);
    with_variant(variant, [&](auto v) {
        fused_kernel<decltype(v)::value, T>
            <<<l.blocks, l.threads, l.shared_bytes, stream_of(exec)>>>(n, s.data, a.data,
                                                                       s_next.data);
    });
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void perron_transform(tag, const Executor& exec, std::size_t n, const_view<T> s, view<T> a) {
    const Launch l = row_launch<T>(exec, n);
    transform_kernel<T><<<l.blocks, l.threads, 0, stream_of(exec)>>>(n, s.data, a.data);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void perron_scale(tag, const Executor& exec, const_view<T> s, const_view<T> m, view<T> v) {
    const Launch l = vector_launch<T>(exec, v.size);
    scale_kernel<T><<<l.blocks, l.threads, 0, stream_of(exec)>>>(v.size, s.data, m.data, v.data);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T>
void perron_max(tag, const Executor& exec, eigen::ReductionVariant variant, const_view<T> x,
                view<T> result) {
    max_impl<T>(exec, variant, x.size, Identity<T>{x.data}, result.data);
}

template <typename T>
void perron_stop_test(tag, const Executor& exec, eigen::ReductionVariant variant, const_view<T> s,
                      view<T> result) {
    max_impl<T>(exec, variant, s.size, NeighbourDifference<T>{s.data}, result.data);
}

PORTLA_INSTANTIATE_PERRON_KERNELS(double);
PORTLA_INSTANTIATE_PERRON_KERNELS(float);

}  // namespace portla::kernels::cuda
