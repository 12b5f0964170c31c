// Internal to the bench harness: a kernel prepared for timing.
#pragma once

#include <functional>

#include "bench/bench.hpp"

namespace portla::bench::detail {

struct Case {
    double bytes = 0;                   ///< bytes one call must move
    std::size_t n = 0;                  ///< the point's n
    int sets = 1;                       ///< input sets rotated between calls
    std::function<void(int set)> call;  ///< the timed call on input set `set`
    /// Re-initialises set 0, calls once, and returns the relative error against an independent
    /// host computation.
    std::function<double()> verify;
    double tolerance = 0;     ///< verify() must return at most this
    bool host_timed = false;  ///< the call synchronises with the host: time it with the host clock
    /// For per-iteration solver timings: the call runs `iterations_per_call` iterations more
    /// than `baseline` does; time = (t(call) - t(baseline)) / iterations_per_call.
    std::function<void(int set)> baseline;
    int iterations_per_call = 1;
};

/// Number of input sets of `set_bytes` each so that rotating through them leaves no set in a
/// cache of `cache_bytes` (at most 64), or 1 when flushing.
int rotation_sets(std::size_t set_bytes, std::size_t cache_bytes);

/// Throws OutOfMemory when `bytes` would not fit in the executor's free memory (80%).
void check_fits(const Executor& exec, double bytes);

Case make_case(const CaseConfig& config, const Executor& exec);

}  // namespace portla::bench::detail
