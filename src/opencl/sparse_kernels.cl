// The sparse and aggregation kernels (core/kernels/sparse_kernels.hpp, amg_kernels.hpp) in
// OpenCL C: each a loop of the work-item's rows over a row function of sparse_rows.h or
// aggregation_rows.h (built before this file, after rows.cl), and the prefix sums.

// Rows [first, last): the work-item's share.
#define PORTLA_FOR_ROWS(i, first, last)      \
    PORTLA_FOR_EACH(i##_k, (last) - (first)) \
    for (int i = (int)((first) + i##_k), i##_once = 1; i##_once; i##_once = 0)

// The first pass's capped tables (counts: null), or the retry tables of the rows whose capped
// table overflowed (counts[i - first] < 0; slots indexed by i - first).
kernel void spgemm_slots(ulong first, ulong last, PORTLA_BUFFER(const int, a_rp),
                         PORTLA_BUFFER(const int, a_ci), PORTLA_BUFFER(const int, b_rp), int b_cols,
                         int retry, PORTLA_BUFFER(const int, counts), PORTLA_BUFFER(long, slots)) {
    global const int *arp = PORTLA_AT(const int, a_rp), *aci = PORTLA_AT(const int, a_ci),
                     *brp = PORTLA_AT(const int, b_rp);
    global long *s = PORTLA_AT(long, slots);
    PORTLA_FOR_ROWS(i, first, last) {
        const long bound = spgemm_row_bound(i, arp, aci, brp);
        if (retry)
            s[i - first] = PORTLA_AT(const int, counts)[i - first] < 0
                               ? spgemm_table_slots(bound, b_cols, 0)
                               : 0;
        else
            s[i] = spgemm_table_slots(bound, b_cols, 1);
    }
}

kernel void spgemm_accumulate(ulong first, ulong last, PORTLA_BUFFER(const int, a_rp),
                              PORTLA_BUFFER(const int, a_ci), PORTLA_BUFFER(const REAL, a_v),
                              PORTLA_BUFFER(const int, b_rp), PORTLA_BUFFER(const int, b_ci),
                              PORTLA_BUFFER(const REAL, b_v), PORTLA_BUFFER(const long, offsets),
                              long base, int retry, PORTLA_BUFFER(int, keys),
                              PORTLA_BUFFER(REAL, vals), PORTLA_BUFFER(int, counts)) {
    global const long *off = PORTLA_AT(const long, offsets);
    global int *c = PORTLA_AT(int, counts);
    PORTLA_FOR_ROWS(i, first, last) {
        const ulong o = retry ? i - first : (ulong)i;
        const long t = off[o + 1] - off[o];
        if (retry && t == 0) continue;
        c[i - first] = spgemm_row_accumulate(
            i, PORTLA_AT(const int, a_rp), PORTLA_AT(const int, a_ci), PORTLA_AT(const REAL, a_v),
            PORTLA_AT(const int, b_rp), PORTLA_AT(const int, b_ci), PORTLA_AT(const REAL, b_v),
            PORTLA_AT(int, keys), PORTLA_AT(REAL, vals), off[o] - base, t);
    }
}

kernel void spgemm_extract(ulong first, ulong last, PORTLA_BUFFER(const long, offsets), long base,
                           PORTLA_BUFFER(const int, keys), PORTLA_BUFFER(const REAL, vals),
                           int retry, PORTLA_BUFFER(const long, offsets2),
                           PORTLA_BUFFER(const int, keys2), PORTLA_BUFFER(const REAL, vals2),
                           PORTLA_BUFFER(const int, c_rp), PORTLA_BUFFER(int, c_ci),
                           PORTLA_BUFFER(REAL, c_v)) {
    global const long *off = PORTLA_AT(const long, offsets);
    global const long *off2 = PORTLA_AT(const long, offsets2);
    PORTLA_FOR_ROWS(i, first, last) {
        const long t2 = retry ? off2[i - first + 1] - off2[i - first] : 0;
        if (t2 > 0)
            spgemm_row_extract(i, PORTLA_AT(const int, keys2), PORTLA_AT(const REAL, vals2),
                               off2[i - first], t2, PORTLA_AT(const int, c_rp),
                               PORTLA_AT(int, c_ci), PORTLA_AT(REAL, c_v));
        else
            spgemm_row_extract(i, PORTLA_AT(const int, keys), PORTLA_AT(const REAL, vals),
                               off[i] - base, off[i + 1] - off[i], PORTLA_AT(const int, c_rp),
                               PORTLA_AT(int, c_ci), PORTLA_AT(REAL, c_v));
    }
}

kernel void transpose_count(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                            PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        transpose_row_count(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                            PORTLA_AT(int, counts));
    }
}

kernel void transpose_scatter(ulong rows, PORTLA_BUFFER(const int, rp),
                              PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const REAL, v),
                              PORTLA_BUFFER(const int, b_rp), PORTLA_BUFFER(int, filled),
                              PORTLA_BUFFER(int, b_ci), PORTLA_BUFFER(REAL, b_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        transpose_row_scatter(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                              PORTLA_AT(const REAL, v), PORTLA_AT(const int, b_rp),
                              PORTLA_AT(int, filled), PORTLA_AT(int, b_ci), PORTLA_AT(REAL, b_v));
    }
}

kernel void sort_rows(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(int, ci),
                      PORTLA_BUFFER(REAL, v)) {
    global const int *p = PORTLA_AT(const int, rp);
    PORTLA_FOR_ROWS(i, 0, rows) {
        sort_entries(PORTLA_AT(int, ci), PORTLA_AT(REAL, v), p[i], p[i + 1] - p[i]);
    }
}

// ---- aggregation ---------------------------------------------------------------------------

kernel void amg_strength(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                         PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const REAL, d), REAL theta,
                         PORTLA_BUFFER(int, strong), PORTLA_BUFFER(ulong, keys),
                         PORTLA_BUFFER(int, isolated)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        const int count = amg_strength_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                           PORTLA_AT(const REAL, v), PORTLA_AT(const REAL, d),
                                           theta, PORTLA_AT(int, strong));
        amg_mis_init_row(i, count, PORTLA_AT(ulong, keys));
        PORTLA_AT(int, isolated)[i] = count == 0;
    }
}

