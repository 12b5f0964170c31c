// The batched dense direct solve (core/kernels/batch_direct_kernels.hpp) in OpenCL C: LU with
// partial pivoting, one work-group per system (groups stride over the systems), the factors in
// a copy of the matrices. Every step computes the reference's value (src/common/batch/
// dense_lu.hpp): the same pivot, and each a_ij and y_i updated by the same operations in the
// same order, not contracted to fused multiply-adds (which the reference's x86-64 build does
// not use either: with them an exactly singular matrix can leave a pivot of rounding size
// instead of the exact zero that the info value reports); only the back substitution
// subtracts the terms of a row in another order.
#pragma OPENCL FP_CONTRACT OFF

// Copies A_s and b_s into the workspace lu and x; info[s] = -1 when either holds a NaN or Inf,
// else 0.
kernel void batch_lu_prepare(ulong num_systems, ulong n, PORTLA_BUFFER(const REAL, values),
                             PORTLA_BUFFER(const REAL, b), PORTLA_BUFFER(REAL, lu),
                             PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(int, info)) {
    local ulong bad[WG];
    const uint lid = get_local_id(0);
    for (ulong s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        global const REAL *as = PORTLA_AT(const REAL, values) + s * n * n;
        global const REAL *bs = PORTLA_AT(const REAL, b) + s * n;
        global REAL *a = PORTLA_AT(REAL, lu) + s * n * n;
        global REAL *xs = PORTLA_AT(REAL, x) + s * n;
        ulong found = 0;
        for (ulong e = lid; e < n * n; e += WG) {
            a[e] = as[e];
            found |= !isfinite(as[e]);
        }
        for (ulong e = lid; e < n; e += WG) {
            xs[e] = bs[e];
            found |= !isfinite(bs[e]);
        }
        bad[lid] = found;
        PORTLA_GROUP_TREE(bad, max);
        if (lid == 0) PORTLA_AT(int, info)[s] = bad[0] ? -1 : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// The pivot key of row i in column k (col = &a_0k, stride n): |a_ik|, a NaN below every number
// except at i = k, where nothing displaces it: the reference's scan `|a_ik| > |a_pk|` from p = k
// picks the row of the largest key, the first of equal ones. Row n (no row) is below them all.
REAL pivot_key(global const REAL *col, ulong n, ulong k, ulong i) {
    if (i >= n) return -2;
    const REAL v = col[i * n];
    return isnan(v) ? (i == k ? (REAL)INFINITY : (REAL)-1) : fabs(v);
}

// Of rows i and j, the pivot the reference's scan prefers.
ulong better_pivot(global const REAL *col, ulong n, ulong k, ulong i, ulong j) {
    const REAL ki = pivot_key(col, n, k, i), kj = pivot_key(col, n, k, j);
    return kj > ki || (kj == ki && j < i) ? j : i;
}

#define PORTLA_BETTER_PIVOT(i, j) better_pivot(col, n, k, i, j)

// P A_s = L U in place in lu, y = L^-1 P b_s in x, then x_s = U^-1 y; info[s] = k (1-based)
// when the k-th pivot is exactly zero. Systems with info[s] != 0 (batch_lu_prepare) are left
// alone. Every work-item meets every barrier: a system that stops early walks its remaining
// steps doing nothing.
kernel void batch_lu_factor_solve(ulong num_systems, ulong n, PORTLA_BUFFER(REAL, lu),
                                  PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(int, info)) {
    local ulong rows[WG];
    local int state;
    const uint lid = get_local_id(0);
    for (ulong s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        global REAL *a = PORTLA_AT(REAL, lu) + s * n * n;
        global REAL *xs = PORTLA_AT(REAL, x) + s * n;
        if (lid == 0) state = PORTLA_AT(int, info)[s];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (ulong k = 0; k < n; ++k) {
            // pivot: the best row of each work-item's share of i >= k, then the group's best
            global const REAL *col = a + k;
            ulong p = n;
            for (ulong i = k + lid; i < n; i += WG) p = better_pivot(col, n, k, p, i);
            rows[lid] = p;
            PORTLA_GROUP_TREE(rows, PORTLA_BETTER_PIVOT);
            p = rows[0];
            const int go = state == 0;
            const REAL pivot = a[p * n + k];
            // every work-item has read rows[0], state and the pivot before any row moves
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            if (go && pivot == 0) {
                if (lid == 0) state = (int)(k + 1);
            } else if (go && p != k) {
                for (ulong j = lid; j < n; j += WG) {
                    const REAL t = a[k * n + j];
                    a[k * n + j] = a[p * n + j];
                    a[p * n + j] = t;
                }
                if (lid == 0) {
                    const REAL t = xs[k];
                    xs[k] = xs[p];
                    xs[p] = t;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            const int step = state == 0;
            // l_ik = a_ik / u_kk;  y_i -= l_ik y_k
            if (step)
                for (ulong i = k + 1 + lid; i < n; i += WG) {
                    const REAL l = a[i * n + k] / a[k * n + k];
                    a[i * n + k] = l;
                    xs[i] -= l * xs[k];
                }
            barrier(CLK_GLOBAL_MEM_FENCE);
            // a_ij -= l_ik u_kj for i, j > k
            const ulong m = n - k - 1;
            if (step)
                for (ulong t = lid; t < m * m; t += WG) {
                    const ulong i = k + 1 + t / m, j = k + 1 + t % m;
                    a[i * n + j] -= a[i * n + k] * a[k * n + j];
                }
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        // back substitution by columns: x_i = y_i / u_ii, then y_r -= u_ri x_i for r < i
        const int solve = state == 0;
        for (ulong i = n; i-- > 0;) {
            if (solve && lid == 0) xs[i] = xs[i] / a[i * n + i];
            barrier(CLK_GLOBAL_MEM_FENCE);
            if (solve)
                for (ulong r = lid; r < i; r += WG) xs[r] -= a[r * n + i] * xs[i];
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        if (lid == 0) PORTLA_AT(int, info)[s] = state;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
