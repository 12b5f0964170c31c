#include "portla/io/matrix_market.hpp"
#include "portla/memory.hpp"

#include "core/matrix_checks.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "portla/error.hpp"
#include "portla/printable.hpp"

#ifndef PORTLA_TEST_DATA_DIR
#error "PORTLA_TEST_DATA_DIR must name the tests/data directory"
#endif

namespace {

using portla::BadInput;
using portla::MatrixData;
using portla::io::read_matrix_market;
using portla::io::read_vector;
using portla::io::ReadOptions;
using portla::io::write_matrix_market;
using portla::io::write_vector;

using Entry = std::tuple<std::int64_t, std::int64_t, double>;  // 0-based (row, col, value)

const std::string stream_name = "input.mtx";

std::string data_file(const std::string& name) {
    return std::string(PORTLA_TEST_DATA_DIR) + "/" + name;
}

std::string temp_file(const std::string& name) {
    return ::testing::TempDir() + "portla_test_matrix_market_" + name;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    ASSERT_TRUE(out.good()) << path;
}

MatrixData read_text(const std::string& text, const ReadOptions& options = {}) {
    std::istringstream in(text);
    return read_matrix_market(in, stream_name, options);
}

std::vector<Entry> sorted_entries(const MatrixData& d) {
    std::vector<Entry> e;
    for (std::size_t k = 0; k < d.entries(); ++k) {
        e.emplace_back(d.row_idx[k], d.col_idx[k], d.values[k]);
    }
    std::sort(e.begin(), e.end());
    return e;
}

void expect_matrix(const MatrixData& d, std::int64_t rows, std::int64_t cols,
                   std::vector<Entry> expected) {
    EXPECT_EQ(d.rows, rows);
    EXPECT_EQ(d.cols, cols);
    ASSERT_EQ(d.row_idx.size(), d.values.size());
    ASSERT_EQ(d.col_idx.size(), d.values.size());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sorted_entries(d), expected);
}

// Expects BadInput naming `file` and `line`, whose message contains `fragment`.
template <typename Function>
void expect_bad_input(Function read, const std::string& file, long line,
                      const std::string& fragment) {
    try {
        read();
        ADD_FAILURE() << "no exception; expected BadInput at " << file << ":" << line;
    } catch (const BadInput& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.file(), file) << message;
        EXPECT_EQ(e.line(), line) << message;
        const std::string prefix = file + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
        EXPECT_EQ(message.rfind(prefix, 0), 0u) << "message: " << message;
        EXPECT_NE(message.find(fragment), std::string::npos)
            << "message: " << message << "\nexpected to contain: " << fragment;
    }
}

void expect_bad_text(const std::string& text, long line, const std::string& fragment,
                     const ReadOptions& options = {}) {
    SCOPED_TRACE(text);
    expect_bad_input([&] { read_text(text, options); }, stream_name, line, fragment);
}

// Dense Cholesky factorisation; true when it succeeds (the matrix is SPD).
bool cholesky_succeeds(const MatrixData& d) {
    const auto n = static_cast<std::size_t>(d.rows);
    std::vector<double> a(n * n, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) {
        a[static_cast<std::size_t>(d.row_idx[k]) * n + static_cast<std::size_t>(d.col_idx[k])] +=
            d.values[k];
    }
    for (std::size_t j = 0; j < n; ++j) {
        double diag = a[j * n + j];
        for (std::size_t k = 0; k < j; ++k) {
            diag -= a[j * n + k] * a[j * n + k];
        }
        if (!(diag > 0.0)) {
            return false;
        }
        const double l_jj = std::sqrt(diag);
        a[j * n + j] = l_jj;
        for (std::size_t i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (std::size_t k = 0; k < j; ++k) {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / l_jj;
        }
    }
    return true;
}

const std::string coordinate_real_general = "%%MatrixMarket matrix coordinate real general\n";

// ---------------------------------------------------------------------------------------------
// Every valid format / field / symmetry combination, expected entries written out by hand.

TEST(MatrixMarketRead, CoordinateRealGeneral) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n"
        "3 4 5\n"
        "1 1 1.5\n"
        "3 2 -2.25e-3\n"
        "2 4 7\n"
        "1 3 -0.5\n"
        "3 4 1e+10\n");
    expect_matrix(d, 3, 4,
                  {{0, 0, 1.5}, {2, 1, -2.25e-3}, {1, 3, 7.0}, {0, 2, -0.5}, {2, 3, 1e10}});
}

TEST(MatrixMarketRead, CoordinateRealSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate real symmetric\n"
        "3 3 4\n"
        "1 1 2.5\n"
        "3 1 -1.25\n"
        "2 2 4\n"
        "3 2 0.75\n");
    expect_matrix(
        d, 3, 3,
        {{0, 0, 2.5}, {2, 0, -1.25}, {0, 2, -1.25}, {1, 1, 4.0}, {2, 1, 0.75}, {1, 2, 0.75}});
    EXPECT_TRUE(d.is_symmetric());
}

TEST(MatrixMarketRead, CoordinateRealSkewSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n"
        "3 3 2\n"
        "2 1 1.5\n"
        "3 2 -4.25\n");
    expect_matrix(d, 3, 3, {{1, 0, 1.5}, {0, 1, -1.5}, {2, 1, -4.25}, {1, 2, 4.25}});
}

TEST(MatrixMarketRead, CoordinateIntegerGeneral) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate integer general\n"
        "2 3 3\n"
        "1 2 -7\n"
        "2 3 12\n"
        "2 1 +3\n");
    expect_matrix(d, 2, 3, {{0, 1, -7.0}, {1, 2, 12.0}, {1, 0, 3.0}});
}

TEST(MatrixMarketRead, CoordinateIntegerSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate integer symmetric\n"
        "3 3 3\n"
        "1 1 5\n"
        "3 1 -2\n"
        "3 3 9\n");
    expect_matrix(d, 3, 3, {{0, 0, 5.0}, {2, 0, -2.0}, {0, 2, -2.0}, {2, 2, 9.0}});
}

