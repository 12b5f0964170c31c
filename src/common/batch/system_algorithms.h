/* The batched solvers' algorithms for one system and one group of cooperating threads, in a
   subset of C that is valid OpenCL C 1.2, C++17 and CUDA: plain functions over pointers and
   scalars. The C++ backends include this text inside a class template (system_solvers.hpp's
   GroupAlgorithms: the functions become its static members, one instance per value type,
   group and preconditioner set); src/opencl/batch_kernels.cl builds it into its program after
   batch_constants.h and batch_group.cl. Each side defines, before this text:

   types    REAL (the value type), ACC (the accumulator: double), Vec (a vector that is
            written; the C++ T*, OpenCL's placement-aware Vec), CVec (a vector only read),
            Matrix (n, width, row_ptrs, col_idxs, values: one system), Options (relative,
            tolerance, max_iters, restart, block_size), Ilu (IluPattern), Work (the slots)
   helpers  ld(v, i), st(v, i, a), offset_vec(v, k), work_vec(w, k), work_precond(w),
            work_scalars(w)
   views    Own, the view of a vector of which each member only ever meets its own rows
            (memory, or for PORTLA_ROWS > 0 rows per member an array of registers): own_vec(p)
            (the view of memory p, or registers), mem_of(v) (its memory, null for
            registers), own_ld(v, k) and own_st(v, k, a) at Row k, row_i(k) (k's row);
            PORTLA_FOR_ROWS(n, k) { ... } PORTLA_END_ROWS; runs the block for each Row k of
            this member (fully unrolled for PORTLA_ROWS > 0, so that registers stay
            registers), PORTLA_ROW_LOCAL(o) (the preconditioner acts row by row: none or
            Jacobi)
   macros   PORTLA_FN (a function's qualifiers), PORTLA_GROUP (the group parameter) and
            PORTLA_G (its argument), PORTLA_RANK, PORTLA_SIZE, PORTLA_SYNC() (the group
            barrier, ordering local and global memory), PORTLA_SUM(v) (the group's sum of v,
            the same total for every member, ordering memory as PORTLA_SYNC does),
            PORTLA_SUM2(a, b) (two such sums in one pass, in place), PORTLA_ABS(v),
            PORTLA_FORMAT(A) and PORTLA_IS_PRECOND(o, p) (batch_constants.h's codes: fixed
            when the OpenCL program is built, run-time values in C++), and the schedule of the
            ILU(0) sweeps: PORTLA_ILU_FIRST(first, last) and PORTLA_ILU_STEP (the rows of a
            level this member takes), PORTLA_ILU_LEVEL_SYNC() (after each level) and
            PORTLA_ILU_SWEEP_SYNC() (after the whole factorisation).

   Loops over rows are strided by the group (row i on member i mod size); every member takes
   part in every sum and barrier, so control flow stays uniform across the group (every
   branch below depends on reduced, hence group-uniform, values). */

/* false for NaN and +-Inf */
#define PORTLA_FINITE(v) ((v) == (v) && (v) - (v) == 0)

/* The row loop of one system: `body` sees c (the column) and v (the value) of each stored
   entry of row i (ell padding skipped). */
#define PORTLA_FOR_ROW(A, i, body)                                               \
    do {                                                                         \
        if (PORTLA_FORMAT(A) == PORTLA_FORMAT_CSR) {                             \
            for (int k_ = (A)->row_ptrs[i]; k_ < (A)->row_ptrs[(i) + 1]; ++k_) { \
                const int c = (A)->col_idxs[k_];                                 \
                const REAL v = ld((A)->values, k_);                              \
                body;                                                            \
            }                                                                    \
        } else if (PORTLA_FORMAT(A) == PORTLA_FORMAT_ELL) {                      \
            for (int k_ = 0; k_ < (A)->width; ++k_) {                            \
                const int c = (A)->col_idxs[k_ * (A)->n + (i)];                  \
                if (c >= 0) {                                                    \
                    const REAL v = ld((A)->values, k_ * (A)->n + (i));           \
                    body;                                                        \
                }                                                                \
            }                                                                    \
        } else {                                                                 \
            const CVec row_ = offset_vec((A)->values, (long long)(i) * (A)->n);  \
            for (int c = 0; c < (A)->n; ++c) {                                   \
                const REAL v = ld(row_, c);                                      \
                body;                                                            \
            }                                                                    \
        }                                                                        \
    } while (0)

/* (A x)_i accumulated in REAL */
PORTLA_FN REAL row_dot(const Matrix *A, int i, CVec x) {
    REAL s = 0;
    PORTLA_FOR_ROW(A, i, s += v * ld(x, c));
    return s;
}
/* (A x)_i accumulated in ACC */
PORTLA_FN ACC row_dot_acc(const Matrix *A, int i, CVec x) {
    ACC s = 0;
    PORTLA_FOR_ROW(A, i, s += (ACC)v * (ACC)ld(x, c));
    return s;
}

