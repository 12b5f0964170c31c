// Sequential kernels of the dominant-eigenpair iteration: obviously correct, the oracle for the
// other backends. Sums accumulate in double with Neumaier's compensated summation whatever T is
// (error about 2 eps |sum|); maxima are exact in any order.
#include <cmath>
#include <limits>

#include "core/kernels/perron_kernels.hpp"

namespace portla::kernels::reference {
namespace {

// sum_j row[j] * (w ? w[j] : 1), compensated, in double
template <typename T>
double compensated_sum(std::size_t n, const T* row, const T* w) {
    double sum = 0.0, compensation = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
        const double term = w ? double(row[j]) * double(w[j]) : double(row[j]);
        const double t = sum + term;
        compensation += std::abs(sum) >= std::abs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    return sum + compensation;
}

// max_i f(i) over i < n, NaN as soon as one f(i) is NaN; 0 for n = 0
template <typename T, typename F>
T max_of(std::size_t n, F f) {
    T m = T(0);
    for (std::size_t i = 0; i < n; ++i) {
        const T x = f(i);
        if (std::isnan(x)) return std::numeric_limits<T>::quiet_NaN();
        if (x > m) m = x;
    }
    return m;
}

}  // namespace

template <typename T>
void perron_row_sums(tag, const Executor&, eigen::ReductionVariant, std::size_t n, const_view<T> a,
                     view<T> s) {
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<T>(compensated_sum<T>(n, a.data + i * n, nullptr));
}

template <typename T>
void perron_weighted_row_sums(tag, const Executor&, eigen::ReductionVariant, std::size_t n,
                              const_view<T> a, const_view<T> v, view<T> s) {
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<T>(compensated_sum<T>(n, a.data + i * n, v.data) / v[i]);
}

template <typename T>
void perron_max(tag, const Executor&, eigen::ReductionVariant, const_view<T> x, view<T> result) {
    result[0] = max_of<T>(x.size, [&](std::size_t i) { return x[i]; });
}

template <typename T>
void perron_scale(tag, const Executor&, const_view<T> s, const_view<T> m, view<T> v) {
    for (std::size_t i = 0; i < v.size; ++i) v[i] = v[i] * (s[i] / m[0]);
}

template <typename T>
void perron_transform(tag, const Executor&, std::size_t n, const_view<T> s, view<T> a) {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) a[i * n + j] = a[i * n + j] * s[j] / s[i];
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
    for (std::size_t i = 0; i < n; ++i) {
        T* row = a.data + i * n;
        for (std::size_t j = 0; j < n; ++j) row[j] = row[j] * s[j] / s[i];
        s_next[i] = static_cast<T>(compensated_sum<T>(n, row, nullptr));
    }
}

PORTLA_INSTANTIATE_PERRON_KERNELS(double);
PORTLA_INSTANTIATE_PERRON_KERNELS(float);

}  // namespace portla::kernels::reference
