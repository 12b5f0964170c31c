// The preconditioners of the monolithic solvers (block Jacobi, Chebyshev): the reference against
// independently computed values, the backend under test against the reference.
#include <algorithm>
#include <functional>

#include "backends/backend_fixture.hpp"

namespace portla::test {
namespace {

using solver::BlockJacobi;
using solver::Chebyshev;

// Row-diagonally dominant, non-symmetric: per row 6 entries within 40 columns of the diagonal
// (so every block size has full, non-trivial blocks), 2 anywhere, and a diagonal of random sign
// with |a_ii| >= 2 sum_j |a_ij| + 0.5: each diagonal block B = D (I + D^-1 E) has
// ||D^-1 E||_inf <= 1/2, so ||B^-1 D||_inf <= 2 and the blocks are well conditioned.
MatrixData dominant_sparse(std::int64_t n, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> val(-1.0, 1.0), extra(0.5, 1.5);
    std::uniform_int_distribution<std::int64_t> near(-40, 40),
        any(0, std::max<std::int64_t>(0, n - 1));
    MatrixData d;
    d.rows = d.cols = n;
    for (std::int64_t i = 0; i < n; ++i) {
        double off = 0;
        for (int e = 0; e < 8; ++e) {
            const std::int64_t j =
                e < 6 ? std::clamp<std::int64_t>(i + near(gen), 0, n - 1) : any(gen);
            if (j == i) continue;
            const double v = val(gen);
            d.add(i, j, v);
            off += std::abs(v);
        }
        d.add(i, i, (val(gen) < 0 ? -1 : 1) * (2 * off + extra(gen)));
    }
    return d;
}

// Symmetric positive definite: symmetric random off-diagonals, a positive dominant diagonal.
MatrixData spd_sparse(std::int64_t n, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> val(-1.0, 1.0), extra(0.1, 2.0);
    std::uniform_int_distribution<std::int64_t> near(1, 30);
    MatrixData d;
    d.rows = d.cols = n;
    std::vector<double> off(n, 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (int e = 0; e < 3; ++e) {
            const std::int64_t j = i + near(gen);
            if (j >= n) continue;
            const double v = val(gen);
            d.add(i, j, v);
            d.add(j, i, v);
            off[i] += std::abs(v);
            off[j] += std::abs(v);
        }
    for (std::int64_t i = 0; i < n; ++i) d.add(i, i, off[i] + extra(gen));
    return d;
}

// tridiag(-1, 2, -1): eigenvalues of D^-1 A are 1 - cos(k pi / (n + 1)), k = 1 ... n.
MatrixData poisson_1d(std::int64_t n) {
    MatrixData d;
    d.rows = d.cols = n;
    for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0) d.add(i, i - 1, -1);
        d.add(i, i, 2);
        if (i + 1 < n) d.add(i, i + 1, -1);
    }
    return d;
}

// The matrix as T rounds it, dense row-major in double (the values the library sees).
template <typename T>
std::vector<double> dense_of(const MatrixData& d) {
    std::vector<double> a(d.rows * d.cols, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k)
        a[d.row_idx[k] * d.cols + d.col_idx[k]] += d.values[k];
    for (auto& v : a) v = double(static_cast<T>(v));
    return a;
}

// The inverse of each diagonal block, Gauss-Jordan with partial pivoting in long double (an
// algorithm independent of the library's LU), row-major per block in inv[start * bs + ...].
template <typename T>
std::vector<double> block_inverses(const MatrixData& d, std::size_t bs) {
    const std::size_t n = d.rows;
    std::vector<std::vector<double>> rows(n);  // block entries only, as T rounds them
    std::vector<double> block_values(n * bs, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) {
        const std::size_t i = d.row_idx[k], j = d.col_idx[k], start = i / bs * bs;
        if (j >= start && j < start + bs) block_values[i * bs + (j - start)] += d.values[k];
    }
    std::vector<double> inv(n * bs, 0.0);
    for (std::size_t start = 0; start < n; start += bs) {
        const std::size_t m = std::min(bs, n - start);
        std::vector<long double> a(m * 2 * m, 0.0L);
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < m; ++j)
                a[i * 2 * m + j] = static_cast<T>(block_values[(start + i) * bs + j]);
            a[i * 2 * m + m + i] = 1;
        }
        for (std::size_t k = 0; k < m; ++k) {
            std::size_t p = k;
            for (std::size_t i = k + 1; i < m; ++i)
                if (std::abs(a[i * 2 * m + k]) > std::abs(a[p * 2 * m + k])) p = i;
            for (std::size_t j = 0; j < 2 * m; ++j) std::swap(a[k * 2 * m + j], a[p * 2 * m + j]);
            const long double pivot = a[k * 2 * m + k];
            for (std::size_t j = 0; j < 2 * m; ++j) a[k * 2 * m + j] /= pivot;
            for (std::size_t i = 0; i < m; ++i) {
                if (i == k) continue;
                const long double l = a[i * 2 * m + k];
                for (std::size_t j = 0; j < 2 * m; ++j) a[i * 2 * m + j] -= l * a[k * 2 * m + j];
            }
        }
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < m; ++j)
                inv[(start + i) * bs + j] = static_cast<double>(a[i * 2 * m + m + j]);
    }
    return inv;
}

