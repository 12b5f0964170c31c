#include "portla/solver/cg.hpp"

#include "core/solver_common.hpp"

namespace portla::solver {

template <typename T>
Result cg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings) {
    Result result;
    const double bnorm = detail::check_inputs("cg", A, b, x, settings);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    const Array<T> inv_diag = detail::jacobi_inverse("cg", A, settings);
    const bool precond = !inv_diag.empty();

    Array<T> r(exec, n), p(exec, n), q(exec, n), z(exec, precond ? n : 0);
    detail::DeviceScalar<T> scalar(exec);
    detail::Progress progress(settings, bnorm, result);
    // z = M^-1 r; returns rho = r . z (z is r itself without preconditioning)
    auto precondition = [&](double rr) -> double {
        if (!precond) return rr;
        blas::pointwise_mul<T>(exec, inv_diag, r, z);
        blas::dot<T>(exec, r, z, scalar.get());
        return scalar.read();
    };
    const_view<T> zv = precond ? z.get_view() : r.get_view();

    detail::residual<T>(A, b, x, r);  // r = b - A x
    double rr = std::pow(double(blas::norm2<T>(exec, r)), 2);
    if (!progress.record(0, std::sqrt(rr)) && settings.max_iters > 0) {
        double rho = precondition(rr);
        blas::copy<T>(exec, zv, p);  // p = z
        for (int it = 1; it <= settings.max_iters; ++it) {
            A.apply(p, q);                             // q = A p
            blas::dot<T>(exec, p, q, scalar.get());    // pq = p . q
            const double pq = scalar.read();
            if (!std::isfinite(pq)) { progress.stop(StopReason::non_finite); break; }
            if (pq <= 0) { progress.stop(StopReason::indefinite); break; }
            const T alpha = static_cast<T>(rho / pq);
            // x += alpha p;  r -= alpha q;  rr = r . r   (one pass)
            blas::fused_cg_update<T>(exec, alpha, p, q, x, r, scalar.get());
            rr = scalar.read();
            if (progress.replace_now(it)) {
                detail::residual<T>(A, b, x, r);       // r = b - A x, against drift
                blas::dot<T>(exec, r, r, scalar.get());
                rr = scalar.read();
                if (progress.replaced(it, std::sqrt(rr))) break;
            }
            if (progress.record(it, std::sqrt(rr))) {
                if (!result.converged) break;
                detail::residual<T>(A, b, x, r);  // confirm with the true residual r = b - A x
                blas::dot<T>(exec, r, r, scalar.get());
                rr = scalar.read();
                if (progress.confirm(std::sqrt(rr))) break;
            }
            const double rho_new = precondition(rr);  // z = M^-1 r; rho = r . z
            if (rho_new == 0) { progress.stop(StopReason::breakdown); break; }
            if (rho_new < 0) { progress.stop(StopReason::indefinite); break; }
            blas::axpby<T>(exec, T{1}, zv, static_cast<T>(rho_new / rho), p);  // p = z + beta p
            rho = rho_new;
        }
    }
    detail::finish<T>(A, b, x, q, result);
    return result;
}

template Result cg<double>(const LinearOperator<double>&, const_view<double>, view<double>,
                           const Settings&);
template Result cg<float>(const LinearOperator<float>&, const_view<float>, view<float>,
                          const Settings&);

}  // namespace portla::solver
