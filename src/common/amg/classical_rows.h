/* Classical (Ruge-Stueben type) multigrid's set-up, row by row, in the C subset of
   common/sparse/sparse_rows.h (valid OpenCL C 1.2, C++17 and CUDA; the definitions of
   aggregation_rows.h before it): strength of connection, PMIS coarsening and classical
   interpolation. Each function is the work of one row; the caller runs the rows in parallel and
   keeps the passes apart, so every backend computes the same splitting.

   Strength: j strongly influences i when |a_ij| >= theta max_{k != i} |a_ik| (PyAMG's classical
   measure with the absolute value). The relation is not symmetric; tpos[k] gives, for the entry
   k = (i, j), the position of (j, i) in row j (the pattern of an SPD matrix is symmetric), so a
   row reads both directions.

   PMIS (De Sterck, Yang and Heys, SIAM J. Matrix Anal. Appl. 27(4), 2006): each row's key holds
   its state in the top two bits (0 fine, 1 undecided, 2 coarse), the number of rows it strongly
   influences (its measure, at most 2^14 - 1) below, then a 16-bit hash of the row and the row
   itself, so keys are distinct and a larger measure wins. A row that influences none starts
   fine. A round: an undecided row whose key is above every undecided neighbour's (in either
   direction of strength) becomes coarse; then an undecided row that strongly depends on a
   coarse row becomes fine. Each round makes the undecided row of largest key coarse, so the
   rounds end.

   Interpolation from each fine row's strongly influencing coarse rows C_i (amg_interp_fill_row):
   a coarse row is interpolated by itself. */

#define PORTLA_AMG_MEASURE_MAX 16383

/* The position of `key` in a[first..last) (sorted), -1 when it is not there. */
PORTLA_FN int amg_find_sorted(PORTLA_GLOBAL const int *a, int first, int last, int key) {
    int lo = first, hi = last;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < last && a[lo] == key ? lo : -1;
}

/* The largest |a_ik|, k != i, over the lane's entries of row i (of `lanes` cooperating lanes,
   this one `lane`; the row's is the largest of the lanes'). */
PORTLA_FN REAL amg_classical_largest(int i, int lane, int lanes, PORTLA_GLOBAL const int *rp,
                                     PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const REAL *v) {
    REAL largest = 0;
    for (int k = rp[i] + lane; k < rp[i + 1]; k += lanes)
        if (ci[k] != i && PORTLA_ABS(v[k]) > largest) largest = PORTLA_ABS(v[k]);
    return largest;
}

/* tpos[k] for the lane's entries k of row i (rows sorted by column): the position of (ci[k], i)
   in row ci[k], -1 when that row has no such entry; and strong[k] = 1 when ci[k] != i strongly
   influences i, else 0 (largest: the row's amg_classical_largest). Returns the lane's strong
   entries. */
PORTLA_FN int amg_classical_strength_entries(int i, int lane, int lanes, REAL largest,
                                             PORTLA_GLOBAL const int *rp,
                                             PORTLA_GLOBAL const int *ci,
                                             PORTLA_GLOBAL const REAL *v, REAL theta,
                                             PORTLA_GLOBAL int *strong, PORTLA_GLOBAL int *tpos) {
    int count = 0;
    for (int k = rp[i] + lane; k < rp[i + 1]; k += lanes) {
        const int j = ci[k];
        tpos[k] = amg_find_sorted(ci, rp[j], rp[j + 1], i);
        const REAL a = PORTLA_ABS(v[k]);
        const int s = j != i && a != 0 && a >= theta * largest;
        strong[k] = s;
        count += s;
    }
    return count;
}

/* Row i's strength by one lane (amg_classical_strength_entries over the whole row). Returns the
   row's strong entries. */
PORTLA_FN int amg_classical_strength_row(int i, PORTLA_GLOBAL const int *rp,
                                         PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const REAL *v,
                                         REAL theta, PORTLA_GLOBAL int *strong,
                                         PORTLA_GLOBAL int *tpos) {
    return amg_classical_strength_entries(i, 0, 1, amg_classical_largest(i, 0, 1, rp, ci, v), rp,
                                          ci, v, theta, strong, tpos);
}

/* Whether entry k of a row is a strong connection in either direction. */
PORTLA_FN int amg_either_strong(int k, PORTLA_GLOBAL const int *strong,
                                PORTLA_GLOBAL const int *tpos) {
    return strong[k] || (tpos[k] >= 0 && strong[tpos[k]]);
}

/* Row i's first PMIS key: undecided with its measure (the rows it strongly influences), or fine
   (0) when it influences none. */
PORTLA_FN void amg_pmis_init_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *tpos,
                                 PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL U64 *keys) {
    int measure = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) measure += tpos[k] >= 0 && strong[tpos[k]];
    if (measure > PORTLA_AMG_MEASURE_MAX) measure = PORTLA_AMG_MEASURE_MAX;
    keys[i] = measure == 0 ? (U64)0
                           : PORTLA_AMG_UNDECIDED | ((U64)measure << 48) |
                                 ((amg_row_hash(i) & 0xffffu) << 32) | (U64)(unsigned int)i;
}

/* A round's first pass: out[i] = keys[i], made coarse when row i is undecided and its key is
   above every undecided neighbour's. */
PORTLA_FN void amg_pmis_select_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const int *tpos,
                                   PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL U64 *out) {
    const U64 key = keys[i];
    int wins = PORTLA_AMG_STATE(key) == 1;
    for (int k = rp[i]; wins && k < rp[i + 1]; ++k) {
        const U64 other = keys[ci[k]];
        if (ci[k] != i && PORTLA_AMG_STATE(other) == 1 && amg_either_strong(k, strong, tpos) &&
            other > key)
            wins = 0;
    }
    out[i] = wins ? (key & ~((U64)3 << 62)) | PORTLA_AMG_IN : key;
}

