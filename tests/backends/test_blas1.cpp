// Every vector kernel of the backend under test against the reference backend, on fresh random
// data, at every size of test::vector_sizes, on cuda under several launch configurations, and
// under a tuning profile whose bands switch configurations between the sizes.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>

#include "backends/backend_fixture.hpp"
#include "portla/tuning.hpp"

namespace portla::test {
namespace {

// Installs, for its lifetime, a tuning profile of exec's device (PORTLA_TUNING_FILE) whose bands
// change the launch at 257 and 10008 elements: cuda 32 x 1, 96 x 3, 1024 x 16 (configurations
// the tolerances below hold for); omp 1 thread, 2 threads, the untuned default.
class BandedProfile {
public:
    explicit BandedProfile(const Executor& exec)
        : path_(::testing::TempDir() + "portla_blas1_profile_" + std::to_string(::getpid()) +
                ".json") {
        tuning::Profile p;
        p.identity = tuning::identify(exec);
        const bool gpu = !exec.is_host();
        for (auto k : tuning::kernels())
            p.bands[k] = {{0, 256, gpu ? LaunchConfig{32, 1, 0} : LaunchConfig{256, 4, 1}},
                          {257, 10007, gpu ? LaunchConfig{96, 3, 0} : LaunchConfig{256, 4, 2}},
                          {10008, tuning::unbounded,
                           gpu ? LaunchConfig{1024, 16, 0} : LaunchConfig{256, 4, 0}}};
        std::ofstream(path_) << tuning::to_json(p);
        tuning::set_profile_file(path_);
        tuning::reload();
    }
    ~BandedProfile() {
        tuning::set_profile_file("");
        tuning::reload();
        std::remove(path_.c_str());
    }
    BandedProfile(const BandedProfile&) = delete;
    BandedProfile& operator=(const BandedProfile&) = delete;

private:
    std::string path_;
};

template <typename T>
class Blas1 : public BackendTest {
protected:
    Blas1() : BackendTest({KernelFamily::blas1}) {}
    // Launch configurations: smallest group, default, largest, and a non-power of two; then
    // `profile` (work-group size 0: use() leaves the launch unset and installs a BandedProfile;
    // the backends that read tuning profiles: cuda and omp).
    static constexpr LaunchConfig profile{0, 0, 0};
    std::vector<LaunchConfig> configs() const {
        if (exec.backend() == Backend::opencl) return {{32, 1}, {256, 4}, {1024, 16}, {96, 3}};
        if (exec.backend() != Backend::cuda) return {LaunchConfig{}, profile};
        return {{32, 1}, {256, 4}, {1024, 16}, {96, 3}, profile};
    }
    // Runs the following kernels with `cfg`, or under the banded profile.
    void use(const LaunchConfig& cfg) {
        if (cfg.work_group_size != 0) {
            exec.set_launch(cfg);
            return;
        }
        exec = executor_from_environment(backend_under_test());  // a fresh executor: launch unset
        profile_ = std::make_unique<BandedProfile>(exec);
    }
    void TearDown() override { profile_.reset(); }
    std::unique_ptr<BandedProfile> profile_;
    // Rounding bound for a sum of n terms: |error| <= depth * eps * sum |terms|, where depth is
    // the longest chain of additions of the backend's summation order (the reference's own
    // compensated sum is exact to 2 eps |sum|). omp: each thread adds its contiguous share
    // sequentially (in double, so float sums are far inside the bound), then the thread partials.
    // cuda: per-thread grid-stride partials of at most 64 elements for the sizes tested,
    // then a tree over the block and over the blocks: log2(n) + 64.
    double sum_tol(std::size_t n, double abs_sum) const {
        double depth = std::log2(double(n) + 1) + 64;
        if (exec.backend() == Backend::omp) {
            const double threads = omp_max_threads();
            depth = std::ceil(double(n) / threads) + threads + 2;
            if (std::is_same<T, float>::value) return (depth * 1.2e-16 + 2 * eps<T>()) * abs_sum;
        }
        if (exec.backend() == Backend::reference) depth = 2;
        // opencl: per work-item grid-stride partials over at least one group of wg (the number
        // of groups is the device's: a few per compute unit), then the trees over the group and
        // over at most 1024 groups.
        if (exec.backend() == Backend::opencl) {
            const double wg = exec.launch().work_group_size;
            depth = std::ceil(double(n) / wg) + std::log2(wg) + 10 + 2;
        }
        return depth * eps<T>() * abs_sum;
    }
    // An element-wise result a x + b y is rounded at most three times (two products, one sum;
    // FMA contraction removes one): 3 eps |a x| + |b y| bounds it, 4 gives slack for x, y in T.
    static double elem_tol(double magnitude) { return 4 * eps<T>() * magnitude + 1e-300; }
};

using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Blas1, ValueTypes);

TYPED_TEST(Blas1, FillAndCopy) {
    using T = TypeParam;
    for (auto cfg : this->configs()) {
        this->use(cfg);
        for (auto n : vector_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) +
                         ", wg = " + std::to_string(cfg.work_group_size));
            auto y = poisoned<T>(this->exec, n);
            blas::fill<T>(this->exec, y, T(0.375));
            for (auto v : y.to_host()) ASSERT_EQ(v, T(0.375));
            const auto xh = random_vector<T>(n, 1 + n);
            Array<T> x(this->exec, xh);
            auto z = poisoned<T>(this->exec, n);
            blas::copy<T>(this->exec, x, z);
            ASSERT_EQ(z.to_host(), xh);
        }
    }
}

