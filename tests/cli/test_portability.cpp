// Tests of `portla portability`: runs the real binary (PORTLA_BINARY) on synthetic result files of
// `portla bench --json` written to a temporary folder, with times chosen so that every
// performance, efficiency and PP value is known by hand.
//
// The inputs (GFLOP/s of one dense CG iteration at N = 4096; time = FLOPs / rate):
//
//                      CPU A (8 thr)   CPU B (16 thr)   NVIDIA H100 80GB HBM3
//   sequential            12.5            50                -
//   portla omp           100             100                -
//   portla cuda            -               -             17000
//   vendor BLAS           50             200              8500
//   portla               100             100             17000
//
// Application efficiencies (best on the platform: 100, 200, 17000):
//   sequential 0.125 0.25 -  -> PP 0 (does not run on the GPU)
//   portla omp 1     0.5  -  -> PP 0
//   portla cuda -    -    1  -> PP 0
//   vendor BLAS 0.5  1    0.5 -> PP 3 / (2 + 1 + 2) = 0.6
//   portla      1    0.5  1   -> PP 3 / (1 + 2 + 1) = 0.75
// Architectural efficiencies with peaks 1000 (--peak), 400 (--peak) and 34000 (built-in, H100
// SXM FP64 vector):
//   vendor BLAS 0.05 0.5  0.25 -> PP 3 / (20 + 2 + 4) = 3/26
//   portla      0.1  0.25 0.5  -> PP 3 / (10 + 4 + 2) = 3/16
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_cli.hpp"

