// ILU(0) and IC(0) (solver/ilu.hpp) on the backend under test: the factors against a dense
// ILU(0)/IC(0) written here independently (right-looking, on a dense copy restricted to the
// pattern), exactness where the pattern has no fill (tridiagonal), apply() against the reference
// backend's, the vendor path, the input checks and IC(0)'s diagonal shift.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/backend_fixture.hpp"
#include "portla/io/matrix_market.hpp"

namespace portla::test {
namespace {

using solver::Ic0;
using solver::Ilu0;
using solver::TriangularSolver;

template <typename T>
class Ilu : public BackendTest {
protected:
    Ilu() : BackendTest({KernelFamily::sptrsv}) {}
};
using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Ilu, ValueTypes);

// ---- matrices (never ones and zeros only: random positive perturbations) ----

// Tridiagonal, diagonally dominant: diagonal 4 + U[0,1], off-diagonals -(1 + U[0,1/2]);
// symmetric when `symmetric`.
MatrixData tridiagonal(std::int64_t n, unsigned seed, bool symmetric) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    MatrixData d;
    d.rows = d.cols = n;
    for (std::int64_t i = 0; i < n; ++i) {
        d.add(i, i, 4 + u(gen));
        if (i + 1 < n) {
            const double lo = -(1 + 0.5 * u(gen));
            const double up = symmetric ? lo : -(1 + 0.5 * u(gen));
            d.add(i + 1, i, lo);
            d.add(i, i + 1, up);
        }
    }
    return d;
}

// 2-D 5-point Poisson on an m x m grid with perturbed coefficients: diagonal 4 + U[0,1],
// off-diagonals -(1 + U[0,0.3]); symmetric when `symmetric`.
MatrixData poisson2d(std::int64_t m, unsigned seed, bool symmetric) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    MatrixData d;
    d.rows = d.cols = m * m;
    auto couple = [&](std::int64_t p, std::int64_t q) {
        const double lo = -(1 + 0.3 * u(gen));
        d.add(p, q, lo);
        d.add(q, p, symmetric ? lo : -(1 + 0.3 * u(gen)));
    };
    for (std::int64_t y = 0; y < m; ++y)
        for (std::int64_t x = 0; x < m; ++x) {
            const std::int64_t p = y * m + x;
            d.add(p, p, 4 + u(gen));
            if (x + 1 < m) couple(p, p + 1);
            if (y + 1 < m) couple(p, p + m);
        }
    return d;
}

// Random sparse, strictly diagonally dominant (a_ii = 1 + U[0,1] + sum_j |a_ij|): about
// `per_row` off-diagonal entries per row with random signs, columns uniform over the whole
// matrix, so the factors have many levels of varied width. Symmetric when `symmetric` (then
// the diagonal is positive and the matrix SPD).
MatrixData random_dominant(std::int64_t n, unsigned seed, bool symmetric, int per_row = 3) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<std::int64_t> col(0, std::max<std::int64_t>(n - 1, 0));
    MatrixData off;
    off.rows = off.cols = n;
    for (std::int64_t i = 0; i < n; ++i)
        for (int e = 0; e < per_row; ++e) {
            const std::int64_t j = col(gen);
            if (j == i) continue;
            const double v = (u(gen) < 0.5 ? -1 : 1) * (0.1 + u(gen));
            off.add(i, j, v);
            if (symmetric) off.add(j, i, v);
        }
    off.sort_and_sum_duplicates();
    std::vector<double> row_abs(n, 0.0);
    for (std::size_t k = 0; k < off.entries(); ++k)
        row_abs[off.row_idx[k]] += std::abs(off.values[k]);
    MatrixData d = off;
    for (std::int64_t i = 0; i < n; ++i) d.add(i, i, 1 + u(gen) + row_abs[i]);
    d.sort_and_sum_duplicates();
    return d;
}

// ---- dense helpers (row-major n x n, double) ----

using Dense = std::vector<double>;

Dense densify(const MatrixData& d) {
    const auto n = static_cast<std::size_t>(d.rows);
    Dense a(n * n, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) a[d.row_idx[k] * n + d.col_idx[k]] += d.values[k];
    return a;
}

std::vector<bool> pattern_of(const MatrixData& d) {
    const auto n = static_cast<std::size_t>(d.rows);
    std::vector<bool> p(n * n, false);
    for (std::size_t k = 0; k < d.entries(); ++k) p[d.row_idx[k] * n + d.col_idx[k]] = true;
    return p;
}

template <typename T>
Dense densify(const Csr<T>& m) {
    const auto n = m.rows();
    const auto ptr = m.row_ptrs().to_host();
    const auto col = m.col_idxs().to_host();
    const auto val = m.values().to_host();
    Dense a(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (auto k = ptr[i]; k < ptr[i + 1]; ++k) a[i * n + col[k]] = double(val[k]);
    return a;
}

// Dense ILU(0), right-looking (KIJ): for each pivot k, rows i > k with (i, k) in the pattern
// get l_ik = a_ik / a_kk and a_ij -= l_ik a_kj on the pattern of row i. L and U overwrite a.
Dense dense_ilu0(Dense a, const std::vector<bool>& p, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = k + 1; i < n; ++i) {
            if (!p[i * n + k]) continue;
            a[i * n + k] /= a[k * n + k];
            for (std::size_t j = k + 1; j < n; ++j)
                if (p[i * n + j]) a[i * n + j] -= a[i * n + k] * a[k * n + j];
        }
    return a;
}

