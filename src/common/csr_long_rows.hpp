// The long rows of a CSR matrix: which rows the cuda kernels take out of the groups of
// lanes sized by the average row (cuda/csr_lanes.hpp) and split into segments of one warp each
// (cuda/csr_split.cuh). Decided once at set-up from the row offsets: on the device where they lie
// (cuda/csr_plan.cu, the same plan as plan_csr_long_rows below, which is its oracle in the tests).
//
// A power-law matrix (graph Laplacian of Zipf degrees: 12 entries per row on average, a few rows
// of 10^4 - 10^5) gives 8 lanes to every row, so its longest rows are walked by 8 lanes while the
// rest of the GPU idles. Rule: a matrix has long rows when a row has more than 32 entries per
// lane of the group (8 chunked steps of kCsrChunk = 4 entries: 256 entries at 8 lanes); a matrix
// without keeps the kernels it had, unchanged (every stencil-like matrix: the 7-point stencil's
// longest row is 7 entries where the limit is 128). A matrix with long rows takes its rows of
// more than kCsrBlockEntries entries by segments and all the others by row blocks (a warp per
// block of consecutive rows, every lane loading entries, whatever the rows' lengths): H100,
// 2026-11-27, SpMV of the 3e6-row power-law matrix (bench/powerlaw_matrix.py) 0.371 ms with row
// blocks against 0.533 with the groups of 8 lanes (cuSPARSE 0.317; docs/performance.md, "SpMV").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace portla::common {

/// Entries of a segment: one warp, 32 lanes x 4 chunked entries x 4 steps.
constexpr std::size_t kCsrSegment = 512;
/// A row block (the other rows of a matrix with long rows): consecutive rows of at most
/// kCsrBlockEntries entries together and at most kCsrBlockRows rows, one warp, 8 entries a lane.
constexpr std::size_t kCsrBlockEntries = 256;
constexpr std::size_t kCsrBlockRows = 32;
/// Rows of a plan chunk: no row block crosses a multiple of kCsrPlanRows rows, so the device makes
/// the plan a chunk per thread block in parallel (cuda/csr_plan.cu), the same plan as the loop
/// below. H100, 2026-11-27: chunks of 256-4096 rows left the power-law SpMV unchanged (0.364-0.367
/// ms against 0.364-0.365 unchunked, +1.1% blocks at 1024). The host loop alone took 17-23 ms at
/// 3e6 rows (2-core VM), and with its copy of the offsets about 18 of the 18-19 ms that a
/// one-iteration portla.scipy.cg spent before its first iteration (H100 machine; 7 ms since).
constexpr std::size_t kCsrPlanRows = 1024;

/// A matrix has long rows when a row has more entries than this (its groups have `lanes` lanes
/// per row, csr_lanes).
inline std::size_t csr_long_from(int lanes) { return 32 * static_cast<std::size_t>(lanes); }

/// Entries of the longest of `rows` rows of host offsets `row_ptrs`.
template <typename P>
std::size_t csr_longest_row(std::size_t rows, const P* row_ptrs) {
    std::size_t longest = 0;
    for (std::size_t i = 0; i < rows; ++i)
        longest = std::max(longest, static_cast<std::size_t>(row_ptrs[i + 1] - row_ptrs[i]));
    return longest;
}

/// Whether a matrix whose longest row has `longest` entries is planned (groups of `lanes`).
inline bool csr_has_long_rows(std::size_t longest, int lanes) {
    return longest > csr_long_from(lanes);
}

/// The plan of a matrix with long rows: the rows of more than `from` = kCsrBlockEntries entries
/// as segments, in row order (segment s is entries [row_ptrs[rows[s]] + parts[s] kCsrSegment,
/// + kCsrSegment) of row rows[s], the last one of a row shorter; its parts 0, 1, ...
/// consecutive, so a row's first segment is s - parts[s]), and every row in the row blocks
/// [blocks[b], blocks[b + 1]): blocks of short rows (greedy within each chunk of kCsrPlanRows
/// rows), and each long row a block of its own (more than kCsrBlockEntries entries: the kernels
/// skip it). Empty (no rows, no blocks) when no row is long.
struct CsrLongRowPlan {
    std::size_t from = 0;  ///< rows with more entries are long
    std::vector<std::int32_t> rows, parts;
    std::vector<std::int32_t> blocks;  ///< block b: rows [blocks[b], blocks[b + 1])
    std::size_t longest = 0;           ///< entries of the longest row
};

/// The plan of a matrix of `rows` rows (rows < 2^31) whose groups have `lanes` lanes per row:
/// empty unless a row has more than csr_long_from(lanes) entries.
template <typename P>
CsrLongRowPlan plan_csr_long_rows(std::size_t rows, const P* row_ptrs, int lanes) {
    CsrLongRowPlan plan;
    const auto length = [&](std::size_t i) {
        return static_cast<std::size_t>(row_ptrs[i + 1] - row_ptrs[i]);
    };
    plan.longest = csr_longest_row(rows, row_ptrs);
    if (!csr_has_long_rows(plan.longest, lanes)) return plan;
    plan.from = kCsrBlockEntries;
    plan.blocks.push_back(0);
    for (std::size_t i = 0; i < rows;) {
        if (length(i) > plan.from) {
            const std::size_t parts = (length(i) + kCsrSegment - 1) / kCsrSegment;
            for (std::size_t k = 0; k < parts; ++k) {
                plan.rows.push_back(static_cast<std::int32_t>(i));
                plan.parts.push_back(static_cast<std::int32_t>(k));
            }
            ++i;
        } else {
            const std::size_t stop = std::min(rows, (i / kCsrPlanRows + 1) * kCsrPlanRows);
            std::size_t count = 0, entries = 0;
            while (i < stop && count < kCsrBlockRows && entries + length(i) <= kCsrBlockEntries) {
                entries += length(i);
                ++count;
                ++i;
            }
        }
        plan.blocks.push_back(static_cast<std::int32_t>(i));
    }
    return plan;
}

}  // namespace portla::common
