// Host-side batch data: the directory reader (on the small systems under tests/data/batch),
// BatchData::validate, the 3-point stencil generator (statistics, determinism) and replicate.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "portla/batch/distributed.hpp"
#include "portla/batch/matrix.hpp"
#include "portla/error.hpp"

namespace {

using portla::BadInput;
using portla::batch::BatchData;

std::string batch_dir(const std::string& name) {
    return std::string(PORTLA_TEST_DATA_DIR) + "/batch/" + name;
}

// Runs `f`, expects BadInput, and returns its message.
template <typename F>
std::string bad_input_message(F&& f) {
    try {
        f();
    } catch (const BadInput& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected BadInput, got: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected BadInput, nothing was thrown";
    return {};
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Value of entry (i, j) of system s (0-based), NaN when (i, j) is not in the pattern.
double entry(const BatchData& d, std::size_t s, std::size_t i, std::int32_t j) {
    for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
        if (d.col_idxs[k] == j) return d.values[s * d.nnz() + k];
    return std::numeric_limits<double>::quiet_NaN();
}

TEST(BatchFormat, NamesRoundTrip) {
    using portla::Format;
    for (Format f : {Format::dense, Format::csr, Format::ell})
        EXPECT_EQ(portla::parse_format(portla::to_string(f)), f);
    EXPECT_EQ(portla::to_string(Format::ell), "ell");
    EXPECT_TRUE(contains(bad_input_message([] { portla::parse_format("coo"); }), "coo"));
}

TEST(BatchReadDirectory, ReadsNumberedSystemsInNumericOrder) {
    const BatchData d = portla::batch::read_directory(batch_dir("good"));
    ASSERT_EQ(d.num_systems, 4u);  // 0, 1, 2, 10; "notes" is skipped
    EXPECT_EQ(d.n, 4u);
    EXPECT_EQ(d.nnz(), 10u);
    EXPECT_EQ(d.row_ptrs, (std::vector<std::int32_t>{0, 2, 5, 8, 10}));
    EXPECT_EQ(d.col_idxs, (std::vector<std::int32_t>{0, 1, 0, 1, 2, 1, 2, 3, 0, 3}));
    ASSERT_EQ(d.names.size(), 4u);
    const char* last[] = {"/0", "/1", "/2", "/10"};
    for (std::size_t s = 0; s < 4; ++s)
        EXPECT_EQ(d.names[s].substr(d.names[s].size() - std::string(last[s]).size()), last[s])
            << d.names[s];
    // System 1 lists its entries shuffled in the file: sorted into the shared pattern.
    EXPECT_EQ(entry(d, 1, 0, 0), 5.181);
    EXPECT_EQ(entry(d, 1, 0, 1), -0.207);
    EXPECT_EQ(entry(d, 1, 2, 3), -0.764);
    EXPECT_EQ(entry(d, 1, 3, 0), -0.383);
    // System 2 has a coordinate right-hand side with an implicit zero.
    ASSERT_EQ(d.rhs.size(), 16u);
    EXPECT_EQ(std::vector<double>(d.rhs.begin() + 8, d.rhs.begin() + 12),
              (std::vector<double>{1.168, 0.0, 1.073, 1.375}));
    EXPECT_NO_THROW(d.validate("read"));
}

TEST(BatchReadDirectory, PatternThatDiffersNamesTheFile) {
    const std::string msg =
        bad_input_message([] { portla::batch::read_directory(batch_dir("pattern_differs")); });
    EXPECT_TRUE(contains(msg, "pattern_differs/1/A.mtx: sparsity pattern differs from system 0 ("))
        << msg;
    EXPECT_TRUE(contains(msg, "(1, 3)")) << msg;
    const std::string nnz =
        bad_input_message([] { portla::batch::read_directory(batch_dir("nnz_differs")); });
    EXPECT_TRUE(
        contains(nnz, "nnz_differs/1/A.mtx: sparsity pattern differs from system 0 (9 entries"))
        << nnz;
}

TEST(BatchReadDirectory, SizeThatDiffersNamesTheFile) {
    const std::string msg =
        bad_input_message([] { portla::batch::read_directory(batch_dir("size_differs")); });
    EXPECT_TRUE(contains(msg, "size_differs/1/A.mtx: size 3 x 3 differs from system 0 (4 x 4)"))
        << msg;
}

TEST(BatchReadDirectory, MalformedFileNamesFileAndLine) {
    const std::string msg =
        bad_input_message([] { portla::batch::read_directory(batch_dir("malformed")); });
    EXPECT_TRUE(contains(msg, "malformed/1/A.mtx:5")) << msg;
}

TEST(BatchReadDirectory, BadRightHandSides) {
    std::string msg =
        bad_input_message([] { portla::batch::read_directory(batch_dir("bad_rhs")); });
    EXPECT_TRUE(contains(msg, "bad_rhs/0/b.mtx: right-hand side is 3 x 1, expected 4 x 1")) << msg;
    msg = bad_input_message([] { portla::batch::read_directory(batch_dir("rhs_matrix")); });
    EXPECT_TRUE(contains(msg, "rhs_matrix/0/b.mtx: right-hand side is 4 x 2")) << msg;
    msg = bad_input_message([] { portla::batch::read_directory(batch_dir("missing_rhs")); });
    EXPECT_TRUE(contains(msg, "missing_rhs/0/b.mtx")) << msg;
}

TEST(BatchReadDirectory, RefusesWhatIsNotABatch) {
    std::string msg =
        bad_input_message([] { portla::batch::read_directory(batch_dir("not_square")); });
    EXPECT_TRUE(contains(msg, "not_square/0/A.mtx: matrix is 4 x 3, expected square")) << msg;
    msg = bad_input_message([] { portla::batch::read_directory(batch_dir("no_systems")); });
    EXPECT_TRUE(contains(msg, "no numbered system directories")) << msg;
    msg = bad_input_message([] { portla::batch::read_directory(batch_dir("does_not_exist")); });
    EXPECT_TRUE(contains(msg, "does_not_exist: no such directory")) << msg;
    msg = bad_input_message([] { portla::batch::read_directory(batch_dir("good/0/A.mtx")); });
    EXPECT_TRUE(contains(msg, "not a directory")) << msg;
}

// A numbered entry that cannot be read is an error naming it, never skipped: a
// symbolic link loop, a system directory without A.mtx, a numbered entry that is a file. Each
// case is a copy of the good batch with one entry spoiled, built in a temporary directory.
TEST(BatchReadDirectory, UnreadableSystemIsAnErrorNamingIt) {
    namespace fs = std::filesystem;
    const fs::path root = fs::path(::testing::TempDir()) / "portla_test_batch_unreadable";
    struct Case {
        const char* name;
        void (*spoil)(const fs::path& dir);
        const char* fragment;
    };
    const Case cases[] = {
        {"symlink_loop",
         [](const fs::path& dir) {
             fs::create_symlink(dir / "3", dir / "3");  // "3" -> itself: ELOOP when followed
         },
         "/3: cannot read system directory"},
        {"missing_a", [](const fs::path& dir) { fs::remove(dir / "1" / "A.mtx"); },
         "/1/A.mtx: cannot open file"},
        {"numbered_file", [](const fs::path& dir) { std::ofstream(dir / "4") << "not a system\n"; },
         "/4: numbered entry is not a directory"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const fs::path dir = root / c.name;
        fs::remove_all(dir);
        fs::create_directories(dir);
        fs::copy(batch_dir("good"), dir, fs::copy_options::recursive);
        ASSERT_NO_THROW(portla::batch::read_directory(dir.string()));
        c.spoil(dir);
        const std::string msg =
            bad_input_message([&] { portla::batch::read_directory(dir.string()); });
        EXPECT_TRUE(contains(msg, dir.string() + c.fragment)) << msg;
    }
    fs::remove_all(root);
}

TEST(BatchReadDirectory, KeepsNonFiniteValuesForTheSolverToFlag) {
    const BatchData d = portla::batch::read_directory(batch_dir("nan_singular"));
    ASSERT_EQ(d.num_systems, 4u);
    EXPECT_TRUE(std::isnan(entry(d, 1, 1, 2)));
    EXPECT_EQ(entry(d, 2, 2, 2), 0.0);  // explicit zeros stay in the pattern
}

TEST(BatchDataValidate, RejectsInconsistentArrays) {
    const BatchData good = portla::batch::read_directory(batch_dir("good"));
    auto broken = [&](auto&& change) {
        BatchData d = good;
        change(d);
        return bad_input_message([&] { d.validate("here"); });
    };
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.row_ptrs.pop_back(); }), "here: row_ptrs"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.row_ptrs[0] = 1; }), "row_ptrs[0]"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.row_ptrs[2] = 1; }), "not monotone"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.row_ptrs[4] = 9; }), "row_ptrs[n]"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { std::swap(d.col_idxs[0], d.col_idxs[1]); }),
                         "ascending"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.col_idxs[1] = 0; }), "ascending"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.col_idxs[9] = 4; }), "outside [0, 4)"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.col_idxs[8] = -1; }), "outside"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.values.pop_back(); }), "values"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.rhs.push_back(1); }), "rhs"));
    EXPECT_TRUE(contains(broken([](BatchData& d) { d.names.pop_back(); }), "names"));
    BatchData no_rhs = good;
    no_rhs.rhs.clear();
    no_rhs.names.clear();
    EXPECT_NO_THROW(no_rhs.validate("optional rhs and names"));
}