// cuda keeps freed memory in the device's pool: an array larger than what the device has
// outside the pool is still allocated (the pool gives back what it lacks) and usable.
TYPED_TEST(Blas1, ArrayLargerThanTheMemoryOutsideThePool) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda) GTEST_SKIP() << "the memory pool is cuda's";
    if (!std::is_same_v<T, double>) GTEST_SKIP() << "one value type is enough";
    std::size_t free_bytes = 0, total_bytes = 0;
    this->exec.memory_info(free_bytes, total_bytes);
    {  // two quarters of the free memory, freed: the pool keeps them
        Array<T> a(this->exec, free_bytes / 4 / sizeof(T)),
            b(this->exec, free_bytes / 4 / sizeof(T));
        blas::fill<T>(this->exec, a, T(1));
        blas::fill<T>(this->exec, b, T(1));
    }
    std::size_t pooled_free = 0;
    this->exec.memory_info(pooled_free, total_bytes);
    EXPECT_GE(pooled_free, free_bytes / 2);  // the pool's unused memory counts as free
    const std::size_t n = free_bytes / 10 * 7 / sizeof(T);
    Array<T> big(this->exec, n);
    blas::fill<T>(this->exec, big, T(1));
    // n ones: every partial sum is an integer below 2^53 (exact), so only the square root rounds
    EXPECT_NEAR(blas::norm2<T>(this->exec, big), std::sqrt(static_cast<double>(n)),
                1e-10 * std::sqrt(static_cast<double>(n)));
}

TYPED_TEST(Blas1, Axpby) {
    using T = TypeParam;
    const T a = T(0.75), b = T(-1.25);
    for (auto cfg : this->configs()) {
        this->use(cfg);
        for (auto n : vector_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) +
                         ", wg = " + std::to_string(cfg.work_group_size));
            const auto xh = random_vector<T>(n, 2 * n + 1), yh = random_vector<T>(n, 2 * n + 2);
            Array<T> x(this->exec, xh), y(this->exec, yh);
            Array<T> xr(this->ref, xh), yr(this->ref, yh);
            blas::axpby<T>(this->exec, a, x, b, y);
            blas::axpby<T>(this->ref, a, xr, b, yr);
            const auto got = y.to_host(), want = yr.to_host();
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_NEAR(got[i], want[i],
                            this->elem_tol(std::abs(a * xh[i]) + std::abs(b * yh[i])))
                    << "i = " << i;
        }
    }
}

TYPED_TEST(Blas1, AxpbyWithZeroBetaDoesNotReadY) {
    using T = TypeParam;
    for (auto n : vector_sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto xh = random_vector<T>(n, 4 * n + 1);
        Array<T> x(this->exec, xh);
        auto y = poisoned<T>(this->exec, n);
        blas::axpby<T>(this->exec, T(2), x, T(0), y);
        const auto got = y.to_host();
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], T(2) * xh[i]) << "i = " << i;
    }
}

