// Cost of a read-once switch per call: the old static const against common::EnvCache::get.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "common/env_switch.hpp"

namespace {
__attribute__((noinline)) std::size_t old_threshold() {
    static const std::size_t value = [] {
        const char* env = std::getenv("PORTLA_OMP_MIN_PARALLEL");
        if (env && *env) return static_cast<std::size_t>(std::strtoull(env, nullptr, 10));
        return std::size_t{4096};
    }();
    return value;
}
__attribute__((noinline)) std::size_t new_threshold() {
    static portla::common::EnvCache<std::size_t> value;
    return value.get([] {
        return static_cast<std::size_t>(
            portla::common::env_integer("PORTLA_OMP_MIN_PARALLEL", 0, 1LL << 62, 4096));
    });
}
template <typename F>
double ns_per_call(F f, long n) {
    std::size_t sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) sink += f();
    const auto t1 = std::chrono::steady_clock::now();
    if (sink == 42) std::puts("");
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(n);
}
}  // namespace

int main() {
    const long n = 100000000;
    for (int rep = 0; rep < 5; ++rep)
        std::printf("{\"rep\": %d, \"old_ns\": %.3f, \"new_ns\": %.3f}\n", rep,
                    ns_per_call(old_threshold, n), ns_per_call(new_threshold, n));
}
