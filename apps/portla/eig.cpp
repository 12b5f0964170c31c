// portla eig: the dominant eigenpair of a positive matrix (eigen/perron.hpp), from a Matrix
// Market file or a generated Hilbert matrix, with timings against the memory floor and, on
// request, every kernel in every reduction variant timed on its own.
// Exit 0 when converged, 2 when not (result printed), 1 on errors.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <regex>

#include <nlohmann/json.hpp>

#include "input.hpp"
#include "output.hpp"
#include "portla/environment.hpp"
#include "portla/memory.hpp"
#include "portla/portla.hpp"
#include "subcommands.hpp"

namespace portla::cli {
namespace {

// The default memory floor on a GPU (an executor whose memory is not host memory): the copy
// bandwidth measured on the H100 (PERFORMANCE.md), in GB/s. --bandwidth overrides it; CPUs have
// no default.
constexpr double kGpuBandwidthGBs = 3030.0;

struct EigOptions {
    std::string file;
    std::string generate;
    std::string method = "power";
    std::string variant = "local";
    double eps = 1e-3;
    int max_iters = 1000;
    std::string precision = "double";
    std::string backend = "auto";
    std::string out;
    JsonOutput json;
    int repeat = 1;
    bool time_kernels = false;
    int wg = 0;                 // work-group size on cuda (0: the executor's default)
    double bandwidth_gbs = -1;  // < 0: kGpuBandwidthGBs on a GPU, unknown on CPUs
};

// Dense matrices larger than this are refused before allocating (4 GiB of floats).
constexpr std::size_t kMaxOrder = 32768;

std::size_t parse_hilbert(const std::string& spec) {
    static const std::regex re(R"(hilbert:([0-9]{1,9}))");
    std::smatch m;
    if (!std::regex_match(spec, m, re))
        throw BadInput("--generate: expected hilbert:N, got '" + spec + "'");
    const auto n = static_cast<std::size_t>(std::stoull(m[1]));
    if (n < 1 || n > kMaxOrder)
        throw BadInput("--generate: N must be in [1, " + std::to_string(kMaxOrder) + "], got '" +
                       spec + "'");
    return n;
}

// The row-major host matrix and its description; positivity checked (a clear error names the
// first entry that is not positive).
template <typename T>
std::vector<T> load_matrix(const EigOptions& o, std::size_t& n, std::string& description) {
    if (o.file.empty() && o.generate.empty())
        throw BadInput(
            "no matrix given: name a Matrix Market file (portla eig A.mtx) or generate one "
            "(portla eig --generate hilbert:N)");
    if (!o.file.empty() && !o.generate.empty())
        throw BadInput("give one matrix: a Matrix Market FILE or --generate hilbert:N, not both");
    std::vector<T> a;
    if (!o.generate.empty()) {
        n = parse_hilbert(o.generate);
        description = o.generate;
        a.resize(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) a[i * n + j] = T(1.0 / double(i + j + 1));
        return a;
    }
    description = o.file;
    MatrixData d = load_input(o.file, [&] { return io::read_matrix_market(o.file); });
    if (d.rows != d.cols)
        throw BadInput(o.file + ": matrix is " + std::to_string(d.rows) + " x " +
                       std::to_string(d.cols) + ", the eigenvalue needs a square matrix");
    if (d.rows == 0) throw BadInput(o.file + ": matrix is empty (0 x 0)");
    if (static_cast<std::size_t>(d.rows) > kMaxOrder)
        throw BadInput(o.file + ": order " + std::to_string(d.rows) + " is above " +
                       std::to_string(kMaxOrder) + ", too large for a dense matrix");
    n = static_cast<std::size_t>(d.rows);
    // Fewer stored entries than n^2 leave a zero somewhere: refused before the dense copy (a
    // one-entry file declaring 32768 x 32768 would otherwise fill 8 GiB first).
    if (d.entries() < n * n)
        throw BadInput(o.file + ": a positive matrix needs all " + std::to_string(n * n) +
                       " entries; the file stores " + std::to_string(d.entries()) +
                       " (the others are zero)");
    std::vector<double> dense(n * n, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k)
        dense[d.row_idx[k] * n + d.col_idx[k]] += d.values[k];
    eigen::check_positive(n, dense.data(), o.file);
    for (double x : dense)
        if (std::is_same<T, float>::value &&
            (x > std::numeric_limits<float>::max() || x < std::numeric_limits<float>::min()))
            throw BadInput(
                o.file + ": value " + std::to_string(x) +
                " is outside the normal single-precision range (use --precision double)");
    return std::vector<T>(dense.begin(), dense.end());
}

// The whole run's memory from the declared order n (the file's header, before reading it): the
// file's entries, the dense matrix in double and in T on the host, and A_0, A and the vectors
// on the executor (their copies for --time-kernels).
template <typename T>
void require_eig_memory(const Executor& exec, const EigOptions& o) {
    double n = 0, entries = 0;
    std::string what;
    if (!o.generate.empty()) {
        n = double(parse_hilbert(o.generate));
        what = "eig --generate " + o.generate;
    } else if (!o.file.empty()) {
        const DeclaredSize size = read_declared_size(o.file);
        n = std::max(size.rows, size.cols), entries = size.entries;
        what = "eig " + o.file + " (" + std::to_string(std::size_t(size.rows)) + " x " +
               std::to_string(std::size_t(size.cols)) + ", dense)";
    } else {
        return;  // load_matrix says what is missing
    }
    MemoryNeed host, device;
    host.add(entries, 2 * sizeof(std::int64_t) + sizeof(double))
        .add(n * n, sizeof(double) + sizeof(T));
    device.add(n * n * (o.time_kernels ? 3 : 2) + 8 * n, sizeof(T));
    if (exec.is_host()) {
        require_host_memory(host.add_bytes(device.bytes()), what);
    } else {
        require_host_memory(host, what + " (host)");
        require_memory(exec, device, what);
    }
}

// Values of T moved per call of each kernel, n x n matrix (counted by hand).
double kernel_values(const std::string& kernel, double n) {
    if (kernel == "row_sums") return n * n + n;
    if (kernel == "weighted_row_sums") return n * n + 3 * n;
    if (kernel == "transform") return 2 * n * n + n;
    if (kernel == "fused_transform_row_sums") return 2 * n * n + 2 * n;
    if (kernel == "scale") return 3 * n;
    return n;  // max, stop_test: one read of s
}

// Values of T the whole solve must move: the row sums of A_0 ... A_k (k transforms), and per
// transform one read and one write of A (similarity: plus a separate read for the row sums).
double solve_values(eigen::PerronMethod method, double n, int k) {
    switch (method) {
        case eigen::PerronMethod::similarity:
            return (k + 1) * n * n + 2.0 * k * n * n;
        case eigen::PerronMethod::fused:
            return n * n + 2.0 * k * n * n;
        case eigen::PerronMethod::power:
            return (k + 1) * n * n;
    }
    return 0;
}

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const std::size_t m = x.size() / 2;
    return x.size() % 2 ? x[m] : 0.5 * (x[m - 1] + x[m]);
}

// Seconds per call: r back-to-back calls between two marks of a Timer (r sized for about
// 20 ms per batch after one warm-up call), median of 5 batches.
template <typename Fn>
double time_per_call(const Executor& exec, Fn call) {
    Timer timer(exec);
    auto batch = [&](int r) {
        timer.start();
        for (int i = 0; i < r; ++i) call();
        timer.stop();
        return timer.seconds() / r;
    };
    const double first = batch(1);
    const int r = static_cast<int>(std::clamp(0.02 / std::max(first, 1e-9), 1.0, 50.0));
    std::vector<double> t;
    for (int b = 0; b < 5; ++b) t.push_back(batch(r));
    return median(t);
}

// Every kernel in every variant on the matrix `a0` (copied, never modified).
template <typename T>
nlohmann::json time_kernels(const Executor& exec, std::size_t n, const Array<T>& a0,
                            double bandwidth_gbs) {
    namespace ek = eigen::kernels;
    Array<T> a(exec, a0), s(exec, n), s2(exec, n), v(exec, n), m(exec, 1);
    // s in [0.99, 1.01]: repeated transforms keep A's values far from overflow and subnormals.
    std::vector<T> sh(n);
    for (std::size_t i = 0; i < n; ++i) sh[i] = T(0.99 + 0.02 * double((i * 7919) % 101) / 100.0);
    s.copy_from_host(sh);
    blas::fill<T>(exec, v, T(1));
    blas::fill<T>(exec, m, T(1));
    nlohmann::json out = nlohmann::json::array();
    auto add = [&](const std::string& kernel, const std::string& variant, double seconds) {
        const double bytes = kernel_values(kernel, double(n)) * sizeof(T);
        nlohmann::json k{{"kernel", kernel}, {"variant", variant},
                         {"n", n},           {"time_s", seconds},
                         {"bytes", bytes},   {"bandwidth_gbs", bytes / seconds / 1e9}};
        k["floor_s"] =
            bandwidth_gbs > 0 ? nlohmann::json(bytes / (bandwidth_gbs * 1e9)) : nlohmann::json();
        out.push_back(k);
    };
    for (auto variant : {eigen::ReductionVariant::atomic, eigen::ReductionVariant::subgroup,
                         eigen::ReductionVariant::local}) {
        const std::string vn = eigen::to_string(variant);
        add("row_sums", vn, time_per_call(exec, [&] { ek::row_sums<T>(exec, variant, n, a, s2); }));
        add("weighted_row_sums", vn,
            time_per_call(exec, [&] { ek::weighted_row_sums<T>(exec, variant, n, a, v, s2); }));
        add("max", vn, time_per_call(exec, [&] { ek::max<T>(exec, variant, s, m); }));
        add("stop_test", vn, time_per_call(exec, [&] { ek::stop_test<T>(exec, variant, s, m); }));
        add("fused_transform_row_sums", vn, time_per_call(exec, [&] {
                ek::fused_transform_row_sums<T>(exec, variant, n, s, a, s2);
            }));
        a.copy_from(a0);
    }
    blas::fill<T>(exec, m, T(1.5));
    add("scale", "-", time_per_call(exec, [&] { ek::scale<T>(exec, s, m, v); }));
    add("transform", "-", time_per_call(exec, [&] { ek::transform<T>(exec, n, s, a); }));
    return out;
}

template <typename T>
int run(const EigOptions& o) {
    Executor exec = executor_from_environment(o.backend);
    if (o.wg > 0) exec.set_launch({o.wg, exec.launch().items_per_thread});
    eigen::PerronSettings s;
    s.method = eigen::parse_perron_method(o.method);
    s.variant = eigen::parse_reduction_variant(o.variant);
    s.eps = o.eps;
    s.max_iters = o.max_iters;
    s.check_positive = false;  // checked on the host copy by load_matrix
    if (!(o.eps > 0) || !std::isfinite(o.eps)) throw BadInput("--eps must be finite and > 0");
    require_eig_memory<T>(exec, o);
    std::size_t n = 0;
    std::string description;
    const std::vector<T> host = load_matrix<T>(o, n, description);
    const double bandwidth =
        o.bandwidth_gbs >= 0 ? o.bandwidth_gbs : (!exec.is_host() ? kGpuBandwidthGBs : 0.0);

    const Array<T> a0(exec, host);
    Array<T> a(exec, n * n), v(exec, n);
    eigen::PerronResult res;
    std::vector<double> times;
    // With --repeat R > 1 a first solve warms up (module load, first touch) and is not counted.
    for (int r = (o.repeat > 1 ? -1 : 0); r < o.repeat; ++r) {
        a.copy_from(a0);
        res = eigen::perron_in_place<T>(exec, n, a, v, s);
        if (r >= 0) times.push_back(res.time_s);
    }
    const double time_s = median(times);
    const auto vh = v.to_host();
    const double residual = eigen::relative_residual(n, host.data(), vh.data(), res.eigenvalue);

    const int per = std::max(1, res.iterations);
    const double bytes = solve_values(s.method, double(n), res.iterations) * sizeof(T);
    nlohmann::json j;
    j["eigenvalue"] = res.eigenvalue;
    j["iterations"] = res.iterations;
    j["converged"] = res.converged;
    j["reason"] = solver::to_string(res.reason);
    j["time_s"] = time_s;
    j["time_per_iteration_s"] = time_s / per;
    j["times_s"] = times;
    j["n"] = n;
    j["method"] = o.method;
    j["variant"] = o.variant;
    j["wg"] = exec.launch().work_group_size;
    j["eps"] = o.eps;
    j["max_difference"] = res.max_difference;
    j["residual"] = residual;
    j["backend"] = exec.name();
    j["device"] = exec.device_name();
    j["precision"] = o.precision;
    j["problem"] = description;
    j["bytes"] = bytes;
    j["bandwidth_gbs"] = bytes / time_s / 1e9;
    j["floor_s"] = bandwidth > 0 ? nlohmann::json(bytes / (bandwidth * 1e9)) : nlohmann::json();
    j["floor_per_iteration_s"] =
        bandwidth > 0 ? nlohmann::json(bytes / (bandwidth * 1e9) / per) : nlohmann::json();
    j["floor_bandwidth_gbs"] = bandwidth > 0 ? nlohmann::json(bandwidth) : nlohmann::json();
    if (o.time_kernels) j["kernels"] = time_kernels<T>(exec, n, a0, bandwidth);
    if (!o.out.empty()) write_vector_output(o.out, std::vector<double>(vh.begin(), vh.end()));
    if (o.json.requested()) emit_json(j, o.json.path);
    if (!o.json.to_stdout()) {
        std::cout << "eig (" << o.method << ", " << o.variant << ") on " << exec.name() << " ["
                  << exec.device_name() << "], " << o.precision << "\n"
                  << "  problem     " << description << ": n = " << n << "\n"
                  << "  eigenvalue  " << std::setprecision(12) << res.eigenvalue << "\n"
                  << std::setprecision(6) << "  iterations  " << res.iterations << " ("
                  << solver::to_string(res.reason) << ", max |s_i - s_i+1| = " << res.max_difference
                  << ", eps " << o.eps << ")\n"
                  << "  converged   " << (res.converged ? "yes" : "no") << "\n"
                  << "  residual    ||A v - lambda v|| / ||lambda v|| = " << residual << "\n"
                  << "  time        " << time_s << " s (" << time_s / per << " s per iteration";
        if (bandwidth > 0)
            std::cout << ", " << time_s / (bytes / (bandwidth * 1e9)) << "x the memory floor";
        std::cout << ")\n";
        if (o.time_kernels)
            for (const auto& k : j["kernels"])
                std::cout << "  kernel      " << std::setw(26) << std::left
                          << k["kernel"].get<std::string>() << std::setw(9)
                          << k["variant"].get<std::string>() << std::right << std::setw(12)
                          << k["time_s"].get<double>() << " s  " << std::setw(8)
                          << k["bandwidth_gbs"].get<double>() << " GB/s\n";
    }
    return res.converged ? exit_ok : exit_not_converged;
}

}  // namespace

