// Sequential vector kernels: obviously correct, the oracle for every other backend.
// Reductions accumulate in double with Neumaier's compensated summation whatever T is: the
// oracle's error (about 2 eps |sum|) is negligible next to the backends' it judges. Complex
// values (common/scalar.hpp) sum each component so; dot conjugates x.
#include <cmath>

#include "common/scalar.hpp"
#include "common/scaled_norm.hpp"
#include "core/kernels/blas1_kernels.hpp"

namespace portla::kernels::reference {
namespace {

// Neumaier's compensated sum of one real component.
struct CompensatedSum {
    double sum = 0.0, compensation = 0.0;
    void add(double term) {
        const double t = sum + term;
        compensation += std::abs(sum) >= std::abs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    double value() const { return sum + compensation; }
};

// x^H y = sum conj(x_i) y_i (x . y for real values), each component summed compensated.
template <typename T>
common::wide_t<T> sum_of_products(const_view<T> x, const_view<T> y) {
    CompensatedSum re, im;
    for (std::size_t i = 0; i < x.size; ++i) {
        const common::wide_t<T> term = common::widen(common::conj(x[i])) * common::widen(y[i]);
        if constexpr (common::is_complex_v<T>) {
            re.add(term.real());
            im.add(term.imag());
        } else {
            re.add(term);
        }
    }
    if constexpr (common::is_complex_v<T>)
        return {re.value(), im.value()};
    else
        return re.value();
}

// sum |x_i|^2, compensated.
template <typename T>
double sum_of_squares(const_view<T> x) {
    CompensatedSum s;
    for (std::size_t i = 0; i < x.size; ++i) {
        if constexpr (common::is_complex_v<T>) {
            s.add(double(x[i].real()) * double(x[i].real()));
            s.add(double(x[i].imag()) * double(x[i].imag()));
        } else {
            s.add(double(x[i]) * double(x[i]));
        }
    }
    return s.value();
}

}  // namespace

template <typename T>
void fill(tag, const Executor&, view<T> x, T value) {
    for (auto& v : x) v = value;
}

template <typename T>
void copy(tag, const Executor&, const_view<T> x, view<T> y) {
    for (std::size_t i = 0; i < x.size; ++i) y[i] = x[i];
}

template <typename T>
void axpby(tag, const Executor&, T a, const_view<T> x, T b, view<T> y) {
    // b == 0 never reads y (the BLAS convention): y may hold garbage
    for (std::size_t i = 0; i < x.size; ++i) y[i] = a * x[i] + (b == T{0} ? T{0} : b * y[i]);
}

template <typename T>
void pointwise_mul(tag, const Executor&, const_view<T> x, const_view<T> y, view<T> z) {
    for (std::size_t i = 0; i < x.size; ++i) z[i] = x[i] * y[i];
}

template <typename T>
void dot(tag, const Executor&, const_view<T> x, const_view<T> y, view<T> result) {
    result[0] = common::narrow<T>(sum_of_products(x, y));
}

// The compensated sum of squares when it is trustworthy; Blue's scaled sums otherwise (a tiny,
// zero or infinite sum of a vector whose norm is representable).
template <typename T>
void norm2(tag, const Executor&, const_view<T> x, view<T> result) {
    const double sum = sum_of_squares(x);
    if (common::sum_of_squares_is_accurate(sum)) {
        result[0] = common::narrow<T>(std::sqrt(sum));
        return;
    }
    common::ScaledSumOfSquares<double> scaled;
    for (std::size_t i = 0; i < x.size; ++i) {
        if constexpr (common::is_complex_v<T>) {  // |x_i|^2 = re^2 + im^2: two squares
            scaled.add(std::abs(double(x[i].real())));
            scaled.add(std::abs(double(x[i].imag())));
        } else {
            scaled.add(std::abs(double(x[i])));
        }
    }
    result[0] = common::narrow<T>(scaled.finish());
}

template <typename T>
void invert_diagonal(tag, const Executor&, view<T> d, view<unsigned long long> first_bad) {
    for (std::size_t i = 0; i < d.size; ++i) {
        if (d[i] == T{0} || !common::is_finite(d[i])) {
            first_bad[0] = i;
            return;
        }
        d[i] = T{1} / d[i];
    }
}

template <typename T>
void fused_cg_update(tag, const Executor&, T alpha, const_view<T> p, const_view<T> q, view<T> x,
                     view<T> r, view<T> rr) {
    for (std::size_t i = 0; i < r.size; ++i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
    }
    rr[0] = common::narrow<T>(sum_of_squares<T>(r));
}

PORTLA_INSTANTIATE_BLAS1_KERNELS(double);
PORTLA_INSTANTIATE_BLAS1_KERNELS(float);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<float>);

}  // namespace portla::kernels::reference
