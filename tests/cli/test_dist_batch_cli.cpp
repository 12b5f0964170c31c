// `mpirun -np N portla batch ...` against the one-rank run: the systems split
// in contiguous blocks over 1 ... 4 ranks, the results gathered on rank 0, printed exactly as one
// rank prints them but for the time (the slowest rank's), "ranks" and, on cuda, the launch. Each
// rank's exit status is recorded (a shell around portla writes it), so agreement is checked,
// not just mpirun's status. PORTLA_BINARY is mpiexec, PORTLA_CLI the portla binary.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_cli.hpp"
#include "portla/executor.hpp"

namespace {

using nlohmann::json;
using portla::test::run_portla;
using portla::test::RunResult;

std::string data(const std::string& path) { return std::string(PORTLA_TEST_DATA_DIR) + "/" + path; }

struct RankRun {
    RunResult run;
    std::vector<int> exit_codes;  ///< each rank's exit status, by rank
};

// mpirun -np `ranks` portla batch ARGS, each rank's exit status written by a shell around it,
// which exits 0 itself: mpirun would otherwise kill the other ranks (and add its own lines to
// stderr) as soon as one exits non-zero, before they could record their status.
RankRun mpirun_batch(int ranks, const std::vector<std::string>& args) {
    namespace fs = std::filesystem;
    // For mpirun (inherited): running as root where CI does, one OpenMP thread per rank on the
    // 2 cores. Set here: gtest_discover_tests' PROPERTIES cannot carry a list of variables.
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    ::setenv("OMP_NUM_THREADS", "1", 1);
    const fs::path dir = portla::test::temp_path("exit_codes");
    fs::create_directories(dir);
    std::vector<std::string> all{
        "--oversubscribe",
        "-np",
        std::to_string(ranks),
        "/bin/sh",
        "-c",
        "\"$0\" \"$@\"; rc=$?; echo $rc > '" + dir.string() + "'/rc.$OMPI_COMM_WORLD_RANK",
        PORTLA_CLI,
        "batch"};
    all.insert(all.end(), args.begin(), args.end());
    RankRun r;
    r.run = run_portla(all, 120);
    for (int rank = 0; rank < ranks; ++rank) {
        std::ifstream in(dir / ("rc." + std::to_string(rank)));
        int code = -1;
        in >> code;
        r.exit_codes.push_back(code);
    }
    fs::remove_all(dir);
    return r;
}

// The JSON without what may differ between rank counts: the time, "ranks", the launch.
json without_timing(json j) {
    for (const char* key : {"time_s", "systems_per_second", "ranks", "launch"}) j.erase(key);
    return j;
}

// The text without the time line (the only line that depends on the ranks on a CPU) and the
// launch line (cuda).
std::string without_time_line(const std::string& text) {
    std::istringstream in(text);
    std::ostringstream out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("  time        ", 0) != 0 && line.rfind("  launch      ", 0) != 0)
            out << line << "\n";
    return out.str();
}

// Runs `args` (JSON and text) on 1, 2, 3 and 4 ranks and expects every output to equal the
// one-rank one, every rank to exit with `expected_exit`.
void expect_same_on_every_rank_count(const std::vector<std::string>& args, int expected_exit,
                                     std::size_t systems) {
    json one;
    std::string one_text;
    for (int ranks = 1; ranks <= 4; ++ranks) {
        SCOPED_TRACE(std::to_string(ranks) + " ranks");
        std::vector<std::string> json_args = args;
        json_args.push_back("--json");
        const RankRun r = mpirun_batch(ranks, json_args);
        ASSERT_FALSE(r.run.signaled) << r.run;
        EXPECT_EQ(r.run.err, "") << r.run;
        EXPECT_EQ(r.run.exit_code, 0) << r.run;  // the shells'
        for (int rank = 0; rank < ranks; ++rank)
            EXPECT_EQ(r.exit_codes[std::size_t(rank)], expected_exit) << "rank " << rank << "\n"
                                                                      << r.run;
        const json j = json::parse(r.run.out);  // rank 0 alone prints: one object
        EXPECT_EQ(j["ranks"], ranks);
        ASSERT_EQ(j["num_systems"], systems);
        ASSERT_EQ(j["iterations"].size(), systems);
        const RankRun t = mpirun_batch(ranks, args);
        EXPECT_EQ(t.exit_codes[0], expected_exit) << t.run;
        if (ranks > 1) {
            EXPECT_NE(t.run.out.find("(the slowest of " + std::to_string(ranks) + " MPI ranks)"),
                      std::string::npos)
                << t.run;
        }
        if (ranks == 1) {
            one = j;
            one_text = t.run.out;
            continue;
        }
        // The per-system arrays compared first, for a readable failure.
        for (const char* key : {"iterations", "residual_norm", "rhs_norm", "converged", "reason"})
            EXPECT_EQ(j[key], one[key]) << key;
        EXPECT_EQ(without_timing(j), without_timing(one));
        EXPECT_EQ(without_time_line(t.run.out), without_time_line(one_text));
        EXPECT_LE(j["time_s"].get<double>(), 60.0);
    }
}