// Dense IC(0), right-looking on the lower triangle: l_kk = sqrt(a_kk), l_ik = a_ik / l_kk,
// a_ij -= l_ik l_jk for k < j <= i on the pattern. Returns L (upper part zero).
Dense dense_ic0(Dense a, const std::vector<bool>& p, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
        a[k * n + k] = std::sqrt(a[k * n + k]);
        for (std::size_t i = k + 1; i < n; ++i)
            if (p[i * n + k]) a[i * n + k] /= a[k * n + k];
        for (std::size_t i = k + 1; i < n; ++i)
            for (std::size_t j = k + 1; j <= i; ++j)
                if (p[i * n + j] && p[i * n + k] && p[j * n + k])
                    a[i * n + j] -= a[i * n + k] * a[j * n + k];
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) a[i * n + j] = 0;
    return a;
}

double row_scale(const Dense& a, std::size_t n, std::size_t i) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s = std::max(s, std::abs(a[i * n + j]));
    return s;
}

// got == want entrywise (also where want is zero: no entry outside the pattern), to
// c eps max|a_i*| per row. c = 16: an entry is a_ij less at most 4 rounded products and a
// division (5-point pattern), each off by a few eps of the row's scale in whatever order, and
// the final rounding to T; 16 leaves a margin of ~2.
template <typename T>
void expect_dense_near(const Dense& got, const Dense& want, const Dense& a, std::size_t n,
                       const std::string& what) {
    for (std::size_t i = 0; i < n; ++i) {
        const double tol = 16 * eps<T>() * row_scale(a, n, i);
        for (std::size_t j = 0; j < n; ++j)
            ASSERT_NEAR(got[i * n + j], want[i * n + j], tol)
                << what << " entry (" << i + 1 << ", " << j + 1 << ")";
    }
}

template <typename T>
std::vector<T> multiply(const MatrixData& d, const std::vector<T>& x) {
    std::vector<double> y(d.rows, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k)
        y[d.row_idx[k]] += d.values[k] * double(x[d.col_idx[k]]);
    return std::vector<T>(y.begin(), y.end());
}

template <typename T>
std::vector<T> apply_on(const solver::PreconditionerOperator<T>& m, const std::vector<T>& r) {
    const Executor& exec = m.executor();
    Array<T> rd(exec, r);
    Array<T> z = poisoned<T>(exec, r.size());
    m.apply(rd, z);
    return z.to_host();
}

double max_abs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

template <typename T>
double max_abs(const std::vector<T>& v) {
    return max_abs(std::vector<double>(v.begin(), v.end()));
}

// ---- (a) factors against the dense ILU(0) / IC(0) ----