TEST(BatchStencil3pt, PatternValuesAndRightHandSides) {
    for (std::size_t n : {1u, 2u, 7u, 64u}) {
        const BatchData d = portla::batch::generate_stencil3pt(n, 50);
        ASSERT_NO_THROW(d.validate("stencil"));
        ASSERT_EQ(d.num_systems, 50u);
        ASSERT_EQ(d.nnz(), 3 * n - 2);
        for (std::size_t s = 0; s < 50; ++s) {
            const double b0 = d.rhs[s * n];
            EXPECT_GE(b0, 0.5);
            EXPECT_LT(b0, 1.5);
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(d.rhs[s * n + i], b0);
                const double diag = entry(d, s, i, std::int32_t(i));
                EXPECT_GE(diag, 2.0);   // h <= 1
                EXPECT_LE(diag, 40.0);  // h >= 0.05: SPD by diagonal dominance
                if (i > 0) {
                    EXPECT_EQ(entry(d, s, i, std::int32_t(i - 1)), -1.0);
                }
                if (i + 1 < n) {
                    EXPECT_EQ(entry(d, s, i, std::int32_t(i + 1)), -1.0);
                }
            }
        }
    }
}

TEST(BatchStencil3pt, SpacingsFollowTheNormalDistribution) {
    // 2^17 samples of h = 2 / diagonal: the sample mean has standard error 0.1 / 362 = 2.8e-4 and
    // the sample deviation about 2e-4; clamping at 0.05 and 1 (4.5 and 5 deviations) changes
    // neither by more than 1e-5. 5 standard errors: a false failure has odds below 1e-6.
    const std::size_t n = 128, systems = 1024;
    const BatchData d = portla::batch::generate_stencil3pt(n, systems);
    double sum = 0, sum2 = 0;
    std::size_t within_one = 0, count = 0;
    for (std::size_t s = 0; s < systems; ++s)
        for (std::size_t i = 0; i < n; ++i) {
            const double h = 2.0 / entry(d, s, i, std::int32_t(i));
            sum += h;
            sum2 += h * h;
            within_one += std::abs(h - 0.5) <= 0.1;
            ++count;
        }
    const double mean = sum / count, deviation = std::sqrt(sum2 / count - mean * mean);
    EXPECT_NEAR(mean, 0.5, 5 * 2.8e-4);
    EXPECT_NEAR(deviation, 0.1, 5 * 2e-4);
    // P(|Z| <= 1) = 0.6827; its standard error at 2^17 samples is 1.3e-3.
    EXPECT_NEAR(double(within_one) / count, 0.6827, 5 * 1.3e-3);
    // Right-hand sides uniform on [0.5, 1.5): mean 1, standard error 0.289 / 32 = 9e-3.
    double bsum = 0;
    for (std::size_t s = 0; s < systems; ++s) bsum += d.rhs[s * n];
    EXPECT_NEAR(bsum / systems, 1.0, 5 * 9e-3);
}