/* A round's second pass: keys[i] = sel[i], made fine when row i is undecided and strongly
   depends on a coarse row. Returns 1 when row i is still undecided. */
PORTLA_FN int amg_pmis_fine_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const U64 *sel,
                                PORTLA_GLOBAL U64 *keys) {
    const U64 key = sel[i];
    keys[i] = key;
    if (PORTLA_AMG_STATE(key) != 1) return 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        if (strong[k] && PORTLA_AMG_STATE(sel[ci[k]]) == 2) {
            keys[i] = 0;
            return 0;
        }
    return 1;
}

/* HMIS (De Sterck, Yang and Heys, 2006): Ruge and Stueben's first pass run on each block of
   PORTLA_AMG_HMIS_BLOCK consecutive rows alone (hypre runs it on each process's rows), over the
   strong connections within the block, then PMIS rounds over the whole matrix for the rows
   the blocks left undecided; the blocks' coarse rows are PMIS's first independent set. The
   block pass is sequential (a binary heap of its undecided rows by measure): core/amg.cpp runs
   the blocks on the host's threads for every backend, so each backend gets the same split. A
   block of 2^14 rows holds several planes of a 3-D grid of 64^3: a block of one plane or less
   coarsens as in 2-D and keeps about half the rows (operator complexity 5 to 7 on poisson3d:64
   with blocks of 256 rows). */
#define PORTLA_AMG_HMIS_BLOCK 16384

/* Whether row a comes before row b in the heap: a larger measure, then the lower row. */
PORTLA_FN int amg_heap_above(PORTLA_GLOBAL const int *measure, int a, int b) {
    return measure[a] > measure[b] || (measure[a] == measure[b] && a < b);
}

/* Swaps heap positions p and q (heap: the rows from heap[first]; pos: each row's position). */
PORTLA_FN void amg_heap_swap(int first, int p, int q, PORTLA_GLOBAL int *heap,
                             PORTLA_GLOBAL int *pos) {
    const int a = heap[first + p], b = heap[first + q];
    heap[first + p] = b;
    heap[first + q] = a;
    pos[b] = p;
    pos[a] = q;
}

/* Restores the heap order above and below position p (of size entries). */
PORTLA_FN void amg_heap_fix(int first, int size, int p, PORTLA_GLOBAL int *heap,
                            PORTLA_GLOBAL int *pos, PORTLA_GLOBAL const int *measure) {
    while (p > 0 && amg_heap_above(measure, heap[first + p], heap[first + (p - 1) / 2])) {
        amg_heap_swap(first, p, (p - 1) / 2, heap, pos);
        p = (p - 1) / 2;
    }
    for (;;) {
        const int l = 2 * p + 1, r = l + 1;
        int m = p;
        if (l < size && amg_heap_above(measure, heap[first + l], heap[first + m])) m = l;
        if (r < size && amg_heap_above(measure, heap[first + r], heap[first + m])) m = r;
        if (m == p) return;
        amg_heap_swap(first, p, m, heap, pos);
        p = m;
    }
}

/* Takes row i out of the heap; returns the new size. */
PORTLA_FN int amg_heap_remove(int first, int size, int i, PORTLA_GLOBAL int *heap,
                              PORTLA_GLOBAL int *pos, PORTLA_GLOBAL const int *measure) {
    const int p = pos[i];
    amg_heap_swap(first, p, size - 1, heap, pos);
    pos[i] = -1;
    if (p < size - 1) amg_heap_fix(first, size - 1, p, heap, pos, measure);
    return size - 1;
}

/* Ruge and Stueben's first pass on block b (keys from amg_pmis_init_row; measure, heap, pos:
   scratch of one int a row): while an undecided row of the block strongly influences an
   undecided or fine one of the block, the one of largest measure (the lower row on a tie)
   becomes coarse and the undecided rows of the block that strongly depend on it fine. The
   measure of a row: the undecided rows of the block it strongly influences, plus twice the
   fine ones; so each new fine row adds 1 to the undecided rows it strongly depends on, and a
   new coarse row takes 1 from those it strongly depends on (hypre's update). */
PORTLA_FN void amg_hmis_block(int b, int rows, PORTLA_GLOBAL const int *rp,
                              PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                              PORTLA_GLOBAL const int *tpos, PORTLA_GLOBAL U64 *keys,
                              PORTLA_GLOBAL int *measure, PORTLA_GLOBAL int *heap,
                              PORTLA_GLOBAL int *pos) {
    const int first = b * PORTLA_AMG_HMIS_BLOCK;
    const int last = rows - first < PORTLA_AMG_HMIS_BLOCK ? rows : first + PORTLA_AMG_HMIS_BLOCK;
    int size = 0;
    for (int i = first; i < last; ++i) {
        int m = 0;
        for (int k = rp[i]; k < rp[i + 1]; ++k)
            m += ci[k] != i && ci[k] >= first && ci[k] < last && tpos[k] >= 0 && strong[tpos[k]];
        measure[i] = m;
        pos[i] = -1;
        if (PORTLA_AMG_STATE(keys[i]) == 1) {
            heap[first + size] = i;
            pos[i] = size++;
        }
    }
    for (int p = size / 2 - 1; p >= 0; --p) amg_heap_fix(first, size, p, heap, pos, measure);
    while (size > 0 && measure[heap[first]] > 0) {
        const int best = heap[first];
        size = amg_heap_remove(first, size, best, heap, pos, measure);
        keys[best] = (keys[best] & ~((U64)3 << 62)) | PORTLA_AMG_IN;
        for (int k = rp[best]; k < rp[best + 1]; ++k) {
            const int j = ci[k];
            if (j == best || j < first || j >= last || pos[j] < 0) continue;
            if (strong[k]) {
                --measure[j];
                amg_heap_fix(first, size, pos[j], heap, pos, measure);
            }
            if (tpos[k] < 0 || !strong[tpos[k]]) continue;
            keys[j] = 0;
            size = amg_heap_remove(first, size, j, heap, pos, measure);
            for (int q = rp[j]; q < rp[j + 1]; ++q) {
                const int m = ci[q];
                if (!strong[q] || m < first || m >= last || pos[m] < 0) continue;
                ++measure[m];
                amg_heap_fix(first, size, pos[m], heap, pos, measure);
            }
        }
    }
}

