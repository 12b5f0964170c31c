// io::read_matrix_market_csr and CsrData: the CSR built straight from the text must
// equal the coordinate reader's entries sorted and summed, bit for bit, on real and generated
// files large enough to be parsed in parallel blocks; a malformed line deep in such a file must
// give the same message and line as the line-by-line reader.
#include "portla/io/matrix_market.hpp"
#include "portla/matrix/matrix_data.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "portla/error.hpp"

#ifndef PORTLA_TEST_DATA_DIR
#error "PORTLA_TEST_DATA_DIR must name the tests/data directory"
#endif

namespace {

using portla::BadInput;
using portla::CsrData;
using portla::MatrixData;
using portla::io::read_matrix_market;
using portla::io::read_matrix_market_csr;

// The parallel reader splits each block into this many parts (more than this machine's cores
// is fine, and an odd count makes uneven parts).
class ThreeThreads : public ::testing::Test {
protected:
    void SetUp() override {
        const char* old = std::getenv("OMP_NUM_THREADS");
        had_ = old != nullptr;
        if (had_) old_ = old;
        ::setenv("OMP_NUM_THREADS", "3", 1);
    }
    void TearDown() override {
        if (had_)
            ::setenv("OMP_NUM_THREADS", old_.c_str(), 1);
        else
            ::unsetenv("OMP_NUM_THREADS");
    }

private:
    bool had_ = false;
    std::string old_;
};

// Expected CSR from (row, col, value) in file order, duplicates summed in that order.
using Expected = std::map<std::pair<std::int64_t, std::int64_t>, double>;

void expect_csr(const CsrData& got, std::int64_t rows, std::int64_t cols,
                const Expected& expected) {
    ASSERT_EQ(got.rows, rows);
    ASSERT_EQ(got.cols, cols);
    ASSERT_EQ(got.row_ptrs.size(), static_cast<std::size_t>(rows) + 1);
    ASSERT_EQ(got.col_idxs.size(), got.values.size());
    ASSERT_EQ(got.entries(), expected.size());
    EXPECT_EQ(got.row_ptrs[0], 0);
    auto it = expected.begin();
    for (std::int64_t i = 0; i < rows; ++i)
        for (auto k = got.row_ptrs[i]; k < got.row_ptrs[i + 1]; ++k, ++it) {
            ASSERT_EQ(it->first, std::make_pair(i, std::int64_t{got.col_idxs[k]})) << "entry " << k;
            // Bit for bit: the same sums in the same order.
            ASSERT_EQ(it->second, got.values[k])
                << "entry (" << i << ", " << got.col_idxs[k] << ")";
        }
}

Expected expected_of(const MatrixData& d) {
    Expected e;
    for (std::size_t k = 0; k < d.entries(); ++k) {
        auto [at, fresh] = e.emplace(std::make_pair(d.row_idx[k], d.col_idx[k]), d.values[k]);
        if (!fresh) at->second += d.values[k];
    }
    return e;
}

// A coordinate file of `lines` random entries (with duplicates, explicit zeros and, every so
// often, a comment or blank line or CRLF ending), and the matrix it stores.
struct Generated {
    std::string text;
    Expected expected;
    std::int64_t n = 0;
};

Generated generate(const std::string& field, const std::string& symmetry, std::int64_t n,
                   std::size_t lines, bool decorate, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> index(0, n - 1);
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    Generated g;
    g.n = n;
    std::ostringstream out;
    out.precision(17);
    out << "%%MatrixMarket matrix coordinate " << field << " " << symmetry << "\n% generated\n"
        << n << " " << n << " " << lines << "\n";
    const bool mirrored = symmetry != "general";
    const double sign = symmetry == "skew-symmetric" ? -1.0 : 1.0;
    auto add = [&g](std::int64_t r, std::int64_t c, double v) {
        auto [at, fresh] = g.expected.emplace(std::make_pair(r, c), v);
        if (!fresh) at->second += v;
    };
    std::int64_t last_r = 0, last_c = 0;
    for (std::size_t k = 0; k < lines; ++k) {
        std::int64_t r = index(rng), c = index(rng);
        if (k % 7 == 3) {  // a duplicate of the line before
            r = last_r;
            c = last_c;
        }
        if (mirrored && r < c) std::swap(r, c);
        if (symmetry == "skew-symmetric" && r == c) r = r + 1 < n ? r + 1 : r - 1;
        if (mirrored && r < c) std::swap(r, c);
        last_r = r;
        last_c = c;
        double v = 1.0;
        out << r + 1 << " " << c + 1;
        if (field == "real") {
            v = k % 11 == 5 ? 0.0 : value(rng);
            out << " " << v;
        } else if (field == "integer") {
            v = static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
            out << " " << static_cast<long>(v);
        }
        out << (decorate && k % 1000 == 999 ? "\r\n" : "\n");
        if (decorate && k == lines / 2) out << "% a comment in the middle\n\n";
        add(r, c, v);
        if (mirrored && r != c) add(c, r, sign * v);
    }
    g.text = out.str();
    return g;
}

CsrData csr_of_text(const std::string& text) {
    std::istringstream in(text);
    return read_matrix_market_csr(in, "input.mtx");
}

TEST_F(ThreeThreads, LargeGeneratedFilesEveryFieldAndSymmetry) {
    unsigned seed = 1;
    for (const std::string field : {"real", "integer", "pattern"})
        for (const std::string symmetry : {"general", "symmetric", "skew-symmetric"}) {
            if (field == "pattern" && symmetry == "skew-symmetric") continue;
            for (const bool decorate : {false, true}) {
                SCOPED_TRACE(field + " " + symmetry + (decorate ? " decorated" : ""));
                // 150000 lines of 10 to 30 bytes: more than a 1 MiB block, each in three parts.
                const Generated g = generate(field, symmetry, 5003, 150000, decorate, seed++);
                ASSERT_GT(g.text.size(), std::size_t{1} << 20);
                expect_csr(csr_of_text(g.text), g.n, g.n, g.expected);
                // The coordinate reader (parsed the same way) holds the same entries.
                std::istringstream in(g.text);
                expect_csr(CsrData::from(read_matrix_market(in, "input.mtx")), g.n, g.n,
                           g.expected);
            }
        }
}

TEST_F(ThreeThreads, SmallAndEmptyFiles) {
    for (const std::size_t lines : {0, 1, 2, 3, 20}) {
        const Generated g = generate("real", "symmetric", 7, lines, false, 99);
        expect_csr(csr_of_text(g.text), g.n, g.n, g.expected);
    }
    const CsrData empty = csr_of_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    EXPECT_EQ(empty.rows, 0);
    EXPECT_EQ(empty.row_ptrs, std::vector<std::int64_t>{0});
    // Array files: column-major, a symmetric one's lower triangle column by column.
    expect_csr(csr_of_text("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"), 2, 2,
               {{{0, 0}, 1.0}, {{1, 0}, 2.0}, {{0, 1}, 2.0}, {{1, 1}, 3.0}});
}

TEST_F(ThreeThreads, RealFilesEqualTheCoordinateReaderSortedAndSummed) {
    const std::string dir = std::string(PORTLA_TEST_DATA_DIR);
    for (const std::string name :
         {"suitesparse/1138_bus.mtx", "suitesparse/494_bus.mtx", "suitesparse/662_bus.mtx",
          "suitesparse/685_bus.mtx", "suitesparse/arc130.mtx", "suitesparse/bcsstk01.mtx",
          "suitesparse/bcsstk04.mtx", "suitesparse/bcsstk05.mtx", "suitesparse/bcsstk06.mtx",
          "spd_small.mtx", "spd_fem_2d.mtx", "nonsym_small.mtx", "not_spd.mtx", "zero_diag.mtx",
          "positive_small.mtx"}) {
        SCOPED_TRACE(name);
        const MatrixData d = read_matrix_market(dir + "/" + name);
        const CsrData csr = read_matrix_market_csr(dir + "/" + name);
        expect_csr(csr, d.rows, d.cols, expected_of(d));
        EXPECT_EQ(csr.is_symmetric(MatrixData::rounding_symmetry),
                  d.is_symmetric(MatrixData::rounding_symmetry));
        EXPECT_EQ(csr.is_symmetric(), d.is_symmetric());
        EXPECT_EQ(csr.structural_defect(), d.structural_defect());
        MatrixData sorted = d;
        sorted.sort_and_sum_duplicates();
        const MatrixData back = csr.to_matrix_data();
        EXPECT_EQ(back.row_idx, sorted.row_idx);
        EXPECT_EQ(back.col_idx, sorted.col_idx);
        EXPECT_EQ(back.values, sorted.values);
    }
}

// Values are the correctly rounded doubles of their text (what strtod gives), read in parallel
// blocks: short and long significands, exponents with and without sign, the extremes.
TEST_F(ThreeThreads, ValuesAreReadAsStrtodReadsThem) {
    std::mt19937_64 rng(11);
    auto digits = [&rng](int n) {
        std::string d;
        for (int i = 0; i < n; ++i) d += static_cast<char>('0' + rng() % 10);
        return d;
    };
    std::vector<std::string> tokens = {"0",
                                       "-0",
                                       "0.0",
                                       "-0.0",
                                       "1",
                                       "4.9e-324",
                                       "1e308",
                                       "1.7976931348623157e308",
                                       "9007199254740993",
                                       "9007199254740992",
                                       "1e22",
                                       "1e23",
                                       "1e-22",
                                       "1e-23",
                                       "123456789012345678e-5",
                                       "5E+3",
                                       "2.5e+003",
                                       "1e0001",
                                       "4503599627370497.5",
                                       "9007199254740991e-22",
                                       "9007199254740993e-22",
                                       "9007199254740991e22",
                                       "0.30000000000000004",
                                       "2.2250738585072014e-308",
                                       "-6.000000000000000e+00",
                                       "1.666666666666667e-01"};
    // Short significands (exact in a double) with small exponents, then 15 to 19 significant
    // digits with exponents around the powers of ten a double holds exactly (10^22).
    while (tokens.size() < 100000) {
        std::string t = rng() % 2 ? "-" : "";
        t += digits(1 + static_cast<int>(rng() % 10));
        if (rng() % 3 != 0) t += "." + digits(1 + static_cast<int>(rng() % 12));
        if (rng() % 2) {
            t += rng() % 2 ? "e" : "E";
            const int e = static_cast<int>(rng() % 61) - 30;
            t += (e >= 0 && rng() % 2 ? "+" : "") + std::to_string(e);
        }
        tokens.push_back(t);
    }
    while (tokens.size() < 200000) {
        std::string t = rng() % 2 ? "-" : "";
        const int whole = 1 + static_cast<int>(rng() % 3);
        t += digits(whole) + "." + digits(14 + static_cast<int>(rng() % 5) - whole + 1);
        t += "e" + std::to_string(static_cast<int>(rng() % 81) - 40);
        tokens.push_back(t);
    }
    std::string text = "%%MatrixMarket matrix coordinate real general\n" +
                       std::to_string(tokens.size()) + " 1 " + std::to_string(tokens.size()) + "\n";
    Expected expected;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        text += std::to_string(i + 1) + " 1 " + tokens[i] + "\n";
        expected[{static_cast<std::int64_t>(i), 0}] = std::strtod(tokens[i].c_str(), nullptr);
    }
    const auto n = static_cast<std::int64_t>(tokens.size());
    expect_csr(csr_of_text(text), n, 1, expected);
    std::istringstream in(text);
    expect_csr(CsrData::from(read_matrix_market(in, "input.mtx")), n, 1, expected);
}

