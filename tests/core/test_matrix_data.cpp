#include "portla/matrix/matrix_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "portla/error.hpp"

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

}  // namespace
