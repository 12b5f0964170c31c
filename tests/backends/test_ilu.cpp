// ILU(0) and IC(0) (solver/ilu.hpp) on the backend under test: the factors against a dense
// ILU(0)/IC(0) written here independently (right-looking, on a dense copy restricted to the
// pattern), exactness where the pattern has no fill (tridiagonal), apply() against the reference
// backend's, the vendor path, the input checks and IC(0)'s diagonal shift.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend_fixture.hpp"

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

}  // namespace
}  // namespace portla::test
