// portla solve: one linear solve with CG, BiCGSTAB, GMRES, pipelined CG or multigrid cycles alone,
// from a Matrix Market file or a generated problem (a complex file: a Krylov solver but minres
// and pipecg, in complex arithmetic, run_complex). Exit 0 when converged, 2 when not (result
// printed), 1 on errors.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "input.hpp"
#include "mpi.hpp"
#include "output.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/kernel_choices.hpp"
#if PORTLA_HAS_MPI
#include "portla/dist/distributed_csr.hpp"
#include "portla/dist/distributed_stencil.hpp"
#endif
#include "problem.hpp"
#include "subcommands.hpp"

namespace portla::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct SolveOptions {
    ProblemSpec problem;
    std::string solver = "cg";
    bool distributed = false;
    std::string precond = "none";
    double rtol = 1e-8;
    double atol = 0.0;
    int max_iters = 10000;
    std::string backend = "auto";
    std::string precision = "double";
    std::string out;
    std::string x0;
    std::string history;
    int restart = 30;
    int block_size = 4;
    int degree = 4;
    double drop_tol = solver::Settings{}.ilut_drop_tolerance;
    int fill = solver::Settings{}.ilut_fill;
    bool pivot = false;
    bool rcm = false;
    bool matching = false;
    int level = solver::Settings{}.iluk_level;
    int replacement = 0;
    std::string side = "right";
    double shift = 0.0;
    int outer_k = solver::Settings{}.lgmres_outer_k;
    bool prepend_outer_v = false;
    int gcrot_m = solver::Settings{}.gcrot_m;
    int gcrot_k = -1;  // not given: gcrot_m
    std::string truncate = "oldest";
    solver::AmgSettings amg;
    double amg_threshold = -1;  // not given: 0 for sa, 0.25 for classical
    std::string amg_smoother = to_string(solver::AmgSmoother::chebyshev);
    std::string amg_cycle = to_string(solver::AmgCycle::v);
    bool monitor = false;
    double damp = 0.0;
    JsonOutput json;
};

// The residual history: JSON (an object with the solve's key facts and "residuals") when the
// path ends in .json, otherwise CSV (iteration,residual_norm,relative_residual).
void write_history(const std::string& path, const solver::Result& res, const nlohmann::json& info) {
    const bool as_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    if (as_json) {
        nlohmann::json j = info;
        j["residuals"] = res.history;
        emit_json(j, path, 1);
        return;
    }
    const double scale = res.rhs_norm > 0 ? res.rhs_norm : 1.0;
    write_output(path, [&](std::ostream& s) {
        s << std::setprecision(17) << "iteration,residual_norm,relative_residual\n";
        for (std::size_t i = 0; i < res.history.size(); ++i)
            s << i << "," << res.history[i] << "," << res.history[i] / scale << "\n";
    });
}

// The whole run's memory, from the declared sizes (a file's header, a generator's N), before
// anything is read or allocated: the host's CSR (and a generator's coordinates), the stored
// operator, the solver's and the preconditioner's vectors, the host copies of b, x0 and x.
template <typename T>
void require_solve_memory(const Executor& exec, const SolveOptions& o, solver::Solver method,
                          bool cycles, solver::Preconditioner precond) {
    double n = 0, nnz = 0;
    std::string what;
    if (!o.problem.file.empty()) {
        const DeclaredSize size = read_declared_size(o.problem.file);
        n = size.rows, nnz = size.entries;
        what = o.problem.file;
    } else {
        const GeneratorSpec g = parse_generator(o.problem.generate);
        n = g.rows(), nnz = g.max_entries();
        what = "--generate " + o.problem.generate;
    }
    const bool stored = !generated_matrix_free(o.problem);
    const CsrIndex index = csr_index_from_string(o.problem.index_width);
    const double csr_entry = sizeof(std::int32_t) + sizeof(double);      // CsrData
    const double coo_entry = 2 * sizeof(std::int64_t) + sizeof(double);  // MatrixData
    MemoryNeed host, device;
    // A file is read straight into the host CSR (the reader checks its own transient need); a
    // generated matrix is assembled as coordinates first. CG's checks read the CSR in place.
    if (stored) host.add(nnz, o.problem.file.empty() ? coo_entry + csr_entry : csr_entry);
    // per row: CsrData's 64-bit offset, the 32-bit copy a host operator reads, the diagonal
    if (stored) host.add(n + 1, sizeof(std::int64_t) + sizeof(std::int32_t)).add(n, sizeof(double));
    host.add(3 * n, sizeof(double));  // b or x0 as read, x copied back
    // An auto format that choose_format keeps csr is counted as csr.
    const bool csr = o.problem.format == "csr" ||
                     (o.problem.format == "auto" && !auto_format_may_be_ell(exec, precond));
    if (stored && o.problem.format == "dense")
        device.add(n * n, sizeof(T));
    else if (stored && (csr || (index != CsrIndex::automatic && index != CsrIndex::int32))) {
        // The form Csr takes (csr_index_for: 64-bit offsets from 2^31 - 1 non-zeros on).
        const CsrIndex form =
            index == CsrIndex::automatic
                ? csr_index_for(index, static_cast<std::size_t>(n), static_cast<std::size_t>(n),
                                static_cast<std::size_t>(nnz))
                : index;
        device.add(nnz, sizeof(T) + (form == CsrIndex::int64 ? 8 : 4))
            .add(n + 1, form == CsrIndex::int32 ? 4 : 8);
    } else if (stored)  // ell, or auto: ell pads rows to the longest (at most 1.25x nnz for auto)
        device
            .add(o.problem.format == "ell" ? 2 * nnz : 1.25 * nnz, sizeof(T) + sizeof(std::int32_t))
            .add(n + 1, sizeof(std::int32_t));
    using solver::Preconditioner;
    const double vectors = cycles                             ? 2
                           : method == solver::Solver::cg     ? 5
                           : method == solver::Solver::gmres  ? o.restart + 5.0
                           : method == solver::Solver::pipecg ? 10
                           : method == solver::Solver::minres ? 7
                           : method == solver::Solver::tfqmr  ? 10
                           : method == solver::Solver::lgmres
                               ? 2.0 * (o.restart + o.outer_k) + o.outer_k + 4
                           : method == solver::Solver::gcrotmk
                               // V, Z, the kept pairs (c, u) and their truncation, r, u, c
                               ? 2.0 * (o.gcrot_m + (o.gcrot_k < 0 ? o.gcrot_m : o.gcrot_k)) +
                                     4.0 * (o.gcrot_k < 0 ? o.gcrot_m : o.gcrot_k) + 4
                               : 9;
    // + b, x and the warm-up's copy of x (alive with the warm-up solve's vectors, not the timed's),
    // and two for a preconditioner's own vectors (amg's estimate below counts its cycle's)
    const bool own_vectors = precond != Preconditioner::none && precond != Preconditioner::amg;
    device.add(vectors + 3 + (own_vectors ? 2 : 0), n * sizeof(T));
    // GMRES: the restart basis above (restart + 1 vectors), its Hessenberg matrix and rotations
    // on the host (a restart of 10^5 asks for 80 GB there, whatever n is).
    if (method == solver::Solver::gmres) {
        const double m = std::min(double(o.restart), n);
        host.add((m + 1) * m + 3 * m + 1, sizeof(double));
    }
    if (precond == Preconditioner::block_jacobi) device.add(n * o.block_size, sizeof(T));
    if (precond == Preconditioner::chebyshev) device.add(3 * n, sizeof(T));
    if (precond == Preconditioner::ilu0 || precond == Preconditioner::ic0)
        device.add(nnz, sizeof(T) + sizeof(std::int32_t)).add(2 * n + 1, sizeof(std::int32_t));
    // ILUT: at most A's entries and p more per row of L and of U, a gather index and a vector;
    // ILU(k): fill grows with k, 2^k A's entries taken as the estimate (3-D Poisson: 2.3x at k = 1)
    if (precond == Preconditioner::ilut)
        device.add(nnz + 2.0 * o.fill * n, sizeof(T) + sizeof(std::int32_t))
            .add(3 * n + 1, sizeof(std::int32_t))
            .add(n, sizeof(T));
    if (precond == Preconditioner::iluk)
        device.add(nnz * std::pow(2.0, std::min(o.level, 8)), sizeof(T) + sizeof(std::int32_t))
            .add(2 * n + 1, sizeof(std::int32_t));
    // The hierarchy's own estimate (a stored matrix has fewer than 2^31 rows; larger declared
    // sizes are refused by the matrix's need alone).
    if (precond == Preconditioner::amg && n < 2147483648.0)
        device.add_bytes(double(solver::amg_memory_estimate(
            static_cast<std::size_t>(n), static_cast<std::size_t>(nnz), sizeof(T), o.amg.method)));
    if (exec.is_host()) {
        require_host_memory(host.add_bytes(device.bytes()), "solve " + what);
    } else {
        require_host_memory(host, "solve " + what + " (host)");
        require_memory(exec, device, "solve " + what);
    }
}