TYPED_TEST(Ilu, Ilu0FactorsMatchDenseIlu0) {
    using T = TypeParam;
    for (const auto& [name, data] :
         {std::pair<std::string, MatrixData>{"tridiagonal 50", tridiagonal(50, 11, false)},
          {"poisson 12x12", poisson2d(12, 12, false)}}) {
        SCOPED_TRACE(name);
        const auto n = static_cast<std::size_t>(data.rows);
        const auto A = Csr<T>::from_data(this->exec, data);
        const Ilu0<T> m(A);
        EXPECT_EQ(m.size(), n);
        EXPECT_EQ(m.name(), "ilu0");
        EXPECT_FALSE(m.symmetric());
        const Dense a = densify(data);
        const Dense want = dense_ilu0(a, pattern_of(data), n);
        Dense want_l(n * n, 0.0), want_u(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                (j < i ? want_l : want_u)[i * n + j] = want[i * n + j];
        expect_dense_near<T>(densify(m.lower()), want_l, a, n, "L");
        expect_dense_near<T>(densify(m.upper()), want_u, a, n, "U");
        EXPECT_EQ(m.lower().nnz() + m.upper().nnz(), A.nnz());
    }
}

TYPED_TEST(Ilu, Ic0FactorsMatchDenseIc0) {
    using T = TypeParam;
    for (const auto& [name, data] :
         {std::pair<std::string, MatrixData>{"tridiagonal 50", tridiagonal(50, 21, true)},
          {"poisson 12x12", poisson2d(12, 22, true)}}) {
        SCOPED_TRACE(name);
        const auto n = static_cast<std::size_t>(data.rows);
        const auto A = Csr<T>::from_data(this->exec, data);
        const Ic0<T> m(A);
        EXPECT_EQ(m.shift(), 0.0);
        EXPECT_EQ(m.name(), "ic0");
        EXPECT_TRUE(m.symmetric());
        const Dense a = densify(data);
        const Dense want = dense_ic0(a, pattern_of(data), n);
        expect_dense_near<T>(densify(m.lower()), want, a, n, "L");
        Dense want_t(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) want_t[i * n + j] = want[j * n + i];
        expect_dense_near<T>(densify(m.upper()), want_t, a, n, "L^T");
    }
}

// Unsorted columns and duplicates in the raw CSR arrays give the factors of the summed, sorted
// matrix.
TYPED_TEST(Ilu, UnsortedAndDuplicateColumnsAreNormalised) {
    using T = TypeParam;
    // [[4 -1 0], [-1 5 -2], [0 -1.5 6]], row 2 given as (2, 5), (0, -0.25), (1 ... ), (0, -0.75)
    const std::vector<std::int32_t> ptr{0, 2, 6, 8};
    const std::vector<std::int32_t> col{1, 0, 2, 0, 1, 0, 2, 1};
    const std::vector<T> val{-1, 4, -2, T(-0.25), 5, T(-0.75), 6, T(-1.5)};
    const Csr<T> A(this->exec, 3, 3, ptr, col, val);
    MatrixData d;
    d.rows = d.cols = 3;
    for (auto [i, j, v] : {std::tuple{0, 0, 4.0},
                           {0, 1, -1.0},
                           {1, 0, -1.0},
                           {1, 1, 5.0},
                           {1, 2, -2.0},
                           {2, 1, -1.5},
                           {2, 2, 6.0}})
        d.add(i, j, v);
    const Ilu0<T> got(A), want(Csr<T>::from_data(this->exec, d));
    EXPECT_EQ(densify(got.lower()), densify(want.lower()));
    EXPECT_EQ(densify(got.upper()), densify(want.upper()));
}

// ---- (b), (f): no fill in a tridiagonal pattern, so ILU(0) = LU and IC(0) = Cholesky ----

// M = A, so apply(A x) = x up to the rounding of b = A x to T and of the two solves:
// |z - x| <= c eps max|x| with c = 64 (cond(A) < 3 for diagonal >= 4 and off-diagonals
// <= 1.5: ~ cond * (3 eps per row of each solve + eps of b), 64 leaves a margin of ~4).
template <typename T>
void expect_inverse(const solver::PreconditionerOperator<T>& m, const MatrixData& data,
                    unsigned seed) {
    const auto x = random_vector<T>(m.size(), seed, 0.5, 2.0);
    const auto z = apply_on(m, multiply(data, x));
    const double tol = 64 * eps<T>() * max_abs(x);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(z[i], x[i], tol) << "row " << i + 1;
}

TYPED_TEST(Ilu, Ilu0OfTridiagonalIsExactLu) {
    using T = TypeParam;
    for (std::int64_t n : {1, 2, 31, 33, 257}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto data = tridiagonal(n, 31 + unsigned(n), false);
        const Ilu0<T> m(Csr<T>::from_data(this->exec, data));
        expect_inverse(m, data, 32);
    }
}

TYPED_TEST(Ilu, Ic0OfSpdTridiagonalIsExactCholesky) {
    using T = TypeParam;
    const std::int64_t n = 64;
    const auto data = tridiagonal(n, 41, true);
    const Ic0<T> m(Csr<T>::from_data(this->exec, data));
    EXPECT_EQ(m.shift(), 0.0);
    // M = L L^T = A entrywise, to the rounding of L to T (|l| <= sqrt(5) per entry, 2 terms).
    const Dense l = densify(m.lower()), a = densify(data);
    const auto un = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < un; ++i)
        for (std::size_t j = 0; j < un; ++j) {
            double s = 0;
            for (std::size_t k = 0; k < un; ++k) s += l[i * un + k] * l[j * un + k];
            ASSERT_NEAR(s, a[i * un + j], 16 * eps<T>() * row_scale(a, un, i))
                << "(" << i + 1 << ", " << j + 1 << ")";
        }
    expect_inverse(m, data, 42);
}

// ---- (c) apply on the backend under test against the reference backend ----

// The reference substitutes sequentially; omp in level order with the same row formula, cuda
// with a warp sum per row (another order). Per row, a sum of <= ~8 products (3 per row, doubled
// by symmetry, plus the diagonal): |z - z_ref| <= c eps max|z_ref| with c = 100 (~10 eps per
// row, carried through solves with |L^-1|, |U^-1| of order 1 for these strictly dominant
// matrices).
template <typename T, typename Factorization>
void compare_with_reference(const Executor& exec, const Executor& ref, bool symmetric) {
    for (std::int64_t n : {0, 1, 31, 33, 257, 10007}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto data = random_dominant(n, 50 + unsigned(n), symmetric);
        const Factorization m(Csr<T>::from_data(exec, data));
        const Factorization mref(Csr<T>::from_data(ref, data));
        if (n >= 257) {  // several levels, so the schedule is exercised
            EXPECT_GE(m.lower_levels(), 3u);
            EXPECT_GE(m.upper_levels(), 3u);
        }
        const auto r = random_vector<T>(n, 60 + unsigned(n));
        const auto z = apply_on(m, r);
        const auto want = apply_on(mref, r);
        const double tol = 100 * eps<T>() * max_abs(want);
        for (std::size_t i = 0; i < z.size(); ++i) {
            ASSERT_TRUE(std::isfinite(z[i])) << "row " << i + 1;
            ASSERT_NEAR(z[i], want[i], tol) << "row " << i + 1;
        }
        // A second apply on the same object (cuda: the next generation of the ready flags).
        const auto z2 = apply_on(m, r);
        for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z2[i], z[i]) << "row " << i + 1;
    }
}

TYPED_TEST(Ilu, Ilu0ApplyMatchesReference) {
    compare_with_reference<TypeParam, Ilu0<TypeParam>>(this->exec, this->ref, false);
}

TYPED_TEST(Ilu, Ic0ApplyMatchesReference) {
    compare_with_reference<TypeParam, Ic0<TypeParam>>(this->exec, this->ref, true);
}