TEST(CsrData, SymmetryTestMatchesTheCoordinateOne) {
    // A 3-D-stencil-like symmetric matrix, then one entry changed by more and by less than the
    // rounding tolerance, then a NaN; large enough for the threaded test.
    const Generated g = generate("real", "symmetric", 40000, 120000, false, 7);
    std::istringstream in(g.text);
    MatrixData d = read_matrix_market(in, "input.mtx");
    for (const double change : {0.0, 1e-3, 1e-15, std::nan("")}) {
        MatrixData e = d;
        e.values[100] += change;
        if (e.row_idx[100] == e.col_idx[100]) e.values[101] += change;
        const CsrData csr = CsrData::from(e);
        SCOPED_TRACE(change);
        EXPECT_EQ(csr.is_symmetric(), e.is_symmetric());
        EXPECT_EQ(csr.is_symmetric(MatrixData::rounding_symmetry),
                  e.is_symmetric(MatrixData::rounding_symmetry));
    }
    MatrixData rect;
    rect.rows = 2;
    rect.cols = 3;
    rect.add(0, 2, 1.0);
    EXPECT_FALSE(CsrData::from(rect).is_symmetric());
}

TEST(CsrData, FromRefusesEntriesOutsideTheMatrix) {
    MatrixData d;
    d.rows = 2;
    d.cols = 2;
    d.add(0, 2, 1.0);
    EXPECT_THROW(CsrData::from(d), BadInput);
    d.col_idx[0] = -1;
    EXPECT_THROW(CsrData::from(d), BadInput);
}

