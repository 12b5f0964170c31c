// The value types of vectors and matrices, real (float, double) and complex (complex64 and
// complex128), seen through one set of traits, so that a kernel or a solver is written once for
// both. Valid C++17 and CUDA: on the host a complex value is std::complex<R>; in CUDA device code
// it is cuda::std::complex<R>, which has the same layout (two R, real part first, as C99's
// _Complex and NumPy's complex64/complex128), so a buffer of one is a buffer of the other.
//
// Conventions (those of BLAS, SciPy and PETSc): dot(x, y) = x^H y = sum conj(x_i) y_i, so that
// dot(x, x) = ||x||^2 is real; norms are real; reductions accumulate in wide_t (double, or
// complex of double).
#ifndef PORTLA_COMMON_SCALAR_HPP
#define PORTLA_COMMON_SCALAR_HPP

#include <cmath>
#include <complex>
#include <type_traits>

#include "common/stopping.hpp"  // PORTLA_HOST_DEVICE

#ifdef __CUDACC__
#include <cuda/std/complex>
#endif

namespace portla::common {

/// real_t<T>: R for a complex<R>, T itself for a real T; is_complex_v<T>.
template <typename T>
struct scalar_traits {
    using real = T;
    static constexpr bool is_complex = false;
};
template <typename R>
struct scalar_traits<std::complex<R>> {
    using real = R;
    static constexpr bool is_complex = true;
};
#ifdef __CUDACC__
template <typename R>
struct scalar_traits<cuda::std::complex<R>> {
    using real = R;
    static constexpr bool is_complex = true;
};
#endif

template <typename T>
using real_t = typename scalar_traits<T>::real;
template <typename T>
inline constexpr bool is_complex_v = scalar_traits<T>::is_complex;

/// The accumulator of reductions over T: double for a real T, std::complex<double> otherwise.
template <typename T>
using wide_t = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;

/// The complex conjugate (x itself for a real x).
template <typename T>
PORTLA_HOST_DEVICE T conj(T x) {
    if constexpr (is_complex_v<T>)
        return T(x.real(), -x.imag());
    else
        return x;
}

/// |x|^2 in T's real type, without a square root.
template <typename T>
PORTLA_HOST_DEVICE real_t<T> abs2(T x) {
    if constexpr (is_complex_v<T>)
        return x.real() * x.real() + x.imag() * x.imag();
    else
        return x * x;
}

/// Re(conj(a) b) in double: a term of x^H y whose sum is real (r^H r, and r^H z, p^H A p for a
/// Hermitian A and M), the product a b for real values.
template <typename T>
PORTLA_HOST_DEVICE double re_dot(T a, T b) {
    if constexpr (is_complex_v<T>)
        return double(a.real()) * double(b.real()) + double(a.imag()) * double(b.imag());
    else
        return double(a) * double(b);
}

/// Both parts finite.
template <typename T>
bool is_finite(T x) {
    if constexpr (is_complex_v<T>)
        return std::isfinite(x.real()) && std::isfinite(x.imag());
    else
        return std::isfinite(x);
}

/// x in the accumulator type wide_t<T> (host code).
template <typename T>
wide_t<T> widen(T x) {
    if constexpr (is_complex_v<T>)
        return {double(x.real()), double(x.imag())};
    else
        return double(x);
}

/// A value of the accumulator type (or any scalar) rounded to T.
template <typename T, typename W>
T narrow(W x) {
    if constexpr (is_complex_v<T>) {
        if constexpr (is_complex_v<W>)
            return T(static_cast<real_t<T>>(x.real()), static_cast<real_t<T>>(x.imag()));
        else
            return T(static_cast<real_t<T>>(x), 0);
    } else {
        if constexpr (is_complex_v<W>)
            return static_cast<T>(x.real());
        else
            return static_cast<T>(x);
    }
}

/// The real part (x itself for a real x).
template <typename T>
PORTLA_HOST_DEVICE real_t<T> real_part(T x) {
    if constexpr (is_complex_v<T>)
        return x.real();
    else
        return x;
}

/// The name of T as NumPy spells it (for error messages).
template <typename T>
const char* dtype_name() {
    if constexpr (std::is_same_v<T, std::complex<double>>)
        return "complex128";
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return "complex64";
    else if constexpr (std::is_same_v<T, double>)
        return "float64";
    else
        return "float32";
}

}  // namespace portla::common

#endif  // PORTLA_COMMON_SCALAR_HPP