// CsrData::is_symmetric(MatrixData::rounding_symmetry) of the problem's matrix. A symmetric
// file's matrix is exactly symmetric, where that test fails only for a non-finite value: one
// pass over the values instead of a binary search per entry (`solve` of the 1e6-row 3-D Poisson
// file, 6.94e6 entries: setup.check_s 0.06-0.14 s -> 0.01 s, 2-core VM, 2026-11-28).
bool passes_symmetry_test(const Problem& problem) {
    const CsrData& d = problem.data;
    if (!problem.symmetric_file) return d.is_symmetric(MatrixData::rounding_symmetry);
    return std::all_of(d.values.begin(), d.values.end(), [](double v) { return std::isfinite(v); });
}

// CG needs a symmetric positive definite matrix: refuse what visibly is not, before solving.
void check_spd_candidate(const Problem& problem) {
    if (problem.matrix_free) return;  // the generated operators are SPD
    const CsrData& d = problem.data;
    if (!passes_symmetry_test(problem))
        throw BadInput(problem.description +
                       ": matrix is not symmetric (|a_ij - a_ji| > 1e-12 max |a|); CG needs a "
                       "symmetric positive definite matrix "
                       "(use --solver bicgstab)");
    std::vector<double> diag(static_cast<std::size_t>(d.rows), 0.0);
    for (std::size_t i = 0; i < diag.size(); ++i)
        for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
            if (static_cast<std::size_t>(d.col_idxs[k]) == i) diag[i] = d.values[k];
    for (std::size_t i = 0; i < diag.size(); ++i)
        if (!(diag[i] > 0))
            throw BadInput(problem.description + ": diagonal entry " + std::to_string(i + 1) +
                           " is " + std::to_string(diag[i]) +
                           " <= 0, so the matrix is not positive definite, which CG needs "
                           "(use --solver bicgstab)");
}

// MINRES needs a symmetric matrix (it may be indefinite): refuse what visibly is not.
void check_symmetric(const Problem& problem) {
    if (problem.matrix_free) return;  // the generated operators are symmetric
    if (!passes_symmetry_test(problem))
        throw BadInput(problem.description +
                       ": matrix is not symmetric (|a_ij - a_ji| > 1e-12 max |a|); MINRES needs a "
                       "symmetric matrix (use --solver gmres, bicgstab, cgs or tfqmr)");
}

// The multigrid hierarchy as built: its settings, levels, complexities, coarse solver and
// set-up time. Under mpirun it is rank 0's, of its diagonal block.
template <typename T>
nlohmann::json amg_json(const solver::Amg<T>& amg, const solver::AmgSettings& s, bool ranks) {
    const solver::AmgInfo& info = amg.info();
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& l : info.levels) levels.push_back({{"rows", l.rows}, {"nnz", l.nnz}});
    nlohmann::json j = {{"method", s.method},
                        {"coarsening", s.coarsening},
                        {"interpolation", s.interpolation},
                        {"trunc_factor", s.trunc_factor},
                        {"interp_max_entries", s.interp_max_entries},
                        {"aggressive_levels", s.aggressive_levels},
                        {"aggressive_interpolation", s.aggressive_interpolation},
                        {"strength_threshold", s.strength_threshold},
                        {"coarse_strength_threshold", s.coarse_strength_threshold},
                        {"smoother", solver::to_string(s.smoother)},
                        {"sweeps", s.sweeps},
                        {"cycle", solver::to_string(s.cycle)},
                        {"max_levels", s.max_levels},
                        {"mixed_precision", info.float_hierarchy},
                        {"coarse_size", s.coarse_size},
                        {"levels", levels},
                        {"operator_complexity", info.operator_complexity},
                        {"grid_complexity", info.grid_complexity},
                        {"coarse_solver", info.coarse_solver},
                        {"stopped", info.stopped},
                        {"setup_s", info.setup_seconds},
                        {"setup_phases_s",
                         {{"checks", info.setup_times.checks},
                          {"spectrum", info.setup_times.spectrum},
                          {"aggregation", info.setup_times.aggregation},
                          {"prolongator", info.setup_times.prolongator},
                          {"transpose", info.setup_times.transpose},
                          {"galerkin", info.setup_times.galerkin},
                          {"coarse", info.setup_times.coarse}}},
                        {"bytes", info.bytes},
                        {"cycle_bytes", info.cycle_bytes}};
    if (s.smoother == solver::AmgSmoother::chebyshev) j["chebyshev_degree"] = s.chebyshev_degree;
    if (ranks) j["hierarchy_of"] = "rank 0's diagonal block";
    return j;
}

template <typename T>
void print_amg(std::ostream& out, const solver::Amg<T>& amg, const solver::AmgSettings& s) {
    const solver::AmgInfo& info = amg.info();
    out << "  amg         " << s.method
        << (s.method == "classical" ? " (" + s.interpolation + " interpolation)" : "") << ", "
        << info.levels.size() << " levels, " << solver::to_string(s.cycle) << "-cycle, "
        << solver::to_string(s.smoother) << " x " << s.sweeps << ", operator complexity "
        << info.operator_complexity << ", grid complexity " << info.grid_complexity << ", coarse "
        << info.coarse_solver << ", set-up " << info.setup_seconds << " s\n";
    for (std::size_t l = 0; l < info.levels.size(); ++l)
        out << "    level " << l << "   n = " << info.levels[l].rows
            << ", nnz = " << info.levels[l].nnz << "\n";
}

// Whether each rank generates its own rows of the problem under mpirun: a Poisson operator.
bool generated_by_every_rank(const SolveOptions& o) {
    return !o.problem.generate.empty() && parse_generator(o.problem.generate).is_poisson();
}

// Under mpirun (more than one rank): the operator distributed by rows over the ranks. A file or
// a generated test matrix (matrix/generate.hpp) is read or generated by rank 0 and its rows
// scattered; a generated Poisson problem is generated by each rank for its own slab of the grid
// only: matrix-free (DistributedStencil) or, with --assembled, its rows of the matrix
// (DistributedCsr::poisson).
template <typename T>
std::unique_ptr<LinearOperator<T>> distribute(const Executor& exec,
                                              const std::shared_ptr<const dist::Communicator>& comm,
                                              const SolveOptions& o, const Problem& problem) {
#if PORTLA_HAS_MPI
    if (generated_by_every_rank(o)) {
        const GeneratorSpec g = parse_generator(o.problem.generate);
        if (o.problem.assembled)
            return std::make_unique<dist::DistributedCsr<T>>(
                dist::DistributedCsr<T>::poisson(exec, comm, g.dim(), g.n));
        return std::make_unique<dist::DistributedStencil<T>>(exec, comm, g.dim(), g.n);
    }
    return std::make_unique<dist::DistributedCsr<T>>(
        dist::DistributedCsr<T>::scatter(exec, comm, problem.data.to_matrix_data()));
#else
    (void)exec, (void)comm, (void)o, (void)problem;
    return nullptr;
#endif
}