// CsrData's row offsets are 64-bit: any number of entries; rows and columns stay below
// 2^31 - 1 (32-bit indices), refused with a message that says so.
TEST(CsrData, FromTakesColumnsUpToTheInt32Range) {
    constexpr std::int64_t max32 = 2147483647;
    MatrixData d;
    d.rows = 3;
    d.cols = max32 - 1;
    d.add(2, max32 - 2, 1.5);
    d.add(0, 1, 2.0);
    const CsrData c = CsrData::from(d);
    EXPECT_EQ(c.row_ptrs, (std::vector<std::int64_t>{0, 1, 1, 2}));
    EXPECT_EQ(c.col_idxs, (std::vector<std::int32_t>{1, static_cast<std::int32_t>(max32 - 2)}));
    for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{3, max32}, {max32, 3}}) {
        d.rows = rows;
        d.cols = cols;
        try {
            (void)CsrData::from(d);
            ADD_FAILURE() << rows << " x " << cols << " accepted";
        } catch (const BadInput& e) {
            EXPECT_NE(std::string(e.what()).find("int32 range of row and column indices"),
                      std::string::npos)
                << e.what();
        }
    }
}

// Expects BadInput "input.mtx:LINE: ...fragment..." from the CSR reader (csr) or the coordinate
// reader of `text`.
void expect_bad(const std::string& text, bool csr, long line, const std::string& fragment) {
    try {
        std::istringstream in(text);
        if (csr)
            (void)read_matrix_market_csr(in, "input.mtx");
        else
            (void)read_matrix_market(in, "input.mtx");
        ADD_FAILURE() << "no exception";
    } catch (const BadInput& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.line(), line) << message;
        EXPECT_NE(message.find(fragment), std::string::npos) << message;
        EXPECT_EQ(message.rfind("input.mtx:" + std::to_string(line) + ": ", 0), 0u) << message;
    }
}

