// Shared by every program of the opencl backend (built before the family's file). The host
// defines REAL (the element type), ACC (the accumulator: double where the device has
// cl_khr_fp64), PORTLA_FP64 (when it has), WG (work-group size), WG_POW2 (the power of two
// >= WG) and IPT (items per work-item).
#ifdef PORTLA_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
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

// The sum over the work-group of v, returned to every work-item (`scratch` holds WG values).
ACC group_sum(local ACC *scratch, ACC v) {
    scratch[get_local_id(0)] = v;
    PORTLA_GROUP_TREE(scratch, PORTLA_ADD);
    const ACC sum = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum;
}

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