kernel void amg_max(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                    PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const ulong, in),
                    PORTLA_BUFFER(ulong, out)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_max_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                    PORTLA_AT(const int, strong), PORTLA_AT(const ulong, in),
                    PORTLA_AT(ulong, out));
    }
}

// total[0] += the rows still undecided (a local count per work-group, one global atomic).
kernel void amg_mis_update(ulong rows, PORTLA_BUFFER(ulong, keys), PORTLA_BUFFER(const ulong, m2),
                           PORTLA_BUFFER(int, total)) {
    local int count;
    if (get_local_id(0) == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int mine = 0;
    PORTLA_FOR_ROWS(i, 0, rows) {
        mine += amg_mis_update_row(i, PORTLA_AT(ulong, keys), PORTLA_AT(const ulong, m2));
    }
    if (mine) atomic_add(&count, mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && count) atomic_add(PORTLA_AT(int, total), count);
}

kernel void amg_roots(ulong rows, PORTLA_BUFFER(const ulong, keys), PORTLA_BUFFER(int, roots)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, roots)[i] = amg_root_row(i, PORTLA_AT(const ulong, keys));
    }
}

kernel void amg_root_aggregates(ulong rows, PORTLA_BUFFER(const ulong, keys),
                                PORTLA_BUFFER(const int, rank), PORTLA_BUFFER(int, agg)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_root_aggregate_row(i, PORTLA_AT(const ulong, keys), PORTLA_AT(const int, rank),
                               PORTLA_AT(int, agg));
    }
}

// One joining pass.
kernel void amg_join(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                     PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const int, in),
                     PORTLA_BUFFER(int, out)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_join_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                     PORTLA_AT(const int, strong), PORTLA_AT(const int, in), PORTLA_AT(int, out));
    }
}

kernel void amg_prolongator_count(ulong rows, PORTLA_BUFFER(const int, rp),
                                  PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, agg),
                                  PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, counts)
        [i] = amg_prolongator_count_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                        PORTLA_AT(const int, agg));
    }
}

kernel void amg_prolongator(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                            PORTLA_BUFFER(const REAL, s), PORTLA_BUFFER(const int, agg),
                            PORTLA_BUFFER(const int, p_rp), PORTLA_BUFFER(int, p_ci),
                            PORTLA_BUFFER(REAL, p_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_prolongator_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                            PORTLA_AT(const REAL, s), PORTLA_AT(const int, agg),
                            PORTLA_AT(const int, p_rp), PORTLA_AT(int, p_ci), PORTLA_AT(REAL, p_v));
    }
}