template <typename T>
class Preconditioners : public BackendTest {};
using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Preconditioners, ValueTypes);

const std::vector<std::int64_t> block_jacobi_sizes{0, 1, 31, 33, 257, 10007};
const std::vector<int> block_sizes{1, 3, 4, 32};

// apply() on the reference equals blockdiag(inverse) r with the inverses computed independently.
// Error of the library's value: the inverse in double (LU of a well-conditioned block without
// growth: relative error ~ m eps_double, negligible in float), rounded to T (eps / 2 per entry),
// then m products summed in T ((m - 1) eps sum_j |inv_ij r_j| plus eps / 2 per product): bound
// (m + 2) eps sum_j |inv_ij r_j|, 4 times that in double where the LU's own error counts.
// Measured: at most 0.36 of (m + 2) eps sum_j |inv_ij r_j| (double and float).
TYPED_TEST(Preconditioners, BlockJacobiReferenceMatchesIndependentInverse) {
    using T = TypeParam;
    for (const std::int64_t n : block_jacobi_sizes)
        for (const int bs : block_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", block size " + std::to_string(bs));
            const MatrixData d = dominant_sparse(n, 100 + n + bs);
            const auto A = Csr<T>::from_data(this->ref, d);
            const BlockJacobi<T> M(A, bs);
            EXPECT_EQ(M.size(), std::size_t(n));
            EXPECT_EQ(M.name(), "block-jacobi");
            EXPECT_TRUE(M.symmetric());
            const auto rh = random_vector<T>(n, 7 + n);
            Array<T> r(this->ref, rh);
            auto z = poisoned<T>(this->ref, n);
            M.apply(r, z);
            const auto zh = z.to_host();
            const auto inv = block_inverses<T>(d, bs);
            const double c = std::is_same<T, double>::value ? 4.0 : 1.0;
            for (std::size_t i = 0; i < std::size_t(n); ++i) {
                const std::size_t start = i / bs * bs, m = std::min<std::size_t>(bs, n - start);
                double want = 0, abs_sum = 0;
                for (std::size_t j = 0; j < m; ++j) {
                    want += inv[i * bs + j] * double(rh[start + j]);
                    abs_sum += std::abs(inv[i * bs + j] * double(rh[start + j]));
                }
                ASSERT_NEAR(zh[i], want, c * (m + 2) * eps<T>() * abs_sum) << "row " << i;
            }
        }
}

// The backend runs the same sums (m products, in the same order up to fused multiply-adds) on
// the same inverse: (m + 2) eps sum_j |inv_ij r_j| bounds the difference of two such sums.
TYPED_TEST(Preconditioners, BlockJacobiBackendMatchesReference) {
    using T = TypeParam;
    for (const std::int64_t n : block_jacobi_sizes)
        for (const int bs : block_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", block size " + std::to_string(bs));
            const MatrixData d = dominant_sparse(n, 200 + n + bs);
            const auto A = Csr<T>::from_data(this->exec, d);
            const auto Aref = Csr<T>::from_data(this->ref, d);
            const BlockJacobi<T> M(A, bs), Mref(Aref, bs);
            EXPECT_EQ(M.executor(), this->exec);
            const auto rh = random_vector<T>(n, 9 + n);
            Array<T> r(this->exec, rh), rr(this->ref, rh);
            auto z = poisoned<T>(this->exec, n), zr = poisoned<T>(this->ref, n);
            M.apply(r, z);
            Mref.apply(rr, zr);
            const auto zh = z.to_host(), zrh = zr.to_host();
            const auto inv = block_inverses<T>(d, bs);
            for (std::size_t i = 0; i < std::size_t(n); ++i) {
                const std::size_t start = i / bs * bs, m = std::min<std::size_t>(bs, n - start);
                double abs_sum = 0;
                for (std::size_t j = 0; j < m; ++j)
                    abs_sum += std::abs(inv[i * bs + j] * double(rh[start + j]));
                ASSERT_NEAR(zh[i], zrh[i], (m + 2) * eps<T>() * abs_sum) << "row " << i;
            }
        }
}