/* The entries of row i of P: 1 for a coarse row, else its strongly influencing coarse rows. */
PORTLA_FN int amg_interp_count_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const U64 *keys) {
    int count = 0;
    if (PORTLA_AMG_STATE(keys[i]) == 2) return 1;
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        count += strong[k] && PORTLA_AMG_STATE(keys[ci[k]]) == 2;
    return count;
}

/* Whether column m of row i is one of row i's strongly influencing coarse rows (C_i). */
PORTLA_FN int amg_in_coarse_set(int i, int m, PORTLA_GLOBAL const int *rp,
                                PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                                PORTLA_GLOBAL const U64 *keys) {
    const int at = amg_find_sorted(ci, rp[i], rp[i + 1], m);
    return at >= 0 && strong[at] && PORTLA_AMG_STATE(keys[m]) == 2;
}

/* The sum of row f's entries over C_i of the sign opposite to a_ff (those through which f
   passes its share to C_i); a_ff in *aff. */
PORTLA_FN REAL amg_share_sum(int i, int f, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                             PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const int *strong,
                             PORTLA_GLOBAL const U64 *keys, REAL *aff) {
    REAL a = 0, s = 0;
    for (int k = rp[f]; k < rp[f + 1]; ++k)
        if (ci[k] == f) a = v[k];
    for (int k = rp[f]; k < rp[f + 1]; ++k) {
        const int m = ci[k];
        if (m == f || v[k] * a >= 0 || !amg_in_coarse_set(i, m, rp, ci, strong, keys)) continue;
        s += v[k];
    }
    *aff = a;
    return s;
}

/* The position of coarse row m (a fine-level row) in row i of P (columns sorted), -1 when m is
   fine or not in that row. */
PORTLA_FN int amg_interp_position(int i, int m, PORTLA_GLOBAL const U64 *keys,
                                  PORTLA_GLOBAL const int *rank, PORTLA_GLOBAL const int *p_rp,
                                  PORTLA_GLOBAL const int *p_ci) {
    if (PORTLA_AMG_STATE(keys[m]) != 2) return -1;
    return amg_find_sorted(p_ci, p_rp[i], p_rp[i + 1], rank[m]);
}

/* Row i of P (its offsets p_rp given; rank: the coarse rows' numbers), columns in order: a
   coarse row's one entry, 1; a fine row's classical interpolation from C_i (Stueben's, with the
   sign of each strong fine neighbour's entries taken into account, hypre's "classical
   modified"):
     w_ij = -(a_ij + sum_{f in F_i} a_if abar_fj / sum_{m in C_i} abar_fm) / d_i,
   F_i the strongly influencing fine rows, abar_fm = a_fm where its sign is opposite to a_ff
   (else 0), d_i = a_ii plus the weak connections plus a_if for each f in F_i whose sum is 0
   (a_ii alone where that sum is below 2% of a_ii or has not its sign). With weights 0 only the
   pattern: every value 1. */
PORTLA_FN void amg_interp_fill_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const int *strong,
                                   PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL const int *rank,
                                   int weights, PORTLA_GLOBAL const int *p_rp,
                                   PORTLA_GLOBAL int *p_ci, PORTLA_GLOBAL REAL *p_v) {
    int at = p_rp[i];
    REAL diag = 0, aii = 0, aff = 0;
    if (PORTLA_AMG_STATE(keys[i]) == 2) {
        p_ci[at] = rank[i];
        p_v[at] = 1;
        return;
    }
    if (p_rp[i + 1] == at) return;
    if (!weights) {
        for (int k = rp[i]; k < rp[i + 1]; ++k)
            if (strong[k] && PORTLA_AMG_STATE(keys[ci[k]]) == 2) {
                p_ci[at] = rank[ci[k]];
                p_v[at++] = 1;
            }
        return;
    }
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int j = ci[k];
        if (j == i) aii = v[k];
        if (j == i || !strong[k]) {
            diag += v[k];
        } else if (PORTLA_AMG_STATE(keys[j]) != 2) {
            if (amg_share_sum(i, j, rp, ci, v, strong, keys, &aff) == 0) diag += v[k];
        }
    }
    /* Lumping that cancels the diagonal (below 2% of a_ii) or turns its sign is dropped, a_ii
       alone: coarse operators have entries of both signs, and the cancellation made weights of
       1e14 (3-D Poisson 64^3, second level). 2% keeps the lumping of the fine levels, where
       the iterations need it (at 10% CG + a V cycle took 21 iterations on Poisson 64^3 instead
       of 15). */
    if (!(diag * aii > 0) || PORTLA_ABS(diag) < (REAL)0.02 * PORTLA_ABS(aii)) diag = aii;
    /* The numerators, a_ij for each j in C_i (P's columns in the order of A's), then each
       f in F_i passes its share a_if abar_fj / sum to every j in C_i at once (one pass over
       row f, the sums added to each numerator in the order of F_i), then the division by
       d_i. */
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        if (!strong[k] || PORTLA_AMG_STATE(keys[ci[k]]) != 2) continue;
        p_ci[at] = rank[ci[k]];
        p_v[at++] = v[k];
    }
    for (int q = rp[i]; q < rp[i + 1]; ++q) {
        const int f = ci[q];
        if (f == i || !strong[q] || PORTLA_AMG_STATE(keys[f]) == 2) continue;
        const REAL sum = amg_share_sum(i, f, rp, ci, v, strong, keys, &aff);
        if (sum == 0) continue;
        for (int k = rp[f]; k < rp[f + 1]; ++k) {
            const int m = ci[k];
            if (m == f || v[k] * aff >= 0) continue;
            const int pos = amg_interp_position(i, m, keys, rank, p_rp, p_ci);
            if (pos >= 0) p_v[pos] += v[q] * v[k] / sum;
        }
    }
    for (int k = p_rp[i]; k < at; ++k) p_v[k] = -p_v[k] / diag;
}