TYPED_TEST(Blas1, PointwiseMul) {
    using T = TypeParam;
    for (auto n : vector_sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto xh = random_vector<T>(n, 3 * n + 1), yh = random_vector<T>(n, 3 * n + 2);
        Array<T> x(this->exec, xh), y(this->exec, yh);
        auto z = poisoned<T>(this->exec, n);
        blas::pointwise_mul<T>(this->exec, x, y, z);
        const auto got = z.to_host();
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], xh[i] * yh[i]) << "i = " << i;
    }
}

TYPED_TEST(Blas1, DotAndNorm2) {
    using T = TypeParam;
    for (auto cfg : this->configs()) {
        this->use(cfg);
        for (auto n : vector_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) +
                         ", wg = " + std::to_string(cfg.work_group_size));
            const auto xh = random_vector<T>(n, 5 * n + 1), yh = random_vector<T>(n, 5 * n + 2);
            Array<T> x(this->exec, xh), y(this->exec, yh);
            double abs_xy = 0, abs_xx = 0;
            for (std::size_t i = 0; i < n; ++i) {
                abs_xy += std::abs(double(xh[i]) * yh[i]);
                abs_xx += double(xh[i]) * xh[i];
            }
            Array<T> xr(this->ref, xh), yr(this->ref, yh);
            const double want_dot = blas::dot<T>(this->ref, xr, yr);
            const double want_norm = blas::norm2<T>(this->ref, xr);
            // Result left on the device, read back afterwards.
            auto result = poisoned<T>(this->exec, 1);
            blas::dot<T>(this->exec, x, y, result);
            EXPECT_NEAR(result.to_host()[0], want_dot, this->sum_tol(n, abs_xy));
            EXPECT_NEAR(blas::dot<T>(this->exec, x, y), want_dot, this->sum_tol(n, abs_xy));
            // ||x|| = sqrt(s): the relative error of s halves under the square root.
            EXPECT_NEAR(blas::norm2<T>(this->exec, x), want_norm,
                        this->sum_tol(n, abs_xx) / (2 * want_norm + 1e-300) + eps<T>() * want_norm);
        }
    }
}

// The path cuda's dot took on a grid of `blocks` blocks (kernel_choices): one block sums alone;
// 2-8 blocks form a cluster on a device of compute capability 9 or more (portable size; 9-16
// where the device places the non-portable size, else the ticket); more take the ticket.
// KernelOptions::cluster_sums = false keeps the ticket everywhere.
void expect_sum_path(const Executor& exec, std::size_t blocks) {
    std::string path;
    for (const auto& c : kernel_choices())
        if (c.step == "blas1.sum") path = c.kernel;
    const bool clusters =
        exec.device_info().compute_major >= 9 && exec.kernel_options().cluster_sums;
    if (blocks == 1)
        EXPECT_EQ(path, "one-block");
    else if (blocks > 16 || !clusters)
        EXPECT_EQ(path, "ticket");
    else if (blocks <= 8)
        EXPECT_EQ(path, "cluster");
    else
        EXPECT_TRUE(path == "cluster" || path == "ticket") << path;
}

