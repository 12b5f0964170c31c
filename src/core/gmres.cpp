// Restarted GMRES, written once over the Krylov-basis kernels (core/kernels/krylov_kernels.hpp),
// the operator's apply() and the preconditioner's. Per iteration j (k = j + 1 basis vectors):
//   z = M^-1 v_j                      (flexible: z is column j of Z, kept)
//   w = A z                           (w is column j + 1 of V)
//   h  = V_k^H w;  w -= V_k h          classical Gram-Schmidt ...
//   h' = V_k^H w;  w -= V_k h'         ... twice (CGS2: orthogonal to working precision)
//   ||w||                             one read-back of h, h', ||w|| to the host
// The small Hessenberg least-squares problem lives on the host (Givens rotations, in double),
// whose |g_{j+1}| is the residual norm of the current iterate. A cycle ends after `restart`
// iterations, when that estimate meets the tolerance, at the iteration limit or when the Arnoldi
// vector vanishes; x is updated (x += M^-1 V y, or Z y) and the true residual b - A x recomputed.
#include "portla/solver/gmres.hpp"

#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/scalar.hpp"
#include "core/dispatch_values.hpp"
#include "core/kernels/krylov_kernels.hpp"
#include "core/solver_common.hpp"
#include "portla/memory.hpp"

namespace portla::solver {
namespace {

// For complex values (common/scalar.hpp) the projections are V^H w, the host's Hessenberg
// matrix and rotations are complex of double, and each rotation [c s; -conj(s) conj(c)] with
// c = conj(a) / rho, s = conj(b) / rho, rho = sqrt(|a|^2 + |b|^2) maps (a, b) to (rho, 0): for
// real values the usual Givens rotation.
template <typename T>
class Gmres {
    using S = common::wide_t<T>;  // double, or complex of double

public:
    Gmres(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const Settings& s)
        : A_(A),
          M_(M),
          exec_(A.executor()),
          n_(A.rows()),
          distributed_(dist::is_distributed(A.communicator())),
          m_(s.restart),
          left_(M && s.left_preconditioning),
          flexible_(M && !left_ && (s.flexible || !M->fixed())),
          V_(exec_, n_ * (m_ + 1)),
          Z_(exec_, flexible_ ? n_ * m_ : 0),
          z_(exec_, M && !flexible_ ? n_ : 0),
          scalars_(exec_, 2 * (m_ + 1) + 1),
          H_((m_ + 1) * m_, S(0)),
          cs_(m_, S(0)),
          sn_(m_, S(0)),
          g_(m_ + 1, S(0)) {}

    T* column(int j) { return V_.data() + static_cast<std::size_t>(j) * n_; }

