#include "portla/matrix/matrix_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/csr.hpp"

namespace {

using portla::MatrixData;

MatrixData make(std::int64_t rows, std::int64_t cols,
                const std::vector<std::tuple<std::int64_t, std::int64_t, double>>& entries) {
    MatrixData d;
    d.rows = rows;
    d.cols = cols;
    for (const auto& [r, c, v] : entries) {
        d.add(r, c, v);
    }
    return d;
}

TEST(MatrixData, SortAndSumDuplicatesOrdersByRowThenColumn) {
    MatrixData d = make(3, 4, {{2, 1, 5.5}, {0, 3, -1.25}, {1, 0, 2.0}, {0, 1, 7.0}, {2, 0, 3.0}});
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.row_idx, (std::vector<std::int64_t>{0, 0, 1, 2, 2}));
    EXPECT_EQ(d.col_idx, (std::vector<std::int64_t>{1, 3, 0, 0, 1}));
    EXPECT_EQ(d.values, (std::vector<double>{7.0, -1.25, 2.0, 3.0, 5.5}));
    EXPECT_EQ(d.rows, 3);
    EXPECT_EQ(d.cols, 4);
}

TEST(MatrixData, SortAndSumDuplicatesSumsAndKeepsExplicitZeros) {
    MatrixData d = make(3, 3,
                        {{1, 1, 2.5},
                         {0, 2, 0.0},   // explicit zero: kept
                         {1, 1, 0.25},  // duplicate of (1, 1)
                         {2, 0, 4.0},
                         {2, 0, -4.0},    // cancels (2, 0): kept as an explicit zero
                         {1, 1, -1.0}});  // third copy of (1, 1)
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.row_idx, (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(d.col_idx, (std::vector<std::int64_t>{2, 1, 0}));
    EXPECT_EQ(d.values, (std::vector<double>{0.0, 1.75, 0.0}));
}

TEST(MatrixData, SortAndSumDuplicatesOnEmptyData) {
    MatrixData d = make(0, 0, {});
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.entries(), 0u);
}

TEST(MatrixData, SortAndSumDuplicatesRejectsInconsistentArrays) {
    MatrixData d = make(2, 2, {{0, 0, 1.0}});
    d.row_idx.push_back(1);
    EXPECT_THROW(d.sort_and_sum_duplicates(), portla::DimensionMismatch);
}

TEST(MatrixData, IsSymmetricTrueForSymmetricMatrix) {
    const MatrixData d = make(
        3, 3, {{0, 0, 2.0}, {1, 0, -0.5}, {0, 1, -0.5}, {2, 1, 3.25}, {1, 2, 3.25}, {2, 2, 1.0}});
    EXPECT_TRUE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricFalseForDifferentValues) {
    const MatrixData d = make(3, 3, {{0, 0, 2.0}, {1, 0, -0.5}, {0, 1, -0.5000000000000001}});
    EXPECT_FALSE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricFalseForMissingMirrorEntry) {
    const MatrixData d = make(3, 3, {{0, 0, 2.0}, {2, 0, 1.5}});
    EXPECT_FALSE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricFalseWhenNotSquare) {
    const MatrixData d = make(2, 3, {{0, 0, 1.0}, {1, 1, 1.0}});
    EXPECT_FALSE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricSumsDuplicatesFirstAndDoesNotModify) {
    // (1, 0) = 1 + 2 = 3 = (0, 1); stored unsorted and with duplicates.
    const MatrixData d = make(2, 2, {{1, 0, 1.0}, {1, 1, 4.0}, {0, 1, 3.0}, {1, 0, 2.0}});
    const MatrixData copy = d;
    EXPECT_TRUE(d.is_symmetric());
    EXPECT_EQ(d.row_idx, copy.row_idx);
    EXPECT_EQ(d.col_idx, copy.col_idx);
    EXPECT_EQ(d.values, copy.values);
}

TEST(MatrixData, IsSymmetricTreatsExplicitZeroAsMissing) {
    const MatrixData d = make(3, 3, {{0, 0, 1.0}, {2, 0, 0.0}, {1, 1, -2.0}});
    EXPECT_TRUE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricFalseWithNaN) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const MatrixData d = make(2, 2, {{0, 1, nan}, {1, 0, nan}});
    EXPECT_FALSE(d.is_symmetric());
}

