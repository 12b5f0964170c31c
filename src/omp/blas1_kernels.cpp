// OpenMP vector kernels. Below `parallel_threshold()` elements the loops run serially: forking a
// team costs more than the work (threshold to be measured per machine by `portla bench`).
#include <cmath>

#include "core/kernels/blas1_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

// Reductions accumulate in double: free for memory-bound loops, and float sums stay accurate.
template <typename T>
double sum_of_products(const_view<T> x, const_view<T> y) {
    const std::size_t n = x.size;
    const T* __restrict xp = x.data;
    const T* __restrict yp = y.data;
    double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) sum += double(xp[i]) * double(yp[i]);
    return sum;
}

template <typename T>
void fill_impl(view<T> x, T value) {
    T* __restrict xp = x.data;
    const std::size_t n = x.size;
#pragma omp parallel for simd schedule(static) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) xp[i] = value;
}

template <typename T>
void copy_impl(const_view<T> x, view<T> y) {
    const T* __restrict xp = x.data;
    T* __restrict yp = y.data;
    const std::size_t n = x.size;
#pragma omp parallel for simd schedule(static) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) yp[i] = xp[i];
}

template <typename T>
void axpby_impl(T a, const_view<T> x, T b, view<T> y) {
    const T* __restrict xp = x.data;
    T* __restrict yp = y.data;
    const std::size_t n = x.size;
    if (b == T{0}) {  // never read y (the BLAS convention): it may hold garbage
#pragma omp parallel for simd schedule(static) if (n >= parallel_threshold())
        for (std::size_t i = 0; i < n; ++i) yp[i] = a * xp[i];
        return;
    }
#pragma omp parallel for simd schedule(static) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) yp[i] = a * xp[i] + b * yp[i];
}

template <typename T>
void pointwise_mul_impl(const_view<T> x, const_view<T> y, view<T> z) {
    // z may alias x or y: no __restrict here.
    const std::size_t n = x.size;
#pragma omp parallel for simd schedule(static) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) z.data[i] = x.data[i] * y.data[i];
}

template <typename T>
T fused_cg_update_impl(T alpha, const_view<T> p, const_view<T> q, view<T> x, view<T> r) {
    const T* __restrict pp = p.data;
    const T* __restrict qp = q.data;
    T* __restrict xp = x.data;
    T* __restrict rp = r.data;
    const std::size_t n = r.size;
    double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum) if (n >= parallel_threshold())
    for (std::size_t i = 0; i < n; ++i) {
        xp[i] += alpha * pp[i];
        const T ri = rp[i] - alpha * qp[i];
        rp[i] = ri;
        sum += double(ri) * double(ri);
    }
    return static_cast<T>(sum);
}

}  // namespace

#define PORTLA_OMP_BLAS1(T)                                                                \
    PORTLA_DECLARE_FILL_KERNEL(T) { fill_impl(x, value); }                                 \
    PORTLA_DECLARE_COPY_KERNEL(T) { copy_impl(x, y); }                                     \
    PORTLA_DECLARE_AXPBY_KERNEL(T) { axpby_impl(a, x, b, y); }                             \
    PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T) { pointwise_mul_impl(x, y, z); }                \
    PORTLA_DECLARE_DOT_KERNEL(T) { result[0] = static_cast<T>(sum_of_products(x, y)); }    \
    PORTLA_DECLARE_NORM2_KERNEL(T) {                                                       \
        result[0] = static_cast<T>(std::sqrt(sum_of_products(x, x)));                      \
    }                                                                                      \
    PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T) { rr[0] = fused_cg_update_impl(alpha, p, q, x, r); }

PORTLA_OMP_BLAS1(double)
PORTLA_OMP_BLAS1(float)

}  // namespace portla::kernels::omp
