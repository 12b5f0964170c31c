// Matrix product kernels of the cuda backend, C = alpha A B + beta C on row-major storage, in
// the steps from the naive kernel to near-cuBLAS (docs/design.md, docs/performance.md "GEMM"):
//
//   naive     one thread per element of C; a warp reads 32 consecutive elements of a row of B
//             (coalesced) and one element of A (broadcast) per step, all from L1/L2/DRAM.
//   tiled     a work-group of 1 x B threads computes B consecutive elements of one row of C;
//             it stages B elements of that row of A in shared memory (one load each), barrier,
//             then every thread reads them from shared memory: A leaves global memory once
//             per work-group instead of once per thread.
//   subgroup  the same work split, but each lane loads one element of A's row tile into a
//             register and the warp broadcasts it with __shfl_sync: no shared memory, no
//             barriers, warps independent.
//   fast      block tiles of BM x BN in shared memory (double-buffered: the next K-tile is
//             loaded from global memory into registers while the current one is multiplied,
//             then stored to the other buffer, one barrier per K-tile), 16-byte global and
//             shared loads, each warp a WM x WN sub-tile, each thread a register tile.
//             float: FFMA on a TM x TN register tile of 4 x 4 sub-tiles.
//             double: the FP64 tensor cores (DMMA, IEEE double fused multiply-adds), 64 x 64
//             blocks of 4 warps of 4 x 4 tiles of 8 x 8 (m8n8k4) through nvcuda::wmma, and on
//             sm_90 for whole 128 x 128 tiles a cp.async ring with 8 warps of 4 x 4 tiles of
//             16 x 8 (m16n8k16, dgemm_ring_kernel). float: two tile shapes, the large one when it
//             fills the GPU with one block per multiprocessor, else the small one
//             (PORTLA_GEMM_FAST_TILE=large|small forces one, for measurements); double: the same
//             rule between the 128 x 128 ring and the 64 x 64 tile. float, large tile, whole tiles:
//             the copies to shared memory by cp.async into a ring of three K-tiles instead (no
//             staging registers, see sgemm_ring_kernel).
//   vendor    cublasGemmEx with CUBLAS_COMPUTE_32F_PEDANTIC / 64F_PEDANTIC (no TF32), on the
//             row-major operands read as column-major: C^T = B^T A^T.
//
// Every kernel handles any m, n, k: loads outside A or B read zero, stores outside C are
// skipped, and 16-byte accesses are used only where the row length is a multiple of the vector
// and the pointer is 16-byte aligned (flags computed once per call). Grids are 1-D over tiles,
// so no dimension meets the 65535 limit of gridDim.y.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/kernels/gemm_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "cuda/vendor_handles.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// c = alpha acc + beta c, c not read when beta == 0.
template <typename T>
__device__ __forceinline__ void store_scaled(T* c, T value, T alpha, T beta) {
    *c = beta == T(0) ? alpha * value : alpha * value + beta * *c;
}

// ---------------------------------------------------------------------------------- naive ----
// Block 32 x 8 threads over a 8 x 32 patch of C, x along the columns (coalesced on B and C).
constexpr int kNaiveX = 32, kNaiveY = 8;

template <typename T>
__global__ void gemm_naive_kernel(int m, int n, int k, T alpha, const T* __restrict__ a,
                                  const T* __restrict__ b, T beta, T* __restrict__ c,
                                  int col_blocks) {
    const int bi = static_cast<int>(blockIdx.x / col_blocks),
              bj = static_cast<int>(blockIdx.x % col_blocks);
    const int i = bi * kNaiveY + static_cast<int>(threadIdx.y);
    const int j = bj * kNaiveX + static_cast<int>(threadIdx.x);
    if (i >= m || j >= n) return;
    const T* arow = a + static_cast<std::size_t>(i) * k;
    T sum = T(0);
    for (int l = 0; l < k; ++l) sum += arow[l] * b[static_cast<std::size_t>(l) * n + j];
    store_scaled(c + static_cast<std::size_t>(i) * n + j, sum, alpha, beta);
}

// ---------------------------------------------------------------------------------- tiled ----
// Work-group 1 x B (B = blockDim.x): row i of C, columns [j0, j0 + B). Shared: B values of A.
template <typename T>
__global__ void gemm_tiled_kernel(int m, int n, int k, T alpha, const T* __restrict__ a,
                                  const T* __restrict__ b, T beta, T* __restrict__ c,
                                  int col_blocks) {
    extern __shared__ __align__(16) unsigned char tiled_smem[];
    T* a_tile = reinterpret_cast<T*>(tiled_smem);
    const int width = static_cast<int>(blockDim.x);
    const int i = static_cast<int>(blockIdx.x / col_blocks);
    const int j = static_cast<int>(blockIdx.x % col_blocks) * width + static_cast<int>(threadIdx.x);
    const T* arow = a + static_cast<std::size_t>(i) * k;
    T sum = T(0);
    for (int l0 = 0; l0 < k; l0 += width) {
        const int l = l0 + static_cast<int>(threadIdx.x);
        a_tile[threadIdx.x] = l < k ? arow[l] : T(0);
        __syncthreads();
        const int len = min(width, k - l0);
        if (j < n) {
            const T* bcol = b + static_cast<std::size_t>(l0) * n + j;
            for (int t = 0; t < len; ++t) sum += a_tile[t] * bcol[static_cast<std::size_t>(t) * n];
        }
        __syncthreads();
    }
    if (j < n && i < m) store_scaled(c + static_cast<std::size_t>(i) * n + j, sum, alpha, beta);
}

