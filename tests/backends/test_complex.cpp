// Complex values (complex64 and complex128) on the backend under test against the reference:
// the vector kernels on fresh random data, the matrix formats, the preconditioners with a
// complex path and the solvers; on a backend without complex kernels, the one-line Unsupported
// error naming the value type and the backend.
#include <algorithm>
#include <complex>

#include "backends/backend_fixture.hpp"
#include "core/dispatch_values.hpp"

namespace portla::test {
namespace {

template <typename T>
using real_of = typename T::value_type;

template <typename T>
std::vector<T> random_complex(std::size_t n, unsigned seed) {
    const auto re = random_vector<double>(n, seed), im = random_vector<double>(n, seed + 7919);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = T(real_of<T>(re[i]), real_of<T>(im[i]));
    return v;
}

// Output buffers start as NaN + NaN i, so that an element a kernel forgets to write fails.
template <typename T>
Array<T> poisoned_complex(const Executor& exec, std::size_t n) {
    const auto nan = std::numeric_limits<real_of<T>>::quiet_NaN();
    return Array<T>(exec, std::vector<T>(n, T(nan, nan)));
}

// First line of a test over complex values: on a backend without complex kernels, checks that it
// refuses them and skips the test.
#define PORTLA_REQUIRE_COMPLEX()                  \
    do {                                          \
        this->require_complex();                  \
        if (::testing::Test::IsSkipped()) return; \
    } while (0)

template <typename T>
class Complex : public BackendTest {
protected:
    bool has_complex() const { return supports_complex(exec.backend()); }
    // Skips on a backend without complex kernels after checking that it refuses them.
    void require_complex() {
        if (has_complex()) return;
        Array<T> x(exec, std::vector<T>{T(1, 2)});
        try {
            blas::norm2<T>(exec, x.get_view());
            ADD_FAILURE() << "complex values on " << exec.name() << ": nothing was thrown";
        } catch (const Unsupported& e) {
            EXPECT_NE(std::string(e.what()).find(
                          std::is_same_v<T, std::complex<double>> ? "complex128" : "complex64"),
                      std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find(exec.name()), std::string::npos) << e.what();
        }
        GTEST_SKIP() << "complex kernels are not implemented on the " << exec.name()
                     << " backend yet";
    }
    // |error| of a sum of n complex products, each part accumulated in double by both backends
    // in different orders: at most n eps(double) sum |x_i||y_i| (a chain of n additions), plus
    // the final rounding to T of each part: 2 eps(T) |value| (real and imaginary parts).
    static double sum_tol(std::size_t n, double abs_sum, double value) {
        return double(n + 1) * eps<double>() * abs_sum + 2 * eps<real_of<T>>() * value;
    }
};

using ComplexTypes = ::testing::Types<std::complex<double>, std::complex<float>>;
TYPED_TEST_SUITE(Complex, ComplexTypes);

// A complex matrix in host CSR arrays.
template <typename T>
struct HostCsr {
    std::size_t n = 0;
    std::vector<std::int32_t> row_ptrs{0}, col_idxs;
    std::vector<T> values;
    void add(std::size_t col, std::complex<double> v) {
        col_idxs.push_back(static_cast<std::int32_t>(col));
        values.push_back(T(real_of<T>(v.real()), real_of<T>(v.imag())));
    }
    void end_row() { row_ptrs.push_back(static_cast<std::int32_t>(col_idxs.size())); }
    Csr<T> on(const Executor& exec, CsrIndex index = CsrIndex::automatic) const {
        return Csr<T>(exec, n, n, row_ptrs, col_idxs, values, index);
    }
    // y = A x in complex of double on the host (an independent residual)
    std::vector<std::complex<double>> times(const std::vector<T>& x) const {
        std::vector<std::complex<double>> y(n);
        for (std::size_t i = 0; i < n; ++i)
            for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
                y[i] += std::complex<double>(values[k]) * std::complex<double>(x[col_idxs[k]]);
        return y;
    }
};

// A 5-point stencil on an m x m grid: `diag` on the diagonal, `west` and `east` for the
// neighbours along x, -1 for those along y.
template <typename T>
HostCsr<T> grid5(std::size_t m, std::complex<double> diag, std::complex<double> west,
                 std::complex<double> east) {
    HostCsr<T> A;
    A.n = m * m;
    for (std::size_t j = 0; j < m; ++j)
        for (std::size_t i = 0; i < m; ++i) {
            const std::size_t row = j * m + i;
            if (j > 0) A.add(row - m, -1.0);
            if (i > 0) A.add(row - 1, west);
            A.add(row, diag);
            if (i + 1 < m) A.add(row + 1, east);
            if (j + 1 < m) A.add(row + m, -1.0);
            A.end_row();
        }
    return A;
}

// The shifted Laplacian of Helmholtz problems (h = 1): -Lap - k^2 (1 + i damping): complex
// symmetric, not Hermitian, indefinite for k^2 above the smallest eigenvalue of -Lap.
template <typename T>
HostCsr<T> helmholtz(std::size_t m, double k2, double damping) {
    return grid5<T>(m, {4 - k2, -k2 * damping}, -1.0, -1.0);
}

// A Hermitian positive definite matrix: the 5-point Laplacian plus i/2 times an antisymmetric
// coupling along x (entry (r, r+1) = -1 + i/2, (r+1, r) = -1 - i/2), with diagonal 5 above the
// Gershgorin radius 2 |-1 + i/2| + 2 = 4.24.
template <typename T>
HostCsr<T> hermitian(std::size_t m) {
    return grid5<T>(m, 5.0, {-1.0, -0.5}, {-1.0, 0.5});
}

const std::vector<std::size_t> sizes{0, 1, 31, 32, 33, 257, 1025, 10007};

TYPED_TEST(Complex, DotConjugatesItsFirstArgument) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    // (i, 2) . (1, i) = conj(i) 1 + conj(2) i = -i + 2i = i
    Array<T> x(this->exec, std::vector<T>{T(0, 1), T(2, 0)});
    Array<T> y(this->exec, std::vector<T>{T(1, 0), T(0, 1)});
    const T d = blas::dot<T>(this->exec, x.get_view(), y.get_view());
    EXPECT_EQ(d, T(0, 1));
    // ||(3 + 4i, 12i)|| = sqrt(25 + 144) = 13, real
    Array<T> z(this->exec, std::vector<T>{T(3, 4), T(0, 12)});
    EXPECT_EQ(blas::norm2<T>(this->exec, z.get_view()), T(13, 0));
}

TYPED_TEST(Complex, VectorKernelsMatchTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    const T a(real_of<T>(0.75), real_of<T>(-1.25)), b(real_of<T>(-0.5), real_of<T>(2.0));
    for (std::size_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto hx = random_complex<T>(n, 11 + n), hy = random_complex<T>(n, 23 + n);
        Array<T> x(this->exec, hx), y(this->exec, hy), rx(this->ref, hx), ry(this->ref, hy);

        // axpby: each entry is a x_i + b y_i in T on both backends, the same operations
        // (std::complex's product), so equal to a few eps(T) of |a||x_i| + |b||y_i|.
        blas::axpby<T>(this->exec, a, x.get_view(), b, y.get_view());
        blas::axpby<T>(this->ref, a, rx.get_view(), b, ry.get_view());
        const auto got = y.to_host(), want = ry.to_host();
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_LE(std::abs(got[i] - want[i]),
                      8 * eps<real_of<T>>() *
                          (std::abs(a) * std::abs(hx[i]) + std::abs(b) * std::abs(hy[i])))
                << "axpby at " << i;

        auto c = poisoned_complex<T>(this->exec, n);
        blas::copy<T>(this->exec, x.get_view(), c.get_view());
        EXPECT_EQ(c.to_host(), hx);
        blas::fill<T>(this->exec, c.get_view(), a);
        EXPECT_EQ(c.to_host(), std::vector<T>(n, a));

        double abs_sum = 0, sq = 0;
        for (std::size_t i = 0; i < n; ++i) {
            abs_sum += std::abs(hx[i]) * std::abs(want[i]);
            sq += std::norm(std::complex<double>(hx[i]));
        }
        const Array<T> y_same(this->exec, want);  // the reference's y, on this executor
        const T d = blas::dot<T>(this->exec, x.get_view(), y_same.get_view());  // x^H y
        const T dr = blas::dot<T>(this->ref, rx.get_view(), ry.get_view());
        EXPECT_LE(std::abs(d - dr), this->sum_tol(n, abs_sum, std::abs(dr)));
        const T nrm = blas::norm2<T>(this->exec, x.get_view());
        EXPECT_EQ(nrm.imag(), 0);
        // ||x|| is the norm of the 2n real parts, their squares summed in double (reference,
        // omp) or in real_of<T> (cuda, as its real norm2): 2n non-negative terms summed in any
        // order in precision u are within 2n u of their sum, halved by the square root; then
        // the rounding of the root and of the result to real_of<T>.
        EXPECT_LE(std::abs(nrm.real() - std::sqrt(sq)),
                  (double(n) + 2) * eps<real_of<T>>() * std::sqrt(sq));
        // x^H x = ||x||^2: real up to rounding
        const T xx = blas::dot<T>(this->exec, x.get_view(), x.get_view());
        EXPECT_LE(std::abs(xx.imag()), this->sum_tol(n, sq, sq));

        // z = x .* y on the same operands (the reference's y): one complex product per entry,
        // each part two products and a sum in T (or a fused multiply-add), so each backend's
        // part is within 2 u (|x_r y_r| + |x_i y_i|) of the exact one: the two within
        // 4 eps(T) |x_i||y_i|.
        auto z = poisoned_complex<T>(this->exec, n);
        auto zr = poisoned_complex<T>(this->ref, n);
        blas::pointwise_mul<T>(this->exec, x.get_view(), y_same.get_view(), z.get_view());
        blas::pointwise_mul<T>(this->ref, rx.get_view(), ry.get_view(), zr.get_view());
        const auto zh = z.to_host(), zrh = zr.to_host();
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_LE(std::abs(zh[i] - zrh[i]),
                      4 * eps<real_of<T>>() * std::abs(hx[i]) * std::abs(want[i]))
                << "pointwise_mul at " << i;
    }
}

// x += alpha p; r -= alpha q; rr = r^H r in one pass: x and r entry by entry as axpby above
// (a few eps(T) of |alpha| |p_i| + |x_i|), rr a real sum of squares (sum_tol).
TYPED_TEST(Complex, FusedCgUpdateMatchesTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    const T alpha(real_of<T>(0.375), real_of<T>(-0.625));
    for (std::size_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto hp = random_complex<T>(n, 3 + n), hq = random_complex<T>(n, 5 + n);
        const auto hx = random_complex<T>(n, 7 + n), hr = random_complex<T>(n, 9 + n);
        const auto run = [&](const Executor& e, std::vector<T>& x, std::vector<T>& r) {
            Array<T> p(e, hp), q(e, hq), xd(e, hx), rd(e, hr);
            auto rr = poisoned_complex<T>(e, 1);
            blas::fused_cg_update<T>(e, alpha, p.get_view(), q.get_view(), xd.get_view(),
                                     rd.get_view(), rr.get_view());
            x = xd.to_host();
            r = rd.to_host();
            return rr.to_host()[0];
        };
        std::vector<T> x, r, xr, rref;
        const T got = run(this->exec, x, r), want = run(this->ref, xr, rref);
        double sq = 0, moved = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double bound_x =
                8 * eps<real_of<T>>() * (std::abs(alpha) * std::abs(hp[i]) + std::abs(hx[i]));
            const double bound_r =
                8 * eps<real_of<T>>() * (std::abs(alpha) * std::abs(hq[i]) + std::abs(hr[i]));
            ASSERT_LE(std::abs(x[i] - xr[i]), bound_x) << "x at " << i;
            ASSERT_LE(std::abs(r[i] - rref[i]), bound_r) << "r at " << i;
            sq += std::norm(std::complex<double>(rref[i]));
            // |r_i|^2 of an r_i within bound_r of the reference's
            moved += (2 * std::abs(rref[i]) + bound_r) * bound_r;
        }
        // the summation bound, plus what the backends' r entries (each within bound_r of the
        // other's) move the sum of squares by
        EXPECT_LE(std::abs(got.real() - want.real()), this->sum_tol(n, sq, sq) + moved);
        EXPECT_LE(std::abs(got.imag()), this->sum_tol(n, sq, sq));
    }
}

