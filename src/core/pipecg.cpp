// Pipelined CG, written once over the executor's BLAS and the operator's apply(): each
// iteration reduces (r, u), (w, u) and (r, r) in one sum over the ranks, started before
// m = M^-1 w and n = A m and completed after them. Preconditioned recurrences of Ghysels &
// Vanroose, "Hiding global synchronization latency in the preconditioned Conjugate Gradient
// algorithm" (Parallel Computing 40, 2014), Algorithm 4:
//   gamma = (r, u), delta = (w, u);  beta = gamma / gamma_old;
//   alpha = gamma / (delta - beta gamma / alpha_old)   [= gamma / (p, A p)]
//   z = n + beta z; q = m + beta q; s = w + beta s; p = u + beta p
//   x += alpha p; r -= alpha s; u -= alpha q; w -= alpha z
// with u = M^-1 r, w = A u, s = A p, q = M^-1 s, z = A q. Residual replacement every
// Settings::residual_replacement iterations (20 when unset) and after a false convergence
// recomputes
// r = b - A x, u, w, s, q, z from x and p, the remedy of Cools et al. (2018) for the drift of
// the extra recurrences.
#include "portla/solver/pipecg.hpp"

#include <cmath>

#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

constexpr int kReplacementPeriod = 20;

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const_view<T> b,
             view<T> x, const Settings& settings) {
    Result result;
    const double bnorm = detail::check_inputs("pipecg", A, b, x, settings, M);
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (!M) M = (built = detail::preconditioner("pipecg", A, settings)).get();
    detail::start<T>(A, x, settings);

    Array<T> r(exec, n), u(exec, n), w(exec, n), m(exec, n), nv(exec, n);
    Array<T> p(exec, n), s(exec, n), q(exec, n), z(exec, n);
    detail::Progress progress(settings, bnorm, result);
    const dist::Communicator* comm = A.communicator();
    const bool distributed = dist::is_distributed(comm);
    // out = M^-1 in (a copy without a preconditioner)
    auto precondition = [&](const_view<T> in, view<T> out) {
        if (M)
            M->apply(in, out);
        else
            blas::copy<T>(exec, in, out);
    };
    // Every vector from x (and p): r = b - A x, u = M^-1 r, w = A u, s = A p, q = M^-1 s,
    // z = A q. With `fresh`, the next iteration starts the recurrences anew (beta = 0).
    bool fresh = true;
    auto replace = [&](bool restart) {
        detail::residual<T>(A, b, x, r);
        precondition(r, u);
        A.apply(u, w);
        if (restart) {
            fresh = true;
            return;
        }
        A.apply(p, s);
        precondition(s, q);
        A.apply(q, z);
    };
    // Residual replacement is part of the method here (Settings::residual_replacement when set,
    // else every 20 iterations): without it pipecg took 2x CG's iterations on 2-D Poisson in
    // float (125 vs 61, rtol 1e-5) and 4604 vs 2204 on 1138_bus in double; every 20 it matched
    // CG (61), for 3 operator and 2 preconditioner applications more per 20 iterations.
    const int period =
        settings.residual_replacement > 0 ? settings.residual_replacement : kReplacementPeriod;
    replace(true);
    double gamma_old = 1, alpha_old = 1;
    for (int it = 0;; ++it) {
        // The iteration's one reduction, in flight while M and A are applied.
        double sums[3] = {double(blas::dot<T>(exec, r, u)), double(blas::dot<T>(exec, w, u)),
                          double(blas::dot<T>(exec, r, r))};
        std::unique_ptr<dist::Communicator::Exchange> reduction;
        if (distributed) reduction = comm->start_allreduce_sum(sums, 3);
        const bool last = it >= settings.max_iters;
        if (!last) {
            precondition(w, m);  // m = M^-1 w
            A.apply(m, nv);      // n = A m
        }
        if (reduction) reduction->wait();
        const double gamma = sums[0], delta = sums[1];
        const double rnorm = std::sqrt(std::max(sums[2], 0.0));
        if (!std::isfinite(gamma) || !std::isfinite(delta) || !std::isfinite(sums[2])) {
            result.iterations = it;
            progress.stop(StopReason::non_finite);
            break;
        }
        if (progress.record(it, rnorm)) {
            if (result.reason != StopReason::converged) break;
            // Confirmed by the true residual, or the iteration goes on from it.
            detail::residual<T>(A, b, x, m);
            if (progress.confirm(detail::norm2<T>(A, m))) break;
            if (last) break;
            replace(true);
            --it;  // the iteration is taken again from the true residual (not counted)
            continue;
        }
        if (last) break;
        if (!(gamma > 0)) {  // (r, M^-1 r) <= 0 with r != 0: M is not positive definite
            progress.stop(StopReason::indefinite);
            break;
        }
        const double beta = fresh ? 0.0 : gamma / gamma_old;
        const double pap = fresh ? delta : delta - beta * gamma / alpha_old;  // (p, A p)
        if (!(pap > 0)) {
            if (!fresh && std::isfinite(pap)) {
                // (p, A p) from the recurrences lost to cancellation (1138_bus without a
                // preconditioner: "p.Ap <= 0" at iteration 2677 of an SPD matrix): start again
                // from the true residual, where (p, A p) = (u, A u) is computed directly; only
                // that one decides indefiniteness.
                replace(true);
                --it;
                continue;
            }
            progress.stop(std::isfinite(pap) ? StopReason::indefinite : StopReason::non_finite);
            break;
        }
        const double alpha = gamma / pap;
        const T a = static_cast<T>(alpha), bt = static_cast<T>(beta);
        blas::axpby<T>(exec, T{1}, nv, bt, z);  // z = n + beta z
        blas::axpby<T>(exec, T{1}, m, bt, q);   // q = m + beta q
        blas::axpby<T>(exec, T{1}, w, bt, s);   // s = w + beta s
        blas::axpby<T>(exec, T{1}, u, bt, p);   // p = u + beta p
        blas::axpby<T>(exec, a, p, T{1}, x);    // x += alpha p
        blas::axpby<T>(exec, -a, s, T{1}, r);   // r -= alpha s
        blas::axpby<T>(exec, -a, q, T{1}, u);   // u -= alpha q
        blas::axpby<T>(exec, -a, z, T{1}, w);   // w -= alpha z
        fresh = false;
        gamma_old = gamma;
        alpha_old = alpha;
        if (settings.iterate_monitor) settings.iterate_monitor(it + 1);  // x holds iterate it + 1
        if ((it + 1) % period == 0) replace(false);
    }
    detail::finish<T>(A, b, x, m, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(pipecg);

}  // namespace portla::solver
