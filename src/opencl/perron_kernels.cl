// The kernels of the dominant-eigenpair iteration (core/kernels/perron_kernels.hpp) in OpenCL C.
// A row sum is one work-group per row (terms strided over the work-items), reduced as
// PERRON_REDUCE says (below; src/opencl/perron_kernels.cpp picks it per variant). A maximum is
// one wave of work-groups and a tree, or atomic maxima on the result's bit pattern.

// 64-bit compare-and-swap, for the atomic variant in double (the OpenCL C compiler defines the
// extension's name when the device has it; the host launches the atomic kernels in double only
// then).
#if defined(cl_khr_int64_base_atomics) && defined(PORTLA_FP64)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define PORTLA_ATOMIC64 1
#endif

// *p += v, atomically, in REAL.
void atomic_add_real(volatile global REAL *p, REAL v) {
    if (sizeof(REAL) == 4) {
        volatile global uint *q = (volatile global uint *)p;
        uint seen, old = *q;
        do {
            seen = old;
            old = atomic_cmpxchg(q, seen, as_uint((float)(as_float(seen) + v)));
        } while (old != seen);
    }
#ifdef PORTLA_ATOMIC64
    else {
        volatile global ulong *q = (volatile global ulong *)p;
        ulong seen, old = *q;
        do {
            seen = old;
            old = atom_cmpxchg(q, seen, as_ulong((double)(as_double(seen) + v)));
        } while (old != seen);
    }
#endif
}

// Maxima of non-negative values on their bit patterns: non-negative IEEE values order as
// their bit patterns, a NaN is given the largest pattern (so it wins, as in the reference) and a
// negative value or -0 counts as +0. Exact in any order. The key of v (in a ulong for both
// precisions):
ulong max_key(REAL v) {
    if (sizeof(REAL) == 4) return isnan(v) ? 0x7fc00000ul : (v > 0 ? as_uint((float)v) : 0ul);
#ifdef PORTLA_FP64
    return isnan(v) ? 0x7ff8000000000000ul : (v > 0 ? as_ulong((double)v) : 0ul);
#else
    return 0;
#endif
}

// *p = max(*p, the value of `key`), atomically, for *p >= 0
void atomic_max_key(volatile global REAL *p, ulong key) {
    if (sizeof(REAL) == 4) atomic_max((volatile global uint *)p, (uint)key);
#ifdef PORTLA_ATOMIC64
    else {
        volatile global ulong *q = (volatile global ulong *)p;
        ulong old = *q;
        while (old < key) {
            const ulong seen = old;
            old = atom_cmpxchg(q, seen, key);
            if (old == seen) break;
        }
    }
#endif
}

// a_ij of row i, column j; with `transform`, first a_ij = a_ij s_j / s_i (sc = s), stored back
REAL row_value(global REAL *row, global const REAL *sc, int transform, ulong i, ulong j) {
    REAL x = row[j];
    if (transform) {
        x = x * sc[j] / sc[i];
        row[j] = x;
    }
    return x;
}

// How a row sum and the atomic maximum reduce, fixed when the program is built
// (perron_kernels.cpp: -DPERRON_REDUCE):
//   REDUCE_LOCAL     each work-item sums its terms in ACC, then group_sum (local memory, or
//                    warp shuffles and local memory where PORTLA_WARP)
//   REDUCE_ATOMIC    every term an atomic add on s_i (an atomic maximum on the result), in REAL
//   REDUCE_SUBGROUP  each work-item sums its terms in ACC, a sub-group reduction (common.cl's
//                    sg_*: warp shuffles or cl_khr_subgroups), one atomic per sub-group
#define REDUCE_LOCAL 0
#define REDUCE_ATOMIC 1
#define REDUCE_SUBGROUP 2
#ifndef PERRON_REDUCE
#define PERRON_REDUCE REDUCE_LOCAL
#endif