TEST(MatrixMarketRead, CoordinateIntegerSkewSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
        "4 4 2\n"
        "4 1 6\n"
        "3 2 -11\n");
    expect_matrix(d, 4, 4, {{3, 0, 6.0}, {0, 3, -6.0}, {2, 1, -11.0}, {1, 2, 11.0}});
}

TEST(MatrixMarketRead, CoordinatePatternGeneral) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate pattern general\n"
        "2 3 3\n"
        "1 3\n"
        "2 1\n"
        "2 2\n");
    expect_matrix(d, 2, 3, {{0, 2, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}});
}

TEST(MatrixMarketRead, CoordinatePatternSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate pattern symmetric\n"
        "3 3 3\n"
        "2 2\n"
        "3 1\n"
        "3 2\n");
    expect_matrix(d, 3, 3, {{1, 1, 1.0}, {2, 0, 1.0}, {0, 2, 1.0}, {2, 1, 1.0}, {1, 2, 1.0}});
}

TEST(MatrixMarketRead, ArrayRealGeneralIsColumnMajor) {
    // [ 1.5  -3   0.25 ]
    // [ 2    4.5  -6   ]
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array real general\n"
        "% column-major\n"
        "2 3\n"
        "1.5\n2\n-3\n4.5\n0.25\n-6\n");
    expect_matrix(
        d, 2, 3, {{0, 0, 1.5}, {1, 0, 2.0}, {0, 1, -3.0}, {1, 1, 4.5}, {0, 2, 0.25}, {1, 2, -6.0}});
}

TEST(MatrixMarketRead, ArrayRealSymmetricListsLowerTriangleByColumn) {
    // [ 1  2  3 ]
    // [ 2  4  5 ]
    // [ 3  5  6 ]  stored as 1 2 3 | 4 5 | 6
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array real symmetric\n"
        "3 3\n"
        "1\n2\n3\n4\n5\n6.5\n");
    expect_matrix(d, 3, 3,
                  {{0, 0, 1.0},
                   {1, 0, 2.0},
                   {0, 1, 2.0},
                   {2, 0, 3.0},
                   {0, 2, 3.0},
                   {1, 1, 4.0},
                   {2, 1, 5.0},
                   {1, 2, 5.0},
                   {2, 2, 6.5}});
}

TEST(MatrixMarketRead, ArrayRealSkewSymmetricListsStrictLowerTriangle) {
    // [  0   -1.5 -2 ]
    // [  1.5  0   -3 ]
    // [  2    3    0 ]  stored as 1.5 2 | 3
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array real skew-symmetric\n"
        "3 3\n"
        "1.5\n2\n3\n");
    expect_matrix(
        d, 3, 3, {{1, 0, 1.5}, {0, 1, -1.5}, {2, 0, 2.0}, {0, 2, -2.0}, {2, 1, 3.0}, {1, 2, -3.0}});
}

TEST(MatrixMarketRead, ArrayIntegerGeneral) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array integer general\n"
        "3 2\n"
        "1\n-2\n3\n-4\n5\n0\n");
    expect_matrix(d, 3, 2,
                  {{0, 0, 1.0}, {1, 0, -2.0}, {2, 0, 3.0}, {0, 1, -4.0}, {1, 1, 5.0}, {2, 1, 0.0}});
}

TEST(MatrixMarketRead, ArrayIntegerSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array integer symmetric\n"
        "2 2\n"
        "7\n-1\n8\n");
    expect_matrix(d, 2, 2, {{0, 0, 7.0}, {1, 0, -1.0}, {0, 1, -1.0}, {1, 1, 8.0}});
}

TEST(MatrixMarketRead, ArrayIntegerSkewSymmetric) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix array integer skew-symmetric\n"
        "3 3\n"
        "4\n-5\n6\n");
    expect_matrix(
        d, 3, 3, {{1, 0, 4.0}, {0, 1, -4.0}, {2, 0, -5.0}, {0, 2, 5.0}, {2, 1, 6.0}, {1, 2, -6.0}});
}

TEST(MatrixMarketRead, KeywordsAreCaseInsensitive) {
    const MatrixData d = read_text(
        "%%matrixmarket MATRIX Coordinate REAL Symmetric\n"
        "2 2 1\n"
        "2 1 3.5\n");
    expect_matrix(d, 2, 2, {{1, 0, 3.5}, {0, 1, 3.5}});
}

TEST(MatrixMarketRead, SkipsCommentsAndBlankLinesAndAcceptsCrlf) {
    const MatrixData d = read_text(
        "%%MatrixMarket matrix coordinate real general\r\n"
        "%\r\n"
        "\r\n"
        "   \t\n"
        "% another comment\n"
        "  2   2   2  \r\n"
        "1\t1\t-1.5\r\n"
        "\n"
        "2 2 2.5\r\n"
        "\n\n");
    expect_matrix(d, 2, 2, {{0, 0, -1.5}, {1, 1, 2.5}});
}

TEST(MatrixMarketRead, KeepsDuplicatesAndExplicitZeros) {
    const MatrixData d = read_text(coordinate_real_general +
                                   "2 2 3\n"
                                   "1 1 1\n"
                                   "1 1 2\n"
                                   "2 1 0\n");
    expect_matrix(d, 2, 2, {{0, 0, 1.0}, {0, 0, 2.0}, {1, 0, 0.0}});
}

TEST(MatrixMarketRead, EmptyMatrices) {
    expect_matrix(read_text(coordinate_real_general + "0 0 0\n"), 0, 0, {});
    expect_matrix(read_text(coordinate_real_general + "5 3 0\n"), 5, 3, {});
    expect_matrix(read_text("%%MatrixMarket matrix array real general\n0 4\n"), 0, 4, {});
    expect_matrix(read_text("%%MatrixMarket matrix array real skew-symmetric\n1 1\n"), 1, 1, {});
}

