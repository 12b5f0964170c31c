// Pieces shared by the Krylov solvers: input checks, the Jacobi preconditioner, device scalars,
// the true residual and the bookkeeping of a solve.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/stopping.hpp"
#include "core/global_reduction.hpp"
#include "portla/array.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver::detail {

/// One scalar in the executor's memory, read back to the host on demand.
template <typename T>
class DeviceScalar {
public:
    explicit DeviceScalar(const Executor& exec) : value_(exec, 1) {}
    view<T> get() { return value_.get_view(); }
    double read() const {
        T host{};
        Executor::copy_bytes(Executor::reference(), &host, value_.executor(), value_.data(),
                             sizeof(T));
        return static_cast<double>(host);
    }

private:
    Array<T> value_;
};

/// The solvers' kernels accumulate squared norms (r.r, p.Ap) unscaled, in T (in double on the
/// CPU backends): a system whose residual norms cannot be squared in T would stop on an
/// underflowed r.r (a false "converged") or overflow to Inf. Such a system cannot be solved as
/// it is: the stopping threshold max(rtol ||b||, atol), down to which the residual norms are
/// resolved, must have a normal square in T, with 2^-26 to spare (the squares of residual
/// entries below it by that factor still hold 26 bits), and ||b||^2 must stay 2^20 below T's
/// largest value (room for residual growth before convergence). Returns what is wrong (||b||,
/// the threshold and the range they must lie in), or an empty string when the scale is fine.
template <typename T>
std::string scale_problem(double bnorm, const Settings& s) {
    if (bnorm == 0) return {};  // x = 0 solves it exactly
    // rtol = atol = 0 (run to max_iters): residuals are resolved down to ||b|| at least.
    const double threshold =
        std::max(s.rtol * bnorm, s.atol) > 0 ? std::max(s.rtol * bnorm, s.atol) : bnorm;
    const double smallest = std::sqrt(double(std::numeric_limits<T>::min())) * 0x1p13;
    const double largest = std::sqrt(double(std::numeric_limits<T>::max())) * 0x1p-10;
    if (threshold >= smallest && bnorm <= largest) return {};
    char detail[160];
    std::snprintf(detail, sizeof detail,
                  "||b|| = %.3g and the stopping threshold is %.3g; they must lie in [%.3g, %.3g]",
                  bnorm, threshold, smallest, largest);
    return detail;
}

/// Throws BadInput telling how to rescale when scale_problem finds one.
template <typename T>
void check_scale(const std::string& name, double bnorm, const Settings& s) {
    const std::string detail = scale_problem<T>(bnorm, s);
    if (detail.empty()) return;
    const char* precision = sizeof(T) == sizeof(double) ? "double" : "single";
    throw BadInput(name + ": the system's scale is outside what " + precision +
                   " precision can solve (" + detail +
                   " so that squared residual norms neither underflow nor overflow): scale A and "
                   "b by a power of 2");
}

template <typename T>
void check_local_inputs(const std::string& name, const LinearOperator<T>& A, const_view<T> b,
                        view<T> x, const Settings& s, const PreconditionerOperator<T>* M);

/// Checks sizes, settings and finiteness of b (and of x when it is the initial guess), and that
/// a given preconditioner fits A. Returns ||b||. Leaves x as it is (see start()).
template <typename T>
double check_inputs(const char* solver, const LinearOperator<T>& A, const_view<T> b, view<T> x,
                    const Settings& s, const PreconditionerOperator<T>* M = nullptr) {
    const std::string name(solver);
    // The checks of this rank's part first, agreed over the ranks of a distributed operator
    // (every rank throws when one fails), then the norms, which are collective.
    dist::on_every_rank(A.communicator(), [&] { check_local_inputs(name, A, b, x, s, M); });
    const double bnorm = norm2<T>(A, b);
    if (!std::isfinite(bnorm)) throw BadInput(name + ": right-hand side contains NaN or Inf");
    check_scale<T>(name, bnorm, s);
    if (s.use_initial_guess && !std::isfinite(norm2<T>(A, x)))
        throw BadInput(name + ": initial guess contains NaN or Inf");
    return bnorm;
}