TEST(MatrixData, IsSymmetricTrueForEmptySquare) {
    EXPECT_TRUE(make(0, 0, {}).is_symmetric());
    EXPECT_TRUE(make(4, 4, {}).is_symmetric());
}

TEST(MatrixData, SortAndSumDuplicatesSumsInInputOrder) {
    // 1e16 + 1 + 1 - 1e16 is 0 left to right, 2 in other orders: duplicates keep their order.
    MatrixData d = make(2, 2, {{1, 1, 1e16}, {0, 0, 5.0}, {1, 1, 1.0}, {1, 1, 1.0}, {1, 1, -1e16}});
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.row_idx, (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(d.col_idx, (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(d.values, (std::vector<double>{5.0, 0.0}));
}

TEST(MatrixData, SortAndSumDuplicatesUnsortedWithLongRowAndHypersparse) {
    // A row longer than the insertion-sort cutoff, in reverse column order with duplicates.
    MatrixData d;
    d.rows = 3;
    d.cols = 100;
    for (std::int64_t c = 99; c >= 0; --c) d.add(1, c, static_cast<double>(c));
    for (std::int64_t c = 0; c < 100; c += 2) d.add(1, c, 0.5);
    d.add(2, 7, 1.0);
    d.add(0, 9, 2.0);
    MatrixData h = d;
    h.rows = 5000000000;  // hypersparse: the comparison-sort path
    d.sort_and_sum_duplicates();
    h.sort_and_sum_duplicates();
    ASSERT_EQ(d.entries(), 102u);
    EXPECT_EQ(d.row_idx.front(), 0);
    EXPECT_EQ(d.col_idx.front(), 9);
    for (std::int64_t c = 0; c < 100; ++c) {
        EXPECT_EQ(d.row_idx[1 + c], 1);
        EXPECT_EQ(d.col_idx[1 + c], c);
        EXPECT_EQ(d.values[1 + c], static_cast<double>(c) + (c % 2 == 0 ? 0.5 : 0.0));
    }
    EXPECT_EQ(d.row_idx.back(), 2);
    EXPECT_EQ(h.row_idx, d.row_idx);
    EXPECT_EQ(h.col_idx, d.col_idx);
    EXPECT_EQ(h.values, d.values);
}

TEST(MatrixData, SortAndSumDuplicatesKeepsOutOfRangeIndices) {
    // Not validated here (the formats check); the entries are still sorted and summed.
    MatrixData d = make(2, 2, {{3, 0, 1.0}, {-1, 1, 2.0}, {0, 5, 3.0}, {3, 0, 4.0}});
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.row_idx, (std::vector<std::int64_t>{-1, 0, 3}));
    EXPECT_EQ(d.col_idx, (std::vector<std::int64_t>{1, 5, 0}));
    EXPECT_EQ(d.values, (std::vector<double>{2.0, 3.0, 5.0}));
}

TEST(MatrixData, IsSymmetricFalseForUnsymmetricPattern) {
    // Same values everywhere, but (2, 0) has no mirror (0, 2); (0, 1) and (1, 0) do.
    const MatrixData d = make(3, 3, {{2, 0, 1.0}, {1, 1, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}});
    EXPECT_FALSE(d.is_symmetric());
    MatrixData sorted = d;
    sorted.sort_and_sum_duplicates();
    EXPECT_FALSE(sorted.is_symmetric());
    // Mirror added: symmetric, sorted or not.
    MatrixData fixed = d;
    fixed.add(0, 2, 1.0);
    EXPECT_TRUE(fixed.is_symmetric());
    fixed.sort_and_sum_duplicates();
    EXPECT_TRUE(fixed.is_symmetric());
}

TEST(MatrixData, IsSymmetricFalseForNumericallyUnsymmetricMatrix) {
    // Pattern symmetric; (3, 1) differs from (1, 3) only after summing duplicates.
    const MatrixData d =
        make(4, 4, {{3, 1, 0.5}, {1, 3, 1.0}, {0, 0, 2.0}, {3, 1, 0.25}, {2, 2, 1.0}});
    EXPECT_FALSE(d.is_symmetric());
    MatrixData sorted = d;
    sorted.sort_and_sum_duplicates();
    EXPECT_FALSE(sorted.is_symmetric());
    MatrixData fixed = d;
    fixed.add(3, 1, 0.25);
    EXPECT_TRUE(fixed.is_symmetric());
}

TEST(MatrixData, IsSymmetricOnDiagonalNaNAndZeroMirror) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(make(2, 2, {{1, 1, nan}, {0, 0, 1.0}}).is_symmetric());
    // (0, 1) = 2 against an explicit zero at (1, 0): not symmetric.
    EXPECT_FALSE(make(2, 2, {{1, 0, 0.0}, {0, 1, 2.0}}).is_symmetric());
    EXPECT_FALSE(make(2, 2, {{0, 1, 2.0}, {1, 0, 0.0}}).is_symmetric());
}

TEST(MatrixData, SortAfterIsSymmetricSumsTheCurrentEntries) {
    MatrixData d = make(3, 3, {{2, 1, 1.5}, {0, 0, 1.0}, {1, 2, 1.5}, {2, 1, 0.5}, {1, 2, 0.5}});
    ASSERT_TRUE(d.is_symmetric());
    MatrixData copy = d;
    copy.sort_and_sum_duplicates();
    EXPECT_EQ(copy.row_idx, (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(copy.col_idx, (std::vector<std::int64_t>{0, 2, 1}));
    EXPECT_EQ(copy.values, (std::vector<double>{1.0, 2.0, 2.0}));
    // Entries changed after the symmetry test (same count): sorted and summed as they are now.
    d.row_idx = {0, 2, 1, 1, 0};
    d.col_idx = {2, 2, 1, 1, 0};
    d.sort_and_sum_duplicates();
    EXPECT_EQ(d.row_idx, (std::vector<std::int64_t>{0, 0, 1, 2}));
    EXPECT_EQ(d.col_idx, (std::vector<std::int64_t>{0, 2, 1, 2}));
    EXPECT_EQ(d.values, (std::vector<double>{0.5, 1.5, 2.0, 1.0}));
}

// An independent, straightforward CSR: a std::map per position, summed in input order.
struct SimpleCsr {
    std::vector<std::int32_t> row_ptrs, col_idxs;
    std::vector<double> values;
};

SimpleCsr simple_csr(const MatrixData& d) {
    std::map<std::pair<std::int64_t, std::int64_t>, double> sums;
    for (std::size_t k = 0; k < d.entries(); ++k) {
        auto it = sums.find({d.row_idx[k], d.col_idx[k]});
        if (it == sums.end()) {
            sums.emplace(std::make_pair(d.row_idx[k], d.col_idx[k]), d.values[k]);
        } else {
            it->second += d.values[k];
        }
    }
    SimpleCsr csr;
    csr.row_ptrs.assign(static_cast<std::size_t>(d.rows) + 1, 0);
    for (const auto& [pos, v] : sums) {
        ++csr.row_ptrs[static_cast<std::size_t>(pos.first) + 1];
        csr.col_idxs.push_back(static_cast<std::int32_t>(pos.second));
        csr.values.push_back(v);
    }
    for (std::size_t i = 0; i + 1 < csr.row_ptrs.size(); ++i) {
        csr.row_ptrs[i + 1] += csr.row_ptrs[i];
    }
    return csr;
}

MatrixData random_with_duplicates(std::uint64_t seed, std::int64_t rows, std::int64_t cols,
                                  std::size_t entries) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> row(0, rows - 1), col(0, cols - 1);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    MatrixData d;
    d.rows = rows;
    d.cols = cols;
    for (std::size_t k = 0; k < entries; ++k) {
        const std::int64_t r = row(rng), c = col(rng);
        d.add(r, c, value(rng));
        if (k % 3 == 0) d.add(r, c, value(rng) * 1e-3);  // a duplicate, not adjacent later
        if (k % 17 == 0) d.add(r, 0, 0.0);               // explicit zeros
    }
    for (std::int64_t c = 0; c < cols; ++c) d.add(rows / 2, c, 1.0);  // one dense row
    std::shuffle(d.row_idx.begin(), d.row_idx.end(), std::mt19937_64(seed));
    std::shuffle(d.col_idx.begin(), d.col_idx.end(), std::mt19937_64(seed));
    std::shuffle(d.values.begin(), d.values.end(), std::mt19937_64(seed));
    return d;
}

TEST(MatrixData, CsrFromDataMatchesIndependentConstruction) {
    const portla::Executor exec = portla::Executor::create("reference");
    for (const auto& [rows, cols, entries] :
         {std::tuple<std::int64_t, std::int64_t, std::size_t>{1, 1, 5},
          {50, 70, 400},
          {300, 200, 5000},
          {1000, 1000, 3000}}) {
        SCOPED_TRACE(rows);
        const MatrixData d = random_with_duplicates(rows * 7 + cols, rows, cols, entries);
        const SimpleCsr expected = simple_csr(d);
        const auto csr = portla::Csr<double>::from_data(exec, d);
        EXPECT_EQ(csr.row_ptrs().to_host(), expected.row_ptrs);
        EXPECT_EQ(csr.col_idxs().to_host(), expected.col_idxs);
        EXPECT_EQ(csr.values().to_host(), expected.values);  // bitwise: same summation order
        // After the symmetry test (which leaves d as it is): the same CSR.
        (void)d.is_symmetric();
        const auto again = portla::Csr<double>::from_data(exec, d);
        EXPECT_EQ(again.col_idxs().to_host(), expected.col_idxs);
        EXPECT_EQ(again.values().to_host(), expected.values);
        // Symmetry against the independent CSR: A == A^T entry by entry, zeros as missing.
        if (rows == cols) {
            // Summed first, so that s_ij + s_ji and s_ji + s_ij are bitwise equal.
            MatrixData summed = d;
            summed.sort_and_sum_duplicates();
            MatrixData sym = summed;
            for (std::size_t k = 0; k < summed.entries(); ++k)
                sym.add(summed.col_idx[k], summed.row_idx[k], summed.values[k]);
            EXPECT_TRUE(sym.is_symmetric());
            EXPECT_EQ(d.is_symmetric(), rows == 1);
        }
    }
}

}  // namespace

TEST(MatrixData, IsSymmetricToRoundingRelativeToLargestEntry) {
    // A FEM matrix written as `general`: the transpose differs by a few ulps (3e-15 relative).
    const double big = 4.0e3, off = -1.25;
    const MatrixData d = make(3, 3,
                              {{0, 0, big},
                               {0, 1, off},
                               {1, 0, off * (1 + 3e-15)},
                               {1, 1, big},
                               {2, 1, 0.7},
                               {1, 2, 0.7 + 1e-15 * big},
                               {2, 2, big}});
    EXPECT_FALSE(d.is_symmetric());  // not exactly
    EXPECT_TRUE(d.is_symmetric(MatrixData::rounding_symmetry));
    // Clearly not symmetric: a difference of 1e-9 of the largest entry.
    const MatrixData e =
        make(2, 2, {{0, 0, big}, {0, 1, 1.0}, {1, 0, 1.0 + 1e-9 * big}, {1, 1, 1}});
    EXPECT_FALSE(e.is_symmetric(MatrixData::rounding_symmetry));
    // A missing mirror counts as zero: tolerated only below the tolerance.
    const MatrixData f = make(2, 2, {{0, 0, big}, {0, 1, 1e-13 * big}, {1, 1, big}});
    EXPECT_TRUE(f.is_symmetric(MatrixData::rounding_symmetry));
    const MatrixData g = make(2, 2, {{0, 0, big}, {0, 1, 1e-11 * big}, {1, 1, big}});
    EXPECT_FALSE(g.is_symmetric(MatrixData::rounding_symmetry));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(make(2, 2, {{0, 0, nan}, {1, 1, 1.0}}).is_symmetric(1e-3));
}
