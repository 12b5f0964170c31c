// The operator-apply kernels (core/kernels/matrix_kernels.hpp) in OpenCL C: one row per
// work-item, rows shared out by a grid-stride loop. The row functions mirror src/common's
// (stencil_row.hpp, csr_pattern.hpp) and are used by the CG steps too (cg_kernels.cpp applies
// the operator of a fused step through these kernels).

// Complex programs (PORTLA_COMPLEX) hold the CSR, ELL and dense kernels and gather; the stencil
// operators have real values only.
#ifndef PORTLA_COMPLEX
// (A v)_i of the dim-D Poisson stencil on points^dim points (common/stencil_row.hpp), into
// `out`, with v_j read as V(j) (a macro) and v_i given as `vi`; the neighbours' indices in the
// type of i and points (uint where both fit, so no 64-bit arithmetic on a GPU). The coordinates of
// i by 32-bit division where i and points fit in 32 bits, as the cuda kernels do: 64-bit integer
// division is emulated on GPUs, several times the cost of the 32-bit one.
#define PORTLA_STENCIL_ROW(out, dim, points, i, V, vi)                       \
    do {                                                                     \
        ulong ix_, iy_ = 0, iz_ = 0;                                         \
        if ((i) <= 0xFFFFFFFFul && (points) <= 0xFFFFFFFFul) {               \
            const uint p_ = (uint)(points), j_ = (uint)(i), line_ = j_ / p_; \
            ix_ = j_ - line_ * p_;                                           \
            iy_ = line_ % p_;                                                \
            iz_ = line_ / p_;                                                \
        } else {                                                             \
            const ulong line_ = (i) / (points);                              \
            ix_ = (i)-line_ * (points);                                      \
            iy_ = line_ % (points);                                          \
            iz_ = line_ / (points);                                          \
        }                                                                    \
        REAL nb_ = 0;                                                        \
        if (ix_ > 0) nb_ += V((i)-1);                                        \
        if (ix_ + 1 < (points)) nb_ += V((i) + 1);                           \
        if ((dim) >= 2) {                                                    \
            if (iy_ > 0) nb_ += V((i) - (points));                           \
            if (iy_ + 1 < (points)) nb_ += V((i) + (points));                \
            if ((dim) == 3) { /* the plane in the type of points */          \
                if (iz_ > 0) nb_ += V((i) - (points) * (points));            \
                if (iz_ + 1 < (points)) nb_ += V((i) + (points) * (points)); \
            }                                                                \
        }                                                                    \
        (out) = (REAL)(2 * (dim)) * (vi)-nb_;                                \
    } while (0)

// (A v)_i of the dim-D Poisson stencil
REAL stencil_row(int dim, ulong points, ulong i, global const REAL *v) {
#define PORTLA_V_(j) v[j]
    REAL out;
    PORTLA_STENCIL_ROW(out, dim, points, i, PORTLA_V_, v[i]);
#undef PORTLA_V_
    return out;
}

#endif

// (A v)_i of a CSR matrix with row offsets P and column indices C: csr_row (int, int),
// csr_row_l (long, int) and csr_row_ll (long, long), the forms of CsrIndex, each its own function
// (no test of the form in the row loop).
#define PORTLA_CSR_ROW(name, P, C)                                                          \
    REAL name(ulong i, global const P *ptrs, global const C *cols, global const REAL *vals, \
              global const REAL *v) {                                                       \
        REAL sum = 0;                                                                       \
        for (P k = ptrs[i]; k < ptrs[i + 1]; ++k) sum += v_mul(vals[k], v[cols[k]]);        \
        return sum;                                                                         \
    }
PORTLA_CSR_ROW(csr_row, int, int)
PORTLA_CSR_ROW(csr_row_l, long, int)
PORTLA_CSR_ROW(csr_row_ll, long, long)

// (A v)_i of an ELL matrix, column-major rows x width, padding column -1 (common/csr_pattern.hpp)
REAL ell_row(ulong i, ulong rows, ulong width, global const int *cols, global const REAL *vals,
             global const REAL *v) {
    REAL sum = 0;
    for (ulong k = 0; k < width; ++k) {
        const int c = cols[k * rows + i];
        if (c >= 0) sum += v_mul(vals[k * rows + i], v[c]);
    }
    return sum;
}

// GPUs: one work-group per row (rows beyond the groups in a loop), neighbouring work-items
// reading neighbouring entries of the row, then the group's sum. One row per work-item read a
// column of entries N apart at a time: 52 GB/s on the H100 at N = 4096 against cuda's 1.4 TB/s.
kernel void dense_apply(ulong rows, ulong cols, PORTLA_BUFFER(const REAL, values),
                        PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, y)) {
    global const REAL *a = PORTLA_AT(const REAL, values);
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    local ACC scratch[WG];
    for (ulong i = get_group_id(0); i < rows; i += get_num_groups(0)) {  // uniform in the group
        global const REAL *row = a + i * cols;
        ACC sum = 0;
        for (ulong j = get_local_id(0); j < cols; j += WG) sum += acc_of(v_mul(row[j], xp[j]));
        sum = group_sum(scratch, sum);
        if (get_local_id(0) == 0) yp[i] = real_of(sum);
    }
}

