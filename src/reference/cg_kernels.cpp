// The CG steps of the reference backend: src/common/cg_host_kernels.inc over plain loops in order.
#include "common/cg_host_steps.hpp"

namespace portla::kernels::reference {
namespace {

struct SerialLoops {
    template <typename F>
    static void for_each(std::size_t n, F f) {
        for (std::size_t i = 0; i < n; ++i) f(i);
    }
    template <typename F>
    static void sum(std::size_t n, F f, double& s0, double& s1) {
        for (std::size_t i = 0; i < n; ++i) f(i, s0, s1);
    }
};

}  // namespace

using CgLoops = SerialLoops;
#include "common/cg_host_kernels.inc"

}  // namespace portla::kernels::reference
