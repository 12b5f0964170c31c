/* The sparse matrix-matrix product and the transpose, row by row, in a subset of C that is valid
   OpenCL C 1.2, C++17 and CUDA: plain functions over pointers and scalars, each the work of one
   row (one thread or work-item per row on a device, a loop over rows on a CPU). The C++
   backends include this text inside SparseRows<REAL> (common/sparse/rows.hpp);
   src/opencl/sparse_kernels.cl builds it into its program. Each side defines, before this text:

   REAL          the value type
   U64, I64      64-bit unsigned and signed integers
   PORTLA_FN     a function's qualifiers
   PORTLA_GLOBAL the address space of the arrays (OpenCL's global, nothing in C++)
   PORTLA_ABS(v) |v|
   PORTLA_ATOMIC_INC(p)  *p += 1 atomically (int), returning the old value

   Matrices are CSR with 32-bit row offsets and column indices (rp, ci, v). */

/* ---- C = A B (Gustavson's row-by-row product, one hash table per row) ------------------- */

/* The products row i of C sums: the entries of the rows k of B over the entries (i, k) of A, an
   upper bound of the entries of row i of C. */
PORTLA_FN I64 spgemm_row_bound(int i, PORTLA_GLOBAL const int *a_rp, PORTLA_GLOBAL const int *a_ci,
                               PORTLA_GLOBAL const int *b_rp) {
    I64 u = 0;
    for (int k = a_rp[i]; k < a_rp[i + 1]; ++k) u += b_rp[a_ci[k] + 1] - b_rp[a_ci[k]];
    return u;
}

/* The slots of the hash table of a row of `bound` products into a matrix of `cols` columns: 0
   for an empty row, else the smallest power of two above min(bound, cols) (the row's distinct
   columns are at most that many: the table always keeps an empty slot, so every probe sequence
   ends at its key or an empty slot). With `capped`, at most 4 times the power of two at or above
   sqrt(bound): the products of a row overlap (a row of A P or P^T (A P) reaches a few dozen
   columns through hundreds of products), so a table sized by the bound is mostly empty; a row
   whose columns do not fit the capped table is done again in a full one (the first pass says so
   by returning -1). */
PORTLA_FN I64 spgemm_table_slots(I64 bound, int cols, int capped) {
    const I64 distinct = bound < (I64)cols ? bound : (I64)cols;
    I64 t = 1, root = 1;
    if (distinct == 0) return 0;
    while (t <= distinct) t <<= 1;
    while (root * root < bound) root <<= 1;
    return capped && 4 * root < t ? 4 * root : t;
}

/* The first slot of column c in a table of t slots (t a power of two): Knuth's multiplicative
   hash, in 32-bit unsigned arithmetic on every side. */
PORTLA_FN I64 spgemm_slot(int c, I64 t) {
    return (I64)(((unsigned int)c * 2654435761u) & (unsigned int)(t - 1));
}

/* Row i of C = A B accumulated into its hash table, the t slots at keys + off and vals + off
   (keys: a column or -1 for an empty slot): the products in the order of A's row and then of
   B's rows, each added to its column's slot. Returns the row's distinct columns, or -1 when they
   do not fit (a table keeps one slot empty). */
PORTLA_FN int spgemm_row_accumulate(int i, PORTLA_GLOBAL const int *a_rp,
                                    PORTLA_GLOBAL const int *a_ci, PORTLA_GLOBAL const REAL *a_v,
                                    PORTLA_GLOBAL const int *b_rp, PORTLA_GLOBAL const int *b_ci,
                                    PORTLA_GLOBAL const REAL *b_v, PORTLA_GLOBAL int *keys,
                                    PORTLA_GLOBAL REAL *vals, I64 off, I64 t) {
    int count = 0;
    for (I64 s = 0; s < t; ++s) keys[off + s] = -1;
    for (int ka = a_rp[i]; ka < a_rp[i + 1]; ++ka) {
        const int k = a_ci[ka];
        const REAL a = a_v[ka];
        for (int kb = b_rp[k]; kb < b_rp[k + 1]; ++kb) {
            const int c = b_ci[kb];
            const REAL p = a * b_v[kb];
            I64 s = spgemm_slot(c, t);
            while (keys[off + s] != c && keys[off + s] != -1) s = (s + 1) & (t - 1);
            if (keys[off + s] == -1) {
                if (count + 1 >= t) return -1;
                keys[off + s] = c;
                vals[off + s] = p;
                ++count;
            } else {
                vals[off + s] += p;
            }
        }
    }
    return count;
}

