// Pieces shared by the Krylov solvers: input checks, the Jacobi preconditioner, device scalars,
// the true residual and the bookkeeping of a solve.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/scalar.hpp"
#include "common/stopping.hpp"
#include "core/dispatch_values.hpp"
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
    using R = common::real_t<T>;
    const double smallest = std::sqrt(double(std::numeric_limits<R>::min())) * 0x1p13;
    const double largest = std::sqrt(double(std::numeric_limits<R>::max())) * 0x1p-10;
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
    const char* precision = sizeof(common::real_t<T>) == sizeof(double) ? "double" : "single";
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

/// The host vectors `list` (Settings::kept) as Arrays on exec: each of n finite entries, or
/// empty (not given: an empty Array); BadInput naming the solver and `what` otherwise. Kept
/// vectors hold real values: for complex values Unsupported, whatever the list.
template <typename T>
std::vector<Array<T>> load_kept(const char* solver, const char* what,
                                const std::vector<std::vector<double>>& list, const Executor& exec,
                                std::size_t n) {
    if constexpr (common::is_complex_v<T>)
        throw Unsupported(std::string(solver) + ": " + what + " vectors kept between solves (" +
                          common::dtype_name<T>() + ") are not supported");
    std::vector<Array<T>> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::vector<double>& v = list[i];
        if (!v.empty() && v.size() != n)
            throw BadInput(std::string(solver) + ": " + what + " vector " + std::to_string(i) +
                           " has " + std::to_string(v.size()) + " entries, expected " +
                           std::to_string(n));
        for (double e : v)
            if (!std::isfinite(e))
                throw BadInput(std::string(solver) + ": " + what + " vector " + std::to_string(i) +
                               " is not finite");
        out.emplace_back(exec, std::vector<T>(v.begin(), v.end()));
    }
    return out;
}

/// An Array's values on the host in double (for Settings::kept, real values: load_kept refuses
/// complex ones first).
template <typename T>
std::vector<double> to_double(const Array<T>& a) {
    if constexpr (common::is_complex_v<T>) {
        throw Unsupported("kept vectors of complex values");
    } else {
        const std::vector<T> h = a.to_host();
        return std::vector<double>(h.begin(), h.end());
    }
}

/// Throws BadInput("<solver>: <what> must be >= <least> (got <value>)") for a setting below its
/// least value.
inline void check_at_least(const char* solver, const char* what, int value, int least) {
    if (value < least)
        throw BadInput(std::string(solver) + ": " + what + " must be >= " + std::to_string(least) +
                       " (got " + std::to_string(value) + ")");
}

