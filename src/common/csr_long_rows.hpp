// The long rows of a CSR matrix (issue 17): which rows the cuda kernels take out of the groups of
// lanes sized by the average row (cuda/csr_lanes.hpp) and split into segments of one warp each
// (cuda/csr_split.cuh). Decided once at set-up, on the host, from the row offsets.
//
// A power-law matrix (graph Laplacian of Zipf degrees: 12 entries per row on average, a few rows
// of 10^4 - 10^5) gives 8 lanes to every row, so its longest rows are walked by 8 lanes while the
// rest of the GPU idles. Rule: a row is long when it has more than 32 entries per lane of the
// group (8 chunked steps of kCsrChunk = 4 entries: 256 entries at 8 lanes); a matrix with no
// long row keeps the kernels it had, unchanged (every stencil-like matrix: the 7-point stencil's
// longest row is 7 entries where the limit is 128).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace portla::common {

/// Entries of a segment: one warp, 32 lanes x 4 chunked entries x 4 steps.
constexpr std::size_t kCsrSegment = 512;

/// Rows with more entries than this are long (rows with `lanes` lanes per row, csr_lanes).
inline std::size_t csr_long_from(int lanes) { return 32 * static_cast<std::size_t>(lanes); }

/// The segments of the long rows, in row order: segment s is entries [row_ptrs[rows[s]] + parts[s]
/// kCsrSegment, + kCsrSegment) of row rows[s] (the last one of a row shorter), its parts
/// 0, 1, ... consecutive, so a row's first segment is s - parts[s]. Empty when no row is long.
struct CsrLongRowPlan {
    std::size_t from = 0;  ///< rows with more entries are long
    std::vector<std::int32_t> rows, parts;
    std::size_t longest = 0;  ///< entries of the longest row
};

/// The plan of a matrix of `rows` rows (rows < 2^31) whose groups have `lanes` lanes per row.
template <typename P>
CsrLongRowPlan plan_csr_long_rows(std::size_t rows, const P* row_ptrs, int lanes) {
    CsrLongRowPlan plan;
    plan.from = csr_long_from(lanes);
    for (std::size_t i = 0; i < rows; ++i) {
        const auto len = static_cast<std::size_t>(row_ptrs[i + 1] - row_ptrs[i]);
        if (len > plan.longest) plan.longest = len;
        if (len <= plan.from) continue;
        const std::size_t parts = (len + kCsrSegment - 1) / kCsrSegment;
        for (std::size_t k = 0; k < parts; ++k) {
            plan.rows.push_back(static_cast<std::int32_t>(i));
            plan.parts.push_back(static_cast<std::int32_t>(k));
        }
    }
    return plan;
}

}  // namespace portla::common
