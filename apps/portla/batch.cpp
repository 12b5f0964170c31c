// portla batch: many small systems with one shared sparsity pattern, solved by one batched
// solver call, from a directory of Matrix Market systems or the generated 3-point stencil.
// Exit 0 when every system converged, 2 when some did not (result printed), 1 on errors.
//
// Defaults: --solver bicgstab, --precond none, --format csr, --rtol 1e-6, --atol 0, --max-iters 2n
// (the PeleLM setup of the batched-solver literature), --restart 30, --block-size 4, --backend
// auto, --precision double; --batch-size 1024 with --generate. System s has converged when
// ||b_s - A_s x_s|| <= max(rtol ||b_s||, atol), as in portla solve.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "portla/batch/distributed.hpp"
#include "portla/batch/matrix.hpp"
#include "portla/batch/solver.hpp"
#include "input.hpp"
#include "mpi.hpp"
#include "output.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/memory.hpp"
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
    double atol = 0;
    long long max_iters = -1;  ///< -1: 2n
    std::string backend = "auto";
    std::string precision = "double";
    bool global_memory = false;
    JsonOutput json;
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

// Refuses a batch whose whole run cannot fit in the memory available now, before anything is
// allocated: the host's BatchData (values, right-hand sides, pattern) and its copies in T, the
// batch matrix, b, x, and the solver's and preconditioner's vectors for every system.
template <typename T>
void require_batch_memory(const Executor& exec, const BatchOptions& o, Format format,
                          const std::string& what, double systems, double n, double nnz) {
    MemoryNeed host, device;
    host.add(systems * (nnz + n), sizeof(double)).add(nnz + n + 1, sizeof(std::int32_t));
    host.add(2 * systems * n, sizeof(T));  // b and x built on the host
    device.add(systems * (format == Format::dense ? n * n : nnz), sizeof(T));
    const double vectors = o.solver == "direct"  ? 1
                           : o.solver == "gmres" ? o.restart + 5.0
                           : o.solver == "cg"    ? 5
                                                 : 9;
    device.add(systems * n * (vectors + 2), sizeof(T));
    if (o.precond == "ilu0") device.add(systems * nnz, sizeof(T));
    if (o.precond == "block-jacobi") device.add(systems * n * o.block_size, sizeof(T));
    if (o.precond == "jacobi") device.add(systems * n, sizeof(T));
    if (exec.is_host()) {
        require_host_memory(host.add_bytes(device.bytes()), what);
    } else {
        require_host_memory(host, what + " (host)");
        require_memory(exec, device, what);
    }
}

// This rank's share of the batch: systems [first, first + data.num_systems) of `total` (all of
// them with one rank), the `unique` systems read or generated repeated in order up to total.
struct Input {
    batch::BatchData data;
    std::size_t total = 0;
    std::size_t first = 0;
    std::size_t unique = 0;
    std::string source;
};

// Loads this rank's systems: rank `rank` of `ranks` takes its block of batch::split_systems.
// Only the unique systems its block uses are read (files) or generated, as one block
// [start, start + length), or all of them when its block wraps around; the rank holding the
// batch's last system also loads the unique systems that --replicate-to leaves unused, so that
// a bad file there is an error as with one rank.
template <typename T>
Input load_batch(const Executor& exec, const BatchOptions& o, Format format, int rank, int ranks) {
    if (o.dir.empty() == o.generate.empty())
        throw BadInput(o.dir.empty() ? "give a directory of systems (DIR/<i>/A.mtx, DIR/<i>/b.mtx) "
                                       "or --generate stencil3pt:N"
                                     : "give either a directory or --generate, not both");
    if (o.batch_size == 0) throw BadInput("--batch-size must be >= 1");
    if (o.replicate_to == 0) throw BadInput("--replicate-to must be >= 1");
    Input in;
    std::size_t n = 0;
    if (!o.generate.empty()) {
        n = parse_generate(o.generate);
        in.unique =
            static_cast<std::size_t>(o.batch_size > 0 ? o.batch_size : default_generated_batch);
        in.source = o.generate;
    } else {
        if (o.batch_size > 0)
            throw BadInput(
                "--batch-size goes with --generate; use --replicate-to with a directory");
        in.unique = load_input(o.dir, [&] { return batch::list_directory(o.dir); }).size();
        in.source = o.dir;
    }
    in.total = o.replicate_to > 0 ? static_cast<std::size_t>(o.replicate_to) : in.unique;
    const auto offsets = batch::split_systems(in.total, ranks);
    in.first = offsets[static_cast<std::size_t>(rank)];
    const std::size_t count = offsets[static_cast<std::size_t>(rank) + 1] - in.first;
    if (count == 0) return in;
    std::size_t start = in.first % in.unique, length = count;
    if (start + count > in.unique) {
        start = 0;
        length = in.unique;
    } else if (in.first + count == in.total && in.total < in.unique) {
        length = in.unique - start;
    }

    batch::BatchData loaded;
    if (!o.generate.empty()) {
        require_batch_memory<T>(
            exec, o, format,
            "--generate " + o.generate + " --batch-size " + std::to_string(in.unique),
            double(length), double(n), 3.0 * double(n));
        loaded = batch::generate_stencil3pt(n, length, batch::stencil3pt_seed, start);
    } else {
        loaded = load_input(o.dir, [&] { return batch::read_directory(o.dir, start, length); });
    }
    if (o.replicate_to > 0 || o.generate.empty())
        require_batch_memory<T>(
            exec, o, format,
            o.replicate_to > 0 ? "--replicate-to " + std::to_string(o.replicate_to) : o.dir,
            double(count), double(loaded.n), double(loaded.nnz()));
    const std::size_t skip = in.first % in.unique - start;
    in.data =
        skip == 0 && length == count ? std::move(loaded) : batch::replicate(loaded, count, skip);
    return in;
}