// CPUs: one row per work-item (a work-group per row paid PoCL's barriers per row: 2.7x slower
// on the 2-core VM at N = 4096), summed in 8 lanes (vload8): one running sum was a chain of
// dependent adds, about 4 cycles per element, far below the memory's rate.
kernel void dense_apply_rows(ulong rows, ulong cols, PORTLA_BUFFER(const REAL, values),
                             PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, y)) {
    global const REAL *a = PORTLA_AT(const REAL, values);
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    PORTLA_FOR_EACH(i, rows) {
        global const REAL *row = a + i * cols;
#ifdef PORTLA_COMPLEX  // complex products: no 8-lane form
        REAL sum = 0;
        for (ulong j = 0; j < cols; ++j) sum += v_mul(row[j], xp[j]);
#else
        REAL8 s8 = (REAL8)(0);
        ulong j = 0;
        for (; j + 8 <= cols; j += 8) s8 += vload8(0, row + j) * vload8(0, xp + j);
        REAL sum = PORTLA_SUM8(s8);
        for (; j < cols; ++j) sum += row[j] * xp[j];
#endif
        yp[i] = sum;
    }
}

// y = A x and d = diag(A) (the sum of the stored entries (i, i), 0 where there is none) of a CSR
// matrix with row offsets P and column indices C; the kernels'
// names end as their row function's (csr_apply, csr_apply_l, csr_apply_ll, csr_diagonal, ...).
#define PORTLA_CSR_KERNELS(suffix, P, C)                                                           \
    kernel void csr_apply##suffix(                                                                 \
        ulong rows, PORTLA_BUFFER(const P, row_ptrs), PORTLA_BUFFER(const C, col_idxs),            \
        PORTLA_BUFFER(const REAL, values), PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, y)) { \
        global const P *ptrs = PORTLA_AT(const P, row_ptrs);                                       \
        global const C *cols = PORTLA_AT(const C, col_idxs);                                       \
        global const REAL *vals = PORTLA_AT(const REAL, values);                                   \
        global const REAL *xp = PORTLA_AT(const REAL, x);                                          \
        global REAL *yp = PORTLA_AT(REAL, y);                                                      \
        PORTLA_FOR_EACH(i, rows) yp[i] = csr_row##suffix(i, ptrs, cols, vals, xp);                 \
    }                                                                                              \
    kernel void csr_diagonal##suffix(ulong rows, PORTLA_BUFFER(const P, row_ptrs),                 \
                                     PORTLA_BUFFER(const C, col_idxs),                             \
                                     PORTLA_BUFFER(const REAL, values), PORTLA_BUFFER(REAL, d)) {  \
        global const P *ptrs = PORTLA_AT(const P, row_ptrs);                                       \
        global const C *cols = PORTLA_AT(const C, col_idxs);                                       \
        global const REAL *vals = PORTLA_AT(const REAL, values);                                   \
        global REAL *dp = PORTLA_AT(REAL, d);                                                      \
        PORTLA_FOR_EACH(i, rows) {                                                                 \
            REAL sum = 0;                                                                          \
            for (P k = ptrs[i]; k < ptrs[i + 1]; ++k)                                              \
                if ((ulong)cols[k] == i) sum += vals[k];                                           \
            dp[i] = sum;                                                                           \
        }                                                                                          \
    }
PORTLA_CSR_KERNELS(, int, int)
PORTLA_CSR_KERNELS(_l, long, int)
PORTLA_CSR_KERNELS(_ll, long, long)

// column-major rows x width, padding column -1
kernel void ell_apply(ulong rows, ulong width, PORTLA_BUFFER(const int, col_idxs),
                      PORTLA_BUFFER(const REAL, values), PORTLA_BUFFER(const REAL, x),
                      PORTLA_BUFFER(REAL, y)) {
    global const int *cols = PORTLA_AT(const int, col_idxs);
    global const REAL *vals = PORTLA_AT(const REAL, values);
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    PORTLA_FOR_EACH(i, rows) yp[i] = ell_row(i, rows, width, cols, vals, xp);
}

#ifndef PORTLA_COMPLEX

kernel void stencil_apply(int dim, ulong points, ulong n, PORTLA_BUFFER(const REAL, x),
                          PORTLA_BUFFER(REAL, y)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    PORTLA_FOR_EACH(i, n) yp[i] = stencil_row(dim, points, i, xp);
}