TYPED_TEST(Complex, InvertDiagonalFindsTheFirstZero) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    Array<T> d(this->exec, std::vector<T>{T(0, 2), T(3, 4), T(0, 0), T(1, 0)});
    EXPECT_EQ(blas::invert_diagonal<T>(this->exec, d.get_view()), 2u);
    const auto h = d.to_host();
    EXPECT_EQ(h[0], T(0, -0.5));                                        // 1 / 2i
    EXPECT_LE(std::abs(h[1] - T(0.12, -0.16)), 2 * eps<real_of<T>>());  // (3 - 4i) / 25
}

TYPED_TEST(Complex, CsrApplyMatchesTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    for (std::size_t m : {1, 6, 33, 120})
        for (const CsrIndex index : {CsrIndex::int32, CsrIndex::offsets64, CsrIndex::int64}) {
            SCOPED_TRACE("m = " + std::to_string(m) + ", index " + to_string(index));
            const auto host = helmholtz<T>(m, 0.7, 0.05);
            const auto A = host.on(this->exec, index);
            const auto hx = random_complex<T>(host.n, 5 + m);
            Array<T> x(this->exec, hx);
            auto y = poisoned_complex<T>(this->exec, host.n);
            A.apply(x.get_view(), y.get_view());
            const auto got = y.to_host();
            const auto want = host.times(hx);
            // Each row sums at most 5 products in T: |error| <= 5 * 2 eps(T) * sum |a_ik||x_k|,
            // and sum |a_ik||x_k| <= (4 + 0.7 * 1.002 + 4) * max |x_k| <= 9 * sqrt(2).
            for (std::size_t i = 0; i < host.n; ++i)
                ASSERT_LE(std::abs(std::complex<double>(got[i]) - want[i]),
                          10 * eps<real_of<T>>() * 9 * std::sqrt(2.0))
                    << "row " << i;
            // the diagonal: 4 - k^2 (1 + i damping)
            auto d = poisoned_complex<T>(this->exec, host.n);
            A.diagonal(d.get_view());
            for (const T v : d.to_host())
                EXPECT_EQ(v, T(real_of<T>(4 - 0.7), real_of<T>(-0.7 * 0.05)));
        }
}