/* ---- group-wide vector operations ----------------------------------------------------- */

PORTLA_FN ACC group_dot(PORTLA_GROUP, int n, CVec x, CVec y) {
    ACC s = 0;
    for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) s += (ACC)ld(x, i) * (ACC)ld(y, i);
    return PORTLA_SUM(s);
}
PORTLA_FN ACC group_norm2(PORTLA_GROUP, int n, CVec x) {
    return sqrt(group_dot(PORTLA_G, n, x, x));
}
/* y = A x (no barrier after: the caller syncs, usually through the next sum) */
PORTLA_FN void spmv(PORTLA_GROUP, const Matrix *A, CVec x, Vec y) {
    for (int i = PORTLA_RANK; i < A->n; i += PORTLA_SIZE) st(y, i, row_dot(A, i, x));
}
/* r = b - A x (r a view), returns ||r||; with bnorm, ||b|| into *bnorm (one pass, one
   reduction) */
PORTLA_FN ACC residual(PORTLA_GROUP, const Matrix *A, CVec b, CVec x, Own *r, ACC *bnorm) {
    ACC s = 0, sb = 0;
    PORTLA_FOR_ROWS(A->n, k) {
        const REAL ri = ld(b, row_i(k)) - row_dot(A, row_i(k), x);
        own_st(*r, k, ri);
        s += (ACC)ri * (ACC)ri;
        if (bnorm) sb += (ACC)ld(b, row_i(k)) * (ACC)ld(b, row_i(k));
    }
    PORTLA_END_ROWS;
    if (bnorm) {
        PORTLA_SUM2(s, sb);
        *bnorm = sqrt(sb);
        return sqrt(s);
    }
    return sqrt(PORTLA_SUM(s));
}
/* Memory holding the view x for a SpMV to gather: x's own, or registers copied into
   `into` (then a barrier) */
PORTLA_FN CVec gatherable(PORTLA_GROUP, int n, Own *x, Vec into) {
    if (PORTLA_ROWS == 0) return mem_of(*x);
    PORTLA_FOR_ROWS(n, k) { st(into, row_i(k), own_ld(*x, k)); }
    PORTLA_END_ROWS;
    PORTLA_SYNC();
    return into;
}
PORTLA_FN void copy(PORTLA_GROUP, int n, CVec x, Vec y) {
    for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) st(y, i, ld(x, i));
}
PORTLA_FN void fill(PORTLA_GROUP, int n, Vec y, REAL a) {
    for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) st(y, i, a);
}
/* ||b - A x|| into *res and ||b|| into *bnorm (member 0 writes them), row_dot in ACC */
PORTLA_FN void residual_norm(PORTLA_GROUP, const Matrix *A, CVec b, CVec x, ACC *res, ACC *bnorm) {
    ACC s = 0, sb = 0;
    for (int i = PORTLA_RANK; i < A->n; i += PORTLA_SIZE) {
        const ACC ri = (ACC)ld(b, i) - row_dot_acc(A, i, x);
        s += ri * ri;
        sb += (ACC)ld(b, i) * (ACC)ld(b, i);
    }
    PORTLA_SUM2(s, sb);
    if (PORTLA_RANK == 0) {
        *res = sqrt(s);
        *bnorm = sqrt(sb);
    }
}

/* The stopping threshold ||r|| <= tau of this system. */
PORTLA_FN ACC threshold(const Options *o, ACC bnorm) {
    return o->relative ? o->tolerance * bnorm : o->tolerance;
}

/* The start of CG and BiCGSTAB: r = b - A x (x in memory; r a view) and the threshold into
   *tau; returns the stop reason when the solve ends there (a non-finite norm, or converged),
   else -1. */
PORTLA_FN int first_residual(PORTLA_GROUP, const Matrix *A, CVec b, const Options *o, CVec x,
                             Own *r, ACC *tau) {
    ACC bnorm = 0;
    const ACC rnorm = residual(PORTLA_G, A, b, x, r, &bnorm);
    *tau = threshold(o, bnorm);
    if (!PORTLA_FINITE(rnorm) || !PORTLA_FINITE(*tau)) return PORTLA_STOP_NON_FINITE;
    if (rnorm <= *tau) return PORTLA_STOP_CONVERGED;
    return -1;
}

/* ---- preconditioners ------------------------------------------------------------------- */

/* Gauss-Jordan with partial pivoting of the bs x bs block at a, in place; false when it is
   singular (a is then left half done). */
