// The batched solvers (core/kernels/batch_kernels.hpp) in OpenCL C: src/common/batch/
// system_solvers.hpp ported statement for statement (same solvers, formats, preconditioners,
// stopping rules, rounding of each operation in REAL or ACC as there), one work-group per
// system, the work-groups looping over the systems. ACC is double: batch_kernels.cpp refuses a
// device without cl_khr_fp64, as the C++ accumulates every sum in double.
//
// OpenCL 1.2 has no generic address space, so a vector that lives in local memory or in global
// memory (common/batch/placement.hpp decides, per item) is a Vec: both pointers and which one
// holds it; ld/st pick (a branch that is the same for the whole work-group).
//
// Control flow is uniform over the work-group (every branch depends on reduced values), and
// every work-item reaches every barrier.
//
// The format and the preconditioner are fixed when the program is built (BATCH_FORMAT,
// BATCH_PRECOND: a program per pair, batch_kernels.cpp): with them run-time values, every
// branch on them held barriers, and PoCL (which turns a work-group into loops around the
// regions between barriers, copying the code after a barrier in a branch once per path) took
// 45 s to compile batch_gmres and over 5 min for batch_bicgstab on the 2-core VM; fixed, 3 s.
// For the same reason the solvers keep their barriers out of branches where they can: a sum
// is taken on every pass, its terms only where they count.
#if !defined(BATCH_FORMAT) || !defined(BATCH_PRECOND)
#error "batch_kernels.cl is built with -DBATCH_FORMAT=f -DBATCH_PRECOND=p"
#endif

// solver::StopReason, solver::Preconditioner, Format (checked in batch_kernels.cpp)
#define STOP_CONVERGED 0
#define STOP_MAX_ITERATIONS 1
#define STOP_BREAKDOWN 2
#define STOP_NON_FINITE 3
#define STOP_STAGNATION 5
#define STOP_SINGULAR_PRECONDITIONER 6
#define PRECOND_NONE 0
#define PRECOND_JACOBI 1
#define PRECOND_BLOCK_JACOBI 2
#define PRECOND_ILU0 3
#define FORMAT_DENSE 0
#define FORMAT_CSR 1
#define FORMAT_ELL 2
// system_solvers.hpp's kMaxBlockSize, kMaxFalseConvergence and Slot values
#define MAX_BLOCK_SIZE 32
#define MAX_FALSE_CONVERGENCE 3
#define SLOT_R 0
#define SLOT_Z 1
#define SLOT_P 2
#define SLOT_Q 3
#define SLOT_X 4
#define SLOT_BI_R 0
#define SLOT_BI_RHAT 1
#define SLOT_BI_P 2
#define SLOT_BI_V 3
#define SLOT_BI_PHAT 4
#define SLOT_BI_SHAT 5
#define SLOT_BI_T 6
#define SLOT_BI_X 7
#define SLOT_GM_W 0
#define SLOT_GM_Z 1
#define SLOT_GM_X 2
#define SLOT_GM_BASIS 3

// false for NaN and +-Inf (system_solvers.hpp's finite)
#define FINITE(v) ((v) == (v) && (v) - (v) == 0)

// Where the work vectors, x, b and the matrix values live, fixed when the program is built
// (BATCH_PLACE, batch_kernels.cpp): PLACE_LOCAL, all in local memory (b and the matrix values
// copied in, x copied in and out); PLACE_GLOBAL, all in global memory; PLACE_MIXED, each where
// common/batch/placement.hpp put it. Under the first two a Vec is a plain pointer; under
// PLACE_MIXED (OpenCL 1.2 has no generic address space) it holds both pointers and which one
// is live, and ld/st branch on it: every load behind a branch, none overlapping another (PeleLM
// drm19 on the H100, 2026-11-25: 2.1x cuda's time with every item in local memory).
#define PLACE_MIXED 0
#define PLACE_LOCAL 1
#define PLACE_GLOBAL 2
#ifndef BATCH_PLACE
#define BATCH_PLACE PLACE_MIXED
#endif

#if BATCH_PLACE == PLACE_MIXED
typedef struct {
    global REAL *g;
    local REAL *l;
    int in_local;
} Vec;

Vec global_vec(global REAL *p) {
    Vec v;
    v.g = p;
    v.l = 0;
    v.in_local = 0;
    return v;
}
Vec local_vec(local REAL *p) {
    Vec v;
    v.g = 0;
    v.l = p;
    v.in_local = 1;
    return v;
}
REAL ld(Vec v, int i) { return v.in_local ? v.l[i] : v.g[i]; }
void st(Vec v, int i, REAL a) {
    if (v.in_local)
        v.l[i] = a;
    else
        v.g[i] = a;
}
Vec offset_vec(Vec v, long k) {
    if (v.in_local)
        v.l += k;
    else
        v.g += k;
    return v;
}
#else
#if BATCH_PLACE == PLACE_LOCAL
typedef local REAL *Vec;
#define local_vec(p) (p)
#else
typedef global REAL *Vec;
#define global_vec(p) (p)
#endif
#define ld(v, i) ((v)[i])
#define st(v, i, a) ((v)[i] = (a))
#define offset_vec(v, k) ((v) + (k))
#endif

// ---- the work-group ----------------------------------------------------------------------

#define RANK ((int)get_local_id(0))
#define SIZE ((int)get_local_size(0))
// Orders local and global memory: vectors live in either.
#define SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