// The same Helmholtz matrices as ELL (from CSR arrays) and dense (row-major): y = A x against the
// host product in complex of double, with the bound of the CSR test (at most 5 products a row;
// the dense rows add exact zeros only), and the diagonal.
TYPED_TEST(Complex, EllAndDenseApplyMatchTheHostProduct) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    for (std::size_t m : {1, 6, 33}) {
        SCOPED_TRACE("m = " + std::to_string(m));
        const auto host = helmholtz<T>(m, 0.7, 0.05);
        const auto ell = Ell<T>::from_arrays(this->exec, host.n, host.n, host.row_ptrs,
                                             host.col_idxs, host.values);
        EXPECT_EQ(ell.max_row_nnz(), m == 1 ? 1u : 5u);
        std::vector<T> full(host.n * host.n, T(0));
        for (std::size_t i = 0; i < host.n; ++i)
            for (auto k = host.row_ptrs[i]; k < host.row_ptrs[i + 1]; ++k)
                full[i * host.n + static_cast<std::size_t>(host.col_idxs[k])] += host.values[k];
        const Dense<T> dense(this->exec, host.n, host.n, full);
        const auto hx = random_complex<T>(host.n, 17 + m);
        const auto want = host.times(hx);
        Array<T> x(this->exec, hx);
        for (const LinearOperator<T>* A : {static_cast<const LinearOperator<T>*>(&ell),
                                           static_cast<const LinearOperator<T>*>(&dense)}) {
            SCOPED_TRACE(A->format());
            auto y = poisoned_complex<T>(this->exec, host.n);
            A->apply(x.get_view(), y.get_view());
            const auto got = y.to_host();
            for (std::size_t i = 0; i < host.n; ++i)
                ASSERT_LE(std::abs(std::complex<double>(got[i]) - want[i]),
                          10 * eps<real_of<T>>() * 9 * std::sqrt(2.0))
                    << "row " << i;
            auto d = poisoned_complex<T>(this->exec, host.n);
            A->diagonal(d.get_view());
            for (const T v : d.to_host())
                EXPECT_EQ(v, T(real_of<T>(4 - 0.7), real_of<T>(-0.7 * 0.05)));
        }
    }
}