PORTLA_FN bool invert_block(Vec a, int bs) {
    int piv[PORTLA_MAX_BLOCK_SIZE];
    for (int k = 0; k < bs; ++k) {
        int p = k;
        for (int r = k + 1; r < bs; ++r)
            if (PORTLA_ABS(ld(a, r * bs + k)) > PORTLA_ABS(ld(a, p * bs + k))) p = r;
        piv[k] = p;
        const REAL pivot = ld(a, p * bs + k);
        if (pivot == 0 || !PORTLA_FINITE(pivot)) return false;
        if (p != k)
            for (int c = 0; c < bs; ++c) {
                const REAL t = ld(a, k * bs + c);
                st(a, k * bs + c, ld(a, p * bs + c));
                st(a, p * bs + c, t);
            }
        const REAL inv = (REAL)1 / ld(a, k * bs + k);
        st(a, k * bs + k, (REAL)1);
        for (int c = 0; c < bs; ++c) st(a, k * bs + c, ld(a, k * bs + c) * inv);
        for (int r = 0; r < bs; ++r) {
            if (r == k) continue;
            const REAL f = ld(a, r * bs + k);
            st(a, r * bs + k, (REAL)0);
            for (int c = 0; c < bs; ++c)
                st(a, r * bs + c, ld(a, r * bs + c) - f * ld(a, k * bs + c));
        }
    }
    for (int k = bs - 1; k >= 0; --k) /* undo the row swaps as column swaps */
        if (piv[k] != k)
            for (int r = 0; r < bs; ++r) {
                const REAL t = ld(a, r * bs + k);
                st(a, r * bs + k, ld(a, r * bs + piv[k]));
                st(a, r * bs + piv[k], t);
            }
    return true;
}

/* Row i of the ILU(0) factorisation in P (this system's values in the csr pattern): L (unit
   diagonal, not stored) and U in place, IKJ form; the rows it reads are factored already. */
PORTLA_FN void ilu_factor_row(const Matrix *A, const Ilu *ilu, Vec P, int i) {
    const int end_i = A->row_ptrs[i + 1];
    for (int kk = A->row_ptrs[i]; kk < ilu->diag[i]; ++kk) {
        const int k = A->col_idxs[kk];
        const REAL pivot = ld(P, ilu->diag[k]);
        if (pivot == 0) break; /* flagged by the caller: U_kk = 0 */
        const REAL lik = ld(P, kk) / pivot;
        st(P, kk, lik);
        /* row i -= l_ik * (row k of U), on the entries both rows hold */
        int a = kk + 1, b = ilu->diag[k] + 1;
        const int end_k = A->row_ptrs[k + 1];
        while (a < end_i && b < end_k) {
            const int ca = A->col_idxs[a], cb = A->col_idxs[b];
            if (ca == cb) {
                st(P, a, ld(P, a) - lik * ld(P, b));
                ++a;
                ++b;
            } else if (ca < cb) {
                ++a;
            } else {
                ++b;
            }
        }
    }
}

/* Set-up for this system; returns false (for the whole group) when it is singular. */
PORTLA_FN bool precond_setup(PORTLA_GROUP, const Matrix *A, const Options *o, const Ilu *ilu,
                             Vec P) {
    const int n = A->n;
    ACC bad = 0;
    if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_JACOBI)) {
        for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) {
            REAL d = 0;
            PORTLA_FOR_ROW(A, i, if (c == i) d += v);
            if (d == 0 || !PORTLA_FINITE(d)) bad += 1;
            st(P, i, d == 0 ? (REAL)0 : (REAL)1 / d);
        }
    } else if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_BLOCK_JACOBI)) {
        /* Diagonal blocks of bs rows (the last one may be smaller, padded with the identity),
           each inverted in place, one block per member. */
        const int bs = o->block_size;
        const int blocks = (n + bs - 1) / bs;
        for (int blk = PORTLA_RANK; blk < blocks; blk += PORTLA_SIZE) {
            const Vec a = offset_vec(P, (long long)blk * bs * bs);
            const int start = blk * bs;
            for (int k = 0; k < bs * bs; ++k) st(a, k, (REAL)0);
            for (int r = 0; r < bs; ++r) {
                const int i = start + r;
                if (i >= n) {
                    st(a, r * bs + r, (REAL)1);
                    continue;
                }
                PORTLA_FOR_ROW(A, i,
                               if (c >= start && c < start + bs)
                                   st(a, r * bs + (c - start), ld(a, r * bs + (c - start)) + v));
            }
            if (!invert_block(a, bs)) bad += 1;
        }
    } else if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_ILU0)) {
        /* the rows in level order: those of one level depend only on earlier levels */
        copy(PORTLA_G, A->row_ptrs[n], A->values, P);
        PORTLA_SYNC();
        for (int lvl = 0; lvl < ilu->lower_levels; ++lvl) {
            const int first = ilu->lower_level_ptrs[lvl], last = ilu->lower_level_ptrs[lvl + 1];
            for (int t = PORTLA_ILU_FIRST(first, last); t < last; t += PORTLA_ILU_STEP)
                ilu_factor_row(A, ilu, P, ilu->lower_rows[t]);
            PORTLA_ILU_LEVEL_SYNC();
        }
        PORTLA_ILU_SWEEP_SYNC();
        for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) {
            const REAL u = ld(P, ilu->diag[i]);
            if (u == 0 || !PORTLA_FINITE(u)) bad += 1;
        }
    }
    return PORTLA_SUM(bad) == 0;
}

