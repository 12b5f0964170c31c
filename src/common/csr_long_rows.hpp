// The row plan of a CSR matrix on cuda (issue 17): its rows of more than kCsrBlockEntries
// entries split into segments of one warp each and all the others in row blocks (a warp per
// block of consecutive rows: cuda/csr_split.cuh). Made once at set-up, on the host, from the row
// offsets, for every 32-bit CSR matrix on cuda.
//
// Why (H100, 2026-11-27, same run, SpMV in double; docs/s16-irregular.md): the groups of lanes
// sized by the average row (cuda/csr_lanes.hpp) left most lanes idle on short rows and walked a
// power-law matrix's rows of 10^4 entries with 8 lanes. Row blocks load 8 entries a lane whatever
// the rows' lengths: power-law (3e6 rows, 10.9 entries a row on average, longest 43,299) 0.374 ms
// against 0.537 with groups of 8 lanes (cuSPARSE CSR_ALG1 0.316); 3-D Poisson 128^3 0.085 ms
// against 0.113 with groups of 4 lanes (cuSPARSE 0.106).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace portla::common {

/// Entries of a segment: one warp, 32 lanes x 4 chunked entries x 4 steps.
constexpr std::size_t kCsrSegment = 512;
/// A row block: consecutive rows of at most
/// kCsrBlockEntries entries together and at most kCsrBlockRows rows, one warp, 8 entries a lane.
constexpr std::size_t kCsrBlockEntries = 256;
constexpr std::size_t kCsrBlockRows = 32;

/// The plan: the rows of more than `from` = kCsrBlockEntries entries as segments, in row order
/// (segment s is entries [row_ptrs[rows[s]] + parts[s] kCsrSegment,
/// + kCsrSegment) of row rows[s], the last one of a row shorter; its parts 0, 1, ...
/// consecutive, so a row's first segment is s - parts[s]), and every row in the row blocks
/// [blocks[b], blocks[b + 1]): blocks of short rows, and each long row a block of its own (more
/// than kCsrBlockEntries entries: the kernels skip it).
struct CsrLongRowPlan {
    std::size_t from = 0;  ///< rows with more entries are long
    std::vector<std::int32_t> rows, parts;
    std::vector<std::int32_t> blocks;  ///< block b: rows [blocks[b], blocks[b + 1])
    std::size_t longest = 0;           ///< entries of the longest row
};

/// The plan of a matrix of `rows` rows (rows < 2^31).
template <typename P>
CsrLongRowPlan plan_csr_long_rows(std::size_t rows, const P* row_ptrs) {
    CsrLongRowPlan plan;
    plan.from = kCsrBlockEntries;
    const auto length = [&](std::size_t i) {
        return static_cast<std::size_t>(row_ptrs[i + 1] - row_ptrs[i]);
    };
    plan.blocks.push_back(0);
    for (std::size_t i = 0; i < rows;) {
        if (length(i) > plan.from) {
            plan.longest = std::max(plan.longest, length(i));
            const std::size_t parts = (length(i) + kCsrSegment - 1) / kCsrSegment;
            for (std::size_t k = 0; k < parts; ++k) {
                plan.rows.push_back(static_cast<std::int32_t>(i));
                plan.parts.push_back(static_cast<std::int32_t>(k));
            }
            ++i;
        } else {
            std::size_t count = 0, entries = 0;
            while (i < rows && count < kCsrBlockRows && entries + length(i) <= kCsrBlockEntries) {
                plan.longest = std::max(plan.longest, length(i));
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