// *a, *b = the sums of the first `count` pairs in scratch, added in order by every work-item
// (the same totals everywhere), then a barrier (the scratch is free again)
void sum_pairs(local ACC *scratch, uint count, ACC *a, ACC *b) {
    ACC ta = 0, tb = 0;
    for (uint i = 0; i < count; ++i) {
        ta += scratch[2 * i];
        tb += scratch[2 * i + 1];
    }
    SYNC();
    *a = ta;
    *b = tb;
}

// The sum over the work-group of v, the same (deterministic) total for every work-item
// (`scratch` holds get_local_size(0) values). CPUs: each work-item adds the values in order
// (no tree: a barrier inside a loop, inlined at every sum, made PoCL 3.1's compile of a solver
// kernel several times longer, 2-core VM, 2026-11). GPUs: a tree (the in-order walk read the
// whole scratch in every work-item at every sum).
#ifdef PORTLA_CPU
ACC group_total(local ACC *scratch, ACC v) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = v;
    SYNC();
    ACC total = 0;
    for (uint i = 0; i < size; ++i) total += scratch[i];
    SYNC();
    return total;
}

// The sums over the work-group of *a and *b, each as group_total's (`scratch` holds two values
// per work-item), with the barriers of one.
void group_total2(local ACC *scratch, ACC *a, ACC *b) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[2 * lid] = *a;
    scratch[2 * lid + 1] = *b;
    SYNC();
    sum_pairs(scratch, size, a, b);
}
#elif defined(PORTLA_WARP)
// NVIDIA GPUs (work-groups a multiple of the warp, batch_kernels.cpp): warp shuffles, then
// every work-item adds the warps' totals in order; two barriers, as the cuda backend's BlockGroup
// (a tree took seven at 32 work-items: PeleLM drm19 2.46x cuda's time, H100, 2026-11-25).
ACC group_total(local ACC *scratch, ACC v) {
    const uint lid = get_local_id(0), warps = get_local_size(0) / PORTLA_WARP;
    v = warp_total(v);
    if (warps == 1) {  // the barrier orders the vectors' memory, as a sum's always does
        SYNC();
        return v;
    }
    if (lid % PORTLA_WARP == 0) scratch[lid / PORTLA_WARP] = v;
    SYNC();
    ACC total = 0;
    for (uint w = 0; w < warps; ++w) total += scratch[w];
    SYNC();
    return total;
}

void group_total2(local ACC *scratch, ACC *a, ACC *b) {
    const uint lid = get_local_id(0), warps = get_local_size(0) / PORTLA_WARP;
    warp_total2(a, b);
    if (warps == 1) {
        SYNC();
        return;
    }
    if (lid % PORTLA_WARP == 0) {
        scratch[2 * (lid / PORTLA_WARP)] = *a;
        scratch[2 * (lid / PORTLA_WARP) + 1] = *b;
    }
    SYNC();
    sum_pairs(scratch, warps, a, b);
}
#else
// the power of two >= the work-group size, halved: the tree's first stride
uint first_stride(uint size) {
    uint s = 1;
    while (s < size) s <<= 1;
    return s >> 1;
}

ACC group_total(local ACC *scratch, ACC v) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = v;
    SYNC();
    for (uint s = first_stride(size); s > 0; s >>= 1) {
        if (lid < s && lid + s < size) scratch[lid] += scratch[lid + s];
        SYNC();
    }
    const ACC total = scratch[0];
    SYNC();
    return total;
}

void group_total2(local ACC *scratch, ACC *a, ACC *b) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[2 * lid] = *a;
    scratch[2 * lid + 1] = *b;
    SYNC();
    for (uint s = first_stride(size); s > 0; s >>= 1) {
        if (lid < s && lid + s < size) {
            scratch[2 * lid] += scratch[2 * (lid + s)];
            scratch[2 * lid + 1] += scratch[2 * (lid + s) + 1];
        }
        SYNC();
    }
    *a = scratch[0];
    *b = scratch[1];
    SYNC();
}
#endif

// ---- one system --------------------------------------------------------------------------

// SystemMatrix: the shared pattern and this system's values
typedef struct {
    int n, width;
    global const int *row_ptrs, *col_idxs;
    Vec values;
} Matrix;

// The options of the solve (system_solvers.hpp's Options, less the solver)
typedef struct {
    int relative, max_iters, restart, block_size, use_initial_guess;
    ACC tolerance;
} Options;

// IluPattern
typedef struct {
    global const int *diag, *lower_level_ptrs, *lower_rows, *upper_level_ptrs, *upper_rows;
    int lower_levels, upper_levels;
} Ilu;

// The row loop of SystemMatrix::for_row: `body` sees c (column) and v (value); ell padding
// skipped.
#define FOR_ROW(A, i, body)                                                    \
    do {                                                                       \
        if (BATCH_FORMAT == FORMAT_CSR) {                                      \
            for (int k_ = (A).row_ptrs[i]; k_ < (A).row_ptrs[(i) + 1]; ++k_) { \
                const int c = (A).col_idxs[k_];                                \
                const REAL v = ld((A).values, k_);                             \
                body;                                                          \
            }                                                                  \
        } else if (BATCH_FORMAT == FORMAT_ELL) {                               \
            for (int k_ = 0; k_ < (A).width; ++k_) {                           \
                const int c = (A).col_idxs[k_ * (A).n + (i)];                  \
                if (c >= 0) {                                                  \
                    const REAL v = ld((A).values, k_ * (A).n + (i));           \
                    body;                                                      \
                }                                                              \
            }                                                                  \
        } else {                                                               \
            const Vec row_ = offset_vec((A).values, (long)(i) * (A).n);        \
            for (int c = 0; c < (A).n; ++c) {                                  \
                const REAL v = ld(row_, c);                                    \
                body;                                                          \
            }                                                                  \
        }                                                                      \
    } while (0)