// Block size 1 is Jacobi: z_i = r_i / a_ii (1 / a_ii rounded twice at most: 2 eps relative).
TYPED_TEST(Preconditioners, BlockJacobiSizeOneIsJacobi) {
    using T = TypeParam;
    const std::int64_t n = 1025;
    const MatrixData d = dominant_sparse(n, 5);
    const auto A = Csr<T>::from_data(this->exec, d);
    const auto a = dense_of<T>(d);
    const BlockJacobi<T> M(A, 1);
    const auto rh = random_vector<T>(n, 6);
    Array<T> r(this->exec, rh);
    auto z = poisoned<T>(this->exec, n);
    M.apply(r, z);
    const auto zh = z.to_host();
    for (std::size_t i = 0; i < std::size_t(n); ++i) {
        const double want = double(rh[i]) / a[i * n + i];
        ASSERT_NEAR(zh[i], want, 2 * eps<T>() * std::abs(want)) << "row " << i;
    }
}

// The same blocks from a Dense matrix and from a Csr matrix: the same host set-up on the same
// values, the same kernel: identical results.
TYPED_TEST(Preconditioners, BlockJacobiDenseEqualsCsr) {
    using T = TypeParam;
    for (const std::int64_t n : {1, 33, 100}) {
        const MatrixData d = dominant_sparse(n, 40 + n);
        const auto A = Csr<T>::from_data(this->exec, d);
        const auto Ad = Dense<T>::from_data(this->exec, d);
        for (const int bs : block_sizes) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", block size " + std::to_string(bs));
            const BlockJacobi<T> M(A, bs), Md(Ad, bs);
            Array<T> r(this->exec, random_vector<T>(n, 3));
            auto z = poisoned<T>(this->exec, n), zd = poisoned<T>(this->exec, n);
            M.apply(r, z);
            Md.apply(r, zd);
            EXPECT_EQ(z.to_host(), zd.to_host());
        }
    }
}

// A block with a zero diagonal entry needs the row exchange: [[0 2] [3 1]]^-1 =
// [[-1/6 1/3] [1/2 0]]; the second block [[4]] gives 1/4.
TYPED_TEST(Preconditioners, BlockJacobiPivots) {
    using T = TypeParam;
    const Dense<T> A(this->exec, 3, 3, {0, 2, 9, 3, 1, 9, 9, 9, 4});
    const BlockJacobi<T> M(A, 2);
    Array<T> r(this->exec, std::vector<T>{6, 12, 8});
    auto z = poisoned<T>(this->exec, 3);
    M.apply(r, z);
    const auto zh = z.to_host();
    EXPECT_NEAR(zh[0], -1.0 + 4.0, 4 * eps<T>() * 5);
    EXPECT_NEAR(zh[1], 3.0, 4 * eps<T>() * 3);
    EXPECT_NEAR(zh[2], 2.0, 4 * eps<T>() * 2);
}

template <typename Fn>
std::string message_of(Fn&& fn) {
    try {
        fn();
    } catch (const BadInput& e) {
        return e.what();
    }
    return "(no BadInput thrown)";
}

