// The decisions of one CG iteration, written once and compiled into every backend's CG steps
// (host code on the CPU backends, device code on cuda): the scalars live in a CgState in the
// executor's memory, and only the last block of a reduction (or the one CPU thread) runs these.
//
// Per iteration (it = iterations done; p ping-pongs between two buffers by it's parity):
//   direction: p_new = z + beta p_old; q = A p_new; pq = p_new . q       -> finish_direction
//   update:    x += alpha p_new; r -= alpha q; [z = M^-1 r]; rr; [rz]    -> finish_residual
//   replace:   only when finish_direction set replace_now: the update moves x alone, then
//              r = b - A x; [z]; rr; [rz]                                -> finish_residual
// The stopping test is in double on sqrt(r.r) against max(rtol ||b||, atol); p.q not finite ->
// non_finite, p.q <= 0 -> indefinite, rho = r.z = 0 -> breakdown, rho < 0 -> indefinite; nothing
// else stops a solve early (src/common/stopping.hpp).
//
// A preconditioner applied from outside the steps (CgControl::deferred: any but Jacobi, which the
// steps apply themselves) splits each residual's reductions: the step stores r.r and its mode
// (pending_rr, pending_mode), the host applies z = M^-1 r, and cg_finish_preconditioned computes
// r.z and takes the decisions.
#pragma once

#include "common/stopping.hpp"
#include "portla/solver/types.hpp"

namespace portla::common {

/// Residual norms kept per read-back of the state (by iteration % kCgHistory).
constexpr int kCgHistory = 16;

/// Which decision a step of a distributed solve left to the host (CgControl::distributed).
enum class CgLocal : int { none, direction, residual, preconditioned };

/// The solve's scalars, in the executor's memory; read back whole by the host.
template <typename T>
struct CgState {
    double rho;                  ///< r . z of the current residual
    double history[kCgHistory];  ///< ||r|| of iteration i at i % kCgHistory
    T alpha;
    T beta;
    int iteration;      ///< iterations done
    int stopped;        ///< 0 while running
    int reason;         ///< a solver::StopReason once stopped
    int replace_now;    ///< this iteration ends with r = b - A x (set by finish_direction)
    double pending_rr;  ///< deferred: r . r of the residual awaiting z = M^-1 r
    int pending_mode;   ///< deferred: its CgFinish, -1 when none is pending
    double local[2];    ///< distributed: this rank's sums (pq, or rr and rz, or rz)
    int local_step;     ///< distributed: the CgLocal whose decision awaits them
    int local_mode;     ///< distributed: the CgFinish of a residual's decision
};

/// What the decisions read besides the state.
struct CgControl {
    double threshold = 0;  ///< stop when ||r|| <= threshold
    int max_iters = 0;     ///< >= 1
    int replacement = 0;   ///< r = b - A x every this many iterations (0: never)
    bool preconditioned = false;
    bool deferred = false;  ///< z = M^-1 r is computed outside the steps (see above)
    /// The operator is distributed over ranks: a step's sums are this rank's part only, so the
    /// step stores them in CgState::local and returns; the host sums them over the ranks and
    /// takes the decision with the same functions (a copy of the control with this false).
    bool distributed = false;
};

/// What a residual's reductions are followed by.
enum class CgFinish : int {
    initial,   ///< the first residual: rho, beta = 0
    resume,    ///< a true residual after a false convergence: clear the stop, go on
    record,    ///< the recurrence residual of an iteration
    replaced,  ///< a true residual replacing the recurrence one
};

template <typename T>
PORTLA_HOST_DEVICE inline void cg_stop(CgState<T>* s, solver::StopReason reason) {
    s->stopped = 1;
    s->reason = static_cast<int>(reason);
}

/// After p.q: alpha = rho / pq, or stop; and whether this iteration replaces the residual
/// (decided here, before the update advances the iteration count, so update and replace agree).
template <typename T>
PORTLA_HOST_DEVICE void cg_finish_direction(CgState<T>* s, const CgControl& c, double pq) {
    if (c.distributed) {
        s->local[0] = pq;
        s->local_step = static_cast<int>(CgLocal::direction);
        return;
    }
    s->replace_now = replace_at(c.replacement, s->iteration + 1);
    if (!is_finite(pq))
        cg_stop(s, solver::StopReason::non_finite);
    else if (pq <= 0)
        cg_stop(s, solver::StopReason::indefinite);
    else
        s->alpha = static_cast<T>(s->rho / pq);
}

/// After r (and z) of an iteration are known: rr = r . r, rz = r . z (ignored without
/// preconditioning, where z is r). Deferred preconditioning: stores rr and the mode only.
template <typename T>
PORTLA_HOST_DEVICE void cg_finish_residual(CgState<T>* s, const CgControl& c, double rr, double rz,
                                           CgFinish mode, bool pending = false) {
    using solver::StopReason;
    if (c.distributed) {
        s->local[0] = rr;
        s->local[1] = rz;
        s->local_step = static_cast<int>(CgLocal::residual);
        s->local_mode = static_cast<int>(mode);
        return;
    }
    if (c.deferred && !pending) {
        s->pending_rr = rr;
        s->pending_mode = static_cast<int>(mode);
        return;
    }
    const double rho_new = c.preconditioned ? rz : rr;
    if (mode == CgFinish::initial) {
        s->rho = rho_new;
        s->beta = T(0);
        return;
    }
    int it = s->iteration;
    if (mode == CgFinish::resume) {
        s->stopped = 0;
    } else {
        ++it;
        const double rnorm = square_root(rr);
        if (mode == CgFinish::replaced) s->replace_now = 0;
        s->history[it % kCgHistory] = rnorm;
        s->iteration = it;
        if (!is_finite(rnorm)) return cg_stop(s, StopReason::non_finite);
        if (rnorm <= c.threshold) return cg_stop(s, StopReason::converged);
    }
    if (rho_new == 0) return cg_stop(s, StopReason::breakdown);
    if (rho_new < 0) return cg_stop(s, StopReason::indefinite);
    s->beta = static_cast<T>(rho_new / s->rho);
    s->rho = rho_new;
    if (it >= c.max_iters) cg_stop(s, StopReason::max_iterations);
}

/// Deferred preconditioning, once z = M^-1 r is known: rz = r . z completes the residual whose
/// r . r a step stored (pending_mode >= 0; -1 when none is pending).
template <typename T>
PORTLA_HOST_DEVICE void cg_finish_preconditioned(CgState<T>* s, const CgControl& c, double rz) {
    if (c.distributed) {
        s->local[0] = rz;
        s->local_step = static_cast<int>(CgLocal::preconditioned);
        return;
    }
    const int mode = s->pending_mode;
    s->pending_mode = -1;
    cg_finish_residual(s, c, s->pending_rr, rz, static_cast<CgFinish>(mode), true);
}

}  // namespace portla::common