// The settings every Krylov solve takes from the options: tolerances, iteration limit,
// preconditioner, restart.
solver::Settings krylov_settings(const SolveOptions& o, solver::Preconditioner precond) {
    solver::Settings s;
    s.rtol = o.rtol;
    s.atol = o.atol;
    s.max_iters = o.max_iters;
    s.precond = precond;
    s.restart = o.restart;
    return s;
}

// A complex file's matrix as host CSR arrays: entries ordered by row, then column, in file
// order within a position (a stable sort); duplicates summed.
template <typename T>
struct ComplexCsrArrays {
    std::size_t rows = 0, cols = 0;
    std::vector<std::int32_t> row_ptrs, col_idxs;
    std::vector<T> values;
};

template <typename T>
T complex_value(std::complex<double> v) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
}

template <typename T>
ComplexCsrArrays<T> read_complex_csr(const std::string& path) {
    const io::ComplexMatrixData data =
        load_input(path, [&] { return io::read_matrix_market_complex(path); });
    ComplexCsrArrays<T> a;
    a.rows = static_cast<std::size_t>(data.rows);
    a.cols = static_cast<std::size_t>(data.cols);
    std::vector<std::size_t> order(data.values.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return data.row_idx[x] != data.row_idx[y] ? data.row_idx[x] < data.row_idx[y]
                                                  : data.col_idx[x] < data.col_idx[y];
    });
    a.row_ptrs.assign(a.rows + 1, 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t e = order[k];
        if (k > 0 && data.row_idx[e] == data.row_idx[order[k - 1]] &&
            data.col_idx[e] == data.col_idx[order[k - 1]]) {
            a.values.back() += complex_value<T>(data.values[e]);
            continue;
        }
        ++a.row_ptrs[static_cast<std::size_t>(data.row_idx[e]) + 1];
        a.col_idxs.push_back(static_cast<std::int32_t>(data.col_idx[e]));
        a.values.push_back(complex_value<T>(data.values[e]));
    }
    for (std::size_t i = 0; i < a.rows; ++i) a.row_ptrs[i + 1] += a.row_ptrs[i];
    return a;
}

// b of a complex solve: --rhs (a real or complex vector of a.rows entries) or A 1.
template <typename T>
std::vector<T> complex_rhs(const std::string& rhs, const ComplexCsrArrays<T>& a) {
    std::vector<T> bh(a.rows);
    if (rhs.empty()) {
        for (std::size_t i = 0; i < a.rows; ++i)
            for (auto k = a.row_ptrs[i]; k < a.row_ptrs[i + 1]; ++k) bh[i] += a.values[k];
        return bh;
    }
    const io::MatrixMarketHeader h =
        load_input(rhs, [&] { return io::read_matrix_market_header(rhs); });
    std::vector<std::complex<double>> b(static_cast<std::size_t>(h.rows * h.cols));
    if (h.complex) {
        const io::ComplexMatrixData d =
            load_input(rhs, [&] { return io::read_matrix_market_complex(rhs); });
        if (d.cols != 1) throw BadInput(rhs + ": expected a vector (n x 1)");
        for (std::size_t k = 0; k < d.values.size(); ++k)
            b[static_cast<std::size_t>(d.row_idx[k])] += d.values[k];
    } else {
        const auto real = load_input(rhs, [&] { return io::read_vector(rhs); });
        b.assign(real.begin(), real.end());
    }
    if (b.size() != a.rows)
        throw BadInput(rhs + ": right-hand side has " + std::to_string(b.size()) +
                       " entries, the matrix has " + std::to_string(a.rows) + " rows");
    for (std::size_t i = 0; i < a.rows; ++i) bh[i] = complex_value<T>(b[i]);
    return bh;
}

// A complex Matrix Market file (complex64 with --precision float, else complex128): cg
// (Hermitian positive definite A), bicgstab, gmres, cgs, tfqmr, lgmres, gcrotmk, bicg or qmr
// with preconditioner none, jacobi, block-jacobi or ilu0, the matrix as csr (auto), ell or
// dense, on one rank (auto picks omp). b from --rhs (a real or complex vector) or A 1; x
// written by --out as an "array complex general" file.
template <typename T>
int run_complex(const SolveOptions& o) {
    using R = typename T::value_type;
    const char* dtype = sizeof(R) == sizeof(double) ? "complex128" : "complex64";
    const std::string& path = o.problem.file;
    const solver::Solver method = solver::parse_solver(o.solver);
    if (!solver::solves_complex(method))
        throw Unsupported(path + ": --solver " + o.solver + " has no path for complex values (" +
                          dtype + "); use " + solver::complex_solver_names("or"));
    const solver::Preconditioner precond = solver::parse_preconditioner(o.precond);
    if (world(o.distributed))
        throw Unsupported(path + ": complex matrices are not solved under MPI");
    if (!o.x0.empty() || !o.history.empty() || o.json.requested())
        throw Unsupported(path +
                          ": --x0, --history and --json are not supported for complex matrices "
                          "yet");
    // auto: CSR (the fused CG steps of complex values take CSR operators only)
    const Format format = o.problem.format == "auto" ? Format::csr : parse_format(o.problem.format);
    if (!std::isfinite(o.rtol) || !std::isfinite(o.atol))
        throw BadInput("--rtol and --atol must be finite");
    const Executor exec = rank_executor(o.backend == "auto" ? "omp" : o.backend);

    const ComplexCsrArrays<T> a = read_complex_csr<T>(path);
    if (a.rows != a.cols)
        throw BadInput(path + ": the matrix is " + std::to_string(a.rows) + " x " +
                       std::to_string(a.cols) + "; solve needs a square one");
    const std::size_t n = a.rows;
    const std::vector<T>& values = a.values;
    const std::unique_ptr<LinearOperator<T>> stored = [&]() -> std::unique_ptr<LinearOperator<T>> {
        if (format == Format::ell)
            return std::make_unique<Ell<T>>(
                Ell<T>::from_arrays(exec, n, n, a.row_ptrs, a.col_idxs, values));
        if (format == Format::dense) {
            MemoryNeed full;
            full.add(double(n) * double(n), sizeof(T));
            const std::string what =
                path + ": " + std::to_string(n) + " x " + std::to_string(n) + " dense (use csr)";
            require_host_memory(full, what);
            if (!exec.is_host()) require_memory(exec, full, what);
            std::vector<T> entries(n * n, T(0));
            for (std::size_t i = 0; i < n; ++i)
                for (auto k = a.row_ptrs[i]; k < a.row_ptrs[i + 1]; ++k)
                    entries[i * n + static_cast<std::size_t>(a.col_idxs[k])] += values[k];
            return std::make_unique<Dense<T>>(exec, n, n, entries);
        }
        return std::make_unique<Csr<T>>(exec, n, n, a.row_ptrs, a.col_idxs, values);
    }();
    const LinearOperator<T>& A = *stored;
    Array<T> b(exec, complex_rhs(o.problem.rhs, a)), x(exec, n);

    solver::Settings s = krylov_settings(o, precond);
    if (o.monitor)
        s.monitor = [](int it, double r) {
            std::cout << "  iteration " << it << "  " << r << "\n";
        };
    const auto start = std::chrono::steady_clock::now();
    const solver::Result res = [&] {
        switch (method) {
            case solver::Solver::cg:
                return solver::cg<T>(A, b, x, s);
            case solver::Solver::bicgstab:
                return solver::bicgstab<T>(A, b, x, s);
            case solver::Solver::cgs:
                return solver::cgs<T>(A, b, x, s);
            case solver::Solver::tfqmr:
                return solver::tfqmr<T>(A, b, x, s);
            case solver::Solver::lgmres:
                return solver::lgmres<T>(A, b, x, s);
            case solver::Solver::gcrotmk:
                return solver::gcrotmk<T>(A, b, x, s);
            case solver::Solver::bicg:
                return solver::bicg<T>(A, b, x, s);
            case solver::Solver::qmr:
                return solver::qmr<T>(A, b, x, s);
            default:
                return solver::gmres<T>(A, b, x, s);
        }
    }();
    const double time_s = seconds_since(start);
    const std::vector<T> xh = x.to_host();
    if (!o.out.empty())
        write_vector_output(o.out, std::vector<std::complex<double>>(xh.begin(), xh.end()));
    std::cout << o.solver << " (" << o.precond << ") on " << exec.name() << " ["
              << exec.device_name() << "], " << dtype << ", " << A.format() << "\n"
              << "  problem     " << path << ": n = " << n << ", nnz = " << values.size() << "\n"
              << "  result      " << solver::to_string(res.reason) << " after " << res.iterations
              << " iterations\n"
              << "  residual    ||b - Ax|| = " << res.residual_norm << ", relative "
              << res.relative_residual() << "\n"
              << "  time        " << time_s << " s\n";
    if (res.reason == solver::StopReason::indefinite) {
        std::cerr << "portla: error: " << path
                  << ": the matrix is not Hermitian positive definite (cg needs it); use bicgstab "
                     "or gmres\n";
        return exit_error;
    }
    return res.converged ? exit_ok : exit_not_converged;
}

