// The sparse triangular solves (core/kernels/sptrsv_kernels.hpp) in OpenCL C: the rows of one
// level are independent; src/opencl/sptrsv_kernels.cpp says which kernel runs which levels.

// x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii (the reference's formula and order), every x_j it
// reads final. Lower: the diagonal is the last entry of the row; upper: the first.
void solve_row(int lower, int unit, global const int *rp, global const int *ci,
               global const REAL *v, global const REAL *b, global REAL *x, int i) {
    int begin = rp[i], end = rp[i + 1];
    REAL diag = from_sacc(1);
    if (!unit) diag = lower ? v[--end] : v[begin++];
    REAL sum = b[i];
    for (int k = begin; k < end; ++k) sum -= v_mul(v[k], x[ci[k]]);
    x[i] = unit ? sum : v_div(sum, diag);
}

#define PORTLA_SPTRSV_ARGS                                                                       \
    int lower, int unit, PORTLA_BUFFER(const int, row_ptrs), PORTLA_BUFFER(const int, col_idxs), \
        PORTLA_BUFFER(const REAL, values), PORTLA_BUFFER(const int, level_rows),                 \
        PORTLA_BUFFER(const REAL, b), PORTLA_BUFFER(REAL, x)
#define PORTLA_SPTRSV_ROW(k)                                                               \
    solve_row(lower, unit, PORTLA_AT(const int, row_ptrs), PORTLA_AT(const int, col_idxs), \
              PORTLA_AT(const REAL, values), PORTLA_AT(const REAL, b), PORTLA_AT(REAL, x), \
              PORTLA_AT(const int, level_rows)[k])

// One wide level: level_rows[begin, end), any number of work-groups.
kernel void sptrsv_level(ulong begin, ulong end, PORTLA_SPTRSV_ARGS) {
    PORTLA_FOR_EACH(k, end - begin) PORTLA_SPTRSV_ROW(begin + k);
}

// Levels [first, last) in order, by ONE work-group: a global-memory barrier between two levels
// makes the x_i of one visible to every work-item of the group before the next reads them.
kernel void sptrsv_levels(uint first, uint last, PORTLA_BUFFER(const int, level_ptrs),
                          PORTLA_SPTRSV_ARGS) {
    global const int *lp = PORTLA_AT(const int, level_ptrs);
    for (uint l = first; l < last; ++l) {
        for (int k = lp[l] + (int)get_local_id(0); k < lp[l + 1]; k += WG) PORTLA_SPTRSV_ROW(k);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}
