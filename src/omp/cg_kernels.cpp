// The CG steps of the omp backend: src/common/cg_host_kernels.inc over OpenMP loops (static
// schedule; serial below parallel_threshold()).
#include "common/cg_host_steps.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

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

}  // namespace

using CgLoops = OmpLoops;
#include "common/cg_host_kernels.inc"

}  // namespace portla::kernels::omp
