// The CG steps (core/kernels/cg_kernels.hpp) in OpenCL C, with their decisions on the device:
// each step is a pass (its vector work, partial sums per work-group) and cg_finish (one
// work-group adds the sums up and takes the decisions of src/common/cg_step.hpp).
// Every kernel does nothing where the state says the step does not run (stopped, or no
// replacement due), so a sequence of steps may run past the stop without changing anything.
// A kernel with barriers never returns before them (all its work-items reach every barrier).
// Built after src/common/stopping.hpp and src/common/cg_step.hpp (CgState and the decisions)
// and matrix_kernels.cl (its row functions); needs cl_khr_fp64 (the state's doubles).
// Complex programs (PORTLA_COMPLEX: CG for Hermitian positive definite A) keep the real scalars
// of the real ones: alpha and beta are SCALAR, and every sum (r^H r, r^H z, p^H A p: real for a
// Hermitian A and M) is the real part of the conjugated products, held in ACC's .x (0 in .y)
// so that the reductions stay those of ACC. The stencil operator has real values only.

#ifdef PORTLA_COMPLEX
#define re_dot(a_, b_) ((ACC)(acc_dot(a_, b_).x, 0))  // Re(conj(a_) b_), as ACC
#define re_part(a) ((a).x)
#else
#define re_dot(a_, b_) ((ACC)(a_) * (ACC)(b_))
#define re_part(a) (a)
#endif

// Which step a pass belongs to: whether it runs, and which decision its finish takes.
#define STEP_INITIALIZE 0
#define STEP_DIRECTION 1
#define STEP_UPDATE 2
#define STEP_REPLACE 3
#define STEP_PRECONDITIONED 4

// The operator of a fused step (FusedOperator::Kind)
#define OP_STENCIL 1
#define OP_CSR 2
#define OP_ELL 3
#define OP_CSR_L 4   // CSR with 64-bit row offsets (CsrIndex::offsets64), ptrs read as long
#define OP_CSR_LL 5  // CSR with 64-bit row offsets and column indices (CsrIndex::int64)

#define PORTLA_STATE global CgState *state = PORTLA_AT(CgState, st)

bool step_runs(global const CgState *s, int step) {
    switch (step) {
        case STEP_INITIALIZE:
            return true;
        case STEP_DIRECTION:
            return !s->stopped;
        case STEP_UPDATE:
            return !s->stopped;
        case STEP_REPLACE:
            return !s->stopped && s->replace_now;
        default:
            return s->pending_mode >= 0;
    }
}

// p_old and p_new by the parity of the iterations done
global REAL *p_old(global const CgState *s, global REAL *p0, global REAL *p1) {
    return (s->iteration & 1) ? p1 : p0;
}
global REAL *p_new(global const CgState *s, global REAL *p0, global REAL *p1) {
    return (s->iteration & 1) ? p0 : p1;
}

// (A v)_i of the fused operator
REAL op_row(int kind, int dim, ulong points, ulong n, ulong width, global const int *ptrs,
            global const int *cols, global const REAL *vals, ulong i, global const REAL *v) {
    if (kind == OP_CSR) return csr_row(i, ptrs, cols, vals, v);
    if (kind == OP_ELL) return ell_row(i, n, width, cols, vals, v);
    if (kind == OP_CSR_L) return csr_row_l(i, (global const long *)ptrs, cols, vals, v);
    if (kind == OP_CSR_LL)
        return csr_row_ll(i, (global const long *)ptrs, (global const long *)cols, vals, v);
#ifdef PORTLA_COMPLEX
    return 0;  // the host never hands a complex program the stencil
#else
    return stencil_row(dim, points, i, v);
#endif
}

#define PORTLA_OPERATOR                                                           \
    int kind, int dim, ulong points, ulong width, PORTLA_BUFFER(const int, ptrs), \
        PORTLA_BUFFER(const int, cols), PORTLA_BUFFER(const REAL, vals)
#define PORTLA_ROW(i, v)                                                                        \
    op_row(kind, dim, points, n, width, PORTLA_AT(const int, ptrs), PORTLA_AT(const int, cols), \
           PORTLA_AT(const REAL, vals), i, v)

// r_i given: z_i = inv_diag_i r_i (when has_inv) and the contributions to r.r and r.z
#define PORTLA_STORE_Z(i, ri)                                                \
    do {                                                                     \
        s0 += re_dot(ri, ri);                                                \
        if (has_inv) {                                                       \
            const REAL zi = v_mul(PORTLA_AT(const REAL, inv_diag)[i], (ri)); \
            PORTLA_AT(REAL, z)[i] = zi;                                      \
            s1 += re_dot(ri, zi);                                            \
        }                                                                    \
    } while (0)