// row_dot<T>: (A x)_i accumulated in REAL
REAL row_dot(const Matrix *A, int i, Vec x) {
    REAL s = 0;
    FOR_ROW(*A, i, s += v * ld(x, c));
    return s;
}
// row_dot<double>
ACC row_dot_acc(const Matrix *A, int i, Vec x) {
    ACC s = 0;
    FOR_ROW(*A, i, s += (ACC)v * (ACC)ld(x, c));
    return s;
}

// ---- group-wide vector operations --------------------------------------------------------

ACC vdot(local ACC *scratch, int n, Vec x, Vec y) {
    ACC s = 0;
    for (int i = RANK; i < n; i += SIZE) s += (ACC)ld(x, i) * (ACC)ld(y, i);
    return group_total(scratch, s);
}
ACC vnorm2(local ACC *scratch, int n, Vec x) { return sqrt(vdot(scratch, n, x, x)); }
// y = A x (no barrier after)
void spmv(const Matrix *A, Vec x, Vec y) {
    for (int i = RANK; i < A->n; i += SIZE) st(y, i, row_dot(A, i, x));
}
// r = b - A x, returns ||r||
ACC residual(local ACC *scratch, const Matrix *A, Vec b, Vec x, Vec r) {
    ACC s = 0;
    for (int i = RANK; i < A->n; i += SIZE) {
        const REAL ri = ld(b, i) - row_dot(A, i, x);
        st(r, i, ri);
        s += (ACC)ri * (ACC)ri;
    }
    return sqrt(group_total(scratch, s));
}
void copy(int n, Vec x, Vec y) {
    for (int i = RANK; i < n; i += SIZE) st(y, i, ld(x, i));
}
void fill(int n, Vec y, REAL v) {
    for (int i = RANK; i < n; i += SIZE) st(y, i, v);
}

// ---- preconditioners ---------------------------------------------------------------------

// Gauss-Jordan with partial pivoting of the bs x bs block at a, in place; false when singular.
bool invert_block(Vec a, int bs) {
    int piv[MAX_BLOCK_SIZE];
    for (int k = 0; k < bs; ++k) {
        int p = k;
        for (int r = k + 1; r < bs; ++r)
            if (fabs(ld(a, r * bs + k)) > fabs(ld(a, p * bs + k))) p = r;
        piv[k] = p;
        const REAL pivot = ld(a, p * bs + k);
        if (pivot == 0 || !FINITE(pivot)) return false;
        if (p != k)
            for (int c = 0; c < bs; ++c) {
                const REAL t = ld(a, k * bs + c);
                st(a, k * bs + c, ld(a, p * bs + c));
                st(a, p * bs + c, t);
            }
        const REAL inv = (REAL)1 / ld(a, k * bs + k);
        st(a, k * bs + k, 1);
        for (int c = 0; c < bs; ++c) st(a, k * bs + c, ld(a, k * bs + c) * inv);
        for (int r = 0; r < bs; ++r) {
            if (r == k) continue;
            const REAL f = ld(a, r * bs + k);
            st(a, r * bs + k, 0);
            for (int c = 0; c < bs; ++c)
                st(a, r * bs + c, ld(a, r * bs + c) - f * ld(a, k * bs + c));
        }
    }
    for (int k = bs - 1; k >= 0; --k)  // undo the row swaps as column swaps
        if (piv[k] != k)
            for (int r = 0; r < bs; ++r) {
                const REAL t = ld(a, r * bs + k);
                st(a, r * bs + k, ld(a, r * bs + piv[k]));
                st(a, r * bs + piv[k], t);
            }
    return true;
}