/* z = M^-1 r (z != r; no barrier after) */
PORTLA_FN void precond_apply(PORTLA_GROUP, const Matrix *A, const Options *o, const Ilu *ilu,
                             CVec P, CVec r, Vec z) {
    const int n = A->n;
    if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_JACOBI)) {
        for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) st(z, i, ld(P, i) * ld(r, i));
    } else if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_BLOCK_JACOBI)) {
        const int bs = o->block_size;
        for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) {
            const int blk = i / bs, start = blk * bs, rr = i - start;
            const CVec a = offset_vec(P, (long long)blk * bs * bs + rr * bs);
            REAL s = 0;
            for (int c = 0; c < bs && start + c < n; ++c) s += ld(a, c) * ld(r, start + c);
            st(z, i, s);
        }
    } else if (PORTLA_IS_PRECOND(o, PORTLA_PRECOND_ILU0)) {
        /* L y = r (unit lower), then U z = y in place, level by level */
        for (int lvl = 0; lvl < ilu->lower_levels; ++lvl) {
            const int first = ilu->lower_level_ptrs[lvl], last = ilu->lower_level_ptrs[lvl + 1];
            for (int t = PORTLA_ILU_FIRST(first, last); t < last; t += PORTLA_ILU_STEP) {
                const int i = ilu->lower_rows[t];
                REAL s = ld(r, i);
                for (int k = A->row_ptrs[i]; k < ilu->diag[i]; ++k)
                    s -= ld(P, k) * ld(z, A->col_idxs[k]);
                st(z, i, s);
            }
            PORTLA_ILU_LEVEL_SYNC();
        }
        for (int lvl = 0; lvl < ilu->upper_levels; ++lvl) {
            const int first = ilu->upper_level_ptrs[lvl], last = ilu->upper_level_ptrs[lvl + 1];
            for (int t = PORTLA_ILU_FIRST(first, last); t < last; t += PORTLA_ILU_STEP) {
                const int i = ilu->upper_rows[t];
                REAL s = ld(z, i);
                for (int k = ilu->diag[i] + 1; k < A->row_ptrs[i + 1]; ++k)
                    s -= ld(P, k) * ld(z, A->col_idxs[k]);
                st(z, i, s / ld(P, ilu->diag[i]));
            }
            PORTLA_ILU_LEVEL_SYNC();
        }
    }
}

/* ---- CG -------------------------------------------------------------------------------- */

/* z from r, returns r.z: in the rows with a row-local preconditioner (a view of registers
   gets a copy of r without one), else through precond_apply (r and z in memory then). */
PORTLA_FN ACC cg_precondition(PORTLA_GROUP, const Matrix *A, const Options *o, const Ilu *ilu,
                              CVec P, Own *r, Own *z) {
    const bool jacobi = PORTLA_IS_PRECOND(o, PORTLA_PRECOND_JACOBI);
    const bool fused = PORTLA_ROW_LOCAL(o);
    if (!fused) {
        precond_apply(PORTLA_G, A, o, ilu, P, mem_of(*r), mem_of(*z));
        PORTLA_SYNC();
    }
    ACC rz = 0;
    PORTLA_FOR_ROWS(A->n, k) {
        if (jacobi && fused)
            own_st(*z, k, ld(P, row_i(k)) * own_ld(*r, k));
        else if (PORTLA_ROWS > 0)
            own_st(*z, k, own_ld(*r, k));
        rz += (ACC)own_ld(*r, k) * (ACC)own_ld(*z, k);
    }
    PORTLA_END_ROWS;
    return PORTLA_SUM(rz);
}

/* Preconditioned CG. x: the view of the iterate, holding the initial guess (or zero) on
   entry, also in memory at its slot (the first residual gathers it from there). Per
   iteration two reductions: p.q (fused into the SpMV), and r.r with r.z (one pass; with no or
   a Jacobi preconditioner z is formed in the update of r). Each member forms the rows it owns
   in every loop, so a loop that reads only its own rows needs no barrier before it. Only p
   is gathered (by the SpMV): r, z, q and x are owner-only views (registers for
   PORTLA_ROWS > 0, which needs a row-local preconditioner). Returns the stop reason, the
   iterations in *iterations. */
