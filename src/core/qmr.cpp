#include "portla/solver/qmr.hpp"

#include <complex>

#include "common/scalar.hpp"
#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

// M1 (left) and M2 (right), either null for the identity; with `own` set, M1 is the one
// settings.precond names.
template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M1,
             const PreconditionerOperator<T>* M2, bool own, const_view<T> b, view<T> x,
             const Settings& settings) {
    // The Lanczos scalars delta, epsilon, beta and eta: double, or complex of double for complex
    // values, where the left sequence is the adjoint one (A^H, M^-H: apply_transpose) and takes
    // conj(beta) and conj(delta) / conj(epsilon), as SciPy's; rho, xi, theta and gamma are real.
    using S = common::wide_t<T>;
    using common::narrow;
    Result result;
    const double bnorm = detail::check_inputs("qmr", A, b, x, settings, M1);
    if (M2) detail::check_inputs("qmr", A, b, x, settings, M2);
    detail::require_transpose("qmr", A);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (own) M1 = (built = detail::preconditioner("qmr", A, settings)).get();
    for (const auto* M : {M1, M2})
        if (M && !M->has_transpose())
            throw Unsupported("qmr: needs M^-T, which the " + M->name() +
                              " preconditioner does not provide (jacobi does)");
    detail::start<T>(A, x, settings);

    // z = M^-1 v (transpose: M^-T v), or z = v without M.
    auto precondition = [&](const PreconditionerOperator<T>* M, bool transpose, const_view<T> v,
                            view<T> z) {
        if (!M)
            blas::copy<T>(exec, v, z);
        else if (transpose)
            M->apply_transpose(v, z);
        else
            M->apply(v, z);
    };
    Array<T> r(exec, n), vt(exec, n), wt(exec, n), v(exec, n), w(exec, n), y(exec, n), z(exec, n);
    Array<T> p(exec, n), q(exec, n), pt(exec, n), yt(exec, n), zt(exec, n), d(exec, n), s(exec, n);
    detail::Progress progress(settings, bnorm, result);
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };
    auto norm = [&](const_view<T> a) { return detail::norm2<T>(A, a); };
    // SciPy's breakdown threshold for every Lanczos scalar.
    const double tol = std::numeric_limits<common::real_t<T>>::epsilon();

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    blas::copy<T>(exec, r, vt);                         // v~ = r
    blas::copy<T>(exec, r, wt);                         // w~ = r
    precondition(M1, false, vt, y);                     // y = M1^-1 v~
    precondition(M2, true, wt, z);                      // z = M2^-T w~
    double rho = norm(y), xi = norm(z);
    double gamma = 1, theta = 0;
    S eta = -1, epsilon = 1;
    double rnorm = norm(r);
    bool first = true;
    auto lanczos_breakdown = [&](S value) {
        if (!std::isfinite(std::abs(value))) return progress.stop(StopReason::non_finite);
        if (std::abs(value) < tol) return progress.stop(StopReason::breakdown);
        return false;
    };
    if (progress.record(0, rnorm) || settings.max_iters == 0) {
        progress.final_residual(rnorm);  // x is the initial one
    } else {
        for (int it = 1; it <= settings.max_iters; ++it) {
            if (lanczos_breakdown(rho) || lanczos_breakdown(xi)) break;
            blas::axpby<T>(exec, narrow<T>(1 / rho), vt, T{0}, v);  // v = v~ / rho
            blas::axpby<T>(exec, T{0}, y, narrow<T>(1 / rho), y);   // y = y / rho
            blas::axpby<T>(exec, narrow<T>(1 / xi), wt, T{0}, w);   // w = w~ / xi
            blas::axpby<T>(exec, T{0}, z, narrow<T>(1 / xi), z);    // z = z / xi
            const S delta = dot(z, y);
            if (lanczos_breakdown(delta)) break;
            precondition(M2, false, y, yt);  // y~ = M2^-1 y
            precondition(M1, true, z, zt);   // z~ = M1^-T z
            if (first) {
                blas::copy<T>(exec, yt, p);  // p = y~
                blas::copy<T>(exec, zt, q);  // q = z~
            } else {
                // p = y~ - (xi delta / epsilon) p;  q = z~ - (rho delta / epsilon) q
                blas::axpby<T>(exec, T{1}, yt, narrow<T>(-xi * delta / epsilon), p);
                blas::axpby<T>(exec, T{1}, zt,
                               narrow<T>(-rho * common::conj(delta) / common::conj(epsilon)), q);
            }
            A.apply(p, pt);  // p~ = A p
            epsilon = dot(q, pt);
            if (lanczos_breakdown(epsilon)) break;
            const S beta = epsilon / delta;
            if (lanczos_breakdown(beta)) break;
            blas::copy<T>(exec, pt, vt);
            blas::axpby<T>(exec, narrow<T>(-beta), v, T{1}, vt);  // v~ = p~ - beta v
            precondition(M1, false, vt, y);                       // y = M1^-1 v~
            const double rho_prev = rho;
            rho = norm(y);
            A.apply_transpose(q, wt);
            // w~ = A^H q - conj(beta) w
            blas::axpby<T>(exec, narrow<T>(-common::conj(beta)), w, T{1}, wt);
            precondition(M2, true, wt, z);  // z = M2^-T w~
            xi = norm(z);
            const double gamma_prev = gamma, theta_prev = theta;
            theta = rho / (gamma_prev * std::abs(beta));
            gamma = 1 / std::sqrt(1 + theta * theta);
            if (lanczos_breakdown(gamma)) break;
            eta *= -(rho_prev / beta) * (gamma / gamma_prev) * (gamma / gamma_prev);
            if (first) {
                blas::axpby<T>(exec, narrow<T>(eta), p, T{0}, d);   // d = eta p
                blas::axpby<T>(exec, narrow<T>(eta), pt, T{0}, s);  // s = eta p~
            } else {
                // d = eta p + (theta_prev gamma)^2 d;  s = eta p~ + (theta_prev gamma)^2 s
                const double c = (theta_prev * gamma) * (theta_prev * gamma);
                blas::axpby<T>(exec, narrow<T>(eta), p, narrow<T>(c), d);
                blas::axpby<T>(exec, narrow<T>(eta), pt, narrow<T>(c), s);
            }
            first = false;
            blas::axpby<T>(exec, T{1}, d, T{1}, x);   // x += d
            blas::axpby<T>(exec, T{-1}, s, T{1}, r);  // r -= s
            if (progress.replace_now(it)) detail::residual<T>(A, b, x, r);
            rnorm = norm(r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.record(it, rnorm)) {
                if (!result.converged) break;
                // The recurrence residual met the test: the true residual confirms it, or the
                // iteration goes on from it.
                detail::residual<T>(A, b, x, r);
                if (progress.confirm(norm(r))) break;
            }
        }
    }
    detail::finish<T>(A, b, x, s, result, progress);
    detail::blame_unstable_preconditioner(A, M1, result);
    return result;
}

}  // namespace

