// Tiles of whole x-lines marching along z, shared by the 3-D stencil kernels of the cuda backend
// (the fused CG direction step in cg_kernels.cu, the slab apply in matrix_kernels.cu): a tile is
// `rows` consecutive y-rows of an N x N plane by a range of z-planes; a block walks up the
// tile's planes, each thread owning a few points of every plane. Internal to src/cuda.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace portla::kernels::cuda {

// The ring kernels: tiles of rows * N <= 4096 points a plane, 1024 threads of 4 points each, any
// N up to 2048 (the 2 N halo points of a plane are 1, 2 or 4 per thread: ring_halo).
constexpr unsigned kRingTilePoints = 4096;
constexpr int kRingThreads = 1024;
constexpr unsigned kRingMaxPoints = 2048;

struct LineTiles {
    std::uint32_t points;  // N: a plane is N x N points
    std::uint32_t rows;    // y-rows per tile (the last tile of a column may have fewer)
    std::uint32_t y_tiles;
    std::uint32_t planes;           // z-planes per tile (the last may have fewer)
    std::uint32_t tiles;            // y_tiles * tiles along z
    std::uint32_t z_first, z_last;  // the tiles cover planes [z_first, z_last)
};

// The tile kernels' common set-up: a tile's y-rows and z-planes, and where each thread's points
// lie in it. Point j of a thread: first + tid + j Threads of a plane, at N + tid + j Threads of a
// shared buffer (after the lower halo row). Halo point m, h = tid + m Threads < 2 N: row y0 - 1
// (h < N) or y0 + rows, x = h mod N, at h or (rows + 1) N + x of the buffer; zero (real false)
// where that row is outside the grid. Halo: 2 N / Threads rounded up, or more (idle slots).
template <int Per, int Halo>
struct TileLanes {
    std::uint32_t z0, z1;  // the tile's z-planes [z0, z1)
    std::uint32_t rows;    // its y-rows, from y0 (the last tile of a column may have fewer)
    std::uint32_t first;   // y0 N: its first point of a plane
    bool in[Per], left[Per], right[Per];
    bool halo[Halo], real[Halo];
    std::uint32_t halo_shared[Halo];  // in a buffer; in a plane (when real): + halo_from
    std::uint32_t halo_from;          // first - N (modulo 2^32)
};

template <int Threads, int Per, int Halo>
__device__ __forceinline__ TileLanes<Per, Halo> tile_lanes(const LineTiles& g, std::uint32_t tile,
                                                           std::uint32_t tid) {
    TileLanes<Per, Halo> t;
    const std::uint32_t N = g.points;
    const std::uint32_t y0 = (tile % g.y_tiles) * g.rows;
    t.z0 = g.z_first + (tile / g.y_tiles) * g.planes;
    t.rows = min(g.rows, N - y0);
    t.z1 = min(t.z0 + g.planes, g.z_last);
    t.first = y0 * N;
    t.halo_from = t.first - N;
    const std::uint32_t count = t.rows * N;  // the tile's points of a plane: first + [0, count)
#pragma unroll
    for (int j = 0; j < Per; ++j) {
        const std::uint32_t idx = tid + j * Threads;
        const std::uint32_t ix = idx % N;
        t.in[j] = idx < count;
        t.left[j] = ix > 0;
        t.right[j] = ix + 1 < N;
    }
#pragma unroll
    for (int m = 0; m < Halo; ++m) {
        const std::uint32_t h = tid + m * Threads;
        const bool upper = h >= N;
        const std::uint32_t ix = upper ? h - N : h;
        t.halo[m] = h < 2 * N;
        t.real[m] = upper ? y0 + t.rows < N : y0 > 0;
        t.halo_shared[m] = upper ? (t.rows + 1) * N + ix : ix;
    }
    return t;
}

// The ring kernels' common set-up: the grid's N and plane, and four shared-memory buffers of a
// tile's plane with its two halo rows ((rows + 2) N values each), plane k's in slot k mod 4
// (k = 2^32 - 1, plane -1, shares slot 3 with k + 4).
template <typename T>
struct RingTile {
    std::uint32_t N;       // a plane is N x N points
    std::uint32_t plane;   // N * N
    std::uint32_t buffer;  // values of one buffer: halo row, rows, halo row
    T* ring;
    __device__ __forceinline__ T* slot(std::uint32_t k) const { return ring + (k & 3u) * buffer; }
};