// Set-up for this system; false (for the whole group) when it is singular.
bool precond_setup(local ACC *scratch, const Matrix *A, const Options *o, const Ilu *ilu, Vec P) {
    const int n = A->n;
    ACC bad = 0;
    if (BATCH_PRECOND == PRECOND_JACOBI) {
        for (int i = RANK; i < n; i += SIZE) {
            REAL d = 0;
            FOR_ROW(*A, i, if (c == i) d += v);
            if (d == 0 || !FINITE(d)) bad += 1;
            st(P, i, d == 0 ? (REAL)0 : (REAL)1 / d);
        }
    } else if (BATCH_PRECOND == PRECOND_BLOCK_JACOBI) {
        // Diagonal blocks of bs rows (the last one padded with the identity), one per member.
        const int bs = o->block_size;
        const int blocks = (n + bs - 1) / bs;
        for (int blk = RANK; blk < blocks; blk += SIZE) {
            const Vec a = offset_vec(P, (long)blk * bs * bs);
            const int start = blk * bs;
            for (int k = 0; k < bs * bs; ++k) st(a, k, 0);
            for (int r = 0; r < bs; ++r) {
                const int i = start + r;
                if (i >= n) {
                    st(a, r * bs + r, 1);
                    continue;
                }
                FOR_ROW(*A, i,
                        if (c >= start && c < start + bs)
                            st(a, r * bs + (c - start), ld(a, r * bs + (c - start)) + v));
            }
            if (!invert_block(a, bs)) bad += 1;
        }
    } else if (BATCH_PRECOND == PRECOND_ILU0) {
        // P: this system's values in the csr pattern, factored in place into L (unit diagonal)
        // and U, row by row in level order (IKJ form). By work-item 0 alone, as the sweeps
        // below: the same arithmetic as the level-parallel C++, but with barriers inside the
        // level loops PoCL 3.1 did not finish compiling batch_cg in 5 min (2-core VM, 2026-11).
        const int nnz = A->row_ptrs[n];
        copy(nnz, A->values, P);
        SYNC();
        if (RANK == 0)
            for (int t = 0; t < n; ++t) {
                const int i = ilu->lower_rows[t];
                const int end_i = A->row_ptrs[i + 1];
                for (int kk = A->row_ptrs[i]; kk < ilu->diag[i]; ++kk) {
                    const int k = A->col_idxs[kk];
                    const REAL pivot = ld(P, ilu->diag[k]);
                    if (pivot == 0) break;  // flagged below: U_kk = 0
                    const REAL lik = ld(P, kk) / pivot;
                    st(P, kk, lik);
                    // row i -= l_ik * (row k of U), on the entries both rows hold
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
        SYNC();
        for (int i = RANK; i < n; i += SIZE) {
            const REAL u = ld(P, ilu->diag[i]);
            if (u == 0 || !FINITE(u)) bad += 1;
        }
    }
    return group_total(scratch, bad) == 0;
}

// z = M^-1 r (z != r)
void precond_apply(const Matrix *A, const Options *o, const Ilu *ilu, Vec P, Vec r, Vec z) {
    const int n = A->n;
    if (BATCH_PRECOND == PRECOND_JACOBI) {
        for (int i = RANK; i < n; i += SIZE) st(z, i, ld(P, i) * ld(r, i));
    } else if (BATCH_PRECOND == PRECOND_BLOCK_JACOBI) {
        const int bs = o->block_size;
        for (int i = RANK; i < n; i += SIZE) {
            const int blk = i / bs, start = blk * bs, rr = i - start;
            const Vec a = offset_vec(P, (long)blk * bs * bs + rr * bs);
            REAL s = 0;
            for (int c = 0; c < bs && start + c < n; ++c) s += ld(a, c) * ld(r, start + c);
            st(z, i, s);
        }
    } else if (BATCH_PRECOND == PRECOND_ILU0) {
        // L y = r (unit lower), then U z = y in place
        if (RANK == 0) {
            for (int t = 0; t < n; ++t) {
                const int i = ilu->lower_rows[t];
                REAL s = ld(r, i);
                for (int k = A->row_ptrs[i]; k < ilu->diag[i]; ++k)
                    s -= ld(P, k) * ld(z, A->col_idxs[k]);
                st(z, i, s);
            }
            for (int t = 0; t < n; ++t) {
                const int i = ilu->upper_rows[t];
                REAL s = ld(z, i);
                for (int k = ilu->diag[i] + 1; k < A->row_ptrs[i + 1]; ++k)
                    s -= ld(P, k) * ld(z, A->col_idxs[k]);
                st(z, i, s / ld(P, ilu->diag[i]));
            }
        }
    }
}

// ---- the workspace -----------------------------------------------------------------------

// Where each item lives (placement.hpp's Layout, resolved for this work-group): place[k] >= 0
// is an offset in local memory, -1 - place[k] one in the group's global region; x in place in
// the caller's x unless in local memory.
typedef struct {
    local REAL *lmem;
    global REAL *gmem;
    global const long *place;
    int slots, x_slot;
    Vec x;
} Work;

Vec item(const Work *w, int k) {
    if (k == w->x_slot) return w->x;
    const long p = w->place[k];
#if BATCH_PLACE == PLACE_LOCAL
    return w->lmem + p;
#elif BATCH_PLACE == PLACE_GLOBAL
    return w->gmem + (-1 - p);
#else
    return p >= 0 ? local_vec(w->lmem + p) : global_vec(w->gmem + (-1 - p));
#endif
}
#define ITEM_PRECOND(w) ((w)->slots)
#define ITEM_SCALARS(w) ((w)->slots + 1)
#define ITEM_MATRIX(w) ((w)->slots + 2)

// ---- solvers -----------------------------------------------------------------------------

// The stopping threshold ||r|| <= tau of this system.
ACC threshold(const Options *o, ACC bnorm) {
    return o->relative ? o->tolerance * bnorm : o->tolerance;
}

// Preconditioned CG; x holds the initial guess (or zero) on entry. Returns the reason.
int cg(local ACC *scratch, const Matrix *A, Vec b, const Options *o, const Ilu *ilu, const Work *w,
       int *iterations) {
    const int n = A->n;
    const Vec r = item(w, SLOT_R), p = item(w, SLOT_P), q = item(w, SLOT_Q), x = item(w, SLOT_X);
    const bool pre = BATCH_PRECOND != PRECOND_NONE;
    const Vec z = pre ? item(w, SLOT_Z) : r;
    const Vec P = item(w, ITEM_PRECOND(w));
    *iterations = 0;
    const ACC tau = threshold(o, vnorm2(scratch, n, b));
    ACC rnorm = residual(scratch, A, b, x, r);
    if (!FINITE(rnorm) || !FINITE(tau)) return STOP_NON_FINITE;
    if (rnorm <= tau) return STOP_CONVERGED;
    if (pre) precond_apply(A, o, ilu, P, r, z);
    SYNC();
    copy(n, z, p);
    ACC rho = vdot(scratch, n, r, z);
    int false_convergence = 0;
    while (*iterations < o->max_iters) {
        spmv(A, p, q);
        const ACC pq = vdot(scratch, n, p, q);
        if (!FINITE(pq)) return STOP_NON_FINITE;
        if (pq <= 0 || rho == 0) return STOP_BREAKDOWN;
        const REAL alpha = (REAL)(rho / pq);
        ACC s = 0;
        for (int i = RANK; i < n; i += SIZE) {
            st(x, i, ld(x, i) + alpha * ld(p, i));
            const REAL ri = ld(r, i) - alpha * ld(q, i);
            st(r, i, ri);
            s += (ACC)ri * (ACC)ri;
        }
        ++*iterations;
        rnorm = sqrt(group_total(scratch, s));
        if (!FINITE(rnorm)) return STOP_NON_FINITE;
        bool restart = false;
        if (rnorm <= tau) {  // confirm with the true residual (q is free until the next spmv)
            const ACC true_norm = residual(scratch, A, b, x, q);
            if (true_norm <= tau) return STOP_CONVERGED;
            if (++false_convergence > MAX_FALSE_CONVERGENCE) return STOP_STAGNATION;
            copy(n, q, r);
            restart = true;
            SYNC();
        }
        if (pre) precond_apply(A, o, ilu, P, r, z);
        SYNC();
        const ACC rho_new = vdot(scratch, n, r, z);
        const REAL beta = restart ? (REAL)0 : (REAL)(rho_new / rho);
        rho = rho_new;
        for (int i = RANK; i < n; i += SIZE) st(p, i, ld(z, i) + beta * ld(p, i));
        SYNC();
    }
    return STOP_MAX_ITERATIONS;
}

// Preconditioned BiCGSTAB (van der Vorst); x holds the initial guess on entry. Every pass
// takes the same barriers: the second half (t = A M^-1 s, omega) skipped after a claim on ||s||
// and the confirmation of a claim (the true residual into t) do their work only when it counts,
// their sums taken on every pass (group_total2 takes two sums at the price of one).
int bicgstab(local ACC *scratch, const Matrix *A, Vec b, const Options *o, const Ilu *ilu,
             const Work *w, int *iterations) {
    const int n = A->n;
    const Vec r = item(w, SLOT_BI_R), rhat = item(w, SLOT_BI_RHAT), p = item(w, SLOT_BI_P),
              v = item(w, SLOT_BI_V), t = item(w, SLOT_BI_T), x = item(w, SLOT_BI_X);
    const bool pre = BATCH_PRECOND != PRECOND_NONE;
    const Vec phat = pre ? item(w, SLOT_BI_PHAT) : p;
    const Vec shat = pre ? item(w, SLOT_BI_SHAT) : r;  // s overwrites r
    const Vec P = item(w, ITEM_PRECOND(w));
    *iterations = 0;
    const ACC tau = threshold(o, vnorm2(scratch, n, b));
    ACC rnorm = residual(scratch, A, b, x, r);
    if (!FINITE(rnorm) || !FINITE(tau)) return STOP_NON_FINITE;
    if (rnorm <= tau) return STOP_CONVERGED;
    int false_convergence = 0;
    bool fresh = true;  // (re)start the recurrences from r
    ACC rho_old = 1, alpha = 1, omega = 1;
    while (*iterations < o->max_iters) {
        if (fresh) {  // no barrier: each work-item reads only its own rows of these before one
            copy(n, r, rhat);
            fill(n, p, 0);
            fill(n, v, 0);
            rho_old = alpha = omega = 1;
            fresh = false;
        }
        const ACC rho = vdot(scratch, n, rhat, r);
        if (!FINITE(rho)) return STOP_NON_FINITE;
        if (rho == 0) return STOP_BREAKDOWN;
        const REAL beta = (REAL)((rho / rho_old) * (alpha / omega));
        for (int i = RANK; i < n; i += SIZE)
            st(p, i, ld(r, i) + beta * (ld(p, i) - (REAL)omega * ld(v, i)));
        SYNC();
        if (pre) {
            precond_apply(A, o, ilu, P, p, phat);
            SYNC();
        }
        spmv(A, phat, v);
        const ACC rv = vdot(scratch, n, rhat, v);
        if (!FINITE(rv)) return STOP_NON_FINITE;
        if (rv == 0) return STOP_BREAKDOWN;
        alpha = rho / rv;
        ACC s2 = 0;
        for (int i = RANK; i < n; i += SIZE) {
            const REAL si = ld(r, i) - (REAL)alpha * ld(v, i);  // r now holds s
            st(r, i, si);
            st(x, i, ld(x, i) + (REAL)alpha * ld(phat, i));
            s2 += (ACC)si * (ACC)si;
        }
        ++*iterations;
        const ACC snorm = sqrt(group_total(scratch, s2));
        if (!FINITE(snorm)) return STOP_NON_FINITE;
        const bool second = snorm > tau;  // the second half counts (no claim on s)
        if (pre) {
            if (second) precond_apply(A, o, ilu, P, r, shat);
            SYNC();
        }
        ACC ts = 0, tt = 0;
        if (second) {
            spmv(A, shat, t);
            for (int i = RANK; i < n; i += SIZE) {
                ts += (ACC)ld(t, i) * (ACC)ld(r, i);
                tt += (ACC)ld(t, i) * (ACC)ld(t, i);
            }
        }
        group_total2(scratch, &ts, &tt);
        ACC r2 = 0;
        if (second) {
            if (!FINITE(ts) || !FINITE(tt)) return STOP_NON_FINITE;
            if (tt == 0) return STOP_BREAKDOWN;
            omega = ts / tt;
            for (int i = RANK; i < n; i += SIZE) {
                st(x, i, ld(x, i) + (REAL)omega * ld(shat, i));
                const REAL ri = ld(r, i) - (REAL)omega * ld(t, i);
                st(r, i, ri);
                r2 += (ACC)ri * (ACC)ri;
            }
        }
        rnorm = sqrt(group_total(scratch, r2));
        if (second && !FINITE(rnorm)) return STOP_NON_FINITE;
        // a claim (||s|| or ||r|| <= tau) is confirmed by the true residual, into t (the C++
        // confirms at two places, with the same outcome)
        const bool claim = !second || rnorm <= tau;
        ACC e2 = 0;
        if (claim)
            for (int i = RANK; i < n; i += SIZE) {
                const REAL ei = ld(b, i) - row_dot(A, i, x);
                st(t, i, ei);
                e2 += (ACC)ei * (ACC)ei;
            }
        const ACC true_norm = sqrt(group_total(scratch, e2));
        int stop = -1;
        if (claim) {
            if (true_norm <= tau)
                stop = STOP_CONVERGED;
            else if (++false_convergence > MAX_FALSE_CONVERGENCE)
                stop = STOP_STAGNATION;
            fresh = true;
        } else if (omega == 0) {
            stop = STOP_BREAKDOWN;
        }
        if (stop >= 0) return stop;
        if (fresh) copy(n, t, r);  // own rows only, as the restart above reads them
        rho_old = rho;
    }
    return STOP_MAX_ITERATIONS;
}

// Restarted GMRES(m), right-preconditioned, modified Gram-Schmidt, Givens rotations. The small
// dense arrays (the scalars item): H ((m + 1) x m, column j at j (m + 1)), cs, sn (m each),
// g (m + 1), y (m).
int gmres(local ACC *scratch, const Matrix *A, Vec b, const Options *o, const Ilu *ilu,
          const Work *w, int *iterations) {
    const int n = A->n, m = o->restart;
    const Vec wv = item(w, SLOT_GM_W), z = item(w, SLOT_GM_Z), x = item(w, SLOT_GM_X);
    const Vec P = item(w, ITEM_PRECOND(w));
    const Vec H = item(w, ITEM_SCALARS(w));
    const Vec cs = offset_vec(H, (long)(m + 1) * m), sn = offset_vec(cs, m), gv = offset_vec(sn, m),
              y = offset_vec(gv, m + 1);
    const bool pre = BATCH_PRECOND != PRECOND_NONE;
    *iterations = 0;
    const ACC tau = threshold(o, vnorm2(scratch, n, b));
    if (!FINITE(tau)) return STOP_NON_FINITE;
    int false_convergence = 0;
    bool claimed = false;  // the last cycle's estimate met the test
    for (;;) {
        // the true residual: it confirms (or refutes) the last cycle's claim
        const Vec v0 = item(w, SLOT_GM_BASIS);
        const ACC beta = residual(scratch, A, b, x, v0);
        if (!FINITE(beta)) return STOP_NON_FINITE;
        if (beta <= tau) return STOP_CONVERGED;
        if (claimed && ++false_convergence > MAX_FALSE_CONVERGENCE) return STOP_STAGNATION;
        if (*iterations >= o->max_iters) return STOP_MAX_ITERATIONS;
        for (int i = RANK; i < n; i += SIZE) st(v0, i, (REAL)(ld(v0, i) / beta));
        if (RANK == 0) {
            st(gv, 0, (REAL)beta);
            for (int i = 1; i <= m; ++i) st(gv, i, 0);
        }
        SYNC();
        int k = 0;  // Krylov vectors of this cycle
        ACC estimate = beta;
        while (k < m && *iterations < o->max_iters) {
            const Vec vk = item(w, SLOT_GM_BASIS + k);
            if (pre) {
                precond_apply(A, o, ilu, P, vk, z);
                SYNC();
            }
            spmv(A, pre ? z : vk, wv);
            SYNC();
            const Vec h = offset_vec(H, (long)k * (m + 1));
            for (int i = 0; i <= k; ++i) {
                const Vec vi = item(w, SLOT_GM_BASIS + i);
                const ACC hik = vdot(scratch, n, wv, vi);
                for (int l = RANK; l < n; l += SIZE) st(wv, l, ld(wv, l) - (REAL)hik * ld(vi, l));
                if (RANK == 0) st(h, i, (REAL)hik);
                SYNC();
            }
            const ACC hnext = vnorm2(scratch, n, wv);
            if (!FINITE(hnext)) return STOP_NON_FINITE;
            const Vec vnext = item(w, SLOT_GM_BASIS + k + 1);
            for (int l = RANK; l < n; l += SIZE)
                st(vnext, l, hnext > 0 ? (REAL)(ld(wv, l) / hnext) : (REAL)0);
            if (RANK == 0) {
                st(h, k + 1, (REAL)hnext);
                for (int i = 0; i < k; ++i) {  // earlier rotations on the new column
                    const REAL a = ld(h, i), c = ld(h, i + 1);
                    st(h, i, ld(cs, i) * a + ld(sn, i) * c);
                    st(h, i + 1, -ld(sn, i) * a + ld(cs, i) * c);
                }
                const REAL a = ld(h, k), c = ld(h, k + 1);
                const REAL d = (REAL)sqrt((ACC)a * a + (ACC)c * c);
                st(cs, k, d == 0 ? (REAL)1 : a / d);
                st(sn, k, d == 0 ? (REAL)0 : c / d);
                st(h, k, d);
                st(h, k + 1, 0);
                st(gv, k + 1, -ld(sn, k) * ld(gv, k));
                st(gv, k, ld(cs, k) * ld(gv, k));
            }
            SYNC();
            ++k;
            ++*iterations;
            estimate = fabs((ACC)ld(gv, k));
            if (estimate <= tau || hnext == 0) break;
        }
        // y = H(0:k, 0:k) \ g, then x += M^-1 (V y)
        if (RANK == 0)
            for (int i = k - 1; i >= 0; --i) {
                REAL s = ld(gv, i);
                for (int j = i + 1; j < k; ++j) s -= ld(H, j * (m + 1) + i) * ld(y, j);
                const REAL hii = ld(H, i * (m + 1) + i);
                st(y, i, hii == 0 ? (REAL)0 : s / hii);
            }
        SYNC();
        for (int l = RANK; l < n; l += SIZE) {
            REAL s = 0;
            for (int j = 0; j < k; ++j) s += ld(y, j) * ld(item(w, SLOT_GM_BASIS + j), l);
            st(wv, l, s);
        }
        SYNC();
        if (pre) {
            precond_apply(A, o, ilu, P, wv, z);
            SYNC();
        }
        const Vec dx = pre ? z : wv;
        for (int l = RANK; l < n; l += SIZE) st(x, l, ld(x, l) + ld(dx, l));
        SYNC();
        claimed = estimate <= tau;
    }
}

// ---- the kernels -------------------------------------------------------------------------

#define SOLVER_CG 0
#define SOLVER_BICGSTAB 1
#define SOLVER_GMRES 2

// The batch: matrix (BatchArgs' matrix part), right-hand sides and solutions.
#define PORTLA_BATCH_PARAMS                                                             \
    int num_systems, int n, int width, long stored, PORTLA_BUFFER(const int, row_ptrs), \
        PORTLA_BUFFER(const int, col_idxs), PORTLA_BUFFER(REAL, values)

// count elements into / out of local memory (count < 2^31: it fits there)
void copy_in(global const REAL *from, local REAL *to, long count) {
    for (int i = RANK; i < count; i += SIZE) to[i] = from[i];
}
void copy_out(local const REAL *from, global REAL *to, long count) {
    for (int i = RANK; i < count; i += SIZE) to[i] = from[i];
}

// Every system of the batch with `solver`, one work-group per system at a time (the cuda
// kernel's loop). `lmem` holds the items placed in local memory (and, under PLACE_LOCAL, b at
// b_place), `workspace` one region of global_elems per work-group for the others.
void solve_batch(int solver, int num_systems, int n, int width, long stored,
                 global const int *row_ptrs, global const int *col_idxs, global REAL *values,
                 global REAL *b, global REAL *x, Options o, Ilu ilu, global int *iterations,
                 global uchar *reasons, global const long *place, int slots, long global_elems,
                 long b_place, global REAL *workspace, local REAL *lmem, local ACC *scratch) {
    Work w;
    w.lmem = lmem;
    w.gmem = workspace + (long)get_group_id(0) * global_elems;
    w.place = place;
    w.slots = slots;
    w.x_slot = solver == SOLVER_CG ? SLOT_X : solver == SOLVER_BICGSTAB ? SLOT_BI_X : SLOT_GM_X;
    const long x_place = place[w.x_slot], matrix_place = place[ITEM_MATRIX(&w)];
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        global REAL *const values_s = values + (long)s * stored;
        global REAL *const xs = x + (long)s * n, *const bs = b + (long)s * n;
        Matrix A;
        A.n = n;
        A.width = width;
        A.row_ptrs = row_ptrs;
        A.col_idxs = col_idxs;
#if BATCH_PLACE == PLACE_LOCAL
        copy_in(bs, lmem + b_place, n);
        copy_in(values_s, lmem + matrix_place, stored);
        A.values = lmem + matrix_place;
        w.x = lmem + x_place;
        if (o.use_initial_guess) copy_in(xs, w.x, n);
        const Vec bv = lmem + b_place;
#elif BATCH_PLACE == PLACE_GLOBAL
        A.values = values_s;
        w.x = xs;
        const Vec bv = bs;
#else
        A.values = global_vec(values_s);
        if (matrix_place >= 0) {
            copy_in(values_s, lmem + matrix_place, stored);
            A.values = local_vec(lmem + matrix_place);
        }
        w.x = global_vec(xs);
        if (x_place >= 0) {
            w.x = local_vec(lmem + x_place);
            if (o.use_initial_guess) copy_in(xs, lmem + x_place, n);
        }
        const Vec bv = global_vec(bs);
#endif
        SYNC();
        // solve_system_with: x = 0 unless guessed, the preconditioner, the iteration
        if (!o.use_initial_guess) fill(n, w.x, 0);
        SYNC();
        int its = 0, reason;
        if (BATCH_PRECOND != PRECOND_NONE &&
            !precond_setup(scratch, &A, &o, &ilu, item(&w, ITEM_PRECOND(&w))))
            reason = STOP_SINGULAR_PRECONDITIONER;
        else if (solver == SOLVER_CG)
            reason = cg(scratch, &A, bv, &o, &ilu, &w, &its);
        else if (solver == SOLVER_BICGSTAB)
            reason = bicgstab(scratch, &A, bv, &o, &ilu, &w, &its);
        else
            reason = gmres(scratch, &A, bv, &o, &ilu, &w, &its);
        SYNC();
#if BATCH_PLACE == PLACE_LOCAL
        copy_out(w.x, xs, n);
#elif BATCH_PLACE == PLACE_MIXED
        if (x_place >= 0) copy_out(lmem + x_place, xs, n);
#endif
        if (get_local_id(0) == 0) {
            iterations[s] = its;
            reasons[s] = (uchar)reason;
        }
        SYNC();  // local memory is reused by the next system
    }
}

#define PORTLA_BATCH_SOLVE_PARAMS                                                         \
    PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, b), PORTLA_BUFFER(REAL, x), int relative,    \
        ACC tolerance, int max_iters, int restart, int block_size, int use_initial_guess, \
        PORTLA_BUFFER(const int, diag), PORTLA_BUFFER(const int, lower_level_ptrs),       \
        PORTLA_BUFFER(const int, lower_rows), int lower_levels,                           \
        PORTLA_BUFFER(const int, upper_level_ptrs), PORTLA_BUFFER(const int, upper_rows), \
        int upper_levels, PORTLA_BUFFER(int, iterations), PORTLA_BUFFER(uchar, reasons),  \
        PORTLA_BUFFER(const long, place), int slots, long global_elems, long b_place,     \
        PORTLA_BUFFER(REAL, workspace), local REAL *lmem, local ACC *scratch