// A malformed structure given to Ell::from_arrays: Csr's checks and errors (a column out of
// range, decreasing offsets: BadInput; offsets of the wrong length or not ending at the entry
// count: DimensionMismatch), nothing built.
TYPED_TEST(Complex, EllFromArraysRefusesAMalformedStructure) {
    using T = TypeParam;
    const std::vector<T> v{T(1, 1), T(2, 0)};
    EXPECT_THROW(Ell<T>::from_arrays(this->exec, 2, 2, {0, 1, 2}, {0, 2}, v), BadInput);
    EXPECT_THROW(Ell<T>::from_arrays(this->exec, 2, 2, {0, 2, 1}, {0, 1}, v), BadInput);
    EXPECT_THROW(Ell<T>::from_arrays(this->exec, 2, 2, {0, 1, 3}, {0, 1}, v), DimensionMismatch);
    EXPECT_THROW(Ell<T>::from_arrays(this->exec, 2, 2, {0, 1}, {0, 1}, v), DimensionMismatch);
}

// Block Jacobi over complex blocks: each block of z = M^-1 r solves A_bb z_b = r_b. With blocks
// narrower than the grid's lines (bs < m = 12) a block holds the x-couplings only, so the
// Helmholtz blocks are diagonally dominant by rows (|4 - k^2 (1 + i/20)| >= 3.3 against at most
// 2 of modulus 1 off the diagonal), and ||A_bb|| <= 5.3 and ||A_bb^-1|| <= 1 / 1.3 in the max-row
// norm; the inverse rounded to T and a sum of bs products in T give |z~ - z| <= 2 (bs + 1) eps(T)
// ||A_bb^-1|| max|r|, so |A_bb z~ - r_b| <= 5.3 / 1.3 * 2 (bs + 1) eps(T) max|r| (~8.2 (bs + 1)
// eps max|r|; 10 allowed). And the reference's z to the same bound.
TYPED_TEST(Complex, BlockJacobiSolvesEachBlock) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    const auto host = helmholtz<T>(12, 0.7, 0.05);
    const auto A = host.on(this->exec), Aref = host.on(this->ref);
    const auto hr = random_complex<T>(host.n, 23);
    double rmax = 0;
    for (const T v : hr) rmax = std::max(rmax, double(std::abs(v)));
    for (int bs : {1, 3, 4, 7, 11}) {
        SCOPED_TRACE("block size " + std::to_string(bs));
        const solver::BlockJacobi<T> M(A, bs), Mref(Aref, bs);
        Array<T> r(this->exec, hr), rr(this->ref, hr);
        auto z = poisoned_complex<T>(this->exec, host.n),
             zr = poisoned_complex<T>(this->ref, host.n);
        M.apply(r.get_view(), z.get_view());
        Mref.apply(rr.get_view(), zr.get_view());
        const auto got = z.to_host(), ref = zr.to_host();
        const double tol = 10 * (bs + 1) * eps<real_of<T>>() * rmax;
        const auto n = host.n, b = static_cast<std::size_t>(bs);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t start = i / b * b, end = std::min(n, start + b);
            std::complex<double> s = 0;
            for (auto k = host.row_ptrs[i]; k < host.row_ptrs[i + 1]; ++k) {
                const auto c = static_cast<std::size_t>(host.col_idxs[k]);
                if (c >= start && c < end)
                    s += std::complex<double>(host.values[k]) * std::complex<double>(got[c]);
            }
            ASSERT_LE(std::abs(s - std::complex<double>(hr[i])), tol) << "row " << i;
            ASSERT_LE(std::abs(std::complex<double>(got[i]) - std::complex<double>(ref[i])),
                      tol / 1.3)
                << "row " << i;
        }
    }
}

