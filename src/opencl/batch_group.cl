// The OpenCL side of the batched solvers' group (src/common/batch/system_algorithms.h lists what
// it needs): the work-group's sums and barriers, the vectors in local or global memory, the
// types of one system and the workspace. The program is batch_constants.h, this file,
// system_algorithms.h and batch_kernels.cl, in that order (runtime.cpp's prerequisites), one
// work-group per system, the work-groups looping over the systems. ACC is double:
// batch_kernels.cpp refuses a device without cl_khr_fp64, as the C++ accumulates every sum in
// double.
//
// The format and the preconditioner are fixed when the program is built (BATCH_FORMAT,
// BATCH_PRECOND: a program per pair, batch_kernels.cpp): with them run-time values, every
// branch on them held barriers, and PoCL (which turns a work-group into loops around the
// regions between barriers, copying the code after a barrier in a branch once per path) took
// 45 s to compile batch_gmres and over 5 min for batch_bicgstab on the 2-core VM; fixed, 3 s.
// For the same reason the solvers keep their barriers out of branches where they can, and the
// ILU(0) sweeps run on work-item 0 alone (with a barrier inside the level loops PoCL 3.1 did
// not finish compiling batch_cg in 5 min, 2-core VM, 2026-11): the same arithmetic as the
// level-parallel C++.
#if !defined(BATCH_FORMAT) || !defined(BATCH_PRECOND)
#error "batch_kernels.cl is built with -DBATCH_FORMAT=f -DBATCH_PRECOND=p"
#endif

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

typedef long Offset;  // element offsets
typedef Vec CVec;     // a vector only read

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
Vec work_vec(const Work *w, int k) { return item(w, k); }
#define work_precond(w) item((w), ITEM_PRECOND(w))
#define work_scalars(w) item((w), ITEM_SCALARS(w))

// ---- system_algorithms.h's group -----------------------------------------------------------

#define PORTLA_FN
#define PORTLA_GROUP local ACC *scratch
#define PORTLA_G scratch
#define PORTLA_RANK RANK
#define PORTLA_SIZE SIZE
#define PORTLA_SYNC() SYNC()
#define PORTLA_SUM(v) group_total(scratch, (v))
#define PORTLA_SUM2(a, b) group_total2(scratch, &(a), &(b))
#define PORTLA_ABS(v) fabs(v)
#define PORTLA_FORMAT(A) BATCH_FORMAT
#define PORTLA_IS_PRECOND(o, p) (BATCH_PRECOND == (p))
#define PORTLA_ROW_LOCAL(o) \
    (BATCH_PRECOND == PORTLA_PRECOND_NONE || BATCH_PRECOND == PORTLA_PRECOND_JACOBI)
// every vector in memory: a view is the vector, a row its index
#define PORTLA_ROWS 0
typedef Vec Own;
#define own_vec(p) (p)
#define mem_of(v) (v)
#define own_ld(v, k) ld((v), (k))
#define own_st(v, k, a) st((v), (k), (a))
#define row_i(k) (k)
#define PORTLA_FOR_ROWS(n, k) for (int k = RANK; k < (n); k += SIZE)
#define PORTLA_END_ROWS
// the ILU(0) sweeps on work-item 0, one barrier after the factorisation (see the top)
#define PORTLA_ILU_FIRST(first, last) (RANK == 0 ? (first) : (last))
#define PORTLA_ILU_STEP 1
#define PORTLA_ILU_LEVEL_SYNC()
#define PORTLA_ILU_SWEEP_SYNC() SYNC()
