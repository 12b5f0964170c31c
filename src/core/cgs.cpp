// Conjugate gradients squared (Sonneveld, 1989), right-preconditioned, written once over blas
// operations on Arrays and the operator's apply(). Per iteration:
//   rho = r~^H r;  beta = rho / rho_old
//   u = r + beta q;  p = u + beta (q + beta p)
//   v = A M^-1 p;  alpha = rho / r~.v;  q = u - alpha v
//   u_hat = M^-1 (u + q);  x += alpha u_hat;  r -= alpha A u_hat
#include "portla/solver/cgs.hpp"

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
    // The scalars: double, or complex of double for complex values (dot products x^H y).
    using S = common::wide_t<T>;
    using common::narrow;
    const detail::SolveStart<T> started("cgs", A, given, b, x, settings);
    const PreconditionerOperator<T>* M = started.M;
    const double bnorm = started.bnorm;
    Result result;
    const auto& exec = A.executor();
    const std::size_t n = A.rows();

    Array<T> r(exec, n), r_hat(exec, n), p(exec, n), q(exec, n), u(exec, n), v(exec, n);
    Array<T> z(exec, M ? n : 0);
    detail::Progress progress(settings, bnorm, result);
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };
    // M^-1 in (in itself without M): returns the view to use
    auto precondition = [&](const Array<T>& in) -> const_view<T> {
        if (!M) return in.get_view();
        M->apply(in, z);
        return z.get_view();
    };

    detail::initial_residual<T>(A, b, x, r, settings);                      // r = b - A x
    detail::ShadowResidual<T> shadow(A, b, x, r, r_hat, progress, result);  // r~ = r_0
    double rnorm = detail::norm2<T>(A, r);
    S rho_old = 1;
    using Step = typename detail::ShadowResidual<T>::Step;
    if (progress.record(0, rnorm) || settings.max_iters == 0) {
        progress.final_residual(rnorm);  // x is the initial one
    } else {
        for (int it = 1; it <= settings.max_iters; ++it) {
            const S rho = dot(r_hat, r);  // rho = r~ . r
            if (const Step step = shadow.check(rho); step != Step::go) {
                if (step == Step::stop) break;
                --it;  // the iteration starts again
                continue;
            }
            if (shadow.restarting()) {
                blas::copy<T>(exec, r, u);  // u = r
                blas::copy<T>(exec, r, p);  // p = r
            } else {
                const T beta = narrow<T>(rho / rho_old);
                blas::copy<T>(exec, r, u);
                blas::axpby<T>(exec, beta, q, T{1}, u);  // u = r + beta q
                blas::axpby<T>(exec, T{1}, q, beta, p);  // p = q + beta p
                blas::axpby<T>(exec, T{1}, u, beta, p);  // p = u + beta (q + beta p)
            }
            A.apply(precondition(p), v);  // v = A M^-1 p
            const S rv = dot(r_hat, v);
            if (const Step step = shadow.check(rv); step != Step::go) {
                if (step == Step::stop) break;
                --it;  // the iteration starts again
                continue;
            }
            const S alpha = rho / rv;
            blas::copy<T>(exec, u, q);
            blas::axpby<T>(exec, narrow<T>(-alpha), v, T{1}, q);  // q = u - alpha v
            blas::axpby<T>(exec, T{1}, q, T{1}, u);               // u = u + q
            const const_view<T> uh = precondition(u);             // u_hat = M^-1 (u + q)
            blas::axpby<T>(exec, narrow<T>(alpha), uh, T{1}, x);  // x += alpha u_hat
            A.apply(uh, v);                                       // v = A u_hat
            blas::axpby<T>(exec, narrow<T>(-alpha), v, T{1}, r);  // r -= alpha A u_hat
            if (progress.replace_now(it)) detail::residual<T>(A, b, x, r);
            rnorm = detail::norm2<T>(A, r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.record(it, rnorm) && shadow.confirmed()) break;
            shadow.completed();
            rho_old = rho;
        }
    }
    detail::finish<T>(A, b, x, v, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(cgs);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(cgs);

}  // namespace portla::solver