template <typename T>
__device__ __forceinline__ RingTile<T> ring_tile(const LineTiles& g, unsigned char* shared) {
    return {g.points, g.points * g.points, (g.rows + 2) * g.points, reinterpret_cast<T*>(shared)};
}

// The ring kernel's halo points per thread: the fewest of 1, 2 and 4 that hold a plane's 2 N
// (1024 threads), or `forced` when that is more (the larger forms are then tested on small
// grids, their extra slots idle).
inline int ring_halo(std::size_t points, int forced) {
    const std::size_t threads = kRingThreads;
    const int needed = 2 * points <= threads ? 1 : 2 * points <= 2 * threads ? 2 : 4;
    return std::max(needed, forced);
}

// Tiles of `rows` y-rows (rows * N <= tile_points, at least one) by `planes` z-planes over the
// planes [z_first, z_last) (the whole N^3 grid: 0, N). With `resident` blocks at a time, each
// taking the tiles blockIdx.x, + resident, ..., the time is rounds x (planes + 2) plane steps (a
// tile also reads the planes below and above its range): the split along z is the one of k = 1,
// 2, ... ranges that makes that least (the fewest ranges among equals). Where N / rows divides
// into the resident blocks this is the split that fills them in one round: 128^3, 256^3 and
// 512^3 as before (ring: 4 x 32, 16 x 8, 64 x 2 tiles on 132 SMs). Where it does not, it is
// several rounds of shorter tiles: 513^3 (74 tiles of 7 rows) takes 7 ranges of 74 planes (4
// rounds of 518 tiles, 304 steps) instead of one of 513 (74 of the 132 SMs busy, 515 steps);
// 384^3 39 x 10 tiles of 39 planes in 3 rounds (123 steps) instead of 39 x 3 of 128 in one
// (130). planes != 0 fixes the planes per tile. z_first < z_last.
inline LineTiles line_tiles(std::size_t points, std::size_t z_first, std::size_t z_last,
                            unsigned tile_points, unsigned resident, std::uint32_t planes) {
    LineTiles g{};
    g.points = static_cast<std::uint32_t>(points);
    g.z_first = static_cast<std::uint32_t>(z_first);
    g.z_last = static_cast<std::uint32_t>(z_last);
    const std::uint32_t depth = g.z_last - g.z_first;
    g.rows = std::clamp<std::uint32_t>(tile_points / g.points, 1, g.points);
    g.y_tiles = (g.points + g.rows - 1) / g.rows;
    if (planes == 0) {
        const std::uint64_t blocks = std::max(resident, 1u);
        // more ranges than 8 per block of a round only shorten tiles that are already short
        const std::uint32_t most = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(depth, 8 * ((blocks + g.y_tiles - 1) / g.y_tiles)));
        std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
        for (std::uint32_t k = 1; k <= most; ++k) {
            const std::uint32_t p = (depth + k - 1) / k;
            const std::uint64_t tiles = std::uint64_t{g.y_tiles} * ((depth + p - 1) / p);
            const std::uint64_t steps = (tiles + blocks - 1) / blocks * (p + 2);
            if (steps < best) {
                best = steps;
                planes = p;
            }
        }
    }
    g.planes = std::min(std::max<std::uint32_t>(planes, 1), depth);
    g.tiles = g.y_tiles * ((depth + g.planes - 1) / g.planes);
    return g;
}

// Dynamic shared memory of a tile kernel: `buffers` planes of rows + 2 lines of N points.
template <typename T>
std::size_t tile_shared(std::size_t points, unsigned tile_points, int buffers) {
    const std::size_t rows = std::clamp<std::size_t>(tile_points / points, 1, points);
    return static_cast<std::size_t>(buffers) * (rows + 2) * points * sizeof(T);
}

}  // namespace portla::kernels::cuda