// ------------------------------------------------------------------------------- subgroup ----
// Same work split as tiled; lane t of each warp holds A[i][l0 + t] and __shfl_sync hands it to
// the warp. All lanes stay in the loop (full-mask shuffles); only the update is guarded.
template <typename T>
__global__ void gemm_subgroup_kernel(int m, int n, int k, T alpha, const T* __restrict__ a,
                                     const T* __restrict__ b, T beta, T* __restrict__ c,
                                     int col_blocks) {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const int i = static_cast<int>(blockIdx.x / col_blocks);
    const int j = static_cast<int>(blockIdx.x % col_blocks) * static_cast<int>(blockDim.x) +
                  static_cast<int>(threadIdx.x);
    const bool active = j < n;
    const T* arow = a + static_cast<std::size_t>(i) * k;
    T sum = T(0);
    for (int l0 = 0; l0 < k; l0 += 32) {
        const T mine = l0 + lane < k ? arow[l0 + lane] : T(0);
        const T* bcol = b + static_cast<std::size_t>(l0) * n + j;
        if (k - l0 >= 32) {
#pragma unroll
            for (int t = 0; t < 32; ++t) {
                const T at = __shfl_sync(kFullMask, mine, t);
                if (active) sum += at * bcol[static_cast<std::size_t>(t) * n];
            }
        } else {
            for (int t = 0; t < k - l0; ++t) {
                const T at = __shfl_sync(kFullMask, mine, t);
                if (active) sum += at * bcol[static_cast<std::size_t>(t) * n];
            }
        }
    }
    if (active && i < m) store_scaled(c + static_cast<std::size_t>(i) * n + j, sum, alpha, beta);
}

// ------------------------------------------------------------------------------ fast tiles ----
// Tile of C handled by block `pid`, in groups of kGroupRows tile rows walked column by column,
// so blocks running at the same time share tiles of A and of B in L2.
constexpr int kGroupRows = 8;

__device__ __forceinline__ void tile_of_block(int pid, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = kGroupRows * tiles_n;
    const int first = (pid / per_group) * kGroupRows;
    const int rows = min(tiles_m - first, kGroupRows);
    const int in_group = pid % per_group;
    tm = first + in_group % rows;
    tn = in_group / rows;
}

struct VectorFlags {
    bool a, b, c;  // rows of A / B / C can be read with aligned 16-byte accesses
};

// ----------------------------------------------------------------------- fast, float (FFMA) --
// Block BM x BN, K-tile BK, warps WARPS_M x WARPS_N; a warp's lanes form 8 (M) x 4 (N), each
// lane SUB_M x SUB_N sub-tiles of 4 x 4 values, strided by the warp's lane span, so that one
// 16-byte shared load gives four values and a warp's loads are conflict-free.
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int SUB_M_, int SUB_N_,
          int MIN_BLOCKS_, bool PREFETCH_>
struct SimtTile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int SUB_M = SUB_M_, SUB_N = SUB_N_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr bool PREFETCH = PREFETCH_;  // register fragments: see the kernel
    static constexpr int threads = WARPS_M * WARPS_N * 32;
    static constexpr int WM = SUB_M * 32, WN = SUB_N * 16;  // 8 lanes x 4 rows, 4 lanes x 4 cols
    static constexpr int TM = SUB_M * 4, TN = SUB_N * 4;
    static constexpr int A_LD = BM + 4;  // transposed A: the pad puts the two K-halves of a
                                         // warp's transposed stores in different banks
    static constexpr int A_LOADS = BM * BK / 4 / threads, B_LOADS = BK * BN / 4 / threads;
    static_assert(WM * WARPS_M == BM && WN * WARPS_N == BN, "warps must cover the block tile");
    static_assert(A_LOADS * 4 * threads == BM * BK && B_LOADS * 4 * threads == BK * BN,
                  "each thread loads whole float4s of the tiles");
};
// 128 x 128 x 8, 256 threads, 8 x 8 per thread: 64 FFMA per 4 shared loads of 16 bytes, the
// fragments prefetched. H100, 4096^3, against cublasGemmEx (pedantic fp32), same run
// (2026-11-24): 0.75-0.77 with spills (135 registers capped at 128), 0.85 with the bounds-free
// path (128, no spills), 0.89-0.90 with the prefetch; prefetching across K-tiles (the barrier
// one step early) spilled and gave 0.86, a 128 x 256 tile with one block per SM 0.75, K-tiles
// of 16 spilled and gave 0.80. Whole tiles take sgemm_ring_kernel (SimtLargeRing below).
using SimtLarge = SimtTile<128, 128, 8, 2, 4, 2, 2, 2, true>;
// 64 x 64 x 16, 256 threads, 4 x 4 per thread: four times the blocks for the same C, for
// shapes where 128 x 128 tiles leave multiprocessors idle (1024^2: 64 tiles on 132 SMs).
using SimtSmall = SimtTile<64, 64, 16, 2, 4, 1, 1, 2, false>;

// A thread's place in a SimtTile block: the block's tile of C at (m0, n0) (tile_of_block) and
// the first row and column of the thread's register tile (sub-tiles 32 rows, 16 columns apart).
struct SimtPlace {
    int m0, n0, tid, row_base, col_base;
};
template <class Cfg>
__device__ __forceinline__ SimtPlace simt_place(int tiles_m, int tiles_n) {
    int tm, tn;
    tile_of_block(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
    return {tm * Cfg::BM, tn * Cfg::BN, tid, (warp / Cfg::WARPS_N) * Cfg::WM + (lane >> 2) * 4,
            (warp % Cfg::WARPS_N) * Cfg::WN + (lane & 3) * 4};
}

// One K step's register fragments from shared memory: TM values of A^T from `at` (the thread's
// row_base in that K row) and TN values of B from `bt` (its col_base), 16 bytes per load.
template <class Cfg>
__device__ __forceinline__ void load_fragments(float (&af)[Cfg::TM], float (&bf)[Cfg::TN],
                                               const float* at, const float* bt) {
#pragma unroll
    for (int s = 0; s < Cfg::SUB_M; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(at + s * 32);
        af[s * 4 + 0] = v.x, af[s * 4 + 1] = v.y, af[s * 4 + 2] = v.z, af[s * 4 + 3] = v.w;
    }
#pragma unroll
    for (int s = 0; s < Cfg::SUB_N; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(bt + s * 16);
        bf[s * 4 + 0] = v.x, bf[s * 4 + 1] = v.y, bf[s * 4 + 2] = v.z, bf[s * 4 + 3] = v.w;
    }
}

// C = alpha acc + beta C on the thread's register tile (C not read when beta == 0). Exact: the
// tile lies inside C and rows are 16-byte aligned (float4 stores, no bounds checks).
template <class Cfg, bool Exact>
__device__ __forceinline__ void store_register_tile(const float (&acc)[Cfg::TM][Cfg::TN],
                                                    float* __restrict__ c, int m, int n,
                                                    const SimtPlace& pl, float alpha, float beta,
                                                    bool vec_c) {
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
        const int row = pl.m0 + pl.row_base + (i / 4) * 32 + i % 4;
        if (!Exact && row >= m) continue;
#pragma unroll
        for (int s = 0; s < Cfg::SUB_N; ++s) {
            const int col = pl.n0 + pl.col_base + s * 16;
            float* p = c + static_cast<std::size_t>(row) * n + col;
            const float* v = &acc[i][s * 4];
            if (Exact || (vec_c && col + 3 < n)) {
                float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
                if (beta != 0.f) {
                    const float4 old = *reinterpret_cast<const float4*>(p);
                    out.x += beta * old.x, out.y += beta * old.y, out.z += beta * old.z,
                        out.w += beta * old.w;
                }
                *reinterpret_cast<float4*>(p) = out;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (col + e < n) store_scaled(p + e, v[e], alpha, beta);
            }
        }
    }
}

