// The vector kernels (core/kernels/blas1_kernels.hpp) in OpenCL C. Reductions: each work-group
// writes its partial sums (ACC) to the scratch, then one work-group adds them up (*_finish).

kernel void fill(PORTLA_BUFFER(REAL, x), ulong n, REAL value) {
    global REAL *xp = PORTLA_AT(REAL, x);
    PORTLA_FOR_EACH(i, n) xp[i] = value;
}

kernel void copy(PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(REAL, y), ulong n) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
    PORTLA_FOR_EACH(i, n) yp[i] = xp[i];
}

// y = a x + b y; y is not read when b = 0
kernel void axpby(REAL a, PORTLA_BUFFER(const REAL, x), REAL b, PORTLA_BUFFER(REAL, y), ulong n) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global REAL *yp = PORTLA_AT(REAL, y);
#ifdef PORTLA_CPU_VEC8
    // In vectors of 8, as dot and the fused update. With the long chunks of elementwise_groups
    // it ran at 0.97-1.10 of omp's bandwidth at n = 2^25, 2^26 on the GPU machine's 16-core
    // host (PoCL 5.0, 2026-11-26; the plain loop in chunks of 4 elements: 0.74-0.85); each of
    // the two changes alone was not measured there.
    PORTLA_CHUNK(i, end, n);
    if (b == (REAL)0) {
        for (; i + 8 <= end; i += 8) vstore8(a * vload8(0, xp + i), 0, yp + i);
    } else {
        for (; i + 8 <= end; i += 8)
            vstore8(a * vload8(0, xp + i) + b * vload8(0, yp + i), 0, yp + i);
    }
    for (; i < end; ++i) yp[i] = b == (REAL)0 ? a * xp[i] : a * xp[i] + b * yp[i];
#else
    if (v_is_zero(b)) {
        PORTLA_FOR_EACH(i, n) yp[i] = v_mul(a, xp[i]);
    } else {
        PORTLA_FOR_EACH(i, n) yp[i] = v_mul(a, xp[i]) + v_mul(b, yp[i]);
    }
#endif
}

kernel void pointwise_mul(PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(const REAL, y),
                          PORTLA_BUFFER(REAL, z), ulong n) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global const REAL *yp = PORTLA_AT(const REAL, y);
    global REAL *zp = PORTLA_AT(REAL, z);
    PORTLA_FOR_EACH(i, n) zp[i] = v_mul(xp[i], yp[i]);
}

// partials[group] = the group's part of x . y (x^H y for complex values)
kernel void dot_product(PORTLA_BUFFER(const REAL, x), PORTLA_BUFFER(const REAL, y), ulong n,
                        PORTLA_ONE_LAUNCH, PORTLA_BUFFER(REAL, result)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global const REAL *yp = PORTLA_AT(const REAL, y);
    local ACC scratch[WG];
    local uint last;
    ACC s = 0;
#ifdef PORTLA_CPU_VEC8
    PORTLA_CHUNK(i, end, n);
    ACC8 s8 = (ACC8)(0);
    for (; i + 8 <= end; i += 8)
        s8 += CONVERT_ACC8(vload8(0, xp + i)) * CONVERT_ACC8(vload8(0, yp + i));
    for (s = PORTLA_SUM8(s8); i < end; ++i) s += acc_dot(xp[i], yp[i]);
#else
    PORTLA_FOR_EACH(i, n) s += acc_dot(xp[i], yp[i]);
#endif
    PORTLA_ONE_LAUNCH_RESULT(s, scratch, last, PORTLA_AT(REAL, result));
}

// result[0] = the sum of `groups` partials (one work-group)
kernel void sum_finish(PORTLA_BUFFER(const ACC, partials), uint groups,
                       PORTLA_BUFFER(REAL, result)) {
    global const ACC *part = PORTLA_AT(const ACC, partials);
    local ACC scratch[WG];
    ACC s = 0;
    for (uint g = get_local_id(0); g < groups; g += WG) s += part[g];
    s = group_sum(scratch, s);
    if (get_local_id(0) == 0) PORTLA_AT(REAL, result)[0] = real_of(s);
}

