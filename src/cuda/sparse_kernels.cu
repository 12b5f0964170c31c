// The sparse and aggregation kernels of the cuda backend: one thread per row (grid-stride, 256
// threads per block) running the row functions of common/sparse/rows.hpp, on the stream of the
// executor's device. The multigrid cycle's row updates (smoothing steps, residual, coarse
// correction) form (A x)_i with a group of lanes per row as the CSR SpMV does
// (cuda/csr_lanes.hpp), then one lane runs the row's update (the lane of the row's place in a
// tile of 32 rows where the rows fill a wave). The prefix sums are CUB's
// (cub::DeviceScan). count_rows reduces each block's count with __syncthreads_count and adds it to
// a device counter (one atomic per block), read back once.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "cuda/csr_lanes.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/reduction.cuh"
#include "cuda/scratch.hpp"
#include "cuda/sparse_row.cuh"

namespace portla::kernels::cuda {
namespace {

constexpr unsigned kThreads = 256;

template <typename F>
__global__ void rows_kernel(std::size_t first, std::size_t last, F f) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < last; i += stride)
        f(i);
}

template <typename F>
__global__ void count_kernel(std::size_t n, F f, unsigned long long* total) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned long long count = 0;
    // Every thread of the block runs the same number of passes (__syncthreads_count is a barrier).
    for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < n;
         base += stride) {
        const std::size_t i = base + threadIdx.x;
        count += static_cast<unsigned long long>(__syncthreads_count(i < n && f(i) != 0));
    }
    if (threadIdx.x == 0 && count > 0) atomicAdd(total, count);
}

unsigned grid_for(const Executor& exec, std::size_t n) {
    const std::size_t needed = (n + kThreads - 1) / kThreads;
    const std::size_t wave =
        8 * static_cast<std::size_t>(resident_blocks(exec.device_id(), kThreads));
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
}