/// check_inputs' checks that need no reduction (on a distributed operator, this rank's part).
template <typename T>
void check_local_inputs(const std::string& name, const LinearOperator<T>& A, const_view<T> b,
                        view<T> x, const Settings& s, const PreconditionerOperator<T>* M) {
    if (A.rows() != A.cols())
        throw DimensionMismatch(name + ": operator must be square (" + std::to_string(A.rows()) +
                                    " x " + std::to_string(A.cols()) + "); rows",
                                A.rows(), A.cols());
    if (const std::string defect = A.structural_defect(); !defect.empty())
        throw BadInput(name + ": " + defect);
    if (b.size != A.rows()) throw DimensionMismatch(name + ": b", A.rows(), b.size);
    if (x.size != A.cols()) throw DimensionMismatch(name + ": x", A.cols(), x.size);
    if (M) {
        if (M->size() != A.rows())
            throw DimensionMismatch(name + ": preconditioner " + M->name(), A.rows(), M->size());
        if (M->executor().backend() != A.executor().backend() ||
            M->executor().device_id() != A.executor().device_id())
            throw BadInput(name + ": the preconditioner lives on another executor than A");
    }
    if (!(s.rtol >= 0) || !std::isfinite(s.rtol))
        throw BadInput(name + ": rtol must be finite and >= 0");
    if (!(s.atol >= 0) || !std::isfinite(s.atol))
        throw BadInput(name + ": atol must be finite and >= 0");
    if (s.max_iters < 0) throw BadInput(name + ": max_iters must be >= 0");
    if (s.residual_replacement < 0) throw BadInput(name + ": residual_replacement must be >= 0");
}

/// Throws Unsupported, naming the solver, when A does not provide A^T x.
template <typename T>
void require_transpose(const char* solver, const LinearOperator<T>& A) {
    if (!A.has_transpose())
        throw Unsupported(std::string(solver) + ": needs A^T x, which the " + A.format() +
                          " operator does not provide");
}

/// x = 0 unless it is the initial guess: called once every check has passed and the
/// preconditioner is built, so a solve that throws leaves x as it was.
template <typename T>
void start(const LinearOperator<T>& A, view<T> x, const Settings& s) {
    if (!s.use_initial_guess) blas::fill(A.executor(), x, T{0});
}

/// The preconditioner of settings.precond (nullptr for none), with the solver's name on its
/// errors.
template <typename T>
std::unique_ptr<PreconditionerOperator<T>> preconditioner(const char* solver,
                                                          const LinearOperator<T>& A,
                                                          const Settings& s) {
    // Built on every rank of a distributed operator, which all throw when one fails.
    std::unique_ptr<PreconditionerOperator<T>> M;
    dist::on_every_rank(A.communicator(), [&] {
        try {
            M = make_preconditioner(A, s);
        } catch (const BadInput& e) {
            throw BadInput(std::string(solver) + ": " + e.what());
        } catch (const Unsupported& e) {
            throw Unsupported(std::string(solver) + ": " + e.what());
        }
    });
    return M;
}

/// r = b - A x
template <typename T>
void residual(const LinearOperator<T>& A, const_view<T> b, const_view<T> x, view<T> r) {
    A.apply(x, r);
    blas::axpby(A.executor(), T{1}, b, T{-1}, r);
}

/// The residual of the initial x (after start()): r = b - A x, or r = b without applying A
/// when x = 0 because it is not the initial guess.
template <typename T>
void initial_residual(const LinearOperator<T>& A, const_view<T> b, const_view<T> x, view<T> r,
                      const Settings& s) {
    if (s.use_initial_guess)
        residual(A, b, x, r);
    else
        blas::copy(A.executor(), b, r);
}

