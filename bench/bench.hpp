// The benchmark harness: one measured point per (kernel, backend, precision, size, launch
// configuration), the latency-bandwidth model fit, and plots.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/tuning.hpp"

namespace portla::bench {

/// What to measure at one point.
struct CaseConfig {
    std::string kernel;     ///< see kernel_names()
    std::string backend;    ///< reference, omp, cuda, openblas, cublas, cusparse
    std::string precision;  ///< double or float
    std::size_t size = 0;   ///< vector length / unknowns; matrix elements for gemv and cg-dense
    LaunchConfig launch{};  ///< cuda: wg and items; omp: threads (vector kernels only)
    /// Leave the launch unset: the kernels take the device's tuning profile (portla/tuning.hpp).
    bool tuned = false;
    /// Shown with the backend and kept apart by the fit ("default", "tuned"); with a variant the
    /// launch may change from size to size, and the fit takes all of them as one series.
    std::string variant;
    int reps = 50;             ///< at most this many timed calls ...
    double max_time_s = 1.0;   ///< ... and no more time than this (at least 5 calls)
    bool flush_cache = false;  ///< CPU: evict the caches before every timed call
    /// Every call timed by the host's steady clock between two synchronisations, on every
    /// backend (a GPU's default is its device events): one clock for backends whose timers
    /// differ (opencl's is the host clock around clFinish, cuda's are events).
    bool host_clock = false;
    /// Calls timed together, back to back on the stream, the sample being their mean (the way
    /// the shared PERFORMANCE.md's cuBLAS figures were taken: T0 is then the cost of a call in
    /// a stream of calls, not of one call between two events). Per-iteration solver cases
    /// (with a baseline) always take 1.
    int calls_per_sample = 1;
};

/// One measured point. Times in seconds; the statistics are over the samples, each the mean
/// time of `calls_per_sample` calls.
struct Point {
    std::string kernel, backend, precision;
    std::string variant;  ///< CaseConfig::variant
    /// What timed the calls: "device" (a GPU's events) or "host" (a steady clock between two
    /// synchronisations: CPUs, opencl's timer, host-timed kernels, --host-clock).
    std::string clock;
    std::size_t n = 0;      ///< vector length / unknowns / matrix rows (dense)
    int wg = 0, items = 0;  ///< launch configuration (0 where the backend has none)
    int threads = 0;        ///< omp vector kernels: LaunchConfig::threads
    double bytes = 0;       ///< bytes one call must move (counted by hand per kernel)
    double time_s = 0;      ///< median
    double time_min_s = 0, time_q1_s = 0, time_q3_s = 0, time_max_s = 0;
    int reps = 0;
    int calls_per_sample = 1;  ///< CaseConfig::calls_per_sample as used
    int input_sets = 1;        ///< inputs rotated so that the working set exceeds the cache
    double bandwidth_gbs = 0;  ///< bytes / median time
    bool correct = false;      ///< the result matched an independent host computation
    double error = 0;          ///< the check's relative error
};

/// Least-squares fit of T = T0 + bytes / W_a (relative residuals) over a set of points.
struct Fit {
    std::string kernel, backend, precision, variant;
    int wg = 0, items = 0, threads = 0;
    double t0_us = 0, wa_gbs = 0, r2 = 0;
    int points = 0;
    std::size_t n_min = 0, n_max = 0;
};

std::vector<std::string> kernel_names();
/// Backends that implement `kernel` (vendor libraries included).
std::vector<std::string> backends_for(const std::string& kernel);
/// Whether the backend takes a launch configuration (work-group size, items per thread).
bool has_launch_config(const std::string& kernel, const std::string& backend);
/// Whether the backend takes a team size for the kernel (LaunchConfig::threads: omp).
bool has_thread_config(const std::string& kernel, const std::string& backend);
/// The profile entry a bench kernel's launch comes from (dot-host: dot; unfused-cg: axpby, its
/// first kernel); false for kernels without one.
bool tuned_kernel(const std::string& kernel, tuning::Kernel& out);
/// A vendor library `portla bench` measures, and the portla backend whose memory and device it
/// runs on (portla::vendor picks the library from the executor's backend).
struct VendorLibrary {
    const char* name;
    Backend backend;
};
/// openblas on omp; cublas and cusparse on cuda. The one vendor-to-backend mapping.
const std::vector<VendorLibrary>& vendor_libraries();
/// Executor a backend's data lives on (a portla backend, or a vendor library's: see
/// vendor_libraries()).
Executor executor_for(const std::string& backend);

/// Measures one point. Throws BadInput for an unknown kernel/backend pair, OutOfMemory when the
/// inputs do not fit.
Point measure(const CaseConfig& config);

/// Fits every (kernel, backend, precision, variant, wg, items, threads) group of `points` with
/// at least 3 sizes whose working set exceeds `min_bytes` (0: every size). Points with a variant
/// form one group per variant whatever their launch (the fit's wg, items, threads are 0).
std::vector<Fit> fit_model(const std::vector<Point>& points, double min_bytes);

/// `portla tune`'s rule. For each measured size n of `kernel` (cuda or omp points, variant ""):
/// each configuration's time is its model prediction T0 + bytes / W_a where its fit has
/// R^2 >= 0.95 and spans n, else its measured median; the least time wins when it is more than
/// `margin` (0.01: 1%) below the time of default_for(n), which is kept otherwise. Runs of sizes
/// with the same winner form one band, with edges at the geometric midpoints of neighbouring
/// sizes; the first band starts at 0 and the last is unbounded. Band speedup: the largest ratio
/// of measured medians, default over winner, over the band's sizes. Throws BadInput when a size
/// lacks a point of its default configuration or no size was measured.
std::vector<tuning::Band> choose_bands(const std::vector<Point>& points,
                                       const std::vector<Fit>& fits, const std::string& kernel,
                                       const std::function<LaunchConfig(std::size_t)>& default_for,
                                       double margin);

/// Writes an SVG to `out`: effective bandwidth against size per configuration (one panel per
/// kernel), the fitted model dotted, vendor libraries heavy. The caller checks the stream (the
/// CLI writes it to a file whole or not at all).
void write_plot(std::ostream& out, const std::vector<Point>& points, const std::vector<Fit>& fits,
                const std::string& title);

/// Size of the last-level cache of the device an executor runs on (L2 on a GPU, L3 on a CPU).
std::size_t last_level_cache_bytes(const Executor& exec);

}  // namespace portla::bench