/// check_inputs' checks that need no reduction (on a distributed operator, this rank's part).
template <typename T>
void check_local_inputs(const std::string& name, const LinearOperator<T>& A, const_view<T> b,
                        view<T> x, const Settings& s, const PreconditionerOperator<T>* M) {
    if constexpr (common::is_complex_v<T>)
        if (!supports_complex(A.executor().backend()))
            throw Unsupported(name + ": complex values (" + common::dtype_name<T>() +
                              ") are not supported on the " + A.executor().name() + " backend yet");
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

/// What every Krylov solve does first, in this order: check_inputs (bnorm = ||b||), the
/// preconditioner M (the caller's, or the one settings.precond names, built and owned here),
/// then x = 0 unless it is the initial guess, so that a solve that throws leaves x as it was.
template <typename T>
struct SolveStart {
    SolveStart(const char* solver, const LinearOperator<T>& A,
               const PreconditionerOperator<T>* given, const_view<T> b, view<T> x,
               const Settings& s)
        : bnorm(check_inputs(solver, A, b, x, s, given)) {
        M = given ? given : (built = preconditioner(solver, A, s)).get();
        start<T>(A, x, s);
    }
    double bnorm;
    std::unique_ptr<PreconditionerOperator<T>> built;
    const PreconditionerOperator<T>* M = nullptr;
};

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
    /// record() of a residual estimate (a bound or another norm of the residual), confirmed
    /// by the true residual when it meets the test: `true_norm()` returns ||b - A x|| of the
    /// current x. Returns true when the solve stops (converged, or non-finite); an estimate
    /// the true residual does not confirm lets the solve go on (reason max_iterations).
    template <typename TrueNorm>
    bool record_confirmed(int iteration, double estimate, TrueNorm true_norm) {
        if (!record(iteration, estimate)) return false;
        if (!result_.converged) return true;
        return confirm(true_norm());
    }
    /// The end of a restart cycle (GMRES, LGMRES), x updated: `true_rnorm` is its true residual,
    /// `claimed` whether record() stopped the cycle, `invariant` whether the Krylov space
    /// closed with the cycle's residual estimate `estimate`. Returns true when the solve stops:
    /// non-finite, converged (the true residual alone decides), or breakdown (an invariant space
    /// whose estimate misses the test: A or M singular).
    bool cycle_ends(double true_rnorm, bool claimed, bool invariant, double estimate) {
        final_residual_ = true_rnorm;
        if (!std::isfinite(true_rnorm)) return stop(StopReason::non_finite);
        if (claimed && result_.reason != StopReason::converged) return true;  // non-finite
        if (reached(true_rnorm)) return stop(StopReason::converged);
        if (claimed) confirm(true_rnorm);  // the estimate met the test, the truth did not
        if (invariant && !reached(estimate)) return stop(StopReason::breakdown);
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

/// The shadow residual r~ of BiCGSTAB and CGS, restarted from the true residual r = b - A x
/// (then r~ = r, so rho = r~.r = ||r||^2 > 0): after the recurrence residual met the test and
/// the true one did not, and after a breakdown (a denominator r~.r, r~.v, t.t or omega exactly
/// zero: the shadow vector failed, not the system). A second breakdown before an iteration
/// completes is reported as breakdown. 494_bus with Jacobi broke down at iteration 728 on omp,
/// 16 threads on the H100 host, where SciPy converged in 706: restarted, BiCGSTAB converges.
template <typename T>
class ShadowResidual {
public:
    /// What the iteration does after a denominator is checked.
    enum class Step { go, stop, again };

    /// r~ = r, r the initial residual.
    ShadowResidual(const LinearOperator<T>& A, const_view<T> b, const_view<T> x, view<T> r,
                   view<T> r_hat, Progress& progress, const Result& result)
        : A_(A), b_(b), x_(x), r_(r), r_hat_(r_hat), progress_(progress), result_(result) {
        blas::copy<T>(A.executor(), r, r_hat);
    }
    /// After record() returned true: true when the solve ends (converged, confirmed by the true
    /// residual, or non-finite); otherwise the iteration restarts from the true residual.
    bool confirmed() {
        if (!result_.converged) return true;
        residual<T>(A_, b_, x_, r_);
        if (progress_.confirm(norm2<T>(A_, r_))) return true;
        restart();
        return false;
    }
    /// go on a nonzero finite denominator; stop on a non-finite one or a second breakdown;
    /// again (the iteration starts again from the true residual) on a first zero.
    Step check(common::wide_t<T> denominator) {
        if (!common::is_finite(denominator)) {
            progress_.stop(StopReason::non_finite);
            return Step::stop;
        }
        if (denominator != 0.0) return Step::go;
        if (++breakdowns_ > 1) {
            progress_.stop(StopReason::breakdown);
            return Step::stop;
        }
        residual<T>(A_, b_, x_, r_);
        restart();
        return Step::again;
    }
    /// Whether the iteration starts afresh from r (first iteration, after a restart); clears it.
    bool restarting() { return std::exchange(restarting_, false); }
    /// An iteration completed.
    void completed() { breakdowns_ = 0; }

private:
    void restart() {
        blas::copy<T>(A_.executor(), r_, r_hat_);
        restarting_ = true;
    }
    const LinearOperator<T>& A_;
    const_view<T> b_, x_;
    view<T> r_, r_hat_;
    Progress& progress_;
    const Result& result_;
    int breakdowns_ = 0;  // since the last completed iteration
    bool restarting_ = true;
};

/// The host side of the Arnoldi steps of (flexible) GMRES cycles (LGMRES, GCROT): the
/// Hessenberg matrix H (kept unrotated), its QR factor R by Givens rotations and the rotated
/// right-hand side g, whose |g_{j+1}| is the residual norm of the cycle's minimiser. S: double,
/// or complex of double for complex values (common::wide_t), where the projections are V^H w
/// and each rotation is [c s; -conj(s) conj(c)] with c = conj(a) / rho, s = conj(b) / rho,
/// rho = sqrt(|a|^2 + |b|^2), mapping (a, b) to (rho, 0), as GMRES's.
template <typename S>
class ArnoldiLeastSquares {
public:
    explicit ArnoldiLeastSquares(int steps)
        : ld_(steps + 1), H_(ld_ * steps), R_(ld_ * steps), cs_(steps), sn_(steps), g_(ld_) {}
    /// A new cycle from a residual of norm beta.
    void start(double beta) {
        std::fill(g_.begin(), g_.end(), S(0));
        g_[0] = beta;
    }
    /// h_i = v_i^H w;  w -= h_i v_i  for i <= j (modified Gram-Schmidt into column j of H), then
    /// h_{j+1} = ||w||, returned.
    template <typename T, typename Basis>
    double orthogonalize(const LinearOperator<T>& A, const Basis& V, int j, view<T> w) {
        S* h = H_.data() + static_cast<std::size_t>(j) * ld_;
        for (int i = 0; i <= j; ++i) {
            h[i] = dot<T>(A, V[i], w);
            blas::axpby<T>(A.executor(), common::narrow<T>(-h[i]), V[i], T{1}, w);
        }
        const double next = norm2<T>(A, w);
        h[j + 1] = next;
        return next;
    }
    /// The end of Arnoldi step j, w = A z_j (projected, for GCROT) with ||A z_j|| = w_norm:
    /// orthogonalize(), rotate() into `estimate`, and v_{j+1} = w / h_{j+1} in w unless the new
    /// direction adds nothing beyond rounding (`invariant`: the Krylov space closed). Returns
    /// false on a non-finite value (nothing else is set then).
    template <typename T, typename Basis>
    bool step(const LinearOperator<T>& A, const Basis& V, int j, view<T> w, double w_norm,
              double& estimate, bool& invariant) {
        const double h_next = orthogonalize(A, V, j, w);
        if (!std::isfinite(h_next) || !std::isfinite(w_norm)) return false;
        estimate = rotate(j);
        invariant = !(h_next > std::numeric_limits<common::real_t<T>>::epsilon() * w_norm);
        if (!invariant) blas::axpby<T>(A.executor(), T{0}, w, common::narrow<T>(1 / h_next), w);
        return true;
    }
    /// Column j of H into R, rotated by the previous rotations and a new one; returns the
    /// residual estimate |g_{j+1}|.
    double rotate(int j) {
        const S* h = H_.data() + static_cast<std::size_t>(j) * ld_;
        S* rj = R_.data() + static_cast<std::size_t>(j) * ld_;
        std::copy(h, h + j + 2, rj);
        for (int i = 0; i < j; ++i) {
            const S t = cs_[i] * rj[i] + sn_[i] * rj[i + 1];
            rj[i + 1] = -common::conj(sn_[i]) * rj[i] + common::conj(cs_[i]) * rj[i + 1];
            rj[i] = t;
        }
        const double rho = std::hypot(std::abs(rj[j]), std::abs(rj[j + 1]));
        cs_[j] = rho > 0 ? S(common::conj(rj[j]) / rho) : S(1);
        sn_[j] = rho > 0 ? S(common::conj(rj[j + 1]) / rho) : S(0);
        rj[j] = rho;
        rj[j + 1] = 0;
        g_[j + 1] = -common::conj(sn_[j]) * g_[j];
        g_[j] *= cs_[j];
        return std::abs(g_[j + 1]);
    }
    /// y from R y = g over the first j columns. A pivot that vanishes beside its column
    /// (|R_ii| <= 1e-14 ||R e_i||: the Krylov space closed on a singular A, as on a nilpotent
    /// one) drops its direction (y_i = 0) instead of dividing by rounding noise: such a pivot
    /// is the cycle's last (a zero pivot is an invariant space, which ends the cycle), so the
    /// rows above are still met and the residual is the least-squares one over the Krylov space.
    std::vector<S> minimiser(int j) const {
        std::vector<S> y(j, S(0));
        for (int i = j - 1; i >= 0; --i) {
            S s = g_[i];
            double column = 0;
            for (int col = i + 1; col < j; ++col) s -= R(i, col) * y[col];
            for (int row = 0; row <= i; ++row) column += std::norm(R(row, i));
            const S d = R(i, i);
            y[i] = std::abs(d) > 1e-14 * std::sqrt(column) ? S(s / d) : S(0);
        }
        return y;
    }
    /// Row i of H y, y of j entries (i <= j).
    S h_times(int i, const std::vector<S>& y) const {
        S q = 0;
        for (int col = std::max(0, i - 1); col < static_cast<int>(y.size()); ++col)
            q += H_[col * ld_ + i] * y[col];
        return q;
    }
    /// Entry (i, col) of the triangular factor.
    S R(int i, int col) const { return R_[static_cast<std::size_t>(col) * ld_ + i]; }

private:
    std::size_t ld_;
    std::vector<S> H_, R_, cs_, sn_, g_;
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

/// The two public entry points of solver `name` (without and with the caller's preconditioner)
/// over the file's `solve<T>(A, M or nullptr, b, x, settings)`, instantiated for double and
/// float.
#define PORTLA_SOLVER_ENTRY_POINTS(name)                                                          \
    template <typename T>                                                                         \
    Result name(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& s) {      \
        return solve<T>(A, nullptr, b, x, s);                                                     \
    }                                                                                             \
    template <typename T>                                                                         \
    Result name(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,  \
                view<T> x, const Settings& s) {                                                   \
        return solve<T>(A, &M, b, x, s);                                                          \
    }                                                                                             \
    template Result name<double>(const LinearOperator<double>&, const_view<double>, view<double>, \
                                 const Settings&);                                                \
    template Result name<float>(const LinearOperator<float>&, const_view<float>, view<float>,     \
                                const Settings&);                                                 \
    template Result name<double>(const LinearOperator<double>&,                                   \
                                 const PreconditionerOperator<double>&, const_view<double>,       \
                                 view<double>, const Settings&);                                  \
    template Result name<float>(const LinearOperator<float>&,                                     \
                                const PreconditionerOperator<float>&, const_view<float>,          \
                                view<float>, const Settings&)

/// PORTLA_SOLVER_ENTRY_POINTS' entry points for complex64 and complex128, for a solver whose
/// solve<T> serves complex values too (scalars in common::wide_t<T>, dot products x^H y).
#define PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(name)                                                  \
    template Result name<std::complex<double>>(const LinearOperator<std::complex<double>>&,       \
                                               const_view<std::complex<double>>,                  \
                                               view<std::complex<double>>, const Settings&);      \
    template Result name<std::complex<float>>(const LinearOperator<std::complex<float>>&,         \
                                              const_view<std::complex<float>>,                    \
                                              view<std::complex<float>>, const Settings&);        \
    template Result name<std::complex<double>>(                                                   \
        const LinearOperator<std::complex<double>>&,                                              \
        const PreconditionerOperator<std::complex<double>>&, const_view<std::complex<double>>,    \
        view<std::complex<double>>, const Settings&);                                             \
    template Result name<std::complex<float>>(const LinearOperator<std::complex<float>>&,         \
                                              const PreconditionerOperator<std::complex<float>>&, \
                                              const_view<std::complex<float>>,                    \
                                              view<std::complex<float>>, const Settings&)
