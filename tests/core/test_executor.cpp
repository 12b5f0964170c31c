// Executor creation, launch configuration, memory copies between executors, and the Timer.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "portla/portla.hpp"

namespace portla {
namespace {

TEST(Executor, CreatesByName) {
    EXPECT_EQ(Executor::create("reference").backend(), Backend::reference);
    EXPECT_EQ(Executor::create("omp").backend(), Backend::omp);
    EXPECT_EQ(Executor::create("omp").name(), "omp");
    const auto automatic = Executor::create("auto");
    if (cuda_device_count() > 0)
        EXPECT_EQ(automatic.backend(), Backend::cuda);
    else
        EXPECT_EQ(automatic.backend(), omp_compiled() ? Backend::omp : Backend::reference);
    EXPECT_THROW(Executor::create("vulkan"), BadInput);
    EXPECT_THROW(Executor::create("cuda:x"), BadInput);
    EXPECT_THROW(Executor::create("opencl:0:x"), BadInput);
}

// opencl: never picked by auto; device N, or device D of platform P, as portla info lists them.
TEST(Executor, OpenclByIndexAndByPlatform) {
    if (!compiled(Backend::opencl)) {
        EXPECT_THROW(Executor::create("opencl"), NotCompiled);
        GTEST_SKIP() << "opencl backend not compiled into this build";
    }
    if (opencl_device_count() == 0) {
        EXPECT_THROW(Executor::create("opencl"), DeviceError);
        GTEST_SKIP() << "opencl backend: no OpenCL platform or device present on this machine";
    }
    EXPECT_NE(Executor::create("auto").backend(), Backend::opencl);
    const auto devices = opencl_devices();
    ASSERT_EQ(devices.size(), std::size_t(opencl_device_count()));
    for (const auto& d : devices) {
        const std::string by_platform =
            "opencl:" + std::to_string(d.platform) + ":" + std::to_string(d.platform_device);
        EXPECT_EQ(Executor::create(by_platform).device_id(), d.id) << by_platform;
        EXPECT_EQ(Executor::create("opencl:" + std::to_string(d.id)).device_name(), d.name);
    }
    EXPECT_THROW(Executor::create("opencl:" + std::to_string(devices.size())), DeviceError);
    EXPECT_THROW(Executor::create("opencl:99:0"), DeviceError);
}

// PORTLA_OPENCL_DEVICE picks the device of a plain "opencl" (N or P:D) made from the environment
// (executor_from_environment): how the opencl tests and benchmarks run on NVIDIA's GPU where
// PoCL's CPU is device 0. Executor::create("opencl") is device 0 whatever it says.
TEST(Executor, OpenclDeviceFromTheEnvironment) {
    if (!compiled(Backend::opencl) || opencl_device_count() == 0)
        GTEST_SKIP() << "opencl backend: not compiled, or no OpenCL platform or device present";
    const auto devices = opencl_devices();
    const DeviceInfo& last = devices.back();
    const char* before = std::getenv("PORTLA_OPENCL_DEVICE");
    const std::string saved = before ? before : "";
    ::setenv("PORTLA_OPENCL_DEVICE", std::to_string(last.id).c_str(), 1);
    EXPECT_EQ(executor_from_environment("opencl").device_id(), last.id);
    EXPECT_EQ(Executor::create("opencl").device_id(), 0);
    const std::string pd =
        std::to_string(last.platform) + ":" + std::to_string(last.platform_device);
    ::setenv("PORTLA_OPENCL_DEVICE", pd.c_str(), 1);
    EXPECT_EQ(executor_from_environment("opencl").device_id(), last.id);
    EXPECT_EQ(executor_from_environment("opencl:0").device_id(), 0);  // an explicit device wins
    ::setenv("PORTLA_OPENCL_DEVICE", "x1", 1);
    EXPECT_THROW(executor_from_environment("opencl"), BadInput);
    ::setenv("PORTLA_OPENCL_DEVICE", std::to_string(devices.size()).c_str(), 1);
    EXPECT_THROW(executor_from_environment("opencl"), DeviceError);
    if (before)
        ::setenv("PORTLA_OPENCL_DEVICE", saved.c_str(), 1);
    else
        ::unsetenv("PORTLA_OPENCL_DEVICE");
}

TEST(Executor, CudaWithoutGpuIsAClearError) {
    if (cuda_device_count() > 0)
        GTEST_SKIP() << "a GPU is present: this test covers machines without one";
    if (cuda_compiled())
        EXPECT_THROW(Executor::create("cuda"), DeviceError);
    else
        EXPECT_THROW(Executor::create("cuda"), NotCompiled);
}

TEST(Executor, UnknownGpuIdIsAClearError) {
    if (!cuda_compiled()) GTEST_SKIP() << "cuda backend not compiled into this build";
    EXPECT_THROW(Executor::create("cuda:" + std::to_string(cuda_device_count() + 3)), DeviceError);
}

TEST(Executor, LaunchConfigIsValidated) {
    auto exec = Executor::omp();
    EXPECT_THROW(exec.set_launch({48, 1}), BadInput);
    EXPECT_THROW(exec.set_launch({2048, 1}), BadInput);
    EXPECT_THROW(exec.set_launch({64, 0}), BadInput);
    exec.set_launch({512, 8});
    EXPECT_EQ(exec.launch().work_group_size, 512);
    EXPECT_EQ(exec.launch().items_per_thread, 8);
}

TEST(Array, CopiesBetweenExecutors) {
    std::vector<Executor> execs{Executor::reference(), Executor::omp()};
    if (cuda_device_count() > 0) execs.push_back(Executor::cuda());
    const std::vector<double> host{3.5, -1.25, 7.0, 0.5, 11.0};
    for (const auto& a : execs)
        for (const auto& b : execs) {
            SCOPED_TRACE(a.name() + " -> " + b.name());
            Array<double> x(a, host);
            Array<double> y(b, x);
            EXPECT_EQ(y.to_host(), host);
            Array<double> z(b, host.size());
            z.copy_from(x);
            EXPECT_EQ(z.to_host(), host);
            Array<double> moved = std::move(z);
            EXPECT_EQ(moved.to_host(), host);
            EXPECT_EQ(z.size(), 0u);
        }
    Array<double> x(Executor::reference(), host);
    EXPECT_THROW(x.copy_from_host({1.0}), DimensionMismatch);
}

TEST(Array, HugeHostAllocationThrowsOutOfMemory) {
    EXPECT_THROW(Array<double>(Executor::reference(), std::size_t{1} << 60), OutOfMemory);
}

// Every backend that runs here: device events on a GPU, the steady clock on the CPU.
TEST(Timer, TimesWorkOnEveryBackend) {
    const std::size_t n = std::size_t{1} << 20;
    for (const Backend b : all_backends()) {
        if (device_count(b) == 0) continue;
        const auto exec = Executor::create(b);
        SCOPED_TRACE(exec.name());
        Array<double> x(exec, std::vector<double>(n, 1.5)), y(exec, std::vector<double>(n, 2.0));
        Timer timer(exec);
        timer.start();
        blas::axpby<double>(exec, 2.0, x, 0.5, y);
        timer.stop();
        const double s = timer.seconds();
        EXPECT_GE(s, 0.0);
        EXPECT_TRUE(std::isfinite(s)) << s;
        const auto got = y.to_host();
        EXPECT_EQ(got.front(), 4.0);
        EXPECT_EQ(got.back(), 4.0);
    }
}

// kernel_choices: the last kernel of each step, in the order the steps first chose, per thread;
// clear_kernel_choices forgets them; steps past the 32nd are dropped, the kept ones still update.
TEST(KernelChoices, LastOfEachStepInFirstOrderPerThread) {
    clear_kernel_choices();
    EXPECT_TRUE(kernel_choices().empty());
    detail::note_kernel("step.a", "one");
    detail::note_kernel("step.b", "two");
    const std::string a = "step.a";  // the same name at another address
    detail::note_kernel(a.c_str(), "three");
    auto got = kernel_choices();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].step, "step.a");
    EXPECT_EQ(got[0].kernel, "three");
    EXPECT_EQ(got[1].step, "step.b");
    EXPECT_EQ(got[1].kernel, "two");
    std::thread([] { EXPECT_TRUE(kernel_choices().empty()); }).join();

    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (int i = 0; i < 40; ++i) v.push_back("many." + std::to_string(i));
        return v;
    }();
    clear_kernel_choices();
    for (const auto& name : names) detail::note_kernel(name.c_str(), "x");
    detail::note_kernel(names[5].c_str(), "y");
    got = kernel_choices();
    ASSERT_EQ(got.size(), 32u);
    EXPECT_EQ(got[31].step, "many.31");
    EXPECT_EQ(got[5].kernel, "y");
    clear_kernel_choices();
    EXPECT_TRUE(kernel_choices().empty());
}

// On the CPU the timer is a wall clock in seconds: a 20 ms sleep between start and stop.
TEST(Timer, HostTimerMeasuresASleepInSeconds) {
    for (const Backend b : {Backend::reference, Backend::omp}) {
        if (device_count(b) == 0) continue;
        const auto exec = Executor::create(b);
        SCOPED_TRACE(exec.name());
        Timer timer(exec);
        timer.start();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        timer.stop();
        EXPECT_GE(timer.seconds(), 0.019);
        EXPECT_LT(timer.seconds(), 2.0);  // seconds, not milliseconds (a loaded machine: slack)
    }
}

}  // namespace
}  // namespace portla
