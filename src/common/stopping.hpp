// The stopping rules shared by every Krylov solver, on the host and on a device: when a residual
// is replaced by the true one, and when replacements show stagnation.
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

/// The stagnation test at residual replacements: stagnation when neither the last 4
/// replacements nor the last 200 iterations brought a new minimum (by 1%) of the true residual;
/// it then sits at the accuracy the precision attains. (CG's residual is not monotone: a window
/// of one replacement alone would stop healthy solves when replacing every iteration.) A plain
/// aggregate so that it can live in a device-side solver state; start from `fresh()`.
struct ReplacementWatch {
    double best;         ///< smallest true residual at a replacement so far
    int best_iteration;  ///< iteration of `best`
    int stale;           ///< replacements since the last new minimum

    PORTLA_HOST_DEVICE static ReplacementWatch fresh() { return {HUGE_VAL, 0, 0}; }
    /// After a replacement at `iteration` with true residual `rnorm`: true when stagnating.
    PORTLA_HOST_DEVICE bool stagnates(int iteration, double rnorm) {
        if (rnorm < 0.99 * best) {
            best = rnorm;
            best_iteration = iteration;
            stale = 0;
            return false;
        }
        return ++stale >= 4 && iteration - best_iteration >= 200;
    }
};

}  // namespace portla::common