// A malformed line deep in a large file (in a parallel block): the same one-line error, file and
// line as the line-by-line reader gives for it in a small file.
TEST_F(ThreeThreads, ErrorsDeepInALargeFileNameTheirLine) {
    const Generated g = generate("real", "symmetric", 5003, 200000, false, 3);
    // Line numbers: banner, comment, size line, then entry k on line k + 4.
    const std::size_t entry = 123457;
    const long line = static_cast<long>(entry) + 4;
    auto replace_line = [&](const std::string& with) {
        std::size_t start = 0;
        for (long l = 1; l < line; ++l) start = g.text.find('\n', start) + 1;
        const std::size_t end = g.text.find('\n', start);
        return g.text.substr(0, start) + with + g.text.substr(end);
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"5004 1 1.5", "row index 5004 out of range [1, 5003]"},
        {"2 3 1.5", "above the diagonal in a symmetric file"},
        {"3 2 nan", "non-finite value"},
        {"3 2 1e999", "non-finite value"},
        {"3 2", "too few fields"},
        {"3 2 1.0 4", "unexpected text after the entry"},
        {"3 x 1.0", "bad column index 'x'"},
        {"3 2 1.0.0", "bad value '1.0.0'"},
    };
    for (const auto& [bad, fragment] : cases) {
        SCOPED_TRACE(bad);
        const std::string text = replace_line(bad);
        for (const bool csr : {true, false}) expect_bad(text, csr, line, fragment);
    }
}

