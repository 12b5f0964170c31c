// OpenMP kernels of the dominant-eigenpair iteration. The matrix kernels split the rows
// statically over the threads, one row at a time through a serial loop multi-versioned for
// AVX-512/AVX2 (PORTLA_SIMD_CLONES); row sums accumulate in double (free in a memory-bound
// loop). The transform uses the reference's expression a * s_j / s_i, so both agree to the bit.
// The vector reductions (max, stop test) are exact in any order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/perron_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace simd {  // external linkage: multi-versioned functions are resolved through an ifunc

template <typename T>
PORTLA_SIMD_CLONES double perron_row_sum(std::size_t n, const T* __restrict row) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::size_t j = 0; j < n; ++j) sum += double(row[j]);
    return sum;
}
template <typename T>
PORTLA_SIMD_CLONES double perron_weighted_row_sum(std::size_t n, const T* __restrict row,
                                                  const T* __restrict w) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::size_t j = 0; j < n; ++j) sum += double(row[j]) * double(w[j]);
    return sum;
}
// row[j] = row[j] * s[j] / si; returns the new row's sum
template <typename T>
PORTLA_SIMD_CLONES double perron_transform_row(std::size_t n, T* __restrict row,
                                               const T* __restrict s, T si) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::size_t j = 0; j < n; ++j) {
        const T x = row[j] * s[j] / si;
        row[j] = x;
        sum += double(x);
    }
    return sum;
}

}  // namespace simd

namespace {

using namespace simd;

// row(i) for every row i < n, rows split statically over the threads (serially for small A)
template <typename Row>
void for_rows(std::size_t n, Row row) {
    const bool parallel = n * n >= parallel_threshold();
#pragma omp parallel for schedule(static) if (parallel)
    for (std::size_t i = 0; i < n; ++i) row(i);
}

// max_i f(i) over i < n for f(i) >= 0: NaN when any f(i) is NaN, 0 for n = 0
template <typename T, typename F>
T max_of(std::size_t n, F f) {
    T m = T(0);
    bool nan = false;
    const bool parallel = n >= parallel_threshold();
#pragma omp parallel for simd schedule(static) reduction(max : m) reduction(|| : nan) if (parallel)
    for (std::size_t i = 0; i < n; ++i) {
        const T x = f(i);
        nan = nan || x != x;
        m = x > m ? x : m;
    }
    return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

}  // namespace

template <typename T>
void perron_row_sums(tag, const Executor&, eigen::ReductionVariant, std::size_t n, const_view<T> a,
                     view<T> s) {
    for_rows(n, [&](std::size_t i) { s[i] = T(perron_row_sum(n, a.data + i * n)); });
}

template <typename T>
void perron_weighted_row_sums(tag, const Executor&, eigen::ReductionVariant, std::size_t n,
                              const_view<T> a, const_view<T> v, view<T> s) {
    for_rows(n, [&](std::size_t i) {
        s[i] = T(perron_weighted_row_sum(n, a.data + i * n, v.data) / double(v[i]));
    });
}

template <typename T>
void perron_max(tag, const Executor&, eigen::ReductionVariant, const_view<T> x, view<T> result) {
    result[0] = max_of<T>(x.size, [&](std::size_t i) { return x[i]; });
}

template <typename T>
void perron_scale(tag, const Executor&, const_view<T> s, const_view<T> m, view<T> v) {
    const T mv = m[0];
    const bool parallel = v.size >= parallel_threshold();
#pragma omp parallel for simd schedule(static) if (parallel)
    for (std::size_t i = 0; i < v.size; ++i) v[i] = v[i] * (s[i] / mv);
}

template <typename T>
void perron_transform(tag, const Executor&, std::size_t n, const_view<T> s, view<T> a) {
    for_rows(n, [&](std::size_t i) { perron_transform_row(n, a.data + i * n, s.data, s[i]); });
}

template <typename T>
void perron_stop_test(tag, const Executor&, eigen::ReductionVariant, const_view<T> s,
                      view<T> result) {
    const std::size_t n = s.size;
    result[0] =
        max_of<T>(n, [&](std::size_t i) { return std::abs(s[i] - s[i + 1 == n ? 0 : i + 1]); });
}

template <typename T>
void perron_fused_transform_row_sums(tag, const Executor&, eigen::ReductionVariant, std::size_t n,
                                     const_view<T> s, view<T> a, view<T> s_next) {
    for_rows(n, [&](std::size_t i) {
        s_next[i] = T(perron_transform_row(n, a.data + i * n, s.data, s[i]));
    });
}

PORTLA_INSTANTIATE_PERRON_KERNELS(double);
PORTLA_INSTANTIATE_PERRON_KERNELS(float);

}  // namespace portla::kernels::omp
