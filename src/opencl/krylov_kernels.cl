// The Krylov-basis kernels of GMRES (core/kernels/krylov_kernels.hpp) in OpenCL C: the basis V
// is k columns of length n, column j at V + j * ld.

// partials[j * groups + g] = work-group g's part of V_j . w (V_j^H w), for every j < k
kernel void basis_project_partial(ulong n, int k, PORTLA_BUFFER(const REAL, V), ulong ld,
                                  PORTLA_BUFFER(const REAL, w), PORTLA_BUFFER(ACC, partials)) {
    global const REAL *vp = PORTLA_AT(const REAL, V);
    global const REAL *wp = PORTLA_AT(const REAL, w);
    global ACC *part = PORTLA_AT(ACC, partials);
    local ACC scratch[WG];
    const uint groups = get_num_groups(0), g = get_group_id(0);
    for (int j = 0; j < k; ++j) {
        global const REAL *column = vp + (ulong)j * ld;
        ACC s = 0;
        PORTLA_FOR_EACH(i, n) s += acc_dot(column[i], wp[i]);
        s = group_sum(scratch, s);
        if (get_local_id(0) == 0) part[(ulong)j * groups + g] = s;
    }
}

// h[j] = the sum of column j's partials, in a fixed order (one work-item per column)
kernel void basis_project_finish(int k, uint groups, PORTLA_BUFFER(const ACC, partials),
                                 PORTLA_BUFFER(REAL, h)) {
    global const ACC *part = PORTLA_AT(const ACC, partials);
    global REAL *hp = PORTLA_AT(REAL, h);
    PORTLA_FOR_EACH(j, (ulong)k) {
        ACC total = 0;
        for (uint g = 0; g < groups; ++g) total += part[j * groups + g];
        hp[j] = real_of(total);
    }
}

// w = beta w + alpha sum_{j<k} h[j] V_j (w is not read when beta = 0)
kernel void basis_update(ulong n, int k, PORTLA_BUFFER(const REAL, V), ulong ld,
                         PORTLA_BUFFER(const REAL, h), REAL alpha, REAL beta,
                         PORTLA_BUFFER(REAL, w)) {
    global const REAL *vp = PORTLA_AT(const REAL, V);
    global const REAL *hp = PORTLA_AT(const REAL, h);
    global REAL *wp = PORTLA_AT(REAL, w);
    PORTLA_FOR_EACH(i, n) {
        REAL acc = 0;
        for (int j = 0; j < k; ++j) acc += v_mul(hp[j], vp[(ulong)j * ld + i]);
        wp[i] = (v_is_zero(beta) ? (REAL)0 : v_mul(beta, wp[i])) + v_mul(alpha, acc);
    }
}
