// The matrix product of the backend under test, every variant it implements, against the
// reference backend on odd shapes, with alpha and beta not 1 and 0, in double and float.
#include <cstdlib>
#include <type_traits>

#include "backends/backend_fixture.hpp"

namespace portla::test {
namespace {

struct Shape {
    std::size_t m, n, k;
};

// Odd shapes (no dimension a multiple of a tile), tile edges of the fast kernels (64, 128,
// K-tiles of 8 and 16; 256 x 512 x 40: whole tiles of both float kernels), a long K, a single
// column and row, whole 128 x 128 tiles with 1 to 130 K-tiles of 8 (the large float tile's
// cp.async ring of 3: fewer K-tiles than its stages, as many, and many times round), and one
// large enough that the fast kernel picks its large tile on its own (144 tiles of 128 x 128 >=
// 132 multiprocessors), the same with whole tiles (the cp.async ring kernels of float and double
// chosen on their own, C not read when beta is 0); for the double ring of four K-tiles of 16,
// whole 128 x 128 tiles with 1, 2, 3, 4 and 65 K-tiles.
const std::vector<Shape> shapes{{1, 1, 1},      {33, 17, 65},     {257, 300, 129},  {64, 64, 16},
                                {128, 128, 8},  {129, 127, 17},   {5, 3, 1031},     {1, 200, 7},
                                {300, 1, 9},    {256, 512, 40},   {128, 256, 16},   {256, 128, 24},
                                {384, 256, 48}, {256, 384, 1032}, {256, 256, 1040}, {128, 128, 32},
                                {128, 128, 64}, {1536, 1536, 32}, {1537, 1543, 70}};

std::vector<GemmVariant> variants_of(Backend backend) {
    std::vector<GemmVariant> out;
    for (auto v : {GemmVariant::naive, GemmVariant::tiled, GemmVariant::subgroup, GemmVariant::fast,
                   GemmVariant::vendor})
        if (gemm_supported(backend, v)) out.push_back(v);
    return out;
}

template <typename T>
class Gemm : public BackendTest {
protected:
    Gemm() : BackendTest({KernelFamily::gemm}) {}
    // Runs C = alpha A B + beta C on the backend under test and on the reference, and checks
    // every element against the forward error bound of a dot product of length k:
    //   |c - c_ref| <= (k + 2) eps (|alpha| sum_l |a_il| |b_lj| + |beta| |c_ij|)
    // (k roundings of the products and sums in any order, one each for alpha and beta). The
    // reference sums in double, so its own error is far below this bound.
    void check(const Shape& s, GemmVariant variant, T alpha, T beta, unsigned seed) {
        SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " +
                     std::to_string(s.k) + ", " + to_string(variant) + ", alpha " +
                     std::to_string(alpha) + ", beta " + std::to_string(beta));
        const auto ah = random_vector<T>(s.m * s.k, seed),
                   bh = random_vector<T>(s.k * s.n, seed + 1);
        const auto ch = random_vector<T>(s.m * s.n, seed + 2);
        Array<T> a(exec, ah), b(exec, bh);
        Array<T> c = beta == T(0) ? poisoned<T>(exec, s.m * s.n) : Array<T>(exec, ch);
        Array<T> ar(ref, ah), br(ref, bh), cr(ref, ch);
        gemm<T>(exec, s.m, s.n, s.k, alpha, a, b, beta, c, variant);
        gemm<T>(ref, s.m, s.n, s.k, alpha, ar, br, beta, cr, GemmVariant::naive);
        const auto got = c.to_host(), want = cr.to_host();
        std::vector<double> abs_sum(s.n);
        for (std::size_t i = 0; i < s.m; ++i) {
            std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
            for (std::size_t l = 0; l < s.k; ++l)
                for (std::size_t j = 0; j < s.n; ++j)
                    abs_sum[j] += std::abs(double(ah[i * s.k + l]) * double(bh[l * s.n + j]));
            for (std::size_t j = 0; j < s.n; ++j) {
                const std::size_t e = i * s.n + j;
                const double bound =
                    double(s.k + 2) * eps<T>() *
                    (std::abs(double(alpha)) * abs_sum[j] + std::abs(double(beta) * double(ch[e])));
                ASSERT_LE(std::abs(double(got[e]) - double(want[e])), bound)
                    << "C[" << i << "][" << j << "] = " << got[e] << ", reference " << want[e];
            }
        }
    }
};

using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Gemm, ValueTypes);

