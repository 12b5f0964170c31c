// Shared by every program of the opencl backend (built before the family's file). The host
// defines REAL (the element type), ACC (the accumulator: double where the device has
// cl_khr_fp64), PORTLA_FP64 (when it has), WG (work-group size), WG_POW2 (the power of two
// >= WG) and IPT (items per work-item). For complex values it also defines PORTLA_COMPLEX,
// SCALAR and SACC (the real types of a part): REAL is then SCALAR2 (float2 or double2: the
// real part in .x, the imaginary part in .y, std::complex<R>'s layout) and ACC is SACC2.
#ifdef PORTLA_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define PORTLA_CAT_(a, b) a##b
#define PORTLA_CAT(a, b) PORTLA_CAT_(a, b)

// The operations a kernel written once for real and complex values uses where the two differ:
//   v_mul(a, b)       a b, both REAL
//   v_is_zero(v)      v == 0 (both parts)
//   v_is_finite(v)    no part infinite or NaN
//   v_inverse(v)      1 / v
//   v_div(a, b)       a / b, both REAL
//   acc_of(v)         REAL v as ACC
//   real_of(a)        ACC a as REAL
//   acc_dot(x, y)     conj(x) y in ACC (x y for real values), x and y REAL
//   from_sacc(s)      a real SACC s as REAL (imaginary part 0)
// For real values each is the expression the real kernels always used (the same rounding).
#ifdef PORTLA_COMPLEX
REAL v_mul(REAL a, REAL b) { return (REAL)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
#define v_is_zero(v) ((v).x == 0 && (v).y == 0)
#define v_is_finite(v) (isfinite((v).x) && isfinite((v).y))
// 1 / v = conj(v) / |v|^2, the parts scaled by the larger one first (no overflow or underflow
// of |v|^2 where v's parts are far from 1)
REAL v_inverse(REAL v) {
    const SCALAR s = fmax(fabs(v.x), fabs(v.y));
    const SCALAR re = v.x / s, im = v.y / s;
    const SCALAR d = (re * re + im * im) * s;
    return (REAL)(re / d, -im / d);
}
#define acc_of(v) PORTLA_CAT(convert_, ACC)(v)
#define real_of(a) PORTLA_CAT(convert_, REAL)(a)
ACC acc_dot(REAL x, REAL y) {
    const ACC a = acc_of(x), b = acc_of(y);
    return (ACC)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
#define from_sacc(s) ((REAL)((SCALAR)(s), (SCALAR)0))
#define v_div(a, b) v_mul(a, v_inverse(b))
#else
#define SCALAR REAL
#define SACC ACC
#define v_mul(a, b) ((a) * (b))
#define v_is_zero(v) ((v) == (REAL)0)
#define v_is_finite(v) isfinite(v)
#define v_inverse(v) ((REAL)1 / (v))
#define acc_of(v) ((ACC)(v))
#define real_of(a) ((REAL)(a))
#define acc_dot(x, y) ((ACC)(x) * (ACC)(y))
#define from_sacc(s) ((REAL)(s))
#define v_div(a, b) ((a) / (b))
#endif

// A buffer argument: the cl_mem and the byte offset of the view (src/opencl/device.hpp).
#define PORTLA_BUFFER(type, name) global type *name##_base, ulong name##_offset
// The view's first element.
#define PORTLA_AT(type, name) ((global type *)((global char *)name##_base + name##_offset))

// Work-items of the whole launch, for loops over i = first; i < n; i += stride.
#define PORTLA_FIRST ((ulong)get_global_id(0))
#define PORTLA_STRIDE ((ulong)get_global_size(0))

// PORTLA_FOR_EACH(i, n) { ... }: the work-item's share of i < n. On a GPU a grid-stride loop
// (neighbouring work-items read neighbouring elements). On a CPU (PORTLA_CPU) one contiguous
// chunk per work-item: PoCL runs a work-group's work-items one after the other, and a
// grid-stride walk of a few thousand work-items over a vector past the caches reads each
// cache line once per work-item (fitted bandwidth of dot over 2^12 ... 2^24 doubles on PoCL
// 3.1, 2-core VM, 2026-11-25: 3.1 GB/s grid-stride, 14.5 GB/s chunked; omp 19.6).
#ifdef PORTLA_CPU
#define PORTLA_FOR_EACH(i, n)                                                \
    for (ulong i##_chunk = ((ulong)(n) + PORTLA_STRIDE - 1) / PORTLA_STRIDE, \
               i = min(PORTLA_FIRST * i##_chunk, (ulong)(n)),                \
               i##_end = min(i + i##_chunk, (ulong)(n));                     \
         i < i##_end; ++i)
#else
#define PORTLA_FOR_EACH(i, n) for (ulong i = PORTLA_FIRST; i < (ulong)(n); i += PORTLA_STRIDE)
#endif

// Vectors of 8 (the CPUs' reductions and row sums: 8 running sums instead of one chain of
// dependent adds, which held PoCL's dot at about 4 cycles per element).
#define REAL8 PORTLA_CAT(REAL, 8)
#define ACC8 PORTLA_CAT(ACC, 8)
#define CONVERT_ACC8 PORTLA_CAT(convert_, ACC8)
// The 8 lanes of v added in a fixed tree.
#define PORTLA_SUM8(v) \
    ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
// The vectors-of-8 paths of the CPUs' kernels, for real values (complex ones take the plain
// loop).
#if defined(PORTLA_CPU) && !defined(PORTLA_COMPLEX)
#define PORTLA_CPU_VEC8 1
#endif
// CPUs: [i, end), the work-item's chunk of i < n (PORTLA_FOR_EACH's on a CPU).
#define PORTLA_CHUNK(i, end, n)                                               \
    const ulong i##_chunk = ((ulong)(n) + PORTLA_STRIDE - 1) / PORTLA_STRIDE; \
    ulong i = min(PORTLA_FIRST * i##_chunk, (ulong)(n));                      \
    const ulong end = min(i + i##_chunk, (ulong)(n))

// The local-memory tree of a work-group: scratch[0] = combine(scratch[0 .. WG)), for any WG.
// Every work-item has stored its value in scratch[lid]; `combine(a, b)` is a macro or function.
#define PORTLA_GROUP_TREE(scratch, combine)                                 \
    do {                                                                    \
        const uint lid_ = get_local_id(0);                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                       \
        for (uint s_ = WG_POW2 / 2; s_ > 0; s_ >>= 1) {                     \
            if (lid_ < s_ && lid_ + s_ < WG)                                \
                scratch[lid_] = combine(scratch[lid_], scratch[lid_ + s_]); \
            barrier(CLK_LOCAL_MEM_FENCE);                                   \
        }                                                                   \
    } while (0)

#define PORTLA_ADD(a, b) ((a) + (b))

// Warp shuffles on NVIDIA's GPUs (the host defines PORTLA_WARP=32 where a probe kernel built
// and summed right, src/opencl/runtime.cpp): NVIDIA's OpenCL reports no cl_khr_subgroups but
// takes inline PTX (PORTLA_ASM: asm or __asm__, as the probe found). A warp is PORTLA_WARP
// consecutive work-items of a 1-D work-group; every one of them must take part (the member mask is
// the whole warp).
#ifdef PORTLA_WARP
// v of the work-item whose lane is this one's xor `mask` (shfl.sync.bfly)
uint warp_xor_u32(uint v, int mask) {
    uint r;
    PORTLA_ASM volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                        : "=r"(r)
                        : "r"(v), "r"(mask));
    return r;
}
// v of lane `lane` of this warp (shfl.sync.idx)
uint warp_read_u32(uint v, int lane) {
    uint r;
    PORTLA_ASM volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                        : "=r"(r)
                        : "r"(v), "r"(lane));
    return r;
}
float warp_xor_float(float v, int mask) { return as_float(warp_xor_u32(as_uint(v), mask)); }
float warp_read_float(float v, int lane) { return as_float(warp_read_u32(as_uint(v), lane)); }
#ifdef PORTLA_FP64
double warp_xor_double(double v, int mask) {
    const uint2 u = as_uint2(v);
    return as_double((uint2)(warp_xor_u32(u.x, mask), warp_xor_u32(u.y, mask)));
}
double warp_read_double(double v, int lane) {
    const uint2 u = as_uint2(v);
    return as_double((uint2)(warp_read_u32(u.x, lane), warp_read_u32(u.y, lane)));
}
#define warp_xor_sacc warp_xor_double
#else
#define warp_xor_sacc warp_xor_float
#endif
#ifdef PORTLA_COMPLEX
ACC warp_xor_acc(ACC v, int mask) {
    return (ACC)(warp_xor_sacc(v.x, mask), warp_xor_sacc(v.y, mask));
}
#else
#define warp_xor_acc warp_xor_sacc
#endif
#ifndef PORTLA_COMPLEX  // the sub-group kernels (Perron's, GEMM's) have real values only
// The same for REAL (float, or double where the device has it)
REAL warp_xor_real(REAL v, int mask) {
#ifdef PORTLA_FP64
    if (sizeof(REAL) == 8) return (REAL)warp_xor_double((double)v, mask);
#endif
    return (REAL)warp_xor_float((float)v, mask);
}
REAL warp_read_real(REAL v, int lane) {
#ifdef PORTLA_FP64
    if (sizeof(REAL) == 8) return (REAL)warp_read_double((double)v, lane);
#endif
    return (REAL)warp_read_float((float)v, lane);
}
#endif
// The sum over the warp, the same bits in every lane (butterfly: each step adds the same two
// values in every lane, a + b = b + a).
ACC warp_total(ACC v) {
    for (int m = PORTLA_WARP / 2; m > 0; m >>= 1) v += warp_xor_acc(v, m);
    return v;
}
// The same for two sums at once.
void warp_total2(ACC *a, ACC *b) {
    for (int m = PORTLA_WARP / 2; m > 0; m >>= 1) {
        *a += warp_xor_acc(*a, m);
        *b += warp_xor_acc(*b, m);
    }
}
#endif

// Sub-groups, for the kernels that have a sub-group variant (Perron's, GEMM's): NVIDIA's
// warps by the shuffles above, or cl_khr_subgroups where the device has it (the host defines
// PORTLA_KHR_SUBGROUPS where the device reports it; PoCL 5.0 does, PoCL 3.1 does not).
// PORTLA_SUB_GROUPS is defined where either is. Every work-item of a sub-group must call these.
//   sg_lane()         the work-item's index in its sub-group
//   sg_size()         the size of its sub-group
//   sg_total(v)       the sum over the sub-group, the same in every work-item
//   sg_read_real(v, l)  v of lane l (l the same in every work-item)
//   sg_max_ulong(v)   the maximum over the sub-group
#if defined(PORTLA_COMPLEX)
// no sub-group kernels over complex values
#elif defined(PORTLA_WARP)
#define PORTLA_SUB_GROUPS 1
uint sg_lane(void) { return get_local_id(0) % PORTLA_WARP; }
uint sg_size(void) { return PORTLA_WARP; }
ACC sg_total(ACC v) { return warp_total(v); }
REAL sg_read_real(REAL v, uint lane) { return warp_read_real(v, (int)lane); }
ulong sg_max_ulong(ulong v) {
    for (int m = PORTLA_WARP / 2; m > 0; m >>= 1) {
        const uint2 u = as_uint2(v);
        v = max(v, as_ulong((uint2)(warp_xor_u32(u.x, m), warp_xor_u32(u.y, m))));
    }
    return v;
}
#elif defined(PORTLA_KHR_SUBGROUPS) && defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#define PORTLA_SUB_GROUPS 1
uint sg_lane(void) { return get_sub_group_local_id(); }
uint sg_size(void) { return get_sub_group_size(); }
ACC sg_total(ACC v) { return sub_group_reduce_add(v); }
REAL sg_read_real(REAL v, uint lane) { return sub_group_broadcast(v, lane); }
ulong sg_max_ulong(ulong v) { return sub_group_reduce_max(v); }
#endif

// The sum over the work-group of v, returned to every work-item (`scratch` holds WG values).
// With warp shuffles (WG a multiple of the warp): each warp's total, then every work-item adds
// the warps' totals in order (the cuda backend's reduction); else the local-memory tree.
#if defined(PORTLA_WARP) && WG % PORTLA_WARP == 0
ACC group_sum(local ACC *scratch, ACC v) {
    v = warp_total(v);
    const uint lid = get_local_id(0);
    if (lid % PORTLA_WARP == 0) scratch[lid / PORTLA_WARP] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    ACC sum = 0;
    for (uint w = 0; w < WG / PORTLA_WARP; ++w) sum += scratch[w];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum;
}
#else
ACC group_sum(local ACC *scratch, ACC v) {
    scratch[get_local_id(0)] = v;
    PORTLA_GROUP_TREE(scratch, PORTLA_ADD);
    const ACC sum = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum;
}
#endif

// partials[k * groups + g] for k < count: each group's sums (count <= 4); the first work-group
// of sum_partials adds them up into out[k]. Launched with one work-group.
kernel void sum_partials(PORTLA_BUFFER(ACC, partials), uint groups, uint count,
                         PORTLA_BUFFER(ACC, out)) {
    global ACC *part = PORTLA_AT(ACC, partials);
    local ACC scratch[WG];
    for (uint k = 0; k < count; ++k) {
        ACC s = 0;
        for (uint g = get_local_id(0); g < groups; g += WG) s += part[k * groups + g];
        s = group_sum(scratch, s);
        if (get_local_id(0) == 0) PORTLA_AT(ACC, out)[k] = s;
    }
}

// One-launch reductions (the cuda backend's last-block pattern): each work-group stores its
// partial sum, fences and takes a ticket from a counter in the scratch; the group with the last
// ticket adds the partials up. Saves the second launch (about 7 us on NVIDIA's OpenCL).
// last_group: true in every work-item of the last group (`last`: a local uint of the kernel).
bool last_group(global ACC *partials, ACC s, volatile global uint *counter, local uint *last) {
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = s;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        *last = atomic_inc(counter) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *last != 0;
}

// In the last group: the sum of every group's partial, added in sum_partials' order (so one and
// two launches give the same bits); resets the counter for the next reduction.
ACC sum_of_partials(volatile global const ACC *partials, local ACC *scratch,
                    volatile global uint *counter) {
    ACC s = 0;
    for (uint g = get_local_id(0); g < get_num_groups(0); g += WG) s += partials[g];
    s = group_sum(scratch, s);
    if (get_local_id(0) == 0) *counter = 0;
    return s;
}

// The argument of a one-launch reduction: the device's scratch (one cl_mem, no offset), its
// partials at byte 0 and the counter at byte PORTLA_SCRATCH_COUNTER (the host's kScratchCounter,
// a build option). One argument instead of two buffers' four: NVIDIA's OpenCL charges each
// argument at the launch.
#define PORTLA_ONE_LAUNCH global uchar *reduction_scratch
#define PORTLA_PARTIALS ((global ACC *)reduction_scratch)
#define PORTLA_COUNTER ((global uint *)(reduction_scratch + PORTLA_SCRATCH_COUNTER))
// The end of such a kernel: `s` is the work-item's sum; the last group writes the total to
// out[0] (as REAL). `scratch` (WG values) and `last` (a uint) are local memory declared at the
// kernel's scope, as OpenCL C requires.
#define PORTLA_ONE_LAUNCH_RESULT(s, scratch, last, out)                               \
    do {                                                                              \
        const ACC g_ = group_sum(scratch, s);                                         \
        if (last_group(PORTLA_PARTIALS, g_, PORTLA_COUNTER, &(last))) {               \
            const ACC t_ = sum_of_partials(PORTLA_PARTIALS, scratch, PORTLA_COUNTER); \
            if (get_local_id(0) == 0) (out)[0] = real_of(t_);                         \
        }                                                                             \
    } while (0)
