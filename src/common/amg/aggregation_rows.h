/* Smoothed aggregation's set-up, row by row, in the C subset of common/sparse/sparse_rows.h
   (valid OpenCL C 1.2, C++17 and CUDA; the same definitions before it): strength of connection,
   aggregation by a distance-2 maximal independent set, the tentative prolongator and the
   Jacobi smoother of the prolongator. Each function is the work of one row; the caller runs
   the rows in parallel and keeps the passes apart (a pass reads only what earlier passes
   wrote), so every backend computes the same aggregates.

   The distance-2 maximal independent set (Bell, Dalton and Olson, "Exposing fine-grained
   parallelism in algebraic multigrid methods", SIAM J. Sci. Comput. 34(4), 2012): each row
   has a 64-bit key, its state in the top two bits (0 out, 1 undecided, 2 in), a hash of the
   row below them and the row itself in the low 32 bits, so keys are distinct. A round takes
   the maximum key over each row's strong neighbours twice (the maximum over its distance-2
   neighbourhood); an undecided row whose own key is that maximum joins the set, one that sees
   a member of the set leaves. Each round decides at least the undecided row of largest key,
   so the rounds end. The members are the roots of the aggregates; every row with a strong
   connection lies within distance 2 of a root and joins one in two passes. */

#define PORTLA_AMG_UNDECIDED ((U64)1 << 62)
#define PORTLA_AMG_IN ((U64)2 << 62)
#define PORTLA_AMG_STATE(key) ((int)((key) >> 62))

/* strong[k] for the entries k of row i: 1 when (i, j) is a strong connection, j != i, a_ij != 0
   and |a_ij| / a_ii * |a_ij| / a_jj >= theta^2 (the symmetric measure |a_ij| >= theta
   sqrt(a_ii a_jj) of Vanek, Mandel and Brezina, with a positive diagonal d), else 0. Returns
   the row's strong connections. */
PORTLA_FN int amg_strength_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                               PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const REAL *d, REAL theta,
                               PORTLA_GLOBAL int *strong) {
    int count = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int j = ci[k];
        const REAL a = PORTLA_ABS(v[k]);
        const int s = j != i && a != 0 && (a / d[i]) * (a / d[j]) >= theta * theta;
        strong[k] = s;
        count += s;
    }
    return count;
}

/* A fixed 30-bit hash of row i (a 32-bit integer mix), so the set does not follow the
   numbering. */
PORTLA_FN U64 amg_row_hash(int i) {
    unsigned int h = (unsigned int)i;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return (U64)(h & 0x3fffffffu);
}

/* Row i's first key: undecided, or out when it has no strong connection (an isolated row
   joins no aggregate: its row of the tentative prolongator stays empty). */
PORTLA_FN void amg_mis_init_row(int i, int strong_count, PORTLA_GLOBAL U64 *key) {
    key[i] = strong_count == 0
                 ? (U64)0
                 : PORTLA_AMG_UNDECIDED | (amg_row_hash(i) << 32) | (U64)(unsigned int)i;
}

/* out[i] = the largest of in[i] and in[j] over the strong connections (i, j). */
PORTLA_FN void amg_max_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                           PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const U64 *in,
                           PORTLA_GLOBAL U64 *out) {
    U64 m = in[i];
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        if (strong[k] && in[ci[k]] > m) m = in[ci[k]];
    out[i] = m;
}

/* One round's decision for row i, from the largest key m2[i] of its distance-2 neighbourhood.
   Returns 1 when row i is still undecided. */
PORTLA_FN int amg_mis_update_row(int i, PORTLA_GLOBAL U64 *key, PORTLA_GLOBAL const U64 *m2) {
    const U64 k = key[i];
    if (PORTLA_AMG_STATE(k) != 1) return 0;
    if (m2[i] == k) {
        key[i] = (k & ~((U64)3 << 62)) | PORTLA_AMG_IN;
        return 0;
    }
    if (PORTLA_AMG_STATE(m2[i]) == 2) {
        key[i] = 0;
        return 0;
    }
    return 1;
}