// Row i of a slab (common/stencil_row.hpp: slab_stencil_row); below / above are read only when
// has_below / has_above
REAL slab_row(int dim, ulong nx, ulong ny, ulong planes, ulong i, global const REAL *bp,
              int has_below, global const REAL *ap, int has_above, global const REAL *xp) {
    const ulong plane = nx * ny;
    const ulong k = i / plane;
    const ulong in_plane = i - k * plane;
    REAL neighbours = 0;
    if (nx > 1) {
        const ulong ix = in_plane % nx;
        if (ix > 0) neighbours += xp[i - 1];
        if (ix + 1 < nx) neighbours += xp[i + 1];
    }
    if (ny > 1) {
        const ulong iy = in_plane / nx;
        if (iy > 0) neighbours += xp[i - nx];
        if (iy + 1 < ny) neighbours += xp[i + nx];
    }
    if (k > 0)
        neighbours += xp[i - plane];
    else if (has_below)
        neighbours += bp[in_plane];
    if (k + 1 < planes)
        neighbours += xp[i + plane];
    else if (has_above)
        neighbours += ap[in_plane];
    return (REAL)(2 * dim) * xp[i] - neighbours;
}

#define PORTLA_SLAB_ARGS                                                                   \
    int dim, ulong nx, ulong ny, ulong planes, ulong first, ulong last,                    \
        PORTLA_BUFFER(const REAL, below), int has_below, PORTLA_BUFFER(const REAL, above), \
        int has_above, PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, y)
#define PORTLA_SLAB_ROW(i)                                                    \
    slab_row(dim, nx, ny, planes, i, PORTLA_AT(const REAL, below), has_below, \
             PORTLA_AT(const REAL, above), has_above, PORTLA_AT(const REAL, x))

// rows [first, last) of a slab
kernel void slab_stencil_apply(PORTLA_SLAB_ARGS) {
    global REAL *yp = PORTLA_AT(REAL, y);
    for (ulong i = first + PORTLA_FIRST; i < last; i += PORTLA_STRIDE) yp[i] = PORTLA_SLAB_ROW(i);
}

// rows [first, last) of a slab and x . y over them (one-launch reduction), stored in dot[0] or
// added to it when add_dot
kernel void slab_stencil_apply_dot(PORTLA_SLAB_ARGS, PORTLA_ONE_LAUNCH, PORTLA_BUFFER(REAL, dot),
                                   int add_dot) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    local ACC scratch[WG];
    local uint last_one;
    ACC s = 0;
    for (ulong i = first + PORTLA_FIRST; i < last; i += PORTLA_STRIDE) {
        const REAL yi = PORTLA_SLAB_ROW(i);
        yp[i] = yi;
        s += (ACC)xp[i] * (ACC)yi;
    }
    const ACC g = group_sum(scratch, s);
    if (last_group(PORTLA_PARTIALS, g, PORTLA_COUNTER, &last_one)) {
        const ACC t = sum_of_partials(PORTLA_PARTIALS, scratch, PORTLA_COUNTER);
        global REAL *dp = PORTLA_AT(REAL, dot);
        if (get_local_id(0) == 0) dp[0] = add_dot ? dp[0] + (REAL)t : (REAL)t;
    }
}

#endif

kernel void gather(PORTLA_BUFFER(const int, idx), ulong n, PORTLA_BUFFER(const REAL, x),
                   PORTLA_BUFFER(REAL, out)) {
    global const int *ip = PORTLA_AT(const int, idx);
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *op = PORTLA_AT(REAL, out);
    PORTLA_FOR_EACH(i, n) op[i] = xp[ip[i]];
}

// flags[0] |= each row's csr_row_pattern (common/csr_pattern.hpp): 1 invalid, 2 no diagonal
kernel void csr_pattern_check(ulong rows, ulong cols, ulong entries,
                              PORTLA_BUFFER(const int, row_ptrs),
                              PORTLA_BUFFER(const int, col_idxs), PORTLA_BUFFER(uint, flags)) {
    global const int *ptrs = PORTLA_AT(const int, row_ptrs);
    global const int *ci = PORTLA_AT(const int, col_idxs);
    uint mine = 0;
    PORTLA_FOR_EACH(i, rows) {
        const long begin = ptrs[i], end = ptrs[i + 1];
        if ((i == 0 && begin != 0) || (i + 1 == rows && end != (long)entries) || begin < 0 ||
            end < begin || end > (long)entries) {
            mine |= 1;
            continue;
        }
        bool diagonal = false, bad = false;
        for (long k = begin; k < end && !bad; ++k) {
            const int c = ci[k];
            if (c < 0 || (ulong)c >= cols) bad = true;
            diagonal = diagonal || (ulong)c == i;
        }
        if (bad)
            mine |= 1;
        else if (!diagonal && i < cols)
            mine |= 2;
    }
    if (mine) atomic_or(PORTLA_AT(uint, flags), mine);
}