namespace {

using nlohmann::json;
using portla::test::read_text;
using portla::test::run_portla;
using portla::test::RunResult;
using portla::test::temp_path;

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

/// Exit 1, no signal, nothing on stdout, exactly one line on stderr.
#define EXPECT_CLI_ERROR(r)                                                                   \
    do {                                                                                      \
        EXPECT_FALSE((r).signaled) << (r);                                                    \
        EXPECT_EQ((r).exit_code, 1) << (r);                                                   \
        EXPECT_EQ((r).out, "") << (r);                                                        \
        EXPECT_EQ(std::count((r).err.begin(), (r).err.end(), '\n'), 1) << (r);                \
        EXPECT_TRUE(!(r).err.empty() && (r).err.back() == '\n' && (r).err.size() > 1) << (r); \
    } while (0)

// ---------------------------------------------------------------------------------------------
// Synthetic result files
// ---------------------------------------------------------------------------------------------

constexpr double kN = 4096;
const double kFlops = 51.0 / 25.0 * kN * kN + 224.0 / 25.0 * kN + 1.0;  // one dense CG iteration

const std::string kCpuA = "Test CPU A (8 threads)";
const std::string kCpuB = "Test CPU B (16 threads)";
const std::string kGpu = "NVIDIA H100 80GB HBM3";

json point(const std::string& kernel, const std::string& backend, double n, double gflops,
           bool correct = true, const std::string& precision = "double") {
    const double m = std::round(std::cbrt(n));  // cg: n = m^3 unknowns of 3-D Poisson
    const double flops = kernel == "cg-dense" ? 51.0 / 25.0 * n * n + 224.0 / 25.0 * n + 1.0
                         : kernel == "cg"     ? 2.0 * (7.0 * n - 6.0 * m * m) + 10.0 * n
                                              : n;
    const double t = flops / (gflops * 1e9);
    return {{"kernel", kernel},
            {"backend", backend},
            {"precision", precision},
            {"n", n},
            {"wg", 0},
            {"items", 0},
            {"bytes", 8.0 * n * n},
            {"time_s", t},
            {"bandwidth_gbs", 1.0},
            {"correct", correct},
            {"check_error", 0.0}};
}

json result_file(const std::string& gpu, const std::string& cpu, int threads, const json& points,
                 const std::string& precision = "double") {
    return {{"device", gpu.empty() ? cpu : gpu},
            {"gpu", gpu},
            {"cpu", cpu},
            {"cpu_threads", threads},
            {"host", "testhost"},
            {"date", "2024-01-01T00:00:00Z"},
            {"commit", "abc1234"},
            {"precision", precision},
            {"flush_cache", false},
            {"points", points},
            {"fits", json::array()}};
}

std::string write_file(const std::string& stem, const std::string& text) {
    const std::string path = temp_path(stem);
    std::ofstream(path) << text;
    return path;
}

std::string write_json(const std::string& stem, const json& j) {
    return write_file(stem, j.dump(1));
}

struct Inputs {
    std::string cpu_a, cpu_b, gpu;
};

const Inputs& inputs() {
    static const Inputs in = [] {
        Inputs s;
        s.cpu_a = write_json(
            "cpu_a.json",
            result_file("", "Test CPU A", 8,
                        {point("cg-dense", "reference", kN, 12.5),
                         point("cg-dense", "omp", kN, 100), point("cg-dense", "openblas", kN, 50),
                         // other kernels and sizes are ignored
                         point("dot", "omp", 1 << 20, 3), point("cg-dense", "omp", 2048, 5000)}));
        s.cpu_b = write_json("cpu_b.json", result_file("", "Test CPU B", 16,
                                                       {point("cg-dense", "reference", kN, 50),
                                                        point("cg-dense", "omp", kN, 100),
                                                        point("cg-dense", "openblas", kN, 200),
                                                        // a wrong result is ignored, however fast
                                                        point("cg-dense", "omp", kN, 1e6, false)}));
        // The GPU machine's file has CPU A as its host: its (slower) omp point duplicates one of
        // cpu_a.json, and the fastest is kept. Two cuda points (launch configurations): the faster
        // counts.
        s.gpu = write_json(
            "gpu.json",
            result_file(kGpu, "Test CPU A", 8,
                        {point("cg-dense", "cuda", kN, 8500), point("cg-dense", "cuda", kN, 17000),
                         point("cg-dense", "cublas", kN, 8500), point("cg-dense", "omp", kN, 80)}));
        return s;
    }();
    return in;
}

const json* find_program(const json& j, const std::string& name) {
    for (const auto& p : j.at("programs"))
        if (p.at("name") == name) return &p;
    return nullptr;
}

/// Runs `portability ARGS --json OUT`, expects exit 0, and returns OUT parsed (and the run).
json run_json(std::vector<std::string> args, RunResult* run = nullptr) {
    const std::string out = temp_path("pp.json");
    args.insert(args.begin(), "portability");
    args.push_back("--json");
    args.push_back(out);
    const RunResult r = run_portla(args);
    EXPECT_FALSE(r.signaled) << r;
    EXPECT_EQ(r.exit_code, 0) << r;
    if (run) *run = r;
    try {
        json j = json::parse(read_text(out));
        std::remove(out.c_str());
        return j;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "--json output is not valid JSON: " << e.what() << "\n" << r;
        return json::object();
    }
}

constexpr double kTol = 1e-9;

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

TEST(Portability, JsonEfficienciesAndPP) {
    const auto& in = inputs();
    RunResult r;
    const json j = run_json(
        {in.cpu_a, in.cpu_b, in.gpu, "--peak", "cpu a=1000", "--peak", "Test CPU B=400"}, &r);
    EXPECT_EQ(j.at("n"), 4096);
    EXPECT_EQ(j.at("precision"), "double");
    EXPECT_EQ(j.at("platforms"), json({kCpuA, kCpuB, kGpu}));
    EXPECT_NEAR(j.at("peak_gflops").at(kCpuA).get<double>(), 1000, kTol);
    EXPECT_NEAR(j.at("peak_gflops").at(kCpuB).get<double>(), 400, kTol);
    EXPECT_NEAR(j.at("peak_gflops").at(kGpu).get<double>(), 34000,
                kTol);  // built-in, H100 SXM FP64

    struct Want {
        const char* name;
        std::vector<double> gflops, app;  // per platform, -1: does not run there
        double pp_app, pp_arch;
    };
    const double peaks[] = {1000, 400, 34000};
    const std::vector<Want> want = {
        {"sequential", {12.5, 50, -1}, {0.125, 0.25, -1}, 0, 0},
        {"portla omp", {100, 100, -1}, {1, 0.5, -1}, 0, 0},
        {"portla cuda", {-1, -1, 17000}, {-1, -1, 1}, 0, 0},
        {"vendor BLAS", {50, 200, 8500}, {0.5, 1, 0.5}, 0.6, 3.0 / 26.0},
        {"portla", {100, 100, 17000}, {1, 0.5, 1}, 0.75, 3.0 / 16.0},
    };
    ASSERT_EQ(j.at("programs").size(), want.size()) << j.dump(1);
    const std::string platforms[] = {kCpuA, kCpuB, kGpu};
    for (const auto& w : want) {
        SCOPED_TRACE(w.name);
        const json* p = find_program(j, w.name);
        ASSERT_NE(p, nullptr);
        for (int i = 0; i < 3; ++i) {
            SCOPED_TRACE(platforms[i]);
            if (w.gflops[i] < 0) {
                EXPECT_FALSE(p->at("performance_gflops").contains(platforms[i]));
                EXPECT_FALSE(p->at("app_efficiency").contains(platforms[i]));
                EXPECT_FALSE(p->at("arch_efficiency").contains(platforms[i]));
                continue;
            }
            EXPECT_NEAR(p->at("performance_gflops").at(platforms[i]).get<double>(), w.gflops[i],
                        1e-9 * w.gflops[i]);
            EXPECT_NEAR(p->at("app_efficiency").at(platforms[i]).get<double>(), w.app[i], kTol);
            EXPECT_NEAR(p->at("arch_efficiency").at(platforms[i]).get<double>(),
                        w.gflops[i] / peaks[i], kTol);
        }
        EXPECT_NEAR(p->at("pp_app").get<double>(), w.pp_app, kTol);
        EXPECT_NEAR(p->at("pp_arch").get<double>(), w.pp_arch, kTol);
    }
    EXPECT_EQ(find_program(j, "portla")->at("backend"),
              json({{kCpuA, "omp"}, {kCpuB, "omp"}, {kGpu, "cuda"}}));
    EXPECT_EQ(find_program(j, "vendor BLAS")->at("backend"),
              json({{kCpuA, "openblas"}, {kCpuB, "openblas"}, {kGpu, "cublas"}}));
    // Notes: the duplicated (portla omp, CPU A) and the wrong result; no unknown peak.
    EXPECT_TRUE(contains(r.err, "2 files give portla omp on " + kCpuA)) << r;
    EXPECT_TRUE(contains(r.err, "keeping the fastest, from " + in.cpu_a)) << r;
    EXPECT_TRUE(contains(r.err, "wrong result")) << r;
    EXPECT_FALSE(contains(r.err, "no peak")) << r;
}

TEST(Portability, PrintedTables) {
    const auto& in = inputs();
    const RunResult r = run_portla(
        {"portability", in.cpu_a, in.cpu_b, in.gpu, "--peak", "CPU A=1000", "--peak", "CPU B=400"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "N = 4096")) << r;
    EXPECT_TRUE(contains(r.out, "double")) << r;
    EXPECT_TRUE(contains(r.out, "[1] " + kCpuA)) << r;
    EXPECT_TRUE(contains(r.out, "[3] " + kGpu)) << r;

    // The rows of each table, as the words after the program name.
    std::istringstream lines(r.out);
    std::string section;
    std::map<std::string, std::map<std::string, std::vector<std::string>>>
        rows;  // section -> program -> cells
    for (std::string line; std::getline(lines, line);) {
        if (contains(line, "performance (GFLOP/s)"))
            section = "perf";
        else if (contains(line, "application efficiency"))
            section = "app";
        else if (contains(line, "architectural efficiency"))
            section = "arch";
        for (const char* name :
             {"sequential", "portla omp", "portla cuda", "vendor BLAS", "portla"})
            if (!section.empty() && line.rfind(name, 0) == 0 && line.size() > std::strlen(name) &&
                line[std::strlen(name)] == ' ') {
                std::istringstream cells(line.substr(std::strlen(name)));
                auto& v = rows[section][name];
                v.clear();
                for (std::string c; cells >> c;) v.push_back(c);
            }
    }
    using V = std::vector<std::string>;
    EXPECT_EQ(rows["app"]["sequential"], (V{"12.5", "25.0", "-", "0.0"})) << r;
    EXPECT_EQ(rows["app"]["portla omp"], (V{"100.0", "50.0", "-", "0.0"})) << r;
    EXPECT_EQ(rows["app"]["portla cuda"], (V{"-", "-", "100.0", "0.0"})) << r;
    EXPECT_EQ(rows["app"]["vendor BLAS"], (V{"50.0", "100.0", "50.0", "60.0"})) << r;
    EXPECT_EQ(rows["app"]["portla"], (V{"100.0", "50.0", "100.0", "75.0"})) << r;
    EXPECT_EQ(rows["arch"]["vendor BLAS"], (V{"5.0", "50.0", "25.0", "11.5"})) << r;  // 3/26
    EXPECT_EQ(rows["arch"]["portla"], (V{"10.0", "25.0", "50.0", "18.8"})) << r;      // 3/16
    EXPECT_EQ(rows["perf"]["portla"], (V{"100.0", "100.0", "17000.0"})) << r;
    EXPECT_EQ(rows["perf"]["sequential"], (V{"12.5", "50.0", "-"})) << r;
}

TEST(Portability, BestEverywhereHasPPOne) {
    const auto& in = inputs();
    const json j = run_json({in.cpu_a, in.gpu, "--peak", "CPU A=1000"});
    EXPECT_EQ(j.at("platforms"), json({kCpuA, kGpu}));
    EXPECT_NEAR(find_program(j, "portla")->at("pp_app").get<double>(), 1.0, kTol);
    EXPECT_NEAR(find_program(j, "vendor BLAS")->at("pp_app").get<double>(), 0.5,
                kTol);  // 0.5 and 0.5
    // arch: portla 0.1 and 0.5 -> 2 / (10 + 2)
    EXPECT_NEAR(find_program(j, "portla")->at("pp_arch").get<double>(), 2.0 / 12.0, kTol);
}

TEST(Portability, HarmonicMeanOfHalfAndOne) {
    const auto& in = inputs();
    const json j = run_json({in.cpu_b, in.gpu});
    EXPECT_EQ(j.at("platforms"), json({kCpuB, kGpu, kCpuA}));  // the GPU file's host is CPU A
    // portla: 0.5 on CPU B, 1 on the GPU, 1 on CPU A (omp at 80 is all there is) -> 3 / 4
    EXPECT_NEAR(find_program(j, "portla")->at("pp_app").get<double>(), 0.75, kTol);
    // vendor BLAS: 1 on CPU B, 0.5 on the GPU, not on CPU A -> 0
    EXPECT_EQ(find_program(j, "vendor BLAS")->at("pp_app").get<double>(), 0.0);
}

TEST(Portability, HarmonicMeanOfHalfAndOneTwoPlatforms) {
    // CPU B and the GPU only: vendor BLAS 1 and 0.5, portla 0.5 and 1 -> 2 / 3 each.
    const std::string gpu_only = write_json(
        "gpu_only.json",
        result_file(kGpu, "Test CPU A", 8,
                    {point("cg-dense", "cuda", kN, 17000), point("cg-dense", "cublas", kN, 8500)}));
    RunResult r;
    const json j = run_json({inputs().cpu_b, gpu_only}, &r);
    EXPECT_EQ(j.at("platforms"), json({kCpuB, kGpu}));
    EXPECT_NEAR(find_program(j, "portla")->at("pp_app").get<double>(), 2.0 / 3.0, kTol);
    EXPECT_NEAR(find_program(j, "vendor BLAS")->at("pp_app").get<double>(), 2.0 / 3.0, kTol);
    EXPECT_TRUE(contains(r.out, "66.7")) << r;
    // No --peak for CPU B: its architectural efficiencies are null, so is PP over both.
    const json* portla = find_program(j, "portla");
    EXPECT_TRUE(portla->at("arch_efficiency").at(kCpuB).is_null());
    EXPECT_NEAR(portla->at("arch_efficiency").at(kGpu).get<double>(), 0.5, kTol);
    EXPECT_TRUE(portla->at("pp_arch").is_null());
    EXPECT_EQ(find_program(j, "sequential")->at("pp_arch").get<double>(), 0.0);  // not on the GPU
    EXPECT_TRUE(j.at("peak_gflops").at(kCpuB).is_null());
    EXPECT_TRUE(contains(r.err, "no peak FP64 FLOP rate known for '" + kCpuB + "'")) << r;
}

// One OpenCL source on each device: the opencl points of a file belong to its OpenCL device's
// platform (PoCL's CPU device: the host's CPU; a GPU: by its name, as cuda's).
TEST(Portability, OpenclPointsGoToTheirDevicesPlatform) {
    json cpu =
        result_file("", "Test CPU B", 16,
                    {point("cg-dense", "omp", kN, 100), point("cg-dense", "opencl", kN, 80)});
    cpu["opencl_device"] = "cpu-haswell-Test CPU B";
    cpu["opencl_device_is_cpu"] = true;
    json gpu =
        result_file(kGpu, "Test CPU B", 16,
                    {point("cg-dense", "cuda", kN, 10000), point("cg-dense", "opencl", kN, 12500)});
    gpu["opencl_device"] = kGpu;
    gpu["opencl_device_is_cpu"] = false;
    const json j = run_json({write_json("cl_cpu.json", cpu), write_json("cl_gpu.json", gpu)});
    EXPECT_EQ(j.at("platforms"), json({kCpuB, kGpu}));
    const json* cl = find_program(j, "portla opencl");
    ASSERT_NE(cl, nullptr) << j.dump(1);
    // 0.8 on the CPU (omp is best), 1 on the GPU (faster than cuda): PP = 2 / (1.25 + 1)
    EXPECT_NEAR(cl->at("app_efficiency").at(kCpuB).get<double>(), 0.8, kTol);
    EXPECT_NEAR(cl->at("app_efficiency").at(kGpu).get<double>(), 1.0, kTol);
    EXPECT_NEAR(cl->at("pp_app").get<double>(), 2.0 / 2.25, kTol);
    // portla: the fastest backend per platform, opencl included
    EXPECT_EQ(find_program(j, "portla")->at("backend"), json({{kCpuB, "omp"}, {kGpu, "opencl"}}));
    EXPECT_NEAR(find_program(j, "portla")->at("pp_app").get<double>(), 1.0, kTol);
    EXPECT_NEAR(find_program(j, "portla cuda")->at("app_efficiency").at(kGpu).get<double>(), 0.8,
                kTol);

    // opencl points without their device (an older bench): a clear error
    json old = gpu;
    old.erase("opencl_device_is_cpu");
    const std::string old_path = write_json("cl_old.json", old);
    const RunResult r = run_portla({"portability", old_path});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, "opencl_device_is_cpu")) << r;
}

