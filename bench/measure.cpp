// Timing: warm-up, device events on the GPU or a steady clock on the CPU, repetitions bounded
// by count and time, median and spread; then the correctness check of the result.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <vector>

#include "bench/case.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"

namespace portla::bench {

std::size_t last_level_cache_bytes(const Executor& exec) {
    if (!exec.is_host()) {
        const auto info = exec.device_info();
        return info.l2_bytes > 0 ? info.l2_bytes : (std::size_t{50} << 20);
    }
    // The largest cache level of CPU 0, from sysfs ("32768K").
    std::size_t best = 0;
    for (int index = 0; index < 8; ++index) {
        std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                        "/size");
        std::string s;
        if (!(f >> s)) continue;
        std::size_t value = std::stoull(s);
        if (s.back() == 'K') value <<= 10;
        if (s.back() == 'M') value <<= 20;
        best = std::max(best, value);
    }
    return best > 0 ? best : (std::size_t{32} << 20);
}

namespace detail {

int rotation_sets(std::size_t set_bytes, std::size_t cache_bytes) {
    if (set_bytes == 0) return 1;
    const std::size_t sets = (2 * cache_bytes + set_bytes - 1) / set_bytes;
    return static_cast<int>(std::clamp<std::size_t>(sets, 1, 64));
}

void check_fits(const Executor& exec, double bytes) {
    std::size_t free_bytes = 0, total = 0;
    exec.memory_info(free_bytes, total);
    const double available = double(free_bytes);
    if (available > 0 && bytes > 0.8 * available)
        throw OutOfMemory("bench inputs (" + std::to_string(bytes / 1e9) + " GB, " +
                              std::to_string(available / 1e9) + " GB free)",
                          static_cast<std::size_t>(bytes));
}

namespace {

// Streams through a buffer twice the size of the last-level cache, evicting it.
void flush_cache(std::size_t cache_bytes) {
    static std::vector<char> buffer;
    if (buffer.size() < 2 * cache_bytes) buffer.assign(2 * cache_bytes, 1);
    volatile char sink = 0;
    for (std::size_t i = 0; i < buffer.size(); i += 64) {
        buffer[i] = static_cast<char>(buffer[i] + 1);
        sink = sink + buffer[i];
    }
}

// Seconds of one call: the executor's timer (device events on a GPU), or with `host_clock` a
// steady clock between two synchronisations (for calls that wait on the host themselves:
// dot-host, and the CG solves, which read their state back).
class CallTimer {
public:
    CallTimer(const Executor& exec, bool host_clock)
        : exec_(exec), host_clock_(host_clock), timer_(exec) {}
    /// "device" where the executor's events time the calls, else "host".
    const char* clock() const { return host_clock_ || !timer_.on_device() ? "host" : "device"; }
    template <typename Fn>
    double time(Fn&& fn) {
        if (host_clock_) {
            exec_.synchronize();
            const auto t0 = std::chrono::steady_clock::now();
            fn();
            exec_.synchronize();
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        timer_.start();
        fn();
        timer_.stop();
        return timer_.seconds();
    }

private:
    Executor exec_;
    bool host_clock_;
    portla::Timer timer_;
};
double quantile(const std::vector<double>& sorted, double q) {
    const double pos = q * double(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace
}  // namespace detail

Point measure(const CaseConfig& config) {
    Executor exec = executor_for(config.backend);
    const bool launch = has_launch_config(config.kernel, config.backend);
    const bool threads = has_thread_config(config.kernel, config.backend);
    if ((launch || threads) && !config.tuned) exec.set_launch(config.launch);
    detail::Case cs = detail::make_case(config, exec);
    const std::size_t cache = last_level_cache_bytes(exec);
    detail::CallTimer timer(exec, cs.host_timed || config.host_clock);

    // Warm-up: module load, handle creation, first touch of every input set.
    for (int s = 0; s < cs.sets; ++s) cs.call(s);
    if (cs.baseline) cs.baseline(0);
    exec.synchronize();

    // Back-to-back calls per sample; 1 for per-iteration cases (their baseline is one call) and
    // where every cache flush must precede one call.
    const int calls = cs.baseline || config.flush_cache ? 1 : std::max(1, config.calls_per_sample);
    std::vector<double> samples;
    double total = 0;
    for (int r = 0; r < std::max(config.reps, 1); ++r) {
        if (r >= 5 && total > config.max_time_s) break;
        const int set = r % cs.sets;
        if (config.flush_cache && exec.is_host()) detail::flush_cache(cache);
        // Each sample: `calls` calls; max_time bounds the time of all of them.
        const double raw = timer.time([&] {
            for (int c = 0; c < calls; ++c) cs.call((set + c) % cs.sets);
        });
        total += raw;
        double t = raw / calls;
        if (cs.baseline) {
            if (config.flush_cache && exec.is_host()) detail::flush_cache(cache);
            const double t_base = timer.time([&] { cs.baseline(set); });
            total += t_base;
            t = (t - t_base) / cs.iterations_per_call;
        }
        samples.push_back(t);
    }
    std::sort(samples.begin(), samples.end());

    Point p;
    p.kernel = config.kernel;
    p.backend = config.backend;
    p.precision = config.precision;
    p.variant = config.variant;
    p.clock = timer.clock();
    p.n = cs.n;
    // The configuration the kernel ran with: the profile's for a tuned run.
    LaunchConfig used = config.launch;
    tuning::Kernel tk;
    if (config.tuned && tuned_kernel(config.kernel, tk)) used = tuning::launch_for(exec, tk, cs.n);
    if (launch) {
        p.wg = used.work_group_size;
        p.items = used.items_per_thread;
    }
    if (threads) p.threads = used.threads;
    p.bytes = cs.bytes;
    p.reps = static_cast<int>(samples.size());
    p.calls_per_sample = calls;
    p.input_sets = cs.sets;
    p.time_s = detail::quantile(samples, 0.5);
    p.time_min_s = samples.front();
    p.time_q1_s = detail::quantile(samples, 0.25);
    p.time_q3_s = detail::quantile(samples, 0.75);
    p.time_max_s = samples.back();
    p.bandwidth_gbs = p.time_s > 0 ? p.bytes / p.time_s / 1e9 : 0;
    p.error = cs.verify();
    p.correct = std::isfinite(p.error) && p.error <= cs.tolerance;
    return p;
}

}  // namespace portla::bench