// Exact: m, n multiples of the block tile, k of BK, every row 16-byte aligned: no bounds checks
// and no scalar paths (fewer registers: the general kernel spilled). Instantiated for the small
// tile only: whole large tiles take sgemm_ring_kernel.
template <class Cfg, bool Exact>
__global__ void __launch_bounds__(Cfg::threads, Cfg::MIN_BLOCKS)
    sgemm_fast_kernel(int m, int n, int k, float alpha, const float* __restrict__ a,
                      const float* __restrict__ b, float beta, float* __restrict__ c, int tiles_m,
                      int tiles_n, VectorFlags vec) {
    constexpr int BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    __shared__ __align__(16) float as[2][BK][Cfg::A_LD];  // A transposed: as[k][m]
    __shared__ __align__(16) float bs[2][BK][BN];

    const SimtPlace pl = simt_place<Cfg>(tiles_m, tiles_n);
    const int m0 = pl.m0, n0 = pl.n0, tid = pl.tid;

    float4 a_reg[Cfg::A_LOADS], b_reg[Cfg::B_LOADS];
    auto load_tiles = [&](int k0) {
#pragma unroll
        for (int r = 0; r < Cfg::A_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BK / 4),
                      col = (idx % (BK / 4)) * 4;
            const int gr = m0 + row, gc = k0 + col;
            const float* p = a + static_cast<std::size_t>(gr) * k + gc;
            if (Exact || (vec.a && gr < m && gc + 3 < k)) {
                a_reg[r] = __ldg(reinterpret_cast<const float4*>(p));
            } else {
                const bool in = gr < m;
                a_reg[r] =
                    make_float4(in && gc < k ? p[0] : 0.f, in && gc + 1 < k ? p[1] : 0.f,
                                in && gc + 2 < k ? p[2] : 0.f, in && gc + 3 < k ? p[3] : 0.f);
            }
        }
#pragma unroll
        for (int r = 0; r < Cfg::B_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BN / 4),
                      col = (idx % (BN / 4)) * 4;
            const int gr = k0 + row, gc = n0 + col;
            const float* p = b + static_cast<std::size_t>(gr) * n + gc;
            if (Exact || (vec.b && gr < k && gc + 3 < n)) {
                b_reg[r] = __ldg(reinterpret_cast<const float4*>(p));
            } else {
                const bool in = gr < k;
                b_reg[r] =
                    make_float4(in && gc < n ? p[0] : 0.f, in && gc + 1 < n ? p[1] : 0.f,
                                in && gc + 2 < n ? p[2] : 0.f, in && gc + 3 < n ? p[3] : 0.f);
            }
        }
    };
    auto store_tiles = [&](int buf) {
#pragma unroll
        for (int r = 0; r < Cfg::A_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BK / 4),
                      col = (idx % (BK / 4)) * 4;
            as[buf][col + 0][row] = a_reg[r].x;
            as[buf][col + 1][row] = a_reg[r].y;
            as[buf][col + 2][row] = a_reg[r].z;
            as[buf][col + 3][row] = a_reg[r].w;
        }
#pragma unroll
        for (int r = 0; r < Cfg::B_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BN / 4),
                      col = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&bs[buf][row][col]) = b_reg[r];
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    const int tiles_k = (k + BK - 1) / BK;
    load_tiles(0);
    store_tiles(0);
    __syncthreads();
    // Register fragments of one K step; with PREFETCH two sets, the next step's read from shared
    // memory while the current step's FMAs run.
    constexpr bool prefetch = Cfg::PREFETCH;
    float af[prefetch ? 2 : 1][TM], bf[prefetch ? 2 : 1][TN];
    auto fragments = [&](int set, int buf, int kk) {
        load_fragments<Cfg>(af[set], bf[set], &as[buf][kk][pl.row_base], &bs[buf][kk][pl.col_base]);
    };
    for (int t = 0; t < tiles_k; ++t) {
        const int cur = t & 1;
        const bool more = t + 1 < tiles_k;
        if (more) load_tiles((t + 1) * BK);  // in flight during the products below
        if constexpr (prefetch) fragments(0, cur, 0);
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const int set = prefetch ? (kk & 1) : 0;
            if constexpr (!prefetch)
                fragments(0, cur, kk);
            else if (kk + 1 < BK)
                fragments(set ^ 1, cur, kk + 1);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[set][i], bf[set][j], acc[i][j]);
        }
        if (more) store_tiles(cur ^ 1);
        __syncthreads();
    }

    store_register_tile<Cfg, Exact>(acc, c, m, n, pl, alpha, beta, vec.c);
}

