// The kernels of the dominant-eigenpair iteration (core/kernels/perron_kernels.hpp) in OpenCL C.
// A row sum is one work-group per row (terms strided over the work-items, then the local-memory
// tree of group_sum); the reduction variants of cuda (atomic, sub-group) are not separate here.

// s_i = sum_j a_ij (w_j when has_w) / (w_i when has_w); with `transform`, first
// a_ij = a_ij s_j / s_i (s = scale) and the new a_ij summed (fused_transform_row_sums)
kernel void perron_row_sums(ulong n, PORTLA_BUFFER(REAL, a), PORTLA_BUFFER(const REAL, w),
                            int has_w, PORTLA_BUFFER(const REAL, scale), int transform,
                            PORTLA_BUFFER(REAL, s)) {
    global REAL *ap = PORTLA_AT(REAL, a);
    global const REAL *wp = PORTLA_AT(const REAL, w);
    global const REAL *sc = PORTLA_AT(const REAL, scale);
    global REAL *sp = PORTLA_AT(REAL, s);
    local ACC scratch[WG];
    for (ulong i = get_group_id(0); i < n; i += get_num_groups(0)) {
        global REAL *row = ap + i * n;
        ACC sum = 0;
        for (ulong j = get_local_id(0); j < n; j += WG) {
            REAL x = row[j];
            if (transform) {
                x = x * sc[j] / sc[i];
                row[j] = x;
            }
            sum += has_w ? (ACC)x * (ACC)wp[j] : (ACC)x;
        }
        sum = group_sum(scratch, sum);
        if (get_local_id(0) == 0) sp[i] = (REAL)(has_w ? sum / (ACC)wp[i] : sum);
    }
}

// NaN as soon as either is NaN, else the larger
ACC max_nan(ACC a, ACC b) { return isnan(a) || isnan(b) ? (ACC)NAN : (a > b ? a : b); }

ACC group_max(local ACC *scratch, ACC v) {
    scratch[get_local_id(0)] = v;
    PORTLA_GROUP_TREE(scratch, max_nan);
    const ACC m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}

// partials[group] = the group's max of x_i (stop_test: of |x_i - x_(i+1) mod n|), 0 when empty
kernel void perron_max_partial(ulong n, PORTLA_BUFFER(const REAL, x), int stop_test,
                               PORTLA_BUFFER(ACC, partials)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    local ACC scratch[WG];
    ACC m = 0;
    PORTLA_FOR_EACH(i, n) {
        const REAL v = stop_test ? fabs(xp[i] - xp[i + 1 == n ? 0 : i + 1]) : xp[i];
        m = max_nan(m, (ACC)v);
    }
    m = group_max(scratch, m);
    if (get_local_id(0) == 0) PORTLA_AT(ACC, partials)[get_group_id(0)] = m;
}

kernel void perron_max_finish(PORTLA_BUFFER(const ACC, partials), uint groups,
                              PORTLA_BUFFER(REAL, result)) {
    global const ACC *part = PORTLA_AT(const ACC, partials);
    local ACC scratch[WG];
    ACC m = 0;
    for (uint g = get_local_id(0); g < groups; g += WG) m = max_nan(m, part[g]);
    m = group_max(scratch, m);
    if (get_local_id(0) == 0) PORTLA_AT(REAL, result)[0] = (REAL)m;
}

// v_i = v_i (s_i / m[0])
kernel void perron_scale(ulong n, PORTLA_BUFFER(const REAL, s), PORTLA_BUFFER(const REAL, m),
                         PORTLA_BUFFER(REAL, v)) {
    global const REAL *sp = PORTLA_AT(const REAL, s);
    const REAL mm = PORTLA_AT(const REAL, m)[0];
    global REAL *vp = PORTLA_AT(REAL, v);
    PORTLA_FOR_EACH(i, n) vp[i] = vp[i] * (sp[i] / mm);
}

// a_ij = a_ij s_j / s_i
kernel void perron_transform(ulong n, PORTLA_BUFFER(const REAL, s), PORTLA_BUFFER(REAL, a)) {
    global const REAL *sp = PORTLA_AT(const REAL, s);
    global REAL *ap = PORTLA_AT(REAL, a);
    PORTLA_FOR_EACH(e, n * n) {
        const ulong i = e / n, j = e - i * n;
        ap[e] = ap[e] * sp[j] / sp[i];
    }
}