// ILU(0) of a complex matrix: (L U)_ij = a_ij on A's pattern (L unit lower, U upper, both read
// back from the factors), and M^-1 r on the backend under test against the reference's. The
// factorization runs on the host in complex<double> and is rounded to T once: each of the at
// most 3 products l_ik u_kj of an entry on the 5-point pattern (|l|, |u| < 4: at most 16)
// carries both factors' rounding, 2 eps(T) relative, and the elimination in double far less:
// |L U - A|_ij <= 3 * 16 * 2 eps(T) = 96 eps(T); twice that allowed.
TYPED_TEST(Complex, Ilu0FactorsAndSolvesAsTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    const auto host = helmholtz<T>(10, 0.7, 0.05);
    const auto A = host.on(this->exec), Aref = host.on(this->ref);
    const solver::Ilu0<T> M(A), Mref(Aref);
    EXPECT_FALSE(M.unstable()) << M.diagnosis().advice;
    const std::size_t n = host.n;
    std::vector<std::complex<double>> lu(n * n), a(n * n);
    const auto lp = M.lower().row_ptrs().to_host(), lc = M.lower().col_idxs().to_host();
    const auto lv = M.lower().values().to_host();
    const auto up = M.upper().row_ptrs().to_host(), uc = M.upper().col_idxs().to_host();
    const auto uv = M.upper().values().to_host();
    const auto u_at = [&](std::size_t i, std::size_t j) {
        for (auto k = up[i]; k < up[i + 1]; ++k)
            if (static_cast<std::size_t>(uc[k]) == j) return std::complex<double>(uv[k]);
        return std::complex<double>(0);
    };
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            std::complex<double> s = u_at(i, j);  // l_ii = 1
            for (auto k = lp[i]; k < lp[i + 1]; ++k)
                s += std::complex<double>(lv[k]) * u_at(static_cast<std::size_t>(lc[k]), j);
            lu[i * n + j] = s;
        }
    for (std::size_t i = 0; i < n; ++i)
        for (auto k = host.row_ptrs[i]; k < host.row_ptrs[i + 1]; ++k) {
            const auto j = static_cast<std::size_t>(host.col_idxs[k]);
            ASSERT_LE(std::abs(lu[i * n + j] - std::complex<double>(host.values[k])),
                      192 * eps<real_of<T>>())
                << "(" << i << ", " << j << ")";
        }
    // apply: two triangular solves in T; the reference's substitution against the backend's
    // level-scheduled one, the same sums in another order: within 1e3 eps(T) of max |z|
    // (cond(L U) of this Helmholtz matrix ~ 10: a few hundred eps at most).
    const auto hr = random_complex<T>(n, 31);
    Array<T> r(this->exec, hr), rr(this->ref, hr);
    auto z = poisoned_complex<T>(this->exec, n), zr = poisoned_complex<T>(this->ref, n);
    M.apply(r.get_view(), z.get_view());
    Mref.apply(rr.get_view(), zr.get_view());
    const auto got = z.to_host(), ref = zr.to_host();
    double zmax = 0;
    for (const T v : ref) zmax = std::max(zmax, double(std::abs(v)));
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_LE(std::abs(std::complex<double>(got[i]) - std::complex<double>(ref[i])),
                  1e3 * eps<real_of<T>>() * zmax)
            << "row " << i;
}