/* Extended+i interpolation (De Sterck, Falgout, Nolting and Yang, Numer. Linear Algebra Appl.
   15, 2008): a fine row i interpolates from C^_i, its strongly influencing coarse rows C_i and
   those of its strongly influencing fine rows F_i. The pattern of P is that of E P_direct, E
   the matrix of amg_fine_neighbours_fill_row (row i: i itself and F_i; a coarse row: itself),
   built by the sparse product; amg_ext_fill_row then writes the weights on it. */

/* The entries of row i of E: 1 for a coarse row, else 1 + |F_i|. */
PORTLA_FN int amg_fine_neighbours_count_row(int i, PORTLA_GLOBAL const int *rp,
                                            PORTLA_GLOBAL const int *ci,
                                            PORTLA_GLOBAL const int *strong,
                                            PORTLA_GLOBAL const U64 *keys) {
    int count = 1;
    if (PORTLA_AMG_STATE(keys[i]) == 2) return 1;
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        count += strong[k] && PORTLA_AMG_STATE(keys[ci[k]]) != 2;
    return count;
}

/* Row i of E (its offsets e_rp given), columns in order, every value 1. */
PORTLA_FN void amg_fine_neighbours_fill_row(int i, PORTLA_GLOBAL const int *rp,
                                            PORTLA_GLOBAL const int *ci,
                                            PORTLA_GLOBAL const int *strong,
                                            PORTLA_GLOBAL const U64 *keys,
                                            PORTLA_GLOBAL const int *e_rp, PORTLA_GLOBAL int *e_ci,
                                            PORTLA_GLOBAL REAL *e_v) {
    int at = e_rp[i], self = 0;
    const int fine = PORTLA_AMG_STATE(keys[i]) != 2;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const int j = ci[k];
        if (!self && j > i) {
            e_ci[at] = i;
            e_v[at++] = 1;
            self = 1;
        }
        if (fine && strong[k] && PORTLA_AMG_STATE(keys[j]) != 2) {
            e_ci[at] = j;
            e_v[at++] = 1;
        }
    }
    if (!self) {
        e_ci[at] = i;
        e_v[at] = 1;
    }
}

/* The position in P's values of coarse row m (a fine-level row) in row i of P, -1 when m is fine
   or not in that row: with a map (not 0) of row i over the fine-level rows, map[m] = that
   position (-1 for every other row), a CPU thread's dense map of the row; else by a binary search
   of the row's columns `cols` (p_ci from p_rp[i] or a copy of them; sorted), `len` of them,
   the row's first value at `first`. */
PORTLA_FN int amg_interp_lookup(int m, PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL const int *rank,
                                int first, int len, PORTLA_GLOBAL const int *cols,
                                PORTLA_GLOBAL const int *map) {
    if (map) return map[m];
    if (PORTLA_AMG_STATE(keys[m]) != 2) return -1;
    const int at = amg_find_sorted(cols, 0, len, rank[m]);
    return at < 0 ? -1 : first + at;
}

/* The values of row i of P on its pattern (p_rp, p_ci given; rank: the coarse rows' numbers):
   a coarse row's one entry, 1; a fine row's extended+i weights
     w_ij = -(a_ij + sum_{k in F_i} a_ik abar_kj / sum_{l in C^_i + {i}} abar_kl) / d_i,
     d_i = a_ii + sum_{n not in C^_i + F_i} a_in + sum_{k in F_i} a_ik abar_ki / (the same sum),
   abar_kl = a_kl where its sign is opposite to a_kk (else 0); a row k whose sum is 0 adds a_ik
   to d_i. d_i is a_ii alone where it would fall below 2% of a_ii or turn its sign (as in
   amg_interp_fill_row).
   The row is formed in the steps below, each split over `lanes` cooperating lanes (this one
   `lane`, 0 <= lane < lanes): the one-lane amg_ext_fill_row_map runs them in order, a GPU runs
   them with a group of lanes per row, the lanes synchronised between steps and their parts of
   d_i and of each row's sum added. Every weight w_ij is summed in the same order either way (the
   direct a_ij, then the shares in the order of row i); only the sums over lanes are ordered
   otherwise. The steps find row i's columns with amg_interp_lookup: `cols` are the row's
   columns (p_ci from p_rp[i], or a copy of them), `map` a dense map of the row (0: none). */

