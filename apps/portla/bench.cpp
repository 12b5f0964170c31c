// portla bench: times kernels over a sweep of sizes (and launch configurations), fits
// T = T0 + bytes / W_a, and writes tables, JSON, CSV and an SVG plot.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "output.hpp"
#include "portla/environment.hpp"
#include "portla/portla.hpp"
#include "subcommands.hpp"
#include "sweep.hpp"

#ifndef PORTLA_GIT_COMMIT
#define PORTLA_GIT_COMMIT "unknown"
#endif

namespace portla::cli {
namespace {

struct BenchOptions {
    std::vector<std::string> kernels;
    std::vector<std::string> backends;
    std::string sizes = "2^10:2^26";
    std::string wg = "256";
    std::string items = "4";
    int reps = 50;
    double max_time = 0.5;
    std::string precision = "double";
    bool flush_cache = false;
    bool host_clock = false;
    int calls_per_sample = 1;
    JsonOutput json;
    std::string csv, plot;
    bool quiet = false;
    bool tuned = false;
};

std::size_t parse_size(const std::string& s) {
    try {
        std::size_t pos = 0;
        if (s.rfind("2^", 0) == 0) {
            const int e = std::stoi(s.substr(2), &pos);
            if (pos + 2 != s.size() || e < 0 || e > 40) throw BadInput("");
            return std::size_t{1} << e;
        }
        const double v = std::stod(s, &pos);
        if (pos != s.size() || !(v >= 1) || v > 1e13) throw BadInput("");
        return static_cast<std::size_t>(v);
    } catch (const std::exception&) {
        throw BadInput("bench: bad size '" + s + "' (expected e.g. 4096, 1e6 or 2^20)");
    }
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace

std::vector<std::size_t> parse_sizes(const std::string& spec) {
    std::vector<std::size_t> sizes;
    for (const auto& part : split(spec, ',')) {
        const auto colon = part.find(':');
        if (colon == std::string::npos) {
            sizes.push_back(parse_size(part));
            continue;
        }
        const std::size_t lo = parse_size(part.substr(0, colon)),
                          hi = parse_size(part.substr(colon + 1));
        if (hi < lo) throw BadInput("bench: empty size range '" + part + "'");
        for (std::size_t s = lo; s <= hi; s *= 2) sizes.push_back(s);
    }
    if (sizes.empty()) throw BadInput("bench: no sizes given");
    return sizes;
}

std::vector<int> parse_ints(const std::string& spec, const char* what) {
    std::vector<int> out;
    for (const auto& p : split(spec, ',')) {
        try {
            std::size_t pos = 0;
            out.push_back(std::stoi(p, &pos));
            if (pos != p.size()) throw 0;
        } catch (...) {
            throw BadInput(std::string("bench: bad ") + what + " '" + p + "'");
        }
    }
    return out;
}

bool backend_runs_here(const std::string& backend) {
    for (const auto& v : bench::vendor_libraries())
        if (backend == v.name) return device_count(v.backend) > 0;
    for (Backend b : all_backends())
        if (backend == to_string(b)) return device_count(b) > 0;
    return true;
}

std::string build_commit() {
    const std::string named_commit = commit_from_environment();
    return !named_commit.empty() ? named_commit : PORTLA_GIT_COMMIT;
}

namespace {

// "reference, omp, cuda, openblas, cublas, cusparse", from the backend list.
std::string backend_help() {
    std::string help = backend_names();
    for (const auto& v : bench::vendor_libraries()) help += std::string(", ") + v.name;
    return help + " (default: every one that runs here)";
}

}  // namespace

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

std::string now_utc() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string launch_text(const bench::Point& p) {
    if (bench::has_launch_config(p.kernel, p.backend))
        return " wg=" + std::to_string(p.wg) + " items=" + std::to_string(p.items);
    if (bench::has_thread_config(p.kernel, p.backend))
        return " threads=" + (p.threads == 0 ? std::string("auto") : std::to_string(p.threads));
    return "";
}

nlohmann::json fit_json(const bench::Fit& f) {
    return {{"kernel", f.kernel},   {"backend", f.backend}, {"precision", f.precision},
            {"variant", f.variant}, {"wg", f.wg},           {"items", f.items},
            {"threads", f.threads}, {"t0_us", f.t0_us},     {"wa_gbs", f.wa_gbs},
            {"r2", f.r2},           {"points", f.points},   {"n_min", f.n_min},
            {"n_max", f.n_max}};
}

void print_comparison(const std::vector<bench::Point>& points) {
    const auto label = [](const bench::Point& p) {
        const std::string t = launch_text(p);
        return t.empty() ? t : t.substr(1);
    };
    std::cout << "\ntuned vs default (same run; speedup = default time / tuned time)\n"
              << std::left << std::setw(11) << "kernel" << std::setw(9) << "backend" << std::right
              << std::setw(12) << "n"
              << "  " << std::left << std::setw(22) << "default" << std::right << std::setw(11)
              << "time_us"
              << "  " << std::left << std::setw(22) << "tuned" << std::right << std::setw(11)
              << "time_us" << std::setw(9) << "speedup\n";
    for (const auto& d : points) {
        if (d.variant != "default") continue;
        for (const auto& t : points)
            if (t.variant == "tuned" && t.kernel == d.kernel && t.backend == d.backend &&
                t.precision == d.precision && t.n == d.n)
                std::cout << std::left << std::setw(11) << d.kernel << std::setw(9) << d.backend
                          << std::right << std::setw(12) << d.n << "  " << std::left
                          << std::setw(22) << label(d) << std::right << std::setw(11) << std::fixed
                          << std::setprecision(2) << d.time_s * 1e6 << "  " << std::left
                          << std::setw(22) << label(t) << std::right << std::setw(11)
                          << t.time_s * 1e6 << " " << std::setw(8) << std::setprecision(3)
                          << d.time_s / t.time_s << std::defaultfloat << "\n";
    }
}

namespace {

// "cuda", or "cuda:tuned" for a point of a variant.
std::string series_name(const std::string& backend, const std::string& variant) {
    return variant.empty() ? backend : backend + ":" + variant;
}

// What `portla bench` measures a kernel with: a fixed launch, the shipped defaults (looked up
// per size, set explicitly) or the device's tuning profile (launch left unset).
struct Series {
    enum Source { fixed, shipped, profile };
    std::string variant;
    LaunchConfig launch;
    Source source;
};

LaunchConfig shipped_launch(const std::string& kernel, const std::string& backend, std::size_t n) {
    tuning::Kernel k;
    if (!bench::tuned_kernel(kernel, k)) return LaunchConfig{};
    return tuning::shipped_defaults(bench::executor_for(backend)).lookup(k, n);
}

// The points and the fitted model as text tables on stdout.
void print_tables(const std::vector<bench::Point>& points, const std::vector<bench::Fit>& fits) {
    std::cout << std::left << std::setw(11) << "kernel" << std::setw(13) << "backend"
              << std::setw(7) << "prec" << std::right << std::setw(6) << "wg" << std::setw(6)
              << "items" << std::setw(12) << "n" << std::setw(12) << "time_us" << std::setw(10)
              << "GB/s"
              << "  check\n";
    for (const auto& p : points)
        std::cout << std::left << std::setw(11) << p.kernel << std::setw(13)
                  << series_name(p.backend, p.variant) << std::setw(7) << p.precision << std::right
                  << std::setw(6) << p.wg << std::setw(6) << p.items << std::setw(12) << p.n
                  << std::setw(12) << std::fixed << std::setprecision(2) << p.time_s * 1e6
                  << std::setw(10) << std::setprecision(1) << p.bandwidth_gbs << "  "
                  << (p.correct ? "ok" : "WRONG") << std::defaultfloat << "\n";
    std::cout << "\nmodel T = T0 + bytes / W_a\n"
              << std::left << std::setw(11) << "kernel" << std::setw(13) << "backend"
              << std::setw(7) << "prec" << std::right << std::setw(6) << "wg" << std::setw(6)
              << "items" << std::setw(10) << "T0_us" << std::setw(10) << "W_a_GB/s" << std::setw(8)
              << "R^2" << std::setw(7) << "pts\n";
    for (const auto& f : fits)
        std::cout << std::left << std::setw(11) << f.kernel << std::setw(13)
                  << series_name(f.backend, f.variant) << std::setw(7) << f.precision << std::right
                  << std::setw(6) << f.wg << std::setw(6) << f.items << std::setw(10) << std::fixed
                  << std::setprecision(2) << f.t0_us << std::setw(10) << std::setprecision(1)
                  << f.wa_gbs << std::setw(8) << std::setprecision(4) << f.r2 << std::setw(6)
                  << f.points << std::defaultfloat << "\n";
}

int run(const BenchOptions& o) {
    std::vector<std::string> kernels = o.kernels;
    if (kernels.size() == 1 && kernels[0] == "all") kernels = bench::kernel_names();
    for (const auto& k : kernels) (void)bench::backends_for(k);  // validates the name
    const auto sizes = parse_sizes(o.sizes);
    const auto wgs = parse_ints(o.wg, "work-group size");
    const auto items = parse_ints(o.items, "items per thread");
    for (int w : wgs) Executor::omp().set_launch({w, 1});  // validates
    for (int i : items) Executor::omp().set_launch({256, i});
    if (o.precision != "double" && o.precision != "float")
        throw BadInput("bench: --precision must be double or float");
    if (o.reps < 1) throw BadInput("bench: --reps must be >= 1");
    if (o.calls_per_sample < 1 || o.calls_per_sample > 1000)
        throw BadInput("bench: --calls-per-sample must be in 1..1000");
    for (const auto& b : o.backends)
        if (!backend_runs_here(b))
            throw DeviceError("bench: backend '" + b + "' needs a GPU, and none was found");

    std::vector<bench::Point> points;
    for (const auto& kernel : kernels) {
        for (const auto& backend : bench::backends_for(kernel)) {
            if (o.backends.empty()
                    ? !backend_runs_here(backend)
                    : std::find(o.backends.begin(), o.backends.end(), backend) == o.backends.end())
                continue;
            const bool launch = bench::has_launch_config(kernel, backend);
            const bool threads = bench::has_thread_config(kernel, backend);
            // One series per launch configuration; with --tuned, the shipped defaults and the
            // device's tuning profile instead.
            std::vector<Series> series;
            if (o.tuned && (launch || threads))
                series = {{"default", {}, Series::shipped}, {"tuned", {}, Series::profile}};
            else if (launch)
                for (int wg : wgs)
                    for (int it : items) series.push_back({"", {wg, it, 0}, Series::fixed});
            else
                series.push_back({"", {}, Series::fixed});
            for (const auto& sr : series) {
                for (std::size_t size : sizes) {
                    bench::CaseConfig c;
                    c.kernel = kernel;
                    c.backend = backend;
                    c.precision = o.precision;
                    c.size = size;
                    c.launch = sr.launch;
                    c.variant = sr.variant;
                    c.tuned = sr.source == Series::profile;
                    if (sr.source == Series::shipped)
                        c.launch = shipped_launch(kernel, backend, size);
                    c.reps = o.reps;
                    c.max_time_s = o.max_time;
                    c.flush_cache = o.flush_cache;
                    c.host_clock = o.host_clock;
                    c.calls_per_sample = o.calls_per_sample;
                    try {
                        const auto p = bench::measure(c);
                        points.push_back(p);
                        if (!o.quiet)
                            std::cerr << "  " << kernel << " " << series_name(backend, p.variant)
                                      << " n=" << p.n << launch_text(p) << ": "
                                      << std::setprecision(4) << p.time_s * 1e6 << " us, "
                                      << p.bandwidth_gbs << " GB/s"
                                      << (p.correct ? "" : "  WRONG RESULT") << "\n";
                    } catch (const OutOfMemory& e) {
                        std::cerr << "  " << kernel << " " << backend << " size " << size
                                  << ": skipped, does not fit (" << e.what() << ")\n";
                        break;
                    }
                }
            }
        }
    }
    if (points.empty())
        throw BadInput("bench: nothing to measure (no backend of these kernels runs here)");

    // The model: GPU points all count (inputs rotate past L2); CPU points only past 2x the LLC
    // unless caches were flushed.
    std::vector<bench::Point> gpu_points, cpu_points;
    for (const auto& p : points)
        (bench::executor_for(p.backend).is_host() ? cpu_points : gpu_points).push_back(p);
    auto fits = bench::fit_model(gpu_points, 0);
    const double cpu_min = o.flush_cache ? 0 : 2.0 * bench::last_level_cache_bytes(Executor::omp());
    for (const auto& f : bench::fit_model(cpu_points, cpu_min)) fits.push_back(f);

    if (!o.json.to_stdout()) {
        print_tables(points, fits);
        if (o.tuned) print_comparison(points);
    }

    const std::string commit = build_commit();
    const auto gpus = cuda_devices();
    const std::string gpu = gpus.empty() ? "" : gpus[0].name;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    if (o.json.requested()) {
        nlohmann::json j;
        j["device"] = !gpu_points.empty()
                          ? gpu
                          : cpu_model() + " (" + std::to_string(omp_max_threads()) + " threads)";
        j["gpu"] = gpu;
        j["cpu"] = cpu_model();
        j["cpu_threads"] = omp_max_threads();
        // The device of the opencl points (PORTLA_OPENCL_DEVICE picks it): which platform they
        // belong to for `portla portability` (a CPU's: its host's; a GPU's: by its name).
        if (std::any_of(points.begin(), points.end(),
                        [](const bench::Point& p) { return p.backend == "opencl"; })) {
            const DeviceInfo cl = executor_from_environment("opencl").device_info();
            j["opencl_device"] = cl.name;
            j["opencl_device_is_cpu"] = cl.cpu;
        }
        j["host"] = host;
        j["date"] = now_utc();
        j["commit"] = commit;
        j["precision"] = o.precision;
        j["flush_cache"] = o.flush_cache;
        j["host_clock"] = o.host_clock;
        j["calls_per_sample"] = o.calls_per_sample;
        j["points"] = nlohmann::json::array();
        for (const auto& p : points)
            j["points"].push_back({{"kernel", p.kernel},
                                   {"backend", p.backend},
                                   {"precision", p.precision},
                                   {"variant", p.variant},
                                   {"clock", p.clock},
                                   {"n", p.n},
                                   {"wg", p.wg},
                                   {"items", p.items},
                                   {"threads", p.threads},
                                   {"bytes", p.bytes},
                                   {"time_s", p.time_s},
                                   {"time_min_s", p.time_min_s},
                                   {"time_q1_s", p.time_q1_s},
                                   {"time_q3_s", p.time_q3_s},
                                   {"time_max_s", p.time_max_s},
                                   {"reps", p.reps},
                                   {"calls_per_sample", p.calls_per_sample},
                                   {"input_sets", p.input_sets},
                                   {"bandwidth_gbs", p.bandwidth_gbs},
                                   {"correct", p.correct},
                                   {"check_error", p.error}});
        j["fits"] = nlohmann::json::array();
        for (const auto& f : fits) j["fits"].push_back(fit_json(f));
        emit_json(j, o.json.path, 1);
    }
    if (!o.csv.empty())
        write_output(o.csv, [&](std::ostream& out) {
            out << "kernel,backend,precision,n,wg,items,bytes,time_s,time_min_s,time_max_s,reps,"
                   "bandwidth_gbs,correct\n";
            for (const auto& p : points)
                out << p.kernel << "," << p.backend << "," << p.precision << "," << p.n << ","
                    << p.wg << "," << p.items << "," << p.bytes << "," << p.time_s << ","
                    << p.time_min_s << "," << p.time_max_s << "," << p.reps << ","
                    << p.bandwidth_gbs << "," << p.correct << "\n";
        });
    if (!o.plot.empty())
        write_output(o.plot, [&](std::ostream& out) {
            bench::write_plot(out, points, fits,
                              "portla bench, " + (gpu.empty() ? cpu_model() : gpu) + ", " +
                                  o.precision + ", " + now_utc().substr(0, 10) + ", commit " +
                                  commit);
        });
    for (const auto& p : points)
        if (!p.correct) {
            std::cerr << "portla: error: bench: " << p.kernel << " on " << p.backend
                      << " at n = " << p.n << " gave a wrong result (relative error " << p.error
                      << ")\n";
            return exit_error;
        }
    return exit_ok;
}

}  // namespace

Runner add_bench(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    app.add_option(
           "kernel", o->kernels,
           "kernels: copy axpby dot dot-host norm2 fused-cg unfused-cg gemv spmv-csr stencil "
           "cg cg-host cg-dense ilu0-apply, or all")
        ->required();
    app.add_option("--backend", o->backends, backend_help())->delimiter(',');
    app.add_option("--sizes", o->sizes,
                   "sizes: 2^10:2^30 doubles through the range, or a list (vector length; "
                   "unknowns for spmv/stencil/cg/ilu0-apply; matrix elements for gemv/cg-dense)");
    app.add_option("--wg", o->wg,
                   "work-group sizes of the cuda vector kernels, e.g. 32,64,128,256");
    app.add_option("--items", o->items, "items per thread of the cuda vector kernels, e.g. 1,4,16");
    app.add_option("--reps", o->reps, "timed calls per point (at most)");
    app.add_option("--max-time", o->max_time,
                   "seconds per point after which repetitions stop (at least 5 run)");
    app.add_option("--precision", o->precision, "double or float")
        ->check(CLI::IsMember({"double", "float"}));
    app.add_flag("--flush-cache", o->flush_cache, "CPU: evict the caches before every timed call");
    app.add_flag("--host-clock", o->host_clock,
                 "time every call by the host's clock between two synchronisations, on every "
                 "backend (GPUs otherwise use their events; opencl always the host clock)");
    app.add_option("--calls-per-sample", o->calls_per_sample,
                   "calls timed together back to back, the sample being their mean (T0 of a "
                   "call in a stream of calls, as the shared cuBLAS figures were taken; "
                   "default 1: one call between two events); solver iterations and "
                   "--flush-cache take 1 (each point's JSON says what it used)");
    add_json_option(app, o->json);  // the points and fits
    app.add_option("--csv", o->csv, "write points as CSV")->check(output_file());
    app.add_option("--plot", o->plot, "write an SVG plot of bandwidth against size")
        ->check(output_file());
    app.add_flag("--quiet", o->quiet, "no progress on stderr");
    app.add_flag("--tuned", o->tuned,
                 "vector kernels of cuda and omp: the shipped default launch against the "
                 "device's tuning profile (portla tune), in one run, instead of --wg/--items");
    return [o] {
        require_distinct_files({},
                               {{"--json", o->json.path}, {"--csv", o->csv}, {"--plot", o->plot}});
        return run(*o);
    };
}

}  // namespace portla::cli
