// Tests of `portla batch`: the real binary (PORTLA_BINARY) on the small directories under
// tests/data/batch and on generated stencil3pt batches. Exit 0 when every system converged,
// 2 when some did not (result still printed), 1 on any error with exactly one line on stderr.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_checks.hpp"
#include "cli/run_cli.hpp"
#include "portla/portla.hpp"

namespace {

using nlohmann::json;
using portla::test::expect_cli_error;
using portla::test::parse_json;
using portla::test::run_portla;
using portla::test::RunResult;

std::string batch_dir(const std::string& name) {
    return std::string(PORTLA_TEST_DATA_DIR) + "/batch/" + name;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

void expect_error(const std::vector<std::string>& args, const std::string& what) {
    expect_cli_error("batch", args, what);
}

/// `portla batch ARGS --json`, expecting exit `expected_exit` and a clean stderr.
json batch_json(std::vector<std::string> args, int expected_exit = 0) {
    return portla::test::run_json("batch", std::move(args), expected_exit);
}

std::vector<std::string> cpu_backends() {
    std::vector<std::string> b{"reference"};
    if (portla::omp_compiled()) b.push_back("omp");
    return b;
}

/// Every summary key, the per-system arrays, and that the summary agrees with the arrays.
void check_batch_json(const json& j, std::size_t systems, double rtol) {
    for (const char* key : {"solver",
                            "precond",
                            "format",
                            "backend",
                            "device",
                            "precision",
                            "source",
                            "num_systems",
                            "unique_systems",
                            "n",
                            "nnz_per_system",
                            "tolerance_type",
                            "tolerance",
                            "max_iters",
                            "num_converged",
                            "iterations_min",
                            "iterations_mean",
                            "iterations_max",
                            "max_relative_residual",
                            "time_s",
                            "systems_per_second",
                            "launch",
                            "iterations",
                            "residual_norm",
                            "rhs_norm",
                            "converged",
                            "reason"})
        ASSERT_TRUE(j.contains(key)) << "missing key '" << key << "' in\n" << j.dump(2);
    for (const char* key : {"block_size", "grid_size", "vectors_total", "vectors_in_shared",
                            "vectors_in_registers", "matrix_in_shared", "shared_bytes"})
        EXPECT_TRUE(j["launch"].contains(key)) << key;
    ASSERT_EQ(j["num_systems"].get<std::size_t>(), systems);
    for (const char* key : {"iterations", "residual_norm", "rhs_norm", "converged", "reason"}) {
        ASSERT_TRUE(j[key].is_array()) << key;
        ASSERT_EQ(j[key].size(), systems) << key;
    }
    std::size_t converged = 0;
    int it_min = 1 << 30, it_max = -1;
    double it_sum = 0, worst = 0;
    for (std::size_t s = 0; s < systems; ++s) {
        const bool c = j["converged"][s].get<bool>();
        converged += c;
        EXPECT_EQ(j["reason"][s].get<std::string>() == "converged", c) << "system " << s;
        const int it = j["iterations"][s].get<int>();
        it_min = std::min(it_min, it);
        it_max = std::max(it_max, it);
        it_sum += it;
        const double rel = j["residual_norm"][s].get<double>() / j["rhs_norm"][s].get<double>();
        worst = std::max(worst, rel);
        if (c) {
            EXPECT_LE(rel, rtol) << "system " << s;
        }
    }
    EXPECT_EQ(j["num_converged"].get<std::size_t>(), converged);
    EXPECT_EQ(j["iterations_min"].get<int>(), it_min);
    EXPECT_EQ(j["iterations_max"].get<int>(), it_max);
    EXPECT_NEAR(j["iterations_mean"].get<double>(), it_sum / double(systems), 1e-9 * it_sum);
    EXPECT_NEAR(j["max_relative_residual"].get<double>(), worst, 1e-12 * worst + 1e-300);
    EXPECT_GE(j["time_s"].get<double>(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Good runs
// ---------------------------------------------------------------------------------------------

TEST(CliBatch, GeneratedStencilConverges) {
    for (const auto& backend : cpu_backends())
        for (const char* solver : {"cg", "bicgstab", "gmres"}) {
            SCOPED_TRACE(backend + " " + solver);
            const json j = batch_json({"--generate", "stencil3pt:40", "--batch-size", "300",
                                       "--solver", solver, "--backend", backend});
            check_batch_json(j, 300, 1e-6);
            EXPECT_EQ(j["num_converged"], 300);
            EXPECT_EQ(j["n"], 40);
            EXPECT_EQ(j["nnz_per_system"], 118);
            EXPECT_EQ(j["max_iters"], 80);  // default 2n
            EXPECT_EQ(j["tolerance_type"], "relative");
            EXPECT_EQ(j["tolerance"], 1e-6);
            EXPECT_GE(j["iterations_min"].get<int>(), 1);
        }
}

TEST(CliBatch, TextSummary) {
    const RunResult r = run_portla({"batch", "--generate", "stencil3pt:16", "--batch-size", "64",
                                    "--backend", "reference", "--precond", "jacobi"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    for (const char* part : {"systems     64", "converged   64 of 64", "iterations  min", "mean",
                             "max", "worst relative", "true residual", "systems per second"})
        EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r;
}

TEST(CliBatch, DirectoryWithReplicationFormatsAndPreconditioners) {
    for (const char* format : {"dense", "csr", "ell"})
        for (const char* precond : {"none", "jacobi", "block-jacobi"}) {
            SCOPED_TRACE(std::string(format) + " " + precond);
            const json j = batch_json({batch_dir("good"), "--replicate-to", "10", "--format",
                                       format, "--precond", precond, "--backend", "reference"});
            check_batch_json(j, 10, 1e-6);
            EXPECT_EQ(j["unique_systems"], 4);
            EXPECT_EQ(j["num_converged"], 10);
        }
    const json ilu = batch_json(
        {batch_dir("good"), "--precond", "ilu0", "--rtol", "1e-10", "--backend", "reference"});
    check_batch_json(ilu, 4, 1e-10);
}

TEST(CliBatch, ReplicateToFewerTakesTheFirstSystems) {
    const json j = batch_json(
        {batch_dir("good"), "--replicate-to", "3", "--solver", "direct", "--backend", "reference"});
    check_batch_json(j, 3, 1e-12);
    EXPECT_EQ(j["unique_systems"], 4);
}

TEST(CliBatch, AbsoluteToleranceFloatAndIterationLimit) {
    const json a = batch_json({"--generate", "stencil3pt:32", "--batch-size", "20", "--rtol", "0",
                               "--atol", "1e-9", "--backend", "reference"});
    EXPECT_EQ(a["tolerance_type"], "absolute");
    for (const auto& r : a["residual_norm"]) EXPECT_LE(r.get<double>(), 1e-9);
    const json f = batch_json({"--generate", "stencil3pt:32", "--batch-size", "20", "--precision",
                               "float", "--rtol", "1e-4", "--backend", "reference"});
    check_batch_json(f, 20, 1e-4);
    EXPECT_EQ(f["precision"], "float");
    // One iteration cannot reach 1e-12: exit 2, every system reported as max_iterations.
    const json m = batch_json({"--generate", "stencil3pt:32", "--batch-size", "20", "--max-iters",
                               "1", "--rtol", "1e-12", "--backend", "reference"},
                              2);
    EXPECT_EQ(m["num_converged"], 0);
    for (const auto& r : m["reason"]) EXPECT_EQ(r, "max_iterations");
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// rtol and atol mean what they mean in portla solve: system s has converged when
// ||r_s|| <= max(rtol ||b_s||, atol), so an atol above rtol ||b_s|| stops some systems earlier.
TEST(CliBatch, ToleranceIsTheMaximumOfRtolAndAtolPerSystem) {
    const std::vector<std::string> gen{"--generate", "stencil3pt:64", "--batch-size",
                                       "16",         "--backend",     "reference"};
    auto with = [&](const std::vector<std::string>& extra) { return concat(gen, extra); };
    const json rel = batch_json(with({"--rtol", "1e-10"}));
    const json both = batch_json(with({"--rtol", "1e-10", "--atol", "1e-3"}));
    EXPECT_EQ(both["tolerance_type"], "max(relative, absolute)");
    EXPECT_EQ(both["num_converged"], 16);
    EXPECT_LT(both["iterations_mean"].get<double>(), rel["iterations_mean"].get<double>());
    for (std::size_t s = 0; s < 16; ++s) {
        const double r = both["residual_norm"][s], b = both["rhs_norm"][s];
        EXPECT_LE(r, std::max(1e-10 * b, 1e-3) * (1 + 1e-12)) << "system " << s;
        EXPECT_GT(b, 1e-3) << "the test needs ||b_s|| above atol";  // norms scaled back
        EXPECT_NEAR(b, rel["rhs_norm"][s].get<double>(), 1e-12 * b);
    }
    // atol 0 (the default) is the relative test alone.
    const json zero = batch_json(with({"--rtol", "1e-10", "--atol", "0"}));
    EXPECT_EQ(zero["iterations"], rel["iterations"]);
}

TEST(CliBatch, DirectSolveOnTheCpu) {
    for (const auto& backend : cpu_backends()) {
        const json j = batch_json({batch_dir("good"), "--solver", "direct", "--backend", backend});
        check_batch_json(j, 4, 1e-13);
        EXPECT_EQ(j["format"], "dense");  // implied
        for (const auto& it : j["iterations"]) EXPECT_EQ(it, 1);
    }
}

TEST(CliBatch, FailedSystemsAreReportedNeverHidden) {
    const json j =
        batch_json({batch_dir("nan_singular"), "--solver", "direct", "--backend", "reference"}, 2);
    ASSERT_EQ(j["reason"].size(), 4u);
    EXPECT_EQ(j["reason"][0], "converged");
    EXPECT_EQ(j["reason"][1], "non_finite");
    EXPECT_EQ(j["reason"][2], "breakdown");
    EXPECT_EQ(j["reason"][3], "converged");
    EXPECT_EQ(j["num_converged"], 2);
    const RunResult r = run_portla(
        {"batch", batch_dir("nan_singular"), "--solver", "direct", "--backend", "reference"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.out, "system 1 (non_finite), system 2 (breakdown) (2 in all)")) << r;
    // The iterative solvers flag the NaN system and solve the others.
    const json it = batch_json(
        {batch_dir("nan_singular"), "--solver", "bicgstab", "--backend", "reference"}, 2);
    EXPECT_EQ(it["reason"][0], "converged");
    EXPECT_EQ(it["reason"][1], "non_finite");
    EXPECT_NE(it["reason"][2], "converged");
    EXPECT_EQ(it["reason"][3], "converged");
}

// Systems whose squared norms underflow (a diagonal of 4.9e-324) are reported failed
// (bad_scale), never "converged in 0 iterations" with x = 0; the batch is no error.
TEST(CliBatch, SystemsOutsideThePrecisionsRangeAreFailed) {
    for (const char* solver : {"cg", "bicgstab", "gmres"}) {
        SCOPED_TRACE(solver);
        const json j =
            batch_json({batch_dir("denormal"), "--solver", solver, "--backend", "omp"}, 2);
        EXPECT_EQ(j["num_converged"], 0);
        EXPECT_EQ(j["reason"], json::array({"bad_scale", "bad_scale"}));
        const RunResult r =
            run_portla({"batch", batch_dir("denormal"), "--solver", solver, "--backend", "omp"});
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.out, "system 0 (bad_scale), system 1 (bad_scale) (2 in all)")) << r;
        EXPECT_TRUE(contains(r.out, "scale A_s and b_s by a power of 2")) << r;
    }
}

// With --precision float, a value above single precision's range fails its system alone
// (bad_scale); in double the same batch converges.
TEST(CliBatch, AValueAboveSinglePrecisionFailsItsSystemAlone) {
    const json f =
        batch_json({batch_dir("float_overflow"), "--precision", "float", "--backend", "omp"}, 2);
    EXPECT_EQ(f["reason"], json::array({"converged", "bad_scale"}));
    EXPECT_EQ(f["failed"], json::array({1}));
    const RunResult r = run_portla(
        {"batch", batch_dir("float_overflow"), "--precision", "float", "--backend", "omp"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.out, "failed      system 1 (bad_scale) (1 in all)")) << r;
    EXPECT_TRUE(contains(r.out, "or use --precision double")) << r;
    const json d = batch_json({batch_dir("float_overflow"), "--backend", "omp"});
    EXPECT_EQ(d["num_converged"], 2);
}

// A NaN in one system's right-hand side fails that system alone, by index and reason, in the
// text and the JSON; the others are solved.
TEST(CliBatch, ANanRightHandSideFailsItsSystemAlone) {
    for (const auto& backend : cpu_backends())
        for (const char* solver : {"bicgstab", "gmres", "direct"}) {
            SCOPED_TRACE(backend + " " + solver);
            const json j =
                batch_json({batch_dir("nan_rhs"), "--solver", solver, "--backend", backend}, 2);
            EXPECT_EQ(j["reason"], json::array({"converged", "non_finite", "converged"}));
            EXPECT_EQ(j["converged"], json::array({true, false, true}));
            EXPECT_EQ(j["failed"], json::array({1}));
            EXPECT_EQ(j["num_converged"], 2);
            const RunResult r = run_portla(
                {"batch", batch_dir("nan_rhs"), "--solver", solver, "--backend", backend});
            EXPECT_EQ(r.exit_code, 2) << r;
            EXPECT_TRUE(contains(r.out, "converged   2 of 3")) << r;
            EXPECT_TRUE(contains(r.out, "failed      system 1 (non_finite) (1 in all)")) << r;
        }
}

TEST(CliBatch, CudaRunsOrSaysWhyNot) {
    if (!portla::cuda_compiled() || portla::cuda_device_count() == 0) {
        expect_error({"--generate", "stencil3pt:8", "--backend", "cuda"}, "cuda");
        GTEST_SKIP() << "no GPU present: checked only that --backend cuda fails with one line";
    }
    const json j =
        batch_json({"--generate", "stencil3pt:64", "--batch-size", "1000", "--backend", "cuda"});
    check_batch_json(j, 1000, 1e-6);
    EXPECT_GT(j["launch"]["block_size"].get<int>(), 0);
    EXPECT_GT(j["launch"]["vectors_in_registers"].get<int>(), 0);  // n = 64: the warp kernel
    const json g = batch_json({"--generate", "stencil3pt:64", "--batch-size", "1000", "--backend",
                               "cuda", "--global-memory"});
    check_batch_json(g, 1000, 1e-6);
    EXPECT_EQ(g["launch"]["vectors_in_shared"], 0);
    EXPECT_EQ(g["launch"]["vectors_in_registers"], 0);
    EXPECT_EQ(g["launch"]["matrix_in_shared"], false);
    const json d = batch_json({"--generate", "stencil3pt:64", "--batch-size", "1000", "--backend",
                               "cuda", "--solver", "direct"});
    check_batch_json(d, 1000, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Errors: exit 1 with one line
// ---------------------------------------------------------------------------------------------

TEST(CliBatchErrors, Input) {
    expect_error({}, "give a directory");
    expect_error({batch_dir("good"), "--generate", "stencil3pt:4"}, "not both");
    expect_error({batch_dir("does_not_exist")}, "does_not_exist: no such directory");
    expect_error({batch_dir("no_systems")}, "no numbered system directories");
    expect_error({batch_dir("pattern_differs")},
                 "pattern_differs/1/A.mtx: sparsity pattern differs from system 0");
    expect_error({batch_dir("size_differs")}, "size_differs/1/A.mtx");
    expect_error({batch_dir("malformed")}, "malformed/1/A.mtx:5");
    expect_error({batch_dir("bad_rhs")}, "bad_rhs/0/b.mtx");
    expect_error({batch_dir("missing_rhs")}, "missing_rhs/0/b.mtx");
    expect_error({batch_dir("not_square")}, "expected square");
}

TEST(CliBatchErrors, GenerateAndSizes) {
    for (const char* spec :
         {"stencil3pt", "stencil3pt:", "stencil3pt:0", "stencil3pt:-4", "stencil3pt:4x",
          "poisson1d:8", "stencil5pt:8", "stencil3pt:99999999999"})
        expect_error({"--generate", spec}, "--generate");
    expect_error({"--generate", "stencil3pt:8", "--batch-size", "0"}, "--batch-size");
    expect_error({"--generate", "stencil3pt:8", "--batch-size", "-3"}, "--batch-size");
    expect_error({"--generate", "stencil3pt:8", "--batch-size", "ten"}, "--batch-size");
    expect_error({batch_dir("good"), "--batch-size", "8"}, "--replicate-to");
    expect_error({batch_dir("good"), "--replicate-to", "0"}, "--replicate-to");
    expect_error({"--generate", "stencil3pt:100000000", "--batch-size", "100000000000"}, "memory");
}

TEST(CliBatchErrors, SolverSettings) {
    const std::vector<std::string> gen{"--generate", "stencil3pt:8", "--batch-size",
                                       "4",          "--backend",    "reference"};
    auto with = [&](const std::vector<std::string>& extra) { return concat(gen, extra); };
    expect_error(with({"--solver", "minres"}), "--solver");
    expect_error(with({"--precond", "amg"}), "--precond");
    expect_error(with({"--format", "coo"}), "--format");
    expect_error(with({"--rtol", "-1"}), "--rtol");
    expect_error(with({"--rtol", "nan"}), "--rtol");
    expect_error(with({"--atol", "x"}), "--atol");
    expect_error(with({"--max-iters", "-1"}), "--max-iters");
    expect_error(with({"--restart", "0"}), "--restart");
    expect_error(with({"--block-size", "0"}), "--block-size");
    expect_error(with({"--block-size", "33"}), "--block-size");
    expect_error(with({"--precision", "half"}), "--precision");
    expect_error(with({"--solver", "direct", "--format", "csr"}), "--format dense");
    expect_error(with({"--solver", "direct", "--precond", "jacobi"}), "preconditioner");
    expect_error(with({"--precond", "ilu0", "--format", "dense"}), "ilu0");
    expect_error({"--generate", "stencil3pt:8", "--backend", "tpu"}, "tpu");
}

}  // namespace