/* Whether entry k (column j) of row i is in F_i: a strongly influencing fine row. */
PORTLA_FN int amg_ext_fine_neighbour(int i, int k, PORTLA_GLOBAL const int *ci,
                                     PORTLA_GLOBAL const int *strong,
                                     PORTLA_GLOBAL const U64 *keys) {
    return ci[k] != i && strong[k] && PORTLA_AMG_STATE(keys[ci[k]]) != 2;
}

/* a_jj (0 where row j, sorted by column, has no diagonal entry). */
PORTLA_FN REAL amg_diagonal_entry(int j, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                  PORTLA_GLOBAL const REAL *v) {
    const int at = amg_find_sorted(ci, rp[j], rp[j + 1], j);
    return at >= 0 ? v[at] : (REAL)0;
}

/* Step 1: the lane's entries of row i of P set to 0. */
PORTLA_FN void amg_ext_zero(int i, int lane, int lanes, PORTLA_GLOBAL const int *p_rp,
                            PORTLA_GLOBAL REAL *p_v) {
    for (int at = p_rp[i] + lane; at < p_rp[i + 1]; at += lanes) p_v[at] = 0;
}

/* Step 2: the lane's entries of row i of A outside F_i: a_ij of j in C^_i added to its weight;
   the lane's part of a_ii + sum_{n not in C^_i + F_i} a_in returned, and a_ii added to *aii. */
PORTLA_FN REAL amg_ext_direct(int i, int lane, int lanes, PORTLA_GLOBAL const int *rp,
                              PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const REAL *v,
                              PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const U64 *keys,
                              PORTLA_GLOBAL const int *rank, PORTLA_GLOBAL const int *p_rp,
                              PORTLA_GLOBAL const int *cols, PORTLA_GLOBAL const int *map,
                              REAL *aii, PORTLA_GLOBAL REAL *p_v) {
    REAL diag = 0;
    for (int k = rp[i] + lane; k < rp[i + 1]; k += lanes) {
        const int j = ci[k];
        if (j == i) {
            *aii += v[k];
            diag += v[k];
        } else if (!amg_ext_fine_neighbour(i, k, ci, strong, keys)) {
            const int at =
                amg_interp_lookup(j, keys, rank, p_rp[i], p_rp[i + 1] - p_rp[i], cols, map);
            if (at >= 0)
                p_v[at] += v[k];
            else
                diag += v[k];
        }
    }
    return diag;
}

/* Where entry q (column m) of row j goes in row j's share of row i: -1 nowhere (m is j, or of
   a_jj's sign, or outside C^_i + {i}); -2 to d_i (m is i); else the position of m's weight in
   P's values. */
PORTLA_FN int amg_ext_target(int i, int j, int q, REAL ajj, PORTLA_GLOBAL const int *ci,
                             PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const U64 *keys,
                             PORTLA_GLOBAL const int *rank, PORTLA_GLOBAL const int *p_rp,
                             PORTLA_GLOBAL const int *cols, PORTLA_GLOBAL const int *map) {
    const int m = ci[q];
    if (m == j || !(v[q] * ajj < 0)) return -1;
    if (m == i) return -2;
    return amg_interp_lookup(m, keys, rank, p_rp[i], p_rp[i + 1] - p_rp[i], cols, map);
}

/* Step 3, for each j in F_i (row j's a_jj given): the lane's part of sum_{l in C^_i + {i}}
   abar_jl. With `found` (0: none; one lane only) the entries taken are noted there, *taken of
   them. With `targets` instead (0: none; `room` of them) the lane's t-th entry's target (as
   amg_ext_target) is kept in targets[t] for t < room, for step 4 to reuse. */
PORTLA_FN REAL amg_ext_share_sum(int i, int j, int lane, int lanes, REAL ajj,
                                 PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                 PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const U64 *keys,
                                 PORTLA_GLOBAL const int *rank, PORTLA_GLOBAL const int *p_rp,
                                 PORTLA_GLOBAL const int *cols, PORTLA_GLOBAL const int *map,
                                 PORTLA_GLOBAL int *found, int *taken, int *targets, int room) {
    REAL sum = 0;
    int t = 0;
    for (int q = rp[j] + lane; q < rp[j + 1]; q += lanes, ++t) {
        const int to = amg_ext_target(i, j, q, ajj, ci, v, keys, rank, p_rp, cols, map);
        if (targets && t < room) targets[t] = to;
        if (to != -1) {
            sum += v[q];
            if (found) found[(*taken)++] = q;
        }
    }
    return sum;
}

/* Step 4, for each j in F_i whose sum is not 0 (share = a_ij / the sum): share abar_jm added to
   the weight of each m in C^_i, the lane's part of share abar_ji returned (d_i's). The lane passes
   the entries it took in step 3 (those in `found`, *taken of them, where given), or reads the
   targets step 3 kept (`targets`, `room`; not with `found`, whose entries are numbered
   otherwise). */
PORTLA_FN REAL amg_ext_share_add(int i, int j, int lane, int lanes, REAL ajj, REAL share,
                                 PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                 PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const U64 *keys,
                                 PORTLA_GLOBAL const int *rank, PORTLA_GLOBAL const int *p_rp,
                                 PORTLA_GLOBAL const int *cols, PORTLA_GLOBAL const int *map,
                                 PORTLA_GLOBAL const int *found, int taken, const int *targets,
                                 int room, PORTLA_GLOBAL REAL *p_v) {
    REAL diag = 0;
    const int entries = found ? taken : rp[j + 1] - rp[j];
    int t = 0;
    for (int e = lane; e < entries; e += lanes, ++t) {
        const int q = found ? found[e] : rp[j] + e;
        const int to = targets && t < room
                           ? targets[t]
                           : amg_ext_target(i, j, q, ajj, ci, v, keys, rank, p_rp, cols, map);
        if (to == -2)
            diag += share * v[q];
        else if (to >= 0)
            p_v[to] += share * v[q];
    }
    return diag;
}

