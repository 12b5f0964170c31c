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

#define PORTLA_OMP_PERRON(T)                                                                     \
    PORTLA_DECLARE_PERRON_ROW_SUMS_KERNEL(T) {                                                   \
        for_rows(n, [&](std::size_t i) { s[i] = T(perron_row_sum(n, a.data + i * n)); });        \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_WEIGHTED_ROW_SUMS_KERNEL(T) {                                          \
        for_rows(n, [&](std::size_t i) {                                                         \
            s[i] = T(perron_weighted_row_sum(n, a.data + i * n, v.data) / double(v[i]));         \
        });                                                                                      \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_MAX_KERNEL(T) {                                                        \
        result[0] = max_of<T>(x.size, [&](std::size_t i) { return x[i]; });                      \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_SCALE_KERNEL(T) {                                                      \
        const T mv = m[0];                                                                       \
        const bool parallel = v.size >= parallel_threshold();                                    \
        _Pragma("omp parallel for simd schedule(static) if (parallel)") for (std::size_t i = 0;  \
                                                                             i < v.size; ++i)    \
            v[i] = v[i] * (s[i] / mv);                                                           \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_TRANSFORM_KERNEL(T) {                                                  \
        for_rows(n,                                                                              \
                 [&](std::size_t i) { perron_transform_row(n, a.data + i * n, s.data, s[i]); }); \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_STOP_TEST_KERNEL(T) {                                                  \
        const std::size_t n = s.size;                                                            \
        result[0] = max_of<T>(                                                                   \
            n, [&](std::size_t i) { return std::abs(s[i] - s[i + 1 == n ? 0 : i + 1]); });       \
    }                                                                                            \
    PORTLA_DECLARE_PERRON_FUSED_KERNEL(T) {                                                      \
        for_rows(n, [&](std::size_t i) {                                                         \
            s_next[i] = T(perron_transform_row(n, a.data + i * n, s.data, s[i]));                \
        });                                                                                      \
    }

PORTLA_OMP_PERRON(double)
PORTLA_OMP_PERRON(float)

}  // namespace portla::kernels::omp