template <typename F>
void for_rows(const Executor& exec, std::size_t first, std::size_t last, F f) {
    if (last <= first) return;
    activate(exec.device_id());
    rows_kernel<<<grid_for(exec, last - first), kThreads, 0, stream_of(exec)>>>(first, last, f);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename F>
std::size_t count_rows(const Executor& exec, std::size_t n, F f) {
    if (n == 0) return 0;
    activate(exec.device_id());
    Array<unsigned long long> total(exec, 1);
    const cudaStream_t stream = stream_of(exec);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, sizeof(unsigned long long), stream));
    count_kernel<<<grid_for(exec, n), kThreads, 0, stream>>>(n, f, total.data());
    PORTLA_CUDA_CHECK_LAUNCH();
    unsigned long long host = 0;
    PORTLA_CUDA_CHECK(
        cudaMemcpyAsync(&host, total.data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<std::size_t>(host);
}

// A group of G lanes per row forms ax = (A x)_row (the loop bounds are warp-uniform, so the
// full-mask shuffles are safe). Without Tile the group's first lane runs update(row, ax), 32 / G
// rows a warp a step. With Tile a warp takes 32 consecutive rows: G passes of 32 / G rows, each
// pass's sums handed by a shuffle to the lanes of those rows, then every lane updates its own
// row, so the update's vector reads and writes are whole lines of the warp. Worth it where the
// rows fill a wave (below that the G passes would cut the rows in flight) and the groups are at
// most 8 lanes (16 passes of a reduction each cost more than they save). Smoothed aggregation's
// solve on the H200 (2026-11-29): poisson3d:256 102.6 ms without tiles (groups of up to 32
// lanes), 93.5 with them, 86.7 with groups of up to 16 lanes too (csr_lanes);
// anisotropic3d:128 19.5 ms tiling 16-lane groups too, 15.5 not.
// skip_sum: ax = 0 without reading A or x.
template <int G, bool Tile, typename T, typename U>
__global__ void row_sum_update_kernel(std::size_t rows, const std::int32_t* __restrict__ rp,
                                      const std::int32_t* __restrict__ ci, const T* __restrict__ v,
                                      const T* __restrict__ x, U update, int skip_sum) {
    constexpr unsigned per_pass = 32 / G;
    constexpr unsigned passes = Tile ? G : 1;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    const auto read = [x](std::size_t j) { return __ldg(x + j); };
    for (std::size_t first = warp * per_pass * passes; first < rows;
         first += warps * per_pass * passes) {
        T mine = T(0);
#pragma unroll
        for (unsigned pass = 0; pass < passes; ++pass) {
            const std::size_t row = first + pass * per_pass + lane / G;
            T sum = T(0);
            if (row < rows && !skip_sum)
                sum = csr_lane_sum<T>(std::int64_t{rp[row]} + member, rp[row + 1], G, ci, v, read);
            sum = warp_sum<G>(sum);
            if constexpr (Tile) {
                // row first + lane is in this pass when lane / per_pass == pass; its sum is in
                // the first lane of group lane % per_pass
                const T got = __shfl_sync(kFullWarpMask, sum, (lane % per_pass) * G);
                if (lane / per_pass == pass) mine = got;
            } else {
                mine = sum;
            }
        }
        if constexpr (Tile) {
            if (first + lane < rows) update(first + lane, mine);
        } else {
            const std::size_t row = first + lane / G;
            if (row < rows && member == 0) update(row, mine);
        }
    }
}

template <int G, bool Tile, typename T, typename U>
void launch_sum_update(const Executor& exec, std::size_t rows, const std::int32_t* rp,
                       const std::int32_t* ci, const T* v, const T* x, U update, int skip_sum) {
    const auto kernel = row_sum_update_kernel<G, Tile, T, U>;
    // One wave at the kernel's occupancy (no partial second wave), as the CSR SpMV.
    const std::size_t needed = (rows * (Tile ? 1 : G) + kThreads - 1) / kThreads;
    const std::size_t wave = resident_blocks(exec.device_id(), static_cast<int>(kThreads),
                                             reinterpret_cast<const void*>(kernel));
    const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
    kernel<<<blocks, kThreads, 0, stream_of(exec)>>>(rows, rp, ci, v, x, update, skip_sum);
    PORTLA_CUDA_CHECK_LAUNCH();
}

template <typename T, typename U>
void rows_sum_update(const Executor& exec, std::size_t rows, std::size_t entries,
                     const std::int32_t* rp, const std::int32_t* ci, const T* v, const T* x,
                     U update, int skip_sum) {
    if (rows == 0) return;
    activate(exec.device_id());
    // Without the sum every row is its update alone: one lane per row.
    const int lanes = skip_sum ? 1 : csr_lanes(entries, rows);
    with_lanes(lanes, [&](auto group) {
        constexpr int G = decltype(group)::value;
        // Tiles where the groups of a lane-per-group launch would fill more than a wave (only
        // groups of 2 to 8 lanes have a tiled kernel).
        if constexpr (G > 1 && G <= 8) {
            const std::size_t wave = resident_blocks(
                exec.device_id(), static_cast<int>(kThreads),
                reinterpret_cast<const void*>(row_sum_update_kernel<G, false, T, U>));
            if ((rows * G + kThreads - 1) / kThreads > wave) {
                launch_sum_update<G, true>(exec, rows, rp, ci, v, x, update, skip_sum);
                return;
            }
        }
        launch_sum_update<G, false>(exec, rows, rp, ci, v, x, update, skip_sum);
    });
}

/// kernel(rows, args...) with a group of G lanes per row, one wave of blocks at most.
template <int G, typename... Params, typename... Args>
void launch_groups(const Executor& exec, void (*kernel)(Params...), std::size_t rows,
                   Args... args) {
    const std::size_t needed = (rows * G + kThreads - 1) / kThreads;
    const std::size_t wave = resident_blocks(exec.device_id(), static_cast<int>(kThreads),
                                             reinterpret_cast<const void*>(kernel));
    const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
    kernel<<<blocks, kThreads, 0, stream_of(exec)>>>(rows, args...);
    PORTLA_CUDA_CHECK_LAUNCH();
}

// The independent set's maxima (amg_max_row) with a group of G lanes per row, as above; with
// `undecided` (not null) only for the rows whose key there is undecided (the others' groups
// read no row, and still take part in the full-mask shuffles).
template <int G>
__global__ void max_rows_kernel(std::size_t rows, const std::int32_t* __restrict__ rp,
                                const std::int32_t* __restrict__ ci,
                                const std::int32_t* __restrict__ strong,
                                const std::uint64_t* __restrict__ in,
                                std::uint64_t* __restrict__ out,
                                const std::uint64_t* __restrict__ undecided) {
    constexpr unsigned rows_per_warp = 32 / G;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane % G;
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::size_t first = warp * rows_per_warp; first < rows; first += warps * rows_per_warp) {
        const std::size_t row = first + lane / G;
        const bool wanted = row < rows && (!undecided || PORTLA_AMG_STATE(undecided[row]) == 1);
        unsigned long long m = 0;
        if (wanted) {
            m = in[row];
            for (int k = rp[row] + static_cast<int>(member); k < rp[row + 1]; k += G)
                if (strong[k]) m = max(m, static_cast<unsigned long long>(in[ci[k]]));
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2)
            m = max(m, __shfl_down_sync(kFullWarpMask, m, offset, G));
        if (wanted && member == 0) out[row] = m;
    }
}