// A complex solve on the backend under test against the same solve on the reference: both
// converge, the true residual ||b - A x|| / ||b|| (computed here in complex of double) meets
// the tolerance, and the iteration counts differ by rounding only.
template <typename T, typename Solve>
void check_solve(const Executor& exec, const Executor& ref, const HostCsr<T>& host, Solve solve,
                 solver::Preconditioner precond, int measured, int slack, int replacement = 0,
                 int max_iters = 0) {
    auto settings = solver_defaults::default_settings<real_of<T>>(precond);
    settings.residual_replacement = replacement;
    if (max_iters > 0) settings.max_iters = max_iters;
    const auto hb = random_complex<T>(host.n, 99);
    const auto run = [&](const Executor& e, std::vector<T>& xh) {
        const auto A = host.on(e);
        Array<T> b(e, hb);
        auto x = poisoned_complex<T>(e, host.n);
        const solver::Result r = solve(A, b.get_view(), x.get_view(), settings);
        xh = x.to_host();
        return r;
    };
    std::vector<T> x, xr;
    const solver::Result got = run(exec, x), want = run(ref, xr);
    ASSERT_TRUE(got.converged) << solver::to_string(got.reason);
    ASSERT_TRUE(want.converged) << solver::to_string(want.reason);
    const auto ax = host.times(x);
    double rn = 0, bn = 0;
    for (std::size_t i = 0; i < host.n; ++i) {
        rn += std::norm(std::complex<double>(hb[i]) - ax[i]);
        bn += std::norm(std::complex<double>(hb[i]));
    }
    // The solver confirms convergence with its own true residual in T; recomputed in double
    // it may differ by the rounding of A x in T: about 10 eps(T) ||A|| ||x|| / ||b||, far below
    // the factor 2 allowed here for the tolerances of default_settings.
    EXPECT_LE(std::sqrt(rn / bn), 2 * settings.rtol);
    EXPECT_LE(std::abs(got.iterations - want.iterations), slack)
        << "reference: " << want.iterations << ", " << exec.name() << ": " << got.iterations;
    // The reference's count within 15% of the one measured (VM, 2026-11-28): a changed
    // recurrence (a missing conjugate converges slower or not at all) moves it further.
    EXPECT_NEAR(want.iterations, measured, 0.15 * measured + 1);
}

template <typename T>
using SolveFn = solver::Result (*)(const LinearOperator<T>&, const_view<T>, view<T>,
                                   const solver::Settings&);

