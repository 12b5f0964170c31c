// Complex values in the cuda backend's device code. The host API and core hold complex64 and
// complex128 as std::complex<R>; device code holds them as ::cuda::std::complex<R>, which has the
// same layout (two R, real part first: common/scalar.hpp). device_t<T> names the device type of
// a value type, and device_ptr / device_value are the one place a host pointer or scalar becomes
// its device counterpart: a kernel entry point over T calls the kernels over device_t<T>.
//
// The helpers below are the real kernels' operations written for both kinds of values, so a
// kernel is written once: for a real T each is the expression the real kernels always used (the
// same machine code and rounding); for a complex T the products are written out in their parts
// (::cuda::std::complex's operator* also tests for NaN and infinity parts, C99 Annex G, which a
// sum of products does not need).
#pragma once

#include <cuda/std/complex>
#include <cuda_runtime.h>

#include <complex>
#include <type_traits>

#include "common/scalar.hpp"

namespace portla::kernels::cuda {

template <typename T>
struct device_type {
    using type = T;
};
template <typename R>
struct device_type<std::complex<R>> {
    using type = ::cuda::std::complex<R>;
};
/// The type device code holds a value of type T as (T itself for a real T).
template <typename T>
using device_t = typename device_type<T>::type;

/// A buffer of T seen as a buffer of device_t<T> (the same bytes).
template <typename T>
device_t<T>* device_ptr(T* p) {
    return reinterpret_cast<device_t<T>*>(p);
}
template <typename T>
const device_t<T>* device_ptr(const T* p) {
    return reinterpret_cast<const device_t<T>*>(p);
}
/// A scalar of T as device_t<T>.
template <typename T>
device_t<T> device_value(T v) {
    if constexpr (common::is_complex_v<T>)
        return device_t<T>(v.real(), v.imag());
    else
        return v;
}

/// The accumulator of a sum over values of T in device code: T for a real T (the real kernels'
/// sums), complex of double for a complex T (common::wide_t).
template <typename T>
using device_acc_t = std::conditional_t<common::is_complex_v<T>, ::cuda::std::complex<double>, T>;

template <typename R>
struct vector2;
template <>
struct vector2<float> {
    using type = float2;
};
template <>
struct vector2<double> {
    using type = double2;
};

/// *p by `load` (one of the load intrinsics), a complex value as one 8- or 16-byte vector.
template <typename T, typename Load>
__device__ __forceinline__ T load_by(const T* p, Load load) {
    if constexpr (common::is_complex_v<T>) {
        using R = common::real_t<T>;
        const auto v = load(reinterpret_cast<const typename vector2<R>::type*>(p));
        return T(v.x, v.y);
    } else {
        return load(p);
    }
}
/// __ldg (read-only cache), __ldcs (streaming) and __ldcg (L2 only), also for complex values.
template <typename T>
__device__ __forceinline__ T ldg(const T* p) {
    return load_by(p, [](const auto* q) { return __ldg(q); });
}
template <typename T>
__device__ __forceinline__ T ldcs(const T* p) {
    return load_by(p, [](const auto* q) { return __ldcs(q); });
}
template <typename T>
__device__ __forceinline__ T ldcg(const T* p) {
    return load_by(p, [](const auto* q) { return __ldcg(q); });
}

/// acc + a b, a sum of products' step (a b in acc's type).
template <typename Acc, typename T>
__device__ __forceinline__ Acc madd(Acc acc, T a, T b) {
    if constexpr (common::is_complex_v<T>) {
        using W = typename Acc::value_type;
        const W ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
        return Acc(acc.real() + (ar * br - ai * bi), acc.imag() + (ar * bi + ai * br));
    } else {
        return acc + a * b;
    }
}
/// acc + conj(a) b: a term of x^H y (a b for real values).
template <typename Acc, typename T>
__device__ __forceinline__ Acc madd_conj(Acc acc, T a, T b) {
    if constexpr (common::is_complex_v<T>)
        return madd(acc, T(a.real(), -a.imag()), b);
    else
        return acc + a * b;
}
/// a b (products of values of the same type, written out in their parts for complex values).
template <typename T>
__device__ __forceinline__ T mul(T a, T b) {
    if constexpr (common::is_complex_v<T>)
        return T(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    else
        return a * b;
}
/// Re(conj(a) b) in T's real type: a term of a sum that is real (r^H r, and r^H z, p^H A p for
/// a Hermitian A and M); a b for real values.
template <typename T>
__device__ __forceinline__ common::real_t<T> re_mul(T a, T b) {
    if constexpr (common::is_complex_v<T>)
        return a.real() * b.real() + a.imag() * b.imag();
    else
        return a * b;
}
/// Both parts finite (isfinite for a real value).
template <typename T>
__device__ __forceinline__ bool finite(T v) {
    if constexpr (common::is_complex_v<T>)
        return isfinite(v.real()) && isfinite(v.imag());
    else
        return isfinite(v);
}
/// A value of the accumulator type rounded to T.
template <typename T, typename Acc>
__device__ __forceinline__ T narrow(Acc v) {
    if constexpr (common::is_complex_v<T>) {
        using R = common::real_t<T>;
        return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else {
        return static_cast<T>(v);
    }
}

}  // namespace portla::kernels::cuda
