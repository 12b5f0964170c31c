// Sequential vector kernels: obviously correct, the oracle for every other backend.
// Reductions accumulate in double with Neumaier's compensated summation whatever T is: the
// oracle's error (about 2 eps |sum|) is negligible next to the backends' it judges.
#include <cmath>

#include "core/kernels/blas1_kernels.hpp"

namespace portla::kernels::reference {
namespace {

template <typename T>
double sum_of_products(const_view<T> x, const_view<T> y) {
    double sum = 0.0, compensation = 0.0;
    for (std::size_t i = 0; i < x.size; ++i) {
        const double term = double(x[i]) * double(y[i]);
        const double t = sum + term;
        compensation += std::abs(sum) >= std::abs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    return sum + compensation;
}

}  // namespace

#define PORTLA_REFERENCE_BLAS1(T)                                                                 \
    PORTLA_DECLARE_FILL_KERNEL(T) {                                                               \
        for (auto& v : x) v = value;                                                              \
    }                                                                                             \
    PORTLA_DECLARE_COPY_KERNEL(T) {                                                               \
        for (std::size_t i = 0; i < x.size; ++i) y[i] = x[i];                                     \
    }                                                                                             \
    PORTLA_DECLARE_AXPBY_KERNEL(T) {                                                              \
        /* b == 0 never reads y (the BLAS convention): y may hold garbage */                      \
        for (std::size_t i = 0; i < x.size; ++i) y[i] = a * x[i] + (b == T{0} ? T{0} : b * y[i]); \
    }                                                                                             \
    PORTLA_DECLARE_POINTWISE_MUL_KERNEL(T) {                                                      \
        for (std::size_t i = 0; i < x.size; ++i) z[i] = x[i] * y[i];                              \
    }                                                                                             \
    PORTLA_DECLARE_DOT_KERNEL(T) { result[0] = static_cast<T>(sum_of_products(x, y)); }           \
    PORTLA_DECLARE_NORM2_KERNEL(T) {                                                              \
        result[0] = static_cast<T>(std::sqrt(sum_of_products(x, x)));                             \
    }                                                                                             \
    PORTLA_DECLARE_FUSED_CG_UPDATE_KERNEL(T) {                                                    \
        for (std::size_t i = 0; i < r.size; ++i) {                                                \
            x[i] += alpha * p[i];                                                                 \
            r[i] -= alpha * q[i];                                                                 \
        }                                                                                         \
        rr[0] = static_cast<T>(sum_of_products<T>(r, r));                                         \
    }

PORTLA_REFERENCE_BLAS1(double)
PORTLA_REFERENCE_BLAS1(float)

}  // namespace portla::kernels::reference
