// How many lanes of a warp share a CSR row (the vector CSR kernels of matrix_kernels.cu and the
// fused CG steps of cg_kernels.cu). Internal to src/cuda.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace portla::kernels::cuda {

/// The smallest power of two (1 ... 16) that covers about two entries of an average row per
/// lane: two independent loads in flight per lane and no idle lanes for short rows. For the
/// 7-point stencil (6.96 entries per row) 4 lanes instead of 8: CG per iteration 0.163 against
/// 0.193 ms at 128^3 and 1.158 against 1.414 ms at 256^3 (H100, 2026-11-24); 16 lanes 0.256.
/// Rows of more than 16 entries take 16 lanes, not 32 (at 32 a row of 33 entries gives each
/// lane one load and the group's reduction dominates): smoothed aggregation's solve on
/// poisson3d:256, whose second and third levels have 33 and 84 entries a row, 93.5 against
/// 87.6 ms, on contrast3d:128 43.2 against 31.2 ms (H200, 2026-11-29).
inline int csr_lanes(std::size_t entries, std::size_t rows) {
    const std::size_t half_avg = (entries + 2 * rows - 1) / (2 * std::max<std::size_t>(rows, 1));
    int lanes = 1;
    while (lanes < 16 && static_cast<std::size_t>(lanes) < half_avg) lanes *= 2;
    return lanes;
}

/// fn(std::integral_constant<int, G>{}) with G = g for a group width of csr_lanes (1, 2, 4, 8;
/// anything else 16): the kernels' instantiation for the width chosen at run time.
template <typename Fn>
void with_lanes(int g, Fn&& fn) {
    switch (g) {
        case 1:
            return fn(std::integral_constant<int, 1>{});
        case 2:
            return fn(std::integral_constant<int, 2>{});
        case 4:
            return fn(std::integral_constant<int, 4>{});
        case 8:
            return fn(std::integral_constant<int, 8>{});
        default:
            return fn(std::integral_constant<int, 16>{});
    }
}

}  // namespace portla::kernels::cuda