// cuda sums grids of 2-16 blocks through one thread block cluster (sm_90; 2-8 where the device
// places only portable sizes) and larger grids with the ticket (src/cuda/reduction.cuh): grids
// of 1 ... 18 blocks of 32 and of 1024 threads, one item each, so both paths and every cluster
// size are checked against the reference.
TYPED_TEST(Blas1, ReductionsOnGridsOfOneToEighteenBlocks) {
    using T = TypeParam;
    for (const int wg : {32, 1024}) {
        if (this->exec.backend() == Backend::cuda || this->exec.backend() == Backend::opencl)
            this->exec.set_launch(LaunchConfig{wg, 1});
        for (std::size_t blocks = 1; blocks <= 18; ++blocks) {
            const std::size_t n = (blocks - 1) * static_cast<std::size_t>(wg) + 7;
            SCOPED_TRACE("n = " + std::to_string(n) + ", wg = " + std::to_string(wg));
            const auto xh = random_vector<T>(n, 7 * n + 1), yh = random_vector<T>(n, 7 * n + 2);
            double abs_xy = 0, abs_xx = 0;
            for (std::size_t i = 0; i < n; ++i) {
                abs_xy += std::abs(double(xh[i]) * yh[i]);
                abs_xx += double(xh[i]) * xh[i];
            }
            Array<T> x(this->exec, xh), y(this->exec, yh), xr(this->ref, xh), yr(this->ref, yh);
            clear_kernel_choices();
            EXPECT_NEAR(blas::dot<T>(this->exec, x, y), blas::dot<T>(this->ref, xr, yr),
                        this->sum_tol(n, abs_xy));
            if (this->exec.backend() == Backend::cuda) expect_sum_path(this->exec, blocks);
            const double want_norm = blas::norm2<T>(this->ref, xr);
            EXPECT_NEAR(blas::norm2<T>(this->exec, x), want_norm,
                        this->sum_tol(n, abs_xx) / (2 * want_norm + 1e-300) + eps<T>() * want_norm);
            // The fused update's r.r after r -= alpha q (x += alpha p), against the reference's.
            auto rr = poisoned<T>(this->exec, 1);
            auto rr_ref = poisoned<T>(this->ref, 1);
            Array<T> xd(this->exec, xh), rd(this->exec, yh), xrd(this->ref, xh), rrd(this->ref, yh);
            blas::fused_cg_update<T>(this->exec, T(0.5), x, y, xd, rd, rr);
            blas::fused_cg_update<T>(this->ref, T(0.5), xr, yr, xrd, rrd, rr_ref);
            double abs_rr = 0;
            for (const T v : rrd.to_host()) abs_rr += double(v) * v;
            // As in FusedCgUpdate: r differs by elem_tol per entry, the sum by sum_tol.
            EXPECT_NEAR(rr.to_host()[0], rr_ref.to_host()[0],
                        this->sum_tol(n, abs_rr) + 8 * eps<T>() * abs_rr);
        }
    }
}

TYPED_TEST(Blas1, FusedCgUpdate) {
    using T = TypeParam;
    const T alpha = T(0.3125);
    for (auto cfg : this->configs()) {
        this->use(cfg);
        for (auto n : vector_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) +
                         ", wg = " + std::to_string(cfg.work_group_size));
            const auto ph = random_vector<T>(n, 7 * n + 1), qh = random_vector<T>(n, 7 * n + 2);
            const auto xh = random_vector<T>(n, 7 * n + 3), rh = random_vector<T>(n, 7 * n + 4);
            Array<T> p(this->exec, ph), q(this->exec, qh), x(this->exec, xh), r(this->exec, rh);
            Array<T> pr(this->ref, ph), qr(this->ref, qh), xr(this->ref, xh), rr_(this->ref, rh);
            auto rr = poisoned<T>(this->exec, 1);
            T want_rr{};
            blas::fused_cg_update<T>(this->exec, alpha, p, q, x, r, rr);
            blas::fused_cg_update<T>(this->ref, alpha, pr, qr, xr, rr_, view<T>(&want_rr, 1));
            const auto gx = x.to_host(), gr = r.to_host(), wx = xr.to_host(), wr = rr_.to_host();
            double abs_rr = 0;
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_NEAR(gx[i], wx[i],
                            this->elem_tol(std::abs(xh[i]) + std::abs(alpha * ph[i])));
                ASSERT_NEAR(gr[i], wr[i],
                            this->elem_tol(std::abs(rh[i]) + std::abs(alpha * qh[i])));
                abs_rr += double(wr[i]) * wr[i];
            }
            // The backend's r may differ from the reference's by elem_tol per entry, and the
            // sum by sum_tol: bound both.
            EXPECT_NEAR(rr.to_host()[0], want_rr, this->sum_tol(n, abs_rr) + 8 * eps<T>() * abs_rr);
        }
    }
}

// Every entry of a diagonal without zeros or non-finite values is inverted exactly (1 / d is
// one correctly rounded division), as on the reference, and the size is returned.
TYPED_TEST(Blas1, InvertDiagonal) {
    using T = TypeParam;
    for (auto cfg : this->configs()) {
        this->use(cfg);
        for (const std::size_t n :
             {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{10007}}) {
            SCOPED_TRACE("n = " + std::to_string(n) +
                         ", wg = " + std::to_string(cfg.work_group_size));
            const auto dh = random_vector<T>(n, 11 * n + 5, 0.5, 1.5);
            Array<T> d(this->exec, dh), dr(this->ref, dh);
            EXPECT_EQ(blas::invert_diagonal<T>(this->exec, d), n);
            EXPECT_EQ(blas::invert_diagonal<T>(this->ref, dr), n);
            const auto got = d.to_host(), want = dr.to_host();
            ASSERT_EQ(got.size(), n);
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(want[i], T(1) / dh[i]) << "reference, i = " << i;
                ASSERT_EQ(got[i], want[i]) << "i = " << i;
            }
        }
    }
}