// Each solver with a complex path on the Helmholtz matrix (helmholtz<T>(24, 0.5, 0.1)) or the
// Hermitian one (hermitian<T>(24)), and the reference's iterations measured in complex128 and
// complex64. GMRES runs with its default restart 30; Jacobi changes nothing where the diagonal
// is constant but runs inside the steps (CG) or as a preconditioner (BiCGSTAB, GMRES). omp
// needed the same counts except BiCGSTAB on Helmholtz: 439 and 435 in complex128, its irregular
// convergence amplifying rounding differences, hence 10% slack for it as for real BiCGSTAB, and
// for CGS, whose squared polynomial is as irregular, and BiCG. BiCG and QMR take A^H and M^-H
// (Jacobi's conj(D)^-1) for their shadow sequences. In complex64 the reference itself needed
// 276 and 328 BiCGSTAB iterations on Helmholtz without and with Jacobi, which differ in rounding
// only (the diagonal is constant): a quarter of the count is slack there (opencl on PoCL: 331
// against 276 without Jacobi). ILU(0) and block Jacobi (blocks of 4 rows) cut the counts on
// Helmholtz (GMRES 837 -> 275 and 676, BiCGSTAB 444 -> 127) and on the Hermitian matrix (CG
// 38 -> 30, TFQMR 43 -> 34).
TYPED_TEST(Complex, SolversMatchTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    using P = solver::Preconditioner;
    struct Case {
        const char* name;
        SolveFn<T> solve;
        bool helmholtz;
        P precond;
        int measured_double, measured_float;
    };
    const SolveFn<T> cg = solver::cg<T>, bicgstab = solver::bicgstab<T>, gmres = solver::gmres<T>,
                     cgs = solver::cgs<T>, tfqmr = solver::tfqmr<T>, lgmres = solver::lgmres<T>,
                     gcrotmk = solver::gcrotmk<T>, bicg = solver::bicg<T>, qmr = solver::qmr<T>;
    const Case cases[] = {
        {"bicgstab", bicgstab, true, P::none, 444, 276},
        {"bicgstab", bicgstab, true, P::jacobi, 422, 328},
        {"bicgstab", bicgstab, false, P::none, 28, 11},
        {"gmres", gmres, true, P::none, 837, 293},
        {"gmres", gmres, true, P::jacobi, 837, 293},
        {"gmres", gmres, false, P::none, 38, 15},
        {"cg", cg, false, P::none, 38, 16},
        {"cg", cg, false, P::jacobi, 38, 16},
        {"cgs", cgs, true, P::none, 144, 139},
        {"cgs", cgs, false, P::jacobi, 20, 9},
        {"tfqmr", tfqmr, true, P::none, 296, 295},
        {"tfqmr", tfqmr, false, P::jacobi, 43, 19},
        {"lgmres", lgmres, true, P::none, 849, 301},
        {"lgmres", lgmres, false, P::jacobi, 38, 15},
        {"gcrotmk", gcrotmk, true, P::none, 549, 269},
        {"gcrotmk", gcrotmk, false, P::jacobi, 38, 15},
        {"bicg", bicg, true, P::none, 158, 139},
        {"bicg", bicg, false, P::jacobi, 38, 16},
        {"qmr", qmr, true, P::jacobi, 157, 138},
        {"qmr", qmr, false, P::none, 38, 15},
        {"gmres", gmres, true, P::ilu0, 275, 97},
        {"bicgstab", bicgstab, true, P::ilu0, 127, 82},
        {"tfqmr", tfqmr, false, P::block_jacobi, 34, 15},
        {"gmres", gmres, true, P::block_jacobi, 676, 235},
        {"cg", cg, false, P::block_jacobi, 30, 13},
    };
    const auto H = helmholtz<T>(24, 0.5, 0.1), S = hermitian<T>(24);
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.name) + (c.helmholtz ? " helmholtz " : " hermitian ") +
                     solver::to_string(c.precond));
        const int measured =
            std::is_same_v<T, std::complex<double>> ? c.measured_double : c.measured_float;
        const bool float_helmholtz = std::is_same_v<T, std::complex<float>> && c.helmholtz;
        const int slack = c.solve == bicgstab && float_helmholtz ? std::max(3, measured / 4)
                          : c.solve == bicgstab || c.solve == cgs || c.solve == bicg
                              ? std::max(3, measured / 10)
                              : solver_defaults::slack<real_of<T>>(measured);
        check_solve<T>(this->exec, this->ref, c.helmholtz ? H : S, c.solve, c.precond, measured,
                       slack);
    }
}