TYPED_TEST(Ilu, ApplyChecksSizes) {
    using T = TypeParam;
    const Ilu0<T> m(Csr<T>::from_data(this->exec, tridiagonal(10, 3, false)));
    Array<T> r(this->exec, std::vector<T>(10, T(1))), z(this->exec, 9);
    EXPECT_THROW(m.apply(r, z), DimensionMismatch);
}

// ---- (d) the vendor path ----

TYPED_TEST(Ilu, VendorPathMatchesLevelsOrIsUnsupported) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda) {
        const auto A = Csr<T>::from_data(this->exec, tridiagonal(10, 5, true));
        EXPECT_THROW(Ilu0<T>(A, TriangularSolver::vendor), Unsupported);
        EXPECT_THROW(Ic0<T>(A, TriangularSolver::vendor), Unsupported);
        EXPECT_EQ(Ilu0<T>(A).triangular_solver(), TriangularSolver::levels);
        return;
    }
    for (std::int64_t n : {1, 31, 33, 257, 10007}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        for (bool symmetric : {false, true}) {
            const auto data = random_dominant(n, 70 + unsigned(n), symmetric);
            const auto A = Csr<T>::from_data(this->exec, data);
            std::unique_ptr<solver::PreconditionerOperator<T>> levels, vendor;
            if (symmetric) {
                levels = std::make_unique<Ic0<T>>(A, TriangularSolver::levels);
                vendor = std::make_unique<Ic0<T>>(A, TriangularSolver::vendor);
            } else {
                levels = std::make_unique<Ilu0<T>>(A, TriangularSolver::levels);
                vendor = std::make_unique<Ilu0<T>>(A, TriangularSolver::vendor);
            }
            const auto r = random_vector<T>(n, 80 + unsigned(n));
            const auto z = apply_on(*vendor, r);
            const auto want = apply_on(*levels, r);
            const double tol = 100 * eps<T>() * max_abs(want);  // as compare_with_reference
            for (std::size_t i = 0; i < z.size(); ++i)
                ASSERT_NEAR(z[i], want[i], tol) << (symmetric ? "ic0" : "ilu0") << " row " << i + 1;
        }
    }
}

// ---- (e) errors and the IC(0) shift ----

template <typename F>
void expect_bad_input(F f, const std::string& contains) {
    try {
        f();
        ADD_FAILURE() << "no BadInput thrown; expected one saying '" << contains << "'";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find(contains), std::string::npos) << e.what();
    }
}

MatrixData from_entries(std::int64_t n,
                        std::initializer_list<std::tuple<std::int64_t, std::int64_t, double>> e) {
    MatrixData d;
    d.rows = d.cols = n;
    for (auto [i, j, v] : e) d.add(i, j, v);
    return d;
}

TYPED_TEST(Ilu, MissingDiagonalIsBadInputNamingTheRow) {
    using T = TypeParam;
    // Row 3 (1-based) has no diagonal entry.
    const auto d = from_entries(
        4, {{0, 0, 2.5}, {1, 1, 3.0}, {1, 0, -1.0}, {2, 1, -0.5}, {2, 3, 1.5}, {3, 3, 4.0}});
    const auto A = Csr<T>::from_data(this->exec, d);
    expect_bad_input([&] { Ilu0<T> m(A); }, "ilu0: row 3 has no diagonal entry");
    expect_bad_input([&] { Ic0<T> m(A); }, "ic0: row 3 has no diagonal entry");
}

TYPED_TEST(Ilu, ZeroPivotIsBadInputNamingTheRow) {
    using T = TypeParam;
    // u_22 = 1.5 - (2 / 2) * 1.5 = 0 exactly.
    const auto A = Csr<T>::from_data(
        this->exec,
        from_entries(3, {{0, 0, 2.0}, {0, 1, 1.5}, {1, 0, 2.0}, {1, 1, 1.5}, {2, 2, 7.0}}));
    expect_bad_input([&] { Ilu0<T> m(A); }, "ilu0: zero pivot at row 2");
    // A stored zero on the diagonal of row 1.
    const auto B = Csr<T>::from_data(
        this->exec, from_entries(2, {{0, 0, 0.0}, {0, 1, 1.25}, {1, 0, 0.75}, {1, 1, 2.0}}));
    expect_bad_input([&] { Ilu0<T> m(B); }, "ilu0: zero pivot at row 1");
    // A non-finite value.
    const auto C = Csr<T>::from_data(
        this->exec,
        from_entries(2,
                     {{0, 0, 1.0}, {1, 0, std::numeric_limits<double>::infinity()}, {1, 1, 2.0}}));
    expect_bad_input([&] { Ilu0<T> m(C); }, "row 2");
}