void max_rows(const Executor& exec, std::size_t rows, std::size_t entries, const std::int32_t* rp,
              const std::int32_t* ci, const std::int32_t* strong, const std::uint64_t* in,
              std::uint64_t* out, const std::uint64_t* undecided) {
    if (rows == 0) return;
    activate(exec.device_id());
    with_lanes(csr_lanes(entries, rows), [&](auto group) {
        constexpr int G = decltype(group)::value;
        launch_groups<G>(exec, max_rows_kernel<G>, rows, rp, ci, strong, in, out, undecided);
    });
}

}  // namespace

template <typename I>
void exclusive_scan(tag, const Executor& exec, const_view<I> in, view<I> out) {
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    PORTLA_CUDA_CHECK(cudaMemsetAsync(out.data, 0, sizeof(I), stream));
    if (in.size == 0) return;
    std::size_t bytes = 0;
    PORTLA_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(nullptr, bytes, in.data, out.data + 1, in.size, stream));
    Array<unsigned char> temp(exec, std::max<std::size_t>(bytes, 1));
    PORTLA_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(temp.data(), bytes, in.data, out.data + 1, in.size, stream));
    // temp is freed at return: the scan must have read it by then.
    PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Each row's entries sorted by column (after the include).
template <typename T>
void sort_rows(const Executor& exec, std::size_t rows, const std::int32_t* rp, std::int32_t* ci,
               T* v);

#define PORTLA_ROWS_OWN_ROW_SUMS
#define PORTLA_ROWS_OWN_SPGEMM
#define PORTLA_ROWS_OWN_EXT_FILL
#define PORTLA_ROWS_OWN_CLASSICAL_STRENGTH
#include "core/kernels/row_kernels.inc"

// ---- SpGEMM and row sorts with a warp per row --------------------------------------------------
// The product's rows whose capped hash table (spgemm_table_slots) has at most kWarpSlots slots
// are accumulated by a warp in shared memory: the products of the row spread over the lanes
// (several rows of B at once), each added to its column's slot (spgemm_slot, linear probing)
// with atomicCAS on the key and atomicAdd on the value, so the order of a column's sum, and its
// last bits, may differ from run to run. The warp then compacts the table and writes the row
// sorted by column (each entry's rank among the row's columns) at the start of the row's slots in
// global memory: the extraction copies it. A row that overflows its capped table is counted -1
// and done again in a full table by the row functions (the retry pass), as are the rows with
// larger tables, one thread per row. The transpose's rows are sorted the same way (rank sort in
// shared memory) up to kWarpSlots entries. Measured on the H100 (3-D Poisson 256^3, smoothed
// aggregation set-up): see docs/multigrid.md. Rows of small tables stay one thread's.

constexpr int kWarpSlots = 1024;
// Rows of at most this many slots stay one thread's (a warp would idle most of its lanes: 3-D
// Poisson 256^3, S T of 16.7M rows of 8 slots: 14 ms one thread per row, 30 ms a warp per row;
// A P, 32 slots: 99 ms against 47 ms; H100).
constexpr int kThreadSlots = 16;

