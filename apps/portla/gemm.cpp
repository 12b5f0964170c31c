// portla gemm: C = alpha A B + beta C on random matrices with one or more variants; prints the
// median time, GFLOP/s and the relative error against an independent result. Exit 0, or 1 on
// errors (bad options, a variant the backend lacks, out of memory).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/gemm_run.hpp"
#include "output.hpp"
#include "portla/environment.hpp"
#include "portla/executor.hpp"
#include "portla/memory.hpp"
#include "subcommands.hpp"

#ifndef PORTLA_GIT_COMMIT
#define PORTLA_GIT_COMMIT "unknown"
#endif

namespace portla::cli {
namespace {

struct GemmOptions {
    std::size_t m = 1024, n = 1024, k = 1024;
    std::string variants = "fast";
    std::string precision = "float";
    std::string backend = "auto";
    double alpha = 1.0, beta = 0.0;
    int reps = 10;
    JsonOutput json;
};

// A, B and C on the executor; on the host the inputs, C's start, and the checks' copies of A,
// B and C with the results they are compared against.
void require_gemm_memory(const Executor& exec, const GemmOptions& o) {
    const double m = double(o.m), n = double(o.n), k = double(o.k);
    const double value = o.precision == "double" ? sizeof(double) : sizeof(float);
    MemoryNeed host, device;
    device.add(m * k + k * n + m * n, value);
    host.add(2 * (m * k + k * n) + 4 * m * n, value);
    const std::string what = "gemm --m " + std::to_string(o.m) + " --n " + std::to_string(o.n) +
                             " --k " + std::to_string(o.k);
    if (exec.is_host()) {
        require_host_memory(host.add_bytes(device.bytes()), what);
    } else {
        require_host_memory(host, what + " (host)");
        require_memory(exec, device, what);
    }
}

// "fast", "naive,fast" or "all" (every variant the backend implements).
std::vector<GemmVariant> parse_variants(const std::string& spec, Backend backend) {
    std::vector<GemmVariant> out;
    std::stringstream ss(spec);
    for (std::string item; std::getline(ss, item, ',');) {
        if (item == "all") {
            for (auto v : {GemmVariant::naive, GemmVariant::tiled, GemmVariant::subgroup,
                           GemmVariant::fast, GemmVariant::vendor})
                if (gemm_supported(backend, v)) out.push_back(v);
        } else {
            out.push_back(parse_gemm_variant(item));
        }
    }
    if (out.empty()) throw BadInput("gemm: --variant is empty");
    return out;
}

nlohmann::json to_json(const bench::GemmResult& r, const std::string& date,
                       const std::string& commit) {
    return {{"m", r.m},
            {"n", r.n},
            {"k", r.k},
            {"variant", to_string(r.variant)},
            {"precision", r.precision},
            {"backend", r.backend},
            {"time_s", r.time_s},
            {"gflops", r.gflops},
            {"relative_error", r.relative_error},
            {"time_min_s", r.time_min_s},
            {"time_max_s", r.time_max_s},
            {"reps", r.reps},
            {"checked_against", r.checked_against},
            {"device", r.device},
            {"date", date},
            {"commit", commit}};
}

int run(const GemmOptions& o) {
    if (o.reps < 1) throw BadInput("gemm: --reps must be at least 1");
    bench::GemmCase gc;
    gc.backend = o.backend;
    gc.precision = o.precision;
    gc.m = o.m, gc.n = o.n, gc.k = o.k;
    const Executor exec = executor_from_environment(o.backend);
    gc.variants = parse_variants(o.variants, exec.backend());
    require_gemm_memory(exec, o);
    gc.alpha = o.alpha, gc.beta = o.beta;
    gc.reps = o.reps;
    const auto results = bench::run_gemm(gc);

    const std::string named_commit = commit_from_environment();
    const std::string commit = !named_commit.empty() ? named_commit : PORTLA_GIT_COMMIT;
    const std::time_t t = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    if (o.json.requested()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : results) out.push_back(to_json(r, date, commit));
        emit_json(out.size() == 1 ? out[0] : out, o.json.path);
        if (o.json.to_stdout()) return exit_ok;
    }
    for (const auto& r : results)
        std::cout << std::left << std::setw(9) << to_string(r.variant) << r.backend << " "
                  << r.precision << " " << r.m << " x " << r.n << " x " << r.k << ": "
                  << std::setprecision(4) << r.time_s * 1e3 << " ms, " << std::fixed
                  << std::setprecision(1) << r.gflops << " GFLOP/s, relative error "
                  << std::scientific << std::setprecision(2) << r.relative_error << " (vs "
                  << r.checked_against << ")" << std::defaultfloat << "\n";
    return exit_ok;
}

}  // namespace

Runner add_gemm(CLI::App& app) {
    auto o = std::make_shared<GemmOptions>();
    // Sizes are checked as text: a size_t would wrap "-1" and saturate "1e30" before a check.
    const CLI::Validator size(
        [](std::string& s) -> std::string {
            const long long limit = std::numeric_limits<std::int32_t>::max();
            char* end = nullptr;
            errno = 0;
            const long long v = std::strtoll(s.c_str(), &end, 10);
            if (end == s.c_str() || *end != '\0' || errno == ERANGE || v < 1 || v > limit)
                return "must be an integer in [1, " + std::to_string(limit) + "], got '" + s + "'";
            return {};
        },
        "INTEGER in [1, 2^31-1]");
    app.add_option("--m", o->m, "rows of A and C")->check(size);
    app.add_option("--n", o->n, "columns of B and C")->check(size);
    app.add_option("--k", o->k, "columns of A, rows of B")->check(size);
    app.add_option("--variant", o->variants,
                   "naive, tiled, subgroup, fast, vendor, a comma-separated list, or all");
    app.add_option("--precision", o->precision, "float or double")
        ->check(CLI::IsMember({"float", "double"}));
    app.add_option("--backend", o->backend, executor_option_help());
    app.add_option("--alpha", o->alpha, "C = alpha A B + beta C");
    app.add_option("--beta", o->beta, "C = alpha A B + beta C (0: C is not read)");
    app.add_option("--reps", o->reps, "timed calls per variant (at most; 2 s cap, at least 3)");
    add_json_option(app, o->json);  // one object, or an array for several variants
    return [o] { return run(*o); };
}

}  // namespace portla::cli