TYPED_TEST(Ilu, Ic0ShiftsOnBreakdownAndStaysSpd) {
    using T = TypeParam;
    // Symmetric tridiagonal with diagonal 1 + U[0, 0.1] and off-diagonals -(0.55 + U[0, 0.05]):
    // not positive definite (lambda_min ~ 1.1 - 2 * 0.6 < 0), so IC(0) = Cholesky breaks down;
    // with alpha = 1 the diagonal doubles and dominates.
    const std::int64_t n = 100;
    std::mt19937_64 gen(91);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    MatrixData d;
    d.rows = d.cols = n;
    for (std::int64_t i = 0; i < n; ++i) {
        d.add(i, i, 1 + 0.1 * u(gen));
        if (i + 1 < n) {
            const double v = -(0.55 + 0.05 * u(gen));
            d.add(i, i + 1, v);
            d.add(i + 1, i, v);
        }
    }
    const Ic0<T> m(Csr<T>::from_data(this->exec, d));
    EXPECT_GT(m.shift(), 0.0);
    EXPECT_LE(m.shift(), 1.0);
    for (unsigned seed = 0; seed < 5; ++seed) {
        const auto r = random_vector<T>(n, 100 + seed);
        const auto z = apply_on(m, r);
        double rz = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            ASSERT_TRUE(std::isfinite(z[i])) << "row " << i + 1;
            rz += double(r[i]) * z[i];
        }
        EXPECT_GT(rz, 0.0) << "r . M^-1 r for seed " << seed;
    }
    // Past the largest shift: [[1, 2], [2, 1]] needs (1 + alpha)^2 > 4, alpha > 1.
    const auto bad = Csr<T>::from_data(
        this->exec, from_entries(2, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}, {1, 1, 1.0}}));
    expect_bad_input([&] { Ic0<T> m2(bad); }, "ic0: non-positive pivot at row 2");
    // A diagonal that is not positive.
    const auto neg = Csr<T>::from_data(this->exec, from_entries(2, {{0, 0, 1.0}, {1, 1, -3.0}}));
    expect_bad_input([&] { Ic0<T> m3(neg); }, "ic0: diagonal entry at row 2 is not positive");
}

// ---- (f) ILUT and ILU(k) ----

using solver::Iluk;
using solver::Ilut;

// random_dominant with its columns permuted (seeded): most diagonals are zero or small, so
// ILUT needs pivoting; the pivots it picks are the dominant entries (Schur complements of a
// row-dominant matrix stay row-dominant), so the exact factorization is well conditioned.
MatrixData permuted_dominant(std::int64_t n, unsigned seed) {
    MatrixData d = random_dominant(n, seed, false);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    std::mt19937_64 gen(seed + 1);
    std::shuffle(perm.begin(), perm.end(), gen);
    for (auto& c : d.col_idx) c = perm[c];
    d.sort_and_sum_duplicates();
    return d;
}

// z = M^-1 r on the backend under test and on the reference for several sizes, for the
// factorization `make` builds (from a Csr), as compare_with_reference.
template <typename T, typename Make, typename Data>
void compare_made_with_reference(const Executor& exec, const Executor& ref, Data data_of,
                                 Make make) {
    for (std::int64_t n : {0, 1, 31, 32, 33, 257, 10007}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const MatrixData data = data_of(n);
        const auto m = make(Csr<T>::from_data(exec, data));
        const auto mref = make(Csr<T>::from_data(ref, data));
        const auto r = random_vector<T>(n, 160 + unsigned(n));
        const auto z = apply_on(*m, r);
        const auto want = apply_on(*mref, r);
        const double tol = 100 * eps<T>() * max_abs(want);  // as compare_with_reference
        for (std::size_t i = 0; i < z.size(); ++i) {
            ASSERT_TRUE(std::isfinite(z[i])) << "row " << i + 1;
            ASSERT_NEAR(z[i], want[i], tol) << "row " << i + 1;
        }
    }
}

TYPED_TEST(Ilu, IlutApplyMatchesReference) {
    using T = TypeParam;
    compare_made_with_reference<T>(
        this->exec, this->ref, [](std::int64_t n) { return random_dominant(n, 150 + n, false); },
        [](const Csr<T>& A) { return std::make_unique<Ilut<T>>(A, 1e-3, 2, false); });
}

TYPED_TEST(Ilu, IlutWithPivotingApplyMatchesReference) {
    using T = TypeParam;
    compare_made_with_reference<T>(
        this->exec, this->ref, [](std::int64_t n) { return permuted_dominant(n, 170 + n); },
        [](const Csr<T>& A) {
            auto m = std::make_unique<Ilut<T>>(A, 1e-4, 5, true);
            if (A.rows() >= 31) {
                EXPECT_GT(m->interchanges(), A.rows() / 2);
            }
            return m;
        });
}

TYPED_TEST(Ilu, IlutWithOrderingAndPivotingApplyMatchesReference) {
    using T = TypeParam;
    compare_made_with_reference<T>(
        this->exec, this->ref, [](std::int64_t n) { return permuted_dominant(n, 175 + n); },
        [](const Csr<T>& A) { return std::make_unique<Ilut<T>>(A, 1e-4, 5, true, true); });
    compare_made_with_reference<T>(
        this->exec, this->ref, [](std::int64_t n) { return permuted_dominant(n, 176 + n); },
        [](const Csr<T>& A) { return std::make_unique<Ilut<T>>(A, 1e-4, 5, true, true, true); });
}