// 2^31 - 1 entries or more: the coordinate reader refuses them at the size line (int32 entry
// count); the CSR reader (64-bit row offsets) takes the size line and reads on, failing here
// only for the host memory such a matrix needs or the entries the file lacks, never for the
// index range. A column or row count of 2^31 - 1 is refused by both, at the size line.
TEST(CsrReader, TakesMoreThanInt32EntriesButNotColumns) {
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
    for (const std::string entries : {"2147483647", "3000000000"}) {
        SCOPED_TRACE(entries);
        const std::string text = banner + "100000 100000 " + entries + "\n1 1 1.0\n";
        expect_bad(text, false, 2, "portla indexes entries with 32-bit integers");
        try {
            (void)csr_of_text(text);
            ADD_FAILURE() << "no exception";
        } catch (const BadInput& e) {
            const std::string message = e.what();
            EXPECT_EQ(message.find("32-bit"), std::string::npos) << message;
            EXPECT_TRUE(message.find("expected " + entries + " entries, found 1") !=
                            std::string::npos ||
                        message.find("(the size line declares it)") != std::string::npos)
                << message;
        }
    }
    for (const bool csr : {true, false}) {
        expect_bad(banner + "2 2147483647 1\n1 1 1.0\n", csr, 2,
                   "column count 2147483647 is too large: portla indexes rows and columns "
                   "with 32-bit integers");
        expect_bad(banner + "2147483647 2 1\n1 1 1.0\n", csr, 2, "row count 2147483647");
        expect_bad(banner + "2 3000000000 1\n1 1 1.0\n", csr, 2, "column count 3000000000");
    }
}