TEST(Portability, PeakFlagOverridesTableAndFloatUsesFP32) {
    const auto& in = inputs();
    json j = run_json({in.gpu, "--peak", "H100=68000", "--peak", "CPU A=1000"});
    EXPECT_NEAR(find_program(j, "portla cuda")->at("arch_efficiency").at(kGpu).get<double>(), 0.25,
                kTol);

    const std::string f =
        write_json("float.json", result_file(kGpu, "Test CPU A", 8,
                                             {point("cg-dense", "cuda", kN, 33500, true, "float"),
                                              point("cg-dense", "omp", kN, 100, true, "float")},
                                             "float"));
    j = run_json({f, "--peak", "CPU A=1000"});
    EXPECT_EQ(j.at("precision"), "float");
    EXPECT_NEAR(j.at("peak_gflops").at(kGpu).get<double>(), 67000, kTol);  // H100 SXM FP32
    EXPECT_NEAR(find_program(j, "portla cuda")->at("arch_efficiency").at(kGpu).get<double>(), 0.5,
                kTol);
}

TEST(Portability, OtherN) {
    const auto& in = inputs();
    const json j = run_json({in.cpu_a, "--n", "2048"});
    EXPECT_EQ(j.at("n"), 2048);
    ASSERT_EQ(j.at("programs").size(), 2u);  // portla omp and portla
    EXPECT_NEAR(find_program(j, "portla omp")->at("performance_gflops").at(kCpuA).get<double>(),
                5000, 1e-6);
}

