// OpenMP vector kernels. Each thread runs a plain serial loop over one contiguous chunk (static
// split): 23-24 GB/s for axpby on this 2-core VM where `parallel for simd` over a lambda body
// reached 16 GB/s (2026-11-21, 2^25 doubles; OpenBLAS daxpy 21-23 GB/s in the same runs).
// Below `parallel_threshold()` elements the loops run serially outside any OpenMP construct.
// copy, axpby, dot, norm2 and the fused CG update take their team size from tuning::launch_for
// (LaunchConfig::threads: the caller's when set, else the CPU's tuning profile; 0 keeps the
// behaviour above).
#include <array>
#include <algorithm>
#include <cmath>
#include <complex>

#include "common/scalar.hpp"
#include "common/scaled_norm.hpp"
#include "core/kernels/blas1_kernels.hpp"
#include "omp/parallel.hpp"
#include "portla/tuning.hpp"

// Serial chunk loops are multi-versioned (PORTLA_SIMD_CLONES): axpby 27 vs 23 GB/s on this VM
// (2 threads, 2^25 doubles).
namespace portla::kernels::omp {
namespace simd {  // external linkage: multi-versioned functions are resolved through an ifunc

template <typename T>
PORTLA_SIMD_CLONES void fill_serial(std::size_t n, T* __restrict x, T value) {
    for (std::size_t i = 0; i < n; ++i) x[i] = value;
}
template <typename T>
PORTLA_SIMD_CLONES void copy_serial(std::size_t n, const T* __restrict x, T* __restrict y) {
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
}
template <typename T>
PORTLA_SIMD_CLONES void axpby_serial(std::size_t n, T a, const T* __restrict x, T b,
                                     T* __restrict y) {
    if (b == T{0}) {  // never read y (the BLAS convention): it may hold garbage
        for (std::size_t i = 0; i < n; ++i) y[i] = a * x[i];
        return;
    }
    for (std::size_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
}
template <typename T>
PORTLA_SIMD_CLONES void pointwise_mul_serial(std::size_t n, const T* x, const T* y, T* z) {
    for (std::size_t i = 0; i < n; ++i) z[i] = x[i] * y[i];  // z may alias x or y
}
// Reductions accumulate in double (free for memory-bound loops; float sums stay accurate).
// Eight independent partial sums, multi-versioned: one accumulator chains every add on the
// previous one (4-cycle latency) and leaves too few loads in flight. The single-accumulator
// `omp simd` version reached 0.83-0.98x OpenBLAS ddot on 2 cores and 0.56-0.98x on 16; eight sums
// in the AVX-512 clone stream like OpenBLAS on 2 cores (docs/performance.md, "Vector kernels").
// Complex values (common/scalar.hpp): conj(x_i) y_i in complex of double.
template <typename T>
PORTLA_SIMD_CLONES common::wide_t<T> dot_serial(std::size_t n, const T* __restrict x,
                                                const T* __restrict y) {
    using common::conj;
    using common::widen;
    constexpr std::size_t lanes = 8;
    common::wide_t<T> s[lanes] = {};
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j < lanes; ++j) s[j] += widen(conj(x[i + j])) * widen(y[i + j]);
    for (; i < n; ++i) s[0] += widen(conj(x[i])) * widen(y[i]);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
template <typename T>
PORTLA_SIMD_CLONES double fused_cg_update_serial(std::size_t n, T alpha, const T* __restrict p,
                                                 const T* __restrict q, T* __restrict x,
                                                 T* __restrict r) {
    double s0 = 0, s1 = 0;
    std::size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        x[i] += alpha * p[i];
        x[i + 1] += alpha * p[i + 1];
        const T r0 = r[i] - alpha * q[i], r1 = r[i + 1] - alpha * q[i + 1];
        r[i] = r0;
        r[i + 1] = r1;
        s0 += common::abs2(common::widen(r0));
        s1 += common::abs2(common::widen(r1));
    }
    for (; i < n; ++i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        s0 += common::abs2(common::widen(r[i]));
    }
    return s0 + s1;
}

}  // namespace simd

namespace {

using namespace simd;

// Threads of the team of `kernel` on n elements: 1 runs serially; 0 (the untuned default) is
// serial below parallel_threshold() and every OpenMP thread above.
int team_threads(const Executor& exec, tuning::Kernel kernel, std::size_t n) {
    const int threads = tuning::launch_for(exec, kernel, n).threads;
    if (threads == 0 && n < parallel_threshold()) return 1;
    return threads;
}
int untuned_threads(std::size_t n) { return n < parallel_threshold() ? 1 : 0; }

// chunk(begin, end) once per thread over a static split of [0, n), on `threads` threads
// (team_threads).
template <typename Chunk>
void for_chunks(int threads, std::size_t n, Chunk chunk) {
    if (threads == 1) return chunk(std::size_t{0}, n);
#pragma omp parallel num_threads(team_size(threads))
    {
        const auto [begin, end] = thread_range(n);
        chunk(begin, end);
    }
}

// The sum over threads of chunk(begin, end) (each a double), on `threads` threads.
template <typename Chunk>
double sum_chunks(int threads, std::size_t n, Chunk chunk) {
    if (threads == 1) return chunk(std::size_t{0}, n);
    return ordered_sums<1>(true, threads, [&](std::array<double, 1>& sum) {
        const auto [begin, end] = thread_range(n);
        sum[0] += chunk(begin, end);
    })[0];
}

template <typename T>
common::wide_t<T> sum_of_products(int threads, const_view<T> x, const_view<T> y) {
    if constexpr (common::is_complex_v<T>) {
        if (threads == 1) return dot_serial(x.size, x.data, y.data);
        const auto sums = ordered_sums<2>(true, threads, [&](std::array<double, 2>& sum) {
            const auto [begin, end] = thread_range(x.size);
            const std::complex<double> part =
                dot_serial(end - begin, x.data + begin, y.data + begin);
            sum[0] += part.real();
            sum[1] += part.imag();
        });
        return {sums[0], sums[1]};
    } else {
        return sum_chunks(threads, x.size, [&](std::size_t b, std::size_t e) {
            return dot_serial(e - b, x.data + b, y.data + b);
        });
    }
}

}  // namespace

template <typename T>
void fill(tag, const Executor&, view<T> x, T value) {
    for_chunks(untuned_threads(x.size), x.size,
               [&](std::size_t b, std::size_t e) { fill_serial(e - b, x.data + b, value); });
}

template <typename T>
void copy(tag, const Executor& exec, const_view<T> x, view<T> y) {
    for_chunks(team_threads(exec, tuning::Kernel::copy, x.size), x.size,
               [&](std::size_t b, std::size_t e) { copy_serial(e - b, x.data + b, y.data + b); });
}

template <typename T>
void axpby(tag, const Executor& exec, T a, const_view<T> x, T b, view<T> y) {
    for_chunks(team_threads(exec, tuning::Kernel::axpby, x.size), x.size,
               [&](std::size_t b_, std::size_t e) {
                   axpby_serial(e - b_, a, x.data + b_, b, y.data + b_);
               });
}

template <typename T>
void pointwise_mul(tag, const Executor&, const_view<T> x, const_view<T> y, view<T> z) {
    for_chunks(untuned_threads(x.size), x.size, [&](std::size_t b, std::size_t e) {
        pointwise_mul_serial(e - b, x.data + b, y.data + b, z.data + b);
    });
}

template <typename T>
void dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    result[0] =
        common::narrow<T>(sum_of_products(team_threads(exec, tuning::Kernel::dot, x.size), x, y));
}

