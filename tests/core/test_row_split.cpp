// The omp backend's split of rows over threads by work (src/omp/parallel.hpp rows_of_share):
// the shares tile the rows in order, and a row of most of the work gets a thread of its own.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

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

}  // namespace
}  // namespace portla
