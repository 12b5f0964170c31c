// GCROT(m,k) (Hicken and Zingg, 2010), right-preconditioned, written once over blas operations
// on Arrays and the operator's apply(). It keeps pairs (c_i, u_i), A u_i = c_i, the c_i
// orthonormal, and the residual r orthogonal to them. A cycle from r (v_0 = r / ||r||) takes
// flexible GMRES steps on (I - C C^T) A:
//   z = M^-1 v_j;  w = A z
//   b_ij = c_i.w;  w -= b_ij c_i                    for each kept pair
//   h_ij = v_i.w;  w -= h_ij v_i   for i <= j       modified Gram-Schmidt
// so that A Z = C B + V H. With y minimising ||beta e_1 - H y|| (host Givens rotations),
// u = Z y - U B y and c = A u = V H y, normalised: r -= (c.r) c, x += (c.r) u, and (c, u)
// becomes a kept pair (the oldest, or the smallest singular directions of B R^-1, dropped
// beyond k).
#include "portla/solver/gcrotmk.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/solver_common.hpp"

namespace portla::solver {

namespace {

// The eigenvectors of the symmetric n x n matrix G (row-major, overwritten) by cyclic Jacobi
// rotations, as the columns of the returned row-major matrix, ordered by decreasing eigenvalue.
std::vector<double> eigenvectors(std::vector<double> G, int n) {
    std::vector<double> W(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) W[i * n + i] = 1;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0, all = 0;
        for (int p = 0; p < n; ++p)
            for (int q = 0; q < n; ++q) (p == q ? all : off) += G[p * n + q] * G[p * n + q];
        if (off <= 1e-30 * (all + off)) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                if (G[p * n + q] == 0) continue;
                const double theta = (G[q * n + q] - G[p * n + p]) / (2 * G[p * n + q]);
                const double t =
                    (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int i = 0; i < n; ++i) {  // G = J^T G J, W = W J
                    const double gp = G[i * n + p], gq = G[i * n + q];
                    G[i * n + p] = c * gp - s * gq;
                    G[i * n + q] = s * gp + c * gq;
                }
                for (int i = 0; i < n; ++i) {
                    const double gp = G[p * n + i], gq = G[q * n + i];
                    G[p * n + i] = c * gp - s * gq;
                    G[q * n + i] = s * gp + c * gq;
                }
                for (int i = 0; i < n; ++i) {
                    const double wp = W[i * n + p], wq = W[i * n + q];
                    W[i * n + p] = c * wp - s * wq;
                    W[i * n + q] = s * wp + c * wq;
                }
            }
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return G[a * n + a] > G[b * n + b]; });
    std::vector<double> sorted(W.size());
    for (int i = 0; i < n; ++i)
        for (int l = 0; l < n; ++l) sorted[i * n + l] = W[i * n + order[l]];
    return sorted;
}

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* given, const_view<T> b,
             view<T> x, const Settings& settings) {
    detail::check_at_least("gcrotmk", "m", settings.gcrot_m, 1);
    detail::check_at_least("gcrotmk", "k (-1: m)", settings.gcrot_k, -1);
    detail::check_at_least("gcrotmk", "max_cycles", settings.gcrot_max_cycles, 0);
    // The projections (c_i^H w, V^H w) and the least-squares solution: double, or complex of
    // double for complex values, whose pairs are truncated by age only.
    using S = common::wide_t<T>;
    using common::narrow;
    if (common::is_complex_v<T> && settings.gcrot_truncate_smallest)
        throw Unsupported(std::string("gcrotmk: truncate 'smallest' of complex values (") +
                          common::dtype_name<T>() + ") is not supported; use 'oldest'");
    const detail::SolveStart<T> started("gcrotmk", A, given, b, x, settings);
    const PreconditionerOperator<T>* M = started.M;
    Result result;
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    const int m = settings.gcrot_m;
    const int k = settings.gcrot_k < 0 ? m : settings.gcrot_k;
    const int m_max = m + k;              // steps per cycle at most
    const int kept_max = std::max(k, 1);  // pairs kept at the start of a cycle at most
    detail::Progress progress(settings, started.bnorm, result);

    struct Pair {
        Array<T> c, u;  // A u = c, ||c|| = 1
    };
    std::deque<Pair> CU;
    std::vector<Array<T>> V, Z;  // the basis (m_max + 1) and the directions M^-1 v_j
    for (int j = 0; j <= m_max; ++j) V.emplace_back(exec, n);
    for (int j = 0; j < (M ? m_max : 0); ++j) Z.emplace_back(exec, n);
    Array<T> r(exec, n), ux(exec, n), cx(exec, n);
    detail::ArnoldiLeastSquares<S> lsq(m_max);
    std::vector<S> B(static_cast<std::size_t>(kept_max) * m_max);  // b_ij at [j * kept_max + i]

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    double beta = detail::norm2<T>(A, r);
    progress.final_residual(beta);  // until x changes
    bool r_true = true;             // whether r is b - A x computed afresh
    if (settings.kept) {
        // Pairs of earlier solves (SciPy's CU), the newest kept_max: c = A u where not given,
        // C orthonormalised by modified Gram-Schmidt and U alike (A u = c holds), a pair that
        // adds no direction dropped; then x += U C^T r, r -= C C^T r.
        auto us = detail::load_kept<T>("gcrotmk", "CU u", settings.kept->first, exec, n);
        auto cs = detail::load_kept<T>("gcrotmk", "CU c", settings.kept->second, exec, n);
        const std::size_t from =
            us.size() > static_cast<std::size_t>(kept_max) ? us.size() - kept_max : 0;
        for (std::size_t i = from; i < us.size(); ++i) {
            if (us[i].size() == 0) continue;
            const bool given = i < cs.size() && cs[i].size() > 0;
            Pair p{given ? std::move(cs[i]) : Array<T>(exec, n), std::move(us[i])};
            if (!given) A.apply(p.u, p.c);
            for (const Pair& q : CU) {
                const T a = narrow<T>(detail::dot<T>(A, q.c, p.c));
                blas::axpby<T>(exec, -a, q.c, T{1}, p.c);
                blas::axpby<T>(exec, -a, q.u, T{1}, p.u);
            }
            const double cnorm = detail::norm2<T>(A, p.c);
            if (!(cnorm > 0) || !std::isfinite(1 / cnorm)) continue;
            blas::axpby<T>(exec, T{0}, p.c, narrow<T>(1 / cnorm), p.c);
            blas::axpby<T>(exec, T{0}, p.u, narrow<T>(1 / cnorm), p.u);
            CU.push_back(std::move(p));
        }
        for (const Pair& p : CU) {
            const S gamma = detail::dot<T>(A, p.c, r);
            blas::axpby<T>(exec, narrow<T>(-gamma), p.c, T{1}, r);  // r -= gamma c
            blas::axpby<T>(exec, narrow<T>(gamma), p.u, T{1}, x);   // x += gamma u
        }
        if (!CU.empty()) {
            beta = detail::norm2<T>(A, r);
            r_true = false;
            if (progress.reached(beta)) {  // the true residual decides
                detail::residual<T>(A, b, x, r);
                beta = detail::norm2<T>(A, r);
                r_true = true;
            }
            progress.final_residual(r_true ? beta : -1);
        }
    }
    int it = 0;
    if (!progress.record(0, beta) && settings.max_iters > 0) {
        for (int cycle = 1;; ++cycle) {
            result.cycles = cycle;
            const int kc = static_cast<int>(CU.size());
            const int steps = m + std::max(k - kc, 0);
            blas::axpby<T>(exec, narrow<T>(1 / beta), r, T{0}, V[0]);  // v_0 = r / ||r||
            lsq.start(beta);
            int j = 0;
            bool claimed = false, invariant = false, non_finite = false;
            double estimate = beta;
            for (; j < steps && it < settings.max_iters; ++j) {
                const_view<T> z = V[j];
                if (M) {
                    M->apply(V[j], Z[j]);
                    z = Z[j];
                }
                view<T> w = V[j + 1];
                A.apply(z, w);
                const double w_norm = detail::norm2<T>(A, w);
                for (int i = 0; i < kc; ++i) {  // w -= b_ij c_i
                    const S bij = detail::dot<T>(A, CU[i].c, w);
                    B[static_cast<std::size_t>(j) * kept_max + i] = bij;
                    blas::axpby<T>(exec, narrow<T>(-bij), CU[i].c, T{1}, w);
                }
                if (!lsq.step(A, V, j, w, w_norm, estimate, invariant)) {
                    non_finite = true;
                    break;
                }
                ++it;
                if ((claimed = progress.record(it, estimate)) || invariant) {
                    ++j;
                    break;
                }
            }
            if (non_finite) {
                progress.stop(StopReason::non_finite);
                break;
            }
            const std::vector<S> y = lsq.minimiser(j);
            blas::fill<T>(exec, ux, T{0});
            blas::fill<T>(exec, cx, T{0});
            for (int i = 0; i < j; ++i)  // u = Z y
                blas::axpby<T>(exec, narrow<T>(y[i]), M ? Z[i] : V[i], T{1}, ux);
            for (int i = 0; i < kc; ++i) {  // u -= U (B y)
                S by = 0;
                for (int col = 0; col < j; ++col)
                    by += B[static_cast<std::size_t>(col) * kept_max + i] * y[col];
                blas::axpby<T>(exec, narrow<T>(-by), CU[i].u, T{1}, ux);
            }
            for (int i = 0; i <= j; ++i)  // c = V (H y), H unrotated
                blas::axpby<T>(exec, narrow<T>(lsq.h_times(i, y)), V[i], T{1}, cx);
            const double cnorm = detail::norm2<T>(A, cx);
            if (!(cnorm > 0) || !std::isfinite(1 / cnorm)) {  // no correction this cycle
                progress.stop(std::isfinite(cnorm) ? StopReason::breakdown
                                                   : StopReason::non_finite);
                break;
            }
            blas::axpby<T>(exec, T{0}, cx, narrow<T>(1 / cnorm), cx);
            blas::axpby<T>(exec, T{0}, ux, narrow<T>(1 / cnorm), ux);
            const S gamma = detail::dot<T>(A, cx, r);
            blas::axpby<T>(exec, narrow<T>(-gamma), cx, T{1}, r);  // r -= gamma c
            blas::axpby<T>(exec, narrow<T>(gamma), ux, T{1}, x);   // x += gamma u
            r_true = false;
            if (!settings.gcrot_truncate_smallest) {
                while (!CU.empty() && static_cast<int>(CU.size()) >= k) CU.pop_front();
            } else if constexpr (!common::is_complex_v<T>) {  // complex values: refused above
                if (!CU.empty() && kc >= k) {
                    // D = B R^-1 (kc x j); C := C W, U := U W over D's leading left singular
                    // vectors W (eigenvectors of D D^T), re-orthogonalised as they are formed.
                    std::vector<double> D(static_cast<std::size_t>(kc) * j, 0.0), G(kc * kc, 0.0);
                    for (int i = 0; i < kc; ++i)
                        for (int col = 0; col < j; ++col) {
                            double s = B[static_cast<std::size_t>(col) * kept_max + i];
                            for (int l = 0; l < col; ++l) s -= D[i * j + l] * lsq.R(l, col);
                            const double d = lsq.R(col, col);
                            D[i * j + col] = d != 0 ? s / d : 0.0;
                        }
                    for (int p = 0; p < kc; ++p)
                        for (int q = 0; q < kc; ++q)
                            for (int col = 0; col < j; ++col)
                                G[p * kc + q] += D[p * j + col] * D[q * j + col];
                    const std::vector<double> W = eigenvectors(G, kc);
                    const int keep = k >= 1 ? std::min(k - 1, kc) : kc - 1;
                    std::deque<Pair> kept;
                    for (int l = 0; l < keep; ++l) {
                        Pair p{Array<T>(exec, n), Array<T>(exec, n)};
                        blas::fill<T>(exec, p.c, T{0});
                        blas::fill<T>(exec, p.u, T{0});
                        for (int i = 0; i < kc; ++i) {
                            const auto w = static_cast<T>(W[i * kc + l]);
                            blas::axpby<T>(exec, w, CU[i].c, T{1}, p.c);
                            blas::axpby<T>(exec, w, CU[i].u, T{1}, p.u);
                        }
                        for (const Pair& q : kept) {
                            const auto a = static_cast<T>(detail::dot<T>(A, q.c, p.c));
                            blas::axpby<T>(exec, -a, q.c, T{1}, p.c);
                            blas::axpby<T>(exec, -a, q.u, T{1}, p.u);
                        }
                        const auto scale = static_cast<T>(1 / detail::norm2<T>(A, p.c));
                        blas::axpby<T>(exec, T{0}, p.c, scale, p.c);
                        blas::axpby<T>(exec, T{0}, p.u, scale, p.u);
                        kept.push_back(std::move(p));
                    }
                    CU = std::move(kept);
                }
            }
            CU.push_back(Pair{std::move(cx), std::move(ux)});
            cx = Array<T>(exec, n);
            ux = Array<T>(exec, n);
            beta = detail::norm2<T>(A, r);
            if (claimed || progress.reached(beta)) {  // the true residual decides
                detail::residual<T>(A, b, x, r);
                beta = detail::norm2<T>(A, r);
                r_true = true;
            }
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.cycle_ends(beta, claimed, invariant, estimate)) break;
            if (it >= settings.max_iters) break;
            if (settings.gcrot_max_cycles > 0 && cycle >= settings.gcrot_max_cycles) break;
        }
    }
    if (!r_true) progress.final_residual(-1);  // finish() computes ||b - A x|| afresh
    if (settings.kept) {                       // this solve's pairs, for the next
        settings.kept->first.clear();
        settings.kept->second.clear();
        for (const Pair& p : CU) {
            settings.kept->first.push_back(detail::to_double(p.u));
            settings.kept->second.push_back(detail::to_double(p.c));
        }
    }
    detail::finish<T>(A, b, x, r, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(gcrotmk);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(gcrotmk);

}  // namespace portla::solver