// Blue's scaled sums of squares (src/common/scaled_norm.hpp, the same thresholds and scales):
// small, medium and big, merged by adding each.
#ifdef PORTLA_FP64
#define BLUE_TSML 0x1p-511
#define BLUE_TBIG 0x1p486
#define BLUE_SSML 0x1p537
#define BLUE_SBIG 0x1p-538
#else
#define BLUE_TSML 0x1p-63f
#define BLUE_TBIG 0x1p52f
#define BLUE_SSML 0x1p75f
#define BLUE_SBIG 0x1p-76f
#endif

// The square of the real `part` (SACC) into small, medium or big.
#define BLUE_ADD(part)                                    \
    do {                                                  \
        const SACC ax = fabs(part);                       \
        if (ax > BLUE_TBIG) {                             \
            big += (ax * BLUE_SBIG) * (ax * BLUE_SBIG);   \
        } else if (ax < BLUE_TSML) {                      \
            small += (ax * BLUE_SSML) * (ax * BLUE_SSML); \
        } else {                                          \
            medium += ax * ax; /* also NaN */             \
        }                                                 \
    } while (0)

// The sum over the work-group of a real v (SACC), for real and complex programs.
#ifdef PORTLA_COMPLEX
SACC group_sum_real(local ACC *scratch, SACC v) { return group_sum(scratch, (ACC)(v, 0)).x; }
#else
#define group_sum_real group_sum
#endif

// partials[k * groups + group], k = 0 small, 1 medium, 2 big: the squares of x's parts (the
// real and imaginary parts of a complex x, |x_i|^2 = re^2 + im^2)
kernel void norm2_partial(PORTLA_BUFFER(const REAL, x), ulong n, PORTLA_BUFFER(SACC, partials)) {
    global const REAL *xp = PORTLA_AT(const REAL, x);
    global SACC *part = PORTLA_AT(SACC, partials);
    local ACC scratch[WG];
    SACC small = 0, medium = 0, big = 0;
    PORTLA_FOR_EACH(i, n) {
#ifdef PORTLA_COMPLEX
        BLUE_ADD((SACC)xp[i].x);
        BLUE_ADD((SACC)xp[i].y);
#else
        BLUE_ADD((ACC)xp[i]);
#endif
    }
    const uint groups = get_num_groups(0), g = get_group_id(0);
    small = group_sum_real(scratch, small);
    medium = group_sum_real(scratch, medium);
    big = group_sum_real(scratch, big);
    if (get_local_id(0) == 0) {
        part[g] = small;
        part[groups + g] = medium;
        part[2 * groups + g] = big;
    }
}

// result[0] = sqrt(small / ssml^2 + medium + big / sbig^2) without underflow or overflow
// (ScaledSumOfSquares::finish)
kernel void norm2_finish(PORTLA_BUFFER(const SACC, partials), uint groups,
                         PORTLA_BUFFER(REAL, result)) {
    global const SACC *part = PORTLA_AT(const SACC, partials);
    local ACC scratch[WG];
    SACC small = 0, medium = 0, big = 0;
    for (uint g = get_local_id(0); g < groups; g += WG) {
        small += part[g];
        medium += part[groups + g];
        big += part[2 * groups + g];
    }
    small = group_sum_real(scratch, small);
    medium = group_sum_real(scratch, medium);
    big = group_sum_real(scratch, big);
    if (get_local_id(0) != 0) return;
    SACC scale = 1, sum = medium;
    if (big > 0) {
        sum = big + (medium > 0 || medium != medium ? (medium * BLUE_SBIG) * BLUE_SBIG : (SACC)0);
        scale = 1 / BLUE_SBIG;
    } else if (small > 0) {
        if (medium > 0 || medium != medium) {
            const SACC med = sqrt(medium), sml = sqrt(small) / BLUE_SSML;
            const SACC ymin = sml > med ? med : sml, ymax = sml > med ? sml : med;
            sum = ymax * ymax * (1 + (ymin / ymax) * (ymin / ymax));
        } else {
            sum = small;
            scale = 1 / BLUE_SSML;
        }
    }
    PORTLA_AT(REAL, result)[0] = from_sacc(scale * sqrt(sum));
}