TEST(BatchStencil3pt, DeterministicAndIndependentOfBatchSize) {
    const BatchData a = portla::batch::generate_stencil3pt(33, 20);
    const BatchData b = portla::batch::generate_stencil3pt(33, 20);
    EXPECT_EQ(a.values, b.values);
    EXPECT_EQ(a.rhs, b.rhs);
    const BatchData prefix = portla::batch::generate_stencil3pt(33, 7);
    EXPECT_EQ(prefix.values, std::vector<double>(a.values.begin(), a.values.begin() + 7 * a.nnz()));
    EXPECT_EQ(prefix.rhs, std::vector<double>(a.rhs.begin(), a.rhs.begin() + 7 * 33));
    const BatchData other = portla::batch::generate_stencil3pt(33, 20, 7);
    EXPECT_NE(other.values, a.values);
    // Systems differ from each other.
    EXPECT_NE(std::vector<double>(a.values.begin(), a.values.begin() + a.nnz()),
              std::vector<double>(a.values.begin() + a.nnz(), a.values.begin() + 2 * a.nnz()));
    EXPECT_TRUE(contains(bad_input_message([] { portla::batch::generate_stencil3pt(0, 3); }),
                         "n must be >= 1"));
    EXPECT_EQ(portla::batch::generate_stencil3pt(5, 0).values.size(), 0u);
}

