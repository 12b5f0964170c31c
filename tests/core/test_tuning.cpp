// Tuning profiles (portla/tuning.hpp): JSON round trip, lookup by size band, validation, the
// load rules (malformed or foreign profile: warning and shipped defaults) and the explicit
// launch winning over the profile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/tuning.hpp"

namespace portla::tuning {
namespace {

std::string temp_file(const std::string& stem) {
    return ::testing::TempDir() + "portla_tuning_" + std::to_string(::getpid()) + "_" + stem;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Three bands of axpby on omp with distinct team sizes, one of dot.
Profile sample(const Executor& exec) {
    Profile p;
    p.identity = identify(exec);
    p.created = "2026-11-24T00:00:00Z";
    p.commit = "abc1234";
    p.rule = "test";
    p.bands[Kernel::axpby] = {{0, 999, {64, 2, 1}, 1.5, 20.0, 1.0},
                              {1000, 99999, {128, 8, 2}, 2.5, 25.0, 1.2},
                              {100000, unbounded, {1024, 1, 3}, 3.5, 30.0, 1.3}};
    p.bands[Kernel::dot] = {{0, unbounded, {32, 16, 1}, 0, 0, 0}};
    return p;
}

// Names the profile file (set_profile_file) for one test and forgets the loaded profiles before
// and after.
class ProfileFile : public ::testing::Test {
protected:
    void use(const std::string& path) {
        set_profile_file(path);
        reload();
    }
    void TearDown() override {
        set_profile_file("");
        reload();
    }
    Executor exec = Executor::omp();
};

TEST(Tuning, KernelNamesRoundTrip) {
    for (Kernel k : kernels()) EXPECT_EQ(kernel_from_string(to_string(k)), k);
    EXPECT_EQ(to_string(Kernel::fused_cg), "fused-cg");
    EXPECT_THROW(kernel_from_string("gemv"), BadInput);
}

TEST(Tuning, ProfileRoundTripsThroughJson) {
    const Profile p = sample(Executor::omp());
    const Profile q = from_json(to_json(p), "memory");
    EXPECT_EQ(q.origin, "memory");
    EXPECT_EQ(q.identity.backend, p.identity.backend);
    EXPECT_EQ(q.identity.device, p.identity.device);
    EXPECT_EQ(q.created, p.created);
    EXPECT_EQ(q.commit, p.commit);
    ASSERT_EQ(q.bands.size(), p.bands.size());
    for (const auto& [k, bands] : p.bands) {
        ASSERT_EQ(q.bands.at(k).size(), bands.size());
        for (std::size_t i = 0; i < bands.size(); ++i) {
            const Band &a = bands[i], &b = q.bands.at(k)[i];
            EXPECT_EQ(a.n_min, b.n_min);
            EXPECT_EQ(a.n_max, b.n_max);
            EXPECT_EQ(a.launch.work_group_size, b.launch.work_group_size);
            EXPECT_EQ(a.launch.items_per_thread, b.launch.items_per_thread);
            EXPECT_EQ(a.launch.threads, b.launch.threads);
            EXPECT_DOUBLE_EQ(a.t0_us, b.t0_us);
            EXPECT_DOUBLE_EQ(a.wa_gbs, b.wa_gbs);
            EXPECT_DOUBLE_EQ(a.speedup, b.speedup);
        }
    }
}

TEST(Tuning, LookupFindsTheBandOfEverySize) {
    const Profile p = sample(Executor::omp());
    // Both edges of every band.
    EXPECT_EQ(p.lookup(Kernel::axpby, 0).threads, 1);
    EXPECT_EQ(p.lookup(Kernel::axpby, 999).threads, 1);
    EXPECT_EQ(p.lookup(Kernel::axpby, 1000).threads, 2);
    EXPECT_EQ(p.lookup(Kernel::axpby, 1000).work_group_size, 128);
    EXPECT_EQ(p.lookup(Kernel::axpby, 99999).items_per_thread, 8);
    EXPECT_EQ(p.lookup(Kernel::axpby, 100000).threads, 3);
    EXPECT_EQ(p.lookup(Kernel::axpby, unbounded).work_group_size, 1024);
    EXPECT_EQ(p.lookup(Kernel::dot, 12345).items_per_thread, 16);
    // A kernel without bands: the library's default launch.
    EXPECT_EQ(p.lookup(Kernel::norm2, 5).work_group_size, LaunchConfig{}.work_group_size);
    EXPECT_EQ(p.lookup(Kernel::norm2, 5).threads, 0);
}

TEST(Tuning, MalformedProfilesAreRefusedWithTheReason) {
    const std::string good = to_json(sample(Executor::omp()));
    const auto refused = [](const std::string& text, const std::string& why) {
        try {
            (void)from_json(text, "f.json");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const BadInput& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("f.json"), std::string::npos) << what;
            EXPECT_NE(what.find(why), std::string::npos) << what;
        }
    };
    refused("{not json", "not JSON");
    refused("[1, 2]", "not a \"portla-tuning\" file");
    refused(R"({"format": "portla-tuning", "version": 2})", "version 2");
    std::string s = good;
    s.replace(s.find("\"n_min\": 1000"), 13, "\"n_min\": 1001");  // a gap
    refused(s, "bands must be sorted");
    s = good;
    s.replace(s.find("\"wg\": 64"), 8, "\"wg\": 48");
    refused(s, "multiple of 32");
    s = good;
    s.replace(s.find("\"axpby\""), 7, "\"gemv\"");
    refused(s, "unknown tuned kernel 'gemv'");
    // The last band of a kernel must reach every size.
    Profile p = sample(Executor::omp());
    p.bands[Kernel::dot][0].n_max = 10;
    refused(to_json(p), "last band must be unbounded");
    // Fields of the wrong type or out of range: refused by name, never cast (a float or a
    // 64-bit value into an int, -1 into size_t).
    refused(R"({"format": 1, "version": 1})", "not a \"portla-tuning\" file");
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string t = good;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    refused(with("\"wg\": 64", "\"wg\": 256.9"), "wg 256.9 is not an integer");
    refused(with("\"wg\": 64", "\"wg\": 4294967552"), "wg 4294967552 is not in");
    refused(with("\"wg\": 64", "\"wg\": 1e300"), "is not an integer");
    refused(with("\"n_min\": 1000", "\"n_min\": -1"), "n_min -1 is not in");
    refused(with("\"items\": 8", "\"items\": 1000000000"), "is not in");
    refused(with("\"items\": 8", "\"items\": 65"), "items per thread 65 is not in [1, 64]");
    refused(with("\"threads\": 3", "\"threads\": 100000"), "is not in");
    refused(with("\"threads\": 3", "\"threads\": 5000"), "threads 5000 is not in [0, 4096]");
    refused(with("\"threads\": 3", "\"threads\": \"3\""), "threads \"3\" is not an integer");
}

// A flat sweep fits W_a = inf: written as null (JSON has no inf) and read back as 0.
TEST(Tuning, NonFiniteFitsRoundTripAsNull) {
    Profile p = sample(Executor::omp());
    p.bands[Kernel::axpby][0].wa_gbs = std::numeric_limits<double>::infinity();
    p.bands[Kernel::axpby][0].t0_us = std::numeric_limits<double>::quiet_NaN();
    const std::string text = to_json(p);
    EXPECT_NE(text.find("\"wa_gbs\": null"), std::string::npos) << text;
    const Profile q = from_json(text, "memory");
    EXPECT_EQ(q.bands.at(Kernel::axpby)[0].wa_gbs, 0.0);
    EXPECT_EQ(q.bands.at(Kernel::axpby)[0].t0_us, 0.0);
}

TEST(Tuning, ShippedDefaultsOnTheCpuKeepTheOmpBehaviour) {
    const Profile p = shipped_defaults(Executor::omp());
    for (Kernel k : kernels()) {
        ASSERT_EQ(p.bands.at(k).size(), 1u);
        EXPECT_EQ(p.lookup(k, 1 << 20).threads, 0);
    }
    EXPECT_EQ(p.identity.backend, "omp");
    EXPECT_NO_THROW(from_json(to_json(p), "shipped"));
}

TEST(Tuning, ShippedDefaultsOfTheH100) {
    const DeviceIdentity h100{"cuda", "NVIDIA H100 80GB HBM3, sm_90",
                              "driver 13000, runtime 13000"};
    const Profile p = shipped_defaults(h100);
    EXPECT_NO_THROW(from_json(to_json(p), "shipped"));
    EXPECT_EQ(p.lookup(Kernel::axpby, 1 << 20).work_group_size, 256);
    EXPECT_EQ(p.lookup(Kernel::axpby, 1 << 26).work_group_size, 512);
    EXPECT_EQ(p.lookup(Kernel::dot, 1 << 12).items_per_thread, 1);
    EXPECT_EQ(p.lookup(Kernel::dot, 1 << 21).items_per_thread, 4);
    EXPECT_EQ(p.lookup(Kernel::fused_cg, 1 << 26).items_per_thread, 8);
    EXPECT_EQ(p.lookup(Kernel::norm2, 1 << 26).work_group_size, 256);
    // Another GPU, or an H100 of another compute capability: one band of 256 x 4 per kernel.
    for (const char* device : {"NVIDIA A100-SXM4-80GB, sm_80", "NVIDIA H100 (emulated), sm_100"}) {
        const Profile q = shipped_defaults(DeviceIdentity{"cuda", device, ""});
        for (Kernel k : kernels()) {
            ASSERT_EQ(q.bands.at(k).size(), 1u) << device;
            EXPECT_EQ(q.lookup(k, 1 << 26).work_group_size, 256) << device;
            EXPECT_EQ(q.lookup(k, 1 << 26).items_per_thread, 4) << device;
        }
    }
}

TEST(Tuning, ShippedDefaultsOfThisGpu) {
    if (cuda_device_count() == 0) GTEST_SKIP() << "cuda: no GPU present on this machine";
    const Executor gpu = Executor::cuda();
    const Profile p = shipped_defaults(gpu);
    EXPECT_EQ(p.identity.backend, "cuda");
    EXPECT_NE(p.identity.versions.find("driver"), std::string::npos) << p.identity.versions;
    EXPECT_NO_THROW(from_json(to_json(p), "shipped"));
}

TEST_F(ProfileFile, AValidProfileOfThisDeviceIsUsed) {
    const std::string path = temp_file("valid.json");
    write(path, to_json(sample(exec)));
    use(path);
    const Profile& p = active_profile(exec);
    EXPECT_EQ(p.origin, path);
    EXPECT_EQ(launch_for(exec, Kernel::axpby, 5000).threads, 2);
    EXPECT_EQ(launch_for(exec, Kernel::axpby, 500000).threads, 3);
    // Kernels the file does not name keep the shipped defaults.
    EXPECT_EQ(p.bands.at(Kernel::copy).size(), 1u);
    EXPECT_EQ(launch_for(exec, Kernel::copy, 5000).threads, 0);
}

TEST_F(ProfileFile, AnExplicitLaunchWinsOverTheProfile) {
    const std::string path = temp_file("explicit.json");
    write(path, to_json(sample(exec)));
    use(path);
    Executor mine = Executor::omp();
    EXPECT_FALSE(mine.launch_is_set());
    EXPECT_EQ(launch_for(mine, Kernel::axpby, 5000).threads, 2);
    mine.set_launch({512, 2, 1});
    EXPECT_TRUE(mine.launch_is_set());
    const LaunchConfig got = launch_for(mine, Kernel::axpby, 5000);
    EXPECT_EQ(got.threads, 1);
    EXPECT_EQ(got.work_group_size, 512);
    EXPECT_EQ(got.items_per_thread, 2);
    EXPECT_FALSE(exec.launch_is_set());  // other executors of the device keep the profile
    EXPECT_EQ(launch_for(exec, Kernel::axpby, 5000).threads, 2);
}

TEST_F(ProfileFile, AMalformedProfileGivesOneWarningAndTheDefaults) {
    const std::string path = temp_file("malformed.json");
    write(path, "{\"format\": \"portla-tuning\", \"version\": 1, \"kernels\": 3");
    use(path);
    ::testing::internal::CaptureStderr();
    const Profile& p = active_profile(exec);
    (void)active_profile(exec);  // loaded once: no second warning
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(p.origin.find("shipped defaults"), std::string::npos) << p.origin;
    EXPECT_EQ(launch_for(exec, Kernel::axpby, 5000).threads, 0);
    EXPECT_EQ(err.rfind("portla: warning: tuning profile '" + path + "'", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(ProfileFile, AProfileOfAnotherDeviceGivesOneWarningAndTheDefaults) {
    Profile foreign = sample(exec);
    foreign.identity.device = "Some Other CPU, 7 threads";
    const std::string path = temp_file("foreign.json");
    write(path, to_json(foreign));
    use(path);
    ::testing::internal::CaptureStderr();
    const Profile& p = active_profile(exec);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(p.origin.find("shipped defaults"), std::string::npos) << p.origin;
    EXPECT_NE(err.find("Some Other CPU, 7 threads"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(launch_for(exec, Kernel::axpby, 5000).threads, 0);
}

TEST_F(ProfileFile, AProfileOfAnotherBackendIsLeftAloneSilently) {
    Profile gpu = sample(exec);
    gpu.identity = {"cuda", "NVIDIA H100 80GB HBM3, sm_90", "driver 13000, runtime 13000"};
    const std::string path = temp_file("other-backend.json");
    write(path, to_json(gpu));
    use(path);
    ::testing::internal::CaptureStderr();
    const Profile& p = active_profile(exec);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_NE(p.origin.find("shipped defaults"), std::string::npos) << p.origin;
}

TEST_F(ProfileFile, AMissingNamedFileWarnsAndAMissingCacheFileIsSilent) {
    use(temp_file("does-not-exist.json"));
    ::testing::internal::CaptureStderr();
    (void)active_profile(exec);
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("does not exist"), std::string::npos) << err;

    set_profile_file("");
    const std::string cache = temp_file("cache-dir");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    reload();
    EXPECT_EQ(profile_path(exec), cache + "/portla/tuning-" + identify(exec).slug() + ".json");
    ::testing::internal::CaptureStderr();
    const Profile& p = active_profile(exec);
    err = ::testing::internal::GetCapturedStderr();
    ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(err, "");
    EXPECT_NE(p.origin.find("shipped defaults"), std::string::npos);
}

TEST(Tuning, SlugIsAFileNameOfTheBackendAndDevice) {
    DeviceIdentity id{"cuda", "NVIDIA H100 80GB HBM3, sm_90", "driver 1, runtime 2"};
    EXPECT_EQ(id.slug(), "cuda-nvidia-h100-80gb-hbm3-sm-90");
}

TEST(Tuning, SetLaunchRefusesWhatAProfileMayNotHold) {
    Executor exec = Executor::omp();
    for (const LaunchConfig& bad :
         {LaunchConfig{256, 4, -1}, LaunchConfig{256, 4, 5000}, LaunchConfig{256, 0, 0},
          LaunchConfig{256, 65, 0}, LaunchConfig{48, 4, 0}, LaunchConfig{2048, 4, 0}}) {
        EXPECT_THROW(exec.set_launch(bad), BadInput);
        EXPECT_EQ(launch_problem(bad).empty(), false);
    }
    EXPECT_FALSE(exec.launch_is_set());
    EXPECT_EQ(launch_problem(LaunchConfig{1024, 64, 4096}), "");
}

TEST_F(ProfileFile, AFileLargerThanAProfileIsNotReadAndGivesTheDefaults) {
    const std::string path = temp_file("large.json");
    write(path, std::string((1 << 20) + 1, ' '));
    use(path);
    ::testing::internal::CaptureStderr();
    const Profile& p = active_profile(exec);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(p.origin.find("shipped defaults"), std::string::npos) << p.origin;
    EXPECT_NE(err.find("larger than 1 MiB"), std::string::npos) << err;
}

}  // namespace
}  // namespace portla::tuning