/// Records the residual of one iteration (history and monitor) and decides whether to stop.
class Progress {
public:
    Progress(const Settings& s, double bnorm, Result& result)
        : settings_(s), threshold_(std::max(s.rtol * bnorm, s.atol)), result_(result) {
        result_.rhs_norm = bnorm;
    }
    /// Returns true when the solve must stop (converged or non-finite); sets the reason.
    bool record(int iteration, double rnorm) {
        result_.iterations = iteration;
        if (settings_.record_history) result_.history.push_back(rnorm);
        if (settings_.monitor) settings_.monitor(iteration, rnorm);
        if (!std::isfinite(rnorm)) return stop(StopReason::non_finite);
        if (rnorm <= threshold_) return stop(StopReason::converged);
        return false;
    }
    /// After record() found the recurrence residual converged: `true_rnorm` is the true
    /// residual. Returns true when it meets the test too (the solve ends converged); false when
    /// the solve must go on from the true residual. No stagnation: an unattainable tolerance
    /// runs to the iteration limit, as SciPy's and PETSc's solvers do.
    bool confirm(double true_rnorm) {
        if (true_rnorm <= threshold_) {
            final_residual_ = true_rnorm;
            return true;
        }
        result_.reason = StopReason::max_iterations;
        result_.converged = false;
        return false;
    }
    /// max(rtol ||b||, atol)
    double threshold() const { return threshold_; }
    /// Whether a residual norm meets the stopping test (without recording it).
    bool reached(double rnorm) const { return rnorm <= threshold_; }
    bool stop(StopReason reason) {
        result_.reason = reason;
        result_.converged = reason == StopReason::converged;
        return true;
    }
    bool replace_now(int iteration) const {
        return common::replace_at(settings_.residual_replacement, iteration);
    }

    /// `true_rnorm` is ||b - A x|| of x as the solve leaves it (computed after the solve's last
    /// change to x): finish() takes it instead of applying A again. confirm() sets it when it
    /// returns true.
    void final_residual(double true_rnorm) { final_residual_ = true_rnorm; }
    /// The norm given to final_residual(), or a negative value.
    double final_residual() const { return final_residual_; }

private:
    const Settings& settings_;
    double threshold_;
    Result& result_;
    double final_residual_ = -1;
};

/// A solve that stopped without converging (max_iterations, breakdown, non_finite) with a
/// preconditioner its set-up found unstable reports that as its reason. On a distributed
/// operator each rank factors its own block: unstable on any rank is unstable on all (every
/// rank calls this, with the same result.converged).
template <typename T>
void blame_unstable_preconditioner(const LinearOperator<T>& A, const PreconditionerOperator<T>* M,
                                   Result& result) {
    const auto r = result.reason;
    if (r != StopReason::max_iterations && r != StopReason::breakdown &&
        r != StopReason::non_finite)
        return;
    double unstable = M && M->unstable() ? 1 : 0;
    if (const auto* comm = A.communicator()) comm->allreduce_max(&unstable, 1);
    if (unstable > 0) result.reason = StopReason::unstable_preconditioner;
}

/// Sets result.residual_norm to ||b - A x||, computed afresh; `work` is scratch of size n.
template <typename T>
void finish(const LinearOperator<T>& A, const_view<T> b, const_view<T> x, view<T> work,
            Result& result) {
    residual(A, b, x, work);
    result.residual_norm = norm2<T>(A, work);
}

/// finish(), or the final residual norm `progress` already holds (no operator application).
template <typename T>
void finish(const LinearOperator<T>& A, const_view<T> b, const_view<T> x, view<T> work,
            Result& result, const Progress& progress) {
    if (progress.final_residual() >= 0)
        result.residual_norm = progress.final_residual();
    else
        finish(A, b, x, work, result);
}

}  // namespace portla::solver::detail