TYPED_TEST(Preconditioners, BlockJacobiSingularBlockIsNamed) {
    using T = TypeParam;
    // Block 2 (rows 4-6) is [[1 2 0] [2 4 0] [0 0 1]]: elimination leaves an exact zero pivot.
    std::vector<T> a(36, T{0});
    for (int i = 0; i < 6; ++i) a[i * 6 + i] = 3;
    a[3 * 6 + 3] = 1, a[3 * 6 + 4] = 2, a[4 * 6 + 3] = 2, a[4 * 6 + 4] = 4, a[5 * 6 + 5] = 1;
    a[0 * 6 + 5] = 1;  // outside the blocks: ignored
    const Dense<T> A(this->exec, 6, 6, a);
    EXPECT_EQ(message_of([&] { BlockJacobi<T>(A, 3); }),
              "block-jacobi: singular diagonal block at rows 4-6");
    // The same matrix in CSR, block size 2: rows 3-4 are [[3 0] [0 1]], rows 5-6 [[4 0] [0 1]]
    // and fine; block size 4 covers rows 1-4, whose block [[3 0 0 0] ... [0 0 0 1]] is fine
    // too, and the last block 5-6 [[4 0] [0 1]] as well.
    const MatrixData d = [&] {
        MatrixData m;
        m.rows = m.cols = 6;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                if (a[i * 6 + j] != T{0}) m.add(i, j, a[i * 6 + j]);
        return m;
    }();
    const auto C = Csr<T>::from_data(this->exec, d);
    EXPECT_EQ(message_of([&] { BlockJacobi<T>(C, 3); }),
              "block-jacobi: singular diagonal block at rows 4-6");
    EXPECT_NO_THROW(BlockJacobi<T>(C, 2));
    // Nearly singular: a pivot of 1e-16 relative to the block's largest entry.
    std::vector<T> b{1, 1, 1, T(1 + 1e-16)};
    EXPECT_EQ(message_of([&] { BlockJacobi<T>(Dense<T>(this->exec, 2, 2, b), 2); }),
              "block-jacobi: singular diagonal block at rows 1-2");
    // A NaN in the last, partial block (rows 5 of 5, block size 2).
    std::vector<T> c(25, T{0});
    for (int i = 0; i < 5; ++i) c[i * 5 + i] = 2;
    c[24] = std::numeric_limits<T>::quiet_NaN();
    const std::string msg = message_of([&] { BlockJacobi<T>(Dense<T>(this->exec, 5, 5, c), 2); });
    EXPECT_EQ(msg.rfind("block-jacobi: singular diagonal block at rows 5-5", 0), 0u) << msg;
}

TYPED_TEST(Preconditioners, BlockJacobiRejectsBadInput) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, dominant_sparse(10, 1));
    EXPECT_THROW(BlockJacobi<T>(A, 0), BadInput);
    EXPECT_THROW(BlockJacobi<T>(A, 33), BadInput);
    EXPECT_NO_THROW(BlockJacobi<T>(A, 32));  // one block, smaller than the block size
    const Dense<T> rect(this->exec, 2, 3, {1, 2, 3, 4, 5, 6});
    EXPECT_THROW(BlockJacobi<T>(rect, 2), DimensionMismatch);
    const BlockJacobi<T> M(A, 4);
    Array<T> r(this->exec, 10), z(this->exec, 9);
    EXPECT_THROW(M.apply(r, z), DimensionMismatch);
}

TYPED_TEST(Preconditioners, BlockJacobiNeedsStoredMatrix) {
    using T = TypeParam;
    const Stencil<T> S(this->exec, 2, 10);
    try {
        BlockJacobi<T>(S, 4);
        FAIL() << "no Unsupported thrown";
    } catch (const Unsupported& e) {
        EXPECT_EQ(std::string(e.what()), "block-jacobi needs a csr or dense matrix (got stencil)");
    }
}

// ---- Chebyshev ----------------------------------------------------------------------------

