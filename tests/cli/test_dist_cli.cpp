// `mpirun -np 2 portla solve ...` against the one-process run: PORTLA_BINARY is
// mpiexec here, PORTLA_CLI the portla binary it starts.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"

namespace {

using portla::test::run_portla;

std::vector<double> read_x(const std::string& path) {
    std::istringstream in(portla::test::read_text(path));
    std::string line;
    std::getline(in, line);  // header
    std::getline(in, line);  // sizes
    std::vector<double> x;
    for (double v; in >> v;) x.push_back(v);
    return x;
}

std::vector<std::string> mpirun(int ranks, std::vector<std::string> args) {
    std::vector<std::string> all{"--oversubscribe", "-np", std::to_string(ranks), PORTLA_CLI};
    all.insert(all.end(), args.begin(), args.end());
    return all;
}

TEST(DistCli, TwoRanksAgreeWithOne) {
    const std::string matrix = std::string(PORTLA_TEST_DATA_DIR) + "/suitesparse/bcsstk01.mtx";
    std::vector<double> x[2];
    nlohmann::json j[2];
    for (int ranks : {1, 2}) {
        const auto out = portla::test::temp_path("x.mtx");
        const auto r = run_portla(
            mpirun(ranks, {"solve", matrix, "--solver", "cg", "--json", "--out", out}), 60);
        ASSERT_EQ(r.exit_code, 0) << r;
        j[ranks - 1] = nlohmann::json::parse(r.out);  // rank 0 alone prints: one object
        x[ranks - 1] = read_x(out);
    }
    EXPECT_EQ(j[1]["ranks"], 2);
    EXPECT_EQ(j[1]["n"], 48);
    EXPECT_EQ(j[1]["nnz"], j[0]["nnz"]);
    EXPECT_TRUE(j[1]["converged"].get<bool>());
    // 131 vs 130 iterations measured: bcsstk01 (cond ~ 9e5) is sensitive to summation order.
    EXPECT_NEAR(j[1]["iterations"].get<double>(), j[0]["iterations"].get<double>(), 5);
    ASSERT_EQ(x[0].size(), 48u);
    ASSERT_EQ(x[1].size(), 48u);
    // Both solutions meet rtol 1e-8; cond ~ 9e5 bounds their difference by ~1e-2 relative
    // (measured: ~1e-7).
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < 48; ++i) {
        diff += (x[1][i] - x[0][i]) * (x[1][i] - x[0][i]);
        norm += x[0][i] * x[0][i];
    }
    EXPECT_LE(std::sqrt(diff), 1e-4 * std::sqrt(norm));
}

TEST(DistCli, ErrorIsOneLineAndEveryRankFails) {
    const auto r = run_portla(
        mpirun(3, {"solve", "--generate", "poisson2d:8", "--assembled", "--format", "ell"}), 60);
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_FALSE(r.signaled) << r;
    std::size_t lines = 0;
    for (std::size_t p = r.err.find("portla: error:"); p != std::string::npos;
         p = r.err.find("portla: error:", p + 1))
        ++lines;
    EXPECT_EQ(lines, 1u) << r;
    EXPECT_NE(r.err.find("--format ell"), std::string::npos) << r;
    // A missing file on rank 0: every rank exits with the error.
    const auto m = run_portla(mpirun(2, {"solve", "/nonexistent/matrix.mtx"}), 60);
    EXPECT_EQ(m.exit_code, 1) << m;
}

TEST(DistCli, GeneratedAssembledProblem) {
    const auto r = run_portla(mpirun(3, {"solve", "--generate", "poisson2d:20", "--assembled",
                                         "--precond", "jacobi", "--json"}),
                              60);
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["n"], 400);
    EXPECT_EQ(j["ranks"], 3);
    const auto one = run_portla(mpirun(1, {"solve", "--generate", "poisson2d:20", "--assembled",
                                           "--precond", "jacobi", "--json"}),
                                60);
    ASSERT_EQ(one.exit_code, 0) << one;
    EXPECT_NEAR(j["iterations"].get<double>(),
                nlohmann::json::parse(one.out)["iterations"].get<double>(), 1);
}

// --solver pipecg under mpirun (one non-blocking allreduce per iteration) against one rank.
TEST(DistCli, PipelinedCg) {
    const auto many = run_portla(mpirun(3, {"solve", "--generate", "poisson3d:12", "--solver",
                                            "pipecg", "--precond", "jacobi", "--json"}),
                                 60);
    ASSERT_EQ(many.exit_code, 0) << many;
    const auto one = run_portla(mpirun(1, {"solve", "--generate", "poisson3d:12", "--solver",
                                           "pipecg", "--precond", "jacobi", "--json"}),
                                60);
    ASSERT_EQ(one.exit_code, 0) << one;
    const auto j = nlohmann::json::parse(many.out), k = nlohmann::json::parse(one.out);
    EXPECT_EQ(j["solver"], "pipecg");
    EXPECT_TRUE(j["converged"].get<bool>());
    EXPECT_LE(j["relative_residual"].get<double>(), 1e-8);
    EXPECT_NEAR(j["iterations"].get<double>(), k["iterations"].get<double>(), 1);
    // One allreduce per iteration, plus the set-up's and the final residual's few.
    EXPECT_LE(j["communication"]["allreductions"].get<double>(),
              j["iterations"].get<double>() + 12);
}

// The matrix-free operator under mpirun: each rank generates its slab (distributed-stencil);
// the same iterations and solution as one process, and as --distributed on one rank.
TEST(DistCli, GeneratedMatrixFreeProblem) {
    std::vector<double> x[3];
    nlohmann::json j[3];
    const std::vector<std::vector<std::string>> runs = {
        mpirun(1, {"--generate", "poisson3d:13"}),
        mpirun(1, {"--generate", "poisson3d:13", "--distributed"}),
        mpirun(4, {"--generate", "poisson3d:13", "--precision", "double"})};
    for (int k = 0; k < 3; ++k) {
        const auto out = portla::test::temp_path("x.mtx");
        auto args = runs[k];
        args.insert(args.begin() + 4, "solve");  // after "--oversubscribe -np N portla"
        for (const char* a : {"--json", "--out"}) args.push_back(a);
        args.push_back(out);
        const auto r = run_portla(args, 60);
        ASSERT_EQ(r.exit_code, 0) << r;
        j[k] = nlohmann::json::parse(r.out);
        x[k] = read_x(out);
    }
    EXPECT_EQ(j[0]["format"], "stencil");
    EXPECT_EQ(j[1]["format"], "distributed-stencil");
    EXPECT_EQ(j[2]["format"], "distributed-stencil");
    EXPECT_EQ(j[2]["ranks"], 4);
    for (int k = 1; k < 3; ++k) {
        EXPECT_EQ(j[k]["n"], j[0]["n"]);
        EXPECT_EQ(j[k]["nnz"], j[0]["nnz"]);
        EXPECT_NEAR(j[k]["iterations"].get<double>(), j[0]["iterations"].get<double>(), 1);
        ASSERT_EQ(x[k].size(), x[0].size());
        // Both meet rtol 1e-8 on a matrix of condition ~ 70: 1e-6 relative is generous.
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < x[0].size(); ++i) {
            diff += (x[k][i] - x[0][i]) * (x[k][i] - x[0][i]);
            norm += x[0][i] * x[0][i];
        }
        EXPECT_LE(std::sqrt(diff), 1e-6 * std::sqrt(norm));
    }
}

}  // namespace