// Whether system `sys` of `d` holds a finite value that T cannot hold (single precision: above
// 3.4e38), which would turn into Inf: such a system is reported bad_scale.
template <typename T>
bool overflows(const batch::BatchData& d, std::size_t sys) {
    const double limit = std::numeric_limits<T>::max();
    auto above = [&](const double* v, std::size_t count) {
        return std::any_of(v, v + count,
                           [&](double x) { return std::isfinite(x) && std::abs(x) > limit; });
    };
    return above(d.values.data() + sys * d.nnz(), d.nnz()) || above(d.rhs.data() + sys * d.n, d.n);
}

std::string format_number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string describe_launch(const batch::LaunchInfo& l) {
    std::ostringstream os;
    os << "block size " << l.block_size << ", grid " << l.grid_size << ", " << l.vectors_in_shared
       << " of " << l.vectors_total << " vectors in shared memory, " << l.vectors_in_registers
       << " in registers, matrix in " << (l.matrix_in_shared ? "shared" : "global") << " memory ("
       << l.shared_bytes << " bytes shared per block)";
    return os.str();
}

int max_iterations(const BatchOptions& o, std::size_t n) {
    return o.max_iters >= 0
               ? static_cast<int>(o.max_iters)
               : static_cast<int>(std::min<std::size_t>(2 * n, std::numeric_limits<int>::max()));
}

// Converged when ||r_s|| <= tau_s = max(rtol ||b_s||, atol). The batched solvers take one
// relative or one absolute tolerance; with both, system s is solved for b_s / tau_s to the
// absolute tolerance 1 (the iterates scale with b), and its norms are scaled back.
bool combined_tolerance(const BatchOptions& o) {
    return o.solver != "direct" && o.rtol > 0 && o.atol > 0;
}

// The iterative solvers' settings of `o` for systems of n rows.
batch::Settings settings_of(const BatchOptions& o, std::size_t n) {
    const bool combined = combined_tolerance(o);
    batch::Settings s;
    s.solver = solver::parse_solver(o.solver);
    s.precond = solver::parse_preconditioner(o.precond);
    const bool absolute = combined || o.rtol == 0;
    s.tolerance_type = absolute ? batch::ToleranceType::absolute : batch::ToleranceType::relative;
    s.tolerance = combined ? 1.0 : absolute ? o.atol : o.rtol;
    s.max_iters = max_iterations(o, n);
    s.restart = o.restart;
    s.block_size = o.block_size;
    s.shared_memory = !o.global_memory;
    return s;
}