// The exact action of the preconditioner, from its definition rather than from the iteration
// that apply() runs: with B = D^-1 A, c = D^-1 r, X = (theta I - B) / delta, k = degree + 1,
//   B z = c - T_k(X) c / T_k(sigma),
// T_k(X) c by the recurrence T_{j+1}(X) c = 2 X T_j(X) c - T_{j-1}(X) c, in double on the dense
// matrix. Returns ||B z - (c - T_k(X) c / T_k(sigma))||_inf / ||c||_inf.
template <typename T>
double polynomial_mismatch(const std::vector<double>& a, std::size_t n, bool scaled, double lmin,
                           double lmax, int degree, const std::vector<T>& r,
                           const std::vector<T>& z) {
    std::vector<double> dinv(n, 1.0);
    if (scaled)
        for (std::size_t i = 0; i < n; ++i) dinv[i] = 1 / a[i * n + i];
    auto apply_b = [&](const std::vector<double>& x) {
        std::vector<double> y(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
            y[i] *= dinv[i];
        }
        return y;
    };
    const double theta = (lmax + lmin) / 2, delta = (lmax - lmin) / 2, sigma = theta / delta;
    std::vector<double> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = dinv[i] * r[i];
    std::vector<double> t_prev = c, t = apply_b(c);  // T_0 c, T_1 c = X c
    for (std::size_t i = 0; i < n; ++i) t[i] = (theta * c[i] - t[i]) / delta;
    double s_prev = 1, s = sigma;  // T_0(sigma), T_1(sigma)
    for (int j = 1; j < degree + 1; ++j) {
        const auto bt = apply_b(t);
        std::vector<double> next(n);
        for (std::size_t i = 0; i < n; ++i)
            next[i] = 2 * (theta * t[i] - bt[i]) / delta - t_prev[i];
        t_prev = std::move(t);
        t = std::move(next);
        const double s_next = 2 * sigma * s - s_prev;
        s_prev = s;
        s = s_next;
    }
    const auto bz = apply_b(std::vector<double>(z.begin(), z.end()));
    double worst = 0, cmax = 0;
    for (std::size_t i = 0; i < n; ++i) {
        worst = std::max(worst, std::abs(bz[i] - (c[i] - t[i] / s)));
        cmax = std::max(cmax, std::abs(c[i]));
    }
    return worst / cmax;
}

// The reference's apply() against the polynomial's definition, with the interval given and
// estimated, Jacobi-scaled (Csr) and unscaled (an operator without a diagonal). Each of the
// degree + 1 steps of the Chebyshev iteration adds rounding of relative size about eps to d and
// z, and the three-term recurrence does not amplify it (Gutknecht and Roellin 2002): the
// mismatch is O((degree + 1) eps). Measured: at most 0.77 (degree + 1) eps (double and float,
// degrees 1 ... 64); the bound 8 (degree + 1) eps leaves a factor of 10.
TYPED_TEST(Preconditioners, ChebyshevReferenceMatchesPolynomial) {
    using T = TypeParam;
    const std::size_t n = 60;
    const MatrixData d = spd_sparse(n, 17);
    const auto a = dense_of<T>(d);
    const auto A = Csr<T>::from_data(this->ref, d);
    const CallbackOperator<T> no_diag(this->ref, n, n,
                                      [&](const_view<T> x, view<T> y) { A.apply(x, y); });
    double gershgorin = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < n; ++j) row += std::abs(a[i * n + j]);
        gershgorin = std::max(gershgorin, row);
    }
    const auto rh = random_vector<T>(n, 18);
    Array<T> r(this->ref, rh);
    for (const bool scaled : {true, false})
        for (const int degree : {1, 2, 3, 5, 8, 16}) {
            SCOPED_TRACE(std::string(scaled ? "D^-1 A" : "A") + ", degree " +
                         std::to_string(degree));
            const LinearOperator<T>& op = scaled ? static_cast<const LinearOperator<T>&>(A)
                                                 : static_cast<const LinearOperator<T>&>(no_diag);
            const double tol = 8 * (degree + 1) * eps<T>();
            // Given: (0.05, Gershgorin's bound), which covers the spectrum (D^-1 A: 2).
            const double hi = scaled ? 2.0 : gershgorin;
            const Chebyshev<T> given(op, degree, 0.05, hi);
            auto z = poisoned<T>(this->ref, n);
            given.apply(r, z);
            EXPECT_LE(polynomial_mismatch(a, n, scaled, 0.05, hi, degree, rh, z.to_host()), tol);
            const Chebyshev<T> estimated(op, degree);
            EXPECT_GT(estimated.lambda_min(), 0);
            EXPECT_LT(estimated.lambda_min(), estimated.lambda_max());
            auto z2 = poisoned<T>(this->ref, n);
            estimated.apply(r, z2);
            EXPECT_LE(polynomial_mismatch(a, n, scaled, estimated.lambda_min(),
                                          estimated.lambda_max(), degree, rh, z2.to_host()),
                      tol);
        }
}