// HB/young1c of the SuiteSparse collection (tests/data/suitesparse, its README for source and
// licence): a real complex matrix, 841 rows, read by read_matrix_market_complex into host CSR.
template <typename T>
HostCsr<T> young1c() {
    const io::ComplexMatrixData d = io::read_matrix_market_complex(
        std::string(PORTLA_TEST_DATA_DIR) + "/suitesparse/young1c.mtx");
    HostCsr<T> A;
    A.n = static_cast<std::size_t>(d.rows);
    std::vector<std::size_t> order(d.values.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return d.row_idx[a] != d.row_idx[b] ? d.row_idx[a] < d.row_idx[b]
                                            : d.col_idx[a] < d.col_idx[b];
    });
    std::size_t row = 0;
    for (const std::size_t k : order) {
        for (; row < static_cast<std::size_t>(d.row_idx[k]); ++row) A.end_row();
        A.add(static_cast<std::size_t>(d.col_idx[k]), d.values[k]);
    }
    for (; row < A.n; ++row) A.end_row();
    return A;
}

// ILU(0) on young1c: GMRES(30) and BiCGSTAB against the reference backend, the reference's
// counts as measured (2-core VM, 2026-11-29; complex128 at rtol 1e-10 GMRES 2032 and BiCGSTAB
// 183, complex64 at 1e-4 622 and 194; at rtol 1e-8 without a preconditioner GMRES(30) needs
// 3600 iterations and with ILU(0) 1186). GMRES restarts about 70 times here: a rounding
// difference at the start of a cycle moves the count by a few iterations, so 2% of it is
// allowed; BiCGSTAB's irregular convergence takes 10%, as on the grid matrices above.
TYPED_TEST(Complex, Young1cWithIlu0MatchesTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    using P = solver::Preconditioner;
    const auto A = young1c<T>();
    ASSERT_EQ(A.n, 841u);
    ASSERT_EQ(A.values.size(), 4089u);
    const bool dbl = std::is_same_v<T, std::complex<double>>;
    const int gmres_its = dbl ? 2032 : 622, bicgstab_its = dbl ? 183 : 194;
    check_solve<T>(this->exec, this->ref, A, SolveFn<T>(solver::gmres<T>), P::ilu0, gmres_its,
                   std::max(2, gmres_its / 50), 0, 10000);
    check_solve<T>(this->exec, this->ref, A, SolveFn<T>(solver::bicgstab<T>), P::ilu0, bicgstab_its,
                   std::max(3, bicgstab_its / 10));
}

// CG's steps over the grid (cuda: the one-block loop switched off, as for a system of more than
// cg_block_loop_rows rows) with the true residual recomputed every 10 iterations (the fused
// replacement step): the same counts as above (measured: 38 and 16 with and without the
// replacement on reference and omp).
TYPED_TEST(Complex, CgStepsWithReplacementMatchTheReference) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    KernelOptions o = this->exec.kernel_options();
    o.cg_block_loop_rows = 0;
    Executor steps = this->exec;
    steps.set_kernel_options(o);
    const int measured = std::is_same_v<T, std::complex<double>> ? 38 : 16;
    const auto S = hermitian<T>(24);
    for (const auto precond : {solver::Preconditioner::none, solver::Preconditioner::jacobi}) {
        SCOPED_TRACE(solver::to_string(precond));
        check_solve<T>(steps, this->ref, S, SolveFn<T>(solver::cg<T>), precond, measured,
                       solver_defaults::slack<real_of<T>>(measured), 10);
    }
}

TYPED_TEST(Complex, SolversRefusePreconditionersWithoutAComplexPath) {
    using T = TypeParam;
    PORTLA_REQUIRE_COMPLEX();
    const auto host = helmholtz<T>(4, 0.5, 0.1);
    const auto A = host.on(this->exec);
    Array<T> b(this->exec, random_complex<T>(host.n, 3)), x(this->exec, host.n);
    auto s = solver_defaults::default_settings<real_of<T>>(solver::Preconditioner::ilut);
    try {
        solver::gmres<T>(A, b.get_view(), x.get_view(), s);
        ADD_FAILURE() << "gmres with ilut on complex values: nothing was thrown";
    } catch (const Unsupported& e) {
        const std::string dtype =
            std::is_same_v<T, std::complex<double>> ? "complex128" : "complex64";
        EXPECT_EQ(std::string(e.what()),
                  "gmres: the ilut preconditioner has no path for complex "
                  "values (" +
                      dtype + "); use jacobi, block-jacobi or ilu0");
    }
}

}  // namespace
}  // namespace portla::test