// Solves the systems of `d` (this rank's) on `exec`; a system holding a value T cannot
// hold is reported bad_scale.
template <typename T>
batch::Result solve_systems(const Executor& exec, const BatchOptions& o, Format format,
                            const batch::BatchData& d) {
    const bool combined = combined_tolerance(o);
    std::vector<double> tau(d.num_systems, 1.0);
    std::vector<T> rhs(d.rhs.begin(), d.rhs.end());
    if (combined)
        for (std::size_t sys = 0; sys < d.num_systems; ++sys) {
            double norm = 0;
            for (std::size_t i = 0; i < d.n; ++i)
                norm += d.rhs[sys * d.n + i] * d.rhs[sys * d.n + i];
            tau[sys] = std::max(o.rtol * std::sqrt(norm), o.atol);
            for (std::size_t i = 0; i < d.n; ++i)
                rhs[sys * d.n + i] = T(d.rhs[sys * d.n + i] / tau[sys]);
        }
    const batch::BatchMatrix<T> A(exec, d, format);
    const Array<T> b(exec, rhs);
    Array<T> x(exec, std::vector<T>(d.num_systems * d.n, T(0)));
    batch::Result res = o.solver == "direct" ? batch::direct_solve(A, b, x)
                                             : batch::solve(A, b, x, settings_of(o, d.n));
    for (std::size_t sys = 0; sys < res.size(); ++sys) {
        if (combined) {
            res.residual_norm[sys] *= tau[sys];
            res.rhs_norm[sys] *= tau[sys];
        }
        if (overflows<T>(d, sys)) res.reason[sys] = solver::StopReason::bad_scale;
    }
    return res;
}

// Prints (and writes with --json FILE) the whole batch's result `res`; what rank 0 does. `d`
// holds rank 0's systems (their size and pattern are every system's). Returns the exit status.
int report(const BatchOptions& o, const Executor& exec, Format format, const Input& in,
           const batch::Result& res, int ranks) {
    const batch::BatchData& d = in.data;
    const bool direct = o.solver == "direct";
    const bool combined = combined_tolerance(o);
    const int max_iters = max_iterations(o, d.n);
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

    const std::string tolerance_type = combined      ? "max(relative, absolute)"
                                       : o.rtol == 0 ? "absolute"
                                                     : "relative";
    nlohmann::json j;
    if (o.json.requested()) {
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
        j["tolerance_type"] = tolerance_type;
        j["tolerance"] = o.rtol == 0 ? o.atol : o.rtol;
        j["rtol"] = o.rtol;
        j["atol"] = o.atol;
        j["max_iters"] = max_iters;
        j["restart"] = o.restart;
        j["block_size"] = o.block_size;
        j["shared_memory"] = !o.global_memory;
        j["ranks"] = ranks;
        j["num_converged"] = converged;
        j["iterations_min"] = it_min;
        j["iterations_mean"] = it_mean;
        j["iterations_max"] = it_max;
        j["max_relative_residual"] = worst;  // NaN (a NaN system) is written as null
        j["time_s"] = res.time_s;            // under mpirun: the slowest rank's
        j["systems_per_second"] = per_second;
        j["launch"] = {{"block_size", res.launch.block_size},  // rank 0's
                       {"grid_size", res.launch.grid_size},
                       {"vectors_total", res.launch.vectors_total},
                       {"vectors_in_shared", res.launch.vectors_in_shared},
                       {"vectors_in_registers", res.launch.vectors_in_registers},
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
        std::vector<std::size_t> failed;  // the indices of the systems that did not converge
        for (std::size_t i = 0; i < B; ++i)
            if (!conv[i]) failed.push_back(i);
        j["failed"] = failed;
        emit_json(j, o.json.path);
    }
    if (!o.json.to_stdout()) {
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
                  << (direct ? std::string()
                             : ", converged when <= max(rtol " + format_number(o.rtol) +
                                   " ||b||, atol " + format_number(o.atol) + ")")
                  << ")\n"
                  << "  time        " << res.time_s << " s"
                  << (ranks > 1 ? " (the slowest of " + std::to_string(ranks) + " MPI ranks)"
                                : std::string())
                  << ", " << per_second << " systems per second\n";
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
            if (std::count(res.reason.begin(), res.reason.end(), solver::StopReason::bad_scale))
                std::cout << "  bad_scale   A_s or b_s lies outside what " << o.precision
                          << " precision resolves (a value above its range, or squared norms "
                             "that underflow or overflow): scale A_s and b_s by a power of 2"
                          << (o.precision == "float" ? " or use --precision double" : "") << "\n";
        }
    }
    return converged == B ? exit_ok : exit_not_converged;
}