/* 1 when row i is a root (a member of the set). */
PORTLA_FN int amg_root_row(int i, PORTLA_GLOBAL const U64 *key) {
    return PORTLA_AMG_STATE(key[i]) == 2;
}

/* agg[i]: the aggregate of root i (its rank among the roots, root_rank = the exclusive prefix
   sums of amg_root_row), -1 for the other rows. */
PORTLA_FN void amg_root_aggregate_row(int i, PORTLA_GLOBAL const U64 *key,
                                      PORTLA_GLOBAL const int *root_rank, PORTLA_GLOBAL int *agg) {
    agg[i] = PORTLA_AMG_STATE(key[i]) == 2 ? root_rank[i] : -1;
}

/* One joining pass: a row without an aggregate takes the one of its first strong neighbour
   (in the row's order) that has one in agg_in. */
PORTLA_FN void amg_join_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                            PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const int *agg_in,
                            PORTLA_GLOBAL int *agg_out) {
    int a = agg_in[i];
    for (int k = rp[i]; a < 0 && k < rp[i + 1]; ++k)
        if (strong[k] && agg_in[ci[k]] >= 0) a = agg_in[ci[k]];
    agg_out[i] = a;
}

/* The smoothed prolongator P = S T, row by row, without forming T: T is the tentative
   prolongator (rows x aggregates: the entry (j, agg[j]) = 1 where row j has an aggregate), so
   row i of P holds, for each aggregate a among the columns j of row i of S (A's pattern), the
   sum of s_ij over those j with agg[j] = a. The constant vector, the near null space of a
   scalar diffusion operator, is in T's range; T's columns are not normalised (a diagonal
   scaling of P changes neither the coarse-grid correction P (P^T A P)^-1 P^T nor the
   scaling-invariant smoothers). The sums run in the order of row i, as the sparse product
   S T sums them, so P is that product to the bit. */

/* The entries of row i of P: the distinct aggregates of its columns. */
PORTLA_FN int amg_prolongator_count_row(int i, PORTLA_GLOBAL const int *rp,
                                        PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *agg) {
    int count = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int a = agg[ci[k]];
        int seen = a < 0;
        for (int q = rp[i]; !seen && q < k; ++q) seen = agg[ci[q]] == a;
        count += !seen;
    }
    return count;
}

/* Row i of P (its offsets p_rp given): the aggregates in the order they first appear, each
   entry's s_ij added to its aggregate's, then the row sorted by column (insertion: a row has a
   few aggregates). */
PORTLA_FN void amg_prolongator_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL const REAL *s, PORTLA_GLOBAL const int *agg,
                                   PORTLA_GLOBAL const int *p_rp, PORTLA_GLOBAL int *p_ci,
                                   PORTLA_GLOBAL REAL *p_v) {
    const int first = p_rp[i];
    int end = first;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int a = agg[ci[k]];
        if (a < 0) continue;
        int at = first;
        while (at < end && p_ci[at] != a) ++at;
        if (at == end) {
            p_ci[end] = a;
            p_v[end++] = s[k];
        } else {
            p_v[at] += s[k];
        }
    }
    for (int x = first + 1; x < end; ++x) {
        const int c = p_ci[x];
        const REAL w = p_v[x];
        int y = x;
        for (; y > first && p_ci[y - 1] > c; --y) {
            p_ci[y] = p_ci[y - 1];
            p_v[y] = p_v[y - 1];
        }
        p_ci[y] = c;
        p_v[y] = w;
    }
}

/* Row i of the prolongator smoother S = I - omega D^-1 A, on A's pattern (A stores every
   diagonal entry). */