// ------------------------------------------------- fast, float, whole tiles (cp.async ring) --
// The bounds-free path of the large tile with the global -> shared copies done by cp.async
// (sm_80+) into a ring of STAGES K-tiles: no staging registers, and the copies of the next
// STAGES - 1 K-tiles are in flight while one is multiplied. Each stage holds A^T [BK][A_LD]
// then B [BK][BN]. A is copied 4 bytes at a time so that it lands transposed (the same fragment
// reads as the register-staged kernel); lane l of a warp copies A[r0 + l / 8][k0 + l % 8]: 32
// bytes of 4 rows per warp from global memory, and with the row pad of 4 the 32 shared words
// fall in 32 distinct banks. B is copied 16 bytes at a time, row-major. One barrier per K-tile,
// placed before the last K step so that the next K-tile's first fragments are read while that
// step's FMAs run.
template <class Tile, int STAGES_>
struct SimtRing : Tile {
    static constexpr int STAGES = STAGES_;
    static constexpr int A_STAGE = Tile::BK * Tile::A_LD, B_STAGE = Tile::BK * Tile::BN;
    static constexpr unsigned STAGE_BYTES = (A_STAGE + B_STAGE) * sizeof(float);
    static constexpr int A_ROWS = Tile::threads / 8;  // rows of A one 4-byte copy covers
    static constexpr int A_COPIES = Tile::BM * Tile::BK / Tile::threads;
    static constexpr int B_ROWS = Tile::threads / (Tile::BN / 4);  // rows of B per 16-byte copy
    static constexpr std::size_t smem_bytes = std::size_t(STAGES) * STAGE_BYTES;
    static_assert(Tile::BK % 8 == 0 && Tile::BM % A_ROWS == 0, "A copies: 8 columns per row");
    static_assert(Tile::BK % 2 == 0 && Tile::PREFETCH,
                  "two fragment sets: each K step's fragments are read one step early");
    static_assert(STAGES >= 2, "a ring of at least two K-tiles");
    static_assert(smem_bytes <= 48 * 1024, "launched without opting in to more shared memory");
};
// The large tile, three K-tiles of 8 in the ring (24.4 KiB of shared memory per block; two
// blocks per multiprocessor, 127 registers, no spills). Copy addresses stepped per K-tile from
// block pointers and 32-bit thread offsets instead of recomputed in 64 bits from the K-tile index,
// the stage as one byte offset shared by A and B (fragment loads address [thread + stage +
// immediate]), the refilling K-tiles three at a time (each stage a constant) and the last STAGES in
// a loop of their own: 565 instead of 605 SASS instructions per K-tile (512 FFMA). H200,
// 2026-11-26: 49.5 TFLOP/s at 4096^3 against 45.7 with the addresses recomputed per K-tile
// (0.970-0.985 of cuBLAS in the same processes); H100, 2026-11-26: 0.963-0.968 of cuBLAS (49.4-49.6
// TFLOP/s). The speed also hangs on ptxas's register choice: the same source compiled beside other
// variants ran at 47.7 with twice the same-bank FFMA operand reads.
using SimtLargeRing = SimtRing<SimtLarge, 3>;

__device__ __forceinline__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void copy_async_4(unsigned dst, const float* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void copy_async_16(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void copy_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void copy_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// m, n multiples of BM, BN; k of BK; rows of B and C 16-byte aligned; BM * k and BK * n at most
// INT_MAX (launch_fast checks).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, Cfg::MIN_BLOCKS)
    sgemm_ring_kernel(int n, int k, float alpha, const float* __restrict__ a,
                      const float* __restrict__ b, float beta, float* __restrict__ c, int tiles_m,
                      int tiles_n) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int A_LD = Cfg::A_LD, STAGES = Cfg::STAGES;
    constexpr unsigned STAGE = Cfg::STAGE_BYTES;
    extern __shared__ __align__(16) float ring[];  // [STAGES][A^T [BK][A_LD], B [BK][BN]]

    const SimtPlace pl = simt_place<Cfg>(tiles_m, tiles_n);
    const int tid = pl.tid;
    // Sources: the block's K-tile (stepped per K-tile) plus 32-bit thread offsets; copy j of A
    // covers rows (j % per_k) * A_ROWS + tid / 8 of column (j / per_k) * 8 + tid % 8, copy j of
    // B row j * B_ROWS + tid / (BN / 4).
    const float* a_blk = a + static_cast<std::size_t>(pl.m0) * k;
    const float* b_blk = b + pl.n0;
    const int a_thr = (tid / 8) * k + tid % 8, a_rows = Cfg::A_ROWS * k;
    const int b_thr = (tid / (BN / 4)) * n + (tid % (BN / 4)) * 4;
    const std::size_t b_step = static_cast<std::size_t>(BK) * n;
    const unsigned a_dst = shared_address(ring + (tid % 8) * A_LD + tid / 8);
    const unsigned b_dst =
        shared_address(ring + Cfg::A_STAGE + (tid / (BN / 4)) * BN + (tid % (BN / 4)) * 4);
    // The next K-tile not yet copied into the stage at byte offset `stage`.
    auto issue = [&](unsigned stage) {
        constexpr int per_k = BM / Cfg::A_ROWS;
        const float* p = a_blk + a_thr;
#pragma unroll
        for (int j = 0; j < Cfg::A_COPIES; ++j) {
            const int r = (j % per_k) * Cfg::A_ROWS, col = (j / per_k) * 8;
            copy_async_4(a_dst + stage + 4u * (col * A_LD + r), p + col);
            p = j % per_k == per_k - 1 ? a_blk + a_thr : p + a_rows;
        }
#pragma unroll
        for (int j = 0; j < Cfg::B_LOADS; ++j)
            copy_async_16(b_dst + stage + 4u * (j * Cfg::B_ROWS * BN),
                          b_blk + (b_thr + j * Cfg::B_ROWS * n));
        a_blk += BK;
        b_blk += b_step;
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    float af[2][TM], bf[2][TN];
    const char* const a_rd = reinterpret_cast<const char*>(ring + pl.row_base);
    const char* const b_rd = reinterpret_cast<const char*>(ring + Cfg::A_STAGE + pl.col_base);
    auto fragments = [&](int set, unsigned stage, int kk) {
        load_fragments<Cfg>(af[set], bf[set],
                            reinterpret_cast<const float*>(a_rd + stage) + kk * A_LD,
                            reinterpret_cast<const float*>(b_rd + stage) + kk * BN);
    };

    // One commit group per K-tile issued (empty past the end), so that "K-tile t + 1 has
    // landed" is always "at most STAGES - 2 groups pending" at the barrier of K-tile t.
    const int tiles_k = k / BK;
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
        if (s < tiles_k) issue(s * STAGE);
        copy_async_commit();
    }
    copy_async_wait<STAGES - 1>();
    __syncthreads();
    fragments(0, 0, 0);
    unsigned stage = 0;
    // One K-tile. Refill: K-tile t + STAGES exists and goes into this K-tile's stage; more:
    // K-tile t + 1 exists.
    auto k_tile = [&](auto refill, bool more) {
        const unsigned next = stage == (STAGES - 1) * STAGE ? 0u : stage + STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const int set = kk & 1;
            if (kk + 1 < BK) {
                fragments(set ^ 1, stage, kk + 1);
            } else if (decltype(refill)::value || more) {
                // Every thread holds this K-tile's last fragments: its stage can be refilled.
                copy_async_wait<STAGES - 2>();
                __syncthreads();
                if constexpr (decltype(refill)::value) issue(stage);
                copy_async_commit();
                fragments(set ^ 1, next, 0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[set][i], bf[set][j], acc[i][j]);
        }
        stage = next;
    };
    int t = 0;
    // The refilling K-tiles STAGES at a time, so that each one's stage is a constant.
    for (; t + STAGES <= tiles_k - STAGES; t += STAGES) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            stage = s * STAGE;
            k_tile(std::true_type{}, true);
        }
        stage = 0;
    }
    for (; t < tiles_k - STAGES; ++t) k_tile(std::true_type{}, true);
    for (; t < tiles_k; ++t) k_tile(std::false_type{}, t + 1 < tiles_k);

    store_register_tile<Cfg, true>(acc, c, 0, n, pl, alpha, beta, true);
}

