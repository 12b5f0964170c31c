// LGMRES (Baker, Jessup and Manteuffel, 2005), right-preconditioned, written once over blas
// operations on Arrays and the operator's apply(). A cycle from the true residual r (v_0 =
// r / ||r||) takes m = restart Krylov directions z = M^-1 v_j and the k stored corrections z =
// dx_c / ||dx_c|| of earlier cycles (before or after them), each as flexible GMRES does:
//   w = A z  (or the stored A dx_c / ||dx_c||)
//   h_i = v_i.w;  w -= h_i v_i  for i <= j         modified Gram-Schmidt
//   h_{j+1} = ||w||;  v_{j+1} = w / h_{j+1}
// The Hessenberg least-squares problem lives on the host (Givens rotations, in double); |g_{j+1}|
// is the residual norm of the current iterate. At the cycle's end dx = Z y, x += dx, and dx with
// A dx = V (H y) becomes the newest correction (the oldest dropped beyond k).
#include "portla/solver/lgmres.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/scalar.hpp"
#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* given, const_view<T> b,
             view<T> x, const Settings& settings) {
    // The projections and the least-squares solution: double, or complex of double for complex
    // values (V^H w).
    using S = common::wide_t<T>;
    using common::narrow;
    detail::check_at_least("lgmres", "restart (inner_m)", settings.restart, 1);
    detail::check_at_least("lgmres", "max_cycles", settings.lgmres_max_cycles, 0);
    detail::check_at_least("lgmres", "outer_k", settings.lgmres_outer_k, 0);
    const detail::SolveStart<T> started("lgmres", A, given, b, x, settings);
    const PreconditionerOperator<T>* M = started.M;
    Result result;
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    const int inner = settings.restart, outer_k = settings.lgmres_outer_k;
    detail::Progress progress(settings, started.bnorm, result);

    struct Correction {
        Array<T> z, az;  // dx / ||dx|| and A dx / ||dx|| (empty unless stored)
    };
    std::deque<Correction> outer;
    if (settings.kept) {  // the augmentation vectors of earlier solves (SciPy's outer_v)
        auto z = detail::load_kept<T>("lgmres", "outer_v", settings.kept->first, exec, n);
        auto az = detail::load_kept<T>("lgmres", "outer_v A", settings.kept->second, exec, n);
        for (std::size_t i = 0; i < z.size(); ++i)
            if (z[i].size() > 0)
                outer.push_back(Correction{std::move(z[i]),
                                           i < az.size() ? std::move(az[i]) : Array<T>(exec, 0)});
    }
    // directions per cycle at most (more than outer_k while more were given)
    const int m_max = inner + std::max(outer_k, static_cast<int>(outer.size()));
    std::vector<Array<T>> V, Z;  // the basis (m + 1) and the Krylov directions M^-1 v_j
    for (int j = 0; j <= m_max; ++j) V.emplace_back(exec, n);
    for (int j = 0; j < (M && !settings.left_preconditioning ? m_max : 0); ++j)
        Z.emplace_back(exec, n);
    // Left preconditioning (settings.left_preconditioning, as SciPy's lgmres): the cycles run on
    // M^-1 A with v_0 = M^-1 r / ||M^-1 r||, and the corrections keep M^-1 A dx.
    const bool left = M && settings.left_preconditioning;
    Array<T> r(exec, n), dx(exec, n), az(exec, left ? n : 0), rl(exec, left ? n : 0);
    // w = A z, or M^-1 A z from the left
    auto apply = [&](const_view<T> z, view<T> w) {
        if (!left) return A.apply(z, w);
        A.apply(z, az);
        M->apply(az, w);
    };
    detail::ArnoldiLeastSquares<S> lsq(m_max);
    std::vector<const_view<T>> dirs(m_max);  // z_j of this cycle

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    double beta = detail::norm2<T>(A, r);
    progress.final_residual(beta);  // until x changes
    int it = 0;
    if (!progress.record(0, beta) && settings.max_iters > 0) {
        for (int cycle = 1;; ++cycle) {
            result.cycles = cycle;
            const int k = static_cast<int>(outer.size());
            const int m = inner + k;
            // Left: the estimates of ||M^-1 r|| are scaled to the true residual by the ratio at
            // the cycle's start (the true residual decides at its end).
            double start_norm = beta, scale = 1;
            if (left) {
                M->apply(r, rl);
                start_norm = detail::norm2<T>(A, rl);
                if (!std::isfinite(start_norm) || start_norm == 0) {
                    progress.stop(start_norm == 0 ? StopReason::breakdown : StopReason::non_finite);
                    break;
                }
                scale = beta / start_norm;
            }
            blas::axpby<T>(exec, narrow<T>(1 / start_norm), left ? rl : r, T{0},
                           V[0]);  // v_0 = r / ||r|| (M^-1 r / ||M^-1 r||)
            lsq.start(start_norm);
            int j = 0;
            bool claimed = false, invariant = false, non_finite = false;
            double estimate = start_norm;
            for (; j < m && it < settings.max_iters; ++j) {
                // the correction of this slot (-1: a Krylov direction)
                const int c = settings.lgmres_prepend_outer_v ? (j < k ? j : -1)
                                                              : (j >= inner ? j - inner : -1);
                view<T> w = V[j + 1];
                if (c >= 0) {
                    dirs[j] = outer[c].z;
                    if (outer[c].az.size() > 0)
                        blas::copy<T>(exec, outer[c].az, w);
                    else
                        apply(dirs[j], w);
                } else {
                    // prepended corrections first: the Krylov directions start from v_0
                    const int from = settings.lgmres_prepend_outer_v && j == k ? 0 : j;
                    if (M && !left) {
                        M->apply(V[from], Z[j]);
                        dirs[j] = Z[j];
                    } else {
                        dirs[j] = V[from];
                    }
                    apply(dirs[j], w);
                }
                const double w_norm = detail::norm2<T>(A, w);
                if (!lsq.step(A, V, j, w, w_norm, estimate, invariant)) {
                    non_finite = true;
                    break;
                }
                ++it;
                if ((claimed = progress.record(it, estimate * scale)) || invariant) {
                    ++j;
                    break;
                }
            }
            if (non_finite) {
                progress.stop(StopReason::non_finite);
                break;
            }
            const std::vector<S> y = lsq.minimiser(j);
            blas::fill<T>(exec, dx, T{0});
            for (int i = 0; i < j; ++i)
                blas::axpby<T>(exec, narrow<T>(y[i]), dirs[i], T{1}, dx);  // dx = Z y
            const double nx = detail::norm2<T>(A, dx);
            if (nx > 0 && outer_k > 0) {
                Correction cor{Array<T>(exec, n),
                               Array<T>(exec, settings.lgmres_store_outer_av ? n : 0)};
                blas::axpby<T>(exec, narrow<T>(1 / nx), dx, T{0}, cor.z);
                if (settings.lgmres_store_outer_av) {  // A dx = V (H y), H unrotated
                    blas::fill<T>(exec, cor.az, T{0});
                    for (int i = 0; i <= j && i <= m_max; ++i)
                        blas::axpby<T>(exec, narrow<T>(lsq.h_times(i, y) / nx), V[i], T{1}, cor.az);
                }
                outer.push_back(std::move(cor));
                while (static_cast<int>(outer.size()) > outer_k) outer.pop_front();
            }
            blas::axpby<T>(exec, T{1}, dx, T{1}, x);  // x += dx
            detail::residual<T>(A, b, x, r);          // the true residual of the new iterate
            beta = detail::norm2<T>(A, r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.cycle_ends(beta, claimed, invariant, estimate * scale)) break;
            if (it >= settings.max_iters) break;
            if (settings.lgmres_max_cycles > 0 && cycle >= settings.lgmres_max_cycles) break;
        }
    }
    if (settings.kept) {  // this solve's corrections, for the next
        settings.kept->first.clear();
        settings.kept->second.clear();
        for (const Correction& c : outer) {
            settings.kept->first.push_back(detail::to_double(c.z));
            settings.kept->second.push_back(c.az.size() > 0 ? detail::to_double(c.az)
                                                            : std::vector<double>{});
        }
    }
    detail::finish<T>(A, b, x, r, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(lgmres);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(lgmres);

}  // namespace portla::solver