PORTLA_FN void amg_smoother_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const REAL *d,
                                REAL omega, PORTLA_GLOBAL REAL *s) {
    const REAL w = omega / d[i];
    for (int k = rp[i]; k < rp[i + 1]; ++k) s[k] = (ci[k] == i ? (REAL)1 : (REAL)0) - w * v[k];
}

/* The l1 norm of row i (the l1-Jacobi smoother's weights are their inverses). */
PORTLA_FN REAL amg_l1_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const REAL *v) {
    REAL s = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) s += PORTLA_ABS(v[k]);
    return s;
}

/* Entry i of a fixed pseudo-random vector, uniform in [-1, 1) (the start of the Lanczos
   estimates: components along the whole spectrum, the same on every backend). */
PORTLA_FN REAL amg_start_row(int i) {
    return (REAL)((double)amg_row_hash(i) * (1.0 / 536870912.0) - 1.0);
}

/* 1 when diagonal entry i is not positive and finite (NaN included), else 0. */
PORTLA_FN int amg_bad_diagonal_row(int i, PORTLA_GLOBAL const REAL *d) {
    return !(d[i] > 0 && d[i] - d[i] == 0);
}

/* (A x)_i: row i of A times x, the entries in the row's order. */
PORTLA_FN REAL amg_row_sum(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                           PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const REAL *x) {
    REAL s = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) s += v[k] * x[ci[k]];
    return s;
}

/* The cycle's row updates, each given ax = (A x)_i of its operator A and vector x (a backend may
   form ax with several lanes per row, then call the update once per row). */

/* The place of a smoothing step in its sweep (amg_smooth_update's `step`, bits): the first step
   of a sweep has no direction before it; the step after a zero_guess step finds no iterate in
   x_out (the iterate before its input was 0). */
#define PORTLA_AMG_STEP_FIRST 1
#define PORTLA_AMG_STEP_AFTER_ZERO 2

/* One smoothing step of row i, fused (one pass over the row of A): r_i = b_i - (A x_in)_i,
   d_i = c1 d_i + c2 w_i r_i, x_out_i = x_in_i + d_i. Damped Jacobi and l1-Jacobi are one step
   with c1 = 0 and c2 = 1 (w: the weights); Chebyshev's iteration on D^-1 A is a sequence of
   them (w = D^-1; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Alg. 12.1). The
   steps alternate between two iterates, so x_out holds the iterate before x_in, and the last
   direction is their difference, d_i = x_in_i - x_out_i: no direction is stored. With
   zero_guess x_in is taken as 0 (neither it nor ax is read); `step` holds the flags above. x_out
   must not be x_in (other rows read x_in). */
PORTLA_FN void amg_smooth_update(int i, REAL ax, PORTLA_GLOBAL const REAL *b,
                                 PORTLA_GLOBAL const REAL *x_in, PORTLA_GLOBAL REAL *x_out,
                                 PORTLA_GLOBAL const REAL *w, REAL c1, REAL c2, int zero_guess,
                                 int step) {
    const REAL r = zero_guess ? b[i] : b[i] - ax;
    REAL di = c2 * w[i] * r;
    if (!(step & PORTLA_AMG_STEP_FIRST))
        di += c1 * (x_in[i] - ((step & PORTLA_AMG_STEP_AFTER_ZERO) ? (REAL)0 : x_out[i]));
    x_out[i] = (zero_guess ? (REAL)0 : x_in[i]) + di;
}

/* The residual r_i = b_i - (A x)_i. */
PORTLA_FN void amg_residual_update(int i, REAL ax, PORTLA_GLOBAL const REAL *b,
                                   PORTLA_GLOBAL REAL *r) {
    r[i] = b[i] - ax;
}

/* The coarse correction out_i = base_i + (P x_c)_i (out may be base). */
PORTLA_FN void amg_correct_update(int i, REAL ax, PORTLA_GLOBAL const REAL *base,
                                  PORTLA_GLOBAL REAL *out) {
    out[i] = base[i] + ax;
}
