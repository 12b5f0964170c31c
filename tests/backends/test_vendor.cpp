// The vendor-library wrappers (OpenBLAS on the host, cuBLAS and cuSPARSE on cuda) against the
// reference backend on fresh random data, and the vendor-baseline CG against portla's CG.
// The cuda paths skip (with the reason) when cuda is not compiled or no GPU is present.

#include "backends/backend_fixture.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "portla/vendor.hpp"

namespace portla::test {
namespace {

// Empty, one, around a warp, around a work-group, a prime above 10^4, one above 10^6 that no
// work-group size divides.
const std::vector<std::size_t> sizes{0, 1, 33, 1025, 10007, 1048583};

// Skip reason of the cuda paths, empty when they can run here.
std::string cuda_skip_reason() {
    if (!cuda_compiled() || !vendor::available(Backend::cuda) ||
        !vendor::sparse_available(Backend::cuda))
        return "cuda backend not compiled into this build";
    if (cuda_device_count() == 0) return "no GPU present";
    return {};
}

// Tolerances. The vendor libraries do not document their summation order (SIMD lanes, threads,
// tree reductions), so the worst-case bound of a sum of n terms, (n - 1) eps sum |terms|, is all
// that holds for every order: at n = 10^6 in float it exceeds the result itself. Reductions are
// therefore checked against the probabilistic bound of Higham and Mary (SIAM J. Sci. Comput.
// 41(5), 2019): for independent rounding errors, |error| <= lambda sqrt(n) eps sum |terms| with
// probability at least 1 - 2 exp(-lambda^2 / 2); lambda = 8 puts a failure below 3e-14 per
// result. The reference's reductions are compensated (2 eps |sum|, added), so the bound is the
// vendor's alone.
template <typename T>
double sum_tol(std::size_t n, double abs_sum) {
    return (8 * std::sqrt(double(n)) + 2) * eps<T>() * abs_sum + 1e-300;
}
// a x + y is rounded at most twice (product, sum; FMA once) by each side: 2 eps (|a x| + |y|)
// each, 4 eps for their difference.
template <typename T>
double elem_tol(double magnitude) {
    return 4 * eps<T>() * magnitude + 1e-300;
}
// Row sums (gemv, SpMV) of k terms: the reference adds sequentially in T (k eps sum |terms|,
// a product rounding included), the vendor in an unknown order (the same worst case); the rows
// are short enough for the worst case to stay meaningful.
template <typename T>
double row_tol(std::size_t k, double abs_sum) {
    return 2 * double(k + 1) * eps<T>() * abs_sum + 1e-300;
}

// The BLAS paths under test: the executor whose vendor library (portla::vendor) is tested.
struct OpenblasPath {
    static std::string skip_reason() { return {}; }
    static Executor executor() { return Executor::omp(); }  // its backend picks OpenBLAS
    template <typename T>
    static void axpy(const Executor& e, T a, const_view<T> x, view<T> y) {
        vendor::axpy<T>(e, a, x, y);
    }
    template <typename T>
    static void copy(const Executor& e, const_view<T> x, view<T> y) {
        vendor::copy<T>(e, x, y);
    }
    template <typename T>
    static void dot(const Executor& e, const_view<T> x, const_view<T> y, view<T> r) {
        vendor::dot<T>(e, x, y, r);
    }
    template <typename T>
    static T dot_host(const Executor& e, const_view<T> x, const_view<T> y) {
        return vendor::dot_host<T>(e, x, y);
    }
    template <typename T>
    static void nrm2(const Executor& e, const_view<T> x, view<T> r) {
        vendor::nrm2<T>(e, x, r);
    }
    template <typename T>
    static void gemv(const Executor& e, std::size_t m, std::size_t n, const_view<T> a,
                     const_view<T> x, view<T> y) {
        vendor::gemv<T>(e, m, n, a, x, y);
    }
};

struct CublasPath {
    static std::string skip_reason() { return cuda_skip_reason(); }
    static Executor executor() { return Executor::cuda(0); }
    template <typename T>
    static void axpy(const Executor& e, T a, const_view<T> x, view<T> y) {
        vendor::axpy<T>(e, a, x, y);
    }
    template <typename T>
    static void copy(const Executor& e, const_view<T> x, view<T> y) {
        vendor::copy<T>(e, x, y);
    }
    template <typename T>
    static void dot(const Executor& e, const_view<T> x, const_view<T> y, view<T> r) {
        vendor::dot<T>(e, x, y, r);
    }
    template <typename T>
    static T dot_host(const Executor& e, const_view<T> x, const_view<T> y) {
        return vendor::dot_host<T>(e, x, y);
    }
    template <typename T>
    static void nrm2(const Executor& e, const_view<T> x, view<T> r) {
        vendor::nrm2<T>(e, x, r);
    }
    template <typename T>
    static void gemv(const Executor& e, std::size_t m, std::size_t n, const_view<T> a,
                     const_view<T> x, view<T> y) {
        vendor::gemv<T>(e, m, n, a, x, y);
    }
};

template <typename PathType, typename ValueType>
struct Case {
    using Path = PathType;
    using T = ValueType;
};

template <typename C>
class VendorBlas : public ::testing::Test {
protected:
    using Path = typename C::Path;
    using T = typename C::T;
    void SetUp() override {
        const std::string reason = Path::skip_reason();
        if (!reason.empty()) GTEST_SKIP() << reason;
        exec = Path::executor();
    }
    Executor exec = Executor::reference();
    Executor ref = Executor::reference();
};

using BlasCases = ::testing::Types<Case<OpenblasPath, double>, Case<OpenblasPath, float>,
                                   Case<CublasPath, double>, Case<CublasPath, float>>;
struct BlasCaseNames {
    template <typename C>
    static std::string GetName(int) {
        const std::string path =
            std::is_same<typename C::Path, OpenblasPath>::value ? "openblas" : "cublas";
        return path + (std::is_same<typename C::T, double>::value ? "_double" : "_float");
    }
};
TYPED_TEST_SUITE(VendorBlas, BlasCases, BlasCaseNames);

TYPED_TEST(VendorBlas, Axpy) {
    using T = typename TestFixture::T;
    using Path = typename TestFixture::Path;
    const T a = T(0.75);
    for (auto n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto xh = random_vector<T>(n, 2 * n + 1), yh = random_vector<T>(n, 2 * n + 2);
        Array<T> x(this->exec, xh), y(this->exec, yh);
        Array<T> xr(this->ref, xh), yr(this->ref, yh);
        Path::template axpy<T>(this->exec, a, x, y);
        blas::axpby<T>(this->ref, a, xr, T(1), yr);
        const auto got = y.to_host(), want = yr.to_host();
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_NEAR(got[i], want[i], elem_tol<T>(std::abs(a * xh[i]) + std::abs(yh[i])))
                << "i = " << i;
    }
}

TYPED_TEST(VendorBlas, Copy) {
    using T = typename TestFixture::T;
    using Path = typename TestFixture::Path;
    for (auto n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto xh = random_vector<T>(n, 3 * n + 1);
        Array<T> x(this->exec, xh);
        auto y = poisoned<T>(this->exec, n);
        Path::template copy<T>(this->exec, x, y);
        ASSERT_EQ(y.to_host(), xh);
    }
}

TYPED_TEST(VendorBlas, DotAndNrm2) {
    using T = typename TestFixture::T;
    using Path = typename TestFixture::Path;
    for (auto n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto xh = random_vector<T>(n, 5 * n + 1), yh = random_vector<T>(n, 5 * n + 2);
        Array<T> x(this->exec, xh), y(this->exec, yh);
        Array<T> xr(this->ref, xh), yr(this->ref, yh);
        double abs_xy = 0, abs_xx = 0;
        for (std::size_t i = 0; i < n; ++i) {
            abs_xy += std::abs(double(xh[i]) * yh[i]);
            abs_xx += double(xh[i]) * xh[i];
        }
        const double want_dot = blas::dot<T>(this->ref, xr, yr);
        const double want_norm = blas::norm2<T>(this->ref, xr);

        auto result = poisoned<T>(this->exec, 1);  // left in the executor's memory
        Path::template dot<T>(this->exec, x, y, result);
        EXPECT_NEAR(result.to_host()[0], want_dot, sum_tol<T>(n, abs_xy));
        EXPECT_NEAR(Path::template dot_host<T>(this->exec, x, y), want_dot, sum_tol<T>(n, abs_xy));

        // ||x|| = sqrt(s): the relative error of s halves under the square root, plus the
        // rounding of the root itself.
        auto norm = poisoned<T>(this->exec, 1);
        Path::template nrm2<T>(this->exec, x, norm);
        EXPECT_NEAR(norm.to_host()[0], want_norm,
                    sum_tol<T>(n, abs_xx) / (2 * want_norm + 1e-300) + 2 * eps<T>() * want_norm);
    }
}

TYPED_TEST(VendorBlas, Gemv) {
    using T = typename TestFixture::T;
    using Path = typename TestFixture::Path;
    // Tall and wide at every size (n x 3 and 3 x n, 0 x 3 and 3 x 0 included), square ones, and
    // 0 x 0.
    std::vector<std::pair<std::size_t, std::size_t>> shapes{{0, 0}, {33, 33}, {1025, 1025}};
    for (auto n : sizes) {
        shapes.emplace_back(n, 3);
        shapes.emplace_back(3, n);
    }
    for (auto [rows, cols] : shapes) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
        const auto ah = random_vector<T>(rows * cols, 7 * rows + cols + 1);
        const auto xh = random_vector<T>(cols, 7 * rows + cols + 2);
        Array<T> a(this->exec, ah), x(this->exec, xh);
        auto y = poisoned<T>(this->exec, rows);
        Path::template gemv<T>(this->exec, rows, cols, a, x, y);

        Dense<T> a_ref(this->ref, rows, cols, ah);
        Array<T> xr(this->ref, xh);
        auto yr = poisoned<T>(this->ref, rows);
        a_ref.apply(xr, yr);
        const auto got = y.to_host(), want = yr.to_host();
        for (std::size_t i = 0; i < rows; ++i) {
            double abs_sum = 0;
            for (std::size_t j = 0; j < cols; ++j)
                abs_sum += std::abs(double(ah[i * cols + j]) * xh[j]);
            ASSERT_NEAR(got[i], want[i], row_tol<T>(cols, abs_sum)) << "row " << i;
        }
    }
}

// ---- cuSPARSE SpMV ----

template <typename T>
class VendorSparse : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string reason = cuda_skip_reason();
        if (!reason.empty()) GTEST_SKIP() << reason;
        exec = Executor::cuda(0);
    }
    Executor exec = Executor::reference();
    Executor ref = Executor::reference();
};