// --kernel cg: the sparse CG points (3-D Poisson, N = 128^3 by default), cuSPARSE as the GPU's
// vendor library, opencl on both devices; the dense points of the same files are not read.
TEST(Portability, SparseCgKernel) {
    const double n = 128.0 * 128 * 128;
    const json cpu =
        result_file("", "Test CPU A", 8,
                    {point("cg", "omp", n, 20), point("cg", "opencl", n, 10),
                     point("cg", "omp", 64.0 * 64 * 64, 1), point("cg-dense", "omp", kN, 100)});
    json cpu_cl = cpu;
    cpu_cl["opencl_device"] = "pthread-test";
    cpu_cl["opencl_device_is_cpu"] = true;
    json gpu = result_file(kGpu, "Test CPU A", 8,
                           {point("cg", "cuda", n, 400), point("cg", "cusparse", n, 200),
                            point("cg", "opencl", n, 320)});
    gpu["opencl_device"] = kGpu;
    gpu["opencl_device_is_cpu"] = false;
    const json j = run_json(
        {write_json("sp_cpu.json", cpu_cl), write_json("sp_gpu.json", gpu), "--kernel", "cg"});
    EXPECT_EQ(j.at("kernel"), "cg");
    EXPECT_EQ(j.at("n"), 2097152);
    EXPECT_NEAR(j.at("flops_per_iteration").get<double>(),
                2.0 * (7.0 * n - 6.0 * 128 * 128) + 10.0 * n, 1e-6);
    const json* cl = find_program(j, "portla opencl");
    ASSERT_NE(cl, nullptr);
    EXPECT_NEAR(cl->at("app_efficiency").at(kCpuA).get<double>(), 0.5, 1e-9);
    EXPECT_NEAR(cl->at("app_efficiency").at(kGpu).get<double>(), 0.8, 1e-9);
    EXPECT_NEAR(cl->at("pp_app").get<double>(), 2.0 / (1 / 0.5 + 1 / 0.8), 1e-9);
    const json* vendor = find_program(j, "vendor BLAS");
    ASSERT_NE(vendor, nullptr);
    EXPECT_EQ(vendor->at("backend").at(kGpu), "cusparse");
    EXPECT_NEAR(vendor->at("pp_app").get<double>(), 0, 1e-12);  // not on the CPU
    EXPECT_NEAR(find_program(j, "portla")->at("pp_app").get<double>(), 1.0, 1e-9);
    // the 64^3 point with --n
    const json small = run_json({write_json("sp_cpu2.json", cpu_cl), "--kernel", "cg", "--n",
                                 std::to_string(64 * 64 * 64)});
    EXPECT_NEAR(find_program(small, "portla omp")->at("performance_gflops").at(kCpuA).get<double>(),
                1, 1e-9);
}

