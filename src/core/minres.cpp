// MINRES (Paige and Saunders, 1975) with a symmetric positive definite preconditioner, written
// once over blas operations on Arrays and the operator's apply(). Per iteration k:
//   v = y / beta_k;  y = (A - shift I) v - (beta_k / beta_{k-1}) r1    Lanczos, M^-1-orthogonal
//   alpha = v.y;  y -= (alpha / beta_k) r2;  r1 = r2;  r2 = y
//   y = M^-1 r2;  beta_{k+1} = sqrt(r2.y)
// The tridiagonal matrix is reduced by Givens rotations on the host (scalars in double); the
// search direction w = (v - eps w_{k-2} - delta w_{k-1}) / gamma and x += phi w follow, and
// phibar is the M^-1-norm of the residual.
#include "portla/solver/minres.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* given, const_view<T> b,
             view<T> x, const Settings& settings) {
    if (!std::isfinite(settings.shift)) throw BadInput("minres: shift must be finite");
    const detail::SolveStart<T> started("minres", A, given, b, x, settings);
    const PreconditionerOperator<T>* M = started.M;
    const double bnorm = started.bnorm;
    Result result;
    const auto& exec = A.executor();
    const std::size_t n = A.rows();

    const T shift = static_cast<T>(settings.shift);
    // y = (A - shift I) in
    auto apply = [&](const_view<T> in, view<T> y) {
        A.apply(in, y);
        if (shift != T{0}) blas::axpby<T>(exec, -shift, in, T{1}, y);
    };
    Array<T> r1(exec, n), r2(exec, n), y(exec, n), v(exec, n), w(exec, n), w_prev(exec, n);
    // r = b - (A - shift I) x of the current x, into `out`; returns its norm
    auto true_norm = [&](view<T> out) {
        apply(x, out);
        blas::axpby<T>(exec, T{1}, b, T{-1}, out);
        return detail::norm2<T>(A, out);
    };
    detail::Progress progress(settings, bnorm, result);
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };
    // y = M^-1 r (a copy without M); returns r.y, the squared M^-1-norm of r
    auto precondition = [&](const Array<T>& r, Array<T>& out) {
        if (M)
            M->apply(r, out);
        else
            blas::copy<T>(exec, r, out);
        return dot(r, out);
    };

    if (settings.use_initial_guess)
        true_norm(r1);  // r1 = b - (A - shift I) x
    else
        blas::copy<T>(exec, b, r1);
    const double rnorm = detail::norm2<T>(A, r1);
    progress.final_residual(rnorm);  // until x changes
    const double beta1_squared = precondition(r1, y);
    if (progress.record(0, rnorm) || settings.max_iters == 0) {
        // x is the initial one
    } else if (!std::isfinite(beta1_squared)) {
        progress.stop(StopReason::non_finite);
    } else if (beta1_squared <= 0) {
        // r = 0 was caught above: M^-1 is not positive definite (or r in its null space)
        progress.stop(beta1_squared < 0 ? StopReason::indefinite : StopReason::breakdown);
    } else {
        blas::copy<T>(exec, r1, r2);
        blas::fill<T>(exec, w, T{0});
        blas::fill<T>(exec, w_prev, T{0});
        const double eps = std::numeric_limits<T>::epsilon();
        double beta = std::sqrt(beta1_squared), old_beta = 0, dbar = 0, epsilon = 0;
        double phibar = beta, cs = -1, sn = 0;
        progress.final_residual(-1);
        for (int it = 1; it <= settings.max_iters; ++it) {
            blas::axpby<T>(exec, static_cast<T>(1 / beta), y, T{0}, v);  // v = y / beta
            apply(v, y);                                                 // y = (A - shift I) v
            if (it > 1) blas::axpby<T>(exec, static_cast<T>(-beta / old_beta), r1, T{1}, y);
            const double alpha = dot(v, y);
            blas::axpby<T>(exec, static_cast<T>(-alpha / beta), r2, T{1}, y);  // y -= a/b r2
            std::swap(r1, r2);
            blas::copy<T>(exec, y, r2);  // r1 = r2; r2 = y
            old_beta = beta;
            const double beta_squared = precondition(r2, y);  // y = M^-1 r2
            if (!std::isfinite(alpha) || !std::isfinite(beta_squared)) {
                progress.stop(StopReason::non_finite);
                break;
            }
            if (beta_squared < 0) {
                progress.stop(StopReason::indefinite);
                break;
            }
            beta = std::sqrt(beta_squared);
            // The previous rotation on the new column of the tridiagonal matrix, then one that
            // zeroes its subdiagonal beta.
            const double old_epsilon = epsilon;
            const double delta = cs * dbar + sn * alpha;
            const double gbar = sn * dbar - cs * alpha;
            epsilon = sn * beta;
            dbar = -cs * beta;
            const double gamma = std::max(std::hypot(gbar, beta), eps);
            cs = gbar / gamma;
            sn = beta / gamma;
            const double phi = cs * phibar;
            phibar *= sn;
            // w_prev = (v - eps_k w_prev - delta w) / gamma, then it is the newest w
            blas::axpby<T>(exec, static_cast<T>(1 / gamma), v, static_cast<T>(-old_epsilon / gamma),
                           w_prev);
            blas::axpby<T>(exec, static_cast<T>(-delta / gamma), w, T{1}, w_prev);
            std::swap(w, w_prev);
            blas::axpby<T>(exec, static_cast<T>(phi), w, T{1}, x);  // x += phi w
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.record_confirmed(it, phibar, [&] { return true_norm(v); })) break;
            if (beta == 0) {  // invariant Krylov space: x is the space's best
                const double r = true_norm(v);
                progress.final_residual(r);
                progress.stop(progress.reached(r) ? StopReason::converged : StopReason::breakdown);
                break;
            }
        }
    }
    if (progress.final_residual() < 0) progress.final_residual(true_norm(v));
    detail::finish<T>(A, b, x, v, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(minres);

}  // namespace portla::solver