/// Whether a row whose table has t slots is the warp kernel's.
__device__ inline bool warp_row(std::int64_t t) { return t > kThreadSlots && t <= kWarpSlots; }
constexpr int kSpgemmWarps = 4;  // warps per block
constexpr unsigned kSpgemmThreads = 32 * kSpgemmWarps;

template <typename T>
constexpr std::size_t warp_tables_bytes() {
    return kSpgemmWarps * (kWarpSlots * (sizeof(T) + sizeof(std::int32_t)) +
                           32 * (sizeof(T) + 2 * sizeof(std::int32_t)));
}

/// The shared-memory arrays of warp w of a block: values first (alignment), then keys.
template <typename T>
struct WarpTables {
    T* vals;     // kWarpSlots
    T* a;        // 32: the values of A's entries of the current chunk
    int* keys;   // kWarpSlots
    int* start;  // 32: where each chunk entry's row of B starts
    int* ends;   // 32: inclusive prefix sums of those rows' lengths
    __device__ WarpTables(unsigned char* smem, unsigned w) {
        T* tv = reinterpret_cast<T*>(smem);
        vals = tv + w * kWarpSlots;
        a = tv + kSpgemmWarps * kWarpSlots + w * 32;
        int* ti = reinterpret_cast<int*>(tv + kSpgemmWarps * (kWarpSlots + 32));
        keys = ti + w * kWarpSlots;
        start = ti + kSpgemmWarps * kWarpSlots + w * 32;
        ends = ti + kSpgemmWarps * (kWarpSlots + 32) + w * 32;
    }
};

/// The m distinct keys (and values) of keys[0..m) written to out_keys/out_vals sorted by key:
/// each entry at its rank.
template <typename T>
__device__ void rank_sort_out(const int* keys, const T* vals, int m, unsigned lane,
                              std::int32_t* out_keys, T* out_vals) {
    for (int j = static_cast<int>(lane); j < m; j += 32) {
        const int key = keys[j];
        int rank = 0;
        for (int q = 0; q < m; ++q) rank += keys[q] < key;
        out_keys[rank] = key;
        out_vals[rank] = vals[j];
    }
}