    // One cycle from the residual r (norm beta > 0): returns the basis columns to combine and sets
    // `estimate` (the least-squares residual of the last one) and `invariant` (the Arnoldi vector
    // vanished). Records every iteration through `record`, stopping early when it says so.
    template <typename Record>
    int cycle(const_view<T> r, double beta, int budget, Record record, double& estimate,
              bool& invariant, bool& non_finite) {
        const auto& e = exec_;
        invariant = non_finite = false;
        blas::axpby<T>(e, common::narrow<T>(1 / beta), r, T{0}, view<T>(column(0), n_));  // v0
        std::fill(g_.begin(), g_.end(), S(0));
        g_[0] = beta;
        estimate = beta;
        int j = 0;
        std::vector<T> h(scalars_.size());
        while (j < m_ && j < budget) {
            const int k = j + 1;
            // right: z = M^-1 v_j; w = A z.  left: w = M^-1 (A v_j)
            const_view<T> vj(column(j), n_);
            view<T> w(column(k), n_);
            if (left_) {
                A_.apply(vj, z_.get_view());
                M_->apply(z_.get_view(), w);
            } else {
                const_view<T> z = vj;
                if (M_) {
                    view<T> zj = flexible_
                                     ? view<T>(Z_.data() + static_cast<std::size_t>(j) * n_, n_)
                                     : z_.get_view();
                    M_->apply(vj, zj);
                    z = zj;
                }
                A_.apply(z, w);
            }
            T* hd = scalars_.data();
            dispatch_values<T>(e, [&](auto backend) {
                for (int pass = 0; pass < 2; ++pass) {  // CGS2
                    T* hp = hd + pass * (m_ + 1);
                    basis_project(backend, e, n_, k, V_.data(), n_, w.data, hp);  // h = V^T w
                    sum_over_ranks(hp, k, h);
                    basis_update(backend, e, n_, k, V_.data(), n_, hp, T{-1}, T{1},
                                 w.data);  // w -= V h
                }
            });
            double hnorm = 0;
            if (distributed_) {
                hnorm = detail::norm2<T>(A_, w);
                Executor::copy_bytes(Executor::reference(), h.data(), e, hd, h.size() * sizeof(T));
            } else {
                blas::norm2<T>(e, w, view<T>(hd + 2 * (m_ + 1), 1));
                Executor::copy_bytes(Executor::reference(), h.data(), e, hd, h.size() * sizeof(T));
                hnorm = common::real_part(h[2 * (m_ + 1)]);
            }
            S* Hj = H_.data() + static_cast<std::size_t>(j) * (m_ + 1);  // column j
            double column_norm = hnorm * hnorm;
            for (int i = 0; i < k; ++i) {
                Hj[i] = common::widen(h[i]) + common::widen(h[m_ + 1 + i]);
                column_norm += common::abs2(Hj[i]);
            }
            Hj[k] = hnorm;
            if (!std::isfinite(column_norm)) {
                non_finite = true;
                return j;  // x keeps the previous cycle's value
            }
            // The previous rotations, then one that zeroes H[k][j].
            for (int i = 0; i < j; ++i) {
                const S t = cs_[i] * Hj[i] + sn_[i] * Hj[i + 1];
                Hj[i + 1] = -common::conj(sn_[i]) * Hj[i] + common::conj(cs_[i]) * Hj[i + 1];
                Hj[i] = t;
            }
            const double tiny =
                4 * std::numeric_limits<common::real_t<T>>::epsilon() * std::sqrt(column_norm);
            if (!(hnorm > tiny)) {
                // The Arnoldi vector vanished: the Krylov space is invariant. With H's rotated
                // diagonal entry nonzero the least-squares problem is solved exactly (estimate
                // 0: the true residual decides); with it zero too (A M^-1 singular on the
                // space), column j adds nothing and the residual stays at |g_j|.
                invariant = true;
                const bool singular = !(std::abs(Hj[j]) > tiny);
                if (!singular) {
                    cs_[j] = common::conj(Hj[j]) / std::abs(Hj[j]);  // |H[j][j]| on the diagonal
                    sn_[j] = S(0);
                    Hj[j] = std::abs(Hj[j]);
                    g_[j] *= cs_[j];
                    g_[k] = 0;
                    ++j;
                }
                estimate = std::abs(g_[j]);
                record(estimate);
                return j;
            }
            const double rho = std::hypot(std::abs(Hj[j]), std::abs(Hj[k]));
            cs_[j] = common::conj(Hj[j]) / rho;
            sn_[j] = common::conj(Hj[k]) / rho;
            Hj[j] = rho;
            Hj[k] = S(0);
            g_[k] = -common::conj(sn_[j]) * g_[j];
            g_[j] = cs_[j] * g_[j];
            estimate = std::abs(g_[k]);
            ++j;
            if (record(estimate)) break;
            dispatch_values<T>(e, [&](auto backend) {  // v_k = w / ||w||
                basis_update(backend, e, n_, 0, V_.data(), n_, hd, T{0},
                             common::narrow<T>(1 / hnorm), w.data);
            });
        }
        return j;
    }

    // A distributed operator: the k projections h = V^T w at `hp` (executor memory) summed
    // over the ranks, through the host (`host` is scratch of at least k values).
    void sum_over_ranks(T* hp, int k, std::vector<T>& host) {
        if (!distributed_) return;
        Executor::copy_bytes(Executor::reference(), host.data(), exec_, hp, k * sizeof(T));
        std::vector<S> sums(k);
        for (int i = 0; i < k; ++i) sums[i] = common::widen(host[i]);
        // a complex of double is two doubles (real part first)
        detail::sum_over_ranks(A_, reinterpret_cast<double*>(sums.data()),
                               k * static_cast<int>(sizeof(S) / sizeof(double)));
        for (int i = 0; i < k; ++i) host[i] = common::narrow<T>(sums[i]);
        Executor::copy_bytes(exec_, hp, Executor::reference(), host.data(), k * sizeof(T));
    }

    // Left preconditioning: the cycle runs on M^-1 r (written into `out`); returns its norm.
    double precondition(const_view<T> r, view<T> out) {
        M_->apply(r, out);
        return detail::norm2<T>(A_, out);
    }
    bool left() const { return left_; }