TYPED_TEST(Gemm, EveryVariantMatchesTheReference) {
    using T = TypeParam;
    unsigned seed = 10;
    for (auto v : variants_of(this->exec.backend()))
        for (const auto& s : shapes) {
            this->check(s, v, T(0.75), T(-1.25), seed += 3);
            this->check(s, v, T(-1.5), T(0), seed += 3);  // C poisoned with NaN: not read
        }
}

// tiled and subgroup take their work-group width from the launch configuration: the smallest,
// a non-power of two and the largest.
TYPED_TEST(Gemm, WorkGroupWidths) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda && this->exec.backend() != Backend::opencl)
        GTEST_SKIP() << "launch configurations apply to cuda and opencl only";
    for (int width : {32, 96, 1024}) {
        this->exec.set_launch({width, 1});
        SCOPED_TRACE("work-group width " + std::to_string(width));
        for (auto v : {GemmVariant::tiled, GemmVariant::subgroup})
            for (const auto& s : {Shape{33, 17, 65}, Shape{7, 1100, 97}})
                if (gemm_supported(this->exec.backend(), v)) this->check(s, v, T(0.5), T(2), 77);
    }
}

// Both tiles of the fast kernel on every shape, whatever the automatic choice would be (the
// shapes that are multiples of a tile take its bounds-free path).
TYPED_TEST(Gemm, FastKernelBothTiles) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda)
        GTEST_SKIP() << "the tile choice applies to cuda only";
    for (const auto tile : {KernelOptions::GemmTile::large, KernelOptions::GemmTile::small}) {
        SCOPED_TRACE(tile == KernelOptions::GemmTile::large ? "large tile" : "small tile");
        KernelOptions o;
        o.gemm_fast_tile = tile;
        this->exec.set_kernel_options(o);
        for (std::size_t i = 0; i + 1 < shapes.size(); ++i)
            this->check(shapes[i], GemmVariant::fast, T(1.25), T(0.5), 100 + unsigned(i));
    }
}

// PORTLA_GEMM_FAST_TILE (cuda's fast kernels: large or small) maps onto
// KernelOptions::gemm_fast_tile and refuses a value it does not know with a one-line BadInput.
TYPED_TEST(Gemm, FastTileSwitchRefusesATypo) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda || !std::is_same<T, float>::value)
        GTEST_SKIP() << "the tile choice applies to cuda's float kernel only";
    for (const auto& [value, tile] : {std::pair{"large", KernelOptions::GemmTile::large},
                                      std::pair{"small", KernelOptions::GemmTile::small},
                                      std::pair{"", KernelOptions::GemmTile::automatic}}) {
        const ScopedEnv env("PORTLA_GEMM_FAST_TILE", value);
        EXPECT_EQ(kernel_options_from_environment().gemm_fast_tile, tile) << value;
    }
    const ScopedEnv env("PORTLA_GEMM_FAST_TILE", "big");
    for (int use = 0; use < 2; ++use)
        expect_bad_input([] { (void)kernel_options_from_environment(); },
                         "PORTLA_GEMM_FAST_TILE=big: expected large or small");
}

// Views at an offset of one element: no 16-byte alignment, so the fast kernel must fall back
// to scalar accesses.
TYPED_TEST(Gemm, UnalignedViews) {
    using T = TypeParam;
    const std::size_t m = 70, n = 68, k = 36;
    const auto ah = random_vector<T>(m * k + 1, 5), bh = random_vector<T>(k * n + 1, 6);
    Array<T> a(this->exec, ah), b(this->exec, bh), c = poisoned<T>(this->exec, m * n + 1);
    Array<T> ar(this->ref, ah), br(this->ref, bh), cr(this->ref, m * n + 1);
    for (auto v : variants_of(this->exec.backend())) {
        SCOPED_TRACE(to_string(v));
        gemm<T>(this->exec, m, n, k, T(1), const_view<T>(a.data() + 1, m * k),
                const_view<T>(b.data() + 1, k * n), T(0), view<T>(c.data() + 1, m * n), v);
        gemm<T>(this->ref, m, n, k, T(1), const_view<T>(ar.data() + 1, m * k),
                const_view<T>(br.data() + 1, k * n), T(0), view<T>(cr.data() + 1, m * n));
        const auto got = c.to_host(), want = cr.to_host();
        for (std::size_t e = 1; e <= m * n; ++e)
            ASSERT_NEAR(got[e], want[e], double(k + 2) * eps<T>() * double(k)) << "e = " << e;
    }
}