TEST(MatrixMarketBadInput, SizesBeyondInt32IndicesAreTooLarge) {
    // portla's matrices index with int32: larger sizes are refused on the size line, before
    // anything is allocated from them.
    expect_bad_text(coordinate_real_general +
                        "5000000000 9223372036854775807 2\n"
                        "5000000000 1 1.25\n"
                        "1 9223372036854775807 -2\n",
                    2, "too large");
    expect_bad_text(coordinate_real_general + "3 2147483647 1\n1 1 1\n", 2,
                    "column count 2147483647 is too large");
    expect_bad_text(
        "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 "
        "1500000000\n",
        2, "3000000000 once expanded) is too large");
}

TEST(MatrixMarketRead, NonFiniteValuesAllowedWhenNotRequired) {
    ReadOptions options;
    options.require_finite = false;
    const MatrixData d = read_text(coordinate_real_general +
                                       "1 3 3\n"
                                       "1 1 nan\n"
                                       "1 2 -inf\n"
                                       "1 3 1e999\n",
                                   options);
    ASSERT_EQ(d.entries(), 3u);
    EXPECT_TRUE(std::isnan(d.values[0]));
    EXPECT_EQ(d.values[1], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(d.values[2], std::numeric_limits<double>::infinity());
}

// ---------------------------------------------------------------------------------------------
// Round trips: %.17g restores every double exactly.

MatrixData random_matrix(std::uint64_t seed, std::int64_t rows, std::int64_t cols,
                         std::size_t entries) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> row(0, rows - 1);
    std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
    std::normal_distribution<double> mantissa(0.0, 1.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    MatrixData d;
    d.rows = rows;
    d.cols = cols;
    for (std::size_t k = 0; k < entries; ++k) {
        d.add(row(rng), col(rng), std::ldexp(mantissa(rng), exponent(rng)));
    }
    d.add(0, 0, std::numeric_limits<double>::denorm_min());
    d.add(rows - 1, cols - 1, -std::numeric_limits<double>::max());
    d.add(0, cols - 1, 0.1);
    d.add(rows - 1, 0, -0.0);
    return d;
}

TEST(MatrixMarketRoundTrip, RandomMatrixIsRestoredExactly) {
    const MatrixData original = random_matrix(20240611, 37, 53, 400);
    const std::string path = temp_file("round_trip.mtx");
    write_matrix_market(path, original);
    const MatrixData back = read_matrix_market(path);
    EXPECT_EQ(back.rows, original.rows);
    EXPECT_EQ(back.cols, original.cols);
    EXPECT_EQ(back.row_idx, original.row_idx);  // written and read in the same order
    EXPECT_EQ(back.col_idx, original.col_idx);
    ASSERT_EQ(back.values.size(), original.values.size());
    for (std::size_t k = 0; k < back.values.size(); ++k) {
        EXPECT_EQ(back.values[k], original.values[k]) << "entry " << k;
        EXPECT_EQ(std::signbit(back.values[k]), std::signbit(original.values[k])) << "entry " << k;
    }
}

TEST(MatrixMarketRoundTrip, WriterUsesCoordinateRealGeneralOneBased) {
    MatrixData d;
    d.rows = 2;
    d.cols = 3;
    d.add(1, 2, 0.1);
    d.add(0, 0, -2.5);
    const std::string path = temp_file("writer_format.mtx");
    write_matrix_market(path, d);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(),
              "%%MatrixMarket matrix coordinate real general\n"
              "2 3 2\n"
              "2 3 0.10000000000000001\n"
              "1 1 -2.5\n");
}

TEST(MatrixMarketRoundTrip, WriterRejectsEntriesOutsideTheMatrix) {
    MatrixData d;
    d.rows = 2;
    d.cols = 2;
    d.add(2, 0, 1.0);
    EXPECT_THROW(write_matrix_market(temp_file("never_written.mtx"), d), BadInput);
}

TEST(MatrixMarketRoundTrip, RandomVectorIsRestoredExactly) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> mantissa(0.0, 1.0);
    std::uniform_int_distribution<int> exponent(-1000, 1000);
    std::vector<double> original(257);
    for (double& v : original) {
        v = std::ldexp(mantissa(rng), exponent(rng));
    }
    original[3] = 1.0 / 3.0;
    const std::string path = temp_file("vector.mtx");
    write_vector(path, original);
    EXPECT_EQ(read_vector(path), original);

    const MatrixData as_matrix = read_matrix_market(path);
    EXPECT_EQ(as_matrix.rows, 257);
    EXPECT_EQ(as_matrix.cols, 1);
}

TEST(MatrixMarketRoundTrip, EmptyVector) {
    const std::string path = temp_file("empty_vector.mtx");
    write_vector(path, {});
    EXPECT_TRUE(read_vector(path).empty());
}

TEST(MatrixMarketRoundTrip, WriteToUnwritablePathThrows) {
    expect_bad_input([] { write_vector("/nonexistent-dir/x.mtx", {1.0}); },
                     "/nonexistent-dir/x.mtx", 0, "cannot open file for writing");
}

// ---------------------------------------------------------------------------------------------
// read_vector

TEST(MatrixMarketReadVector, ArrayColumnAndRow) {
    const std::string path = temp_file("vector_array.mtx");
    write_text(path, "%%MatrixMarket matrix array real general\n3 1\n1.5\n-2\n4e-3\n");
    EXPECT_EQ(read_vector(path), (std::vector<double>{1.5, -2.0, 4e-3}));
    write_text(path, "%%MatrixMarket matrix array integer general\n1 4\n5\n-6\n7\n8\n");
    EXPECT_EQ(read_vector(path), (std::vector<double>{5.0, -6.0, 7.0, 8.0}));
}