using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(VendorSparse, ValueTypes);

// rows x (rows + 3) with 0 to 5 entries per row (empty rows included), at random distinct
// columns, random values.
MatrixData random_sparse(std::size_t rows, unsigned seed) {
    MatrixData data;
    data.rows = static_cast<std::int64_t>(rows);
    data.cols = static_cast<std::int64_t>(rows + 3);
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<std::int64_t> col(0, data.cols - 1);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    for (std::size_t i = 0; i < rows; ++i) {
        const std::size_t k = (i * 7 + 3) % 6;
        std::vector<std::int64_t> cols;
        while (cols.size() < k) {
            const auto c = col(gen);
            if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
        }
        for (auto c : cols) data.add(static_cast<std::int64_t>(i), c, val(gen));
    }
    return data;
}

TYPED_TEST(VendorSparse, CsrSpmv) {
    using T = TypeParam;
    for (auto n : sizes) {
        SCOPED_TRACE("rows = " + std::to_string(n));
        const MatrixData data = random_sparse(n, 11 * n + 1);
        const auto a = Csr<T>::from_data(this->exec, data);
        const auto a_ref = Csr<T>::from_data(this->ref, data);
        const std::size_t rows = a.rows(), cols = a.cols();
        const auto rp = a_ref.row_ptrs().to_host();
        const auto ci = a_ref.col_idxs().to_host();
        const auto va = a_ref.values().to_host();

        // Two calls with different x: the second reuses the cached plan (descriptors, buffer)
        // and must still read the new x.
        for (unsigned round = 0; round < 2; ++round) {
            SCOPED_TRACE("call " + std::to_string(round));
            const auto xh = random_vector<T>(cols, 11 * n + 2 + round);
            Array<T> x(this->exec, xh), xr(this->ref, xh);
            auto y = poisoned<T>(this->exec, rows);
            vendor::csr_spmv<T>(this->exec, rows, cols, a.row_ptrs(), a.col_idxs(), a.values(),
                                x.get_view(), y.get_view());
            auto yr = poisoned<T>(this->ref, rows);
            a_ref.apply(xr, yr);
            const auto got = y.to_host(), want = yr.to_host();
            for (std::size_t i = 0; i < rows; ++i) {
                double abs_sum = 0;
                for (auto k = rp[i]; k < rp[i + 1]; ++k)
                    abs_sum += std::abs(double(va[k]) * xh[ci[k]]);
                ASSERT_NEAR(got[i], want[i], row_tol<T>(rp[i + 1] - rp[i], abs_sum)) << "row " << i;
            }
        }
    }
}