std::vector<std::string> cpu_backends() {
    std::vector<std::string> b{"reference"};
    if (portla::omp_compiled()) b.push_back("omp");
    return b;
}

// 10 systems: 10, 5 + 5, 4 + 3 + 3, 3 + 3 + 2 + 2 on 1 ... 4 ranks.
TEST(DistBatchCli, GeneratedBatchUnevenSplits) {
    for (const auto& backend : cpu_backends()) {
        SCOPED_TRACE(backend);
        expect_same_on_every_rank_count(
            {"--generate", "stencil3pt:24", "--batch-size", "10", "--solver", "cg", "--precond",
             "jacobi", "--backend", backend},
            0, 10);
    }
    // Replicated: 5 generated systems repeated to 13 (blocks that wrap around), or cut to 3
    // (fewer systems than 4 ranks: a rank with none).
    expect_same_on_every_rank_count({"--generate", "stencil3pt:16", "--batch-size", "5",
                                     "--replicate-to", "13", "--backend", "reference"},
                                    0, 13);
    expect_same_on_every_rank_count(
        {"--generate", "stencil3pt:16", "--batch-size", "5", "--replicate-to", "3", "--solver",
         "gmres", "--backend", "reference"},
        0, 3);
    // Not converged on every rank: exit 2 everywhere.
    expect_same_on_every_rank_count({"--generate", "stencil3pt:32", "--batch-size", "6",
                                     "--max-iters", "2", "--rtol", "1e-12", "--backend", "omp"},
                                    2, 6);
}

// PeleLM chemistry systems (3 of them: 4 ranks leave one without systems), and the small
// directories of tests/data/batch replicated and with failing systems.
TEST(DistBatchCli, DirectoryBatches) {
    for (const auto& backend : cpu_backends()) {
        SCOPED_TRACE(backend);
        expect_same_on_every_rank_count({data("pelelm/gri12"), "--solver", "gmres", "--precond",
                                         "jacobi", "--rtol", "1e-10", "--backend", backend},
                                        0, 3);
    }
    expect_same_on_every_rank_count({data("pelelm/isooctane"), "--solver", "bicgstab", "--precond",
                                     "ilu0", "--replicate-to", "7", "--backend", "omp"},
                                    0, 7);
    expect_same_on_every_rank_count({data("batch/good"), "--replicate-to", "9", "--format", "ell",
                                     "--rtol", "1e-8", "--atol", "1e-3", "--backend", "reference"},
                                    0, 9);
    // A NaN and a singular system: reported per system, exit 2 on every rank.
    expect_same_on_every_rank_count(
        {data("batch/nan_singular"), "--solver", "direct", "--backend", "reference"}, 2, 4);
}