template <typename T>
__global__ void __launch_bounds__(kSpgemmThreads)
    spgemm_warp_kernel(std::size_t first, std::size_t last, const std::int32_t* __restrict__ a_rp,
                       const std::int32_t* __restrict__ a_ci, const T* __restrict__ a_v,
                       const std::int32_t* __restrict__ b_rp, const std::int32_t* __restrict__ b_ci,
                       const T* __restrict__ b_v, const std::int64_t* __restrict__ offsets,
                       std::int64_t base, std::int32_t* __restrict__ keys, T* __restrict__ vals,
                       std::int32_t* __restrict__ counts) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int count[kSpgemmWarps], overflow[kSpgemmWarps];
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const WarpTables<T> tab(smem, w);
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::size_t i = first + warp; i < last; i += warps) {  // warp-uniform
        const std::int64_t t = offsets[i + 1] - offsets[i];
        if (!warp_row(t)) continue;  // the row functions' row
        const int slots = static_cast<int>(t);
        for (int s = static_cast<int>(lane); s < slots; s += 32) {
            tab.keys[s] = -1;
            tab.vals[s] = T(0);
        }
        if (lane == 0) count[w] = overflow[w] = 0;
        __syncwarp();
        const int a_end = a_rp[i + 1];
        for (int c0 = a_rp[i]; c0 < a_end; c0 += 32) {
            // 32 entries of A's row at a time: their rows of B's products spread over the lanes.
            const int ka = c0 + static_cast<int>(lane);
            int len = 0, from = 0;
            T a = T(0);
            if (ka < a_end) {
                const int k = a_ci[ka];
                from = b_rp[k];
                len = b_rp[k + 1] - from;
                a = a_v[ka];
            }
            int ends = len;
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(kFullWarpMask, ends, o);
                if (static_cast<int>(lane) >= o) ends += y;
            }
            const int total = __shfl_sync(kFullWarpMask, ends, 31);
            tab.start[lane] = from;
            tab.ends[lane] = ends;
            tab.a[lane] = a;
            __syncwarp();
            for (int p = static_cast<int>(lane); p < total; p += 32) {
                int lo = 0, hi = 31;  // the entry whose products hold p: the first end above p
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    if (tab.ends[mid] > p)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                const int kb = tab.start[lo] + p - (lo > 0 ? tab.ends[lo - 1] : 0);
                const int c = b_ci[kb];
                const T product = tab.a[lo] * b_v[kb];
                int s = static_cast<int>(Rows<T>::spgemm_slot(c, t));
                for (int probes = 0;; ++probes) {
                    if (probes == slots) {  // full: cannot happen below the count's bound
                        overflow[w] = 1;
                        break;
                    }
                    const int prev = atomicCAS(tab.keys + s, -1, c);
                    if (prev == -1 || prev == c) {
                        // a table keeps one slot empty, as spgemm_row_accumulate's
                        if (prev == -1 && atomicAdd(count + w, 1) + 2 > slots) overflow[w] = 1;
                        atomicAdd(tab.vals + s, product);
                        break;
                    }
                    s = (s + 1) & (slots - 1);
                }
            }
            __syncwarp();
            if (overflow[w]) break;  // read after the barrier: the same in every lane
        }
        __syncwarp();
        if (overflow[w]) {
            if (lane == 0) counts[i - first] = -1;
            __syncwarp();
            continue;
        }
        const int m = count[w];
        // Compaction in place (an entry moves only to a lower slot, after its chunk is read).
        int filled = 0;
        for (int s0 = 0; s0 < slots; s0 += 32) {
            const int s = s0 + static_cast<int>(lane);
            const int key = s < slots ? tab.keys[s] : -1;
            const T val = s < slots ? tab.vals[s] : T(0);
            const unsigned taken = __ballot_sync(kFullWarpMask, key != -1);
            __syncwarp();
            if (key != -1) {
                const int at = filled + __popc(taken & ((1u << lane) - 1u));
                tab.keys[at] = key;
                tab.vals[at] = val;
            }
            filled += __popc(taken);
            __syncwarp();
        }
        const std::int64_t off = offsets[i] - base;
        rank_sort_out(tab.keys, tab.vals, m, lane, keys + off, vals + off);
        if (lane == 0) counts[i - first] = m;
        __syncwarp();
    }
}

/// kernel over `rows` rows, a warp per row, with its warp tables in dynamic shared memory: one
/// wave of blocks at the kernel's occupancy.
template <typename T, typename... Params, typename... Args>
void launch_warp_rows(const Executor& exec, void (*kernel)(Params...), std::size_t rows,
                      Args... args) {
    activate(exec.device_id());
    constexpr std::size_t shared = warp_tables_bytes<T>();
    allow_dynamic_shared(exec.device_id(), kernel, shared);
    int per_sm = 0;
    PORTLA_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kSpgemmThreads, shared));
    const std::size_t wave =
        static_cast<std::size_t>(std::max(per_sm, 1)) *
        static_cast<std::size_t>(device_limits(exec.device_id()).multiprocessors);
    const std::size_t needed = (rows + kSpgemmWarps - 1) / kSpgemmWarps;
    const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, std::min(needed, wave)));
    kernel<<<blocks, kSpgemmThreads, shared, stream_of(exec)>>>(args...);
    PORTLA_CUDA_CHECK_LAUNCH();
}

/// The row functions' accumulation for the rows whose table is not the warp kernel's.
template <typename T>
struct SpgemmAccumulateOthers {
    SpgemmAccumulate<T> f;
    __device__ void operator()(std::size_t i) const {
        if (!warp_row(f.offsets[i + 1] - f.offsets[i])) f(i);
    }
};