// Under mpirun with several ranks each rank loads and solves its block of the systems on its
// own executor (rank_executor: one GPU per rank), and rank 0 gathers the per-system results
// and reports them as one rank would; an error on any rank is every rank's (on_every_rank).
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
    const auto comm = world();  // nullptr unless under mpirun with several ranks
    const int rank = comm ? comm->rank() : 0, ranks = comm ? comm->size() : 1;
    std::optional<Executor> exec;
    Input in;
    dist::on_every_rank(comm.get(), [&] {
        exec = rank_executor(o.backend);
        if (!std::isfinite(o.rtol) || !std::isfinite(o.atol) || o.rtol < 0 || o.atol < 0)
            throw BadInput("--rtol and --atol must be finite and >= 0");
        in = load_batch<T>(*exec, o, format, rank, ranks);
    });
    batch::Result res;
    dist::on_every_rank(comm.get(), [&] {
        if (in.data.num_systems > 0) res = solve_systems<T>(*exec, o, format, in.data);
    });
    if (comm) res = batch::gather(*comm, res);
    int status = exit_error;
    dist::on_every_rank(comm.get(), [&] {
        if (rank == 0) status = report(o, *exec, format, in, res, ranks);
    });
    if (comm) comm->broadcast(&status, sizeof status, 0);
    return status;
}

}  // namespace

Runner add_batch(CLI::App& app) {
    auto o = std::make_shared<BatchOptions>();
    app.add_option("dir", o->dir,
                   "directory of systems DIR/<i>/A.mtx, DIR/<i>/b.mtx (i = 0, 1, ...)")
        ->check(batch_directory());
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
    app.add_option("--batch-size", o->batch_size, "systems to generate with --generate")
        ->check(count)
        ->default_str(std::to_string(default_generated_batch));
    app.add_option("--replicate-to", o->replicate_to,
                   "repeat the unique systems in order up to this many (or take the first ones)")
        ->check(count)
        ->default_str("the systems read");
    app.add_option("--format", o->format, "dense, csr or ell (dense with --solver direct)")
        ->default_str("csr")
        ->check(CLI::IsMember(
            {to_string(Format::dense), to_string(Format::csr), to_string(Format::ell)}));
    app.add_option("--solver", o->solver,
                   "cg, bicgstab, gmres, or direct (dense LU: cuBLAS batched LU on cuda, portla's "
                   "own on CPUs)")
        ->check(CLI::IsMember({to_string(solver::Solver::cg), to_string(solver::Solver::bicgstab),
                               to_string(solver::Solver::gmres), std::string("direct")}));
    app.add_option("--restart", o->restart, "GMRES restart length");
    app.add_option("--precond", o->precond,
                   "none, jacobi, block-jacobi or ilu0 (ilu0 needs --format csr)")
        ->check(CLI::IsMember({to_string(solver::Preconditioner::none),
                               to_string(solver::Preconditioner::jacobi),
                               to_string(solver::Preconditioner::block_jacobi),
                               to_string(solver::Preconditioner::ilu0)}));
    app.add_option("--block-size", o->block_size,
                   "block Jacobi: rows per diagonal block, 1 ... 32");
    const CLI::Validator non_negative = non_negative_number();
    app.add_option("--rtol", o->rtol,
                   "system s converged when ||b_s - A_s x_s|| <= max(rtol ||b_s||, atol)")
        ->check(non_negative);
    app.add_option("--atol", o->atol,
                   "system s converged when ||b_s - A_s x_s|| <= max(rtol ||b_s||, atol)")
        ->check(non_negative);
    app.add_option("--max-iters", o->max_iters, "iteration limit per system")
        ->check(count)
        ->default_str("2n");
    app.add_option("--backend", o->backend, executor_option_help());
    app.add_option("--precision", o->precision, "double or float")
        ->check(CLI::IsMember({"double", "float"}));
    app.add_flag("--global-memory", o->global_memory,
                 "cuda: keep every work vector and the matrix in global memory (no shared memory)");
    add_json_option(app, o->json);
    return [o] {
        std::vector<NamedPath> inputs{{"DIR", o->dir}};
        if (!o->dir.empty())
            for (const std::string& file : batch_input_files(o->dir))
                inputs.push_back({"DIR", file});
        require_distinct_files(inputs, {{"--json", o->json.path}});
        return o->precision == "float" ? run<float>(*o) : run<double>(*o);
    };
}

}  // namespace portla::cli