#define PORTLA_BATCH_SOLVE(solver)                                                                \
    do {                                                                                          \
        Options o;                                                                                \
        o.relative = relative;                                                                    \
        o.tolerance = tolerance;                                                                  \
        o.max_iters = max_iters;                                                                  \
        o.restart = restart;                                                                      \
        o.block_size = block_size;                                                                \
        o.use_initial_guess = use_initial_guess;                                                  \
        Ilu ilu;                                                                                  \
        ilu.diag = PORTLA_AT(const int, diag);                                                    \
        ilu.lower_level_ptrs = PORTLA_AT(const int, lower_level_ptrs);                            \
        ilu.lower_rows = PORTLA_AT(const int, lower_rows);                                        \
        ilu.lower_levels = lower_levels;                                                          \
        ilu.upper_level_ptrs = PORTLA_AT(const int, upper_level_ptrs);                            \
        ilu.upper_rows = PORTLA_AT(const int, upper_rows);                                        \
        ilu.upper_levels = upper_levels;                                                          \
        solve_batch(solver, num_systems, n, width, stored, PORTLA_AT(const int, row_ptrs),        \
                    PORTLA_AT(const int, col_idxs), PORTLA_AT(REAL, values), PORTLA_AT(REAL, b),  \
                    PORTLA_AT(REAL, x), o, ilu, PORTLA_AT(int, iterations),                       \
                    PORTLA_AT(uchar, reasons), PORTLA_AT(const long, place), slots, global_elems, \
                    b_place, PORTLA_AT(REAL, workspace), lmem, scratch);                          \
    } while (0)

