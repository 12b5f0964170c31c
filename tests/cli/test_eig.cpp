// Tests of `portla eig`: the real binary (PORTLA_BINARY) on generated Hilbert matrices and the
// files in tests/data. Contract: exit 0 when converged, 2 when not (result still printed),
// 1 on any error with exactly one line on stderr.
#include <algorithm>
#include <cmath>
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

std::string data(const std::string& name) { return std::string(PORTLA_TEST_DATA_DIR) + "/" + name; }

// The CPU backend every build has, parallel when OpenMP is compiled in.
const char* cpu_backend() { return portla::omp_compiled() ? "omp" : "reference"; }

// `portla eig ARGS --json` with the expected exit status; the parsed result.
json eig_json(std::vector<std::string> args, int expected_exit = 0) {
    return portla::test::run_json("eig", std::move(args), expected_exit);
}

// Exit 1, nothing on stdout, one line on stderr that contains `needle`.
void expect_error(const std::vector<std::string>& args, const std::string& needle) {
    expect_cli_error("eig", args, needle);
}

TEST(Eig, HilbertFloatTakesThePublishedRoundsWithEveryMethod) {
    double lambda = 0;
    for (const char* method : {"similarity", "fused", "power"}) {
        SCOPED_TRACE(method);
        const json j = eig_json({"--generate", "hilbert:128", "--precision", "float", "--eps",
                                 "1e-3", "--method", method, "--backend", cpu_backend()});
        for (const char* key : {"eigenvalue", "iterations", "converged", "time_s",
                                "time_per_iteration_s", "n", "method", "variant", "residual"})
            EXPECT_TRUE(j.contains(key)) << key << " missing in\n" << j.dump(2);
        EXPECT_EQ(j.value("iterations", -1), 9);
        EXPECT_TRUE(j.value("converged", false));
        EXPECT_EQ(j.value("n", 0), 128);
        EXPECT_EQ(j.value("method", ""), method);
        EXPECT_GT(j.value("time_s", 0.0), 0.0);
        EXPECT_NEAR(j.value("time_per_iteration_s", 0.0), j.value("time_s", 0.0) / 9, 1e-12);
        EXPECT_LT(j.value("max_difference", 1.0), 1e-3);
        // All methods give the same iterates up to rounding.
        if (lambda == 0) lambda = j.value("eigenvalue", 0.0);
        EXPECT_NEAR(j.value("eigenvalue", 0.0), lambda, 1e-5 * lambda);
    }
    // Hilbert 128: the largest eigenvalue lies between the smallest and largest row sum
    // (Perron-Frobenius): 1/128 + ... + 1/255 < lambda < 1 + 1/2 + ... + 1/128.
    double lo = 0, hi = 0;
    for (int k = 1; k <= 128; ++k) {
        hi += 1.0 / k;
        lo += 1.0 / (127 + k);
    }
    EXPECT_GT(lambda, lo);
    EXPECT_LT(lambda, hi);
}

TEST(Eig, EigenvectorWrittenToFileSatisfiesAvEqualsLambdaV) {
    const std::string out = portla::test::temp_path("v.mtx");
    const json j = eig_json({data("positive_small.mtx"), "--eps", "1e-12", "--out", out,
                             "--backend", cpu_backend(), "--method", "similarity"});
    ASSERT_TRUE(j.value("converged", false));
    const auto v = portla::io::read_vector(out);
    const auto d = portla::io::read_matrix_market(data("positive_small.mtx"));
    ASSERT_EQ(v.size(), 4u);
    // A v - lambda v from the file's entries, independently of portla's kernels
    std::vector<double> r(4, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) r[d.row_idx[k]] += d.values[k] * v[d.col_idx[k]];
    const double lambda = j.value("eigenvalue", 0.0);
    double rn = 0, vn = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_GT(v[i], 0.0) << "a Perron vector is positive";
        rn += (r[i] - lambda * v[i]) * (r[i] - lambda * v[i]);
        vn += lambda * v[i] * lambda * v[i];
    }
    EXPECT_LT(std::sqrt(rn / vn), 1e-10);
    EXPECT_NEAR(j.value("residual", 1.0), std::sqrt(rn / vn), 1e-10);
    std::remove(out.c_str());
}

TEST(Eig, NotConvergedExitsTwoWithTheResult) {
    const json j =
        eig_json({"--generate", "hilbert:256", "--max-iters", "2", "--backend", cpu_backend()}, 2);
    EXPECT_FALSE(j.value("converged", true));
    EXPECT_EQ(j.value("iterations", -1), 2);
    EXPECT_EQ(j.value("reason", ""), "max_iterations");
}

TEST(Eig, HumanOutputNamesEveryQuantity) {
    const RunResult r = run_portla({"eig", "--generate", "hilbert:64", "--backend", cpu_backend()});
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const char* word : {"eigenvalue", "iterations", "converged", "time", "residual"})
        EXPECT_NE(r.out.find(word), std::string::npos) << word << "\n" << r;
}

TEST(Eig, TimesEveryKernelInEveryVariant) {
    const json j = eig_json({"--generate", "hilbert:200", "--precision", "float", "--time-kernels",
                             "--backend", cpu_backend(), "--bandwidth", "10"});
    ASSERT_TRUE(j.contains("kernels"));
    const auto& k = j["kernels"];
    // five reductions in three variants, plus scale and transform
    ASSERT_EQ(k.size(), 17u) << k.dump(2);
    for (const auto& e : k) {
        EXPECT_GT(e.value("time_s", 0.0), 0.0) << e.dump();
        EXPECT_GT(e.value("bytes", 0.0), 0.0) << e.dump();
        EXPECT_GT(e.value("floor_s", 0.0), 0.0) << e.dump();
    }
    EXPECT_GT(j.value("floor_s", 0.0), 0.0);
}

TEST(Eig, BadInputIsOneLineAndExitOne) {
    expect_error({data("spd_small.mtx")}, "positive");  // zeros and negative entries
    expect_error({"--generate", "hilbert:0"}, "hilbert");
    expect_error({"--generate", "poisson2d:8"}, "hilbert:N");
    expect_error({}, "--generate");  // neither a file nor a generator
    expect_error({data("positive_small.mtx"), "--generate", "hilbert:4"}, "not both");
    expect_error({"--generate", "hilbert:8", "--eps", "-1"}, "eps");
    expect_error({"--generate", "hilbert:8", "--method", "qr"}, "method");
    expect_error({"--generate", "hilbert:8", "--variant", "tree"}, "variant");
    expect_error({data("bad_number.mtx")}, "bad_number.mtx");
}

TEST(Eig, CudaTakesThePublishedRoundsInEveryVariant) {
    if (portla::cuda_device_count() == 0) GTEST_SKIP() << "no GPU present on this machine";
    for (const char* method : {"similarity", "fused", "power"})
        for (const char* variant : {"atomic", "subgroup", "local"}) {
            SCOPED_TRACE(std::string(method) + " " + variant);
            const json j =
                eig_json({"--generate", "hilbert:256", "--precision", "float", "--method", method,
                          "--variant", variant, "--backend", "cuda"});
            EXPECT_EQ(j.value("iterations", -1), 10);
            EXPECT_EQ(j.value("variant", ""), variant);
            EXPECT_EQ(j.value("backend", ""), "cuda");
        }
}

TEST(Eig, CudaBackendWithoutAGpuIsAClearError) {
    if (portla::cuda_device_count() > 0)
        GTEST_SKIP() << "a GPU is present: the error cannot happen";
    expect_error({"--generate", "hilbert:8", "--backend", "cuda"}, "cuda");
}

}  // namespace