kernel void amg_smoother(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                         PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const REAL, d), REAL omega,
                         PORTLA_BUFFER(REAL, s)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_smoother_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                         PORTLA_AT(const REAL, v), PORTLA_AT(const REAL, d), omega,
                         PORTLA_AT(REAL, s));
    }
}

kernel void amg_l1(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const REAL, v),
                   PORTLA_BUFFER(REAL, out)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(REAL, out)[i] = amg_l1_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const REAL, v));
    }
}

kernel void amg_smooth(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                       PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const REAL, b),
                       PORTLA_BUFFER(const REAL, x_in), PORTLA_BUFFER(REAL, x_out),
                       PORTLA_BUFFER(const REAL, w), REAL c1, REAL c2, int zero_guess, int step) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        const REAL ax = zero_guess
                            ? (REAL)0
                            : amg_row_sum(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                          PORTLA_AT(const REAL, v), PORTLA_AT(const REAL, x_in));
        amg_smooth_update(i, ax, PORTLA_AT(const REAL, b), PORTLA_AT(const REAL, x_in),
                          PORTLA_AT(REAL, x_out), PORTLA_AT(const REAL, w), c1, c2, zero_guess,
                          step);
    }
}

kernel void amg_residual(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                         PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const REAL, b),
                         PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, r)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_residual_update(i,
                            amg_row_sum(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                        PORTLA_AT(const REAL, v), PORTLA_AT(const REAL, x)),
                            PORTLA_AT(const REAL, b), PORTLA_AT(REAL, r));
    }
}

kernel void amg_correct(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                        PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const REAL, xc),
                        PORTLA_BUFFER(const REAL, base), PORTLA_BUFFER(REAL, out)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_correct_update(i,
                           amg_row_sum(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                       PORTLA_AT(const REAL, v), PORTLA_AT(const REAL, xc)),
                           PORTLA_AT(const REAL, base), PORTLA_AT(REAL, out));
    }
}

// ---- classical coarsening and interpolation (classical_rows.h) ----

kernel void amg_classical_strength(ulong rows, PORTLA_BUFFER(const int, rp),
                                   PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const REAL, v),
                                   REAL theta, PORTLA_BUFFER(int, strong),
                                   PORTLA_BUFFER(int, tpos)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        (void)amg_classical_strength_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                         PORTLA_AT(const REAL, v), theta, PORTLA_AT(int, strong),
                                         PORTLA_AT(int, tpos));
    }
}

kernel void amg_pmis_init(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, tpos),
                          PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(ulong, keys)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_pmis_init_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, tpos),
                          PORTLA_AT(const int, strong), PORTLA_AT(ulong, keys));
    }
}

kernel void amg_pmis_select(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                            PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const int, tpos),
                            PORTLA_BUFFER(const ulong, keys), PORTLA_BUFFER(ulong, out)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_pmis_select_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                            PORTLA_AT(const int, strong), PORTLA_AT(const int, tpos),
                            PORTLA_AT(const ulong, keys), PORTLA_AT(ulong, out));
    }
}

// total[0] += the rows still undecided (a local count per work-group, one global atomic).
kernel void amg_pmis_fine(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                          PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const ulong, sel),
                          PORTLA_BUFFER(ulong, keys), PORTLA_BUFFER(int, total)) {
    local int count;
    if (get_local_id(0) == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int mine = 0;
    PORTLA_FOR_ROWS(i, 0, rows) {
        mine += amg_pmis_fine_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                  PORTLA_AT(const int, strong), PORTLA_AT(const ulong, sel),
                                  PORTLA_AT(ulong, keys));
    }
    if (mine) atomic_add(&count, mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && count) atomic_add(PORTLA_AT(int, total), count);
}

kernel void amg_interp_count(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                             PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const ulong, keys),
                             PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, counts)
        [i] = amg_interp_count_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                   PORTLA_AT(const int, strong), PORTLA_AT(const ulong, keys));
    }
}