/* Step 5: d_i (the lanes' parts added) guarded as above, and the lane's weights of row i
   divided by -d_i. */
PORTLA_FN void amg_ext_scale(int i, int lane, int lanes, REAL diag, REAL aii,
                             PORTLA_GLOBAL const int *p_rp, PORTLA_GLOBAL REAL *p_v) {
    if (!(diag * aii > 0) || PORTLA_ABS(diag) < (REAL)0.02 * PORTLA_ABS(aii)) diag = aii;
    for (int at = p_rp[i] + lane; at < p_rp[i + 1]; at += lanes) p_v[at] = -p_v[at] / diag;
}

/* Row i's weights by one lane: the steps in order. With `found` (0: none; else room for the
   longest row of A) the shares are added over the entries each row j's sum took alone. */
PORTLA_FN void amg_ext_fill_row_map(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                    PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const int *strong,
                                    PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL const int *rank,
                                    PORTLA_GLOBAL const int *p_rp, PORTLA_GLOBAL const int *p_ci,
                                    PORTLA_GLOBAL const int *map, PORTLA_GLOBAL int *found,
                                    PORTLA_GLOBAL REAL *p_v) {
    REAL aii = 0;
    if (PORTLA_AMG_STATE(keys[i]) == 2) {
        p_v[p_rp[i]] = 1;
        return;
    }
    if (p_rp[i + 1] == p_rp[i]) return;
    PORTLA_GLOBAL const int *cols = p_ci + p_rp[i];
    amg_ext_zero(i, 0, 1, p_rp, p_v);
    REAL diag = amg_ext_direct(i, 0, 1, rp, ci, v, strong, keys, rank, p_rp, cols, map, &aii, p_v);
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
        if (!amg_ext_fine_neighbour(i, k, ci, strong, keys)) continue;
        const int j = ci[k];
        const REAL ajj = amg_diagonal_entry(j, rp, ci, v);
        int taken = 0;
        const REAL sum = amg_ext_share_sum(i, j, 0, 1, ajj, rp, ci, v, keys, rank, p_rp, cols, map,
                                           found, &taken, 0, 0);
        if (sum == 0) {
            diag += v[k];
            continue;
        }
        diag += amg_ext_share_add(i, j, 0, 1, ajj, v[k] / sum, rp, ci, v, keys, rank, p_rp, cols,
                                  map, found, taken, 0, 0, p_v);
    }
    amg_ext_scale(i, 0, 1, diag, aii, p_rp, p_v);
}

/* amg_ext_fill_row_map with the binary search, every entry of each row j passed twice. */
PORTLA_FN void amg_ext_fill_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const int *strong,
                                PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL const int *rank,
                                PORTLA_GLOBAL const int *p_rp, PORTLA_GLOBAL const int *p_ci,
                                PORTLA_GLOBAL REAL *p_v) {
    amg_ext_fill_row_map(i, rp, ci, v, strong, keys, rank, p_rp, p_ci, 0, 0, p_v);
}

/* Truncation of row i of P (hypre's): it keeps its non-zero weights with |w| >= factor
   max_row |w|, at most max_entries of them (0: no limit), the largest (ties to the earlier
   position). Here: the kept are those above *cut and the first *ties equal to it; found by
   max_entries passes at most, each taking the next smaller value. */
PORTLA_FN void amg_trunc_cutoff(int i, PORTLA_GLOBAL const int *p_rp, PORTLA_GLOBAL const REAL *p_v,
                                REAL factor, int max_entries, REAL *cut, int *ties) {
    REAL largest = 0, prev = 0;
    int count = 0;
    for (int q = p_rp[i]; q < p_rp[i + 1]; ++q)
        if (PORTLA_ABS(p_v[q]) > largest) largest = PORTLA_ABS(p_v[q]);
    *cut = factor * largest;
    *ties = 0x7fffffff;
    while (count < max_entries) {
        REAL next = 0;
        int equal = 0;
        for (int q = p_rp[i]; q < p_rp[i + 1]; ++q) {
            const REAL a = PORTLA_ABS(p_v[q]);
            if (a >= *cut && (count == 0 || a < prev) && a > next) next = a;
        }
        if (next == 0) return; /* fewer than max_entries: every weight from the cut on */
        for (int q = p_rp[i]; q < p_rp[i + 1]; ++q) equal += PORTLA_ABS(p_v[q]) == next;
        if (count + equal >= max_entries) {
            *cut = next;
            *ties = max_entries - count;
            return;
        }
        count += equal;
        prev = next;
    }
}

/* Whether a weight of magnitude a is kept, *seen counting the weights equal to the cut. */
PORTLA_FN int amg_trunc_keep(REAL a, REAL cut, int ties, int *seen) {
    if (a == 0 || a < cut) return 0;
    if (a > cut) return 1;
    return (*seen)++ < ties;
}

/* The entries row i of P keeps under truncation. */
PORTLA_FN int amg_trunc_count_row(int i, PORTLA_GLOBAL const int *p_rp,
                                  PORTLA_GLOBAL const REAL *p_v, REAL factor, int max_entries) {
    REAL cut;
    int ties, seen = 0, count = 0;
    amg_trunc_cutoff(i, p_rp, p_v, factor, max_entries, &cut, &ties);
    for (int at = p_rp[i]; at < p_rp[i + 1]; ++at)
        count += amg_trunc_keep(PORTLA_ABS(p_v[at]), cut, ties, &seen);
    return count;
}