// (`scratch`: WG values of local memory, declared at the kernel's scope)
#define PORTLA_WRITE_SUMS()                                         \
    do {                                                            \
        const uint g = get_group_id(0), groups = get_num_groups(0); \
        s0 = group_sum(scratch, s0);                                \
        s1 = group_sum(scratch, s1);                                \
        if (get_local_id(0) == 0) {                                 \
            PORTLA_AT(ACC, partials)[g] = s0;                       \
            PORTLA_AT(ACC, partials)[groups + g] = s1;              \
        }                                                           \
    } while (0)

// from a given r: [z = M^-1 r]; r.r; [r.z]
kernel void cg_residual(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_BUFFER(const REAL, r),
                        PORTLA_BUFFER(REAL, z), PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
                        PORTLA_BUFFER(ACC, partials)) {
    global const REAL *rp = PORTLA_AT(const REAL, r);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    PORTLA_FOR_EACH(i, n) {
        const REAL ri = rp[i];
        PORTLA_STORE_Z(i, ri);
    }
    PORTLA_WRITE_SUMS();
}

// p_new = beta p_old + z
kernel void cg_form_direction(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_BUFFER(const REAL, z),
                              PORTLA_BUFFER(REAL, p0), PORTLA_BUFFER(REAL, p1)) {
    PORTLA_STATE;
    if (state->stopped) return;
    global const REAL *zp = PORTLA_AT(const REAL, z);
    global const REAL *old = p_old(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
    global REAL *fresh = p_new(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
    const SCALAR beta = state->beta;
    PORTLA_FOR_EACH(i, n) fresh[i] = beta * old[i] + zp[i];
}

#ifndef PORTLA_COMPLEX

// The fused direction of the stencil, as cuda's: p_new = z + beta p_old formed at every point
// read (z: r without a preconditioner), q = A p_new, s0 = p_new . q; one pass over z and p_old
// instead of forming p_new, applying and taking the dot in three.
kernel void cg_stencil_direction(PORTLA_BUFFER(CgState, st), ulong n, int dim, ulong points,
                                 PORTLA_BUFFER(const REAL, z), PORTLA_BUFFER(REAL, p0),
                                 PORTLA_BUFFER(REAL, p1), PORTLA_BUFFER(REAL, q),
                                 PORTLA_BUFFER(ACC, partials)) {
    PORTLA_STATE;
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    if (!state->stopped) {
        global const REAL *zp = PORTLA_AT(const REAL, z);
        global const REAL *old = p_old(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
        global REAL *fresh = p_new(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
        global REAL *qp = PORTLA_AT(REAL, q);
        const REAL beta = state->beta;
#define PORTLA_DIR_(j) (beta * old[j] + zp[j])
#define PORTLA_POINT_(i, pts)                                 \
    do {                                                      \
        const REAL pi = PORTLA_DIR_(i);                       \
        REAL qi;                                              \
        PORTLA_STENCIL_ROW(qi, dim, pts, i, PORTLA_DIR_, pi); \
        fresh[i] = pi;                                        \
        qp[i] = qi;                                           \
        s0 += (ACC)pi * (ACC)qi;                              \
    } while (0)
#ifndef PORTLA_CPU
        if (n <= 0xFFFFFFFFul) {  // 32-bit indices, as cuda's kernel (Index = uint32)
            const uint n32 = (uint)n, p32 = (uint)points, stride = (uint)get_global_size(0);
            for (uint i = (uint)get_global_id(0); i < n32; i += stride) PORTLA_POINT_(i, p32);
        } else
#endif
            PORTLA_FOR_EACH(i, n) PORTLA_POINT_(i, points);
#undef PORTLA_POINT_
#undef PORTLA_DIR_
    }
    PORTLA_WRITE_SUMS();
}

#endif

// q = A p_new (after cg_form_direction: neighbouring rows of p_new are read). Kept apart from
// the dot for CSR and ELL: fused into one pass over the reduction's one-wave grid it was 1.14x
// slower at 256^3 on NVIDIA's OpenCL (1.416 against 1.246 ms per iteration, 2026-11-25), the
// rows' dependent loads wanting the launch's many more work-groups.
kernel void cg_apply(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_OPERATOR, PORTLA_BUFFER(REAL, p0),
                     PORTLA_BUFFER(REAL, p1), PORTLA_BUFFER(REAL, q)) {
    PORTLA_STATE;
    if (state->stopped) return;
    global const REAL *p = p_new(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
    global REAL *qp = PORTLA_AT(REAL, q);
    PORTLA_FOR_EACH(i, n) qp[i] = PORTLA_ROW(i, p);
}

// s0 = p_new . q, or pq[0] (in the first work-item) where the operator's apply left it
kernel void cg_direction_dot(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_BUFFER(REAL, p0),
                             PORTLA_BUFFER(REAL, p1), PORTLA_BUFFER(const REAL, q),
                             PORTLA_BUFFER(const REAL, pq), int has_pq,
                             PORTLA_BUFFER(ACC, partials)) {
    PORTLA_STATE;
    global const REAL *p = p_new(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
    global const REAL *qp = PORTLA_AT(const REAL, q);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    if (!state->stopped && has_pq) {
        if (get_global_id(0) == 0) s0 = re_dot(from_sacc(1), PORTLA_AT(const REAL, pq)[0]);
    } else if (!state->stopped) {
        PORTLA_FOR_EACH(i, n) s0 += re_dot(p[i], qp[i]);
    }
    PORTLA_WRITE_SUMS();
}

// x += alpha p_new; unless replacing: r -= alpha q; [z]; r.r; [r.z]
kernel void cg_update(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_BUFFER(REAL, p0),
                      PORTLA_BUFFER(REAL, p1), PORTLA_BUFFER(const REAL, q), PORTLA_BUFFER(REAL, x),
                      PORTLA_BUFFER(REAL, r), PORTLA_BUFFER(REAL, z),
                      PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
                      PORTLA_BUFFER(ACC, partials)) {
    PORTLA_STATE;
    global const REAL *p = p_new(state, PORTLA_AT(REAL, p0), PORTLA_AT(REAL, p1));
    global const REAL *qp = PORTLA_AT(const REAL, q);
    global REAL *xp = PORTLA_AT(REAL, x);
    global REAL *rp = PORTLA_AT(REAL, r);
    const SCALAR alpha = state->alpha;
    const int move_r = !state->replace_now;  // a replacement recomputes r (and z)
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    if (!state->stopped) PORTLA_FOR_EACH(i, n) {
            xp[i] += alpha * p[i];
            if (move_r) {
                const REAL ri = rp[i] - alpha * qp[i];
                rp[i] = ri;
                PORTLA_STORE_Z(i, ri);
            }
        }
    PORTLA_WRITE_SUMS();
}

// when replacing: r = b - A x (from ax when has_ax, else row by row); [z]; r.r; [r.z]
kernel void cg_replace(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_OPERATOR,
                       PORTLA_BUFFER(const REAL, b), PORTLA_BUFFER(const REAL, ax), int has_ax,
                       PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, r), PORTLA_BUFFER(REAL, z),
                       PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
                       PORTLA_BUFFER(ACC, partials)) {
    PORTLA_STATE;
    global const REAL *bp = PORTLA_AT(const REAL, b);
    global const REAL *axp = PORTLA_AT(const REAL, ax);
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *rp = PORTLA_AT(REAL, r);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    if (!state->stopped && state->replace_now) PORTLA_FOR_EACH(i, n) {
            const REAL ri = bp[i] - (has_ax ? axp[i] : PORTLA_ROW(i, xp));
            rp[i] = ri;
            PORTLA_STORE_Z(i, ri);
        }
    PORTLA_WRITE_SUMS();
}

// deferred preconditioning: s0 = r . z
kernel void cg_rz(PORTLA_BUFFER(CgState, st), ulong n, PORTLA_BUFFER(const REAL, r),
                  PORTLA_BUFFER(const REAL, z), PORTLA_BUFFER(ACC, partials)) {
    PORTLA_STATE;
    global const REAL *rp = PORTLA_AT(const REAL, r);
    global const REAL *zp = PORTLA_AT(const REAL, z);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    if (state->pending_mode >= 0) PORTLA_FOR_EACH(i, n) s0 += re_dot(rp[i], zp[i]);
    PORTLA_WRITE_SUMS();
}

// One work-group: the sums of the step's pass (s0, s1), then its decision (mode: a
// PORTLA_CG_FINISH_*).
kernel void cg_finish(PORTLA_BUFFER(CgState, st), uint groups, PORTLA_BUFFER(const ACC, partials),
                      int step, int mode, double threshold, int max_iters, int replacement,
                      int preconditioned, int deferred, int distributed, int indefinite_stops) {
    PORTLA_STATE;
    // An update that leaves r to the replacement takes no decision. (No return before the
    // barriers of group_sum: every work-item reaches them.)
    const bool runs = step_runs(state, step) && !(step == STEP_UPDATE && state->replace_now);
    global const ACC *part = PORTLA_AT(const ACC, partials);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    for (uint g = get_local_id(0); g < groups; g += WG) {
        s0 += part[g];
        s1 += part[groups + g];
    }
    s0 = group_sum(scratch, s0);
    s1 = group_sum(scratch, s1);
    if (!runs || get_local_id(0) != 0) return;
    if (step == STEP_DIRECTION)
        cg_finish_direction(state, replacement, distributed, indefinite_stops, re_part(s0));
    else if (step == STEP_PRECONDITIONED)
        cg_finish_preconditioned(state, threshold, max_iters, preconditioned, deferred, distributed,
                                 re_part(s0));
    else
        cg_finish_residual(state, threshold, max_iters, preconditioned, deferred, distributed,
                           re_part(s0), re_part(s1), mode, false);
}