PORTLA_FN int cg(PORTLA_GROUP, const Matrix *A, CVec b, const Options *o, const Ilu *ilu,
                 const Work *w, Own *x, int *iterations) {
    const int n = A->n;
    const Vec p = work_vec(w, PORTLA_SLOT_P);
    Own r = own_vec(work_vec(w, PORTLA_SLOT_R)), q = own_vec(work_vec(w, PORTLA_SLOT_Q));
    const bool pre = !PORTLA_IS_PRECOND(o, PORTLA_PRECOND_NONE);
    const bool jacobi = PORTLA_IS_PRECOND(o, PORTLA_PRECOND_JACOBI);
    const bool fused = PORTLA_ROW_LOCAL(o);
    /* z = M^-1 r; without a preconditioner r itself (memory) or a copy of it (registers) */
    Own z = own_vec(pre ? work_vec(w, PORTLA_SLOT_Z) : mem_of(r));
    const CVec P = work_precond(w);
    *iterations = 0;
    ACC tau = 0;
    const int stop = first_residual(PORTLA_G, A, b, o, work_vec(w, PORTLA_SLOT_X), &r, &tau);
    if (stop >= 0) return stop;
    ACC rho = cg_precondition(PORTLA_G, A, o, ilu, P, &r, &z);
    PORTLA_FOR_ROWS(n, k) { st(p, row_i(k), own_ld(z, k)); }
    PORTLA_END_ROWS;
    PORTLA_SYNC();
    int false_convergence = 0;
    while (*iterations < o->max_iters) {
        ACC pq = 0; /* q = A p and p.q in one pass */
        PORTLA_FOR_ROWS(n, k) {
            const REAL qi = row_dot(A, row_i(k), p);
            own_st(q, k, qi);
            pq += (ACC)ld(p, row_i(k)) * (ACC)qi;
        }
        PORTLA_END_ROWS;
        pq = PORTLA_SUM(pq);
        if (!PORTLA_FINITE(pq)) return PORTLA_STOP_NON_FINITE;
        if (pq <= 0 || rho == 0) return PORTLA_STOP_BREAKDOWN;
        const REAL alpha = (REAL)(rho / pq);
        ACC rr = 0, rz = 0;
        PORTLA_FOR_ROWS(n, k) {
            own_st(*x, k, own_ld(*x, k) + alpha * ld(p, row_i(k)));
            own_st(r, k, own_ld(r, k) - alpha * own_ld(q, k));
            rr += (ACC)own_ld(r, k) * (ACC)own_ld(r, k);
            if (jacobi) {
                own_st(z, k, ld(P, row_i(k)) * own_ld(r, k));
                rz += (ACC)own_ld(r, k) * (ACC)own_ld(z, k);
            } else if (PORTLA_ROWS > 0) {
                own_st(z, k, own_ld(r, k));
            }
        }
        PORTLA_END_ROWS;
        ++*iterations;
        if (jacobi)
            PORTLA_SUM2(rr, rz);
        else
            rr = PORTLA_SUM(rr);
        const ACC rnorm = sqrt(rr);
        if (!PORTLA_FINITE(rnorm)) return PORTLA_STOP_NON_FINITE;
        bool restart = false;
        if (rnorm <= tau) { /* confirm with the true residual (q is free until the next spmv;
                               x in registers goes through p, which a restart rebuilds from z) */
            const ACC true_norm =
                residual(PORTLA_G, A, b, gatherable(PORTLA_G, n, x, p), &q, (ACC *)0);
            if (true_norm <= tau) return PORTLA_STOP_CONVERGED;
            if (++false_convergence > PORTLA_MAX_FALSE_CONVERGENCE) return PORTLA_STOP_STAGNATION;
            PORTLA_FOR_ROWS(n, k) { own_st(r, k, own_ld(q, k)); }
            PORTLA_END_ROWS;
            restart = true;
            PORTLA_SYNC();
        }
        ACC rho_new = 0;
        if (fused && !restart)
            rho_new = jacobi ? rz : rr;
        else
            rho_new = cg_precondition(PORTLA_G, A, o, ilu, P, &r, &z);
        const REAL beta = restart ? (REAL)0 : (REAL)(rho_new / rho);
        rho = rho_new;
        PORTLA_FOR_ROWS(n, k) { st(p, row_i(k), own_ld(z, k) + beta * ld(p, row_i(k))); }
        PORTLA_END_ROWS;
        PORTLA_SYNC();
    }
    return PORTLA_STOP_MAX_ITERATIONS;
}

/* ---- BiCGSTAB --------------------------------------------------------------------------- */

/* The (re)start of BiCGSTAB's recurrences from r: r-hat = r, p = v = 0; returns rho = r-hat.r
   (its sum orders the group's memory as a barrier does). */
PORTLA_FN ACC bicgstab_restart(PORTLA_GROUP, int n, Own *r, Own *rhat, Own *p, Own *v) {
    ACC rho = 0;
    PORTLA_FOR_ROWS(n, k) {
        own_st(*rhat, k, own_ld(*r, k));
        own_st(*p, k, (REAL)0);
        own_st(*v, k, (REAL)0);
        rho += (ACC)own_ld(*rhat, k) * (ACC)own_ld(*r, k);
    }
    PORTLA_END_ROWS;
    return PORTLA_SUM(rho);
}