/* Row i of the truncated P (its offsets t_rp given): the kept entries, scaled so that the row
   keeps its sum (unscaled where the kept entries sum to 0 or the scale is not positive). */
PORTLA_FN void amg_trunc_fill_row(int i, PORTLA_GLOBAL const int *p_rp,
                                  PORTLA_GLOBAL const int *p_ci, PORTLA_GLOBAL const REAL *p_v,
                                  REAL factor, int max_entries, PORTLA_GLOBAL const int *t_rp,
                                  PORTLA_GLOBAL int *t_ci, PORTLA_GLOBAL REAL *t_v) {
    REAL cut, all = 0, kept = 0, scale = 1;
    int ties, seen = 0, to = t_rp[i];
    amg_trunc_cutoff(i, p_rp, p_v, factor, max_entries, &cut, &ties);
    for (int at = p_rp[i]; at < p_rp[i + 1]; ++at) {
        all += p_v[at];
        if (amg_trunc_keep(PORTLA_ABS(p_v[at]), cut, ties, &seen)) kept += p_v[at];
    }
    if (kept != 0 && all / kept > 0) scale = all / kept;
    seen = 0;
    for (int at = p_rp[i]; at < p_rp[i + 1]; ++at)
        if (amg_trunc_keep(PORTLA_ABS(p_v[at]), cut, ties, &seen)) {
            t_ci[to] = p_ci[at];
            t_v[to++] = p_v[at] * scale;
        }
}

/* Aggressive coarsening (hypre BoomerAMG's agg_num_levels; Yang, Numer. Linear Algebra Appl.
   17, 2010): a second split of the first split's coarse rows C1 by PMIS on the distance-2
   graph among them, G = M^T M with M = (S + S^T + I) restricted to the columns of C1 (an entry
   (k, c) where c in C1 and k = c or c strongly influences k or depends on it strongly), so that
   c and c' in C1 are neighbours in G when a path of at most two strong connections (of either
   direction) joins them: hypre's "A-1" aggressive coarsening on the symmetrised strength. The
   rows of C1 that PMIS keeps (C2) are the coarse rows; the rest of C1 become fine rows, and
   multipass interpolation reaches C2 from every fine row that a path of strong connections
   joins to C2. */

/* Whether entry q of row k is an entry of M (c1: 1 for a row of C1, else 0): the diagonal of a
   C1 row, or a strong connection of either direction to a C1 row. */
PORTLA_FN int amg_agg_graph_entry(int k, int q, PORTLA_GLOBAL const int *ci,
                                  PORTLA_GLOBAL const int *strong, PORTLA_GLOBAL const int *tpos,
                                  PORTLA_GLOBAL const int *c1) {
    return ci[q] == k ? c1[k] : c1[ci[q]] && amg_either_strong(q, strong, tpos);
}

/* The entries of row k of M. */
PORTLA_FN int amg_agg_graph_count_row(int k, PORTLA_GLOBAL const int *rp,
                                      PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                                      PORTLA_GLOBAL const int *tpos, PORTLA_GLOBAL const int *c1) {
    int count = 0;
    for (int q = rp[k]; q < rp[k + 1]; ++q)
        count += amg_agg_graph_entry(k, q, ci, strong, tpos, c1);
    return count;
}

/* Row k of M (its offsets m_rp given; rank1: each C1 row's number among C1), columns in
   order, every value 1. */
PORTLA_FN void amg_agg_graph_fill_row(int k, PORTLA_GLOBAL const int *rp,
                                      PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                                      PORTLA_GLOBAL const int *tpos, PORTLA_GLOBAL const int *c1,
                                      PORTLA_GLOBAL const int *rank1, PORTLA_GLOBAL const int *m_rp,
                                      PORTLA_GLOBAL int *m_ci, PORTLA_GLOBAL REAL *m_v) {
    int at = m_rp[k];
    for (int q = rp[k]; q < rp[k + 1]; ++q)
        if (amg_agg_graph_entry(k, q, ci, strong, tpos, c1)) {
            m_ci[at] = rank1[ci[q]];
            m_v[at++] = 1;
        }
}

/* The second split mapped back to row i: its key stays coarse when i is in C1 (keys: the
   first split) and PMIS on G kept it (g_keys: G's keys) or it has no other C1 row within
   distance 2 (its row of G, offsets g_rp, holds its diagonal alone: PMIS made it fine from
   the start), else 0 (fine). */
PORTLA_FN void amg_agg_split_row(int i, PORTLA_GLOBAL U64 *keys, PORTLA_GLOBAL const int *rank1,
                                 PORTLA_GLOBAL const int *g_rp, PORTLA_GLOBAL const U64 *g_keys) {
    if (PORTLA_AMG_STATE(keys[i]) != 2) return;
    const int r = rank1[i];
    if (PORTLA_AMG_STATE(g_keys[r]) != 2 && g_rp[r + 1] - g_rp[r] > 1) keys[i] = 0;
}