// x = the --x0 file's vector (x.size() entries, all finite); false when `path` is empty.
template <typename T>
bool read_initial_guess(const std::string& path, Array<T>& x) {
    if (path.empty()) return false;
    const auto values = load_input(path, [&] { return io::read_vector(path); });
    if (values.size() != x.size())
        throw BadInput(path + ": initial guess has " + std::to_string(values.size()) +
                       " entries, the matrix has " + std::to_string(x.size()) + " columns");
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw BadInput(path + ": initial guess entry " + std::to_string(i + 1) +
                           " is not finite");
    x.copy_from_host(std::vector<T>(values.begin(), values.end()));
    return true;
}

// --solver lsqr / lsmr: min ||A x - b||^2 + damp^2 ||x||^2 for a rows x cols csr matrix on one
// rank (b from --rhs, rows entries, or A 1); a complex file in complex64 / complex128, A^T its
// adjoint A^H. SciPy's atol and btol are both --rtol; conlim is
// SciPy's 1e8; the iteration limit --max-iters. Exit 0 for istop 0, 1, 2, 4 and 5 (a solution
// to the tolerances or to machine precision), 2 for 3, 6 (cond(A) too large) and 7.
template <typename T>
int run_least_squares(const SolveOptions& o) {
    if (o.distributed || world(false))
        throw Unsupported("--solver " + o.solver + " runs on one rank (no mpirun)");
    if (o.precond != to_string(solver::Preconditioner::none))
        throw BadInput("--solver " + o.solver + " takes no --precond (got " + o.precond + ")");
    if (o.atol != 0)
        throw BadInput("--solver " + o.solver +
                       ": --atol is not used (--rtol sets SciPy's atol "
                       "and btol)");
    if (o.problem.format != "auto" && o.problem.format != "csr")
        throw BadInput("--solver " + o.solver + " needs --format csr (A^T), got " +
                       o.problem.format);
    constexpr bool real = std::is_floating_point_v<T>;
    // complex values: complex64 / complex128 (auto picks omp, as for the other complex solves)
    const std::string precision =
        real ? o.precision : (o.precision == "float" ? "complex64" : "complex128");
    const Executor exec = rank_executor(!real && o.backend == "auto" ? "omp" : o.backend);
    std::string description;
    std::optional<Problem> problem;  // kept: a host operator reads its arrays in place
    std::unique_ptr<LinearOperator<T>> A;
    Array<T> b;
    if constexpr (real) {
        ProblemSpec spec = o.problem;
        spec.rectangular = true;
        spec.format = "csr";
        problem = load_problem(spec);
        A = make_operator<T>(exec, spec, *problem);
        b = make_rhs<T>(exec, spec, *A);
        description = problem->description;
    } else {  // a complex file: any m x n, A^T x the adjoint A^H x
        const ComplexCsrArrays<T> a = read_complex_csr<T>(o.problem.file);
        A = std::make_unique<Csr<T>>(exec, a.rows, a.cols, a.row_ptrs, a.col_idxs, a.values);
        b = Array<T>(exec, complex_rhs(o.problem.rhs, a));
        description = o.problem.file;
    }
    Array<T> x(exec, A->cols());
    solver::LeastSquaresSettings s;
    s.damp = o.damp;
    s.atol = s.btol = o.rtol;
    s.iter_lim = o.max_iters;
    s.use_initial_guess = read_initial_guess(o.x0, x);
    Timer timer(exec);
    timer.start();
    const solver::LeastSquaresResult r =
        o.solver == "lsqr" ? solver::lsqr<T>(*A, b, x, s) : solver::lsmr<T>(*A, b, x, s);
    timer.stop();
    const bool solved = r.istop != 3 && r.istop < 6;
    nlohmann::json j;
    j["solver"] = o.solver;
    j["backend"] = exec.name();
    j["device"] = exec.device_name();
    j["precision"] = precision;
    j["problem"] = description;
    j["rows"] = A->rows();
    j["cols"] = A->cols();
    j["nnz"] = A->nnz();
    j["damp"] = o.damp;
    j["atol"] = j["btol"] = o.rtol;
    j["max_iters"] = o.max_iters;
    j["converged"] = solved;
    j["istop"] = r.istop;
    j["reason"] = solver::least_squares_message(r.istop);
    j["iterations"] = r.iterations;
    if (o.solver == "lsqr") j["r1norm"] = r.r1norm;  // lsmr's normr is r2norm
    j["r2norm"] = r.r2norm;
    j["anorm"] = r.anorm;
    j["acond"] = r.acond;
    j["arnorm"] = r.arnorm;
    j["xnorm"] = r.xnorm;
    j["time_s"] = timer.seconds();
    if (!o.out.empty()) {
        const std::vector<T> xh = x.to_host();
        if constexpr (real)
            write_vector_output(o.out, std::vector<double>(xh.begin(), xh.end()));
        else
            write_vector_output(o.out, std::vector<std::complex<double>>(xh.begin(), xh.end()));
    }
    if (o.json.requested() && !o.json.path.empty()) emit_json(j, o.json.path);
    if (o.json.to_stdout()) {
        emit_json(j, "");
    } else {
        std::cout << o.solver << " on " << exec.name() << " [" << exec.device_name() << "], "
                  << precision << ", csr\n"
                  << "  problem     " << description << ": " << A->rows() << " x " << A->cols()
                  << ", nnz = " << A->nnz() << ", damp = " << o.damp << "\n"
                  << "  result      istop " << r.istop << " ("
                  << solver::least_squares_message(r.istop) << ") after " << r.iterations
                  << " iterations\n"
                  << "  residual    ||(b - Ax, damp x)|| = " << r.r2norm
                  << ", ||A^T r - damp^2 x|| = " << r.arnorm << ", ||A|| = " << r.anorm
                  << ", cond(A) = " << r.acond << "\n"
                  << "  time        " << timer.seconds() << " s\n";
    }
    return solved ? exit_ok : exit_not_converged;
}

