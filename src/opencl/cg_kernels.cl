// The vector passes of the CG steps (core/kernels/cg_kernels.hpp) in OpenCL C. Each writes two
// partial sums per work-group (partials[g], partials[groups + g]); common.cl's sum_partials adds
// them up. The decisions (src/common/cg_step.hpp) are taken on the host in phase 1
// (src/opencl/cg_kernels.cpp).

// r_i given: z_i = inv_diag_i r_i (when has_inv) and the contributions to r.r and r.z
#define PORTLA_STORE_Z(i, ri)                                          \
    do {                                                               \
        s0 += (ACC)(ri) * (ACC)(ri);                                   \
        if (has_inv) {                                                 \
            const REAL zi = PORTLA_AT(const REAL, inv_diag)[i] * (ri); \
            PORTLA_AT(REAL, z)[i] = zi;                                \
            s1 += (ACC)(ri) * (ACC)zi;                                 \
        }                                                              \
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

kernel void cg_residual(ulong n, PORTLA_BUFFER(const REAL, r), PORTLA_BUFFER(REAL, z),
                        PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
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
kernel void cg_form_direction(ulong n, REAL beta, PORTLA_BUFFER(const REAL, z),
                              PORTLA_BUFFER(const REAL, p_old), PORTLA_BUFFER(REAL, p_new)) {
    global const REAL *zp = PORTLA_AT(const REAL, z);
    global const REAL *old = PORTLA_AT(const REAL, p_old);
    global REAL *fresh = PORTLA_AT(REAL, p_new);
    PORTLA_FOR_EACH(i, n) fresh[i] = beta * old[i] + zp[i];
}

// s0 = x . y
kernel void cg_dot(ulong n, PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(const REAL, y),
                   PORTLA_BUFFER(ACC, partials)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global const REAL *yp = PORTLA_AT(const REAL, y);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    PORTLA_FOR_EACH(i, n) s0 += (ACC)xp[i] * (ACC)yp[i];
    PORTLA_WRITE_SUMS();
}

// x += alpha p; when move_r: r -= alpha q, [z], r.r, [r.z]
kernel void cg_update(ulong n, REAL alpha, PORTLA_BUFFER(const REAL, p),
                      PORTLA_BUFFER(const REAL, q), PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(REAL, r),
                      PORTLA_BUFFER(REAL, z), PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
                      int move_r, PORTLA_BUFFER(ACC, partials)) {
    global const REAL *pp = PORTLA_AT(const REAL, p);
    global const REAL *qp = PORTLA_AT(const REAL, q);
    global REAL *xp = PORTLA_AT(REAL, x);
    global REAL *rp = PORTLA_AT(REAL, r);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    PORTLA_FOR_EACH(i, n) {
        xp[i] += alpha * pp[i];
        if (move_r) {
            const REAL ri = rp[i] - alpha * qp[i];
            rp[i] = ri;
            PORTLA_STORE_Z(i, ri);
        }
    }
    PORTLA_WRITE_SUMS();
}

// r = b - ax; [z]; r.r; [r.z]
kernel void cg_replace(ulong n, PORTLA_BUFFER(const REAL, b), PORTLA_BUFFER(const REAL, ax),
                       PORTLA_BUFFER(REAL, r), PORTLA_BUFFER(REAL, z),
                       PORTLA_BUFFER(const REAL, inv_diag), int has_inv,
                       PORTLA_BUFFER(ACC, partials)) {
    global const REAL *bp = PORTLA_AT(const REAL, b);
    global const REAL *axp = PORTLA_AT(const REAL, ax);
    global REAL *rp = PORTLA_AT(REAL, r);
    local ACC scratch[WG];
    ACC s0 = 0, s1 = 0;
    PORTLA_FOR_EACH(i, n) {
        const REAL ri = bp[i] - axp[i];
        rp[i] = ri;
        PORTLA_STORE_Z(i, ri);
    }
    PORTLA_WRITE_SUMS();
}