kernel void amg_interp_fill(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                            PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const int, strong),
                            PORTLA_BUFFER(const ulong, keys), PORTLA_BUFFER(const int, rank),
                            int weights, PORTLA_BUFFER(const int, p_rp), PORTLA_BUFFER(int, p_ci),
                            PORTLA_BUFFER(REAL, p_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_interp_fill_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                            PORTLA_AT(const REAL, v), PORTLA_AT(const int, strong),
                            PORTLA_AT(const ulong, keys), PORTLA_AT(const int, rank), weights,
                            PORTLA_AT(const int, p_rp), PORTLA_AT(int, p_ci), PORTLA_AT(REAL, p_v));
    }
}

kernel void amg_fine_neighbours_count(ulong rows, PORTLA_BUFFER(const int, rp),
                                      PORTLA_BUFFER(const int, ci),
                                      PORTLA_BUFFER(const int, strong),
                                      PORTLA_BUFFER(const ulong, keys),
                                      PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, counts)
        [i] = amg_fine_neighbours_count_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                            PORTLA_AT(const int, strong),
                                            PORTLA_AT(const ulong, keys));
    }
}

kernel void amg_fine_neighbours_fill(ulong rows, PORTLA_BUFFER(const int, rp),
                                     PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, strong),
                                     PORTLA_BUFFER(const ulong, keys),
                                     PORTLA_BUFFER(const int, e_rp), PORTLA_BUFFER(int, e_ci),
                                     PORTLA_BUFFER(REAL, e_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_fine_neighbours_fill_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                     PORTLA_AT(const int, strong), PORTLA_AT(const ulong, keys),
                                     PORTLA_AT(const int, e_rp), PORTLA_AT(int, e_ci),
                                     PORTLA_AT(REAL, e_v));
    }
}

kernel void amg_ext_fill(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                         PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const int, strong),
                         PORTLA_BUFFER(const ulong, keys), PORTLA_BUFFER(const int, rank),
                         PORTLA_BUFFER(const int, p_rp), PORTLA_BUFFER(const int, p_ci),
                         PORTLA_BUFFER(REAL, p_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_ext_fill_row(
            i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci), PORTLA_AT(const REAL, v),
            PORTLA_AT(const int, strong), PORTLA_AT(const ulong, keys), PORTLA_AT(const int, rank),
            PORTLA_AT(const int, p_rp), PORTLA_AT(const int, p_ci), PORTLA_AT(REAL, p_v));
    }
}

kernel void amg_trunc_count(ulong rows, PORTLA_BUFFER(const int, p_rp),
                            PORTLA_BUFFER(const REAL, p_v), REAL factor, int max_entries,
                            PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, counts)
        [i] = amg_trunc_count_row(i, PORTLA_AT(const int, p_rp), PORTLA_AT(const REAL, p_v), factor,
                                  max_entries);
    }
}

kernel void amg_trunc_fill(ulong rows, PORTLA_BUFFER(const int, p_rp),
                           PORTLA_BUFFER(const int, p_ci), PORTLA_BUFFER(const REAL, p_v),
                           REAL factor, int max_entries, PORTLA_BUFFER(const int, t_rp),
                           PORTLA_BUFFER(int, t_ci), PORTLA_BUFFER(REAL, t_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_trunc_fill_row(i, PORTLA_AT(const int, p_rp), PORTLA_AT(const int, p_ci),
                           PORTLA_AT(const REAL, p_v), factor, max_entries,
                           PORTLA_AT(const int, t_rp), PORTLA_AT(int, t_ci), PORTLA_AT(REAL, t_v));
    }
}

// ---- aggressive coarsening and multipass interpolation (classical_rows.h) ----

kernel void amg_agg_graph_count(ulong rows, PORTLA_BUFFER(const int, rp),
                                PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, strong),
                                PORTLA_BUFFER(const int, tpos), PORTLA_BUFFER(const int, c1),
                                PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(k, 0, rows) {
        PORTLA_AT(int, counts)
        [k] = amg_agg_graph_count_row(k, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                      PORTLA_AT(const int, strong), PORTLA_AT(const int, tpos),
                                      PORTLA_AT(const int, c1));
    }
}