// The unscaled sum of squares (SIMD, one pass) when it is trustworthy; Blue's scaled sums, a
// second pass, otherwise (a tiny, zero or infinite sum of a vector whose norm is representable).
template <typename T>
void norm2(tag, const Executor& exec, const_view<T> x, view<T> result) {
    if constexpr (common::is_complex_v<T>) {
        // ||x|| of n complex values is that of the 2n real values of their parts.
        using R = common::real_t<T>;
        R norm{};
        norm2<R>(tag{}, exec, const_view<R>(reinterpret_cast<const R*>(x.data), 2 * x.size),
                 view<R>(&norm, 1));
        result[0] = T(norm);
    } else {
        const double sum = sum_of_products(team_threads(exec, tuning::Kernel::norm2, x.size), x, x);
        if (common::sum_of_squares_is_accurate(sum)) {
            result[0] = static_cast<T>(std::sqrt(sum));
            return;
        }
        const bool parallel = x.size >= parallel_threshold();
        const auto sums = ordered_sums<3>(parallel, 0, [&](std::array<double, 3>& s) {
            const auto [begin, end] = thread_range(x.size);
            common::ScaledSumOfSquares<double> part;
            for (std::size_t i = begin; i < end; ++i) part.add(std::abs(double(x[i])));
            s[0] += part.small;
            s[1] += part.medium;
            s[2] += part.big;
        });
        const common::ScaledSumOfSquares<double> total{sums[0], sums[1], sums[2]};
        result[0] = static_cast<T>(total.finish());
    }
}

template <typename T>
void invert_diagonal(tag, const Executor&, view<T> d, view<unsigned long long> first_bad) {
    unsigned long long bad = ~0ull;
    const bool parallel = d.size >= parallel_threshold();
#pragma omp parallel for schedule(static) reduction(min : bad) if (parallel)
    for (std::size_t i = 0; i < d.size; ++i) {
        if (d[i] == T{0} || !common::is_finite(d[i]))
            bad = std::min<unsigned long long>(bad, i);
        else
            d[i] = T{1} / d[i];
    }
    if (bad != ~0ull) first_bad[0] = bad;
}

template <typename T>
void fused_cg_update(tag, const Executor& exec, T alpha, const_view<T> p, const_view<T> q,
                     view<T> x, view<T> r, view<T> rr) {
    const int threads = team_threads(exec, tuning::Kernel::fused_cg, r.size);
    rr[0] = common::narrow<T>(sum_chunks(threads, r.size, [&](std::size_t b, std::size_t e) {
        return fused_cg_update_serial(e - b, alpha, p.data + b, q.data + b, x.data + b, r.data + b);
    }));
}

PORTLA_INSTANTIATE_BLAS1_KERNELS(double);
PORTLA_INSTANTIATE_BLAS1_KERNELS(float);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<float>);

}  // namespace portla::kernels::omp