// The rows of a dominant matrix, shuffled: matching puts every dominant entry back on the
// diagonal (the product of the diagonal's |entries| is largest there), so ILUT then needs no
// column interchange, and without dropping it is the complete LU (bound as in
// IlutWithoutDroppingIsTheCompleteLu).
TYPED_TEST(Ilu, MatchingRestoresTheDominantDiagonal) {
    using T = TypeParam;
    const std::int64_t n = 33;
    MatrixData data = random_dominant(n, 240, false);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    std::mt19937_64 gen(241);
    std::shuffle(perm.begin(), perm.end(), gen);
    for (auto& r : data.row_idx) r = perm[r];
    data.sort_and_sum_duplicates();
    const auto A = Csr<T>::from_data(this->exec, data);
    const Ilut<T> m(A, 0.0, int(n), true, false, true);
    EXPECT_EQ(m.interchanges(), 0u);
    EXPECT_EQ(m.replaced_pivots(), 0u);
    const auto v = random_vector<T>(n, 242);
    const auto z = apply_on(m, multiply(data, v));
    for (std::int64_t i = 0; i < n; ++i)
        ASSERT_NEAR(z[i], v[i], 1000 * eps<T>()) << "row " << i + 1;
    // Without matching, the shuffled rows need interchanges.
    EXPECT_GT(Ilut<T>(A, 0.0, int(n), true).interchanges(), 0u);
}

// ILUT(1e-4, 10) with pivoting, matching and RCM, the one setting that preconditions all seven
// nonsymmetric test matrices that SciPy's spilu does (docs/real-matrices.md): on arc130, whose
// columns differ 1e5-fold in scale (an unscaled pivot test traded its diagonal for entries of
// the large columns and left 4 columns without a pivot), and on cryg2500, which needs the RCM
// ordering, BiCGSTAB and GMRES (b = A 1, rtol 1e-8) converge in at most 30 iterations on the
// backend under test and on the reference backend. The factorization is one host computation,
// so apply() matches the reference's to the rounding of the triangular solves.
TYPED_TEST(Ilu, IlutWithPivotingMatchingAndRcmSolvesArc130AndCryg2500) {
    using T = TypeParam;
    if (!std::is_same_v<T, double>) GTEST_SKIP() << "rtol 1e-8 is below float's precision";
    for (const std::string name : {"arc130", "cryg2500"}) {
        SCOPED_TRACE(name);
        const MatrixData data = io::read_matrix_market(std::string(PORTLA_TEST_DATA_DIR) +
                                                       "/suitesparse/" + name + ".mtx");
        const auto A = Csr<T>::from_data(this->exec, data);
        const auto Aref = Csr<T>::from_data(this->ref, data);
        const solver::Ilut<T> m(A, 1e-4, 10, true, true, true);
        const solver::Ilut<T> mref(Aref, 1e-4, 10, true, true, true);
        EXPECT_TRUE(m.diagnosis().stable) << m.diagnosis().advice;
        EXPECT_EQ(m.replaced_pivots(), 0u);
        const auto r = random_vector<T>(data.rows, 250);
        const auto z = apply_on(m, r);
        const auto want = apply_on(mref, r);
        // The factors are the same host computation; the triangular solves sum the same terms
        // in another order, and cryg2500's factors amplify that rounding: opencl (PoCL) differs
        // from the reference by 4e-14 of the largest entry (190 eps). 1e-12 of it leaves a margin
        // of 25 and still catches a wrong permutation or factor, which moves entries by O(1).
        const double tol = 1e-12 * max_abs(want);
        for (std::size_t i = 0; i < z.size(); ++i) ASSERT_NEAR(z[i], want[i], tol) << i + 1;
        const auto b = multiply(data, std::vector<T>(data.rows, T(1)));
        solver::Settings s;  // rtol 1e-8, GMRES(30) preconditioned from the right
        for (solver::Solver method : {solver::Solver::bicgstab, solver::Solver::gmres}) {
            SCOPED_TRACE(solver::to_string(method));
            for (const bool on_ref : {false, true}) {
                const Executor& e = on_ref ? this->ref : this->exec;
                const Array<T> bd(e, b);
                Array<T> x(e, std::vector<T>(data.rows, T(0)));
                const auto& op = on_ref ? Aref : A;
                const auto& pc = on_ref ? mref : m;
                const auto res = method == solver::Solver::gmres
                                     ? solver::gmres<T>(op, pc, bd, x, s)
                                     : solver::bicgstab<T>(op, pc, bd, x, s);
                EXPECT_TRUE(res.converged) << (on_ref ? "reference" : "backend");
                EXPECT_LE(res.iterations, 30) << (on_ref ? "reference" : "backend");
            }
        }
    }
}

TYPED_TEST(Ilu, IlukApplyMatchesReference) {
    using T = TypeParam;
    for (int k : {1, 2}) {
        SCOPED_TRACE("k = " + std::to_string(k));
        compare_made_with_reference<T>(
            this->exec, this->ref,
            [](std::int64_t n) { return random_dominant(n, 180 + n, false); },
            [k](const Csr<T>& A) { return std::make_unique<Iluk<T>>(A, k); });
    }
}

