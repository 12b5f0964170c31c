// The decisions of one CG iteration, written once and compiled into every backend's CG steps
// (host code on the CPU backends, device code on cuda and opencl): the scalars live in a CgState
// in the executor's memory, and only the last block of a reduction (the one work-group of
// opencl's cg_finish, the one CPU thread) runs these.
//
// Per iteration (it = iterations done; p ping-pongs between two buffers by its parity):
//   direction: p_new = z + beta p_old; q = A p_new; pq = p_new . q       -> finish_direction
//   update:    x += alpha p_new; r -= alpha q; [z = M^-1 r]; rr; [rz]    -> finish_residual
//   replace:   only when finish_direction set replace_now: the update moves x alone, then
//              r = b - A x; [z]; rr; [rz]                                -> finish_residual
// The stopping test is in double on sqrt(r.r) against max(rtol ||b||, atol); p.q not finite ->
// non_finite, p.q <= 0 -> indefinite (unless the control's indefinite_stops is false: then only
// p.q = 0 stops, as breakdown), rho = r.z = 0 -> breakdown, rho < 0 -> indefinite; nothing
// else stops a solve early (src/common/stopping.hpp).
//
// A preconditioner applied from outside the steps (CgControl::deferred: any but Jacobi, which the
// steps apply themselves) splits each residual's reductions: the step stores r.r and its mode
// (pending_rr, pending_mode), the host applies z = M^-1 r, and cg_finish_preconditioned computes
// r.z and takes the decisions.
//
// Valid C++17, CUDA and OpenCL C 1.2 (built into opencl's CG program after stopping.hpp): the
// state and the decisions are written once over a few macros. PORTLA_CG_TEMPLATE opens each
// definition (a template over the value type Real in C++; nothing in OpenCL C, whose program has
// one value type, REAL), PORTLA_CG_REAL is that value type and PORTLA_CG_STATE the state as a
// pointer sees it (in global memory on an OpenCL device). The decisions take the control's
// fields as scalars; C++ callers pass a CgControl and the enums through the typed overloads at
// the end.
#ifndef PORTLA_COMMON_CG_STEP_HPP
#define PORTLA_COMMON_CG_STEP_HPP

#ifndef PORTLA_OPENCL_C
#include "common/stopping.hpp"
#include "portla/solver/types.hpp"
#endif

#ifdef PORTLA_OPENCL_C
#define PORTLA_CG_TEMPLATE
#define PORTLA_CG_REAL SCALAR  // REAL itself in a real program (common.cl)
#define PORTLA_CG_STATE global CgState
#else
#define PORTLA_CG_TEMPLATE template <typename Real>
#define PORTLA_CG_REAL Real
#define PORTLA_CG_STATE CgState<Real>
#endif

/// Residual norms kept per read-back of the state (by iteration % PORTLA_CG_HISTORY).
#define PORTLA_CG_HISTORY 16

// What a residual's reductions are followed by (CgFinish).
#define PORTLA_CG_FINISH_INITIAL 0   // the first residual: rho, beta = 0
#define PORTLA_CG_FINISH_RESUME 1    // a true residual after a false convergence: go on
#define PORTLA_CG_FINISH_RECORD 2    // the recurrence residual of an iteration
#define PORTLA_CG_FINISH_REPLACED 3  // a true residual replacing the recurrence one

// Which decision a step of a distributed solve left to the host (CgLocal).
#define PORTLA_CG_LOCAL_NONE 0
#define PORTLA_CG_LOCAL_DIRECTION 1
#define PORTLA_CG_LOCAL_RESIDUAL 2
#define PORTLA_CG_LOCAL_PRECONDITIONED 3