template <typename T>
int run(const SolveOptions& o) {
    const Executor exec = rank_executor(o.backend);  // under mpirun: one GPU per rank of a host
    // --solver amg: multigrid cycles alone (solver::amg_solve) over the hierarchy built as the
    // preconditioner is for the Krylov solvers.
    const bool cycles = o.solver == "amg";
    if (cycles && o.precond != to_string(solver::Preconditioner::none) &&
        o.precond != to_string(solver::Preconditioner::amg))
        throw BadInput("--solver amg takes no --precond (got " + o.precond +
                       "): its multigrid cycles are the whole solver");
    const solver::Preconditioner precond =
        cycles ? solver::Preconditioner::amg : solver::parse_preconditioner(o.precond);
    const solver::Solver method = cycles ? solver::Solver::cg : solver::parse_solver(o.solver);
    if (!std::isfinite(o.rtol) || !std::isfinite(o.atol))
        throw BadInput("--rtol and --atol must be finite");
    if (o.distributed && !has_mpi())
        throw Unsupported("--distributed needs a build with MPI (PORTLA_WITH_MPI)");
    // nullptr unless under mpirun with several ranks (or --distributed)
    const auto comm = world(o.distributed);
    const bool root = !comm || comm->rank() == 0;
    if (comm) {
        if (o.problem.format != "csr" && o.problem.format != "auto")
            throw Unsupported("under mpirun the matrix is distributed as csr (got --format " +
                              o.problem.format + ")");
        if (!o.x0.empty()) throw Unsupported("--x0 is not supported under mpirun yet");
        if (o.problem.index_width != "auto" && o.problem.index_width != "32")
            throw Unsupported(
                "under mpirun the distributed csr keeps 32-bit indices (got "
                "--index-width " +
                o.problem.index_width + ")");
    }
    // Rank 0 reads the file (under mpirun a --generate problem is generated by each rank for
    // its rows only, in distribute()); checks agreed.
    Problem problem;
    double read_s = 0, check_s = 0;
    dist::on_every_rank(comm.get(), [&] {
        if (!root && !generated_by_every_rank(o)) return;
        require_solve_memory<T>(exec, o, method, cycles, precond);
        if (comm && generated_by_every_rank(o)) {
            parse_generator(o.problem.generate);  // a bad spec fails here, on every rank
            problem.description = o.problem.generate;
            problem.matrix_free = !o.problem.assembled;
            return;
        }
        const auto read_start = std::chrono::steady_clock::now();
        problem = load_problem(o.problem);
        read_s = seconds_since(read_start);
        const auto check_start = std::chrono::steady_clock::now();
        // (The multigrid cycles need no symmetry; the hierarchy checks the diagonal itself.)
        if (!cycles && (method == solver::Solver::cg || method == solver::Solver::pipecg))
            check_spd_candidate(problem);
        if (method == solver::Solver::minres) check_symmetric(problem);
        if (std::is_same<T, float>::value)
            for (double v : problem.data.values)
                if (std::abs(v) > std::numeric_limits<float>::max())
                    throw BadInput(problem.description + ": value " + std::to_string(v) +
                                   " overflows single precision (use --precision double)");
        check_s = seconds_since(check_start);
    });
    if (comm) {  // the description every rank prints nothing of, but the JSON of rank 0 needs
        std::int64_t length = std::int64_t(problem.description.size());
        comm->broadcast(&length, sizeof length, 0);
        problem.description.resize(static_cast<std::size_t>(length));
        comm->broadcast(problem.description.data(), problem.description.size(), 0);
    }
    const auto build_start = std::chrono::steady_clock::now();
    if (!comm) choose_format(problem, exec, precond);
    const std::unique_ptr<LinearOperator<T>> A =
        comm ? distribute<T>(exec, comm, o, problem) : make_operator<T>(exec, o.problem, problem);
    const auto* csr = dynamic_cast<const Csr<T>*>(A.get());
    if (cycles && comm)
        throw Unsupported("--solver amg runs on one rank (got " + std::to_string(comm->size()) +
                          " MPI ranks; use --precond amg with a Krylov solver)");
    if (cycles && !csr)
        throw Unsupported("--solver amg needs a csr matrix (got " + A->format() +
                          "; use --format csr)");
    // The operator holds the matrix now, or reads the host copy in place.
    if (comm || !reads_in_place<T>(exec, problem)) problem.data = CsrData();
#if PORTLA_HAS_MPI
    const auto* distributed = dynamic_cast<const dist::DistributedOperator<T>*>(A.get());
#endif
    Array<T> b(exec, 0);
    if (comm && !o.problem.rhs.empty()) {  // rank 0 reads b and scatters it
#if PORTLA_HAS_MPI
        std::vector<T> whole;
        dist::on_every_rank(comm.get(), [&] {
            if (!root) return;
            const auto values =
                load_input(o.problem.rhs, [&] { return io::read_vector(o.problem.rhs); });
            if (std::int64_t(values.size()) != distributed->global_rows())
                throw BadInput(o.problem.rhs + ": right-hand side has " +
                               std::to_string(values.size()) + " entries, the matrix has " +
                               std::to_string(distributed->global_rows()) + " rows");
            whole.assign(values.begin(), values.end());
        });
        b = Array<T>(exec, distributed->scatter_vector(whole));
#endif
    } else {
        b = make_rhs<T>(exec, o.problem, *A);
    }
    Array<T> x(exec, A->cols());
    exec.synchronize();
    const double build_s = seconds_since(build_start);

    solver::Settings s = krylov_settings(o, precond);
    s.block_size = o.block_size;
    s.chebyshev_degree = o.degree;
    s.ilut_drop_tolerance = o.drop_tol;
    s.ilut_fill = o.fill;
    s.ilut_pivoting = o.pivot;
    s.ilut_rcm = o.rcm;
    s.ilut_matching = o.matching;
    s.iluk_level = o.level;
    s.amg = o.amg;
    s.amg.strength_threshold =
        o.amg_threshold >= 0
            ? o.amg_threshold
            : (o.amg.method == "classical" ? 0.25 : solver::AmgSettings{}.strength_threshold);
    s.amg.smoother = solver::parse_amg_smoother(o.amg_smoother);
    s.amg.cycle = solver::parse_amg_cycle(o.amg_cycle);
    s.residual_replacement = o.replacement;
    s.left_preconditioning = o.side == "left";
    s.shift = o.shift;
    s.lgmres_outer_k = o.outer_k;
    s.lgmres_prepend_outer_v = o.prepend_outer_v;
    s.gcrot_m = o.gcrot_m;
    s.gcrot_k = o.gcrot_k;
    s.gcrot_truncate_smallest = o.truncate == "smallest";
    s.record_history = !o.history.empty();
    s.use_initial_guess = read_initial_guess(o.x0, x);
    std::ostream& monitor_out = o.json.to_stdout() ? std::cerr : std::cout;
    if (o.monitor && root)
        s.monitor = [&monitor_out](int it, double r) {
            monitor_out << "  iter " << std::setw(6) << it << "  residual " << std::scientific
                        << std::setprecision(6) << r << std::defaultfloat << "\n";
        };

    // The preconditioner is built before the timed solve (its set-up is reported apart), on every
    // rank of a distributed operator, which all throw when one fails.
    if (s.precond == solver::Preconditioner::amg) heap_for_setup();
    const auto precond_start = std::chrono::steady_clock::now();
    std::unique_ptr<solver::PreconditionerOperator<T>> M;
    dist::on_every_rank(A->communicator(), [&] {
        try {
            M = solver::make_preconditioner<T>(*A, s);
        } catch (const BadInput& e) {
            throw BadInput(o.solver + ": " + e.what());
        } catch (const Unsupported& e) {
            throw Unsupported(o.solver + ": " + e.what());
        }
    });
    exec.synchronize();
    const double precond_s = seconds_since(precond_start);
    const auto* amg = dynamic_cast<const solver::Amg<T>*>(M.get());
    // An incomplete factorization's diagnosis: one line on stderr when it is unstable.
    const auto* factors = dynamic_cast<const solver::TriangularFactors<T>*>(M.get());
    if (factors && factors->unstable() && root)
        std::cerr << "portla: warning: " << factors->diagnosis().advice << "\n";

    auto run = [&](Array<T>& xv, const solver::Settings& st, auto&&... args) {
        switch (method) {
            case solver::Solver::cg:
                return solver::cg<T>(*A, args..., b, xv, st);
            case solver::Solver::gmres:
                return solver::gmres<T>(*A, args..., b, xv, st);
            case solver::Solver::pipecg:
                return solver::pipecg<T>(*A, args..., b, xv, st);
            case solver::Solver::minres:
                return solver::minres<T>(*A, args..., b, xv, st);
            case solver::Solver::cgs:
                return solver::cgs<T>(*A, args..., b, xv, st);
            case solver::Solver::tfqmr:
                return solver::tfqmr<T>(*A, args..., b, xv, st);
            case solver::Solver::lgmres:
                return solver::lgmres<T>(*A, args..., b, xv, st);
            case solver::Solver::gcrotmk:
                return solver::gcrotmk<T>(*A, args..., b, xv, st);
            case solver::Solver::bicg:
                return solver::bicg<T>(*A, args..., b, xv, st);
            case solver::Solver::qmr:
                return solver::qmr<T>(*A, args..., b, xv, st);
            default:
                return solver::bicgstab<T>(*A, args..., b, xv, st);
        }
    };
    auto solve = [&](Array<T>& xv, const solver::Settings& st) {
        if (cycles) return solver::amg_solve<T>(*amg, *csr, b, xv, st);
        return M ? run(xv, st, *M) : run(xv, st);
    };
    // Warm-up: one iteration into a scratch copy of x, outside the timer. The backends load
    // lazily what a solve first uses (OpenCL builds its programs, CUDA loads its modules), which
    // inside the timed solve made the first opencl CG at 256^3 5x slower per iteration.
    const auto warmup_start = std::chrono::steady_clock::now();
    {
        Array<T> xw(exec, x.size());
        if (s.use_initial_guess) xw.copy_from(x);
        solver::Settings st = s;
        st.max_iters = 1;
        st.monitor = nullptr;
        st.record_history = false;
        (void)solve(xw, st);
        exec.synchronize();
    }
    const double warmup_s = seconds_since(warmup_start);

    if (comm) comm->reset_stats();
    Timer timer(exec);
    clear_kernel_choices();
    timer.start();
    const solver::Result res = solve(x, s);
    timer.stop();
    double time_s = timer.seconds();
    const std::vector<KernelChoice> kernels = kernel_choices();
    // Under mpirun: the slowest rank's time, and where the ranks' time in communication went.
    dist::Communicator::Stats comm_stats;
    if (comm) {
        comm_stats = comm->stats();
        double t[3] = {time_s, comm_stats.reduce_s, comm_stats.exchange_s};
        comm->allreduce_max(t, 3);
        time_s = t[0];
        comm_stats.reduce_s = t[1];
        comm_stats.exchange_s = t[2];
    }
    // The whole solution on rank 0 (under mpirun gathered from every rank), the global sizes.
    std::vector<T> xh;
    double sizes[2] = {double(A->rows()), double(A->nnz())};
    if (comm) {
        comm->allreduce_sum(sizes, 2);
#if PORTLA_HAS_MPI
        if (!o.out.empty()) xh = distributed->gather(x);
#endif
    } else if (!o.out.empty()) {
        xh = x.to_host();
    }

    nlohmann::json j;
    j["solver"] = o.solver;
    j["precond"] = o.precond;
    j["backend"] = exec.name();
    j["device"] = exec.device_name();
    j["precision"] = o.precision;
    j["problem"] = problem.description;
    j["format"] = A->format();
    if (const auto* csr = dynamic_cast<const Csr<T>*>(A.get()))
        j["index_width"] = to_string(csr->index());
    j["n"] = std::size_t(sizes[0]);
    j["nnz"] = std::size_t(sizes[1]);
    j["ranks"] = comm ? comm->size() : 1;
    std::string halo_path = "none";
#if PORTLA_HAS_MPI
    if (distributed) halo_path = distributed->halo_path();
#endif
    if (comm) {  // seconds blocked in communication during the solve (max over ranks)
        j["communication"] = {{"allreduce_s", comm_stats.reduce_s},
                              {"allreductions", comm_stats.reductions},
                              {"halo_wait_s", comm_stats.exchange_s},
                              {"halo_exchanges", comm_stats.exchanges},
                              {"halo", halo_path}};
    }
    j["converged"] = res.converged;
    j["reason"] = solver::to_string(res.reason);
    j["iterations"] = res.iterations;
    j["residual_norm"] = res.residual_norm;
    j["rhs_norm"] = res.rhs_norm;
    j["relative_residual"] = res.relative_residual();
    j["rtol"] = o.rtol;
    j["atol"] = o.atol;
    j["max_iters"] = o.max_iters;
    j["time_s"] = time_s;
    // Set-up before the timed solve (rank 0's): reading the file into host CSR (parsing,
    // sorting, summing duplicates, the structure's check), checking what the solver needs (CG:
    // symmetry and a positive diagonal), building the operator on the device and the
    // right-hand side, then the preconditioner, then the one-iteration warm-up.
    j["setup"] = {{"read_s", read_s},
                  {"check_s", check_s},
                  {"build_s", build_s},
                  {"preconditioner_s", precond_s},
                  {"warmup_s", warmup_s}};
    j["time_per_iteration_s"] = time_s / std::max(1, res.iterations);
    // The kernel variants the timed solve took, where the backend chooses between several
    // (cuda: the CG direction step's kernel, the sums' path; empty elsewhere).
    j["kernels"] = nlohmann::json::object();
    for (const auto& k : kernels) j["kernels"][k.step] = k.kernel;
    if (method == solver::Solver::gmres && !cycles) {
        j["restart"] = o.restart;
        j["pc_side"] = o.side;
    }
    if (method == solver::Solver::minres) j["shift"] = o.shift;
    if (method == solver::Solver::lgmres) {
        j["restart"] = o.restart;
        j["outer_k"] = o.outer_k;
    }
    if (method == solver::Solver::gcrotmk) {
        j["gcrot_m"] = o.gcrot_m;
        j["gcrot_k"] = o.gcrot_k < 0 ? o.gcrot_m : o.gcrot_k;
        j["truncate"] = o.truncate;
    }
    if (amg) j["amg"] = amg_json(*amg, s.amg, comm != nullptr);
    if (factors) {
        const auto& d = factors->diagnosis();
        j["factorization"] = {{"nnz_lower", factors->lower().nnz()},
                              {"nnz_upper", factors->upper().nnz()},
                              {"growth", d.growth},
                              {"max_factor_entry", d.max_factor_entry},
                              {"max_matrix_entry", d.max_matrix_entry},
                              {"min_pivot", d.min_pivot},
                              {"probe", d.probe},
                              {"stable", d.stable}};
        if (precond == solver::Preconditioner::ilut) {
            j["factorization"]["drop_tol"] = o.drop_tol;
            j["factorization"]["fill"] = o.fill;
            j["factorization"]["pivot"] = o.pivot;
            j["factorization"]["rcm"] = o.rcm;
            j["factorization"]["matching"] = o.matching;
            const auto& ilut = dynamic_cast<const solver::Ilut<T>&>(*factors);
            j["factorization"]["interchanges"] = ilut.interchanges();
            j["factorization"]["replaced_pivots"] = ilut.replaced_pivots();
        }
        if (precond == solver::Preconditioner::iluk) j["factorization"]["level"] = o.level;
    }
    const bool indefinite = res.reason == solver::StopReason::indefinite;
    // Rank 0 writes; a failure to write is every rank's.
    dist::on_every_rank(comm.get(), [&] {
        if (indefinite || !root) return;  // a failed run (exit 1) writes nothing
        // Written when not converged too (exit 2): the last iterate, its history and result.
        if (!o.out.empty()) write_vector_output(o.out, std::vector<double>(xh.begin(), xh.end()));
        if (!o.history.empty()) write_history(o.history, res, j);
        if (o.json.requested() && !o.json.path.empty()) emit_json(j, o.json.path);
    });
    if (!root) return indefinite ? exit_error : res.converged ? exit_ok : exit_not_converged;
    if (o.json.to_stdout()) {
        emit_json(j, "");
    } else {
        std::cout << o.solver << " (" << o.precond << ") on " << exec.name() << " ["
                  << exec.device_name() << "], " << o.precision << ", " << A->format()
                  << (comm ? ", " + std::to_string(comm->size()) + " MPI ranks" : "") << "\n"
                  << "  problem     " << problem.description << ": n = " << std::size_t(sizes[0])
                  << ", nnz = " << std::size_t(sizes[1]) << "\n"
                  << "  result      " << solver::to_string(res.reason)
                  << (res.reason == solver::StopReason::unstable_preconditioner
                          ? " (" + o.precond + ")"
                          : std::string())
                  << " after " << res.iterations << " iterations\n"
                  << "  residual    ||b - Ax|| = " << res.residual_norm << ", relative "
                  << res.relative_residual() << "\n"
                  << "  time        " << time_s << " s (" << time_s / std::max(1, res.iterations)
                  << " s per iteration)\n";
        if (amg) print_amg(std::cout, *amg, s.amg);
    }
    if (indefinite) {
        std::cerr << "portla: error: " << problem.description
                  << ": CG found p.Ap <= 0 at iteration " << res.iterations + 1
                  << ": the matrix (or preconditioner) is not positive definite (use --solver "
                     "bicgstab)\n";
        return exit_error;
    }
    return res.converged ? exit_ok : exit_not_converged;
}

}  // namespace