/* ---- rows sorted by column -------------------------------------------------------------- */

/* Entries [first, first + m) of (ci, v) sorted by column (distinct columns): insertion sort for
   short rows, heap sort (in place, m log m) for long ones. */
PORTLA_FN void sift_down(PORTLA_GLOBAL int *ci, PORTLA_GLOBAL REAL *v, int first, int root, int m) {
    for (;;) {
        int child = 2 * root + 1;
        if (child >= m) return;
        if (child + 1 < m && ci[first + child + 1] > ci[first + child]) ++child;
        if (ci[first + root] >= ci[first + child]) return;
        const int c = ci[first + root];
        const REAL x = v[first + root];
        ci[first + root] = ci[first + child];
        v[first + root] = v[first + child];
        ci[first + child] = c;
        v[first + child] = x;
        root = child;
    }
}

PORTLA_FN void sort_entries(PORTLA_GLOBAL int *ci, PORTLA_GLOBAL REAL *v, int first, int m) {
    if (m <= 32) {
        for (int j = first + 1; j < first + m; ++j) {
            const int c = ci[j];
            const REAL x = v[j];
            int k = j;
            while (k > first && ci[k - 1] > c) {
                ci[k] = ci[k - 1];
                v[k] = v[k - 1];
                --k;
            }
            ci[k] = c;
            v[k] = x;
        }
        return;
    }
    for (int root = m / 2 - 1; root >= 0; --root) sift_down(ci, v, first, root, m);
    for (int end = m - 1; end > 0; --end) {
        const int c = ci[first];
        const REAL x = v[first];
        ci[first] = ci[first + end];
        v[first] = v[first + end];
        ci[first + end] = c;
        v[first + end] = x;
        sift_down(ci, v, first, 0, end);
    }
}

/* Row i of C from its hash table (spgemm_row_accumulate's; the t slots at off), sorted by column,
   at c_rp[i]. */
PORTLA_FN void spgemm_row_extract(int i, PORTLA_GLOBAL const int *keys,
                                  PORTLA_GLOBAL const REAL *vals, I64 off, I64 t,
                                  PORTLA_GLOBAL const int *c_rp, PORTLA_GLOBAL int *c_ci,
                                  PORTLA_GLOBAL REAL *c_v) {
    int m = c_rp[i];
    for (I64 s = 0; s < t; ++s) {
        if (keys[off + s] != -1) {
            c_ci[m] = keys[off + s];
            c_v[m] = vals[off + s];
            ++m;
        }
    }
    sort_entries(c_ci, c_v, c_rp[i], m - c_rp[i]);
}

/* ---- B = A^T ---------------------------------------------------------------------------- */

/* counts[c] += 1 for each entry (i, c) of row i of A. */
PORTLA_FN void transpose_row_count(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL int *counts) {
    for (int k = rp[i]; k < rp[i + 1]; ++k) PORTLA_ATOMIC_INC(&counts[ci[k]]);
}

/* Row i of A scattered into the rows of B = A^T (b_rp: B's row offsets, filled[c]: the entries
   of B's row c placed so far), in any order; sort_entries orders each row after. */
PORTLA_FN void transpose_row_scatter(int i, PORTLA_GLOBAL const int *rp,
                                     PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const REAL *v,
                                     PORTLA_GLOBAL const int *b_rp, PORTLA_GLOBAL int *filled,
                                     PORTLA_GLOBAL int *b_ci, PORTLA_GLOBAL REAL *b_v) {
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int c = ci[k];
        const int at = b_rp[c] + PORTLA_ATOMIC_INC(&filled[c]);
        b_ci[at] = i;
        b_v[at] = v[k];
    }
}