// A zero at row 37 and a NaN at row 11: the smallest bad index is returned, on every backend as
// on the reference, and that entry is left as it was.
TYPED_TEST(Blas1, InvertDiagonalReportsTheFirstBadEntry) {
    using T = TypeParam;
    const std::size_t n = 1000;
    auto dh = random_vector<T>(n, 77, 0.5, 1.5);
    dh[37] = T(0);
    dh[11] = std::numeric_limits<T>::quiet_NaN();
    for (auto cfg : this->configs()) {
        this->use(cfg);
        SCOPED_TRACE("wg = " + std::to_string(cfg.work_group_size));
        for (const Executor& e : {this->exec, this->ref}) {
            SCOPED_TRACE(e.name());
            Array<T> d(e, dh);
            EXPECT_EQ(blas::invert_diagonal<T>(e, d), std::size_t{11});
            EXPECT_TRUE(std::isnan(d.to_host()[11]));
        }
    }
    // Infinity is bad too, and the smallest bad index wins across work-groups: infinity at 700,
    // zero at 300.
    dh = random_vector<T>(n, 78, 0.5, 1.5);
    dh[700] = std::numeric_limits<T>::infinity();
    dh[300] = T(0);
    Array<T> d(this->exec, dh);
    EXPECT_EQ(blas::invert_diagonal<T>(this->exec, d), std::size_t{300});
    EXPECT_EQ(d.to_host()[300], T(0));
}

TYPED_TEST(Blas1, SizesAreChecked) {
    using T = TypeParam;
    Array<T> x(this->exec, 10), y(this->exec, 11);
    EXPECT_THROW(blas::axpby<T>(this->exec, T(1), x, T(1), y), DimensionMismatch);
    EXPECT_THROW(blas::dot<T>(this->exec, x, y), DimensionMismatch);
}

