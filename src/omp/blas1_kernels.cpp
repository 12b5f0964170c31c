// OpenMP vector kernels. Below `parallel_threshold()` elements the loops run serially and
// outside any OpenMP construct: forking (or even entering an if(false) region) costs more than
// the work.
#include <cmath>

#include "core/kernels/blas1_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

// body(i) for i in [0, n): serial below the threshold, else split statically over the team.
template <typename Body>
void for_each(std::size_t n, Body body) {
    if (n < parallel_threshold()) {
#pragma omp simd
        for (std::size_t i = 0; i < n; ++i) body(i);
        return;
    }
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) body(i);
}

// sum of term(i) in double (free for memory-bound loops; float sums stay accurate).
template <typename Term>
double sum_of(std::size_t n, Term term) {
    double sum = 0.0;
    if (n < parallel_threshold()) {
#pragma omp simd reduction(+ : sum)
        for (std::size_t i = 0; i < n; ++i) sum += term(i);
        return sum;
    }
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += term(i);
    return sum;
}

template <typename T>
double sum_of_products(const_view<T> x, const_view<T> y) {
    const T* __restrict xp = x.data;
    const T* __restrict yp = y.data;
    return sum_of(x.size, [=](std::size_t i) { return double(xp[i]) * double(yp[i]); });
}

template <typename T>
void axpby_impl(T a, const_view<T> x, T b, view<T> y) {
    const T* __restrict xp = x.data;
    T* __restrict yp = y.data;
    if (b == T{0})  // never read y (the BLAS convention): it may hold garbage
        for_each(x.size, [=](std::size_t i) { yp[i] = a * xp[i]; });
    else
        for_each(x.size, [=](std::size_t i) { yp[i] = a * xp[i] + b * yp[i]; });
}

template <typename T>
T fused_cg_update_impl(T alpha, const_view<T> p, const_view<T> q, view<T> x, view<T> r) {
    const T* __restrict pp = p.data;
    const T* __restrict qp = q.data;
    T* __restrict xp = x.data;
    T* __restrict rp = r.data;
    return static_cast<T>(sum_of(r.size, [=](std::size_t i) {
        xp[i] += alpha * pp[i];
        const T ri = rp[i] - alpha * qp[i];
        rp[i] = ri;
        return double(ri) * double(ri);
    }));
}

}  // namespace

#define PORTLA_OMP_BLAS1(T)                                                                    \
    PORTLA_DECLARE_FILL_KERNEL(T) {                                                            \
        T* __restrict xp = x.data;                                                             \
        for_each(x.size, [=](std::size_t i) { xp[i] = value; });                               \
    }                                                                                          \
    PORTLA_DECLARE_COPY_KERNEL(T) {                                                            \
        const T* __restrict xp = x.data;                                                       \
        T* __restrict yp = y.data;                                                             \
        for_each(x.size, [=](std::size_t i) { yp[i] = xp[i]; });                               \
    }                                                                                          \
    PORTLA_DECLARE_AXPBY_KERNEL(T) { axpby_impl(a, x, b, y); }                                 \
    PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T) {                                                   \
        /* z may alias x or y: no __restrict */                                                \
        for_each(x.size, [=](std::size_t i) { z.data[i] = x.data[i] * y.data[i]; });           \
    }                                                                                          \
    PORTLA_DECLARE_DOT_KERNEL(T) { result[0] = static_cast<T>(sum_of_products(x, y)); }        \
    PORTLA_DECLARE_NORM2_KERNEL(T) {                                                           \
        result[0] = static_cast<T>(std::sqrt(sum_of_products(x, x)));                          \
    }                                                                                          \
    PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T) { rr[0] = fused_cg_update_impl(alpha, p, q, x, r); }

PORTLA_OMP_BLAS1(double)
PORTLA_OMP_BLAS1(float)

}  // namespace portla::kernels::omp
