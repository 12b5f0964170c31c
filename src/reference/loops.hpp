// The loop policy of the reference backend's kernels written once over a policy
// (src/common/*_host_*): plain loops in order, sums in order.
#pragma once

#include <cstddef>

namespace portla::kernels::reference {

struct SerialLoops {
    template <typename F>
    static void for_each(std::size_t n, F f) {
        for (std::size_t i = 0; i < n; ++i) f(i);
    }
    template <typename F>
    static void sum(std::size_t n, F f, double& s0, double& s1) {
        for (std::size_t i = 0; i < n; ++i) f(i, s0, s1);
    }
    // In order whatever the rows' work (common/row_work.hpp).
    template <typename Start, typename F>
    static void sum_by(std::size_t n, Start, F f, double& s0, double& s1) {
        sum(n, f, s0, s1);
    }
};

}  // namespace portla::kernels::reference
