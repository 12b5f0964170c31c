// Transpose-free QMR (Freund, 1993), right-preconditioned (the Krylov space of A M^-1, whose
// residual is the true one), written once over blas operations on Arrays and the operator's
// apply(). Iteration m is a half step of CGS, smoothed:
//   m even: alpha = rho / r~.v;  u' = u - alpha v                 (u' the next u)
//   w -= alpha A M^-1 u;  d = M^-1 u + (theta^2 eta / alpha) d   (d kept preconditioned)
//   theta = ||w|| / tau;  c = 1 / sqrt(1 + theta^2);  tau *= theta c;  eta = c^2 alpha
//   x += eta d
//   m odd: rho' = r~.w;  beta = rho' / rho;  u = w + beta u;  v = A M^-1 u + beta (A M^-1 u' +
//   beta v)
// tau sqrt(m + 1) bounds the residual norm.
#include "portla/solver/tfqmr.hpp"

#include <cmath>
#include <complex>
#include <memory>

#include "common/scalar.hpp"
#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* given, const_view<T> b,
             view<T> x, const Settings& settings) {
    // The scalars rho, alpha, beta and eta: double, or complex of double for complex values
    // (dot products x^H y); theta, c and tau are norms' ratios, real.
    using S = common::wide_t<T>;
    using common::narrow;
    const detail::SolveStart<T> started("tfqmr", A, given, b, x, settings);
    const PreconditionerOperator<T>* M = started.M;
    const double bnorm = started.bnorm;
    Result result;
    const auto& exec = A.executor();
    const std::size_t n = A.rows();

    // u_hat = A M^-1 u; mu = M^-1 u (u itself without M)
    Array<T> r(exec, n), r_shadow(exec, n), u(exec, n), u_next(exec, n), u_hat(exec, n), v(exec, n),
        w(exec, n), d(exec, n);
    Array<T> mu_store(exec, M ? n : 0);
    const const_view<T> mu = M ? const_view<T>(mu_store.get_view()) : const_view<T>(u.get_view());
    // u_hat = A M^-1 u
    auto apply = [&]() {
        if (M) M->apply(u, mu_store);
        A.apply(mu, u_hat);
    };
    auto true_norm = [&]() {
        detail::residual<T>(A, b, x, r);
        return detail::norm2<T>(A, r);
    };
    detail::Progress progress(settings, bnorm, result);
    // Whether the solve stops at the denominator r~.v or r~.w: non-finite, or zero (then the
    // true residual decides between converged and breakdown).
    auto stops_at = [&](S denominator) {
        if (!std::isfinite(std::abs(denominator))) return progress.stop(StopReason::non_finite);
        if (denominator != S(0)) return false;
        const double t = true_norm();
        progress.final_residual(t);
        return progress.stop(progress.reached(t) ? StopReason::converged : StopReason::breakdown);
    };
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    const double rnorm = detail::norm2<T>(A, r);
    progress.final_residual(rnorm);  // until x changes
    if (!progress.record(0, rnorm) && settings.max_iters > 0) {
        progress.final_residual(-1);
        blas::copy<T>(exec, r, r_shadow);  // r~ = r_0
        blas::copy<T>(exec, r, u);
        blas::copy<T>(exec, r, w);
        blas::fill<T>(exec, d, T{0});
        apply();
        blas::copy<T>(exec, u_hat, v);  // v = A M^-1 r
        S rho = dot(r, r), eta = 0, alpha = 0;
        double tau = rnorm, theta = 0;
        for (int it = 1; it <= settings.max_iters; ++it) {
            const bool even = it % 2 == 1;  // iterations count from 1: the first is step 0
            if (even) {
                const S rv = dot(r_shadow, v);  // r~ . v
                if (stops_at(rv)) break;
                alpha = rho / rv;
                blas::copy<T>(exec, u, u_next);
                blas::axpby<T>(exec, narrow<T>(-alpha), v, T{1}, u_next);  // u' = u - a v
            }
            blas::axpby<T>(exec, narrow<T>(-alpha), u_hat, T{1}, w);  // w -= alpha u_hat
            // d = M^-1 u + (theta^2 eta / alpha) d
            blas::axpby<T>(exec, T{1}, mu, narrow<T>(theta * theta * eta / alpha), d);
            theta = detail::norm2<T>(A, w) / tau;
            const double c = 1 / std::sqrt(1 + theta * theta);
            tau *= theta * c;
            eta = c * c * alpha;
            blas::axpby<T>(exec, narrow<T>(eta), d, T{1}, x);  // x += eta d
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.record_confirmed(it, tau * std::sqrt(double(it)), true_norm)) break;
            if (even) {
                blas::copy<T>(exec, u_next, u);
                apply();  // u_hat = A M^-1 u'
            } else {
                const S rho_next = dot(r_shadow, w);  // r~ . w
                if (stops_at(rho_next)) break;
                const S beta = rho_next / rho;
                rho = rho_next;
                blas::axpby<T>(exec, T{1}, w, narrow<T>(beta), u);  // u = w + beta u
                // v = beta (A M^-1 u' + beta v), then + A M^-1 u
                blas::axpby<T>(exec, narrow<T>(beta), u_hat, narrow<T>(beta * beta), v);
                apply();
                blas::axpby<T>(exec, T{1}, u_hat, T{1}, v);
            }
        }
    }
    if (progress.final_residual() < 0) progress.final_residual(true_norm());
    detail::finish<T>(A, b, x, r, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(tfqmr);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(tfqmr);

}  // namespace portla::solver