TEST(BatchReplicate, RepeatsInOrderOrTakesTheFirst) {
    const BatchData d = portla::batch::read_directory(batch_dir("good"));
    const BatchData r = portla::batch::replicate(d, 10);
    ASSERT_EQ(r.num_systems, 10u);
    EXPECT_EQ(r.row_ptrs, d.row_ptrs);
    EXPECT_EQ(r.col_idxs, d.col_idxs);
    ASSERT_NO_THROW(r.validate("replicated"));
    for (std::size_t s = 0; s < 10; ++s) {
        for (std::size_t k = 0; k < d.nnz(); ++k)
            EXPECT_EQ(r.values[s * d.nnz() + k], d.values[(s % 4) * d.nnz() + k]);
        for (std::size_t i = 0; i < d.n; ++i)
            EXPECT_EQ(r.rhs[s * d.n + i], d.rhs[(s % 4) * d.n + i]);
        EXPECT_EQ(r.names[s], d.names[s % 4]);
    }
    const BatchData first = portla::batch::replicate(d, 2);
    ASSERT_EQ(first.num_systems, 2u);
    EXPECT_EQ(first.values, std::vector<double>(d.values.begin(), d.values.begin() + 2 * d.nnz()));
    BatchData empty = d;
    empty.num_systems = 0;
    empty.values.clear();
    empty.rhs.clear();
    empty.names.clear();
    EXPECT_TRUE(
        contains(bad_input_message([&] { portla::batch::replicate(empty, 3); }), "no systems"));
}

// What one of several ranks loads: a block of the systems, equal to the same block
// of the whole batch.
TEST(BatchRanges, ReadGenerateAndReplicateABlockOfSystems) {
    const BatchData all = portla::batch::read_directory(batch_dir("good"));
    EXPECT_EQ(portla::batch::list_directory(batch_dir("good")).size(), 4u);
    for (std::size_t first = 0; first <= 4; ++first)
        for (std::size_t count = 0; first + count <= 4; ++count) {
            const BatchData part = portla::batch::read_directory(batch_dir("good"), first, count);
            ASSERT_EQ(part.num_systems, count);
            EXPECT_EQ(part.row_ptrs, all.row_ptrs);
            EXPECT_EQ(part.col_idxs, all.col_idxs);
            const auto nnz = static_cast<std::ptrdiff_t>(all.nnz());
            const auto n = static_cast<std::ptrdiff_t>(all.n);
            const auto f = static_cast<std::ptrdiff_t>(first),
                       c = static_cast<std::ptrdiff_t>(count);
            EXPECT_EQ(part.values, std::vector<double>(all.values.begin() + f * nnz,
                                                       all.values.begin() + (f + c) * nnz));
            EXPECT_EQ(part.rhs,
                      std::vector<double>(all.rhs.begin() + f * n, all.rhs.begin() + (f + c) * n));
        }
    EXPECT_TRUE(
        contains(bad_input_message([] { portla::batch::read_directory(batch_dir("good"), 3, 2); }),
                 "the directory has 4"));
    // System 1 is malformed: a block without it reads, one with it names the file.
    EXPECT_NO_THROW(portla::batch::read_directory(batch_dir("malformed"), 0, 1));
    EXPECT_TRUE(contains(
        bad_input_message([] { portla::batch::read_directory(batch_dir("malformed"), 1, 1); }),
        "malformed/1/A.mtx:5"));
    // A block after system 0 is still checked against system 0's pattern.
    EXPECT_TRUE(contains(bad_input_message([] {
                             portla::batch::read_directory(batch_dir("pattern_differs"), 1, 1);
                         }),
                         "sparsity pattern differs from system 0"));

    for (const std::size_t n : {1, 4, 33}) {
        const BatchData whole = portla::batch::generate_stencil3pt(n, 9);
        const BatchData block =
            portla::batch::generate_stencil3pt(n, 4, portla::batch::stencil3pt_seed, 5);
        EXPECT_EQ(block.values,
                  std::vector<double>(whole.values.begin() + 5 * whole.nnz(), whole.values.end()));
        EXPECT_EQ(block.rhs, std::vector<double>(whole.rhs.begin() + 5 * n, whole.rhs.end()));
    }

    const BatchData r = portla::batch::replicate(all, 6, 3);  // systems 3, 0, 1, 2, 3, 0
    ASSERT_EQ(r.num_systems, 6u);
    for (std::size_t s = 0; s < 6; ++s)
        EXPECT_EQ(r.rhs[s * all.n], all.rhs[((3 + s) % 4) * all.n]) << "system " << s;
}

TEST(BatchRanges, SplitSystemsIsContiguousAndBalanced) {
    using portla::batch::split_systems;
    EXPECT_EQ(split_systems(10, 3), (std::vector<std::size_t>{0, 4, 7, 10}));
    EXPECT_EQ(split_systems(3, 5), (std::vector<std::size_t>{0, 1, 2, 3, 3, 3}));
    EXPECT_EQ(split_systems(8, 1), (std::vector<std::size_t>{0, 8}));
    EXPECT_TRUE(contains(bad_input_message([] { split_systems(4, 0); }), "parts"));
}

}  // namespace