template <typename T>
void spgemm_accumulate(tag, const Executor& exec, std::size_t first, std::size_t last,
                       const_view<I32> a_rp, const_view<I32> a_ci, const_view<T> a_v,
                       const_view<I32> b_rp, const_view<I32> b_ci, const_view<T> b_v,
                       const_view<I64> offsets, I64 base, int retry, view<I32> keys, view<T> vals,
                       view<I32> counts) {
    const SpgemmAccumulate<T> rows{a_rp.data, a_ci.data,    a_v.data, b_rp.data, b_ci.data,
                                   b_v.data,  offsets.data, base,     retry,     keys.data,
                                   vals.data, counts.data,  first};
    if (retry) {  // full tables, the few rows whose capped ones overflowed
        for_rows(exec, first, last, rows);
        return;
    }
    if (last <= first) return;
    launch_warp_rows<T>(exec, spgemm_warp_kernel<T>, last - first, first, last, a_rp.data,
                        a_ci.data, a_v.data, b_rp.data, b_ci.data, b_v.data, offsets.data, base,
                        keys.data, vals.data, counts.data);
    for_rows(exec, first, last, SpgemmAccumulateOthers<T>{rows});
}

template <typename T>
__global__ void __launch_bounds__(kSpgemmThreads)
    sort_rows_kernel(std::size_t rows, const std::int32_t* __restrict__ rp,
                     std::int32_t* __restrict__ ci, T* __restrict__ v) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const WarpTables<T> tab(smem, w);
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::size_t r = warp; r < rows; r += warps) {  // warp-uniform
        const int at = rp[r], m = rp[r + 1] - at;
        if (m <= 1) continue;
        if (m > kWarpSlots) {
            if (lane == 0) Rows<T>::sort_entries(ci, v, at, m);
            __syncwarp();
            continue;
        }
        for (int j = static_cast<int>(lane); j < m; j += 32) {
            tab.keys[j] = ci[at + j];
            tab.vals[j] = v[at + j];
        }
        __syncwarp();
        rank_sort_out(tab.keys, tab.vals, m, lane, ci + at, v + at);
        __syncwarp();
    }
}

template <typename T>
void sort_rows(const Executor& exec, std::size_t rows, const I32* rp, I32* ci, T* v) {
    if (rows == 0) return;
    launch_warp_rows<T>(exec, sort_rows_kernel<T>, rows, rows, rp, ci, v);
}

// ---- classical strength and extended+i weights with a group of lanes per row ---------------

// The steps of amg_ext_fill_row_map with a group of G lanes per row: each step's loop split over
// the group, the group synchronised between steps (a step adds to weights another lane zeroed or
// added to) and the lanes' parts of d_i and of each row j's sum added with butterfly shuffles,
// which leave every lane the same sum. A group of 8 or more lanes searches a copy of its row's
// columns of P in shared memory (rows of up to kExtColumns entries). A fine row's work is its
// length times its fine neighbours' lengths, a chain of dependent loads per search: one thread
// per row took 27.9 of the 70 ms of contrast3d:128's classical set-up on an H200, 24.6 of it on
// the coarse levels of 29 to 74 entries a row.
constexpr int kExtColumns = 128;
// Each lane keeps the targets of its first kExtTargets entries of a row j (the rows of up to
// kExtTargets x G entries): step 4 then reads them instead of searching again.
constexpr int kExtTargets = 4;

/// A group of G lanes of a warp taking one row at a time: rows first, first + stride, ...; the
/// group's lanes in the warp (mask) and this lane's place among them (member).
template <int G>
struct RowGroup {
    unsigned mask;
    int member;
    std::size_t first, stride;
    __device__ RowGroup()
        : mask(G == 32 ? kFullWarpMask : ((1u << G) - 1u) << ((threadIdx.x & 31u) / G * G)),
          member(static_cast<int>(threadIdx.x % G)),
          first((static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G),
          stride(static_cast<std::size_t>(gridDim.x) * blockDim.x / G) {}
};

template <int G, typename T>
__device__ __forceinline__ T group_sum(T x, unsigned mask) {
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) x += __shfl_xor_sync(mask, x, offset, G);
    return x;
}

