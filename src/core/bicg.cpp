#include "portla/solver/bicg.hpp"

#include <complex>

#include "common/scalar.hpp"
#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

// With the caller's preconditioner M, or (M null) the one settings.precond names.
template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const_view<T> b,
             view<T> x, const Settings& settings) {
    // The scalars: double, or complex of double for complex values, where the shadow system is
    // the adjoint one (A^H, M^-H: apply_transpose) and its recurrences take conj(beta) and
    // conj(alpha), as SciPy's.
    using S = common::wide_t<T>;
    using common::narrow;
    using R = common::real_t<T>;
    Result result;
    const double bnorm = detail::check_inputs("bicg", A, b, x, settings, M);
    detail::require_transpose("bicg", A);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (!M) M = (built = detail::preconditioner("bicg", A, settings)).get();
    const bool precond = M != nullptr;
    if (precond && !M->has_transpose())
        throw Unsupported("bicg: needs M^-T, which the " + M->name() +
                          " preconditioner does not provide (jacobi does)");
    detail::start<T>(A, x, settings);

    Array<T> r(exec, n), rt(exec, n), p(exec, n), pt(exec, n), q(exec, n), qt(exec, n);
    Array<T> z(exec, precond ? n : 0), zt(exec, precond ? n : 0);
    detail::Progress progress(settings, bnorm, result);
    auto dot = [&](const_view<T> a, const_view<T> c) { return detail::dot<T>(A, a, c); };

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    blas::copy<T>(exec, r, rt);                         // shadow residual r~ = r_0
    double rnorm = detail::norm2<T>(A, r);
    // SciPy's breakdown test on rho = r~.z: |rho| < eps^2.
    const double rho_tol =
        double(std::numeric_limits<R>::epsilon()) * double(std::numeric_limits<R>::epsilon());
    S rho_old = 1;
    bool restart = true;
    if (progress.record(0, rnorm) || settings.max_iters == 0) {
        progress.final_residual(rnorm);  // x is the initial one
    } else {
        for (int it = 1; it <= settings.max_iters; ++it) {
            const_view<T> zv = r, ztv = rt;
            if (precond) {
                M->apply(r, z);              // z = M^-1 r
                M->apply_transpose(rt, zt);  // z~ = M^-T r~
                zv = z;
                ztv = zt;
            }
            const S rho = dot(rt, zv);  // rho = r~^H z
            if (!std::isfinite(std::abs(rho))) {
                progress.stop(StopReason::non_finite);
                break;
            }
            if (std::abs(rho) < rho_tol) {
                progress.stop(StopReason::breakdown);
                break;
            }
            if (restart) {
                restart = false;
                blas::copy<T>(exec, zv, p);    // p = z
                blas::copy<T>(exec, ztv, pt);  // p~ = z~
            } else {
                const S beta = rho / rho_old;
                blas::axpby<T>(exec, T{1}, zv, narrow<T>(beta), p);  // p = z + beta p
                // p~ = z~ + conj(beta) p~
                blas::axpby<T>(exec, T{1}, ztv, narrow<T>(common::conj(beta)), pt);
            }
            A.apply(p, q);              // q = A p
            A.apply_transpose(pt, qt);  // q~ = A^H p~
            const S pq = dot(pt, q);
            if (!std::isfinite(std::abs(pq))) {
                progress.stop(StopReason::non_finite);
                break;
            }
            if (pq == S(0)) {
                progress.stop(StopReason::breakdown);
                break;
            }
            const S alpha = rho / pq;
            blas::axpby<T>(exec, narrow<T>(alpha), p, T{1}, x);   // x += alpha p
            blas::axpby<T>(exec, narrow<T>(-alpha), q, T{1}, r);  // r -= alpha q
            // r~ -= conj(alpha) q~
            blas::axpby<T>(exec, narrow<T>(-common::conj(alpha)), qt, T{1}, rt);
            if (progress.replace_now(it)) detail::residual<T>(A, b, x, r);
            rnorm = detail::norm2<T>(A, r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            rho_old = rho;
            if (progress.record(it, rnorm)) {
                if (!result.converged) break;
                // The recurrence residual met the test: the true residual confirms it, or the
                // iteration goes on from it (r~ and the directions kept).
                detail::residual<T>(A, b, x, r);
                if (progress.confirm(detail::norm2<T>(A, r))) break;
            }
        }
    }
    detail::finish<T>(A, b, x, q, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(bicg);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(bicg);

}  // namespace portla::solver