// A directory of `systems` 3 x 3 diagonal systems; systems `bad` and after get `bad_matrix` as
// A.mtx and `bad_rhs` (unless empty) as b.mtx.
std::string diagonal_batch(int systems, int bad, const std::string& bad_matrix,
                           const std::string& bad_rhs = "") {
    namespace fs = std::filesystem;
    const fs::path dir = portla::test::temp_path("batch");
    for (int s = 0; s < systems; ++s) {
        fs::create_directories(dir / std::to_string(s));
        std::ofstream a(dir / std::to_string(s) / "A.mtx");
        if (s >= bad) {
            a << bad_matrix;
        } else {
            a << "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 " << 2 + s
              << "\n2 2 3.5\n3 3 " << 5 + s << "\n";
        }
        std::ofstream b(dir / std::to_string(s) / "b.mtx");
        b << (s >= bad && !bad_rhs.empty()
                  ? bad_rhs
                  : std::string("%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n"));
    }
    return dir.string();
}

void expect_every_rank_fails(const RankRun& r, const std::string& needle) {
    EXPECT_FALSE(r.run.signaled) << r.run;  // never a hang (run_portla's alarm)
    for (std::size_t rank = 0; rank < r.exit_codes.size(); ++rank)
        EXPECT_EQ(r.exit_codes[rank], 1) << "rank " << rank << "\n" << r.run;
    EXPECT_EQ(r.run.out, "") << r.run;
    EXPECT_EQ(r.run.exit_code, 0) << r.run;  // the shells'
    EXPECT_EQ(std::count(r.run.err.begin(), r.run.err.end(), '\n'), 1) << r.run;
    EXPECT_EQ(r.run.err.rfind("portla: error: ", 0), 0u) << r.run;
    EXPECT_NE(r.run.err.find(needle), std::string::npos) << "expected '" << needle << "'\n"
                                                         << r.run;
}

// A bad file in the last rank's share alone (systems 4 and 5 of 6 on 3 ranks) and a missing
// directory: every rank exits 1, and rank 0 prints the one line, naming the failing rank.
// Systems whose norms underflow are no error: they are reported failed, as with one rank.
TEST(DistBatchCli, AnErrorOnOneRankIsEveryRanksError) {
    namespace fs = std::filesystem;
    const std::string malformed = diagonal_batch(
        6, 5, "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 2\n2 2 x\n3 3 4\n");
    const RankRun r = mpirun_batch(3, {malformed, "--backend", "reference"});
    expect_every_rank_fails(r, "rank 2: " + malformed + "/5/A.mtx:4");
    // One rank reads every system: the same error, without the rank.
    const RankRun one = mpirun_batch(1, {malformed, "--backend", "reference"});
    expect_every_rank_fails(one, malformed + "/5/A.mtx:4");
    fs::remove_all(malformed);

    // Systems 2 and 3 tiny (norms that underflow): failed alone (bad_scale), as with one rank,
    // whichever ranks hold them; the others solved.
    const std::string denormal = diagonal_batch(
        4, 2,
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 4.9e-324\n2 2 4.9e-324\n3 3 "
        "4.9e-324\n",
        "%%MatrixMarket matrix array real general\n3 1\n4.9e-324\n4.9e-324\n4.9e-324\n");
    expect_same_on_every_rank_count({denormal, "--backend", "omp"}, 2, 4);
    const RankRun d = mpirun_batch(2, {denormal, "--backend", "omp"});
    EXPECT_NE(d.run.out.find("system 2 (bad_scale), system 3 (bad_scale) (2 in all)"),
              std::string::npos)
        << d.run;
    fs::remove_all(denormal);

    expect_every_rank_fails(mpirun_batch(4, {data("batch/does_not_exist")}), "no such directory");
}

// With the cuda backend each rank takes GPU (local rank mod GPUs); ranks sharing one GPU give
// the one-rank results (the launch, sized for each rank's systems, may differ).
TEST(DistBatchCli, CudaRanksShareTheGpus) {
    if (!portla::cuda_compiled() || portla::cuda_device_count() == 0)
        GTEST_SKIP() << "no GPU present (or cuda not compiled): mpirun portla batch --backend "
                        "cuda not run";
    expect_same_on_every_rank_count(
        {"--generate", "stencil3pt:64", "--batch-size", "1001", "--backend", "cuda"}, 0, 1001);
    expect_same_on_every_rank_count(
        {data("pelelm/gri30"), "--replicate-to", "501", "--precond", "jacobi", "--backend", "cuda"},
        0, 501);
}

}  // namespace
