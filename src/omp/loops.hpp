// The loop policy of the omp backend's kernels written once over a policy (src/common/*_host_*):
// OpenMP loops with a static schedule, serial below parallel_threshold().
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "common/row_work.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {

struct OmpLoops {
    template <typename F>
    static void for_each(std::size_t n, F f) {
        const bool parallel = n >= parallel_threshold();
#pragma omp parallel for schedule(static) if (parallel)
        for (std::size_t i = 0; i < n; ++i) f(i);
    }
    template <typename F>
    static void sum(std::size_t n, F f, double& s0, double& s1) {
        const bool parallel = n >= parallel_threshold();
        const auto sums = ordered_sums<2>(parallel, 0, [&](std::array<double, 2>& s) {
            const auto [first, last] = thread_range(n);
            for (std::size_t i = first; i < last; ++i) f(i, s[0], s[1]);
        });
        s0 += sums[0];
        s1 += sums[1];
    }
    // sum over rows whose work is `start` (common/row_work.hpp): a split by work, one range of
    // rows per thread, serial below parallel_threshold() units of work.
    template <typename Start, typename F>
    static void sum_by(std::size_t n, Start start, F f, double& s0, double& s1) {
        if constexpr (std::is_same_v<Start, common::EvenRows>) {
            sum(n, f, s0, s1);
        } else {
            const bool parallel = start(n) >= parallel_threshold();
            const auto sums = ordered_sums<2>(parallel, 0, [&](std::array<double, 2>& s) {
                const auto [first, last] = thread_rows(n, start);
                for (std::size_t i = first; i < last; ++i) f(i, s[0], s[1]);
            });
            s0 += sums[0];
            s1 += sums[1];
        }
    }
};

}  // namespace portla::kernels::omp