// Views that start 1-3 elements into their arrays (cuda reads 16 bytes at a time where every
// vector of a call is 16-byte aligned, one element at a time otherwise): every kernel against the
// reference, with the arrays' entries outside the views left as they were.
TYPED_TEST(Blas1, ViewsAtEveryOffset) {
    using T = TypeParam;
    constexpr std::size_t pad = 4;
    const T a = T(0.75), b = T(-1.25);
    // Sizes with every remainder modulo 2 and 4 (the packs of double and float), below and above
    // one pack.
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{8},
          std::size_t{1024}, std::size_t{1025}, std::size_t{10006}, std::size_t{10007}}) {
        for (std::size_t ox = 0; ox < pad; ++ox) {
            const std::size_t oy = (ox * 3 + 1) % pad;  // x and y at different offsets too
            for (const std::size_t off_y : {ox, oy}) {
                SCOPED_TRACE("n = " + std::to_string(n) + ", offsets " + std::to_string(ox) + ", " +
                             std::to_string(off_y));
                const auto xh = random_vector<T>(n + pad, unsigned(9 * n + ox + 1));
                const auto yh = random_vector<T>(n + pad, unsigned(9 * n + off_y + 2));
                Array<T> x(this->exec, xh), y(this->exec, yh), z(this->exec, yh);
                const const_view<T> xv(x.get_view().data + ox, n);
                const view<T> yv(y.get_view().data + off_y, n), zv(z.get_view().data + ox, n);
                std::vector<T> xs(xh.begin() + ox, xh.begin() + ox + n),
                    ys(yh.begin() + off_y, yh.begin() + off_y + n);
                Array<T> xr(this->ref, xs), yr(this->ref, ys);
                double abs_xy = 0;
                for (std::size_t i = 0; i < n; ++i) abs_xy += std::abs(double(xs[i]) * ys[i]);
                EXPECT_NEAR(blas::dot<T>(this->exec, xv, yv), blas::dot<T>(this->ref, xr, yr),
                            this->sum_tol(n, abs_xy));
                const double want_norm = blas::norm2<T>(this->ref, yr);
                EXPECT_NEAR(blas::norm2<T>(this->exec, yv), want_norm,
                            this->sum_tol(n, want_norm * want_norm) / (2 * want_norm) +
                                eps<T>() * want_norm);
                // fill and copy on a view of their own array (w), checked with its guards.
                Array<T> w(this->exec, yh);
                const view<T> wv(w.get_view().data + off_y, n);
                blas::fill<T>(this->exec, wv, T(0.375));
                const auto filled = w.to_host();
                for (std::size_t i = 0; i < n + pad; ++i)
                    ASSERT_EQ(filled[i], i >= off_y && i < off_y + n ? T(0.375) : yh[i])
                        << "fill, i = " << i;
                blas::copy<T>(this->exec, xv, wv);
                const auto copied = w.to_host();
                for (std::size_t i = 0; i < n + pad; ++i)
                    ASSERT_EQ(copied[i], i >= off_y && i < off_y + n ? xs[i - off_y] : yh[i])
                        << "copy, i = " << i;
                blas::pointwise_mul<T>(this->exec, xv, yv, zv);
                blas::axpby<T>(this->exec, a, xv, b, yv);
                blas::axpby<T>(this->ref, a, xr, b, yr);
                const auto got = y.to_host(), want = yr.to_host(), prod = z.to_host();
                for (std::size_t i = 0; i < n + pad; ++i) {
                    const bool in = i >= off_y && i < off_y + n;
                    if (!in) {
                        ASSERT_EQ(got[i], yh[i]) << "outside the view, i = " << i;
                        continue;
                    }
                    const std::size_t k = i - off_y;
                    ASSERT_NEAR(got[i], want[k],
                                this->elem_tol(std::abs(a * xs[k]) + std::abs(b * ys[k])))
                        << "i = " << i;
                }
                for (std::size_t i = 0; i < n + pad; ++i) {
                    if (i < ox || i >= ox + n)
                        ASSERT_EQ(prod[i], yh[i]) << "outside the view, i = " << i;
                    else
                        ASSERT_EQ(prod[i], xs[i - ox] * ys[i - ox]) << "i = " << i;
                }
                // The fused update: p = q = the x view; x and r are views, at x's and y's
                // offsets, into two more arrays holding yh.
                Array<T> r(this->exec, yh);
                const view<T> rv(r.get_view().data + off_y, n);
                auto rr = poisoned<T>(this->exec, 1);
                Array<T> pr(this->ref, xs), qr(this->ref, xs), rr_ref(this->ref, ys);
                Array<T> x2(this->exec, yh);
                const view<T> x2v(x2.get_view().data + ox, n);
                std::vector<T> x2s(yh.begin() + ox, yh.begin() + ox + n);
                Array<T> x2r(this->ref, x2s);
                T want_rr{};
                blas::fused_cg_update<T>(this->exec, T(0.3125), xv, xv, x2v, rv, rr);
                blas::fused_cg_update<T>(this->ref, T(0.3125), pr, qr, x2r, rr_ref,
                                         view<T>(&want_rr, 1));
                const auto gx = x2.to_host(), gr = r.to_host(), wx = x2r.to_host(),
                           wr = rr_ref.to_host();
                for (std::size_t i = 0; i < n + pad; ++i) {  // the guards of x and r
                    if (i < ox || i >= ox + n) {
                        ASSERT_EQ(gx[i], yh[i]) << "x guard, i = " << i;
                    }
                    if (i < off_y || i >= off_y + n) {
                        ASSERT_EQ(gr[i], yh[i]) << "r guard, i = " << i;
                    }
                }
                double abs_rr = 0;
                for (std::size_t k = 0; k < n; ++k) {
                    ASSERT_NEAR(gx[ox + k], wx[k],
                                this->elem_tol(std::abs(x2s[k]) + std::abs(xs[k])));
                    ASSERT_NEAR(gr[off_y + k], wr[k],
                                this->elem_tol(std::abs(ys[k]) + std::abs(xs[k])));
                    abs_rr += double(wr[k]) * wr[k];
                }
                EXPECT_NEAR(rr.to_host()[0], want_rr,
                            this->sum_tol(n, abs_rr) + 8 * eps<T>() * abs_rr);
            }
        }
    }
}

