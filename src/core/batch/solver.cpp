// Batch solvers: argument checks, the ILU(0) level schedule, the kernel call, and the
// per-system results with residuals recomputed apart from the solver.
#include "portla/batch/solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/batch/batch_args.hpp"
#include "core/kernels/batch_kernels.hpp"
#include "core/solver_common.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"

namespace portla::batch {

std::size_t Result::num_converged() const {
    return static_cast<std::size_t>(
        std::count(reason.begin(), reason.end(), solver::StopReason::converged));
}
double Result::max_relative_residual() const {
    double worst = 0;
    for (std::size_t s = 0; s < residual_norm.size(); ++s) {
        const double r = rhs_norm[s] > 0 ? residual_norm[s] / rhs_norm[s] : residual_norm[s];
        if (std::isnan(r)) return r;  // a NaN system is the worst, whatever follows it
        if (r > worst) worst = r;
    }
    return worst;
}

namespace {

constexpr int kMaxRestart = detail::kMaxSlots - detail::slot_gm_basis - 1;

/// Rows grouped by level: level(i) = 1 + max level of the rows i depends on (`lower`: the
/// columns left of the diagonal, in row order; otherwise those right of it, in reverse).
void levels(const std::vector<std::int32_t>& rp, const std::vector<std::int32_t>& ci,
            const std::vector<std::int32_t>& diag, bool lower, std::vector<std::int32_t>& ptrs,
            std::vector<std::int32_t>& rows) {
    const int n = static_cast<int>(rp.size()) - 1;
    std::vector<int> level(n, 0);
    int count = 0;
    for (int t = 0; t < n; ++t) {
        const int i = lower ? t : n - 1 - t;
        int l = 0;
        const int first = lower ? rp[i] : diag[i] + 1, last = lower ? diag[i] : rp[i + 1];
        for (int k = first; k < last; ++k) l = std::max(l, level[ci[k]] + 1);
        level[i] = l;
        count = std::max(count, l + 1);
    }
    ptrs.assign(count + 1, 0);
    for (int i = 0; i < n; ++i) ++ptrs[level[i] + 1];
    for (int l = 0; l < count; ++l) ptrs[l + 1] += ptrs[l];
    rows.assign(n, 0);
    std::vector<std::int32_t> fill(ptrs.begin(), ptrs.end() - 1);
    for (int t = 0; t < n; ++t) {  // rows of a level in the order they are visited
        const int i = lower ? t : n - 1 - t;
        rows[fill[level[i]]++] = i;
    }
}

/// The ILU(0) pattern data on the matrix's executor (kept alive by the caller).
struct IluArrays {
    Array<std::int32_t> diag, lower_ptrs, lower_rows, upper_ptrs, upper_rows;
    detail::IluPattern pattern;
};

template <typename T>
IluArrays ilu_arrays(const BatchMatrix<T>& A) {
    const auto& rp = A.host_row_ptrs();
    const auto& ci = A.host_col_idxs();
    const int n = static_cast<int>(A.size());
    std::vector<std::int32_t> diag(n);
    for (int i = 0; i < n; ++i) {
        const auto it = std::lower_bound(ci.begin() + rp[i], ci.begin() + rp[i + 1], i);
        if (it == ci.begin() + rp[i + 1] || *it != i)
            throw BadInput(
                "ilu0: row " + std::to_string(i) +
                " has no diagonal entry in the sparsity pattern (ILU(0) needs all of them)");
        diag[i] = static_cast<std::int32_t>(it - ci.begin());
    }
    std::vector<std::int32_t> lp, lr, up, ur;
    levels(rp, ci, diag, true, lp, lr);
    levels(rp, ci, diag, false, up, ur);
    const Executor& exec = A.executor();
    IluArrays a{Array<std::int32_t>(exec, diag), Array<std::int32_t>(exec, lp),
                Array<std::int32_t>(exec, lr),   Array<std::int32_t>(exec, up),
                Array<std::int32_t>(exec, ur),   {}};
    a.pattern = {a.diag.data(),
                 a.lower_ptrs.data(),
                 a.lower_rows.data(),
                 static_cast<int>(lp.size()) - 1,
                 a.upper_ptrs.data(),
                 a.upper_rows.data(),
                 static_cast<int>(up.size()) - 1};
    return a;
}

template <typename T>
void check_vectors(const BatchMatrix<T>& A, const Array<T>& b, const Array<T>& x,
                   const char* where) {
    const std::size_t len = A.num_systems() * A.size();
    if (b.size() != len) throw DimensionMismatch(std::string(where) + " (b)", len, b.size());
    if (x.size() != len) throw DimensionMismatch(std::string(where) + " (x)", len, x.size());
    if (b.executor() != A.executor() || x.executor() != A.executor())
        throw BadInput(std::string(where) + ": b and x must live on the matrix's executor (A on " +
                       A.executor().name() + ", b on " + b.executor().name() + ", x on " +
                       x.executor().name() + ")");
}

/// ||b_s - A_s x_s|| of every system of `args` to the host, and ||b_s|| into `bnorm` when given
/// (computed apart from any solver, in double).
template <typename T>
std::vector<double> residuals_of(const Executor& exec, const detail::BatchArgs<T>& args,
                                 std::vector<double>* bnorm = nullptr) {
    const std::size_t B = static_cast<std::size_t>(args.num_systems);
    Array<double> res(exec, B), rhs(exec, B);
    dispatch<KernelFamily::batch>(exec, [&](auto backend) {
        batch_residual_norms(backend, exec, args, res.data(), rhs.data());
    });
    if (bnorm) *bnorm = rhs.to_host();
    return res.to_host();
}

/// ||v|| of n entries, scaled by the largest magnitude (exact at any magnitude, in double);
/// NaN when an entry is not finite.
template <typename T>
double scaled_norm(const T* v, std::size_t n) {
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = std::abs(static_cast<double>(v[i]));
        if (!std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
        largest = std::max(largest, a);
    }
    if (largest == 0) return 0;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = static_cast<double>(v[i]) / largest;
        sum += a * a;
    }
    return largest * std::sqrt(sum);
}

/// The systems that cannot be solved as they are, found on the host before the solve: per
/// system, non_finite when b_s (or x_s as the initial guess) holds a NaN or Inf, bad_scale when
/// ||b_s|| or its stopping threshold lies outside what T's squared norms hold (the kernels
/// square residual norms unscaled, as the monolithic solvers do: such a system would stop on
/// an underflowed norm as "converged", or overflow); converged for every other system. A NaN
/// or Inf in A_s is found by the solver itself (non_finite or singular_preconditioner).
template <typename T>
std::vector<solver::StopReason> refused_systems(const BatchMatrix<T>& A, const Array<T>& b,
                                                const Array<T>& x, const Settings& s) {
    const std::size_t B = A.num_systems(), n = A.size();
    const std::vector<T> bh = b.to_host();
    std::vector<T> xh;
    if (s.use_initial_guess) xh = x.to_host();
    solver::Settings bounds;
    bounds.rtol = s.tolerance_type == ToleranceType::relative ? s.tolerance : 0.0;
    bounds.atol = s.tolerance_type == ToleranceType::relative ? 0.0 : s.tolerance;
    std::vector<solver::StopReason> refused(B, solver::StopReason::converged);
    for (std::size_t sys = 0; sys < B; ++sys) {
        const double bnorm = scaled_norm(bh.data() + sys * n, n);
        if (std::isnan(bnorm) ||
            (s.use_initial_guess && std::isnan(scaled_norm(xh.data() + sys * n, n))))
            refused[sys] = solver::StopReason::non_finite;
        else if (!solver::detail::scale_problem<T>(bnorm, bounds).empty())
            refused[sys] = solver::StopReason::bad_scale;
    }
    return refused;
}

}  // namespace