kernel void amg_agg_graph_fill(ulong rows, PORTLA_BUFFER(const int, rp),
                               PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, strong),
                               PORTLA_BUFFER(const int, tpos), PORTLA_BUFFER(const int, c1),
                               PORTLA_BUFFER(const int, rank1), PORTLA_BUFFER(const int, m_rp),
                               PORTLA_BUFFER(int, m_ci), PORTLA_BUFFER(REAL, m_v)) {
    PORTLA_FOR_ROWS(k, 0, rows) {
        amg_agg_graph_fill_row(
            k, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci), PORTLA_AT(const int, strong),
            PORTLA_AT(const int, tpos), PORTLA_AT(const int, c1), PORTLA_AT(const int, rank1),
            PORTLA_AT(const int, m_rp), PORTLA_AT(int, m_ci), PORTLA_AT(REAL, m_v));
    }
}

kernel void amg_agg_split(ulong rows, PORTLA_BUFFER(ulong, keys), PORTLA_BUFFER(const int, rank1),
                          PORTLA_BUFFER(const int, g_rp), PORTLA_BUFFER(const ulong, g_keys)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_agg_split_row(i, PORTLA_AT(ulong, keys), PORTLA_AT(const int, rank1),
                          PORTLA_AT(const int, g_rp), PORTLA_AT(const ulong, g_keys));
    }
}

// total[0] += the rows that took pass k (a local count per work-group, one global atomic).
kernel void amg_multipass(ulong rows, int k, PORTLA_BUFFER(const int, rp),
                          PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, strong),
                          PORTLA_BUFFER(const ulong, keys), PORTLA_BUFFER(const int, in),
                          PORTLA_BUFFER(int, out), PORTLA_BUFFER(int, total)) {
    local int count;
    if (get_local_id(0) == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int mine = 0;
    PORTLA_FOR_ROWS(i, 0, rows) {
        mine += amg_multipass_row(i, k, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                  PORTLA_AT(const int, strong), PORTLA_AT(const ulong, keys),
                                  PORTLA_AT(const int, in), PORTLA_AT(int, out));
    }
    if (mine) atomic_add(&count, mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && count) atomic_add(PORTLA_AT(int, total), count);
}

kernel void amg_multipass_count(ulong rows, int k, PORTLA_BUFFER(const int, rp),
                                PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const int, strong),
                                PORTLA_BUFFER(const int, pass), PORTLA_BUFFER(int, counts)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        PORTLA_AT(int, counts)
        [i] = amg_multipass_count_row(i, k, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                                      PORTLA_AT(const int, strong), PORTLA_AT(const int, pass));
    }
}

kernel void amg_multipass_fill(ulong rows, int k, PORTLA_BUFFER(const int, rp),
                               PORTLA_BUFFER(const int, ci), PORTLA_BUFFER(const REAL, v),
                               PORTLA_BUFFER(const int, strong), PORTLA_BUFFER(const int, pass),
                               PORTLA_BUFFER(const int, rank), PORTLA_BUFFER(const int, w_rp),
                               PORTLA_BUFFER(int, w_ci), PORTLA_BUFFER(REAL, w_v)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_multipass_fill_row(
            i, k, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci), PORTLA_AT(const REAL, v),
            PORTLA_AT(const int, strong), PORTLA_AT(const int, pass), PORTLA_AT(const int, rank),
            PORTLA_AT(const int, w_rp), PORTLA_AT(int, w_ci), PORTLA_AT(REAL, w_v));
    }
}

kernel void amg_fine_jacobi(ulong rows, PORTLA_BUFFER(const int, rp), PORTLA_BUFFER(const int, ci),
                            PORTLA_BUFFER(const REAL, v), PORTLA_BUFFER(const ulong, keys),
                            PORTLA_BUFFER(REAL, s)) {
    PORTLA_FOR_ROWS(i, 0, rows) {
        amg_fine_jacobi_row(i, PORTLA_AT(const int, rp), PORTLA_AT(const int, ci),
                            PORTLA_AT(const REAL, v), PORTLA_AT(const ulong, keys),
                            PORTLA_AT(REAL, s));
    }
}

// Rounding to float and back (a float hierarchy under a double solve: run in the double program).
kernel void amg_narrow(ulong n, PORTLA_BUFFER(const REAL, in), PORTLA_BUFFER(float, out)) {
    PORTLA_FOR_ROWS(i, 0, n) { PORTLA_AT(float, out)[i] = (float)PORTLA_AT(const REAL, in)[i]; }
}

kernel void amg_widen(ulong n, PORTLA_BUFFER(const float, in), PORTLA_BUFFER(REAL, out)) {
    PORTLA_FOR_ROWS(i, 0, n) { PORTLA_AT(REAL, out)[i] = (REAL)PORTLA_AT(const float, in)[i]; }
}

