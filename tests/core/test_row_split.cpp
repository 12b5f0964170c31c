// The omp backend's split of rows over threads by work (src/omp/parallel.hpp rows_of_share):
// the shares tile the rows in order, and a row of most of the work gets a thread of its own.
// The cuda plan of a CSR matrix with long rows (src/common/csr_long_rows.hpp): segments of the
// long rows, row blocks of the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "common/csr_long_rows.hpp"
#include "omp/parallel.hpp"

namespace portla {
namespace {

using kernels::omp::rows_of_share;

// Rows given by their entries; work start(i) = entries before row i + i.
std::vector<std::size_t> starts_of(const std::vector<std::size_t>& entries) {
    std::vector<std::size_t> s(entries.size() + 1, 0);
    for (std::size_t i = 0; i < entries.size(); ++i) s[i + 1] = s[i] + entries[i] + 1;
    return s;
}

void expect_tiling(const std::vector<std::size_t>& entries, std::size_t threads) {
    const auto s = starts_of(entries);
    const auto start = [&s](std::size_t i) { return s[i]; };
    std::size_t next = 0;
    for (std::size_t t = 0; t < threads; ++t) {
        const auto [first, last] = rows_of_share(entries.size(), start, t, threads);
        EXPECT_EQ(first, next) << "share " << t << " of " << threads;
        EXPECT_LE(first, last);
        next = last;
    }
    EXPECT_EQ(next, entries.size()) << threads << " shares";
}

TEST(RowSplit, SharesTileTheRowsInOrder) {
    std::mt19937 gen(3);
    std::uniform_int_distribution<std::size_t> len(0, 40);
    std::vector<std::size_t> random(997);
    for (auto& e : random) e = len(gen);
    const std::vector<std::vector<std::size_t>> cases{
        {},                               // no rows
        std::vector<std::size_t>(50, 0),  // empty rows
        {100000, 1, 2, 3},                // all the work in the first row
        {1, 2, 3, 100000},                // in the last
        std::vector<std::size_t>(64, 7),
        random};
    for (const auto& entries : cases)
        for (std::size_t threads = 1; threads <= 7; ++threads) expect_tiling(entries, threads);
}

// Hubs first (a power-law matrix in degree order): the hub's thread takes the hub alone, the
// other thread every other row; by count each would take half the rows.
TEST(RowSplit, AHubRowGetsAThreadOfItsOwn) {
    std::vector<std::size_t> entries(1000, 10);
    entries[0] = 20000;
    const auto s = starts_of(entries);
    const auto start = [&s](std::size_t i) { return s[i]; };
    const auto first = rows_of_share(entries.size(), start, 0, 2);
    const auto second = rows_of_share(entries.size(), start, 1, 2);
    EXPECT_EQ(first.first, 0u);
    EXPECT_EQ(first.second, 1u);
    EXPECT_EQ(second.first, 1u);
    EXPECT_EQ(second.second, 1000u);
}

std::vector<std::int32_t> offsets_of(const std::vector<int>& lengths) {
    std::vector<std::int32_t> p(lengths.size() + 1, 0);
    for (std::size_t i = 0; i < lengths.size(); ++i) p[i + 1] = p[i] + lengths[i];
    return p;
}

TEST(CsrLongRowPlan, NoneWithoutALongRow) {
    const std::vector<int> lengths(1000, 7);
    const auto p = offsets_of(lengths);
    const auto plan = common::plan_csr_long_rows(lengths.size(), p.data(), 4);
    EXPECT_TRUE(plan.rows.empty());
    EXPECT_TRUE(plan.blocks.empty());
    EXPECT_EQ(plan.longest, 7u);
    // 128 entries at 4 lanes is at the limit: still none
    std::vector<int> at = lengths;
    at[500] = 128;
    const auto q = offsets_of(at);
    EXPECT_TRUE(common::plan_csr_long_rows(at.size(), q.data(), 4).blocks.empty());
}

// Every row in exactly one block, in order; a block is one row longer than kCsrBlockEntries or
// short rows of at most kCsrBlockEntries entries and kCsrBlockRows rows, and it ends only where
// the next row would not fit or a chunk of kCsrPlanRows rows ends (greedy within each chunk); the
// long rows' segments in row order, parts 0, 1, ...
TEST(CsrLongRowPlan, BlocksTileTheRowsAndSegmentsCoverTheLongOnes) {
    std::mt19937 gen(3);
    std::vector<int> lengths(20000);
    for (auto& l : lengths) l = static_cast<int>(gen() % 14);
    for (std::size_t i : {0ul, 17ul, 18ul, 999ul, 5000ul, 19999ul})
        lengths[i] = 257 + static_cast<int>(i % 3000);
    lengths[30] = 256;  // the largest short row: a block may hold it alone
    lengths[31] = 255;
    lengths[40] = 129;  // long at 4 lanes, short for the blocks
    for (std::size_t i = 100; i < 200; ++i) lengths[i] = 8;  // 32 rows x 8 = 256 entries
    for (std::size_t i = 300; i < 400; ++i) lengths[i] = 0;  // empty rows: 32 a block
    lengths[2038] = 200;  // 2039 starts a block, full with 256 entries: 2040 starts the next
    lengths[2039] = 256;
    for (std::size_t i = 2040; i < 2060; ++i) lengths[i] = 1;  // would share a block but for 2048
    const auto p = offsets_of(lengths);
    const auto plan = common::plan_csr_long_rows(lengths.size(), p.data(), 4);
    ASSERT_EQ(plan.from, common::kCsrBlockEntries);
    ASSERT_FALSE(plan.blocks.empty());
    EXPECT_EQ(plan.blocks.front(), 0);
    EXPECT_EQ(static_cast<std::size_t>(plan.blocks.back()), lengths.size());
    std::vector<std::int32_t> want_rows, want_parts;
    for (std::size_t b = 0; b + 1 < plan.blocks.size(); ++b) {
        const std::int32_t r0 = plan.blocks[b], r1 = plan.blocks[b + 1];
        ASSERT_LT(r0, r1) << "block " << b;
        const std::size_t entries = static_cast<std::size_t>(p[r1] - p[r0]);
        if (r1 - r0 == 1 && entries > common::kCsrBlockEntries) {
            for (std::size_t k = 0; k < (entries + 511) / 512; ++k) {
                want_rows.push_back(r0);
                want_parts.push_back(static_cast<std::int32_t>(k));
            }
            continue;
        }
        EXPECT_LE(entries, common::kCsrBlockEntries) << "block " << b;
        EXPECT_LE(static_cast<std::size_t>(r1 - r0), common::kCsrBlockRows) << "block " << b;
        for (std::int32_t i = r0; i < r1; ++i) EXPECT_LE(lengths[i], 256) << "row " << i;
        // no block crosses a chunk of kCsrPlanRows rows (the device plans chunk by chunk)
        EXPECT_EQ(static_cast<std::size_t>(r0) / common::kCsrPlanRows,
                  static_cast<std::size_t>(r1 - 1) / common::kCsrPlanRows)
            << "block " << b;
        const bool chunk_end = static_cast<std::size_t>(r1) % common::kCsrPlanRows == 0;
        if (static_cast<std::size_t>(r1) < lengths.size() && r1 - r0 < 32 && lengths[r1] <= 256 &&
            !chunk_end) {
            EXPECT_GT(entries + static_cast<std::size_t>(lengths[r1]), common::kCsrBlockEntries)
                << "block " << b << " ends before row " << r1 << ", which fits";
        }
    }
    EXPECT_EQ(plan.rows, want_rows);
    EXPECT_EQ(plan.parts, want_parts);
    // rows 2040-2059 of one entry: the block from 2040 ends at the chunk's end, 2048
    const auto at = std::find(plan.blocks.begin(), plan.blocks.end(), 2040);
    ASSERT_NE(at, plan.blocks.end());
    ASSERT_LT(at + 1, plan.blocks.end());
    EXPECT_EQ(at[1], 2048);
    // 257, 274 and 275 entries: one segment each; 1256: three; 2257 and 2256: five each
    EXPECT_EQ(plan.rows.size(), 16u);
}

}  // namespace
}  // namespace portla
