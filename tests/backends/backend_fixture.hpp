// Shared pieces of the backend tests: the executor under test (backend_under_test()), the
// reference executor, random data and tolerances.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "portla/portla.hpp"
#include "scoped_env.hpp"

/// First line of a test that needs the kernel family `family` (KernelFamily::krylov, ...): skips
/// it, with the reason, on a backend that does not implement it yet.
#define PORTLA_REQUIRE(family)                    \
    do {                                          \
        this->require(family);                    \
        if (::testing::Test::IsSkipped()) return; \
    } while (0)

namespace portla::test {

/// The name of the backend this test binary checks ("reference", "omp", "cuda", "opencl";
/// tests/backends/backend_under_test.cpp, compiled per binary).
const char* backend_under_test();

/// Expects `f` to throw BadInput with the one-line message `message` (a variable's refusal:
/// "PORTLA_X=typo: expected ...").
template <typename F>
void expect_bad_input(F&& f, const std::string& message) {
    try {
        f();
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()), message);
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected BadInput \"" << message << "\", got: " << e.what();
        return;
    }
    ADD_FAILURE() << "expected BadInput \"" << message << "\", nothing was thrown";
}

/// Sizes every vector kernel is tested at: empty, one, around a warp, around a work-group,
/// a prime above 10^4, and one above 10^6 that no work-group size divides.
inline const std::vector<std::size_t> vector_sizes{0,   1,   31,   32,    33,     255,
                                                   256, 257, 1025, 10007, 1048583};

/// Sets `exec` to the backend under test (executor_from_environment), or skips (with the reason)
/// when it cannot run here: not compiled, no device, or a kernel family the suite needs
/// (`families`) that the backend does not implement yet.
class BackendTest : public ::testing::Test {
protected:
    explicit BackendTest(std::vector<KernelFamily> families = {})
        : families_(std::move(families)) {}

    void SetUp() override {
        const std::string name = backend_under_test();
        if (name == "cuda" || name == "opencl") {
            const Backend b = name == "cuda" ? Backend::cuda : Backend::opencl;
            if (!compiled(b)) GTEST_SKIP() << name << " backend not compiled into this build";
            if (device_count(b) == 0)
                GTEST_SKIP() << name << " backend: no "
                             << (b == Backend::cuda ? "GPU" : "OpenCL platform or device")
                             << " present on this machine";
        }
        // as the CLI does: PORTLA_OPENCL_DEVICE picks the device of a plain "opencl", and the
        // PORTLA_* variables set the options (a run of a suite with PORTLA_OMP_MIN_PARALLEL=0)
        exec = executor_from_environment(name);
        for (KernelFamily f : families_) require(f);
    }
    /// Skips the test when the backend under test lacks f (in a test body: PORTLA_REQUIRE).
    void require(KernelFamily f) {
        if (!implements(exec.backend(), f))
            GTEST_SKIP() << "the " << to_string(f) << " kernels are not implemented on the "
                         << exec.name() << " backend yet";
    }
    Executor exec = Executor::reference();
    Executor ref = Executor::reference();

private:
    std::vector<KernelFamily> families_;
};

template <typename T>
std::vector<T> random_vector(std::size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(dist(gen));
    return v;
}

/// Output buffers start as NaN so that an element a kernel forgets to write fails the test.
template <typename T>
Array<T> poisoned(const Executor& exec, std::size_t n) {
    return Array<T>(exec, std::vector<T>(n, std::numeric_limits<T>::quiet_NaN()));
}

/// ||b - A x|| / ||b|| computed in double on the host from the coordinate data: an
/// independent check of a solver's answer.
template <typename T>
double true_relative_residual(const MatrixData& d, const std::vector<T>& x,
                              const std::vector<T>& b) {
    std::vector<double> r(b.begin(), b.end());
    for (std::size_t k = 0; k < d.entries(); ++k)
        r[d.row_idx[k]] -= d.values[k] * double(x[d.col_idx[k]]);
    double rn = 0, bn = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        rn += r[i] * r[i];
        bn += double(b[i]) * b[i];
    }
    return std::sqrt(rn / bn);
}

template <typename T>
constexpr double eps() {
    return std::numeric_limits<T>::epsilon();
}

namespace solver_defaults {

// The tolerance must lie well above what the precision can attain, about eps cond(A) (the
// true residual stagnates there): 1e-10 in double; 1e-4 in float, with every float test problem
// conditioned below 1000 (6e-8 * 1000 = 6e-5).
template <typename T>
solver::Settings default_settings(solver::Preconditioner p = solver::Preconditioner::none) {
    solver::Settings s;
    s.rtol = std::is_same<T, double>::value ? 1e-10 : 1e-4;
    s.max_iters = 2000;
    s.precond = p;
    return s;
}

// CG iterations may differ between two implementations through rounding only: 2 in double,
// 10% (at least 3) in float.
template <typename T>
int slack(int expected_iters) {
    return std::is_same<T, double>::value ? 2 : std::max(3, expected_iters / 10);
}

}  // namespace solver_defaults

}  // namespace portla::test
