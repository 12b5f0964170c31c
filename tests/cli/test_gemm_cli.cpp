// Tests of `portla gemm`: the real binary (PORTLA_BINARY), its JSON keys and values, and its
// one-line errors with exit status 1.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_cli.hpp"
#include "portla/portla.hpp"

namespace {

using nlohmann::json;
using portla::test::run_portla;
using portla::test::RunResult;

std::size_t lines(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

void expect_result(const json& j, const std::string& variant, const std::string& precision,
                   const std::string& backend, double max_error) {
    for (const char* key : {"m", "n", "k", "variant", "precision", "backend", "time_s", "gflops",
                            "relative_error", "device", "date", "commit", "checked_against"})
        ASSERT_TRUE(j.contains(key)) << "missing key " << key << " in " << j.dump();
    EXPECT_EQ(j["m"], 33);
    EXPECT_EQ(j["n"], 17);
    EXPECT_EQ(j["k"], 65);
    EXPECT_EQ(j["variant"], variant);
    EXPECT_EQ(j["precision"], precision);
    EXPECT_EQ(j["backend"], backend);
    EXPECT_GT(j["time_s"].get<double>(), 0.0);
    EXPECT_NEAR(j["gflops"].get<double>(), 2.0 * 33 * 17 * 65 / j["time_s"].get<double>() / 1e9,
                1e-6 * j["gflops"].get<double>());
    EXPECT_EQ(j["checked_against"], "reference");
    EXPECT_LE(j["relative_error"].get<double>(), max_error);
}

TEST(GemmCli, OneVariantPrintsOneJsonObject) {
    const RunResult r = run_portla({"gemm",   "--m",         "33",        "--n",     "17",
                                    "--k",    "65",          "--backend", "omp",     "--variant",
                                    "fast",   "--precision", "double",    "--alpha", "0.5",
                                    "--beta", "-2",          "--reps",    "3",       "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_TRUE(j.is_object()) << r.out;
    // 65 products summed: relative error well under 67 eps = 1.5e-14 (the per-element bound)
    expect_result(j, "fast", "double", "omp", 1.5e-14);
}

TEST(GemmCli, AllVariantsOnOmpPrintAnArray) {
    const RunResult r = run_portla({"gemm", "--m", "33", "--n", "17", "--k", "65", "--backend",
                                    "omp", "--variant", "all", "--precision", "float", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_TRUE(j.is_array()) << r.out;
    ASSERT_EQ(j.size(), 3u);  // naive, fast, vendor: tiled and subgroup are cuda-only
    const char* expected[] = {"naive", "fast", "vendor"};
    for (std::size_t i = 0; i < 3; ++i)
        expect_result(j[i], expected[i], "float", "omp", 67 * 1.2e-7);
}

TEST(GemmCli, EveryVariantOnCuda) {
    if (!portla::cuda_compiled() || portla::cuda_device_count() == 0)
        GTEST_SKIP() << "cuda backend: no GPU present on this machine";
    for (const char* precision : {"float", "double"}) {
        const RunResult r =
            run_portla({"gemm", "--m", "33", "--n", "17", "--k", "65", "--backend", "cuda",
                        "--variant", "all", "--precision", precision, "--json"});
        ASSERT_EQ(r.exit_code, 0) << r;
        const json j = json::parse(r.out);
        ASSERT_EQ(j.size(), 5u) << r.out;
        const char* expected[] = {"naive", "tiled", "subgroup", "fast", "vendor"};
        const double tol = std::string(precision) == "float" ? 67 * 1.2e-7 : 1.5e-14;
        for (std::size_t i = 0; i < 5; ++i)
            expect_result(j[i], expected[i], precision, "cuda", tol);
    }
}

TEST(GemmCli, TextOutput) {
    const RunResult r = run_portla({"gemm", "--m", "33", "--n", "17", "--k", "65", "--backend",
                                    "reference", "--variant", "naive"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("relative error"), std::string::npos) << r.out;
    EXPECT_EQ(lines(r.out), 1u) << r.out;
}

TEST(GemmCli, ErrorsAreOneLineWithStatusOne) {
    const std::vector<std::vector<std::string>> bad{
        {"gemm", "--variant", "blocked", "--backend", "omp", "--m", "8", "--n", "8", "--k", "8"},
        {"gemm", "--variant", "tiled", "--backend", "omp", "--m", "8", "--n", "8", "--k", "8"},
        {"gemm", "--precision", "half", "--m", "8"},
        {"gemm", "--m", "0"},
        {"gemm", "--m", "-3"},
        {"gemm", "--backend", "vulkan", "--m", "8"},
        {"gemm", "--reps", "0", "--m", "8", "--n", "8", "--k", "8", "--backend", "omp"},
        {"gemm", "--alpha", "nan", "--m", "8", "--n", "8", "--k", "8", "--backend", "omp"},
    };
    for (const auto& args : bad) {
        const RunResult r = run_portla(args);
        std::string joined;
        for (const auto& a : args) joined += a + " ";
        EXPECT_EQ(r.exit_code, 1) << joined << r;
        EXPECT_FALSE(r.signaled) << joined << r;
        EXPECT_EQ(lines(r.err), 1u) << joined << r;
        EXPECT_TRUE(r.out.empty()) << joined << r;
    }
}

}  // namespace