Runner add_solve(CLI::App& app) {
    auto o = std::make_shared<SolveOptions>();
    app.add_option("file", o->problem.file, "matrix in Matrix Market format")
        ->check(regular_file());
    app.add_option("--generate", o->problem.generate,
                   "generated problem: poisson1d:N, poisson2d:N or poisson3d:N (Poisson, N points "
                   "per dimension, matrix-free unless --assembled), anisotropic3d:N (N^3 points, "
                   "0.001 u_zz), contrast3d:N (N^3 cells, k jumping over 6 orders of magnitude) "
                   "or fem2d:N (P1 finite elements on a perturbed N x N triangulation); stored "
                   "matrices except matrix-free Poisson");
    app.add_flag("--assembled", o->problem.assembled,
                 "store a generated Poisson operator as a matrix (--format; the other generated "
                 "problems and amg always store it)");
    app.add_flag("--distributed", o->distributed,
                 "use the MPI-distributed operator and solver path even on one rank (the "
                 "baseline of scaling runs; builds with MPI only)");
    app.add_option("--format", o->problem.format,
                   "stored format of a matrix: auto (default: ell on a GPU for rows of nearly "
                   "equal length with no or a jacobi/chebyshev preconditioner, else csr), csr, "
                   "ell or dense")
        ->check(CLI::IsMember({std::string("auto"), to_string(Format::csr), to_string(Format::ell),
                               to_string(Format::dense)}));
    app.add_option("--index-width", o->problem.index_width,
                   "csr index widths: auto (default: 32-bit, 64-bit row offsets from 2^31 - 1 "
                   "non-zeros on; rows and columns stay below 2^31 - 1), 32, 64/32 (64-bit row "
                   "offsets, 32-bit columns) or 64; a 64-bit form stores the matrix as csr")
        ->check(CLI::IsMember({to_string(CsrIndex::automatic), to_string(CsrIndex::int32),
                               to_string(CsrIndex::offsets64), to_string(CsrIndex::int64)}));
    app.add_option("--rhs", o->problem.rhs,
                   "right-hand side (Matrix Market vector); default b = A 1")
        ->check(regular_file());
    app.add_option(
           "--solver", o->solver,
           "cg, bicgstab, gmres, pipecg (pipelined CG: one reduction per iteration, "
           "overlapped with the operator under mpirun), minres (symmetric, possibly "
           "indefinite matrices; --shift), cgs, tfqmr, lgmres (--restart, --outer-k), gcrotmk "
           "(--gcrot-m, --gcrot-k, --truncate), bicg or qmr (both need A^T: csr, one rank; "
           "preconditioner none or jacobi, qmr's as its left one) or "
           "amg (multigrid cycles alone, "
           "csr, one rank; --amg-* options); lsqr or lsmr (least squares min ||Ax - b||^2 + "
           "damp^2 ||x||^2, any m x n csr matrix, one rank; --damp, --rtol as SciPy's atol "
           "and btol)")
        ->check(CLI::IsMember([] {
            std::vector<std::string> names;
            for (auto s : solver::all_solvers()) names.push_back(to_string(s));
            names.insert(names.end(), {"amg", "lsqr", "lsmr"});
            return names;
        }()));
    app.add_option("--restart", o->restart, "GMRES restart length (Krylov vectors per cycle)")
        ->check(CLI::Range(1, 100000));
    using solver::Preconditioner;
    app.add_option("--precond", o->precond,
                   "none, jacobi, block-jacobi, ilu0, ic0 (symmetric matrices), chebyshev, amg "
                   "(smoothed aggregation multigrid, one cycle per apply; csr; --amg-* options), "
                   "ilut (threshold ILU; --drop-tol, --fill, --pivot) or iluk (ILU(k); --level)")
        ->check(CLI::IsMember({to_string(Preconditioner::none), to_string(Preconditioner::jacobi),
                               to_string(Preconditioner::block_jacobi),
                               to_string(Preconditioner::ilu0), to_string(Preconditioner::ic0),
                               to_string(Preconditioner::chebyshev), to_string(Preconditioner::amg),
                               to_string(Preconditioner::ilut), to_string(Preconditioner::iluk)}));
    app.add_option("--drop-tol", o->drop_tol,
                   "ilut: drop tolerance tau >= 0, relative to each row's mean |a_ij| (default "
                   "1e-4)");
    app.add_option("--fill", o->fill,
                   "ilut: entries each row of L and of U keeps beyond A's own (>= 0, default 10)");
    app.add_flag("--pivot", o->pivot,
                 "ilut: partial pivoting by columns within each row (ILUTP), for rows with a "
                 "small or missing diagonal");
    app.add_flag("--rcm", o->rcm, "ilut: factor after a reverse Cuthill-McKee ordering of A + A^T");
    app.add_flag("--matching", o->matching,
                 "ilut: permute rows first to put the largest possible entries on the diagonal "
                 "(static pivoting)");
    app.add_option("--level", o->level, "iluk: level of fill k >= 0 (default 1; 0 is ilu0)");
    app.add_option("--block-size", o->block_size, "block-jacobi: rows per diagonal block (1-32)")
        ->check(CLI::Range(1, 32));
    app.add_option("--degree", o->degree, "chebyshev: polynomial degree (1-64)")
        ->check(CLI::Range(1, 64));
    app.add_option("--amg-method", o->amg.method,
                   "amg: sa (smoothed aggregation) or classical (PMIS, classical interpolation)")
        ->check(CLI::IsMember({"sa", "classical"}));
    app.add_option("--amg-coarsen", o->amg.coarsening,
                   "amg (classical): pmis (parallel rounds; default) or hmis (Ruge-Stueben's "
                   "first pass on each block of 16384 rows, on the host's threads, then PMIS)")
        ->check(CLI::IsMember({"pmis", "hmis"}));
    app.add_option("--amg-interp", o->amg.interpolation,
                   "amg (classical): direct (from the strongly influencing coarse rows) or "
                   "extended+i (also from those of the strongly influencing fine rows; default)")
        ->check(CLI::IsMember({"direct", "extended+i"}));
    app.add_option("--amg-trunc-factor", o->amg.trunc_factor,
                   "amg (classical): drop the interpolation weights below this fraction of their "
                   "row's largest, in [0, 1) (default 0)")
        ->check(CLI::Range(0.0, std::nextafter(1.0, 0.0)));
    app.add_option("--amg-pmax", o->amg.interp_max_entries,
                   "amg (classical): the most weights each interpolation row keeps (0: all; "
                   "default 4)")
        ->check(CLI::Range(0, std::numeric_limits<int>::max()));
    app.add_option("--amg-aggressive-levels", o->amg.aggressive_levels,
                   "amg (classical): the finest levels that coarsen aggressively (PMIS again on "
                   "the distance-2 graph of the coarse rows, multipass interpolation; default 0)")
        ->check(CLI::Range(0, 40));
    app.add_option("--amg-aggressive-interp", o->amg.aggressive_interpolation,
                   "amg (classical): the aggressive levels' interpolation, multipass (default) or "
                   "multipass-jacobi (then one Jacobi step on the fine rows)")
        ->check(CLI::IsMember({"multipass", "multipass-jacobi"}));
    app.add_option("--amg-threshold", o->amg_threshold,
                   "amg: strength threshold theta of the finest level; sa: (i, j) strong when "
                   "|a_ij| >= theta sqrt(a_ii a_jj) (default 0.08, 0: every connection); "
                   "classical: when |a_ij| >= theta max_k |a_ik| on every level (default 0.25)")
        ->check(non_negative_number());
    app.add_option("--amg-coarse-threshold", o->amg.coarse_strength_threshold,
                   "amg (sa): the strength threshold below the finest level (default 0.02)")
        ->check(non_negative_number());
    app.add_option("--amg-smoother", o->amg_smoother, "amg: jacobi, l1-jacobi or chebyshev")
        ->check(CLI::IsMember({to_string(solver::AmgSmoother::jacobi),
                               to_string(solver::AmgSmoother::l1_jacobi),
                               to_string(solver::AmgSmoother::chebyshev)}));
    app.add_flag("--amg-mixed", o->amg.mixed_precision,
                 "amg: the hierarchy and its cycle in float under a double solve");
    app.add_option("--amg-sweeps", o->amg.sweeps, "amg: pre- and post-smoothing steps (1-16)")
        ->check(CLI::Range(1, 16));
    app.add_option("--amg-degree", o->amg.chebyshev_degree,
                   "amg: chebyshev smoother's polynomial degree (1-8)")
        ->check(CLI::Range(1, 8));
    app.add_option("--amg-cycle", o->amg_cycle, "amg: v or w")
        ->check(CLI::IsMember({to_string(solver::AmgCycle::v), to_string(solver::AmgCycle::w)}));
    app.add_option("--amg-max-levels", o->amg.max_levels,
                   "amg: levels at most, the finest included (1-40)")
        ->check(CLI::Range(1, 40));
    app.add_option("--amg-coarse-size", o->amg.coarse_size,
                   "amg: a level of at most this many rows is the last one (>= 1)")
        ->check(CLI::Range(1, std::numeric_limits<int>::max()));
    app.add_option("--damp", o->damp, "lsqr, lsmr: the weight of damp^2 ||x||^2 (default 0)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--shift", o->shift, "minres: solve (A - shift I) x = b (default 0)")
        ->check(CLI::Number);
    app.add_option("--outer-k", o->outer_k,
                   "lgmres: corrections of earlier cycles kept as augmentation vectors (default 3; "
                   "--restart is the Krylov vectors per cycle)")
        ->check(CLI::Range(0, 100000));
    app.add_flag("--prepend-outer-v", o->prepend_outer_v,
                 "lgmres: the augmentation vectors before the Krylov vectors of each cycle");
    app.add_option("--gcrot-m", o->gcrot_m,
                   "gcrotmk: inner flexible GMRES steps per cycle (default 20)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--gcrot-k", o->gcrot_k,
                   "gcrotmk: (c, u) pairs kept between cycles (default: --gcrot-m)")
        ->check(CLI::Range(0, 100000));
    app.add_option("--truncate", o->truncate,
                   "gcrotmk: beyond --gcrot-k pairs drop the oldest (default) or the directions of "
                   "the smallest singular values")
        ->check(CLI::IsMember({"oldest", "smallest"}));
    app.add_option("--pc-side", o->side,
                   "gmres: apply the preconditioner on the right (default; minimises the true "
                   "residual) or the left (as SciPy and PETSc)")
        ->check(CLI::IsMember({"right", "left"}));
    app.add_option("--replacement", o->replacement,
                   "recompute r = b - A x every N iterations (CG, BiCGSTAB; 0: never)")
        ->check(CLI::Range(0, 1000000000));
    app.add_option("--x0", o->x0, "initial guess (Matrix Market vector); default x0 = 0")
        ->check(regular_file());
    app.add_option("--history", o->history,
                   "write the residual norm of every iteration to this file (JSON when it ends in "
                   ".json, CSV otherwise)")
        ->check(output_file());
    const CLI::Validator non_negative = non_negative_number();
    app.add_option("--rtol", o->rtol, "converged when ||b - Ax|| <= max(rtol ||b||, atol)")
        ->check(non_negative);
    app.add_option("--atol", o->atol, "converged when ||b - Ax|| <= max(rtol ||b||, atol)")
        ->check(non_negative);
    app.add_option("--max-iters", o->max_iters, "maximum iterations")->check(non_negative);
    app.add_option("--backend", o->backend, executor_option_help());
    app.add_option("--precision", o->precision, "double or float")
        ->check(CLI::IsMember({"double", "float"}));
    app.add_option("--out", o->out,
                   "write the solution x to this Matrix Market file (also when not converged, "
                   "exit 2: the last iterate; never when the run fails, exit 1)")
        ->check(output_file());
    app.add_flag("--monitor", o->monitor, "print the residual norm of every iteration");
    add_json_option(app, o->json);
    return [o] {
        require_one_matrix(o->problem);
        // Multigrid builds its hierarchy from the matrix's entries: a generated Poisson operator
        // is stored.
        if (!o->problem.generate.empty() &&
            (o->precond == to_string(Preconditioner::amg) || o->solver == "amg"))
            o->problem.assembled = true;
        require_distinct_files(
            {{"FILE", o->problem.file}, {"--rhs", o->problem.rhs}, {"--x0", o->x0}},
            {{"--out", o->out}, {"--history", o->history}, {"--json", o->json.path}});
        const bool complex =
            !o->problem.file.empty() && load_input(o->problem.file, [&] {
                                            return io::read_matrix_market_header(o->problem.file);
                                        }).complex;
        const bool single = o->precision == "float";
        if (o->solver == "lsqr" || o->solver == "lsmr") {
            if (complex)
                return single ? run_least_squares<std::complex<float>>(*o)
                              : run_least_squares<std::complex<double>>(*o);
            return single ? run_least_squares<float>(*o) : run_least_squares<double>(*o);
        }
        if (complex)
            return single ? run_complex<std::complex<float>>(*o)
                          : run_complex<std::complex<double>>(*o);
        return o->precision == "float" ? run<float>(*o) : run<double>(*o);
    };
}

}  // namespace portla::cli