TEST(Portability, Errors) {
    const auto& in = inputs();
    RunResult r = run_portla({"portability"});
    EXPECT_CLI_ERROR(r);

    const std::string missing = temp_path("missing.json");
    r = run_portla({"portability", in.cpu_a, missing});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, missing)) << r;

    const std::string broken = write_file("broken.json", "{\"points\": [");
    r = run_portla({"portability", in.cpu_a, broken});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, broken)) << r;

    const std::string not_bench = write_file("not_bench.json", "[1, 2, 3]");
    r = run_portla({"portability", not_bench});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, not_bench)) << r;

    const std::string no_time = write_json(
        "no_time.json",
        result_file(
            "", "X", 1,
            json::array({json{
                {"kernel", "cg-dense"}, {"backend", "omp"}, {"n", 4096}, {"correct", true}}})));
    r = run_portla({"portability", no_time});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, "time_s")) << r;

    r = run_portla({"portability", in.cpu_a, in.gpu, "--n", "1000"});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, "N = 1000")) << r;
    EXPECT_TRUE(contains(r.err, "2048, 4096")) << r;  // the sizes there are

    const std::string no_cg = write_json(
        "no_cg.json", result_file("", "X", 1, json::array({point("dot", "omp", 1024, 1)})));
    r = run_portla({"portability", no_cg});
    EXPECT_CLI_ERROR(r);
    EXPECT_TRUE(contains(r.err, "cg-dense")) << r;

    for (const char* bad : {"H100", "H100=", "=5", "H100=abc", "H100=-3", "H100=0", "H100=5x"}) {
        r = run_portla({"portability", in.gpu, "--peak", bad});
        EXPECT_CLI_ERROR(r);
        EXPECT_TRUE(contains(r.err, "--peak")) << r;
    }

    const std::string mixed = write_json(
        "mixed.json",
        result_file("", "Test CPU A", 8,
                    json::array({point("cg-dense", "omp", kN, 1, true, "float")}), "float"));
    r = run_portla({"portability", in.cpu_a, mixed});
    EXPECT_CLI_ERROR(r);

    r = run_portla({"portability", in.cpu_a, "--json", "/nonexistent-dir/pp.json"});
    EXPECT_CLI_ERROR(r);
}

}  // namespace