template <typename T>
std::vector<double> residual_norms(const BatchMatrix<T>& A, const Array<T>& b, const Array<T>& x) {
    check_vectors(A, b, x, "batch::residual_norms");
    auto args = detail::matrix_args(A);
    args.b = b.data();
    args.x = const_cast<T*>(x.data());  // read only by this kernel
    return residuals_of(A.executor(), args);
}

template <typename T>
Result solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x, const Settings& settings) {
    check_vectors(A, b, x, "batch::solve");
    if (A.num_systems() == 0) throw BadInput("batch::solve: the batch holds no systems");
    const Settings& s = settings;
    if (!(s.tolerance >= 0) || !std::isfinite(s.tolerance))
        throw BadInput("batch::solve: tolerance must be finite and >= 0 (got " +
                       std::to_string(s.tolerance) + ")");
    if (s.max_iters < 0) throw BadInput("batch::solve: max_iters must be >= 0");
    if (s.solver != solver::Solver::cg && s.solver != solver::Solver::bicgstab &&
        s.solver != solver::Solver::gmres)
        throw Unsupported("batch::solve: " + solver::to_string(s.solver) +
                          " is a monolithic solver (batched: cg, bicgstab, gmres)");
    if (s.solver == solver::Solver::gmres && (s.restart < 1 || s.restart > kMaxRestart))
        throw BadInput("batch::solve: GMRES restart must be in [1, " + std::to_string(kMaxRestart) +
                       "] (got " + std::to_string(s.restart) + ")");
    using solver::Preconditioner;
    if (s.precond != Preconditioner::none && s.precond != Preconditioner::jacobi &&
        s.precond != Preconditioner::block_jacobi && s.precond != Preconditioner::ilu0)
        throw Unsupported("batch::solve: the " + solver::to_string(s.precond) +
                          " preconditioner is for the monolithic solvers (batched: none, jacobi, "
                          "block-jacobi or ilu0)");
    if (s.precond == solver::Preconditioner::block_jacobi &&
        (s.block_size < 1 || s.block_size > detail::kMaxBlockSize))
        throw BadInput("batch::solve: block Jacobi block size must be in [1, " +
                       std::to_string(detail::kMaxBlockSize) + "] (got " +
                       std::to_string(s.block_size) + ")");
    if (s.precond == solver::Preconditioner::ilu0 && A.format() != Format::csr)
        throw BadInput("batch::solve: ilu0 needs the csr format (got " + to_string(A.format()) +
                       ")");

    const Executor& exec = A.executor();
    const std::size_t B = A.num_systems();
    const std::vector<solver::StopReason> refused = refused_systems(A, b, x, s);
    auto args = detail::matrix_args(A);
    args.b = b.data();
    args.x = x.data();
    args.options.solver = s.solver;
    args.options.precond = s.precond;
    args.options.relative = s.tolerance_type == ToleranceType::relative;
    args.options.tolerance = s.tolerance;
    args.options.max_iters = s.max_iters;
    args.options.restart = s.restart;
    args.options.block_size = s.block_size;
    args.options.use_initial_guess = s.use_initial_guess;
    args.shared_memory = s.shared_memory;
    IluArrays ilu;
    if (s.precond == solver::Preconditioner::ilu0) {
        ilu = ilu_arrays(A);
        args.ilu = ilu.pattern;
    }
    Array<int> iterations(exec, B);
    Array<solver::StopReason> reasons(exec, B);
    args.iterations = iterations.data();
    args.reasons = reasons.data();

    Result result;
    // The solve itself, timed by the kernel on the executor (device events on a GPU); its launch
    // set-up and workspace are outside the timed region.
    Timer timer(exec);
    dispatch<KernelFamily::batch>(
        exec, [&](auto backend) { batch_solve(backend, exec, args, timer, result.launch); });
    result.time_s = timer.seconds();
    result.iterations = iterations.to_host();
    result.reason = reasons.to_host();
    result.residual_norm = residuals_of(exec, args, &result.rhs_norm);
    // The systems refused before the solve went through the kernel with the others (their x is
    // whatever it left, no solution); their reason is the one found before.
    for (std::size_t sys = 0; sys < B; ++sys)
        if (refused[sys] != solver::StopReason::converged) result.reason[sys] = refused[sys];
    return result;
}

#define PORTLA_INSTANTIATE_BATCH_SOLVE(T)                                                      \
    template Result solve(const BatchMatrix<T>&, const Array<T>&, Array<T>&, const Settings&); \
    template std::vector<double> residual_norms(const BatchMatrix<T>&, const Array<T>&,        \
                                                const Array<T>&)
PORTLA_INSTANTIATE_BATCH_SOLVE(double);
PORTLA_INSTANTIATE_BATCH_SOLVE(float);

}  // namespace portla::batch
