// portla batch: many small systems with one shared sparsity pattern, solved by one batched
// solver call, from a directory of Matrix Market systems or the generated 3-point stencil.
// Exit 0 when every system converged, 2 when some did not (result printed), 1 on errors.
//
// Defaults: --solver bicgstab, --precond none, --format csr, --rtol 1e-6, --max-iters 2n (the
// PeleLM setup of the batched-solver literature), --restart 30, --block-size 4, --backend auto,
// --precision double; --batch-size 1024 with --generate.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "portla/batch/matrix.hpp"
#include "portla/batch/solver.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/format.hpp"
#include "portla/solver/types.hpp"
#include "subcommands.hpp"

namespace portla::cli {
namespace {

struct BatchOptions {
    std::string dir;
    std::string generate;
    long long batch_size = -1;    ///< -1: not given (1024 with --generate)
    long long replicate_to = -1;  ///< -1: not given
    std::string format;           ///< empty: csr (dense for --solver direct)
    std::string solver = "bicgstab";
    int restart = 30;
    std::string precond = "none";
    int block_size = 4;
    double rtol = 1e-6;
    double atol = -1;          ///< < 0: not given
    long long max_iters = -1;  ///< -1: 2n
    std::string backend = "auto";
    std::string precision = "double";
    bool global_memory = false;
    bool json = false;
};

constexpr long long default_generated_batch = 1024;

// "stencil3pt:N" -> N >= 1. Throws BadInput.
std::size_t parse_generate(const std::string& spec) {
    const std::string prefix = "stencil3pt:";
    const std::string digits =
        spec.compare(0, prefix.size(), prefix) == 0 ? spec.substr(prefix.size()) : "";
    const bool number =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    const long long n = number ? std::stoll(digits) : 0;
    if (n < 1)
        throw BadInput("--generate: expected stencil3pt:N with 1 <= N <= 999999999, got '" + spec +
                       "'");
    return static_cast<std::size_t>(n);
}

double physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? double(pages) * double(page)
                                 : std::numeric_limits<double>::infinity();
}

// Refuses a batch whose host arrays (values and right-hand sides in double) cannot fit in this
// machine's memory, before anything is allocated (a zero-filled vector that large would only be
// killed by the OOM killer).
void check_host_memory(const std::string& what, double systems, double nnz, double n) {
    const double bytes = systems * (nnz + n) * sizeof(double);
    if (bytes > physical_memory_bytes())
        throw OutOfMemory(what + ": " + std::to_string(static_cast<unsigned long long>(systems)) +
                              " systems need more than this machine's memory",
                          bytes > 1.8e19 ? std::numeric_limits<std::size_t>::max()
                                         : static_cast<std::size_t>(bytes));
}

struct Input {
    batch::BatchData data;
    std::size_t unique = 0;
    std::string source;
};

Input load_input(const BatchOptions& o) {
    if (o.dir.empty() == o.generate.empty())
        throw BadInput(o.dir.empty() ? "give a directory of systems (DIR/<i>/A.mtx, DIR/<i>/b.mtx) "
                                       "or --generate stencil3pt:N"
                                     : "give either a directory or --generate, not both");
    if (o.batch_size == 0) throw BadInput("--batch-size must be >= 1");
    if (o.replicate_to == 0) throw BadInput("--replicate-to must be >= 1");
    Input in;
    if (!o.generate.empty()) {
        const std::size_t n = parse_generate(o.generate);
        const long long systems = o.batch_size > 0 ? o.batch_size : default_generated_batch;
        check_host_memory("--generate " + o.generate, double(systems), 3.0 * double(n), double(n));
        in.data = batch::generate_stencil3pt(n, static_cast<std::size_t>(systems));
        in.source = o.generate;
    } else {
        if (o.batch_size > 0)
            throw BadInput(
                "--batch-size goes with --generate; use --replicate-to with a directory");
        in.data = batch::read_directory(o.dir);
        in.source = o.dir;
    }
    in.unique = in.data.num_systems;
    if (o.replicate_to > 0) {
        check_host_memory("--replicate-to", double(o.replicate_to), double(in.data.nnz()),
                          double(in.data.n));
        in.data = batch::replicate(in.data, static_cast<std::size_t>(o.replicate_to));
    }
    return in;
}

template <typename T>
void check_precision(const batch::BatchData& d, const std::string& source) {
    if (!std::is_same<T, float>::value) return;
    const double limit = std::numeric_limits<float>::max();
    auto check = [&](const std::vector<double>& v, const char* what) {
        for (const double x : v)
            if (std::isfinite(x) && std::abs(x) > limit)
                throw BadInput(source + ": " + what + " value " + std::to_string(x) +
                               " overflows single precision (use --precision double)");
    };
    check(d.values, "matrix");
    check(d.rhs, "right-hand side");
}

std::string format_number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string describe_launch(const batch::LaunchInfo& l) {
    std::ostringstream os;
    os << "block size " << l.block_size << ", grid " << l.grid_size << ", " << l.vectors_in_shared
       << " of " << l.vectors_total << " vectors in shared memory, matrix in "
       << (l.matrix_in_shared ? "shared" : "global") << " memory (" << l.shared_bytes
       << " bytes shared per block)";
    return os.str();
}

template <typename T>
int run(const BatchOptions& o) {
    const bool direct = o.solver == "direct";
    if (direct && !o.format.empty() && o.format != "dense")
        throw BadInput("--solver direct needs --format dense (got --format " + o.format + ")");
    if (direct && o.precond != "none")
        throw BadInput("--solver direct takes no preconditioner (got --precond " + o.precond + ")");
    const Format format = parse_format(o.format.empty() ? (direct ? "dense" : "csr") : o.format);
    if (o.restart < 1) throw BadInput("--restart must be >= 1, got " + std::to_string(o.restart));
    if (o.block_size < 1 || o.block_size > 32)
        throw BadInput("--block-size must be in [1, 32], got " + std::to_string(o.block_size));
    if (o.max_iters > std::numeric_limits<int>::max())
        throw BadInput("--max-iters must be in [0, " +
                       std::to_string(std::numeric_limits<int>::max()) + "]");
    const Executor exec = Executor::create(o.backend);
    const Input in = load_input(o);
    const batch::BatchData& d = in.data;
    check_precision<T>(d, in.source);

    const batch::BatchMatrix<T> A(exec, d, format);
    const Array<T> b(exec, std::vector<T>(d.rhs.begin(), d.rhs.end()));
    Array<T> x(exec, std::vector<T>(d.num_systems * d.n, T(0)));

    batch::Settings s;
    const int max_iters =
        o.max_iters >= 0
            ? static_cast<int>(o.max_iters)
            : static_cast<int>(std::min<std::size_t>(2 * d.n, std::numeric_limits<int>::max()));
    batch::Result res;
    if (direct) {
        res = batch::direct_solve(A, b, x);
    } else {
        s.solver = solver::parse_solver(o.solver);
        s.precond = solver::parse_preconditioner(o.precond);
        s.tolerance_type =
            o.atol >= 0 ? batch::ToleranceType::absolute : batch::ToleranceType::relative;
        s.tolerance = o.atol >= 0 ? o.atol : o.rtol;
        s.max_iters = max_iters;
        s.restart = o.restart;
        s.block_size = o.block_size;
        s.shared_memory = !o.global_memory;
        res = batch::solve(A, b, x, s);
    }

    const std::size_t B = res.size();
    int it_min = 0, it_max = 0;
    double it_mean = 0;
    if (B > 0) {
        it_min = *std::min_element(res.iterations.begin(), res.iterations.end());
        it_max = *std::max_element(res.iterations.begin(), res.iterations.end());
        for (const int it : res.iterations) it_mean += it;
        it_mean /= double(B);
    }
    const std::size_t converged = res.num_converged();
    const double worst = res.max_relative_residual();
    const double per_second = res.time_s > 0 ? double(B) / res.time_s : 0.0;
    const std::string solver_name = direct ? (!exec.is_host() ? "direct (cuBLAS batched LU)"
                                                              : "direct (LU with partial pivoting)")
                                           : o.solver;

    if (o.json) {
        nlohmann::json j;
        j["solver"] = o.solver;
        j["precond"] = o.precond;
        j["format"] = to_string(format);
        j["backend"] = exec.name();
        j["device"] = exec.device_name();
        j["precision"] = o.precision;
        j["source"] = in.source;
        j["num_systems"] = B;
        j["unique_systems"] = in.unique;
        j["n"] = d.n;
        j["nnz_per_system"] = d.nnz();
        j["tolerance_type"] = o.atol >= 0 ? "absolute" : "relative";
        j["tolerance"] = o.atol >= 0 ? o.atol : o.rtol;
        j["max_iters"] = max_iters;
        j["restart"] = o.restart;
        j["block_size"] = o.block_size;
        j["shared_memory"] = !o.global_memory;
        j["num_converged"] = converged;
        j["iterations_min"] = it_min;
        j["iterations_mean"] = it_mean;
        j["iterations_max"] = it_max;
        j["max_relative_residual"] = worst;  // NaN (a NaN system) is written as null
        j["time_s"] = res.time_s;
        j["systems_per_second"] = per_second;
        j["launch"] = {{"block_size", res.launch.block_size},
                       {"grid_size", res.launch.grid_size},
                       {"vectors_total", res.launch.vectors_total},
                       {"vectors_in_shared", res.launch.vectors_in_shared},
                       {"matrix_in_shared", res.launch.matrix_in_shared},
                       {"shared_bytes", res.launch.shared_bytes}};
        j["iterations"] = res.iterations;
        j["residual_norm"] = res.residual_norm;
        j["rhs_norm"] = res.rhs_norm;
        std::vector<bool> conv(B);
        std::vector<std::string> reasons(B);
        for (std::size_t i = 0; i < B; ++i) {
            conv[i] = res.converged(i);
            reasons[i] = solver::to_string(res.reason[i]);
        }
        j["converged"] = conv;
        j["reason"] = reasons;
        std::cout << j.dump(2) << std::endl;
    } else {
        std::cout << "batch " << solver_name << (direct ? "" : " (" + o.precond + ")") << " on "
                  << exec.name() << " [" << exec.device_name() << "], " << o.precision << ", "
                  << to_string(format) << "\n"
                  << "  systems     " << B << " (" << in.unique << " unique, from " << in.source
                  << "), n = " << d.n << ", nnz = " << d.nnz() << " per system\n"
                  << "  converged   " << converged << " of " << B << "\n"
                  << "  iterations  min " << it_min << ", mean " << it_mean << ", max " << it_max
                  << " (limit " << (direct ? 1 : max_iters) << ")\n"
                  << "  residual    worst relative ||b - Ax|| / ||b|| = " << worst
                  << " (true residual"
                  << (direct        ? std::string()
                      : o.atol >= 0 ? ", atol " + format_number(o.atol)
                                    : ", rtol " + format_number(o.rtol))
                  << ")\n"
                  << "  time        " << res.time_s << " s, " << per_second
                  << " systems per second\n";
        if (!exec.is_host() && !direct)
            std::cout << "  launch      " << describe_launch(res.launch) << "\n";
        if (converged < B) {
            // Never hidden: the first failures by index, and how many there are.
            std::cout << "  failed     ";
            std::size_t shown = 0;
            for (std::size_t i = 0; i < B && shown < 10; ++i)
                if (!res.converged(i)) {
                    std::cout << (shown++ ? ", " : " ") << "system " << i << " ("
                              << solver::to_string(res.reason[i]) << ")";
                }
            std::cout << (B - converged > shown ? ", ..." : "") << " (" << B - converged
                      << " in all)\n";
        }
    }
    return converged == B ? exit_ok : exit_not_converged;
}

}  // namespace