/* Preconditioned BiCGSTAB (van der Vorst). x: the view of the iterate, as for cg. Per
   iteration four reductions: rhat.v (fused into the first SpMV), s.s, t.s with t.t (fused into
   the second SpMV), r.r with the next rhat.r. A Jacobi preconditioner is applied inside the
   updates of p and s. Only p-hat and s-hat are gathered (by the SpMVs): r (which s
   overwrites), r-hat, p, v, t and x are owner-only views. Without a preconditioner p-hat and
   s-hat are p and r themselves when those are in memory, else copies of them. Every pass takes
   the same sums and barriers up to the test of ||r||: after a claim on ||s|| the second half
   (t = A M^-1 s, omega) does no work, its sums taken all the same. A claim on ||s|| or ||r|| is
   then confirmed at one place, by the true residual, or the recurrences restart from it.
   Returns the stop reason, the iterations in *iterations. */
PORTLA_FN int bicgstab(PORTLA_GROUP, const Matrix *A, CVec b, const Options *o, const Ilu *ilu,
                       const Work *w, Own *x, int *iterations) {
    const int n = A->n;
    Own r = own_vec(work_vec(w, PORTLA_SLOT_BI_R)),
        rhat = own_vec(work_vec(w, PORTLA_SLOT_BI_RHAT)),
        p = own_vec(work_vec(w, PORTLA_SLOT_BI_P)), v = own_vec(work_vec(w, PORTLA_SLOT_BI_V)),
        t = own_vec(work_vec(w, PORTLA_SLOT_BI_T));
    const bool pre = !PORTLA_IS_PRECOND(o, PORTLA_PRECOND_NONE);
    const bool jacobi = PORTLA_IS_PRECOND(o, PORTLA_PRECOND_JACOBI);
    const bool fused = PORTLA_ROW_LOCAL(o);
    const Vec phat = pre || PORTLA_ROWS > 0 ? work_vec(w, PORTLA_SLOT_BI_PHAT) : mem_of(p);
    const Vec shat = pre || PORTLA_ROWS > 0 ? work_vec(w, PORTLA_SLOT_BI_SHAT) : mem_of(r);
    const CVec P = work_precond(w);
    *iterations = 0;
    ACC tau = 0;
    const int stop = first_residual(PORTLA_G, A, b, o, work_vec(w, PORTLA_SLOT_BI_X), &r, &tau);
    if (stop >= 0) return stop;
    int false_convergence = 0;
    ACC rho = bicgstab_restart(PORTLA_G, n, &r, &rhat, &p, &v);
    ACC rho_old = 1, alpha = 1, omega = 1;
    while (*iterations < o->max_iters) {
        if (!PORTLA_FINITE(rho)) return PORTLA_STOP_NON_FINITE;
        if (rho == 0) return PORTLA_STOP_BREAKDOWN;
        const REAL beta = (REAL)((rho / rho_old) * (alpha / omega));
        PORTLA_FOR_ROWS(n, k) {
            own_st(p, k, own_ld(r, k) + beta * (own_ld(p, k) - (REAL)omega * own_ld(v, k)));
            if (jacobi)
                st(phat, row_i(k), ld(P, row_i(k)) * own_ld(p, k));
            else if (PORTLA_ROWS > 0)
                st(phat, row_i(k), own_ld(p, k));
        }
        PORTLA_END_ROWS;
        PORTLA_SYNC();
        if (!fused) {
            precond_apply(PORTLA_G, A, o, ilu, P, mem_of(p), phat);
            PORTLA_SYNC();
        }
        ACC rv = 0; /* v = A phat and rhat.v in one pass */
        PORTLA_FOR_ROWS(n, k) {
            const REAL vi = row_dot(A, row_i(k), phat);
            own_st(v, k, vi);
            rv += (ACC)own_ld(rhat, k) * (ACC)vi;
        }
        PORTLA_END_ROWS;
        rv = PORTLA_SUM(rv);
        if (!PORTLA_FINITE(rv)) return PORTLA_STOP_NON_FINITE;
        if (rv == 0) return PORTLA_STOP_BREAKDOWN;
        alpha = rho / rv;
        ACC s2 = 0;
        PORTLA_FOR_ROWS(n, k) {
            own_st(r, k, own_ld(r, k) - (REAL)alpha * own_ld(v, k)); /* r now holds s */
            own_st(*x, k, own_ld(*x, k) + (REAL)alpha * ld(phat, row_i(k)));
            s2 += (ACC)own_ld(r, k) * (ACC)own_ld(r, k);
            if (jacobi)
                st(shat, row_i(k), ld(P, row_i(k)) * own_ld(r, k));
            else if (PORTLA_ROWS > 0)
                st(shat, row_i(k), own_ld(r, k));
        }
        PORTLA_END_ROWS;
        ++*iterations;
        const ACC snorm = sqrt(PORTLA_SUM(s2)); /* the sum orders shat for the SpMV */
        if (!PORTLA_FINITE(snorm)) return PORTLA_STOP_NON_FINITE;
        const bool second = snorm > tau; /* the second half counts (no claim on ||s||) */
        if (!fused) {
            if (second) precond_apply(PORTLA_G, A, o, ilu, P, mem_of(r), shat);
            PORTLA_SYNC();
        }
        ACC ts = 0, tt = 0; /* t = A shat, t.s and t.t in one pass */
        if (second) {
            PORTLA_FOR_ROWS(n, k) {
                const REAL ti = row_dot(A, row_i(k), shat);
                own_st(t, k, ti);
                ts += (ACC)ti * (ACC)own_ld(r, k);
                tt += (ACC)ti * (ACC)ti;
            }
            PORTLA_END_ROWS;
        }
        PORTLA_SUM2(ts, tt);
        ACC r2 = 0, rho_next = 0;
        if (second) {
            if (!PORTLA_FINITE(ts) || !PORTLA_FINITE(tt)) return PORTLA_STOP_NON_FINITE;
            if (tt == 0) return PORTLA_STOP_BREAKDOWN;
            omega = ts / tt;
            PORTLA_FOR_ROWS(n, k) {
                own_st(*x, k, own_ld(*x, k) + (REAL)omega * ld(shat, row_i(k)));
                own_st(r, k, own_ld(r, k) - (REAL)omega * own_ld(t, k));
                r2 += (ACC)own_ld(r, k) * (ACC)own_ld(r, k);
                rho_next += (ACC)own_ld(rhat, k) * (ACC)own_ld(r, k);
            }
            PORTLA_END_ROWS;
        }
        PORTLA_SUM2(r2, rho_next);
        const ACC rnorm = sqrt(r2);
        if (second && !PORTLA_FINITE(rnorm)) return PORTLA_STOP_NON_FINITE;
        if (!second || rnorm <= tau) {
            /* a claim: confirmed by the true residual, else a restart from it (into r, which
               neither claim needs any more; x in registers goes through p-hat, which the
               restart rebuilds) */
            const ACC true_norm =
                residual(PORTLA_G, A, b, gatherable(PORTLA_G, n, x, phat), &r, (ACC *)0);
            if (true_norm <= tau) return PORTLA_STOP_CONVERGED;
            if (++false_convergence > PORTLA_MAX_FALSE_CONVERGENCE) return PORTLA_STOP_STAGNATION;
            rho = bicgstab_restart(PORTLA_G, n, &r, &rhat, &p, &v);
            rho_old = alpha = omega = 1;
        } else {
            if (omega == 0) return PORTLA_STOP_BREAKDOWN;
            rho_old = rho;
            rho = rho_next;
        }
    }
    return PORTLA_STOP_MAX_ITERATIONS;
}