// -------------------------------------------------------------------- fast, double (DMMA) ----
// Block BM x BN, K-tile 8, warps WARPS_M x WARPS_N of 32 x 32 (4 x 4 accumulators of 8 x 8).
// Shared rows are padded by 4 doubles: the m8n8k4 fragment loads (8 rows x 4 columns of A,
// 4 rows x 8 columns of B, 8 bytes per lane) then hit 32 distinct banks per half-warp, and
// every fragment start stays 32-byte aligned as wmma requires.
template <int BM_, int BN_, int WARPS_M_, int WARPS_N_>
struct DmmaTile {
    static constexpr int BM = BM_, BN = BN_, BK = 8, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int threads = WARPS_M * WARPS_N * 32;
    static constexpr int A_LD = BK + 4, B_LD = BN + 4;
    static constexpr int A_LOADS = BM * BK / 2 / threads, B_LOADS = BK * BN / 2 / threads;
    static_assert(WARPS_M * 32 == BM && WARPS_N * 32 == BN, "warps must cover the block tile");
    static_assert(A_LOADS * 2 * threads == BM * BK && B_LOADS * 2 * threads == BK * BN,
                  "each thread loads whole double2s of the tiles");
    static_assert(BM * A_LD >= 64 * WARPS_M * WARPS_N, "epilogue scratch fits in the A buffers");
};
// 64 x 64, 4 warps: the one double tile. A 128 x 128 tile of 16 warps (one 512-thread block
// per multiprocessor) was slower at every size measured: 10.8 / 22.4 / 22.8 TFLOP/s against
// 19.9 / 24.7 / 26.6 at 1024 / 2048 / 4096 (H100, 2026-11-21): with 4-warp blocks several blocks
// share a multiprocessor and one block's barrier leaves the tensor cores to the others.
using DmmaTileChosen = DmmaTile<64, 64, 2, 2>;

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads)
    dgemm_fast_kernel(int m, int n, int k, double alpha, const double* __restrict__ a,
                      const double* __restrict__ b, double beta, double* __restrict__ c,
                      int tiles_m, int tiles_n, VectorFlags vec) {
    using namespace nvcuda;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
    __shared__ __align__(128) double as[2][BM][Cfg::A_LD];
    __shared__ __align__(128) double bs[2][BK][Cfg::B_LD];

    int tm, tn;
    tile_of_block(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
    const int wrow = (warp / Cfg::WARPS_N) * 32, wcol = (warp % Cfg::WARPS_N) * 32;

    double2 a_reg[Cfg::A_LOADS], b_reg[Cfg::B_LOADS];
    auto load_tiles = [&](int k0) {
#pragma unroll
        for (int r = 0; r < Cfg::A_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BK / 2),
                      col = (idx % (BK / 2)) * 2;
            const int gr = m0 + row, gc = k0 + col;
            const double* p = a + static_cast<std::size_t>(gr) * k + gc;
            if (vec.a && gr < m && gc + 1 < k) {
                a_reg[r] = __ldg(reinterpret_cast<const double2*>(p));
            } else {
                const bool in = gr < m;
                a_reg[r] = make_double2(in && gc < k ? p[0] : 0.0, in && gc + 1 < k ? p[1] : 0.0);
            }
        }
#pragma unroll
        for (int r = 0; r < Cfg::B_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BN / 2),
                      col = (idx % (BN / 2)) * 2;
            const int gr = k0 + row, gc = n0 + col;
            const double* p = b + static_cast<std::size_t>(gr) * n + gc;
            if (vec.b && gr < k && gc + 1 < n) {
                b_reg[r] = __ldg(reinterpret_cast<const double2*>(p));
            } else {
                const bool in = gr < k;
                b_reg[r] = make_double2(in && gc < n ? p[0] : 0.0, in && gc + 1 < n ? p[1] : 0.0);
            }
        }
    };
    auto store_tiles = [&](int buf) {
#pragma unroll
        for (int r = 0; r < Cfg::A_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BK / 2),
                      col = (idx % (BK / 2)) * 2;
            *reinterpret_cast<double2*>(&as[buf][row][col]) = a_reg[r];
        }