Runner add_batch(CLI::App& app) {
    auto o = std::make_shared<BatchOptions>();
    app.add_option("dir", o->dir,
                   "directory of systems DIR/<i>/A.mtx, DIR/<i>/b.mtx (i = 0, 1, ...)");
    app.add_option("--generate", o->generate,
                   "generated SPD tridiagonal systems stencil3pt:N (diagonal 2/h, h ~ N(0.5, 0.1); "
                   "fixed seed)");
    const CLI::Validator count(
        [](std::string& s) -> std::string {
            char* end = nullptr;
            const long long v = std::strtoll(s.c_str(), &end, 10);
            if (end == s.c_str() || *end != '\0' || v < 0)
                return "must be an integer >= 0, got '" + s + "'";
            return {};
        },
        "INTEGER >= 0");
    app.add_option("--batch-size", o->batch_size,
                   "systems to generate with --generate (default 1024)")
        ->check(count);
    app.add_option("--replicate-to", o->replicate_to,
                   "repeat the unique systems in order up to this many (or take the first ones)")
        ->check(count);
    app.add_option("--format", o->format,
                   "dense, csr or ell (default csr; dense with --solver direct)")
        ->check(CLI::IsMember(
            {to_string(Format::dense), to_string(Format::csr), to_string(Format::ell)}));
    app.add_option("--solver", o->solver,
                   "cg, bicgstab, gmres, or direct (dense LU: cuBLAS batched LU on cuda, portla's "
                   "own on CPUs)")
        ->check(CLI::IsMember({to_string(solver::Solver::cg), to_string(solver::Solver::bicgstab),
                               to_string(solver::Solver::gmres), std::string("direct")}));
    app.add_option("--restart", o->restart, "GMRES restart length (default 30)");
    app.add_option("--precond", o->precond,
                   "none, jacobi, block-jacobi or ilu0 (ilu0 needs --format csr)")
        ->check(CLI::IsMember({to_string(solver::Preconditioner::none),
                               to_string(solver::Preconditioner::jacobi),
                               to_string(solver::Preconditioner::block_jacobi),
                               to_string(solver::Preconditioner::ilu0)}));
    app.add_option("--block-size", o->block_size,
                   "block Jacobi: rows per diagonal block, 1 ... 32 (default 4)");
    const CLI::Validator non_negative = non_negative_number();
    auto* rtol = app.add_option("--rtol", o->rtol,
                                "relative tolerance on ||b_s - A_s x_s|| / ||b_s|| (default 1e-6)")
                     ->check(non_negative);
    auto* atol = app.add_option("--atol", o->atol, "absolute tolerance on ||b_s - A_s x_s||")
                     ->check(non_negative);
    rtol->excludes(atol);
    app.add_option("--max-iters", o->max_iters, "iteration limit per system (default 2n)")
        ->check(count);
    app.add_option("--backend", o->backend, executor_option_help());
    app.add_option("--precision", o->precision, "double or float")
        ->check(CLI::IsMember({"double", "float"}));
    app.add_flag("--global-memory", o->global_memory,
                 "cuda: keep every work vector and the matrix in global memory (no shared memory)");
    app.add_flag("--json", o->json, "print one JSON object with the per-system arrays");
    return [o] { return o->precision == "float" ? run<float>(*o) : run<double>(*o); };
}

}  // namespace portla::cli