// tridiag(-1, 2, -1) of n rows as a CSR matrix (with a diagonal: Chebyshev's operator is then
// D^-1 A) and as an operator without one (A itself).
template <typename T>
struct Poisson1d {
    Csr<T> A;
    CallbackOperator<T> no_diag;
    Poisson1d(const Executor& exec, std::int64_t n)
        : A(Csr<T>::from_data(exec, poisson_1d(n))),
          no_diag(exec, static_cast<std::size_t>(n), static_cast<std::size_t>(n),
                  [this](const_view<T> x, view<T> y) { A.apply(x, y); }) {}
    Poisson1d(const Poisson1d&) = delete;  // no_diag applies this A
    const LinearOperator<T>& op(bool scaled) const {
        return scaled ? static_cast<const LinearOperator<T>&>(A)
                      : static_cast<const LinearOperator<T>&>(no_diag);
    }
};

// The interval brackets the spectrum of D^-1 A for tridiag(-1, 2, -1), lambda_k = 1 -
// cos(k pi / (n + 1)) (of A = 2 (1 - cos) without the diagonal): the Ritz values lie inside
// [lambda_1, lambda_n] (up to rounding: 1e-12 in double; 1e-5 in float, whose dots carry
// ~sqrt(n) eps), lambda_max() = 1.1 theta_max covers lambda_n and lambda_min() >= lambda_1.
// n = 10 < 20 steps: Lanczos finds the invariant subspace, the Ritz values are the extremes.
TYPED_TEST(Preconditioners, ChebyshevBoundsBracketPoissonSpectrum) {
    using T = TypeParam;
    const double tol = std::is_same<T, double>::value ? 1e-12 : 1e-5;
    for (const std::int64_t n : {1, 2, 10, 1000, 10007})
        for (const bool scaled : {true, false}) {
            SCOPED_TRACE("n = " + std::to_string(n) + (scaled ? ", D^-1 A" : ", A"));
            const Poisson1d<T> poisson(this->exec, n);
            const LinearOperator<T>& op = poisson.op(scaled);
            const double f = scaled ? 1.0 : 2.0;
            const double pi = std::acos(-1.0);
            const double lo = f * (1 - std::cos(pi / (n + 1))),
                         hi = f * (1 - std::cos(n * pi / (n + 1)));
            const Chebyshev<T> M(op, 4);
            EXPECT_GE(M.ritz_min(), lo * (1 - tol));
            EXPECT_LE(M.ritz_max(), hi * (1 + tol));
            EXPECT_GE(M.lambda_max(), hi);
            EXPECT_LE(M.lambda_max(), 1.1 * hi * (1 + tol));
            EXPECT_GE(M.lambda_min(), lo * (1 - tol));
            EXPECT_LT(M.lambda_min(), M.lambda_max());
            if (n <= 10) {
                EXPECT_NEAR(M.ritz_min(), lo, 100 * tol * hi);
                EXPECT_NEAR(M.ritz_max(), hi, 100 * tol * hi);
            }
        }
}

// Chebyshev::ritz_values is the estimate of the constructor given the same start: the same
// Lanczos steps, with the diagonal read once instead of twice. The two run the same operations
// on the same values, so they agree to the rounding of a reduction that a backend may order
// otherwise from run to run (1e-12 relative in double; 1e-5 in float, whose dots carry
// ~sqrt(n) eps); the bracket of the test above holds for them too. Bad input as the
// constructor's.
TYPED_TEST(Preconditioners, RitzValuesAreTheConstructorsEstimate) {
    using T = TypeParam;
    const double tol = std::is_same<T, double>::value ? 1e-12 : 1e-5;
    for (const std::int64_t n : {10, 1000})
        for (const bool scaled : {true, false}) {
            SCOPED_TRACE("n = " + std::to_string(n) + (scaled ? ", D^-1 A" : ", A"));
            const Poisson1d<T> poisson(this->exec, n);
            const LinearOperator<T>& op = poisson.op(scaled);
            const Array<T> start(this->exec, random_vector<T>(static_cast<std::size_t>(n), 5));
            const Chebyshev<T> M(op, 1, 8, start);
            const auto [lo, hi] = Chebyshev<T>::ritz_values(op, 8, Array<T>(this->exec, start));
            EXPECT_NEAR(lo, M.ritz_min(), tol * M.ritz_max());
            EXPECT_NEAR(hi, M.ritz_max(), tol * M.ritz_max());
            const double f = scaled ? 1.0 : 2.0, pi = std::acos(-1.0);
            EXPECT_GE(lo, f * (1 - std::cos(pi / (n + 1))) * (1 - tol));
            EXPECT_LE(hi, f * (1 - std::cos(n * pi / (n + 1))) * (1 + tol));
        }
    const auto A = Csr<T>::from_data(this->exec, poisson_1d(10));
    EXPECT_THROW(Chebyshev<T>::ritz_values(A, 0, Array<T>(this->exec, 10)), BadInput);
    EXPECT_THROW(Chebyshev<T>::ritz_values(A, 4, Array<T>(this->exec, 9)), DimensionMismatch);
}