/* Multipass interpolation (Stueben, GMD report 70, 1999; hypre BoomerAMG's agg_interp_type 4):
   coarse rows are pass 0; a fine row with a strongly influencing coarse row is pass 1 and
   interpolates directly from those; a fine row with a strongly influencing row of pass k - 1 (and
   none of an earlier pass) is pass k and interpolates through the interpolation of its strongly
   influencing rows of passes below k. The row of pass k (pass[i] = k) in the rows it reaches
   through: w_im = -alpha_i a_im / d_i for its strongly influencing rows m of passes 0 ... k - 1
   with a_im < 0, alpha_i = sum_{n != i, a_in < 0} a_in / sum_{those m} a_im (beta_i and the
   positive a_im alike), so that a row of zero sum interpolates the constant exactly; d_i =
   a_ii plus the connections of a sign that has no such m (a_ii alone where d_i would fall below
   2% of a_ii or turn its sign, as in amg_interp_fill_row). Row i of P is then sum_m w_im
   (row m of P): for pass 1 the coarse rows' columns, for pass k > 1 a sparse product with the
   P of the passes before. */

/* Row i's pass after pass k (k >= 1) from the passes before it (in; pass k = 1 reads keys
   instead): out[i] = in[i] when decided, k when it is undecided (-1) and a strongly influencing
   row has pass k - 1. Returns 1 when row i took pass k. */
PORTLA_FN int amg_multipass_row(int i, int k, PORTLA_GLOBAL const int *rp,
                                PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                                PORTLA_GLOBAL const U64 *keys, PORTLA_GLOBAL const int *in,
                                PORTLA_GLOBAL int *out) {
    int p = k == 1 ? (PORTLA_AMG_STATE(keys[i]) == 2 ? 0 : -1) : in[i];
    out[i] = p;
    if (p >= 0) return 0;
    for (int q = rp[i]; q < rp[i + 1]; ++q) {
        const int j = ci[q];
        if (strong[q] && (k == 1 ? PORTLA_AMG_STATE(keys[j]) == 2 : in[j] == k - 1)) {
            out[i] = k;
            return 1;
        }
    }
    return 0;
}

/* The entries of row i of W_k, the step of pass k (P_k = W_k P_{k-1}; for k = 1, P_1 itself):
   1 for a row of an earlier pass (it keeps its row), its strongly influencing rows of earlier
   passes for a row of pass k, none for the others. */
PORTLA_FN int amg_multipass_count_row(int i, int k, PORTLA_GLOBAL const int *rp,
                                      PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const int *strong,
                                      PORTLA_GLOBAL const int *pass) {
    const int p = pass[i];
    int count = 0;
    if (p < 0 || p > k) return 0;
    if (p < k) return 1;
    for (int q = rp[i]; q < rp[i + 1]; ++q) {
        const int m = pass[ci[q]];
        count += ci[q] != i && strong[q] && m >= 0 && m < k;
    }
    return count;
}

/* Row i of W_k (its offsets w_rp given), columns in order: for k = 1 the coarse rows' numbers
   (rank), else the rows of the level. */
PORTLA_FN void amg_multipass_fill_row(int i, int k, PORTLA_GLOBAL const int *rp,
                                      PORTLA_GLOBAL const int *ci, PORTLA_GLOBAL const REAL *v,
                                      PORTLA_GLOBAL const int *strong,
                                      PORTLA_GLOBAL const int *pass, PORTLA_GLOBAL const int *rank,
                                      PORTLA_GLOBAL const int *w_rp, PORTLA_GLOBAL int *w_ci,
                                      PORTLA_GLOBAL REAL *w_v) {
    const int p = pass[i];
    int at = w_rp[i];
    REAL aii = 0, neg = 0, pos = 0, neg_in = 0, pos_in = 0, diag, alpha, beta;
    if (p < 0 || p > k) return;
    if (p < k) {
        w_ci[at] = k == 1 ? rank[i] : i;
        w_v[at] = 1;
        return;
    }
    for (int q = rp[i]; q < rp[i + 1]; ++q) {
        const int j = ci[q], m = pass[j];
        const int reach = j != i && strong[q] && m >= 0 && m < k;
        if (j == i) {
            aii += v[q];
        } else if (v[q] < 0) {
            neg += v[q];
            if (reach) neg_in += v[q];
        } else {
            pos += v[q];
            if (reach) pos_in += v[q];
        }
    }
    diag = aii + (neg_in == 0 ? neg : 0) + (pos_in == 0 ? pos : 0);
    if (!(diag * aii > 0) || PORTLA_ABS(diag) < (REAL)0.02 * PORTLA_ABS(aii)) diag = aii;
    alpha = neg_in != 0 ? neg / neg_in : 0;
    beta = pos_in != 0 ? pos / pos_in : 0;
    for (int q = rp[i]; q < rp[i + 1]; ++q) {
        const int j = ci[q], m = pass[j];
        if (j == i || !strong[q] || m < 0 || m >= k) continue;
        w_ci[at] = k == 1 ? rank[j] : j;
        w_v[at++] = -(v[q] < 0 ? alpha : beta) * v[q] / diag;
    }
}

/* One Jacobi step on the fine rows of P (Stueben's Jacobi interpolation): P <- S P with S =
   I - D^-1 A on the fine rows and I on the coarse ones, its values s on A's pattern (row i).
   A row of zero sum keeps the constant: (S P 1)_i = 1 - (A 1)_i / a_ii. */
PORTLA_FN void amg_fine_jacobi_row(int i, PORTLA_GLOBAL const int *rp, PORTLA_GLOBAL const int *ci,
                                   PORTLA_GLOBAL const REAL *v, PORTLA_GLOBAL const U64 *keys,
                                   PORTLA_GLOBAL REAL *s) {
    REAL aii = 0;
    const int fine = PORTLA_AMG_STATE(keys[i]) != 2;
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        if (ci[k] == i) aii = v[k];
    for (int k = rp[i]; k < rp[i + 1]; ++k)
        s[k] = (ci[k] == i ? (REAL)1 : (REAL)0) - (fine && aii != 0 ? v[k] / aii : (REAL)0);
}