#ifndef PORTLA_OPENCL_C
namespace portla::common {
#endif

/// The solve's scalars, in the executor's memory; read back whole by the host. Natural alignment
/// on host and device alike (src/opencl/cg_kernels.cpp checks that the layouts agree).
PORTLA_CG_TEMPLATE
struct CgState {
    double rho;                         ///< r . z of the current residual
    double history[PORTLA_CG_HISTORY];  ///< ||r|| of iteration i at i % PORTLA_CG_HISTORY
    PORTLA_CG_REAL alpha;
    PORTLA_CG_REAL beta;
    int iteration;         ///< iterations done
    int stopped;           ///< 0 while running
    int reason;            ///< a PORTLA_STOP_* (solver::StopReason) once stopped
    int replace_now;       ///< this iteration ends with r = b - A x (set by finish_direction)
    double pending_rr;     ///< deferred: r . r of the residual awaiting z = M^-1 r
    int pending_mode;      ///< deferred: its PORTLA_CG_FINISH_*, -1 when none is pending
    double local_sums[2];  ///< distributed: this rank's sums (pq, or rr and rz, or rz)
    int local_step;        ///< distributed: the PORTLA_CG_LOCAL_* whose decision awaits them
    int local_mode;        ///< distributed: the PORTLA_CG_FINISH_* of a residual's decision
};
#ifdef PORTLA_OPENCL_C
typedef struct CgState CgState;
#endif

PORTLA_CG_TEMPLATE
PORTLA_HOST_DEVICE void cg_stop(PORTLA_CG_STATE* s, int reason) {
    s->stopped = 1;
    s->reason = reason;
}

/// After p.q: alpha = rho / pq, or stop; and whether this iteration replaces the residual
/// (decided here, before the update advances the iteration count, so update and replace agree).
/// Distributed: stores this rank's pq for the host instead.
PORTLA_CG_TEMPLATE
PORTLA_HOST_DEVICE void cg_finish_direction(PORTLA_CG_STATE* s, int replacement, bool distributed,
                                            bool indefinite_stops, double pq) {
    if (distributed) {
        s->local_sums[0] = pq;
        s->local_step = PORTLA_CG_LOCAL_DIRECTION;
        return;
    }
    s->replace_now = replace_at(replacement, s->iteration + 1);
    if (!is_finite(pq))
        cg_stop(s, PORTLA_STOP_NON_FINITE);
    else if (indefinite_stops && pq <= 0)
        cg_stop(s, PORTLA_STOP_INDEFINITE);
    else if (pq == 0)
        cg_stop(s, PORTLA_STOP_BREAKDOWN);  // alpha = rho / 0
    else
        s->alpha = (PORTLA_CG_REAL)(s->rho / pq);
}

/// After r (and z) of an iteration are known: rr = r . r, rz = r . z (ignored without
/// preconditioning, where z is r); `mode` a PORTLA_CG_FINISH_*. Stop when ||r|| <= threshold or
/// after max_iters iterations. Deferred preconditioning (unless `pending`: the host's z is
/// known): stores rr and the mode only. Distributed: stores this rank's sums for the host.
PORTLA_CG_TEMPLATE
PORTLA_HOST_DEVICE void cg_finish_residual(PORTLA_CG_STATE* s, double threshold, int max_iters,
                                           bool preconditioned, bool deferred, bool distributed,
                                           double rr, double rz, int mode, bool pending) {
    if (distributed) {
        s->local_sums[0] = rr;
        s->local_sums[1] = rz;
        s->local_step = PORTLA_CG_LOCAL_RESIDUAL;
        s->local_mode = mode;
        return;
    }
    if (deferred && !pending) {
        s->pending_rr = rr;
        s->pending_mode = mode;
        return;
    }
    const double rho_new = preconditioned ? rz : rr;
    if (mode == PORTLA_CG_FINISH_INITIAL) {
        s->rho = rho_new;
        s->beta = (PORTLA_CG_REAL)0;
        return;
    }
    int it = s->iteration;
    if (mode == PORTLA_CG_FINISH_RESUME) {
        s->stopped = 0;
    } else {
        ++it;
        const double rnorm = square_root(rr);
        if (mode == PORTLA_CG_FINISH_REPLACED) s->replace_now = 0;
        s->history[it % PORTLA_CG_HISTORY] = rnorm;
        s->iteration = it;
        if (!is_finite(rnorm)) {
            cg_stop(s, PORTLA_STOP_NON_FINITE);
            return;
        }
        if (rnorm <= threshold) {
            cg_stop(s, PORTLA_STOP_CONVERGED);
            return;
        }
    }
    if (rho_new == 0) {
        cg_stop(s, PORTLA_STOP_BREAKDOWN);
        return;
    }
    if (rho_new < 0) {
        cg_stop(s, PORTLA_STOP_INDEFINITE);
        return;
    }
    s->beta = (PORTLA_CG_REAL)(rho_new / s->rho);
    s->rho = rho_new;
    if (it >= max_iters) cg_stop(s, PORTLA_STOP_MAX_ITERATIONS);
}

/// Deferred preconditioning, once z = M^-1 r is known: rz = r . z completes the residual whose
/// r . r a step stored (pending_mode >= 0; -1 when none is pending). Distributed: stores this
/// rank's rz for the host.
PORTLA_CG_TEMPLATE
PORTLA_HOST_DEVICE void cg_finish_preconditioned(PORTLA_CG_STATE* s, double threshold,
                                                 int max_iters, bool preconditioned, bool deferred,
                                                 bool distributed, double rz) {
    if (distributed) {
        s->local_sums[0] = rz;
        s->local_step = PORTLA_CG_LOCAL_PRECONDITIONED;
        return;
    }
    const int mode = s->pending_mode;
    s->pending_mode = -1;
    cg_finish_residual(s, threshold, max_iters, preconditioned, deferred, false, s->pending_rr, rz,
                       mode, true);
}

#ifndef PORTLA_OPENCL_C
// --- C++: the control, the enums and the typed overloads -------------------------------------

constexpr int kCgHistory = PORTLA_CG_HISTORY;

/// Which decision a step of a distributed solve left to the host (CgControl::distributed).
enum class CgLocal : int {
    none = PORTLA_CG_LOCAL_NONE,
    direction = PORTLA_CG_LOCAL_DIRECTION,
    residual = PORTLA_CG_LOCAL_RESIDUAL,
    preconditioned = PORTLA_CG_LOCAL_PRECONDITIONED,
};

/// What a residual's reductions are followed by.
enum class CgFinish : int {
    initial = PORTLA_CG_FINISH_INITIAL,    ///< the first residual: rho, beta = 0
    resume = PORTLA_CG_FINISH_RESUME,      ///< a true residual after a false convergence
    record = PORTLA_CG_FINISH_RECORD,      ///< the recurrence residual of an iteration
    replaced = PORTLA_CG_FINISH_REPLACED,  ///< a true residual replacing the recurrence one
};

static_assert(static_cast<int>(solver::StopReason::converged) == PORTLA_STOP_CONVERGED &&
                  static_cast<int>(solver::StopReason::max_iterations) ==
                      PORTLA_STOP_MAX_ITERATIONS &&
                  static_cast<int>(solver::StopReason::breakdown) == PORTLA_STOP_BREAKDOWN &&
                  static_cast<int>(solver::StopReason::non_finite) == PORTLA_STOP_NON_FINITE &&
                  static_cast<int>(solver::StopReason::indefinite) == PORTLA_STOP_INDEFINITE,
              "PORTLA_STOP_* are solver::StopReason's values");

/// What the decisions read besides the state.
struct CgControl {
    double threshold = 0;  ///< stop when ||r|| <= threshold
    int max_iters = 0;     ///< >= 1
    int replacement = 0;   ///< r = b - A x every this many iterations (0: never)
    bool preconditioned = false;
    bool deferred = false;  ///< z = M^-1 r is computed outside the steps (see above)
    /// The operator is distributed over ranks: a step's sums are this rank's part only, so the
    /// step stores them in CgState::local_sums and returns; the host sums them over the ranks
    /// and takes the decision with the same functions (a copy of the control with this false).
    bool distributed = false;
    /// p.Ap < 0 stops the solve (indefinite); false: CG goes on (only p.Ap = 0 stops it).
    bool indefinite_stops = true;
};

template <typename T>
PORTLA_HOST_DEVICE void cg_stop(CgState<T>* s, solver::StopReason reason) {
    cg_stop(s, static_cast<int>(reason));
}

template <typename T>
PORTLA_HOST_DEVICE void cg_finish_direction(CgState<T>* s, const CgControl& c, double pq) {
    cg_finish_direction(s, c.replacement, c.distributed, c.indefinite_stops, pq);
}

template <typename T>
PORTLA_HOST_DEVICE void cg_finish_residual(CgState<T>* s, const CgControl& c, double rr, double rz,
                                           CgFinish mode, bool pending = false) {
    cg_finish_residual(s, c.threshold, c.max_iters, c.preconditioned, c.deferred, c.distributed, rr,
                       rz, static_cast<int>(mode), pending);
}

template <typename T>
PORTLA_HOST_DEVICE void cg_finish_preconditioned(CgState<T>* s, const CgControl& c, double rz) {
    cg_finish_preconditioned(s, c.threshold, c.max_iters, c.preconditioned, c.deferred,
                             c.distributed, rz);
}

}  // namespace portla::common
#endif

#endif  // PORTLA_COMMON_CG_STEP_HPP
