// The loop policy of the omp backend's kernels written once over a policy (src/common/*_host_*):
// OpenMP loops with a static schedule, serial below parallel_threshold().
#pragma once

#include <cstddef>

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
        double a = 0, b = 0;
#pragma omp parallel for schedule(static) reduction(+ : a, b) if (parallel)
        for (std::size_t i = 0; i < n; ++i) f(i, a, b);
        s0 += a;
        s1 += b;
    }
};

}  // namespace portla::kernels::omp
