#include "portla/solver/cg.hpp"

#include "core/kernels/cg_kernels.hpp"
#include "core/solver_common.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/matrix/stencil.hpp"

namespace portla::solver {
namespace {

// The device loop (kernels/cg_kernels.hpp) runs on cuda for the operators it knows: the
// matrix-free stencil and CSR.
template <typename T>
bool device_loop_applies(const LinearOperator<T>& A, const Settings& s) {
    return s.device_loop && A.executor().backend() == Backend::cuda && A.rows() > 0 &&
           (dynamic_cast<const Stencil<T>*>(&A) || dynamic_cast<const Csr<T>*>(&A));
}

StopReason to_reason(kernels::cuda::CgStop stop) {
    using kernels::cuda::CgStop;
    switch (stop) {
        case CgStop::breakdown:
            return StopReason::breakdown;
        case CgStop::non_finite:
            return StopReason::non_finite;
        case CgStop::indefinite:
            return StopReason::indefinite;
        case CgStop::stagnation:
            return StopReason::stagnation;
        case CgStop::converged:
            return StopReason::converged;
        default:
            return StopReason::max_iterations;
    }
}

// CG with the iteration on the device: the same decisions as the host loop in cg() below, taken
// by the kernels; the host records each batch's residual norms (history, monitor) in order and
// confirms a claimed convergence with the true residual, resuming the device loop from the true
// residual when it does not hold.
template <typename T>
void cg_device_loop(const LinearOperator<T>& A, const_view<T> b, view<T> x,
                    const Settings& settings, const Array<T>& inv_diag, double bnorm,
                    Result& result) {
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    Array<T> r(exec, n);
    detail::DeviceScalar<T> scalar(exec);
    detail::Progress progress(settings, bnorm, result);

    detail::residual<T>(A, b, x, r);  // r = b - A x
    const double rr = std::pow(double(blas::norm2<T>(exec, r)), 2);
    if (!progress.record(0, std::sqrt(rr)) && settings.max_iters > 0) {
        kernels::cuda::CgProblem<T> problem;
        if (const auto* S = dynamic_cast<const Stencil<T>*>(&A)) {
            problem.stencil_dim = S->dim();
            problem.points = S->points();
        } else {
            const auto& C = dynamic_cast<const Csr<T>&>(A);
            problem.row_ptrs = C.row_ptrs().data();
            problem.col_idxs = C.col_idxs().data();
            problem.values = C.values().data();
            problem.nnz = C.nnz();
        }
        problem.n = n;
        problem.inv_diag = inv_diag.empty() ? nullptr : inv_diag.data();
        problem.b = b.data;
        problem.x = x.data;
        problem.r = r.data();
        problem.threshold = std::max(settings.rtol * bnorm, settings.atol);  // as in Progress
        problem.max_iters = settings.max_iters;
        problem.residual_replacement = settings.residual_replacement;

        using kernels::cuda::CgStop;
        kernels::cuda::CgLoop<T> loop(exec, problem);
        int recorded = 0;
        for (;;) {
            loop.run_batch();  // up to CgLoop::batch iterations; one host synchronisation
            for (int it = recorded + 1; it <= loop.iterations(); ++it)
                progress.record(it, loop.residual_norm(it));
            recorded = loop.iterations();
            const CgStop stop = loop.stop();
            if (stop == CgStop::running) continue;
            if (stop == CgStop::converged) {
                detail::residual<T>(A, b, x, r);  // confirm with the true residual r = b - A x
                blas::dot<T>(exec, r, r, scalar.get());
                if (progress.confirm(std::sqrt(scalar.read()))) break;
                loop.resume();  // go on from the true residual
                continue;
            }
            // record() already stopped on a non-finite norm; the iteration limit is the default.
            if (stop != CgStop::max_iterations) progress.stop(to_reason(stop));
            break;
        }
    }
    detail::finish<T>(A, b, x, r, result);
}

}  // namespace

template <typename T>
Result cg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings) {
    Result result;
    const double bnorm = detail::check_inputs("cg", A, b, x, settings);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    const Array<T> inv_diag = detail::jacobi_inverse("cg", A, settings);
    const bool precond = !inv_diag.empty();
    if (device_loop_applies(A, settings)) {
        cg_device_loop<T>(A, b, x, settings, inv_diag, bnorm, result);
        return result;
    }

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
            A.apply(p, q);                           // q = A p
            blas::dot<T>(exec, p, q, scalar.get());  // pq = p . q
            const double pq = scalar.read();
            if (!std::isfinite(pq)) {
                progress.stop(StopReason::non_finite);
                break;
            }
            if (pq <= 0) {
                progress.stop(StopReason::indefinite);
                break;
            }
            const T alpha = static_cast<T>(rho / pq);
            // x += alpha p;  r -= alpha q;  rr = r . r   (one pass)
            blas::fused_cg_update<T>(exec, alpha, p, q, x, r, scalar.get());
            rr = scalar.read();
            if (progress.replace_now(it)) {
                detail::residual<T>(A, b, x, r);  // r = b - A x, against drift
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
            if (rho_new == 0) {
                progress.stop(StopReason::breakdown);
                break;
            }
            if (rho_new < 0) {
                progress.stop(StopReason::indefinite);
                break;
            }
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