TYPED_TEST(Gemm, EmptyDimensions) {
    using T = TypeParam;
    // k == 0: C = beta C (and zero when beta == 0, C not read)
    const auto ch = random_vector<T>(6, 9);
    Array<T> a(this->exec, 0), b(this->exec, 0), c(this->exec, ch);
    gemm<T>(this->exec, 2, 3, 0, T(2), a, b, T(-0.5), c);
    const auto got = c.to_host();
    for (std::size_t e = 0; e < 6; ++e) ASSERT_NEAR(got[e], T(-0.5) * ch[e], 2 * eps<T>());
    auto z = poisoned<T>(this->exec, 6);
    gemm<T>(this->exec, 2, 3, 0, T(2), a, b, T(0), z);
    for (auto v : z.to_host()) ASSERT_EQ(v, T(0));
    // beta C with an infinite entry stays infinite (not 0 * Inf = NaN)
    Array<T> inf(this->exec, std::vector<T>{std::numeric_limits<T>::infinity(), T(1)});
    gemm<T>(this->exec, 1, 2, 0, T(1), a, b, T(2), inf);
    EXPECT_EQ(inf.to_host()[0], std::numeric_limits<T>::infinity());
    EXPECT_EQ(inf.to_host()[1], T(2));
    Array<T> none(this->exec, 0);
    gemm<T>(this->exec, 0, 3, 4, T(1), none, Array<T>(this->exec, std::vector<T>(12, T(1))), T(0),
            none);
}

TYPED_TEST(Gemm, DenseOperands) {
    using T = TypeParam;
    const std::size_t m = 19, k = 23, n = 29;
    const auto ah = random_vector<T>(m * k, 41), bh = random_vector<T>(k * n, 42);
    Dense<T> a(this->exec, m, k, ah), b(this->exec, k, n, bh);
    Dense<T> ar(this->ref, m, k, ah), br(this->ref, k, n, bh);
    auto c = poisoned<T>(this->exec, m * n);
    Array<T> cr(this->ref, m * n);
    gemm<T>(T(1), a, b, T(0), c.get_view());
    gemm<T>(T(1), ar, br, T(0), cr.get_view());
    const auto got = c.to_host(), want = cr.to_host();
    for (std::size_t e = 0; e < m * n; ++e)
        ASSERT_NEAR(got[e], want[e], double(k + 2) * eps<T>() * k);
    EXPECT_THROW(gemm<T>(T(1), a, a, T(0), c.get_view()), DimensionMismatch);
}

TYPED_TEST(Gemm, BadInput) {
    using T = TypeParam;
    Array<T> a(this->exec, 6), b(this->exec, 6), c(this->exec, 4), c5(this->exec, 5);
    EXPECT_THROW(gemm<T>(this->exec, 2, 2, 3, T(1), a, b, T(0), c5),
                 DimensionMismatch);  // C: 5 != 2 x 2
    EXPECT_THROW(gemm<T>(this->exec, 2, 3, 3, T(1), a, b, T(0), c),
                 DimensionMismatch);  // B: 6 != 3 x 3
    EXPECT_THROW(gemm<T>(this->exec, 2, 2, 4, T(1), a, b, T(0), c),
                 DimensionMismatch);  // A: 6 != 2 x 4
    EXPECT_THROW(gemm<T>(this->exec, std::size_t{1} << 31, 1, 1, T(1), a, b, T(0), c), BadInput);
    EXPECT_THROW(parse_gemm_variant("blocked"), BadInput);
    if (this->exec.backend() == Backend::opencl) {
        EXPECT_THROW(gemm<T>(this->exec, 2, 2, 3, T(1), a, b, T(0), c, GemmVariant::subgroup),
                     Unsupported);
        EXPECT_THROW(gemm<T>(this->exec, 2, 2, 3, T(1), a, b, T(0), c, GemmVariant::vendor),
                     Unsupported);
    }
    if (this->exec.backend() == Backend::omp) {
        EXPECT_THROW(gemm<T>(this->exec, 2, 2, 3, T(1), a, b, T(0), c, GemmVariant::tiled),
                     Unsupported);
        EXPECT_THROW(gemm<T>(this->exec, 2, 2, 3, T(1), a, b, T(0), c, GemmVariant::subgroup),
                     Unsupported);
    }
}

}  // namespace
}  // namespace portla::test
