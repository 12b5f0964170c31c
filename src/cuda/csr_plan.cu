// The long-row plan on the device (core/kernels/csr_split_kernels.hpp). The greedy row blocks are
// sequential within a chunk of kCsrPlanRows rows and independent across chunks
// (common/csr_long_rows.hpp), so each chunk is one thread block: its offsets go to shared memory,
// one thread walks them as plan_csr_long_rows does. A first launch counts every chunk's blocks and
// segments, a scan on the host gives each chunk its place, a second launch writes. 3e6 rows: the
// host plan took 17-23 ms of every borrow (2-core VM, and 18-19 ms of a one-iteration
// portla.scipy.cg on the H100 machine); this takes two launches and two copies of a number a chunk.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/csr_long_rows.hpp"
#include "core/kernels/csr_split_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {
namespace {

constexpr unsigned kPlanThreads = 128;
constexpr std::size_t kChunk = common::kCsrPlanRows;

// A chunk's blocks (low 32 bits) and segments (high 32 bits): the scan adds both at once (neither
// total passes 2^32 for 32-bit offsets: fewer blocks than rows, fewer segments than entries / 256).
__device__ __forceinline__ std::uint64_t pack(std::uint64_t blocks, std::uint64_t segments) {
    return blocks | (segments << 32);
}

// Where the second launch writes, and what it must find.
struct PlanOut {
    const std::uint64_t*
        starts;            ///< chunks + 1: the blocks and segments before each chunk, then all
    std::int32_t* blocks;  ///< block_count + 1 (blocks[0] = 0, set by the host)
    std::int32_t* seg_rows;
    std::int32_t* seg_parts;
    std::uint64_t block_count, segments;
    unsigned* mismatch;  ///< set when a chunk's walk differs from its count
};

// Chunk blockIdx.x: rows [lo, hi). Write = false: counts[chunk] = its blocks and segments.
// Write = true: writes the chunk's blocks' ends to blocks[1 + starts[chunk] ...] and its segments
// to seg_rows / seg_parts; a walk that finds another count than the first launch's writes nothing
// out of its arrays and sets *mismatch (the host then refuses the plan).
//
// Written plainly on purpose (no __restrict__, no __ldg, the block loop with a break): an earlier
// form with those, the same walk, gave the right counts but wrote other blocks in the second
// launch at -O3 (nvcc 13.0, sm_90; right at -G), H100, 2026-11-27, in a harness with this
// kernel alone. Matrix.CsrPlanOnTheDeviceIsTheHostPlan checks this kernel against the host plan.
template <bool Write>
__global__ void __launch_bounds__(kPlanThreads)
    csr_plan_kernel(std::size_t rows, const std::int32_t* row_ptrs, std::uint64_t* counts,
                    PlanOut out) {
    __shared__ std::int32_t ptr[kChunk + 1];
    const std::size_t lo = static_cast<std::size_t>(blockIdx.x) * kChunk;
    const int n = static_cast<int>(rows - lo < kChunk ? rows - lo : kChunk);
    for (int k = static_cast<int>(threadIdx.x); k <= n; k += kPlanThreads)
        ptr[k] = row_ptrs[lo + k];
    __syncthreads();
    if (threadIdx.x != 0) return;
    std::uint64_t block_at = 0, segment_at = 0, mine = 0;
    if (Write) {
        const std::uint64_t before = out.starts[blockIdx.x];
        mine = out.starts[blockIdx.x + 1] - before;
        block_at = 1 + (before & 0xffffffffu);
        segment_at = before >> 32;
    }
    constexpr int kFrom = static_cast<int>(common::kCsrBlockEntries);
    constexpr int kSegment = static_cast<int>(common::kCsrSegment);
    constexpr int kRows = static_cast<int>(common::kCsrBlockRows);
    std::uint64_t nb = 0, ns = 0;
    int i = 0;
    while (i < n) {
        const int length = ptr[i + 1] - ptr[i];
        if (length > kFrom) {
            const int parts = (length - 1) / kSegment + 1;
            if (Write)
                for (int k = 0; k < parts && segment_at + ns + k < out.segments; ++k) {
                    out.seg_rows[segment_at + ns + k] = static_cast<std::int32_t>(lo + i);
                    out.seg_parts[segment_at + ns + k] = k;
                }
            ns += parts;
            ++i;
        } else {
            int count = 0, entries = 0;
            while (i < n && count < kRows) {
                const int next = ptr[i + 1] - ptr[i];
                if (entries + next > kFrom) break;
                entries += next;
                ++count;
                ++i;
            }
        }
        if (Write && block_at + nb <= out.block_count)
            out.blocks[block_at + nb] = static_cast<std::int32_t>(lo + i);
        ++nb;
    }
    if (!Write) counts[blockIdx.x] = pack(nb, ns);
    if (Write && pack(nb, ns) != mine) atomicOr(out.mismatch, 1u);
}

}  // namespace

CsrPlanArrays csr_plan_long_rows(tag, const Executor& exec, std::size_t rows,
                                 const_view<std::int32_t> row_ptrs) {
    CsrPlanArrays plan;
    if (rows == 0) return plan;
    activate(exec.device_id());
    const cudaStream_t stream = stream_of(exec);
    const std::size_t chunks = (rows + kChunk - 1) / kChunk;
    Array<std::uint64_t> counts(exec, chunks + 1);
    const auto grid = static_cast<unsigned>(chunks);
    csr_plan_kernel<false>
        <<<grid, kPlanThreads, 0, stream>>>(rows, row_ptrs.data, counts.data(), PlanOut{});
    PORTLA_CUDA_CHECK_LAUNCH();
    // The chunks' places: a scan of chunks = rows / 1024 numbers (3e6 rows: 23 KB each way),
    // the totals last
    std::vector<std::uint64_t> starts = counts.to_host();
    starts.back() = 0;
    std::uint64_t totals = 0;
    for (auto& c : starts) totals += std::exchange(c, totals);
    counts.copy_from_host(starts);
    const std::uint64_t all = starts.back();
    const std::size_t block_count = all & 0xffffffffu, segments = all >> 32;
    plan.blocks = Array<std::int32_t>(exec, block_count + 1);
    plan.rows = Array<std::int32_t>(exec, segments);
    plan.parts = Array<std::int32_t>(exec, segments);
    Array<unsigned> mismatch(exec, std::vector<unsigned>{0u});
    PORTLA_CUDA_CHECK(cudaMemsetAsync(plan.blocks.data(), 0, sizeof(std::int32_t), stream));
    csr_plan_kernel<true><<<grid, kPlanThreads, 0, stream>>>(
        rows, row_ptrs.data, nullptr,
        PlanOut{counts.data(), plan.blocks.data(), plan.rows.data(), plan.parts.data(), block_count,
                segments, mismatch.data()});
    PORTLA_CUDA_CHECK_LAUNCH();
    // (to_host synchronises: counts is freed on return, after the write has read it)
    if (mismatch.to_host()[0] != 0)
        throw DeviceError(
            "Csr: the long-row plan made on the device disagrees with its own count (a fault of "
            "the device or of its compiler); PORTLA_CSR_SPLIT=off runs without the plan");
    return plan;
}

}  // namespace portla::kernels::cuda