// The text written to a file of its own, removed when the test ends.
class TempFile {
public:
    TempFile(const std::string& tag, const std::string& text)
        : path_(::testing::TempDir() + "portla_csr_" + tag + "_" + std::to_string(::getpid()) +
                ".mtx") {
        std::ofstream out(path_, std::ios::binary);
        out << text;
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() { std::remove(path_.c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Files are read in parts by the file's own reader (pread) as streams are: every symmetry, with
// and without a newline after the last entry, the entries at a few different offsets of the file
// (the header one byte longer each time).
TEST_F(ThreeThreads, FilesReadInPartsEqualTheirText) {
    unsigned seed = 40;
    for (const std::string symmetry : {"general", "symmetric", "skew-symmetric"})
        for (const bool decorate : {false, true}) {
            SCOPED_TRACE(symmetry + (decorate ? " decorated" : ""));
            Generated g = generate("real", symmetry, 4099, 120000, decorate, seed++);
            for (int pad = 0; pad < 4; ++pad) {
                g.text.insert(g.text.find('\n') + 1, "%\n");
                const TempFile file(symmetry + std::to_string(pad), g.text);
                expect_csr(read_matrix_market_csr(file.path()), g.n, g.n, g.expected);
            }
            g.text.pop_back();  // the last entry without its newline
            const TempFile file(symmetry + "_last", g.text);
            expect_csr(read_matrix_market_csr(file.path()), g.n, g.n, g.expected);
            expect_csr(csr_of_text(g.text), g.n, g.n, g.expected);
        }
}

// The parts' cuts at every byte of a line: a file of short lines (at most 19 bytes) with CRLF
// ends, blank lines, comments, indented and trailing blanks every few lines, and a trailing comment
// one byte longer each time (the cuts are fractions of the length after the header: with three
// parts, 3 x 19 + 3 lengths move the first cut across a whole line, the second across two). Every
// read equals the one-part read of the same text and the matrix the lines store. Three files:
// general in row order (read in one pass, a row shared by two parts), general in random order and
// symmetric (two passes); the last with its trailing comment without a newline.
TEST_F(ThreeThreads, PartCutsAtEveryByteOfALineEqualTheOnePartRead) {
    const std::int64_t n = 999;
    for (const std::string kind : {"sorted", "general", "symmetric"}) {
        SCOPED_TRACE(kind);
        std::mt19937_64 rng(kind.size());
        std::string text = "%%MatrixMarket matrix coordinate real " +
                           std::string(kind == "symmetric" ? "symmetric" : "general") + "\n";
        std::string body;
        Expected expected;
        std::int64_t lines = 0;
        const std::int64_t wanted = 66000;  // about 850 KB: three parts of at least 256 KiB
        for (std::int64_t k = 0; k < wanted; ++k) {
            std::int64_t r =
                kind == "sorted" ? k * n / wanted : static_cast<std::int64_t>(rng() % n);
            std::int64_t c = static_cast<std::int64_t>(rng() % n);
            if (kind == "symmetric" && r < c) std::swap(r, c);
            // Short values, exactly representable (a quarter times an integer).
            const double v = static_cast<double>(static_cast<int>(rng() % 199) - 99) / 4;
            char line[48];
            const char* const lead = k % 23 == 5 ? " \t" : "";
            const char* const tail = k % 19 == 2 ? " " : "";
            const char* const end = k % 5 == 1 ? "\r\n" : "\n";
            std::snprintf(line, sizeof line, "%s%lld %lld %g%s%s", lead,
                          static_cast<long long>(r + 1), static_cast<long long>(c + 1), v, tail,
                          end);
            body += line;
            if (k % 31 == 7) body += k % 2 ? "\n" : "%c\n";
            auto add = [&expected](std::int64_t i, std::int64_t j, double x) {
                auto [at, fresh] = expected.emplace(std::make_pair(i, j), x);
                if (!fresh) at->second += x;
            };
            add(r, c, v);
            if (kind == "symmetric" && r != c) add(c, r, v);
            ++lines;
        }
        text +=
            std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(lines) + "\n" + body;
        ASSERT_GT(body.size(), std::size_t{3} << 18);
        ::setenv("OMP_NUM_THREADS", "1", 1);
        const CsrData one_part = csr_of_text(text);
        ::setenv("OMP_NUM_THREADS", "3", 1);
        expect_csr(one_part, n, n, expected);
        const int longest = 19;  // " \t999 999 -24.75 \r\n"
        for (int pad = 0; pad <= 3 * longest + 3; ++pad) {
            SCOPED_TRACE(pad);
            std::string padded = text + "%" + std::string(static_cast<std::size_t>(pad), 'x');
            if (kind != "symmetric") padded += "\n";
            const CsrData got = pad % 4 == 0 ? csr_of_text(padded) : [&] {
                const TempFile file(kind + std::to_string(pad), padded);
                return read_matrix_market_csr(file.path());
            }();
            ASSERT_EQ(got.row_ptrs, one_part.row_ptrs);
            ASSERT_EQ(got.col_idxs, one_part.col_idxs);
            ASSERT_EQ(got.values, one_part.values);
        }
    }
}

// A general file whose rows never decrease (read in one pass) gives the same matrix: duplicates
// summed in file order, columns in any order within a row, rows shared by two parts, every cut
// moved a byte at a time; one row out of order near the end, or a part's first row below the
// one before it, sends it to the two passes, with the same result.
TEST_F(ThreeThreads, SortedGeneralFilesEqualTheirText) {
    std::mt19937_64 rng(23);
    const std::int64_t n = 3001;
    std::ostringstream body;
    body.precision(17);
    Expected expected;
    std::size_t lines = 0;
    std::vector<std::string> entries;
    for (std::int64_t r = 0; r < n; ++r) {
        const int length = static_cast<int>(rng() % 80);  // some rows empty, some long
        for (int k = 0; k < length; ++k) {
            const std::int64_t c = k % 9 == 4 ? r : static_cast<std::int64_t>(rng() % n);
            const double v = std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
            std::ostringstream line;
            line.precision(17);
            line << r + 1 << " " << c + 1 << " " << v << (k % 13 == 7 ? "\r\n" : "\n");
            entries.push_back(line.str());
            auto [at, fresh] = expected.emplace(std::make_pair(r, c), v);
            if (!fresh) at->second += v;
            ++lines;
        }
        if (r == n / 3) entries.push_back("% a comment between rows\n\n");
    }
    std::string text;
    for (const std::string& e : entries) text += e;
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
    const std::string sizes = std::to_string(n) + " " + std::to_string(n) + " ";
    for (int pad = 0; pad < 3; ++pad) {
        const std::string whole =
            banner + std::string(pad, '%') + "\n" + sizes + std::to_string(lines) + "\n" + text;
        SCOPED_TRACE(pad);
        ASSERT_GT(whole.size(), std::size_t{3} << 18);  // three parts
        expect_csr(csr_of_text(whole), n, n, expected);
        const TempFile file("sorted" + std::to_string(pad), whole);
        expect_csr(read_matrix_market_csr(file.path()), n, n, expected);
    }
    // Row 2's entry after the last row's: out of order at the end.
    const std::string late = "2 1 0.5\n";
    auto [at, fresh] = expected.emplace(std::make_pair(std::int64_t{1}, std::int64_t{0}), 0.5);
    if (!fresh) at->second += 0.5;
    expect_csr(csr_of_text(banner + sizes + std::to_string(lines + 1) + "\n" + text + late), n, n,
               expected);
    // Each part sorted, the whole not: three blocks of lines of one width (so that the three
    // parts are the blocks), the last rows' block first.
    std::string blocks[3];
    Expected by_blocks;
    const char* values[] = {"0.25", "1.50", "2.75", "-1.0"};
    for (int b = 0; b < 3; ++b)
        for (int r = 1000 * b; r < 1000 * (b + 1); ++r)
            for (int k = 0; k < 16; ++k) {
                const int c = (k * 187 + r) % 3000;
                char line[32];
                std::snprintf(line, sizeof line, "%05d %05d %s\n", r + 1, c + 1, values[k % 4]);
                blocks[b] += line;
                auto [it, added] =
                    by_blocks.emplace(std::make_pair(std::int64_t{r}, std::int64_t{c}), 0.0);
                it->second += std::strtod(values[k % 4], nullptr);
                (void)added;
            }
    const std::string rotated = "%%MatrixMarket matrix coordinate real general\n3000 3000 48000\n" +
                                blocks[2] + blocks[0] + blocks[1];
    expect_csr(csr_of_text(rotated), 3000, 3000, by_blocks);
}

// What the parts do not take (a comment longer than they read at once, an index with leading
// zeros past 18 digits, a value with a '+' or in hexadecimal) is read line by line, to the same
// matrix, from a file or a stream; a line over 1 MiB is refused with its number.
TEST_F(ThreeThreads, LinesThePartsLeaveAreReadLineByLine) {
    Generated g = generate("real", "general", 5003, 150000, false, 7);
    const std::string size_line = "5003 5003 150000\n";
    g.text.replace(g.text.find(size_line), size_line.size(), "5003 5003 150003\n");
    const std::size_t middle = g.text.find('\n', g.text.size() / 2) + 1;
    g.text.insert(middle, "% " + std::string(200000, 'c') + "\n");
    g.text += "0000000000000000000001 1 +0.5\n2 1 0x1p-2\n  3\t2   -2.5e-1 \r\n";
    auto add = [&g](std::int64_t r, std::int64_t c, double v) {
        auto [at, fresh] = g.expected.emplace(std::make_pair(r, c), v);
        if (!fresh) at->second += v;
    };
    add(0, 0, 0.5);
    add(1, 0, 0.25);
    add(2, 1, -0.25);
    expect_csr(csr_of_text(g.text), g.n, g.n, g.expected);
    const TempFile file("leftover", g.text);
    expect_csr(read_matrix_market_csr(file.path()), g.n, g.n, g.expected);
    // The longest line taken is 1 MiB (without its newline); one byte more is refused.
    const std::size_t longest = std::size_t{1} << 20;
    std::string at_bound = g.text;
    at_bound.insert(middle, "%" + std::string(longest - 1, 'x') + "\n");
    expect_csr(csr_of_text(at_bound), g.n, g.n, g.expected);
    std::string past = g.text;
    past.insert(middle, "%" + std::string(longest, 'x') + "\n");
    long line = 1;
    for (std::size_t k = 0; k < middle; ++k) line += g.text[k] == '\n';
    expect_bad(past, true, line, "line too long");
}

TEST_F(ThreeThreads, TooManyOrTooFewEntriesInALargeFile) {
    const Generated g = generate("real", "general", 5003, 200000, false, 4);
    // Declared one fewer: the last line is one too many (line 200000 + 3).
    std::string fewer = g.text;
    fewer.replace(fewer.find("5003 5003 200000"), 16, "5003 5003 199999");
    expect_bad(fewer, true, 200003, "more entries than the 199999 declared");
    std::string more = g.text;
    more.replace(more.find("5003 5003 200000"), 16, "5003 5003 200001");
    expect_bad(more, true, 200004, "expected 200001 entries, found 200000");
}

}  // namespace