// M is SPD for SPD A: r . M^-1 r > 0 for random r, at odd and even degrees, on random sparse
// SPD matrices, the 1-D Laplacian and the matrix-free 2-D one.
TYPED_TEST(Preconditioners, ChebyshevIsPositiveDefinite) {
    using T = TypeParam;
    const auto A1 = Csr<T>::from_data(this->exec, spd_sparse(1000, 21));
    const auto A2 = Csr<T>::from_data(this->exec, poisson_1d(1000));
    const Stencil<T> A3(this->exec, 2, 40);
    for (const LinearOperator<T>* op :
         {static_cast<const LinearOperator<T>*>(&A1), static_cast<const LinearOperator<T>*>(&A2),
          static_cast<const LinearOperator<T>*>(&A3)})
        for (const int degree : {1, 2, 3, 4, 7, 8, 64}) {
            SCOPED_TRACE(op->format() + ", degree " + std::to_string(degree));
            const Chebyshev<T> M(*op, degree);
            const std::size_t n = op->rows();
            auto z = poisoned<T>(this->exec, n);
            for (unsigned trial = 0; trial < 10; ++trial) {
                Array<T> r(this->exec, random_vector<T>(n, 50 + trial));
                M.apply(r, z);
                EXPECT_GT(double(blas::dot<T>(this->exec, r, z)), 0) << "trial " << trial;
            }
        }
}

// M^-1 is symmetric: x . M^-1 y = y . M^-1 x, up to rounding (relative to |x| |M^-1 y|).
TYPED_TEST(Preconditioners, ChebyshevIsSymmetric) {
    using T = TypeParam;
    const std::size_t n = 500;
    const auto A = Csr<T>::from_data(this->exec, spd_sparse(n, 31));
    for (const int degree : {1, 4, 9}) {
        const Chebyshev<T> M(A, degree);
        Array<T> x(this->exec, random_vector<T>(n, 1)), y(this->exec, random_vector<T>(n, 2));
        auto mx = poisoned<T>(this->exec, n), my = poisoned<T>(this->exec, n);
        M.apply(x, mx);
        M.apply(y, my);
        const double xmy = blas::dot<T>(this->exec, x, my), ymx = blas::dot<T>(this->exec, y, mx);
        const double scale = double(blas::norm2<T>(this->exec, x)) * blas::norm2<T>(this->exec, my);
        EXPECT_NEAR(xmy, ymx, 100 * (degree + 1) * eps<T>() * scale) << "degree " << degree;
    }
}

// The backend against the reference: the estimates agree (the same Lanczos on dots that differ
// by rounding; extreme Ritz values are well conditioned: 1e-8 relative in double, 1e-3 in
// float), and with the same interval the applies agree within 8 (degree + 1) eps ||z||_inf. The
// whole rounding error of one apply, measured as float against double on these operators, is
// at most 0.45 (degree + 1) eps_float ||z||_inf (degrees 1 ... 16): two such errors, with a
// factor of 8 to spare for another summation order in the SpMV.
TYPED_TEST(Preconditioners, ChebyshevBackendMatchesReference) {
    using T = TypeParam;
    const double est_tol = std::is_same<T, double>::value ? 1e-8 : 1e-3;
    const MatrixData d = spd_sparse(10007, 41);
    const auto A = Csr<T>::from_data(this->exec, d);
    const auto Aref = Csr<T>::from_data(this->ref, d);
    const Stencil<T> S(this->exec, 2, 101), Sref(this->ref, 2, 101);
    const std::vector<std::pair<const LinearOperator<T>*, const LinearOperator<T>*>> ops{
        {&A, &Aref}, {&S, &Sref}};
    for (const auto& [op, op_ref] : ops)
        for (const int degree : {1, 4, 7}) {
            SCOPED_TRACE(op->format() + ", degree " + std::to_string(degree));
            const Chebyshev<T> est(*op, degree), est_ref(*op_ref, degree);
            EXPECT_NEAR(est.lambda_max(), est_ref.lambda_max(), est_tol * est_ref.lambda_max());
            EXPECT_NEAR(est.lambda_min(), est_ref.lambda_min(), est_tol * est_ref.lambda_max());
            const Chebyshev<T> M(*op, degree, est_ref.lambda_min(), est_ref.lambda_max());
            const Chebyshev<T> Mref(*op_ref, degree, est_ref.lambda_min(), est_ref.lambda_max());
            const std::size_t n = op->rows();
            const auto rh = random_vector<T>(n, 43);
            Array<T> r(this->exec, rh), rr(this->ref, rh);
            auto z = poisoned<T>(this->exec, n), zr = poisoned<T>(this->ref, n);
            M.apply(r, z);
            Mref.apply(rr, zr);
            const auto zh = z.to_host(), zrh = zr.to_host();
            double zmax = 0;
            for (const T v : zrh) zmax = std::max(zmax, std::abs(double(v)));
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_NEAR(zh[i], zrh[i], 8 * (degree + 1) * eps<T>() * zmax) << "row " << i;
        }
}