// With nothing dropped (tau = 0, fill n) ILUT is the complete LU, with pivoting (and the
// reverse Cuthill-McKee ordering) of a matrix whose diagonal is mostly zero: M^-1 (A v) = v up
// to rounding. The bound: n eps cond(A)
// growth, n = 33, cond <= 3 (row dominance a_ii >= 1 + sum |a_ij| with |a_ij| <= 1.1, three per
// row), growth <= 2 (dominant pivots): ~200 eps; c = 1000 leaves a margin of 5.
TYPED_TEST(Ilu, IlutWithoutDroppingIsTheCompleteLu) {
    using T = TypeParam;
    const std::int64_t n = 33;
    for (int variant = 0; variant < 3; ++variant) {
        const bool pivoting = variant > 0, rcm = variant == 2;
        SCOPED_TRACE(rcm ? "rcm and pivoting" : pivoting ? "pivoting" : "no pivoting");
        const MatrixData data =
            pivoting ? permuted_dominant(n, 190) : random_dominant(n, 190, false);
        const Ilut<T> m(Csr<T>::from_data(this->exec, data), 0.0, int(n), pivoting, rcm);
        EXPECT_EQ(m.replaced_pivots(), 0u);
        if (pivoting) {
            EXPECT_GT(m.interchanges(), 0u);
        }
        const auto v = random_vector<T>(n, 191);
        const auto z = apply_on(m, multiply(data, v));
        for (std::int64_t i = 0; i < n; ++i)
            ASSERT_NEAR(z[i], v[i], 1000 * eps<T>()) << "row " << i + 1;
        EXPECT_TRUE(m.diagnosis().stable);
        EXPECT_LT(m.diagnosis().probe, 1000 * eps<T>() * std::sqrt(double(n)));
    }
}

// ILUT drops: a larger tau or a smaller p gives fewer entries, never more than A's own plus p
// per row of L and of U.
TYPED_TEST(Ilu, IlutKeepsAtMostPEntriesBeyondAsOwn) {
    using T = TypeParam;
    const auto data = poisson2d(12, 200, false);
    const auto A = Csr<T>::from_data(this->exec, data);
    const Ilut<T> loose(A, 0.0, 3, false), tight(A, 0.1, 3, false), narrow(A, 0.0, 1, false);
    const std::size_t n = A.rows();
    EXPECT_LE(loose.lower().nnz() + loose.upper().nnz(), A.nnz() + 2 * 3 * n);
    EXPECT_GT(loose.lower().nnz() + loose.upper().nnz(), A.nnz());
    EXPECT_LT(tight.lower().nnz() + tight.upper().nnz(), loose.lower().nnz() + loose.upper().nnz());
    EXPECT_LT(narrow.lower().nnz() + narrow.upper().nnz(),
              loose.lower().nnz() + loose.upper().nnz());
}

TYPED_TEST(Ilu, IlukOfLevelZeroIsIlu0) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, poisson2d(9, 210, false));
    const Iluk<T> k0(A, 0);
    const Ilu0<T> i0(A);
    EXPECT_EQ(densify(k0.lower()), densify(i0.lower()));
    EXPECT_EQ(densify(k0.upper()), densify(i0.upper()));
}

// a_20 and a_01 make fill (2, 1) of level 1: ILU(1) is the complete LU of this 3 x 3 matrix,
// with l_21 = (0 - l_20 u_01) / u_11 = -((-2 / 4) (-1.5)) / 5 = -0.15; ILU(0) has no (2, 1).
TYPED_TEST(Ilu, IlukFillsLevelOneEntries) {
    using T = TypeParam;
    const auto data =
        from_entries(3, {{0, 0, 4.0}, {0, 1, -1.5}, {1, 1, 5.0}, {2, 0, -2.0}, {2, 2, 6.0}});
    const auto A = Csr<T>::from_data(this->exec, data);
    const Iluk<T> k1(A, 1);
    EXPECT_EQ(Iluk<T>(A, 0).lower().nnz(), 1u);
    ASSERT_EQ(k1.lower().nnz(), 2u);
    const Dense l = densify(k1.lower());
    EXPECT_NEAR(l[2 * 3 + 0], -0.5, 4 * eps<T>());
    EXPECT_NEAR(l[2 * 3 + 1], -0.15, 4 * eps<T>());
    const std::vector<T> v{T(0.3), T(-1.7), T(2.9)};
    const auto z = apply_on(k1, multiply(data, v));
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(z[i], v[i], 16 * eps<T>()) << i;
    // Poisson: each level adds entries.
    const auto P = Csr<T>::from_data(this->exec, poisson2d(10, 211, false));
    const Iluk<T> p1(P, 1), p2(P, 2);
    EXPECT_GT(p1.lower().nnz(), P.nnz() / 2);
    EXPECT_GT(p2.lower().nnz(), p1.lower().nnz());
    EXPECT_GT(p2.upper().nnz(), p1.upper().nnz());
}

TYPED_TEST(Ilu, IlutAndIlukRefuseBadInput) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, tridiagonal(8, 220, false));
    expect_bad_input([&] { Ilut<T> m(A, -1e-3, 10, false); },
                     "ilut: drop tolerance must be finite and >= 0");
    expect_bad_input([&] { Ilut<T> m(A, std::nan(""), 10, false); },
                     "ilut: drop tolerance must be finite and >= 0");
    expect_bad_input([&] { Ilut<T> m(A, 1e-4, -1, true); }, "ilut: fill must be >= 0");
    expect_bad_input([&] { Iluk<T> m(A, -1); }, "iluk: level must be >= 0");
    // A structurally singular row (no entry at all).
    const auto empty_row = Csr<T>::from_data(
        this->exec, from_entries(3, {{0, 0, 2.0}, {0, 2, 1.0}, {2, 0, 1.0}, {2, 2, 3.0}}));
    expect_bad_input([&] { Ilut<T> m(empty_row, 1e-4, 10, true); },
                     "ilut: row 2 is empty (A is structurally singular)");
    expect_bad_input([&] { Iluk<T> m(empty_row, 1); }, "iluk: row 2 has no diagonal entry");
    expect_bad_input([&] { Ilut<T> m(empty_row, 1e-4, 10, true, false, true); },
                     "ilut: row 2 has no nonzero entry (A is structurally singular)");
    // Rows 1 and 2 have entries in column 1 only: no permutation fills the diagonal.
    const auto singular = Csr<T>::from_data(
        this->exec,
        from_entries(3, {{0, 0, 2.0}, {1, 0, 1.0}, {2, 0, 4.0}, {2, 1, 1.0}, {2, 2, 3.0}}));
    expect_bad_input([&] { Ilut<T> m(singular, 1e-4, 10, true, false, true); },
                     "ilut: A is structurally singular");
    const auto nan = Csr<T>::from_data(
        this->exec, from_entries(2, {{0, 0, 2.0}, {1, 0, std::nan("")}, {1, 1, 3.0}}));
    expect_bad_input([&] { Ilut<T> m(nan, 1e-4, 10, false); }, "ilut: non-finite value");
    expect_bad_input([&] { Iluk<T> m(nan, 2); }, "iluk: non-finite value");
}