template <int G, typename T>
__global__ void ext_fill_kernel(std::size_t rows, const I32* __restrict__ rp,
                                const I32* __restrict__ ci, const T* __restrict__ v,
                                const I32* __restrict__ strong, const U64* __restrict__ keys,
                                const I32* __restrict__ rank, const I32* __restrict__ p_rp,
                                const I32* __restrict__ p_ci, T* p_v) {
    constexpr bool copy = G >= 8;
    int targets[kExtTargets];  // the lane's entries' targets in a row j, step 3 to step 4
    __shared__ I32 copies[copy ? kThreads / G * kExtColumns : 1];
    I32* const own = copies + (copy ? threadIdx.x / G * kExtColumns : 0);
    const RowGroup<G> g;
    const unsigned mask = g.mask;
    const int member = g.member;
    for (std::size_t r = g.first; r < rows; r += g.stride) {  // uniform over the group
        const int i = static_cast<int>(r);
        if (PORTLA_AMG_STATE(keys[i]) == 2) {
            if (member == 0) p_v[p_rp[i]] = 1;
            continue;
        }
        const int len = p_rp[i + 1] - p_rp[i];
        if (len == 0) continue;
        const I32* cols = p_ci + p_rp[i];
        __syncwarp(mask);  // the group's last row is done with its copy
        if (copy && len <= kExtColumns) {
            for (int t = member; t < len; t += G) own[t] = cols[t];
            cols = own;
        }
        Rows<T>::amg_ext_zero(i, member, G, p_rp, p_v);
        __syncwarp(mask);
        T aii = 0;
        T diag = Rows<T>::amg_ext_direct(i, member, G, rp, ci, v, strong, keys, rank, p_rp, cols,
                                         nullptr, &aii, p_v);
        __syncwarp(mask);
        for (int k = rp[i]; k < rp[i + 1]; ++k) {
            if (!Rows<T>::amg_ext_fine_neighbour(i, k, ci, strong, keys)) continue;
            const int j = ci[k];
            const T ajj = Rows<T>::amg_diagonal_entry(j, rp, ci, v);
            int taken = 0;
            const T sum = group_sum<G>(
                Rows<T>::amg_ext_share_sum(i, j, member, G, ajj, rp, ci, v, keys, rank, p_rp, cols,
                                           nullptr, nullptr, &taken, targets, kExtTargets),
                mask);
            if (sum == 0) {
                if (member == 0) diag += v[k];
                continue;
            }
            diag += Rows<T>::amg_ext_share_add(i, j, member, G, ajj, v[k] / sum, rp, ci, v, keys,
                                               rank, p_rp, cols, nullptr, nullptr, 0, targets,
                                               kExtTargets, p_v);
            __syncwarp(mask);
        }
        Rows<T>::amg_ext_scale(i, member, G, group_sum<G>(diag, mask), group_sum<G>(aii, mask),
                               p_rp, p_v);
    }
}

/// fn(std::integral_constant<int, G>{}) with a group as wide as the average row of `entries`
/// over `rows` (4 to 32 lanes): a row's entries then take one pass of the group.
template <typename Fn>
void with_row_groups(std::size_t entries, std::size_t rows, Fn&& fn) {
    const std::size_t average = (entries + rows - 1) / std::max<std::size_t>(rows, 1);
    if (average <= 4)
        fn(std::integral_constant<int, 4>{});
    else if (average <= 8)
        fn(std::integral_constant<int, 8>{});
    else if (average <= 16)
        fn(std::integral_constant<int, 16>{});
    else
        fn(std::integral_constant<int, 32>{});
}

// ---- the product's extraction ----------------------------------------------------------------

// A row the warp kernel sorted is copied by a group of G lanes (whole lines of the row at a
// time); the others (retried, or of tables outside the warp kernel's) are extracted and sorted
// by the row functions, by the group's first lane. One thread per row copying its rows took
// 6.2 of the 41.5 ms of kernels of contrast3d:128's classical set-up (H200, 2026-11-29).
template <int G, typename T>
__global__ void spgemm_extract_kernel(std::size_t rows, SpgemmExtract<T> f) {
    const RowGroup<G> g;
    for (std::size_t r = g.first; r < rows; r += g.stride) {  // uniform over the group
        const std::size_t i = f.first + r;
        const std::int64_t t2 =
            f.offsets2 ? f.offsets2[i - f.first + 1] - f.offsets2[i - f.first] : 0;
        if (t2 > 0 || !warp_row(f.offsets[i + 1] - f.offsets[i])) {
            if (g.member == 0) f(i);
            continue;
        }
        const std::int64_t off = f.offsets[i] - f.base;
        const int at = f.c_rp[i], m = f.c_rp[i + 1] - at;
        for (int j = g.member; j < m; j += G) {
            f.c_ci[at + j] = f.keys[off + j];
            f.c_v[at + j] = f.vals[off + j];
        }
    }
}

