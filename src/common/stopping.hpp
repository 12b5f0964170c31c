// The stopping rules shared by every Krylov solver, on the host and on a device: finiteness and
// when a residual is replaced by the true one. There is no stagnation heuristic: a monolithic
// solve ends converged (the true residual confirms it), at the iteration limit, or on breakdown,
// non_finite or indefinite (the CG residual of an ill-conditioned system rises and falls for
// hundreds of iterations, and a window of iterations cannot tell that from a stall).
//
// Valid C++17, CUDA and OpenCL C 1.2: the opencl backend builds it into its CG program
// (src/opencl/runtime.cpp), so the rules exist once. In C++ the functions are in
// portla::common; in OpenCL C they are plain functions of the program. Include guards rather
// than #pragma once: in OpenCL C this text is the main file.
#ifndef PORTLA_COMMON_STOPPING_HPP
#define PORTLA_COMMON_STOPPING_HPP

// OpenCL C: the specification's __OPENCL_VERSION__, or clang's __OPENCL_C_VERSION__ (clang
// leaves the former to the platform).
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define PORTLA_OPENCL_C 1
#endif

#if defined(PORTLA_OPENCL_C)
#define PORTLA_HOST_DEVICE
#define PORTLA_INLINE  // a plain function of the program (C99 `inline` may leave no definition)
#elif defined(__CUDACC__)
#define PORTLA_HOST_DEVICE __host__ __device__
#define PORTLA_INLINE inline
#else
#define PORTLA_HOST_DEVICE
#define PORTLA_INLINE inline
#endif

// The values of solver::StopReason (include/portla/solver/types.hpp), for code that is also
// OpenCL C; common/cg_step.hpp checks them against the enum.
#define PORTLA_STOP_CONVERGED 0
#define PORTLA_STOP_MAX_ITERATIONS 1
#define PORTLA_STOP_BREAKDOWN 2
#define PORTLA_STOP_NON_FINITE 3
#define PORTLA_STOP_INDEFINITE 4

#ifndef PORTLA_OPENCL_C
#include <cmath>

namespace portla::common {
#endif

PORTLA_INLINE PORTLA_HOST_DEVICE bool is_finite(double v) {
#if defined(PORTLA_OPENCL_C)
    return isfinite(v);
#elif defined(__CUDA_ARCH__)
    return ::isfinite(v);
#else
    return std::isfinite(v);
#endif
}

PORTLA_INLINE PORTLA_HOST_DEVICE double square_root(double v) {
#if defined(PORTLA_OPENCL_C)
    return sqrt(v);
#elif defined(__CUDA_ARCH__)
    return ::sqrt(v);
#else
    return std::sqrt(v);
#endif
}

/// Whether iteration `iteration` ends with the residual replaced by b - A x (every
/// `replacement` iterations; 0: never).
PORTLA_INLINE PORTLA_HOST_DEVICE bool replace_at(int replacement, int iteration) {
    return replacement > 0 && iteration % replacement == 0;
}

#ifndef PORTLA_OPENCL_C
}  // namespace portla::common
#endif

#endif  // PORTLA_COMMON_STOPPING_HPP