#pragma unroll
        for (int r = 0; r < Cfg::B_LOADS; ++r) {
            const int idx = tid + r * Cfg::threads, row = idx / (BN / 2),
                      col = (idx % (BN / 2)) * 2;
            *reinterpret_cast<double2*>(&bs[buf][row][col]) = b_reg[r];
        }
    };

    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0);

    const int tiles_k = (k + BK - 1) / BK;
    load_tiles(0);
    store_tiles(0);
    __syncthreads();
    for (int t = 0; t < tiles_k; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles_k) load_tiles((t + 1) * BK);
#pragma unroll
        for (int kk = 0; kk < BK; kk += 4) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> af[4];
            wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> bf[4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                wmma::load_matrix_sync(af[i], &as[cur][wrow + i * 8][kk], Cfg::A_LD);
#pragma unroll
            for (int j = 0; j < 4; ++j)
                wmma::load_matrix_sync(bf[j], &bs[cur][kk][wcol + j * 8], Cfg::B_LD);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
        if (t + 1 < tiles_k) store_tiles(cur ^ 1);
        __syncthreads();
    }

    // Epilogue through a per-warp 8 x 8 scratch in the (now idle) A buffers: each accumulator
    // tile is stored row-major, then written to C with bounds checks, two elements per lane.
    double* scratch = &as[0][0][0] + warp * 64;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 8, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int e = lane; e < 64; e += 32) {
                const int row = m0 + wrow + i * 8 + e / 8, col = n0 + wcol + j * 8 + e % 8;
                if (row < m && col < n)
                    store_scaled(c + static_cast<std::size_t>(row) * n + col, scratch[e], alpha,
                                 beta);
            }
            __syncwarp();
        }
}

// ------------------------------------------- fast, double, whole tiles (DMMA, cp.async ring) --
// The bounds-free path of the double product on sm_90: block 128 x 128, K-tiles of 16 copied by
// cp.async into a ring of STAGES (dynamic shared memory, opted in above 48 KiB), 8 warps of
// 64 x 32 (4 x 4 accumulators of 16 x 8), mma.sync m16n8k16 (sm_90's FP64 tensor-core shape:
// these tiles on m8n8k4, the only shape of sm_80, measure 28 TFLOP/s on an H200, 0.59 of
// cuBLAS; docs/performance.md). The 64 x 64 kernel above is what other GPUs and shapes take.
//
// Fragments of mma.m16n8k16 .f64 (PTX ISA, "Matrix Fragments for mma.m16n8k16 with .f64"), g =
// lane / 4, t = lane % 4: A (row-major) a_i at row g + 8 (i % 2), column t + 4 (i / 2); B
// (column-major) b_i at row t + 4 i, column g; C and D c_i at row g + 8 (i / 2), column 2 t +
// i % 2. Shared rows are padded by 4 doubles: a load of a_i over the warp (8 rows x 4 columns of
// A) or of b_i (4 rows x 8 columns of B) then falls in each 8-byte bank pair exactly twice, the
// two wavefronts a 256-byte load needs.
template <int STAGES_>
struct DmmaRing {
    static constexpr int BM = 128, BN = 128, BK = 16, WARPS_M = 2, WARPS_N = 4;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 64 x 32 per warp
    static constexpr int MI = WM / 16, NJ = WN / 8;             // 4 x 4 accumulators
    static constexpr int threads = WARPS_M * WARPS_N * 32, STAGES = STAGES_;
    static constexpr int A_LD = BK + 4, B_LD = BN + 4;
    static constexpr int A_STAGE = BM * A_LD, B_STAGE = BK * B_LD;  // doubles
    static constexpr int A_COPIES = BM * BK / 2 / threads, B_COPIES = BK * BN / 2 / threads;
    static constexpr std::size_t smem_bytes =
        std::size_t(STAGES) * (A_STAGE + B_STAGE) * sizeof(double);
    static_assert(A_COPIES * 2 * threads == BM * BK && B_COPIES * 2 * threads == BK * BN,
                  "each thread copies whole 16-byte pieces of the tiles");
    static_assert((A_LD * sizeof(double)) % 16 == 0 && (B_LD * sizeof(double)) % 16 == 0,
                  "shared rows keep the 16-byte alignment of cp.async");
    static_assert(BK % 16 == 0, "whole m16n8k16 steps per K-tile");
};
using DmmaRingChosen = DmmaRing<4>;

__device__ __forceinline__ void dmma_16x8x16(double (&c)[4], const double (&a)[8],
                                             const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    __trap();  // launched only on compute capability 9.0 and later (launch_dmma_ring)
#endif
}

