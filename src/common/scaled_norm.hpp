// ||x||_2 without underflow or overflow, compiled into every backend (host and device).
//
// Blue's algorithm, as in LAPACK 3.10's dnrm2 (Anderson, "Algorithm 978: Safe Scaling in the
// Level 1 BLAS", ACM TOMS 44, 2017): each |x_i| goes to one of three sums of squares with a fixed
// scale: big (|x_i| > tbig, scaled down by sbig), small (|x_i| < tsml, scaled up by ssml) and
// medium (unscaled, whose squares neither underflow nor overflow). The scales are fixed, so
// partial sums of different threads, blocks or chunks merge by adding each sum: one pass, any
// reduction order. finish() combines the three sums into the norm.
//
// The CPU backends keep their fast unscaled sum of squares (accumulated in double) and run this
// only when that sum is not trustworthy (sum_of_squares_is_accurate below): a zero, subnormal,
// tiny or infinite sum. The cuda backend runs it always: one pass, memory-bound either way.
#pragma once

#include <cmath>

#include "common/stopping.hpp"  // PORTLA_HOST_DEVICE

namespace portla::common {

/// Blue's thresholds and scales for Acc (double or float): powers of 2, so scaling is exact.
template <typename Acc>
struct BlueConstants;
template <>
struct BlueConstants<double> {
    // tsml = 2^ceil((minexp - 1) / 2), tbig = 2^floor((maxexp - digits + 1) / 2),
    // ssml = 2^-floor((minexp - digits) / 2), sbig = 2^-ceil((maxexp + digits - 1) / 2).
    static constexpr double tsml = 0x1p-511, tbig = 0x1p486, ssml = 0x1p537, sbig = 0x1p-538;
};
template <>
struct BlueConstants<float> {
    static constexpr float tsml = 0x1p-63f, tbig = 0x1p52f, ssml = 0x1p75f, sbig = 0x1p-76f;
};

/// Three scaled sums of squares; add() one |x_i| at a time, merge() partials, finish() the norm.
template <typename Acc>
struct ScaledSumOfSquares {
    Acc small = 0, medium = 0, big = 0;

    PORTLA_HOST_DEVICE void add(Acc ax) {
        using C = BlueConstants<Acc>;
        if (ax > C::tbig) {
            big += (ax * C::sbig) * (ax * C::sbig);
        } else if (ax < C::tsml) {
            small += (ax * C::ssml) * (ax * C::ssml);
        } else {
            medium += ax * ax;  // also NaN, which then propagates to the norm
        }
    }
    PORTLA_HOST_DEVICE void merge(const ScaledSumOfSquares& o) {
        small += o.small;
        medium += o.medium;
        big += o.big;
    }
    /// sqrt(small / ssml^2 + medium + big / sbig^2), evaluated without underflow or overflow.
    PORTLA_HOST_DEVICE Acc finish() const {
        using C = BlueConstants<Acc>;
        Acc scale = 1, sum = medium;
        if (big > 0) {
            // Medium values are negligible against big ones unless medium is NaN.
            sum = big + (medium > 0 || medium != medium ? (medium * C::sbig) * C::sbig : Acc(0));
            scale = 1 / C::sbig;
        } else if (small > 0) {
            if (medium > 0 || medium != medium) {
                const Acc med = sqrt_of(medium), sml = sqrt_of(small) / C::ssml;
                const Acc ymin = sml > med ? med : sml, ymax = sml > med ? sml : med;
                sum = ymax * ymax * (1 + (ymin / ymax) * (ymin / ymax));
            } else {
                sum = small;
                scale = 1 / C::ssml;
            }
        }
        return scale * sqrt_of(sum);
    }

private:
    // The square root in double (common/stopping.hpp), rounded once to Acc.
    PORTLA_HOST_DEVICE static Acc sqrt_of(Acc v) {
        return static_cast<Acc>(square_root(double(v)));
    }
};

/// Whether an unscaled sum of squares (accumulated in double) gives ||x|| to working accuracy:
/// finite (no square overflowed) and at least 2^-900, so that squares lost to underflow (each
/// below 2^-1022, fewer than 2^64 of them) change it by less than 2^-58 relative. Otherwise (an
/// all-zero vector, an overflow, or a NaN, which a compensated sum also makes of inf - inf) the
/// norm is recomputed with ScaledSumOfSquares, which returns NaN only when x holds one.
inline bool sum_of_squares_is_accurate(double sum) {
    return sum >= 0x1p-900 && sum <= 1.7976931348623157e308;
}

}  // namespace portla::common