// ||x|| for vectors whose squares underflow or overflow in T: c * u with u in [0.5, 1.5] and c
// tiny, huge or subnormal. The expected value c * ||u|| is computed in long double (x86: 15-bit
// exponent, so nothing underflows), independently of the kernels. Tolerance: the n positive
// squares sum with relative error <= n eps, halved by the square root, plus 4 eps for the scaling,
// the square root and the final rounding; subnormal results also carry 2 units of their spacing.
TYPED_TEST(Blas1, Norm2WithoutUnderflowOrOverflow) {
    using T = TypeParam;
    using L = std::numeric_limits<T>;
    const std::vector<T> scales = std::is_same<T, double>::value
                                      ? std::vector<T>{T(1e-200), T(1e+200), L::denorm_min() * 64}
                                      : std::vector<T>{T(1e-30), T(1e+30), L::denorm_min() * 64};
    for (const T c : scales) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{10007}}) {
            SCOPED_TRACE("c = " + std::to_string(double(c)) + ", n = " + std::to_string(n));
            auto xh = random_vector<T>(n, unsigned(n) + 11, 0.5, 1.5);
            for (auto& v : xh) v = static_cast<T>(v * c);
            long double sum = 0;
            for (const T v : xh) sum += static_cast<long double>(v) * v;
            const long double want = std::sqrt(sum);
            ASSERT_GT(want, 0);
            const double tol =
                double(want) * (n / 2.0 + 4) * eps<T>() + 2 * double(L::denorm_min());
            Array<T> x(this->exec, xh);
            const double got = blas::norm2<T>(this->exec, x);
            EXPECT_NEAR(got, double(want), tol);
            auto result = poisoned<T>(this->exec, 1);  // the device-resident variant
            blas::norm2<T>(this->exec, x, result);
            EXPECT_NEAR(result.to_host()[0], double(want), tol);
        }
    }
}

// The options the vector kernels read (docs/kernel-choices.md, "Options") give the reference's
// answers at every value: cuda's KernelOptions::packed_loads (element-wise kernels) and
// cluster_sums (the sums), omp's parallel threshold (fill and pointwise_mul always consult it;
// the tuned kernels only without a profile). Their environment variables (PORTLA_PACKED_LOADS,
// PORTLA_CLUSTER_SUMS, PORTLA_OMP_MIN_PARALLEL) map onto them and refuse a value they do not
// know with a one-line BadInput. The other backends read none.
TYPED_TEST(Blas1, OptionsGiveTheReferenceAndTheirVariablesRefuseTypos) {
    using T = TypeParam;
    struct Switch {
        const char* name;
        std::vector<std::function<void(Executor&)>> valid;  // sets one value of the option
        std::vector<const char*> typos;
        const char* accepted;
        std::function<void()> read;  // what reads the variable
    };
    const auto set_options = [](auto change) {
        return [change](Executor& e) {
            KernelOptions o;
            change(o);
            e.set_kernel_options(o);
        };
    };
    const auto threshold = [](std::size_t units) {
        return [units](Executor&) { set_omp_parallel_threshold(units); };
    };
    std::vector<Switch> switches;
    if (this->exec.backend() == Backend::cuda)
        switches = {{"PORTLA_PACKED_LOADS",
                     {set_options([](KernelOptions& o) { o.packed_loads = true; }),
                      set_options([](KernelOptions& o) { o.packed_loads = false; }),
                      set_options([](KernelOptions&) {})},
                     {"of", "0", "ON"},
                     "on or off",
                     [] { (void)kernel_options_from_environment(); }},
                    {"PORTLA_CLUSTER_SUMS",
                     {set_options([](KernelOptions& o) { o.cluster_sums = true; }),
                      set_options([](KernelOptions& o) { o.cluster_sums = false; }),
                      set_options([](KernelOptions&) {})},
                     {"no", "off "},
                     "on or off",
                     [] { (void)kernel_options_from_environment(); }}};
    else if (this->exec.backend() == Backend::omp)
        switches = {{"PORTLA_OMP_MIN_PARALLEL",
                     {threshold(0), threshold(1), threshold(4096), threshold(1000000)},
                     {"12x", "-1", "many", "1e3", " 12"},
                     "an integer >= 0",
                     [] { (void)omp_parallel_threshold_from_environment(); }}};
    else
        GTEST_SKIP() << "the " << this->exec.name() << " backend reads no vector-kernel option";
    const std::size_t n = 10007;  // several blocks on cuda; parallel at omp's default threshold
    const auto xh = random_vector<T>(n, 91), yh = random_vector<T>(n, 92);
    double abs_xy = 0;
    for (std::size_t i = 0; i < n; ++i) abs_xy += std::abs(double(xh[i]) * yh[i]);
    Array<T> x(this->exec, xh), y(this->exec, yh), xr(this->ref, xh), yr(this->ref, yh);
    const double want_dot = blas::dot<T>(this->ref, xr, yr);
    for (const Switch& s : switches) {
        for (std::size_t v = 0; v < s.valid.size(); ++v) {
            SCOPED_TRACE(std::string(s.name) + " value " + std::to_string(v));
            Executor e = this->exec;
            s.valid[v](e);
            EXPECT_NEAR(blas::dot<T>(e, x, y), want_dot, this->sum_tol(n, abs_xy));
            Array<T> z(e, yh);
            blas::axpby<T>(e, T(0.75), x, T(-1.25), z);
            auto p = poisoned<T>(e, n);
            blas::pointwise_mul<T>(e, x, y, p);
            const auto got = z.to_host(), prod = p.to_host();
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_NEAR(got[i], T(0.75) * xh[i] + T(-1.25) * yh[i],
                            this->elem_tol(std::abs(0.75 * xh[i]) + std::abs(1.25 * yh[i])))
                    << "i = " << i;
                ASSERT_EQ(prod[i], xh[i] * yh[i]) << "i = " << i;
            }
        }
        set_omp_parallel_threshold(4096);
        for (const char* typo : s.typos) {
            SCOPED_TRACE(std::string(s.name) + "=" + typo);
            const ScopedEnv env(s.name, typo);
            const std::string message =
                std::string(s.name) + "=" + typo + ": expected " + s.accepted;
            expect_bad_input(s.read, message);
            expect_bad_input([] { (void)executor_from_environment("reference"); }, message);
        }
    }
}