// ---- the vendor-baseline CG ----

TYPED_TEST(VendorSparse, CgConvergesLikePortlaCg) {
    using T = TypeParam;
    // float cannot reach 1e-8; 1e-4 is well above its attainable accuracy here.
    const double rtol = std::is_same<T, double>::value ? 1e-8 : 1e-4;
    const MatrixData data = Stencil<T>(this->ref, 3, 20).assemble();  // 8000 unknowns
    const auto n = static_cast<std::size_t>(data.rows);
    const auto bh = random_vector<T>(n, 2027);

    const auto a_ref = Csr<T>::from_data(this->ref, data);
    Array<T> b_ref(this->ref, bh);
    auto x_ref = poisoned<T>(this->ref, n);
    solver::Settings settings;
    settings.rtol = rtol;
    settings.max_iters = 1000;
    const solver::Result want = solver::cg<T>(a_ref, b_ref, x_ref, settings);
    ASSERT_TRUE(want.converged);

    const auto a = Csr<T>::from_data(this->exec, data);
    Array<T> b(this->exec, bh);
    auto x = poisoned<T>(this->exec, n);  // x0 = 0 is the solver's job
    const int iterations = vendor::cg<T>(this->exec, n, a.row_ptrs(), a.col_idxs(), a.values(),
                                         b.get_view(), x.get_view(), rtol, 1000);
    // The same recurrences in a different summation order: the counts may differ by rounding.
    EXPECT_LE(std::abs(iterations - want.iterations), 2)
        << "vendor " << iterations << ", portla " << want.iterations;

    // r = b - A x in double from the coordinate data, independent of every kernel.
    const auto xh = x.to_host();
    std::vector<double> r(bh.begin(), bh.end());
    for (std::size_t k = 0; k < data.entries(); ++k)
        r[data.row_idx[k]] -= data.values[k] * double(xh[data.col_idx[k]]);
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < n; ++i) {
        rr += r[i] * r[i];
        bb += double(bh[i]) * bh[i];
    }
    // The recurrence residual that stopped the loop drifts from the true one by rounding: per
    // iteration about 10 eps (7-point SpMV, axpy) times ||A|| ||A^-1|| <= 12 / 0.067 = 180
    // (extreme eigenvalues of the 3-D Poisson matrix on 20^3 points) relative to ||b||.
    const double drift = 10 * 180 * eps<T>() * iterations;
    EXPECT_LE(std::sqrt(rr / bb), rtol + drift);
}