// One element of the fused update (fused_cg_update's names).
#define FUSED_CG_STEP(i)                              \
    do {                                              \
        xp[i] += v_mul(alpha, pp[i]);                 \
        const REAL ri_ = rp[i] - v_mul(alpha, qp[i]); \
        rp[i] = ri_;                                  \
        s += acc_dot(ri_, ri_);                       \
    } while (0)

// x += alpha p; r -= alpha q; partials[group] = the group's part of r . r (r^H r)
kernel void fused_cg_update(REAL alpha, PORTLA_BUFFER(const REAL, p), PORTLA_BUFFER(const REAL, q),
                            PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(REAL, r), ulong n,
                            PORTLA_ONE_LAUNCH, PORTLA_BUFFER(REAL, rr)) {
    global const REAL *pp = PORTLA_AT(const REAL, p);
    global const REAL *qp = PORTLA_AT(const REAL, q);
    global REAL *xp = PORTLA_AT(REAL, x);
    global REAL *rp = PORTLA_AT(REAL, r);
    local ACC scratch[WG];
    local uint last;
    ACC s = 0;
#ifdef PORTLA_CPU_VEC8
    PORTLA_CHUNK(i, end, n);
    ACC8 s8 = (ACC8)(0);
    for (; i + 8 <= end; i += 8) {
        vstore8(vload8(0, xp + i) + alpha * vload8(0, pp + i), 0, xp + i);
        const REAL8 r8 = vload8(0, rp + i) - alpha * vload8(0, qp + i);
        vstore8(r8, 0, rp + i);
        s8 += CONVERT_ACC8(r8) * CONVERT_ACC8(r8);
    }
    for (s = PORTLA_SUM8(s8); i < end; ++i) FUSED_CG_STEP(i);
#else
    PORTLA_FOR_EACH(i, n) FUSED_CG_STEP(i);
#endif
    PORTLA_ONE_LAUNCH_RESULT(s, scratch, last, PORTLA_AT(REAL, rr));
}

// bad[group] = the smallest i of the group where d[i] is zero or not finite (n when none)
kernel void find_bad_partial(PORTLA_BUFFER(const REAL, d), ulong n, PORTLA_BUFFER(ulong, bad)) {
    global const REAL *dp = PORTLA_AT(const REAL, d);
    local ulong scratch[WG];
    ulong first = n;
    PORTLA_FOR_EACH(i, n) {
        if (v_is_zero(dp[i]) || !v_is_finite(dp[i])) {
            first = i;
            break;
        }
    }
    scratch[get_local_id(0)] = first;
    PORTLA_GROUP_TREE(scratch, min);
    if (get_local_id(0) == 0) PORTLA_AT(ulong, bad)[get_group_id(0)] = scratch[0];
}

// bound[0] = the smallest bad index (n when none); first_bad[0] = it when there is one
kernel void find_bad_finish(PORTLA_BUFFER(const ulong, bad), uint groups, ulong n,
                            PORTLA_BUFFER(ulong, first_bad), PORTLA_BUFFER(ulong, bound)) {
    if (get_global_id(0) != 0) return;
    global const ulong *b = PORTLA_AT(const ulong, bad);
    ulong first = n;
    for (uint g = 0; g < groups; ++g) first = min(first, b[g]);
    if (first < n) PORTLA_AT(ulong, first_bad)[0] = first;
    PORTLA_AT(ulong, bound)[0] = first;
}

// d[i] = 1 / d[i] for i < bound[0]
kernel void invert_below(PORTLA_BUFFER(REAL, d), PORTLA_BUFFER(const ulong, bound)) {
    global REAL *dp = PORTLA_AT(REAL, d);
    const ulong n = PORTLA_AT(const ulong, bound)[0];
    PORTLA_FOR_EACH(i, n) dp[i] = v_inverse(dp[i]);
}