TEST(MatrixMarketReadVector, CoordinateMissingEntriesAreZero) {
    const std::string path = temp_file("vector_coordinate.mtx");
    write_text(path, "%%MatrixMarket matrix coordinate real general\n5 1 2\n4 1 2.5\n2 1 -1\n");
    EXPECT_EQ(read_vector(path), (std::vector<double>{0.0, -1.0, 0.0, 2.5, 0.0}));
    write_text(path, "%%MatrixMarket matrix coordinate real general\n1 3 1\n1 3 9.75\n");
    EXPECT_EQ(read_vector(path), (std::vector<double>{0.0, 0.0, 9.75}));
}

TEST(MatrixMarketReadVector, RejectsMatrices) {
    const std::string path = temp_file("vector_not.mtx");
    write_text(path, "%%MatrixMarket matrix array real general\n% comment\n2 2\n1\n2\n3\n4\n");
    expect_bad_input([&] { read_vector(path); }, path, 3, "expected a vector (n x 1), got 2 x 2");
    write_text(path, "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    expect_bad_input([&] { read_vector(path); }, path, 2, "expected a vector (n x 1), got 0 x 0");
}

TEST(MatrixMarketReadVector, ReportsBadEntries) {
    const std::string path = temp_file("vector_bad.mtx");
    write_text(path, "%%MatrixMarket matrix array real general\n3 1\n1\ninf\n3\n");
    expect_bad_input([&] { read_vector(path); }, path, 4, "non-finite value");
    write_text(path, "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
    expect_bad_input([&] { read_vector(path); }, path, 5, "expected 3 entries, found 2");
}

TEST(MatrixMarketReadVector, MissingFile) {
    const std::string path = data_file("does_not_exist.mtx");
    expect_bad_input([&] { read_vector(path); }, path, 0, "cannot open file");
}

// ---------------------------------------------------------------------------------------------
// Bad input: one test per class; each names the file and the offending line.

TEST(MatrixMarketBadInput, BadOrMissingBanner) {
    expect_bad_text("", 1, "missing");
    expect_bad_text("3 3 1\n1 1 1\n", 1, "banner");
    expect_bad_text("%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", 1, "banner");
    expect_bad_text("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "banner");
    expect_bad_text("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "banner");
}

TEST(MatrixMarketBadInput, UnknownKeywords) {
    expect_bad_text("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "'vector'");
    expect_bad_text("%%MatrixMarket matrix coordinates real general\n1 1 0\n", 1, "'coordinates'");
    expect_bad_text("%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1, "'double'");
    expect_bad_text("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "'upper'");
    expect_bad_text("%%MatrixMarket matrix array pattern general\n1 1\n", 1, "array pattern");
    expect_bad_text("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", 1,
                    "pattern skew-symmetric");
}

TEST(MatrixMarketBadInput, ComplexAndHermitianAreUnsupported) {
    for (const char* banner : {"%%MatrixMarket matrix coordinate complex general\n",
                               "%%MatrixMarket matrix coordinate complex hermitian\n",
                               "%%MatrixMarket matrix array real hermitian\n"}) {
        try {
            read_text(std::string(banner) + "1 1 1\n1 1 1 0\n");
            ADD_FAILURE() << "no exception for " << banner;
        } catch (const portla::Unsupported& e) {
            const std::string message = e.what();
            EXPECT_EQ(message.rfind(stream_name + ": complex matrices are not supported", 0), 0u)
                << message;
        }
    }
}

using Complex = std::complex<double>;
using ComplexEntry = std::tuple<std::int64_t, std::int64_t, double, double>;

portla::io::ComplexMatrixData read_complex_text(const std::string& text) {
    std::istringstream in(text);
    return portla::io::read_matrix_market_complex(in, stream_name);
}

std::vector<ComplexEntry> sorted_entries(const portla::io::ComplexMatrixData& d) {
    std::vector<ComplexEntry> e;
    for (std::size_t k = 0; k < d.values.size(); ++k)
        e.emplace_back(d.row_idx[k], d.col_idx[k], d.values[k].real(), d.values[k].imag());
    std::sort(e.begin(), e.end());
    return e;
}

TEST(MatrixMarketComplex, EverySymmetryExpanded) {
    const std::string entries = "3 3 3\n1 1 1.5 -2\n3 1 0.25 4\n2 2 -3 0.5\n";
    // general: as stored
    EXPECT_EQ(sorted_entries(read_complex_text(
                  "%%MatrixMarket matrix coordinate complex general\n" + entries)),
              (std::vector<ComplexEntry>{{0, 0, 1.5, -2}, {1, 1, -3, 0.5}, {2, 0, 0.25, 4}}));
    // symmetric: the mirror as stored
    EXPECT_EQ(sorted_entries(read_complex_text(
                  "%%MatrixMarket matrix coordinate complex symmetric\n" + entries)),
              (std::vector<ComplexEntry>{
                  {0, 0, 1.5, -2}, {0, 2, 0.25, 4}, {1, 1, -3, 0.5}, {2, 0, 0.25, 4}}));
    // hermitian: the mirror conjugated, real diagonal
    EXPECT_EQ(sorted_entries(read_complex_text(
                  "%%MatrixMarket matrix coordinate complex hermitian\n3 3 3\n1 1 1.5 0\n"
                  "3 1 0.25 4\n2 2 -3 0\n")),
              (std::vector<ComplexEntry>{
                  {0, 0, 1.5, 0}, {0, 2, 0.25, -4}, {1, 1, -3, 0}, {2, 0, 0.25, 4}}));
    // skew-symmetric array (strict lower triangle, column by column): the mirror negated
    EXPECT_EQ(sorted_entries(read_complex_text(
                  "%%MatrixMarket matrix array complex skew-symmetric\n2 2\n1 -2\n")),
              (std::vector<ComplexEntry>{{0, 1, -1, 2}, {1, 0, 1, -2}}));
    const auto header = [](const std::string& banner) {
        std::istringstream in(banner + "2 2 1\n1 1 1 0\n");
        return portla::io::read_matrix_market_header(in, stream_name);
    };
    const auto h = header("%%MatrixMarket matrix coordinate complex hermitian\n");
    EXPECT_TRUE(h.complex && h.hermitian && h.symmetric && !h.skew);
    EXPECT_FALSE(header("%%MatrixMarket matrix coordinate real general\n").complex);
}

TEST(MatrixMarketComplex, BadInputNamesTheLine) {
    const auto expect_bad = [](const std::string& text, const std::string& what) {
        try {
            read_complex_text(text);
            ADD_FAILURE() << "no exception for " << text;
        } catch (const BadInput& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    expect_bad("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 1 0.5\n",
               "input.mtx:3: diagonal entry (1, 1) of a hermitian file is not real");
    expect_bad("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1\n",
               "input.mtx:3: too few fields: expected 'row col real imaginary'");
    expect_bad("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 2 1 0\n",
               "above the diagonal in a hermitian file");
    expect_bad("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 1 0\n",
               "truncated file: expected 2 entries, found 1");
    expect_bad("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 nan\n",
               "non-finite value 'nan'");
    expect_bad("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n",
               "expected a complex matrix (banner says 'real general')");
}

TEST(MatrixMarketComplex, VectorRoundTrip) {
    const std::string path = temp_file("complex_vector.mtx");
    const std::vector<Complex> v{{1.0 / 3, -2.5e-300}, {-7, 0.1}};
    portla::io::write_complex_vector(path, v);
    const auto d = portla::io::read_matrix_market_complex(path);
    ASSERT_EQ(d.rows, 2);
    ASSERT_EQ(d.cols, 1);
    EXPECT_EQ(d.values, v);  // %.17g: the same doubles
    std::remove(path.c_str());
}

TEST(MatrixMarketBadInput, BadSizeLine) {
    expect_bad_text(coordinate_real_general, 2, "missing size line");
    expect_bad_text(coordinate_real_general + "% only comments\n\n", 4, "missing size line");
    expect_bad_text(coordinate_real_general + "% c\n3 3\n", 3, "bad size line");
    expect_bad_text(coordinate_real_general + "3 3 1 1\n1 1 1\n", 2, "bad size line");
    expect_bad_text(coordinate_real_general + "3 x 1\n1 1 1\n", 2, "'x'");
    expect_bad_text(coordinate_real_general + "3 3.0 1\n1 1 1\n", 2, "'3.0'");
    expect_bad_text(coordinate_real_general + "-3 3 1\n1 1 1\n", 2, "'-3'");
    expect_bad_text(coordinate_real_general + "3 3 -1\n", 2, "'-1'");
    expect_bad_text(coordinate_real_general + "99999999999999999999 3 1\n1 1 1\n", 2,
                    "is too large (beyond 64-bit integers)");
    expect_bad_text("%%MatrixMarket matrix array real general\n3 3 9\n", 2, "bad size line");
    expect_bad_text("%%MatrixMarket matrix array real general\n4000000000 4000000000\n", 2,
                    "too large");
}

TEST(MatrixMarketBadInput, MoreEntriesDeclaredThanTheMatrixHolds) {
    expect_bad_text(coordinate_real_general + "2 3 7\n", 2, "at most 6");
    expect_bad_text(coordinate_real_general + "0 5 1\n1 1 1\n", 2, "at most 0");
    expect_bad_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n", 2, "at most 6");
    expect_bad_text("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 4\n", 2,
                    "at most 3");
}

TEST(MatrixMarketBadInput, TruncatedFile) {
    expect_bad_text(coordinate_real_general + "3 3 3\n1 1 1\n2 2 2\n", 5,
                    "expected 3 entries, found 2");
    expect_bad_text(coordinate_real_general + "3 3 3\n1 1 1\n2 2 2", 5,
                    "expected 3 entries, found 2");
    expect_bad_text(coordinate_real_general + "3 3 3\n1 1 1\n2 2 2\n\n\n", 7,
                    "expected 3 entries, found 2");
    expect_bad_text("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n", 5,
                    "expected 3 entries, found 2");
}

TEST(MatrixMarketBadInput, LyingHeaderDoesNotAllocateHugely) {
    expect_bad_text(coordinate_real_general + "3000000000 3000000000 9000000000000000000\n1 1 1\n",
                    2, "too large");
    expect_bad_text("%%MatrixMarket matrix array real general\n3000000000 3000000000\n1\n", 2,
                    "too large");
    // Within the index range but more memory than this machine has (about 168 GB): refused by
    // the memory estimate, with the amount, before reserving.
    if (portla::host_memory_available() < 1.6e11)
        expect_bad_text(coordinate_real_general + "2000000000 2000000000 2000000000\n1 1 1\n", 2,
                        "needs");
}

TEST(MatrixMarketBadInput, TooManyEntries) {
    expect_bad_text(coordinate_real_general + "3 3 2\n1 1 1\n2 2 2\n% c\n\n3 3 3\n", 7,
                    "more entries than the 2 declared");
    expect_bad_text("%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5,
                    "more entries than the 2 declared");
}

TEST(MatrixMarketBadInput, IndexOutOfRange) {
    expect_bad_text(coordinate_real_general + "3 4 2\n1 1 1\n0 1 1\n", 4,
                    "row index 0 out of range [1, 3]");
    expect_bad_text(coordinate_real_general + "3 4 2\n1 1 1\n4 1 1\n", 4,
                    "row index 4 out of range [1, 3]");
    expect_bad_text(coordinate_real_general + "3 4 1\n1 5 1\n", 3,
                    "column index 5 out of range [1, 4]");
    expect_bad_text(coordinate_real_general + "3 4 1\n1 -1 1\n", 3,
                    "column index -1 out of range [1, 4]");
}

TEST(MatrixMarketBadInput, NotANumber) {
    expect_bad_text(coordinate_real_general + "3 3 2\n1 1 1\n2 2 abc\n", 4, "bad value 'abc'");
    expect_bad_text(coordinate_real_general + "3 3 1\n1.5 1 1\n", 3, "bad row index '1.5'");
    expect_bad_text(coordinate_real_general + "3 3 1\n1 one 1\n", 3, "bad column index 'one'");
    expect_bad_text(coordinate_real_general + "3 3 1\n1 99999999999999999999 1\n", 3,
                    "bad column index");
    expect_bad_text("%%MatrixMarket matrix array real general\n2 1\n1\n--2\n", 4, "bad value");
    expect_bad_text("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n", 3,
                    "integer");
    expect_bad_text("%%MatrixMarket matrix array integer general\n2 1\n1\n1e3\n", 4, "integer");
}

TEST(MatrixMarketBadInput, TooFewFieldsOrTrailingGarbage) {
    expect_bad_text(coordinate_real_general + "3 3 1\n1 1\n", 3, "too few fields");
    expect_bad_text(coordinate_real_general + "3 3 2\n1 1 1\n2 2 2 junk\n", 4, "unexpected text");
    expect_bad_text(coordinate_real_general + "3 3 1\n1 1 2.0x\n", 3, "bad value '2.0x'");
    expect_bad_text("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
                    "unexpected text");
    expect_bad_text("%%MatrixMarket matrix array real general\n2 1\n1 2\n", 3, "unexpected text");
    expect_bad_text(coordinate_real_general + "3 3 1\n" + std::string("1 1 1\0x\n", 8), 3,
                    "bad value");
}

TEST(MatrixMarketBadInput, NaN) {
    expect_bad_text(coordinate_real_general + "3 3 2\n1 1 1\n2 2 nan\n", 4, "non-finite value");
    expect_bad_text(coordinate_real_general + "3 3 1\n1 1 -NaN\n", 3, "non-finite value");
}

TEST(MatrixMarketBadInput, Inf) {
    expect_bad_text(coordinate_real_general + "3 3 1\n2 1 inf\n", 3, "non-finite value");
    expect_bad_text(coordinate_real_general + "3 3 1\n2 1 -Infinity\n", 3, "non-finite value");
    expect_bad_text("%%MatrixMarket matrix array real general\n2 1\n1\n1e400\n", 4,
                    "non-finite value");
}

TEST(MatrixMarketBadInput, UpperTriangleEntryInSymmetricFile) {
    expect_bad_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 5\n", 4,
                    "entry (1, 2) above the diagonal");
    expect_bad_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 3\n", 3,
                    "above the diagonal");
    expect_bad_text("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n1 3 5\n", 3,
                    "above the diagonal");
}

TEST(MatrixMarketBadInput, DiagonalEntryInSkewSymmetricFile) {
    expect_bad_text("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0\n",
                    4, "diagonal entry (2, 2)");
}

TEST(MatrixMarketBadInput, SymmetricMustBeSquare) {
    expect_bad_text("%%MatrixMarket matrix coordinate real symmetric\n% c\n3 4 1\n1 1 1\n", 3,
                    "must be square, got 3 x 4");
    expect_bad_text("%%MatrixMarket matrix array real skew-symmetric\n2 1\n", 2,
                    "must be square, got 2 x 1");
}

TEST(MatrixMarketBadInput, MissingFile) {
    const std::string path = data_file("does_not_exist.mtx");
    expect_bad_input([&] { read_matrix_market(path); }, path, 0, "cannot open file");
    expect_bad_input([&] { read_matrix_market(std::string(PORTLA_TEST_DATA_DIR)); },
                     PORTLA_TEST_DATA_DIR, 0, "not a regular file");
}

// Only regular files are read: a FIFO (which would block until a writer came), a device that
// never ends and a directory are refused at once, by the matrix and the vector reader alike.
TEST(MatrixMarketBadInput, NotARegularFile) {
    const std::string fifo = temp_file("fifo.mtx");
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    for (const std::string& path : {fifo, std::string("/dev/zero"), data_file("bad")}) {
        SCOPED_TRACE(path);
        const auto start = std::chrono::steady_clock::now();
        expect_bad_input([&] { read_matrix_market(path); }, path, 0, "not a regular file");
        expect_bad_input([&] { read_vector(path); }, path, 0, "not a regular file");
        // Generous: the point is that it does not block or read forever.
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
    }
    ::unlink(fifo.c_str());
}

// A line is read into a bounded buffer: a 2 MB line fails with the file and line, without
// growing a string for the whole input.
TEST(MatrixMarketBadInput, LineTooLong) {
    const std::string path = temp_file("long_line.mtx");
    write_text(path,
               coordinate_real_general + "% " + std::string(2 << 20, 'x') + "\n1 1 1\n1 1 1\n");
    expect_bad_input([&] { read_matrix_market(path); }, path, 2, "line too long");
    expect_bad_text(coordinate_real_general + "1 1 1\n1 1 " + std::string(2 << 20, '1') + "\n", 3,
                    "line too long");
    // A line just under the limit is read (and then judged on its content).
    expect_bad_text(coordinate_real_general + "% " + std::string((1 << 20) - 3, 'x') + "\n", 3,
                    "missing size line");
}

// tests/data/bad: a tiny file that declares a 2e8 x 2e8 matrix with one entry is read at once
// (no per-row allocation), and its structure says why no solve is attempted; a size of 2^63 - 1
// is refused as too large on its line.
TEST(MatrixMarketBadInput, HugeDeclaredSizes) {
    const auto start = std::chrono::steady_clock::now();
    const MatrixData d = read_matrix_market(data_file("bad/huge_declared.mtx"));
    EXPECT_EQ(d.rows, 200000000);
    EXPECT_EQ(d.entries(), 1u);
    EXPECT_NE(d.structural_defect().find("empty row (row 2 of 200000000"), std::string::npos)
        << d.structural_defect();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    const std::string big = data_file("bad/size_int64_max.mtx");
    expect_bad_input([&] { read_matrix_market(big); }, big, 2,
                     "row count 9223372036854775807 is too large");
    expect_bad_input([&] { read_vector(big); }, big, 2, "too large");
}

// ---------------------------------------------------------------------------------------------
// Files in tests/data (also used by solver and CLI tests).

TEST(MatrixMarketFiles, BadFiles) {
    struct Case {
        const char* file;
        long line;
        const char* fragment;
    };
    for (const Case& c : {Case{"bad_banner.mtx", 1, "'coordinates'"},
                          Case{"bad_count.mtx", 8, "expected 5 entries, found 3"},
                          Case{"bad_index.mtx", 6, "column index 5 out of range [1, 4]"},
                          Case{"bad_number.mtx", 5, "bad value '3.5x'"},
                          Case{"nan.mtx", 6, "non-finite value 'nan'"}}) {
        SCOPED_TRACE(c.file);
        const std::string path = data_file(c.file);
        expect_bad_input([&] { read_matrix_market(path); }, path, c.line, c.fragment);
    }
    EXPECT_THROW(read_matrix_market(data_file("complex.mtx")), portla::Unsupported);
}

TEST(MatrixMarketFiles, StructurallySingular) {
    EXPECT_NE(read_matrix_market(data_file("bad/empty_row.mtx"))
                  .structural_defect()
                  .find("matrix has an empty row (row 3 of 4, counting from 1): the system is "
                        "singular"),
              std::string::npos);
    EXPECT_NE(read_matrix_market(data_file("bad/empty_column.mtx"))
                  .structural_defect()
                  .find("empty column (column 3 of 4"),
              std::string::npos);
    EXPECT_EQ(read_matrix_market(data_file("spd_small.mtx")).structural_defect(), "");
}

// No empty row or column, yet singular for any values: rows 1 and 2 hold entries in column 1
// only. And patterns without a diagonal: a permutation is fine; the off-diagonal part of a
// tridiagonal pattern has a perfect matching for even n and structural rank n - 1 for odd n.
// Past its limit of entries the matching (8 bytes per entry of copy) is not attempted: the
// singular 3 x 3 pattern above with a limit of 3 entries (it has 4) reports no defect, with 4 it
// reports rank 2; empty rows are found whatever the limit.
TEST(MatrixMarketFiles, StructuralRankOnlyUpToItsLimitOfEntries) {
    const std::vector<std::pair<std::size_t, std::size_t>> entries{{0, 0}, {1, 0}, {2, 1}, {2, 2}};
    auto each = [&](auto&& f) {
        for (const auto& [r, c] : entries) f(r, c);
    };
    EXPECT_NE(portla::detail::structural_defect(3, 3, each, 4).find("allows rank 2 of 3"),
              std::string::npos);
    EXPECT_EQ(portla::detail::structural_defect(3, 3, each, 3), "");
    EXPECT_GE(portla::detail::kMaxMatchedEntries, std::size_t{1} << 28);
    auto empty_row = [](auto&& f) {
        f(std::size_t{0}, std::size_t{0});
        f(std::size_t{2}, std::size_t{1});
    };
    EXPECT_NE(portla::detail::structural_defect(3, 3, empty_row, 0).find("empty row (row 2 of 3"),
              std::string::npos);
}

TEST(MatrixMarketFiles, StructuralRankByMatching) {
    portla::MatrixData d;
    d.rows = d.cols = 3;
    d.add(0, 0, 1.0);
    d.add(1, 0, 1.0);
    d.add(2, 1, 1.0);
    d.add(2, 2, 1.0);
    EXPECT_NE(d.structural_defect().find("structurally singular: its pattern allows rank 2 of 3"),
              std::string::npos)
        << d.structural_defect();
    portla::MatrixData swap;
    swap.rows = swap.cols = 2;
    swap.add(0, 1, 1.0);
    swap.add(1, 0, 1.0);
    EXPECT_EQ(swap.structural_defect(), "");
    for (const std::int64_t n : {4, 5, 1000, 1001}) {
        portla::MatrixData t;
        t.rows = t.cols = n;
        for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0) t.add(i, i - 1, 1.0);
            if (i + 1 < n) t.add(i, i + 1, 1.0);
        }
        const std::string defect = t.structural_defect();
        if (n % 2 == 0)
            EXPECT_EQ(defect, "") << n;
        else
            EXPECT_NE(defect.find("rank " + std::to_string(n - 1) + " of " + std::to_string(n)),
                      std::string::npos)
                << n << ": " << defect;
    }
}

TEST(MatrixMarketFiles, SpdSmall) {
    const MatrixData d = read_matrix_market(data_file("spd_small.mtx"));
    EXPECT_EQ(d.rows, 10);
    EXPECT_EQ(d.cols, 10);
    EXPECT_EQ(d.entries(), 10u + 2u * (9u + 8u));
    EXPECT_TRUE(d.is_symmetric());
    EXPECT_TRUE(cholesky_succeeds(d));
}

TEST(MatrixMarketFiles, NonsymSmall) {
    const MatrixData d = read_matrix_market(data_file("nonsym_small.mtx"));
    EXPECT_EQ(d.rows, 10);
    EXPECT_EQ(d.cols, 10);
    EXPECT_EQ(d.entries(), 10u + 9u + 9u + 7u + 8u);
    EXPECT_FALSE(d.is_symmetric());
    // Strictly diagonally dominant by rows.
    std::vector<double> diag(10, 0.0);
    std::vector<double> off(10, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) {
        const auto r = static_cast<std::size_t>(d.row_idx[k]);
        (d.row_idx[k] == d.col_idx[k] ? diag[r] : off[r]) += std::abs(d.values[k]);
    }
    for (std::size_t r = 0; r < 10; ++r) {
        EXPECT_GT(diag[r], off[r]) << "row " << r;
    }
}

TEST(MatrixMarketFiles, SpdFem2d) {
    const MatrixData d = read_matrix_market(data_file("spd_fem_2d.mtx"));
    EXPECT_EQ(d.rows, 169);
    EXPECT_EQ(d.cols, 169);
    // 169 diagonal entries and 456 mesh edges, each stored twice after expansion.
    EXPECT_EQ(d.entries(), 169u + 2u * 456u);
    EXPECT_TRUE(d.is_symmetric());
    EXPECT_TRUE(cholesky_succeeds(d));
    // Stiffness rows sum to zero (Neumann), so the sum of all entries is 1^T M 1 = area = 1.
    double sum = 0.0;
    for (const double v : d.values) {
        sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(MatrixMarketFiles, NotSpdAndZeroDiag) {
    const MatrixData not_spd = read_matrix_market(data_file("not_spd.mtx"));
    EXPECT_TRUE(not_spd.is_symmetric());
    EXPECT_FALSE(cholesky_succeeds(not_spd));

    const MatrixData zero_diag = read_matrix_market(data_file("zero_diag.mtx"));
    EXPECT_TRUE(zero_diag.is_symmetric());
    bool found_zero_diagonal = false;
    for (std::size_t k = 0; k < zero_diag.entries(); ++k) {
        if (zero_diag.row_idx[k] == 2 && zero_diag.col_idx[k] == 2) {
            found_zero_diagonal = zero_diag.values[k] == 0.0;
        }
    }
    EXPECT_TRUE(found_zero_diagonal);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The header alone (what the CLI sizes a run from): the reader's own rules, nothing more read.

TEST(MatrixMarketHeader, AcceptsWhatTheFormatAllows) {
    const std::string body = "1 1 4\n2 2 5\n";
    for (const std::string& text : {
             std::string("\xef\xbb\xbf%%MatrixMarket matrix coordinate real general\n2 2 2\n"),
             std::string("%%MatrixMarket matrix coordinate real general\r\n\r\n2 2 2\r\n"),
             std::string("%%MatrixMarket matrix coordinate real general\n\r\n \t \n2 2 2\n"),
             std::string("%%MatrixMarket matrix coordinate real general\n   % indented\n\t%\n"
                         "  2 2 2\n"),
         }) {
        SCOPED_TRACE(text);
        std::istringstream in(text);
        const portla::io::MatrixMarketHeader h =
            portla::io::read_matrix_market_header(in, stream_name);
        EXPECT_EQ(h.rows, 2);
        EXPECT_EQ(h.cols, 2);
        EXPECT_EQ(h.entries, 2);
        EXPECT_FALSE(h.array);
        EXPECT_FALSE(h.symmetric);
        // The whole reader takes the same files.
        expect_matrix(read_text(text + body), 2, 2, {{0, 0, 4.0}, {1, 1, 5.0}});
    }
    std::istringstream sym("%%MatrixMarket matrix array real symmetric\n% c\n3 3\n");
    const auto h = portla::io::read_matrix_market_header(sym, stream_name);
    EXPECT_TRUE(h.array);
    EXPECT_TRUE(h.symmetric);
    EXPECT_FALSE(h.skew);
    EXPECT_EQ(h.entries, 6);  // the stored triangle
    EXPECT_EQ(h.size_line, 3);
    std::istringstream skew("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n");
    const auto k = portla::io::read_matrix_market_header(skew, stream_name);
    EXPECT_TRUE(k.symmetric);
    EXPECT_TRUE(k.skew);
}

// The header of a file whose entries would not fit in memory is read, not refused: only the
// sizes are wanted (the whole reader refuses the same file for its memory).
TEST(MatrixMarketHeader, ReadsNoEntriesAndChecksNoMemory) {
    const std::string path = temp_file("header_only.mtx");
    write_text(path,
               "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 "
               "4000000000000000000\nnot an entry\n");
    const auto h = portla::io::read_matrix_market_header(path);
    EXPECT_EQ(h.rows, 2000000000);
    EXPECT_EQ(h.entries, 4000000000000000000);
}

// Text quoted from a file is shown escaped and cut: no raw carriage return, escape sequence or
// NUL reaches a terminal, and a long token does not make a long message.
TEST(MatrixMarketHeader, MessagesEscapeAndCutWhatTheyQuote) {
    struct Case {
        std::string text;
        std::string shown;
    };
    const std::vector<Case> cases{
        {"%%MatrixMarket matrix coordinate real general\n2 2 \x1b[31m\n", "'\\x1b[31m'"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\x7f\n", "'1\\x7f'"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 \xff\xfe\n", "'\\xff\\xfe'"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 x" + std::string(1, '\0') + "y\n",
         "'x\\x00y'"},
        {"%%MatrixMarket matrix coordinate \x1b]0;title\x07 general\n", "'\\x1b]0;title\\x07'"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 " + std::string(5000, '9') + "z\n",
         "'" + std::string(40, '9') + "...'"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.shown);
        std::istringstream in(c.text);
        try {
            (void)portla::io::read_matrix_market_header(in, stream_name);
            ADD_FAILURE() << "no exception";
        } catch (const BadInput& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(c.shown), std::string::npos) << what;
            EXPECT_LT(what.size(), 300u) << what;
            for (const char ch : what)
                EXPECT_FALSE(static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) << what;
        }
    }
    EXPECT_EQ(portla::printable("caf\xc3\xa9 \xc2\x9b[2J \xed\xa0\x80"),
              "caf\xc3\xa9 \\xc2\\x9b[2J \\xed\\xa0\\x80");
    EXPECT_EQ(portla::printable("a\r\nb", 2), "a\\x0d...");
}

// A file without line breaks (NUL bytes behind a regular name) fails at the 1 MiB line bound,
// at once, with a short message.
TEST(MatrixMarketHeader, LineWithoutEndIsBounded) {
    std::istringstream in(std::string(3 << 20, '\0'));
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)portla::io::read_matrix_market_header(in, stream_name);
        ADD_FAILURE() << "no exception";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("line too long"), std::string::npos) << e.what();
        EXPECT_LT(std::string(e.what()).size(), 200u);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}
