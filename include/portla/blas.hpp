/// \file
/// Vector kernels (BLAS level 1 and the fused CG update), dispatched to the executor's backend.
/// All vectors must live in memory of `exec`. Sizes are checked (DimensionMismatch).
/// Calls are asynchronous on cuda unless they return a host value.
/// T is float, double, std::complex<float> or std::complex<double>; complex values run on the
/// backends of PORTLA_FOR_EACH_COMPLEX_BACKEND (reference, omp, cuda, opencl) and throw
/// Unsupported elsewhere.
/// For complex values dot conjugates its first argument (x^H y, as BLAS zdotc and NumPy vdot),
/// and a norm is real (returned as a complex value whose imaginary part is 0).
#pragma once

#include "portla/array.hpp"
#include "portla/executor.hpp"

/// Vector kernels (BLAS level 1 and the fused CG update) on an executor's memory.
namespace portla::blas {

/// x[i] = value
template <typename T>
void fill(const Executor& exec, view<T> x, T value);

/// y = x
template <typename T>
void copy(const Executor& exec, const_view<T> x, view<T> y);

/// y = a x + b y   (bytes: 3 n sizeof(T)); with b == 0, y is not read (BLAS convention)
template <typename T>
void axpby(const Executor& exec, T a, const_view<T> x, T b, view<T> y);

/// z = x .* y   (element-wise product; z may alias x or y)
template <typename T>
void pointwise_mul(const Executor& exec, const_view<T> x, const_view<T> y, view<T> z);

/// result[0] = x . y = sum conj(x_i) y_i, left in the executor's memory (no host synchronisation on
/// cuda).
template <typename T>
void dot(const Executor& exec, const_view<T> x, const_view<T> y, view<T> result);

/// x . y returned to the host (blocks).
template <typename T>
T dot(const Executor& exec, const_view<T> x, const_view<T> y);

/// result[0] = ||x||_2, left in the executor's memory.
template <typename T>
void norm2(const Executor& exec, const_view<T> x, view<T> result);

/// ||x||_2 returned to the host (blocks).
template <typename T>
T norm2(const Executor& exec, const_view<T> x);

/// The CG update in one pass over memory:
///   x += alpha p;  r -= alpha q;  rr[0] = r . r    (bytes: 6 n sizeof(T))
/// rr is left in the executor's memory.
template <typename T>
void fused_cg_update(const Executor& exec, T alpha, const_view<T> p, const_view<T> q, view<T> x,
                     view<T> r, view<T> rr);

/// d[i] = 1 / d[i] (the Jacobi preconditioner from a diagonal). Returns the first index whose
/// entry is zero or not finite (that entry is left as it was, others may be inverted), or
/// d.size when every entry was inverted. Blocks.
template <typename T>
std::size_t invert_diagonal(const Executor& exec, view<T> d);

}  // namespace portla::blas