// ---- (g) the diagnosis ----

// Three 2 x 2 blocks [[d, a], [a, b]] with a tiny pivot d: ILU(0) (the complete LU here) stores
// b - a^2 / d ~ -2e8 against max |a_ij| = 3. tests/data/unstable_ilu0.mtx holds the same.
MatrixData unstable_blocks() {
    return from_entries(6, {{0, 0, 1e-8},
                            {0, 1, 1.5},
                            {1, 0, 1.5},
                            {1, 1, 2.0},
                            {2, 2, 2e-8},
                            {2, 3, -1.25},
                            {3, 2, -1.25},
                            {3, 3, 3.0},
                            {4, 4, 3e-8},
                            {4, 5, 0.75},
                            {5, 4, 0.75},
                            {5, 5, -1.0}});
}

TYPED_TEST(Ilu, DiagnosisOfStableFactors) {
    using T = TypeParam;
    const auto data = random_dominant(257, 230, true);
    const auto A = Csr<T>::from_data(this->exec, data);
    const Ilu0<T> ilu0(A);
    const Ic0<T> ic0(A);
    const Ilut<T> ilut(A, 1e-4, 10, true);
    const Iluk<T> iluk(A, 1);
    for (const solver::TriangularFactors<T>* m :
         std::initializer_list<const solver::TriangularFactors<T>*>{&ilu0, &ic0, &ilut, &iluk}) {
        SCOPED_TRACE(m->name());
        const auto& d = m->diagnosis();
        EXPECT_TRUE(d.stable);
        EXPECT_FALSE(m->unstable());
        EXPECT_TRUE(d.advice.empty());
        EXPECT_GT(d.max_matrix_entry, 1.0);
        EXPECT_LE(d.growth, 1.0 + 1e-12);  // dominant: |l_ij| < 1, |u_ij| <= max |a_ij|
        EXPECT_GT(d.min_pivot, 0.5);
        EXPECT_LT(d.probe, 1.0);  // M^-1 A is near the identity
    }
}

TYPED_TEST(Ilu, UnstableFactorIsDiagnosedAndNamedByTheSolve) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, unstable_blocks());
    const Ilu0<T> ilu0(A);
    const auto& d = ilu0.diagnosis();
    EXPECT_FALSE(d.stable);
    EXPECT_TRUE(ilu0.unstable());
    EXPECT_DOUBLE_EQ(d.max_matrix_entry, 3.0);
    EXPECT_GT(d.growth, 1e7);
    EXPECT_NEAR(d.min_pivot, 1e-8, 1e-12);
    EXPECT_EQ(d.advice.rfind("ilu0 factor is unstable (growth ", 0), 0u) << d.advice;
    EXPECT_NE(d.advice.find("pivoting"), std::string::npos) << d.advice;
    EXPECT_EQ(d.advice.find('\n'), std::string::npos);
    // Pivoting by columns takes a as the pivot: stable, and exact.
    const Ilut<T> pivoted(A, 1e-4, 10, true);
    EXPECT_TRUE(pivoted.diagnosis().stable) << pivoted.diagnosis().advice;
    EXPECT_EQ(pivoted.interchanges(), 3u);
    EXPECT_LT(pivoted.diagnosis().growth, 2.0);
    // A solve stopped unconverged (no iteration allowed) names the unstable preconditioner; the
    // same with the stable one says max_iterations.
    const Array<T> b(this->exec, random_vector<T>(6, 231));
    solver::Settings s;
    s.max_iters = 0;
    for (solver::Solver method : {solver::Solver::bicgstab, solver::Solver::gmres}) {
        Array<T> x(this->exec, 6);
        const auto r1 = method == solver::Solver::gmres ? solver::gmres<T>(A, ilu0, b, x, s)
                                                        : solver::bicgstab<T>(A, ilu0, b, x, s);
        EXPECT_EQ(r1.reason, solver::StopReason::unstable_preconditioner);
        EXPECT_FALSE(r1.converged);
        const auto r2 = method == solver::Solver::gmres ? solver::gmres<T>(A, pivoted, b, x, s)
                                                        : solver::bicgstab<T>(A, pivoted, b, x, s);
        EXPECT_EQ(r2.reason, solver::StopReason::max_iterations);
    }
    EXPECT_EQ(solver::to_string(solver::StopReason::unstable_preconditioner),
              "unstable_preconditioner");
}

}  // namespace
}  // namespace portla::test