// cuda's KernelOptions::cluster_max (16 or 8: the largest cluster a sum kernel takes), on a
// device with thread block clusters: a sum of 3 blocks at each value gives the reference's
// answer; a value other than 16 or 8 is refused, and so is one of PORTLA_CLUSTER_MAX.
TYPED_TEST(Blas1, ClusterMaxRefusesAValueItDoesNotKnow) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda) GTEST_SKIP() << "cluster_max is cuda's";
    if (this->exec.device_info().compute_major < 9)
        GTEST_SKIP() << "no thread block clusters on this device (compute capability "
                     << this->exec.device_info().compute_major << ")";
    this->exec.set_launch(LaunchConfig{160, 1});
    const std::size_t n = 3 * 160;
    const auto xh = random_vector<T>(n, 93), yh = random_vector<T>(n, 94);
    double abs_xy = 0;
    for (std::size_t i = 0; i < n; ++i) abs_xy += std::abs(double(xh[i]) * yh[i]);
    Array<T> x(this->exec, xh), y(this->exec, yh), xr(this->ref, xh), yr(this->ref, yh);
    {
        const ScopedEnv env("PORTLA_CLUSTER_MAX", "9");
        for (int use = 0; use < 2; ++use)
            expect_bad_input([] { (void)kernel_options_from_environment(); },
                             "PORTLA_CLUSTER_MAX=9: expected 16 or 8");
        KernelOptions o;
        o.cluster_max = 9;
        expect_bad_input([&] { this->exec.set_kernel_options(o); },
                         "kernel options: cluster_max must be 16 or 8");
    }
    for (const auto& [value, threads] : {std::pair{8, 192}, std::pair{16, 224}}) {
        SCOPED_TRACE("cluster_max " + std::to_string(value));
        this->exec.set_launch(LaunchConfig{threads, 1});
        KernelOptions o;
        o.cluster_max = value;
        this->exec.set_kernel_options(o);
        EXPECT_NEAR(blas::dot<T>(this->exec, x, y), blas::dot<T>(this->ref, xr, yr),
                    this->sum_tol(n, abs_xy));
    }
}

}  // namespace
}  // namespace portla::test