TYPED_TEST(Preconditioners, ChebyshevRejectsBadInput) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, poisson_1d(20));
    EXPECT_THROW(Chebyshev<T>(A, 0), BadInput);
    EXPECT_THROW(Chebyshev<T>(A, 65), BadInput);
    EXPECT_NO_THROW(Chebyshev<T>(A, 64));
    EXPECT_THROW(Chebyshev<T>(A, 4, 0), BadInput);
    EXPECT_THROW(Chebyshev<T>(A, 4, 0.0, 1.0), BadInput);
    EXPECT_THROW(Chebyshev<T>(A, 4, 2.0, 1.0), BadInput);
    EXPECT_THROW(Chebyshev<T>(A, 4, 0.1, std::numeric_limits<double>::infinity()), BadInput);
    const Dense<T> rect(this->exec, 2, 3, {1, 2, 3, 4, 5, 6});
    EXPECT_THROW(Chebyshev<T>(rect, 4), DimensionMismatch);
    const Chebyshev<T> M(A, 3);
    EXPECT_EQ(M.name(), "chebyshev");
    EXPECT_TRUE(M.symmetric());
    EXPECT_TRUE(M.fixed());
    Array<T> r(this->exec, 20), z(this->exec, 21);
    EXPECT_THROW(M.apply(r, z), DimensionMismatch);
}

TYPED_TEST(Preconditioners, ChebyshevZeroDiagonalIsNamed) {
    using T = TypeParam;
    MatrixData d = poisson_1d(6);
    for (std::size_t k = 0; k < d.entries(); ++k)
        if (d.row_idx[k] == 2 && d.col_idx[k] == 2) d.values[k] = 0;
    const auto A = Csr<T>::from_data(this->exec, d);
    EXPECT_EQ(message_of([&] { Chebyshev<T>(A, 4); }), "chebyshev: zero diagonal entry at row 3");
}

// -A without its diagonal has a negative spectrum: no positive lambda_max to build p on.
// (With the diagonal, D^-1 (-A) = D^-1 A: Jacobi scaling makes it fine.)
TYPED_TEST(Preconditioners, ChebyshevNegativeDefiniteIsRejected) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, poisson_1d(50));
    const auto& exec = this->exec;
    const CallbackOperator<T> neg(exec, 50, 50, [&](const_view<T> x, view<T> y) {
        A.apply(x, y);
        blas::axpby<T>(exec, T{-1}, y, T{0}, y);
    });
    const std::string msg = message_of([&] { Chebyshev<T>(neg, 4); });
    EXPECT_NE(msg.find("not positive definite"), std::string::npos) << msg;
}

TYPED_TEST(Preconditioners, EmptyOperators) {
    using T = TypeParam;
    const auto A = Csr<T>::from_data(this->exec, poisson_1d(0));
    const BlockJacobi<T> B(A, 4);
    const Chebyshev<T> C(A, 4);
    Array<T> r(this->exec, 0), z(this->exec, 0);
    B.apply(r, z);
    C.apply(r, z);
    EXPECT_EQ(B.size(), 0u);
    EXPECT_EQ(C.size(), 0u);
}

}  // namespace
}  // namespace portla::test