// s_i = sum_j a_ij (w_j when has_w) / (w_i when has_w); with `transform`, first
// a_ij = a_ij s_j / s_i (s = scale) and the new a_ij summed (fused_transform_row_sums). One
// work-group per row.
kernel void perron_row_sums(ulong n, PORTLA_BUFFER(REAL, a), PORTLA_BUFFER(const REAL, w),
                            int has_w, PORTLA_BUFFER(const REAL, scale), int transform,
                            PORTLA_BUFFER(REAL, s)) {
    global REAL *ap = PORTLA_AT(REAL, a);
    global const REAL *wp = PORTLA_AT(const REAL, w);
    global const REAL *sc = PORTLA_AT(const REAL, scale);
    global REAL *sp = PORTLA_AT(REAL, s);
#if PERRON_REDUCE == REDUCE_LOCAL
    local ACC scratch[WG];
#endif
    for (ulong i = get_group_id(0); i < n; i += get_num_groups(0)) {
        global REAL *row = ap + i * n;
#if PERRON_REDUCE != REDUCE_LOCAL
        if (get_local_id(0) == 0) sp[i] = 0;
        barrier(CLK_GLOBAL_MEM_FENCE);
#endif
        ACC sum = 0;
        for (ulong j = get_local_id(0); j < n; j += WG) {
            const REAL x = row_value(row, sc, transform, i, j);
#if PERRON_REDUCE == REDUCE_ATOMIC
            atomic_add_real(sp + i, has_w ? x * wp[j] : x);
#else
            sum += has_w ? (ACC)x * (ACC)wp[j] : (ACC)x;
#endif
        }
#if PERRON_REDUCE == REDUCE_LOCAL
        sum = group_sum(scratch, sum);
        if (get_local_id(0) == 0) sp[i] = (REAL)(has_w ? sum / (ACC)wp[i] : sum);
#else
#if PERRON_REDUCE == REDUCE_SUBGROUP
        sum = sg_total(sum);
        if (sg_lane() == 0) atomic_add_real(sp + i, (REAL)sum);
#endif
        barrier(CLK_GLOBAL_MEM_FENCE);  // every add of the row is done
        if (get_local_id(0) == 0 && has_w) sp[i] = sp[i] / wp[i];
#endif
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

// x_i, or (stop_test) |x_i - x_(i+1) mod n|
REAL max_term(global const REAL *xp, ulong n, ulong i, int stop_test) {
    return stop_test ? fabs(xp[i] - xp[i + 1 == n ? 0 : i + 1]) : xp[i];
}

// partials[group] = the group's max of x_i (stop_test: of |x_i - x_(i+1) mod n|), 0 when empty
kernel void perron_max_partial(ulong n, PORTLA_BUFFER(const REAL, x), int stop_test,
                               PORTLA_BUFFER(ACC, partials)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    local ACC scratch[WG];
    ACC m = 0;
    PORTLA_FOR_EACH(i, n) m = max_nan(m, (ACC)max_term(xp, n, i, stop_test));
    m = group_max(scratch, m);
    if (get_local_id(0) == 0) PORTLA_AT(ACC, partials)[get_group_id(0)] = m;
}

// result[0] = 0, before perron_max_atomic accumulates into it
kernel void perron_clear(PORTLA_BUFFER(REAL, result)) {
    if (get_global_id(0) == 0) PORTLA_AT(REAL, result)[0] = 0;
}

// result[0] = max(result[0], every term of perron_max_partial): each term an atomic maximum
// (REDUCE_ATOMIC), or each work-item's maximum, the warp's by shuffles and one atomic maximum
// per warp (REDUCE_SUBGROUP)
kernel void perron_max_atomic(ulong n, PORTLA_BUFFER(const REAL, x), int stop_test,
                              PORTLA_BUFFER(REAL, result)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *r = PORTLA_AT(REAL, result);
#if PERRON_REDUCE == REDUCE_SUBGROUP
    ulong key = 0;
    PORTLA_FOR_EACH(i, n) key = max(key, max_key(max_term(xp, n, i, stop_test)));
    key = sg_max_ulong(key);
    if (sg_lane() == 0) atomic_max_key(r, key);
#else
    PORTLA_FOR_EACH(i, n) atomic_max_key(r, max_key(max_term(xp, n, i, stop_test)));
#endif
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