// ---- availability ----

TEST(VendorAvailability, MatchesTheBuild) {
    EXPECT_TRUE(vendor::available(Backend::omp));
    EXPECT_EQ(vendor::available(Backend::cuda), cuda_compiled());
    EXPECT_EQ(vendor::sparse_available(Backend::cuda), cuda_compiled());
    EXPECT_TRUE(vendor::available(Backend::reference));
    if (cuda_compiled()) return;
    // A build without cuda: no cuda vendor library, and no cuda executor to reach it through.
    EXPECT_FALSE(vendor::available(Backend::cuda));
    EXPECT_FALSE(vendor::sparse_available(Backend::cuda));
    EXPECT_THROW(Executor::cuda(), NotCompiled);
}

// The CPU backends have OpenBLAS but no sparse vendor library.
TEST(VendorAvailability, SparseIsCudaOnly) {
    std::vector<double> v(1, 0.5);
    const std::vector<std::int32_t> rp{0, 1}, ci{0};
    const const_view<std::int32_t> rpv(rp.data(), rp.size()), civ(ci.data(), ci.size());
    const const_view<double> cv(v.data(), 1);
    for (const auto& exec : {Executor::reference(), Executor::omp()}) {
        EXPECT_TRUE(vendor::available(exec));
        EXPECT_FALSE(vendor::sparse_available(exec));
        EXPECT_THROW(
            vendor::csr_spmv<double>(exec, 1, 1, rpv, civ, cv, cv, view<double>(v.data(), 1)),
            Unsupported);
        EXPECT_THROW(
            vendor::cg<double>(exec, 1, rpv, civ, cv, cv, view<double>(v.data(), 1), 1e-8, 10),
            Unsupported);
    }
}

}  // namespace
}  // namespace portla::test