template <typename T>
void spgemm_extract(tag, const Executor& exec, std::size_t first, std::size_t last,
                    const_view<I64> offsets, I64 base, const_view<I32> keys, const_view<T> vals,
                    const_view<I64> offsets2, const_view<I32> keys2, const_view<T> vals2,
                    const_view<I32> c_rp, view<I32> c_ci, view<T> c_v) {
    if (last <= first) return;
    activate(exec.device_id());
    const SpgemmExtract<T> f{
        offsets.data, base,       keys.data, vals.data, offsets2.size > 0 ? offsets2.data : nullptr,
        keys2.data,   vals2.data, first,     c_rp.data, c_ci.data,
        c_v.data};
    with_row_groups(c_v.size, last - first, [&](auto group) {
        launch_groups<decltype(group)::value>(
            exec, spgemm_extract_kernel<decltype(group)::value, T>, last - first, f);
    });
}

// One thread per row where the rows average 8 entries or fewer (contrast3d:128's finest level,
// 7 a row: 0.95 ms, against 1.59 with groups of 8 lanes, H200), else a group per row.
template <typename T>
void amg_ext_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                  const_view<I32> ci, const_view<T> v, const_view<I32> strong, const_view<U64> keys,
                  const_view<I32> rank, const_view<I32> p_rp, const_view<I32> p_ci, view<T> p_v) {
    if (rows == 0) return;
    activate(exec.device_id());
    const auto launch = [&](auto group) {
        launch_groups<decltype(group)::value>(exec, ext_fill_kernel<decltype(group)::value, T>,
                                              rows, rp.data, ci.data, v.data, strong.data,
                                              keys.data, rank.data, p_rp.data, p_ci.data, p_v.data);
    };
    if (v.size <= 8 * rows)
        launch(std::integral_constant<int, 1>{});
    else
        with_row_groups(v.size, rows, launch);
}

// amg_classical_strength_row's two passes with a group of G lanes per row (its largest entry
// then taken by butterfly shuffles): a lane's binary searches of the transposed entries are then
// a few of the row's, not all (contrast3d:128's classical level 1, 29 entries a row: 2.4 ms one
// thread per row on an H200).
template <int G, typename T>
__global__ void classical_strength_kernel(std::size_t rows, const I32* __restrict__ rp,
                                          const I32* __restrict__ ci, const T* __restrict__ v,
                                          T theta, I32* __restrict__ strong,
                                          I32* __restrict__ tpos) {
    const RowGroup<G> g;
    const unsigned mask = g.mask;
    const int member = g.member;
    for (std::size_t r = g.first; r < rows; r += g.stride) {  // uniform over the group
        const int i = static_cast<int>(r);
        T largest = Rows<T>::amg_classical_largest(i, member, G, rp, ci, v);
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2)
            largest = max(largest, __shfl_xor_sync(mask, largest, offset, G));
        (void)Rows<T>::amg_classical_strength_entries(i, member, G, largest, rp, ci, v, theta,
                                                      strong, tpos);
    }
}

template <typename T>
void amg_classical_strength(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                            const_view<I32> ci, const_view<T> v, T theta, view<I32> strong,
                            view<I32> tpos) {
    if (rows == 0) return;
    activate(exec.device_id());
    with_row_groups(v.size, rows, [&](auto group) {
        launch_groups<decltype(group)::value>(
            exec, classical_strength_kernel<decltype(group)::value, T>, rows, rp.data, ci.data,
            v.data, theta, strong.data, tpos.data);
    });
}

PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::cuda