/* ---- GMRES ------------------------------------------------------------------------------ */

/* Restarted GMRES(m), right-preconditioned (its residual estimate is that of the
   unpreconditioned system), modified Gram-Schmidt, Givens rotations. x (its slot) holds the
   initial guess. The small dense arrays (work_scalars): H ((m + 1) x m, column j at
   j (m + 1)), cs, sn (m each), g (m + 1), y (m). Returns the stop reason, the iterations in
   *iterations. */
PORTLA_FN int gmres(PORTLA_GROUP, const Matrix *A, CVec b, const Options *o, const Ilu *ilu,
                    const Work *w, int *iterations) {
    const int n = A->n, m = o->restart;
    const Vec wv = work_vec(w, PORTLA_SLOT_GM_W), z = work_vec(w, PORTLA_SLOT_GM_Z),
              x = work_vec(w, PORTLA_SLOT_GM_X);
    const Vec P = work_precond(w);
    const Vec H = work_scalars(w);
    const Vec cs = offset_vec(H, (long long)(m + 1) * m), sn = offset_vec(cs, m),
              gv = offset_vec(sn, m), y = offset_vec(gv, m + 1);
    const bool pre = !PORTLA_IS_PRECOND(o, PORTLA_PRECOND_NONE);
    *iterations = 0;
    const ACC tau = threshold(o, group_norm2(PORTLA_G, n, b));
    if (!PORTLA_FINITE(tau)) return PORTLA_STOP_NON_FINITE;
    int false_convergence = 0;
    bool claimed = false; /* the last cycle's estimate met the test */
    for (;;) {
        /* the true residual: it confirms (or refutes) the last cycle's claim */
        const Vec v0 = work_vec(w, PORTLA_SLOT_GM_BASIS);
        Own v0_view = own_vec(v0);
        const ACC beta = residual(PORTLA_G, A, b, x, &v0_view, (ACC *)0);
        if (!PORTLA_FINITE(beta)) return PORTLA_STOP_NON_FINITE;
        if (beta <= tau) return PORTLA_STOP_CONVERGED;
        if (claimed && ++false_convergence > PORTLA_MAX_FALSE_CONVERGENCE)
            return PORTLA_STOP_STAGNATION;
        if (*iterations >= o->max_iters) return PORTLA_STOP_MAX_ITERATIONS;
        for (int i = PORTLA_RANK; i < n; i += PORTLA_SIZE) st(v0, i, (REAL)(ld(v0, i) / beta));
        if (PORTLA_RANK == 0) {
            st(gv, 0, (REAL)beta);
            for (int i = 1; i <= m; ++i) st(gv, i, (REAL)0);
        }
        PORTLA_SYNC();
        int k = 0; /* Krylov vectors of this cycle */
        ACC estimate = beta;
        while (k < m && *iterations < o->max_iters) {
            const Vec vk = work_vec(w, PORTLA_SLOT_GM_BASIS + k);
            if (pre) {
                precond_apply(PORTLA_G, A, o, ilu, P, vk, z);
                PORTLA_SYNC();
            }
            spmv(PORTLA_G, A, pre ? z : vk, wv);
            PORTLA_SYNC();
            const Vec h = offset_vec(H, (long long)k * (m + 1));
            for (int i = 0; i <= k; ++i) {
                const Vec vi = work_vec(w, PORTLA_SLOT_GM_BASIS + i);
                const ACC hik = group_dot(PORTLA_G, n, wv, vi);
                for (int l = PORTLA_RANK; l < n; l += PORTLA_SIZE)
                    st(wv, l, ld(wv, l) - (REAL)hik * ld(vi, l));
                if (PORTLA_RANK == 0) st(h, i, (REAL)hik);
                PORTLA_SYNC();
            }
            const ACC hnext = group_norm2(PORTLA_G, n, wv);
            if (!PORTLA_FINITE(hnext)) return PORTLA_STOP_NON_FINITE;
            const Vec vnext = work_vec(w, PORTLA_SLOT_GM_BASIS + k + 1);
            for (int l = PORTLA_RANK; l < n; l += PORTLA_SIZE)
                st(vnext, l, hnext > 0 ? (REAL)(ld(wv, l) / hnext) : (REAL)0);
            if (PORTLA_RANK == 0) {
                st(h, k + 1, (REAL)hnext);
                for (int i = 0; i < k; ++i) { /* earlier rotations on the new column */
                    const REAL a = ld(h, i), c = ld(h, i + 1);
                    st(h, i, ld(cs, i) * a + ld(sn, i) * c);
                    st(h, i + 1, -ld(sn, i) * a + ld(cs, i) * c);
                }
                const REAL a = ld(h, k), c = ld(h, k + 1);
                const REAL d = (REAL)sqrt((ACC)a * a + (ACC)c * c);
                st(cs, k, d == 0 ? (REAL)1 : a / d);
                st(sn, k, d == 0 ? (REAL)0 : c / d);
                st(h, k, d);
                st(h, k + 1, (REAL)0);
                st(gv, k + 1, -ld(sn, k) * ld(gv, k));
                st(gv, k, ld(cs, k) * ld(gv, k));
            }
            PORTLA_SYNC();
            ++k;
            ++*iterations;
            estimate = PORTLA_ABS((ACC)ld(gv, k));
            if (estimate <= tau || hnext == 0) break;
        }
        /* y = H(0:k, 0:k) \ g, then x += M^-1 (V y) */
        if (PORTLA_RANK == 0)
            for (int i = k - 1; i >= 0; --i) {
                REAL s = ld(gv, i);
                for (int j = i + 1; j < k; ++j) s -= ld(H, j * (m + 1) + i) * ld(y, j);
                const REAL hii = ld(H, i * (m + 1) + i);
                st(y, i, hii == 0 ? (REAL)0 : s / hii);
            }
        PORTLA_SYNC();
        for (int l = PORTLA_RANK; l < n; l += PORTLA_SIZE) {
            REAL s = 0;
            for (int j = 0; j < k; ++j)
                s += ld(y, j) * ld(work_vec(w, PORTLA_SLOT_GM_BASIS + j), l);
            st(wv, l, s);
        }
        PORTLA_SYNC();
        if (pre) {
            precond_apply(PORTLA_G, A, o, ilu, P, wv, z);
            PORTLA_SYNC();
        }
        const Vec dx = pre ? z : wv;
        for (int l = PORTLA_RANK; l < n; l += PORTLA_SIZE) st(x, l, ld(x, l) + ld(dx, l));
        PORTLA_SYNC();
        claimed = estimate <= tau;
    }
}