// m, n multiples of BM, BN; k of BK; A, B and C 16-byte aligned with even rows; BM * k and
// BK * n at most INT_MAX (launch_dmma_ring checks).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1)
    dgemm_ring_kernel(int n, int k, double alpha, const double* __restrict__ a,
                      const double* __restrict__ b, double beta, double* __restrict__ c,
                      int tiles_m, int tiles_n) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
    constexpr int A_LD = Cfg::A_LD, B_LD = Cfg::B_LD, MI = Cfg::MI, NJ = Cfg::NJ;
    extern __shared__ __align__(
        16) double dring[];  // [STAGES][A [BM][A_LD]], [STAGES][B [BK][B_LD]]
    double* as = dring;
    double* bs = dring + STAGES * Cfg::A_STAGE;

    int tm, tn;
    tile_of_block(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
    const int wrow = (warp / Cfg::WARPS_N) * Cfg::WM, wcol = (warp % Cfg::WARPS_N) * Cfg::WN;

    // Copy j of a K-tile: A row (tid + j threads) / (BK / 2), columns 2 ((tid + j threads) % (BK
    // / 2)) + {0, 1}: eight threads read a row's 128 bytes; B row (tid + j threads) / (BN / 2).
    const double* a_blk = a + static_cast<std::size_t>(m0) * k;
    const double* b_blk = b + n0;
    const std::size_t b_step = static_cast<std::size_t>(BK) * n;
    auto issue = [&](int stage) {
#pragma unroll
        for (int j = 0; j < Cfg::A_COPIES; ++j) {
            const int idx = tid + j * Cfg::threads, row = idx / (BK / 2),
                      col = (idx % (BK / 2)) * 2;
            copy_async_16(shared_address(as + stage * Cfg::A_STAGE + row * A_LD + col),
                          a_blk + (row * k + col));
        }
#pragma unroll
        for (int j = 0; j < Cfg::B_COPIES; ++j) {
            const int idx = tid + j * Cfg::threads, row = idx / (BN / 2),
                      col = (idx % (BN / 2)) * 2;
            copy_async_16(shared_address(bs + stage * Cfg::B_STAGE + row * B_LD + col),
                          b_blk + (row * n + col));
        }
        a_blk += BK;
        b_blk += b_step;
    };

    double acc[MI][NJ][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;

    const int tiles_k = k / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles_k) issue(s);
        copy_async_commit();
    }
    const int g = lane / 4, t = lane % 4;
    for (int kt = 0; kt < tiles_k; ++kt) {
        // K-tile kt has landed (at most STAGES - 2 younger groups pending) for every thread; the
        // stage refilled next was read in the previous iteration, which every warp has left.
        copy_async_wait<STAGES - 2>();
        __syncthreads();
        if (kt + STAGES - 1 < tiles_k) issue((kt + STAGES - 1) % STAGES);
        copy_async_commit();
        const int stage = kt % STAGES;
        const double* at = as + stage * Cfg::A_STAGE + (wrow + g) * A_LD + t;
        const double* bt = bs + stage * Cfg::B_STAGE + t * B_LD + wcol + g;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            double bf[NJ][4];
#pragma unroll
            for (int j = 0; j < NJ; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) bf[j][e] = bt[(kk + 4 * e) * B_LD + j * 8];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                double af[8];
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    af[e] = at[(i * 16 + 8 * (e % 2)) * A_LD + kk + 4 * (e / 2)];
#pragma unroll
                for (int j = 0; j < NJ; ++j) dmma_16x8x16(acc[i][j], af, bf[j]);
            }
        }
    }
    copy_async_wait<0>();

    // Each lane's two neighbouring elements of a row of an accumulator as one 16-byte store.
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = m0 + wrow + i * 16 + g + 8 * h, col = n0 + wcol + j * 8 + 2 * t;
                double2* p =
                    reinterpret_cast<double2*>(c + static_cast<std::size_t>(row) * n + col);
                double2 v = make_double2(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
                if (beta != 0.0) {
                    const double2 old = *p;
                    v.x += beta * old.x;
                    v.y += beta * old.y;
                }
                *p = v;
            }
}

// --------------------------------------------------------------------------------- launch ----
bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <typename T>
VectorFlags vector_flags(int n, int k, const T* a, const T* b, const T* c) {
    constexpr int width = 16 / sizeof(T);
    return {k % width == 0 && aligned16(a), n % width == 0 && aligned16(b),
            n % width == 0 && aligned16(c)};
}

// The large tile when its blocks cover every multiprocessor at least once, else the small one.
// KernelOptions::gemm_fast_tile large or small overrides the choice (measurements of the tuned
// set).
bool use_large_tile(const Executor& exec, int m, int n, int large_m, int large_n) {
    const KernelOptions::GemmTile force = exec.kernel_options().gemm_fast_tile;
    if (force != KernelOptions::GemmTile::automatic) return force == KernelOptions::GemmTile::large;
    const long long tiles =
        static_cast<long long>((m + large_m - 1) / large_m) * ((n + large_n - 1) / large_n);
    return tiles >= device_limits(exec.device_id()).multiprocessors;
}