Runner add_eig(CLI::App& app) {
    auto o = std::make_shared<EigOptions>();
    app.add_option("file", o->file, "positive square matrix in Matrix Market format")
        ->check(regular_file());
    app.add_option("--generate", o->generate,
                   "generated matrix: hilbert:N (a_ij = 1 / (i + j - 1))");
    app.add_option("--method", o->method, "similarity, fused or power")
        ->check(CLI::IsMember({"similarity", "fused", "power"}));
    app.add_option("--variant", o->variant, "reduction on cuda: atomic, subgroup or local")
        ->check(CLI::IsMember({"atomic", "subgroup", "local"}));
    app.add_option("--eps", o->eps, "stop when neighbouring row sums differ by less than this")
        ->check(positive_number());
    app.add_option("--max-iters", o->max_iters, "maximum similarity transforms")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--precision", o->precision, "double or float")
        ->check(CLI::IsMember({"double", "float"}));
    app.add_option("--backend", o->backend, executor_option_help());
    app.add_option("--out", o->out,
                   "write the eigenvector v to this Matrix Market file (also when not converged, "
                   "exit 2)")
        ->check(output_file());
    add_json_option(app, o->json);
    app.add_option("--repeat", o->repeat,
                   "solve this many times after a warm-up; report the median")
        ->check(CLI::Range(1, 1000));
    app.add_option("--wg", o->wg, "work-group size of the cuda kernels (a multiple of 32, <= 1024)")
        ->check(CLI::Range(32, 1024));
    app.add_flag("--time-kernels", o->time_kernels, "also time every kernel in every variant");
    app.add_option("--bandwidth", o->bandwidth_gbs, "GB/s of the memory floor")
        ->check(non_negative_number())
        ->default_str(std::to_string(int(kGpuBandwidthGBs)) + " on a GPU, none on CPUs");
    return [o] {
        require_distinct_files({{"FILE", o->file}}, {{"--out", o->out}, {"--json", o->json.path}});
        return o->precision == "float" ? run<float>(*o) : run<double>(*o);
    };
}

}  // namespace portla::cli