template <typename T>
Result qmr(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings) {
    return solve<T>(A, nullptr, nullptr, true, b, x, settings);
}

template <typename T>
Result qmr(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
           view<T> x, const Settings& settings) {
    return solve<T>(A, &M, nullptr, false, b, x, settings);
}

template <typename T>
Result qmr(const LinearOperator<T>& A, const PreconditionerOperator<T>* M1,
           const PreconditionerOperator<T>* M2, const_view<T> b, view<T> x,
           const Settings& settings) {
    return solve<T>(A, M1, M2, false, b, x, settings);
}

#define PORTLA_INSTANTIATE_QMR(T)                                                              \
    template Result qmr<T>(const LinearOperator<T>&, const_view<T>, view<T>, const Settings&); \
    template Result qmr<T>(const LinearOperator<T>&, const PreconditionerOperator<T>&,         \
                           const_view<T>, view<T>, const Settings&);                           \
    template Result qmr<T>(const LinearOperator<T>&, const PreconditionerOperator<T>*,         \
                           const PreconditionerOperator<T>*, const_view<T>, view<T>,           \
                           const Settings&)
PORTLA_INSTANTIATE_QMR(double);
PORTLA_INSTANTIATE_QMR(float);
PORTLA_INSTANTIATE_QMR(std::complex<double>);
PORTLA_INSTANTIATE_QMR(std::complex<float>);
#undef PORTLA_INSTANTIATE_QMR

}  // namespace portla::solver
