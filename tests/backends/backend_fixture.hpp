// Shared pieces of the backend tests: the executor under test (PORTLA_TEST_BACKEND), the
// reference executor, random data and tolerances.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "portla/portla.hpp"

namespace portla::test {

/// Sizes every vector kernel is tested at: empty, one, around a warp, around a work-group,
/// a prime above 10^4, and one above 10^6 that no work-group size divides.
inline const std::vector<std::size_t> vector_sizes{0,   1,   31,   32,    33,     255,
                                                   256, 257, 1025, 10007, 1048583};

/// Sets `exec` to the backend under test, or skips (with the reason) when it cannot run here.
class BackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string name = PORTLA_TEST_BACKEND;
        if (name == "cuda") {
            if (!cuda_compiled()) GTEST_SKIP() << "cuda backend not compiled into this build";
            if (cuda_device_count() == 0)
                GTEST_SKIP() << "cuda backend: no GPU present on this machine";
        }
        exec = Executor::create(name);
    }
    Executor exec = Executor::reference();
    Executor ref = Executor::reference();
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