kernel void amg_start(ulong n, PORTLA_BUFFER(REAL, v)) {
    PORTLA_FOR_ROWS(i, 0, n) { PORTLA_AT(REAL, v)[i] = amg_start_row(i); }
}

// total[0] += the entries of d not positive and finite.
kernel void amg_bad_diagonal(ulong n, PORTLA_BUFFER(const REAL, d), PORTLA_BUFFER(int, total)) {
    local int count;
    if (get_local_id(0) == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int mine = 0;
    PORTLA_FOR_ROWS(i, 0, n) { mine += amg_bad_diagonal_row(i, PORTLA_AT(const REAL, d)); }
    if (mine) atomic_add(&count, mine);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && count) atomic_add(PORTLA_AT(int, total), count);
}

// ---- exclusive prefix sums: out[0] = 0, out[i + 1] = in[0] + ... + in[i] ----------------------
// Three launches over `groups` work-groups, group g taking the chunk [g c, (g + 1) c) of the n
// entries (c = ceil(n / groups)) and each of its work-items a contiguous part of that chunk:
// (1) sums[g] = the chunk's sum; (2) one work-item turns sums into exclusive prefix sums;
// (3) each group writes its chunk's prefix sums from sums[g].
#define PORTLA_SCAN_KERNELS(T)                                                      \
    kernel void scan_sums_##T(ulong n, ulong groups, PORTLA_BUFFER(const T, in),    \
                              PORTLA_BUFFER(T, sums), local T *scratch) {           \
        const ulong chunk = (n + groups - 1) / groups, g = get_group_id(0);         \
        const ulong lo = min(g * chunk, n), hi = min(lo + chunk, n);                \
        const ulong part = (hi - lo + WG - 1) / WG, lid = get_local_id(0);          \
        const ulong a = min(lo + lid * part, hi), b = min(a + part, hi);            \
        global const T *x = PORTLA_AT(const T, in);                                 \
        T s = 0;                                                                    \
        for (ulong i = a; i < b; ++i) s += x[i];                                    \
        scratch[lid] = s;                                                           \
        PORTLA_GROUP_TREE(scratch, PORTLA_ADD);                                     \
        if (lid == 0) PORTLA_AT(T, sums)[g] = scratch[0];                           \
    }                                                                               \
    kernel void scan_offsets_##T(ulong groups, PORTLA_BUFFER(T, sums)) {            \
        global T *s = PORTLA_AT(T, sums);                                           \
        T run = 0;                                                                  \
        if (get_global_id(0) == 0)                                                  \
            for (ulong g = 0; g < groups; ++g) {                                    \
                const T v = s[g];                                                   \
                s[g] = run;                                                         \
                run += v;                                                           \
            }                                                                       \
    }                                                                               \
    kernel void scan_write_##T(ulong n, ulong groups, PORTLA_BUFFER(const T, in),   \
                               PORTLA_BUFFER(const T, sums), PORTLA_BUFFER(T, out), \
                               local T *scratch) {                                  \
        const ulong chunk = (n + groups - 1) / groups, g = get_group_id(0);         \
        const ulong lo = min(g * chunk, n), hi = min(lo + chunk, n);                \
        const ulong part = (hi - lo + WG - 1) / WG, lid = get_local_id(0);          \
        const ulong a = min(lo + lid * part, hi), b = min(a + part, hi);            \
        global const T *x = PORTLA_AT(const T, in);                                 \
        global T *y = PORTLA_AT(T, out);                                            \
        T s = 0;                                                                    \
        for (ulong i = a; i < b; ++i) s += x[i];                                    \
        scratch[lid] = s;                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                               \
        if (lid == 0) {                                                             \
            T run = PORTLA_AT(const T, sums)[g];                                    \
            for (ulong k = 0; k < WG; ++k) {                                        \
                const T v = scratch[k];                                             \
                scratch[k] = run;                                                   \
                run += v;                                                           \
            }                                                                       \
        }                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                               \
        s = scratch[lid];                                                           \
        for (ulong i = a; i < b; ++i) y[i + 1] = s += x[i];                         \
        if (g == 0 && lid == 0) y[0] = 0;                                           \
    }
PORTLA_SCAN_KERNELS(int)
PORTLA_SCAN_KERNELS(long)