    // x += M^-1 V_j y (or Z_j y; V_j y with left preconditioning) with H(0:j, 0:j) y = g(0:j).
    void update(int j, view<T> x) {
        if (j == 0) return;
        std::vector<S> y(j);
        for (int i = j - 1; i >= 0; --i) {
            S s = g_[i];
            for (int c = i + 1; c < j; ++c)
                s -= H_[static_cast<std::size_t>(c) * (m_ + 1) + i] * y[c];
            const S d = H_[static_cast<std::size_t>(i) * (m_ + 1) + i];
            y[i] = d != 0.0 ? s / d : S(0);
        }
        std::vector<T> yt(j);
        for (int i = 0; i < j; ++i) yt[i] = common::narrow<T>(y[i]);
        T* yd = scalars_.data();
        Executor::copy_bytes(exec_, yd, Executor::reference(), yt.data(), j * sizeof(T));
        dispatch_values<T>(exec_, [&](auto backend) {
            if (flexible_ || !M_ || left_) {  // x += Z y  (or V y)
                basis_update(backend, exec_, n_, j, flexible_ ? Z_.data() : V_.data(), n_, yd, T{1},
                             T{1}, x.data);
                return;
            }
            // u = V y (into the last basis column, free now); x += M^-1 u
            T* u = column(m_);
            basis_update(backend, exec_, n_, j, V_.data(), n_, yd, T{1}, T{0}, u);
            M_->apply(const_view<T>(u, n_), z_.get_view());
            blas::axpby<T>(exec_, T{1}, z_.get_view(), T{1}, x);
        });
    }

private:
    const LinearOperator<T>& A_;
    const PreconditionerOperator<T>* M_;
    Executor exec_;
    std::size_t n_;
    bool distributed_;
    int m_;
    bool left_;
    bool flexible_;
    Array<T> V_, Z_, z_, scalars_;
    std::vector<S> H_;  ///< column-major (m + 1) x m, rotated to upper triangular
    std::vector<S> cs_, sn_, g_;
};

// The cycle's arrays, checked against what the process can get before any is allocated (a
// restart of 10^5 on 10^6 rows asks for 800 GB): the basis V (m + 1 vectors), Z (m more for
// flexible GMRES) and z on the executor, the Hessenberg matrix and rotations on the host.
template <typename T>
void require_workspace(const LinearOperator<T>& A, const PreconditionerOperator<T>* M,
                       const Settings& s) {
    const double m = s.restart, n = double(A.rows());
    const bool left = M && s.left_preconditioning;
    const bool flexible = M && !left && (s.flexible || !M->fixed());
    MemoryNeed device, host;
    device.add((m + 1) * n + (flexible ? m * n : M ? n : 0) + 2 * (m + 1) + 1, sizeof(T));
    host.add((m + 1) * m + 3 * m + 1, sizeof(common::wide_t<T>)).add(2 * (m + 1) + 1, sizeof(T));
    const std::string what = "gmres: the Krylov basis of restart " + std::to_string(s.restart) +
                             " for " + std::to_string(A.rows()) + " rows";
    // Every rank of a distributed operator checks its own part; all throw when one does.
    dist::on_every_rank(A.communicator(), [&] {
        if (A.executor().is_host()) {
            require_host_memory(host.add_bytes(device.bytes()), what);
        } else {
            require_host_memory(host, what + " (host)");
            require_memory(A.executor(), device, what);
        }
    });
}

template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const_view<T> b,
             view<T> x, const Settings& settings) {
    Result result;
    const double bnorm = detail::check_inputs("gmres", A, b, x, settings, M);
    if (settings.restart < 1)
        throw BadInput("gmres: restart must be >= 1 (got " + std::to_string(settings.restart) +
                       ")");
    const auto& exec = A.executor();
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (!M) M = (built = detail::preconditioner("gmres", A, settings)).get();
    if (M && settings.left_preconditioning && (settings.flexible || !M->fixed()))
        throw BadInput(
            "gmres: flexible GMRES (a preconditioner that changes) needs right "
            "preconditioning");
    detail::start<T>(A, x, settings);
    Array<T> r(exec, A.rows());
    Array<T> rl(exec, M && settings.left_preconditioning ? A.rows() : 0);
    detail::Progress progress(settings, bnorm, result);

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    double beta = detail::norm2<T>(A, r);
    progress.final_residual(beta);  // until x changes
    if (!progress.record(0, beta) && settings.max_iters > 0) {
        Settings s = settings;
        double rows = double(A.rows());  // the global size on a distributed operator
        detail::sum_over_ranks(A, &rows, 1);
        s.restart = static_cast<int>(std::min(double(settings.restart), rows));
        require_workspace<T>(A, M, s);
        Gmres<T> gmres(A, M, s);
        int it = 0;
        for (;;) {
            double estimate = 0;
            bool invariant = false, non_finite = false, claimed = false;
            // Left: the cycle minimises ||M^-1 r||; its estimates are scaled to the true
            // residual by the ratio at the cycle's start (the true residual decides at its end).
            double scale = 1;
            const_view<T> start = r;
            double start_norm = beta;
            if (gmres.left()) {
                start_norm = gmres.precondition(r, rl);
                start = rl;
                scale = start_norm > 0 ? beta / start_norm : 1;
                if (!std::isfinite(start_norm)) {
                    progress.stop(StopReason::non_finite);
                    break;
                }
            }
            const int done = gmres.cycle(
                start, start_norm, settings.max_iters - it,
                [&](double est) {
                    if (settings.minimised_residual_monitor)
                        settings.minimised_residual_monitor(it + 1, est);
                    return claimed = progress.record(++it, est * scale);
                },
                estimate, invariant, non_finite);
            estimate *= scale;
            if (non_finite) {
                progress.stop(StopReason::non_finite);
                break;
            }
            gmres.update(done, x);
            detail::residual<T>(A, b, x, r);  // the true residual of the new iterate
            beta = detail::norm2<T>(A, r);
            if (settings.iterate_monitor) settings.iterate_monitor(it);
            if (progress.cycle_ends(beta, claimed, invariant, estimate)) break;
            if (it >= settings.max_iters) break;
        }
    }
    detail::finish<T>(A, b, x, r, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(gmres);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(gmres);

}  // namespace portla::solver