kernel void batch_cg(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_CG); }
kernel void batch_bicgstab(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_BICGSTAB); }
kernel void batch_gmres(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_GMRES); }

// The residual and product kernels: built without BATCH_PLACE (their vectors are in global
// memory, their matrices' values too).
#if BATCH_PLACE == PLACE_MIXED
Matrix system_of(int n, int width, global const int *row_ptrs, global const int *col_idxs,
                 global REAL *values, long stored, int s) {
    Matrix A;
    A.n = n;
    A.width = width;
    A.row_ptrs = row_ptrs;
    A.col_idxs = col_idxs;
    A.values = global_vec(values + (long)s * stored);
    return A;
}
#define PORTLA_SYSTEM(s)                                                                \
    system_of(n, width, PORTLA_AT(const int, row_ptrs), PORTLA_AT(const int, col_idxs), \
              PORTLA_AT(REAL, values), stored, s)

// res[s] = ||b_s - A_s x_s|| (row_dot in ACC), bnorm[s] = ||b_s|| (residual_norm)
kernel void batch_residual_norms(PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, b),
                                 PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(ACC, res),
                                 PORTLA_BUFFER(ACC, bnorm), local ACC *scratch) {
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        const Matrix A = PORTLA_SYSTEM(s);
        const Vec bs = global_vec(PORTLA_AT(REAL, b) + (long)s * n);
        const Vec xs = global_vec(PORTLA_AT(REAL, x) + (long)s * n);
        ACC sr = 0, sb = 0;
        for (int i = RANK; i < n; i += SIZE) {
            const ACC ri = (ACC)ld(bs, i) - row_dot_acc(&A, i, xs);
            sr += ri * ri;
            sb += (ACC)ld(bs, i) * (ACC)ld(bs, i);
        }
        sr = group_total(scratch, sr);
        sb = group_total(scratch, sb);
        if (RANK == 0) {
            PORTLA_AT(ACC, res)[s] = sqrt(sr);
            PORTLA_AT(ACC, bnorm)[s] = sqrt(sb);
        }
    }
}

// y_s = A_s x_s
kernel void batch_apply(PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(REAL, y)) {
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        const Matrix A = PORTLA_SYSTEM(s);
        spmv(&A, global_vec(PORTLA_AT(REAL, x) + (long)s * n),
             global_vec(PORTLA_AT(REAL, y) + (long)s * n));
    }
}
#endif
