#include "portla/solver/bicgstab.hpp"

#include <complex>

#include "common/scalar.hpp"
#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

// With the caller's preconditioner M, or (M null) the one settings.precond names.
template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const_view<T> b,
             view<T> x, const Settings& settings) {
    // The scalars: double, or complex of double for complex values (dot products x^H y).
    using S = common::wide_t<T>;
    using common::narrow;
    Result result;
    const double bnorm = detail::check_inputs("bicgstab", A, b, x, settings, M);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (!M) M = (built = detail::preconditioner("bicgstab", A, settings)).get();
    const bool precond = M != nullptr;
    detail::start<T>(A, x, settings);

    Array<T> r(exec, n), r_hat(exec, n), p(exec, n), v(exec, n), s(exec, n), t(exec, n);
    Array<T> p_hat(exec, precond ? n : 0), s_hat(exec, precond ? n : 0);
    detail::Progress progress(settings, bnorm, result);
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };
    // y = M^-1 y_in (right preconditioning): returns the view to use
    auto precondition = [&](const Array<T>& in, Array<T>& out) -> const_view<T> {
        if (!precond) return in.get_view();
        M->apply(in, out);
        return out.get_view();
    };

    detail::initial_residual<T>(A, b, x, r, settings);                      // r = b - A x
    detail::ShadowResidual<T> shadow(A, b, x, r, r_hat, progress, result);  // r~ = r_0
    double rnorm = detail::norm2<T>(A, r);
    S rho_old = 1, alpha = 1, omega = 1;
    using Step = typename detail::ShadowResidual<T>::Step;
    if (progress.record(0, rnorm) || settings.max_iters == 0) {
        progress.final_residual(rnorm);  // x is the initial one
    } else {
        for (int it = 1; it <= settings.max_iters; ++it) {
            const S rho = dot(r_hat, r);  // rho = r_hat . r
            if (const Step step = shadow.check(rho); step != Step::go) {
                if (step == Step::stop) break;
                --it;  // the iteration starts again
                continue;
            }
            if (shadow.restarting()) {
                blas::copy<T>(exec, r, p);  // p = r
            } else {
                const S beta = (rho / rho_old) * (alpha / omega);
                blas::axpby<T>(exec, narrow<T>(-omega), v, T{1}, p);  // p = p - omega v
                blas::axpby<T>(exec, T{1}, r, narrow<T>(beta), p);    // p = r + beta p
            }
            const const_view<T> ph = precondition(p, p_hat);  // p_hat = M^-1 p
            A.apply(ph, v);                                   // v = A p_hat
            const S rv = dot(r_hat, v);
            if (const Step step = shadow.check(rv); step != Step::go) {
                if (step == Step::stop) break;
                --it;  // the iteration starts again
                continue;
            }
            alpha = rho / rv;
            blas::copy<T>(exec, r, s);
            blas::axpby<T>(exec, narrow<T>(-alpha), v, T{1}, s);  // s = r - alpha v
            const double snorm = detail::norm2<T>(A, s);
            if (progress.reached(snorm)) {                            // early exit at the half step
                blas::axpby<T>(exec, narrow<T>(alpha), ph, T{1}, x);  // x += alpha p_hat
                if (settings.iterate_monitor) settings.iterate_monitor(it);
                if (progress.record(it, snorm) && shadow.confirmed()) break;
                continue;
            }
            const const_view<T> sh = precondition(s, s_hat);  // s_hat = M^-1 s
            A.apply(sh, t);                                   // t = A s_hat
            const S tt = dot(t, t);
            if (const Step step = shadow.check(tt); step != Step::go) {
                if (step == Step::stop) break;
                --it;  // the iteration starts again
                continue;
            }
            // omega = t.s / t.t (t^H s / t^H t: the omega minimising ||s - omega t||). (Sleijpen &
            // van der Vorst's limiter |cos(t, s)| >= 0.7 was tried: 1.3-4x more iterations on
            // 662_bus, 1138_bus, bcsstk01/04, omp; not used.)
            omega = dot(t, s) / tt;
            blas::axpby<T>(exec, narrow<T>(alpha), ph, T{1}, x);  // x += alpha p_hat
            blas::axpby<T>(exec, narrow<T>(omega), sh, T{1}, x);  // x += omega s_hat
            blas::copy<T>(exec, s, r);
            blas::axpby<T>(exec, narrow<T>(-omega), t, T{1}, r);  // r = s - omega t
            const bool replace = progress.replace_now(it);
            if (replace) detail::residual<T>(A, b, x, r);
            rnorm = detail::norm2<T>(A, r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.record(it, rnorm) && shadow.confirmed()) break;
            shadow.completed();
            if (omega == 0.0 && shadow.check(0.0) == Step::stop) break;
            rho_old = rho;
        }
    }
    detail::finish<T>(A, b, x, t, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(bicgstab);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(bicgstab);

}  // namespace portla::solver
