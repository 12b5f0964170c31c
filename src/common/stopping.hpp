// The stopping rules shared by every Krylov solver, on the host and on a device: finiteness and
// when a residual is replaced by the true one. There is no stagnation heuristic: a monolithic
// solve ends converged (the true residual confirms it), at the iteration limit, or on breakdown,
// non_finite or indefinite (issue 12: the CG residual of an ill-conditioned system rises and
// falls for hundreds of iterations, and a window of iterations cannot tell that from a stall).
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define PORTLA_HOST_DEVICE __host__ __device__
#else
#define PORTLA_HOST_DEVICE
#endif

namespace portla::common {

PORTLA_HOST_DEVICE inline bool is_finite(double v) {
#if defined(__CUDA_ARCH__)
    return ::isfinite(v);
#else
    return std::isfinite(v);
#endif
}

PORTLA_HOST_DEVICE inline double square_root(double v) {
#if defined(__CUDA_ARCH__)
    return ::sqrt(v);
#else
    return std::sqrt(v);
#endif
}

/// Whether iteration `iteration` ends with the residual replaced by b - A x (every
/// `replacement` iterations; 0: never).
PORTLA_HOST_DEVICE inline bool replace_at(int replacement, int iteration) {
    return replacement > 0 && iteration % replacement == 0;
}

}  // namespace portla::common