template <class Cfg>
void launch_fast(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                 const float* b, float beta, float* c) {
    const int tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
    const VectorFlags vec = vector_flags(n, k, a, b, c);
    const bool exact =
        vec.a && vec.b && vec.c && m % Cfg::BM == 0 && n % Cfg::BN == 0 && k % Cfg::BK == 0;
    const unsigned blocks = static_cast<unsigned>(tiles_m) * tiles_n;
    if constexpr (std::is_same_v<Cfg, SimtLarge>) {
        // The ring kernel's thread offsets into A and B are 32-bit.
        const bool offsets32 = static_cast<long long>(Cfg::BM) * k <= INT_MAX &&
                               static_cast<long long>(Cfg::BK) * n <= INT_MAX;
        if (exact && offsets32)
            sgemm_ring_kernel<SimtLargeRing>
                <<<blocks, SimtLargeRing::threads, SimtLargeRing::smem_bytes, stream>>>(
                    n, k, alpha, a, b, beta, c, tiles_m, tiles_n);
        else
            sgemm_fast_kernel<Cfg, false><<<blocks, Cfg::threads, 0, stream>>>(
                m, n, k, alpha, a, b, beta, c, tiles_m, tiles_n, vec);
    } else {
        if (exact)
            sgemm_fast_kernel<Cfg, true><<<blocks, Cfg::threads, 0, stream>>>(
                m, n, k, alpha, a, b, beta, c, tiles_m, tiles_n, vec);
        else
            sgemm_fast_kernel<Cfg, false><<<blocks, Cfg::threads, 0, stream>>>(
                m, n, k, alpha, a, b, beta, c, tiles_m, tiles_n, vec);
    }
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <class Cfg>
void launch_fast(cudaStream_t stream, int m, int n, int k, double alpha, const double* a,
                 const double* b, double beta, double* c) {
    const int tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
    dgemm_fast_kernel<Cfg><<<static_cast<unsigned>(tiles_m) * tiles_n, Cfg::threads, 0, stream>>>(
        m, n, k, alpha, a, b, beta, c, tiles_m, tiles_n, vector_flags(n, k, a, b, c));
    PORTLA_CUDA_CHECK_LAUNCH();
}

// The ring kernel on compute capability 9.0 and later where the shape is whole tiles of it (and
// its 32-bit thread offsets fit); false: the 64 x 64 kernel's turn.
bool launch_dmma_ring(const Executor& exec, int m, int n, int k, double alpha, const double* a,
                      const double* b, double beta, double* c) {
    using Cfg = DmmaRingChosen;
    if (device_limits(exec.device_id()).compute_major < 9) return false;  // m16n8k16 f64: sm_90
    const cudaStream_t stream = stream_of(exec);
    const VectorFlags vec = vector_flags(n, k, a, b, c);
    const bool whole = vec.a && vec.b && vec.c && m % Cfg::BM == 0 && n % Cfg::BN == 0 &&
                       k % Cfg::BK == 0 && k > 0;
    if (!whole || static_cast<long long>(Cfg::BM) * k > INT_MAX ||
        static_cast<long long>(Cfg::BK) * n > INT_MAX)
        return false;
    allow_dynamic_shared(exec.device_id(), dgemm_ring_kernel<Cfg>, Cfg::smem_bytes);
    const int tiles_m = m / Cfg::BM, tiles_n = n / Cfg::BN;
    dgemm_ring_kernel<Cfg>
        <<<static_cast<unsigned>(tiles_m) * tiles_n, Cfg::threads, Cfg::smem_bytes, stream>>>(
            n, k, alpha, a, b, beta, c, tiles_m, tiles_n);
    PORTLA_CUDA_CHECK_LAUNCH();
    return true;
}

void fast_gemm(const Executor& exec, int m, int n, int k, float alpha, const float* a,
               const float* b, float beta, float* c) {
    if (use_large_tile(exec, m, n, SimtLarge::BM, SimtLarge::BN))
        launch_fast<SimtLarge>(stream_of(exec), m, n, k, alpha, a, b, beta, c);
    else
        launch_fast<SimtSmall>(stream_of(exec), m, n, k, alpha, a, b, beta, c);
}

// double: the 128 x 128 ring kernel when its blocks cover every multiprocessor (or the large
// tile is forced) and the shape is whole tiles of it, else the 64 x 64 kernel.
void fast_gemm(const Executor& exec, int m, int n, int k, double alpha, const double* a,
               const double* b, double beta, double* c) {
    if (use_large_tile(exec, m, n, DmmaRingChosen::BM, DmmaRingChosen::BN) &&
        launch_dmma_ring(exec, m, n, k, alpha, a, b, beta, c))
        return;
    launch_fast<DmmaTileChosen>(stream_of(exec), m, n, k, alpha, a, b, beta, c);
}

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (n, m, k), B first, ld n, k, n.
template <typename T>
void vendor_gemm(const Executor& exec, int m, int n, int k, T alpha, const T* a, const T* b, T beta,
                 T* c) {
    cublasHandle_t handle = cublas_handle(exec, CUBLAS_POINTER_MODE_HOST);
    const cublasComputeType_t compute =
        sizeof(T) == 8 ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_32F_PEDANTIC;
    // The exported cublasGemmEx (cublas_api.h overloads it with a cudaDataType compute type).
    using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, int, const void*, const void*, cudaDataType, int,
                                      const void*, cudaDataType, int, const void*, void*,
                                      cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    PORTLA_CUBLAS_CHECK(PORTLA_VENDOR_AS(cublas, cublasGemmEx, GemmEx)(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, data_type<T>(), n, a, data_type<T>(),
        k, &beta, c, data_type<T>(), n, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

template <typename T>
void gemm(tag, const Executor& exec, GemmVariant variant, std::size_t rows, std::size_t cols,
          std::size_t depth, T alpha, const_view<T> a_view, const_view<T> b_view, T beta,
          view<T> c_view) {
    // m, n, k <= INT_MAX: checked in src/core/gemm.cpp
    const int m = static_cast<int>(rows), n = static_cast<int>(cols), k = static_cast<int>(depth);
    const T* a = a_view.data;
    const T* b = b_view.data;
    T* c = c_view.data;
    activate(exec.device_id());
    const int width = exec.launch().work_group_size;  // tiled and subgroup: 1 x width groups
    const int col_blocks = (n + width - 1) / width;
    // Every grid is 1-D: refuse shapes whose blocks exceed gridDim.x (2^31 - 1), e.g. m ~ 2^31
    // rows of a few columns, instead of launching a wrong grid.
    if (static_cast<long long>(m) * col_blocks > INT_MAX ||
        static_cast<long long>((m + kNaiveY - 1) / kNaiveY) * ((n + kNaiveX - 1) / kNaiveX) >
            INT_MAX)
        throw Unsupported("gemm on cuda: " + std::to_string(m) + " x " + std::to_string(n) +
                          " needs more than 2^31 - 1 thread blocks");
    const unsigned row_groups = static_cast<unsigned>(m) * static_cast<unsigned>(col_blocks);
    switch (variant) {
        case GemmVariant::naive: {
            const int naive_cols = (n + kNaiveX - 1) / kNaiveX;
            const unsigned blocks = static_cast<unsigned>((m + kNaiveY - 1) / kNaiveY) * naive_cols;
            gemm_naive_kernel<T><<<blocks, dim3(kNaiveX, kNaiveY), 0, stream_of(exec)>>>(
                m, n, k, alpha, a, b, beta, c, naive_cols);
            break;
        }
        case GemmVariant::tiled:
            gemm_tiled_kernel<T><<<row_groups, width, width * sizeof(T), stream_of(exec)>>>(
                m, n, k, alpha, a, b, beta, c, col_blocks);
            break;
        case GemmVariant::subgroup:
            gemm_subgroup_kernel<T><<<row_groups, width, 0, stream_of(exec)>>>(m, n, k, alpha, a, b,
                                                                               beta, c, col_blocks);
            break;
        case GemmVariant::fast:
            return fast_gemm(exec, m, n, k, alpha, a, b, beta, c);
        case GemmVariant::vendor:
            return vendor_gemm(exec, m, n, k, alpha, a, b, beta, c);
    }
    PORTLA_CUDA_CHECK_LAUNCH();
}

PORTLA_INSTANTIATE_GEMM_KERNELS(double);
PORTLA_INSTANTIATE_GEMM_KERNELS(float);

}  // namespace portla::kernels::cuda
