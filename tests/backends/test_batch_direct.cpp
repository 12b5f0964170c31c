// batch::direct_solve on the backend under test (backend_under_test()): dense LU with partial
// pivoting per system (own LU on reference/omp, cuBLAS batched LU on cuda), checked against
// known solutions, residuals computed here in double from the host data, and the reference
// backend's answers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/backend_fixture.hpp"
#include "portla/batch/matrix.hpp"
#include "portla/batch/solver.hpp"

namespace portla::test {
namespace {

using batch::BatchData;
using portla::Format;
using solver::StopReason;

// Systems A_s = P_s D_s with D_s strictly diagonally dominant (|d_ii| >= 2 sum_j |d_ij|, so
// cond_inf(A_s) <= 3) and P_s a random row permutation, so partial pivoting has to swap rows;
// system 0 gets an exact zero at (0, 0). b_s = A_s x_s for a known x_s, in double.
struct KnownBatch {
    BatchData data;
    std::vector<double> x;
};

KnownBatch known_batch(std::size_t n, std::size_t systems, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    KnownBatch k;
    BatchData& d = k.data;
    d.num_systems = systems;
    d.n = n;
    for (std::size_t i = 0; i <= n; ++i) d.row_ptrs.push_back(static_cast<std::int32_t>(i * n));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) d.col_idxs.push_back(static_cast<std::int32_t>(j));
    d.values.resize(systems * n * n);
    d.rhs.resize(systems * n);
    k.x.resize(systems * n);
    for (std::size_t s = 0; s < systems; ++s) {
        std::vector<double> D(n * n);
        for (std::size_t i = 0; i < n; ++i) {
            double off = 0;
            for (std::size_t j = 0; j < n; ++j)
                if (i != j) off += std::abs(D[i * n + j] = u(gen));
            D[i * n + i] = (u(gen) < 0 ? -1 : 1) * (2 * off + 1 + std::abs(u(gen)));
        }
        std::vector<std::size_t> perm(n);
        for (std::size_t i = 0; i < n; ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), gen);
        if (s == 0 && n > 1) {
            if (perm[0] == 0) std::swap(perm[0], perm[1]);
            D[perm[0] * n + 0] = 0.0;  // A(0, 0) = 0: the first step must pivot
        }
        double* a = d.values.data() + s * n * n;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) a[i * n + j] = D[perm[i] * n + j];
        for (std::size_t i = 0; i < n; ++i) k.x[s * n + i] = u(gen);
        for (std::size_t i = 0; i < n; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) sum += a[i * n + j] * k.x[s * n + j];
            d.rhs[s * n + i] = sum;
        }
    }
    return k;
}

// ||b_s - A_s x_s|| in double from the host data (any pattern), independent of the library.
template <typename T>
std::vector<double> host_residuals(const BatchData& d, const std::vector<T>& x) {
    std::vector<double> r(d.num_systems);
    for (std::size_t s = 0; s < d.num_systems; ++s) {
        double sum = 0;
        for (std::size_t i = 0; i < d.n; ++i) {
            double ri = d.rhs[s * d.n + i];
            for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
                ri -= d.values[s * d.nnz() + k] * double(x[s * d.n + d.col_idxs[k]]);
            sum += ri * ri;
        }
        r[s] = std::sqrt(sum);
    }
    return r;
}

template <typename T>
std::vector<T> cast(const std::vector<double>& v) {
    return std::vector<T>(v.begin(), v.end());
}

template <typename T>
class BatchDirect : public BackendTest {
protected:
    // batch::direct_solve reads the batch through the batch family's kernels too.
    BatchDirect() : BackendTest({KernelFamily::batch_direct, KernelFamily::batch}) {}
};
using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(BatchDirect, ValueTypes);

// Backward stability of LU with partial pivoting: the forward error is at most about
// c n eps cond(A) with growth factors that stay small for these matrices; cond <= 3, and
// c = 10 leaves room for the data's rounding to T (float: the matrix itself moves by eps).
template <typename T>
double forward_tolerance(std::size_t n) {
    return 10.0 * 3.0 * double(std::max<std::size_t>(n, 4)) * eps<T>();
}

TYPED_TEST(BatchDirect, KnownSolutionsAndReferenceBackend) {
    using T = TypeParam;
    for (std::size_t n : {1u, 2u, 5u, 31u, 33u, 64u})
        for (std::size_t systems : {1u, 37u}) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", systems = " + std::to_string(systems));
            const KnownBatch k = known_batch(n, systems, unsigned(7 * n + systems));
            const batch::BatchMatrix<T> A(this->exec, k.data, Format::dense);
            const Array<T> b(this->exec, cast<T>(k.data.rhs));
            Array<T> x = poisoned<T>(this->exec, systems * n);
            const batch::Result res = batch::direct_solve(A, b, x);
            ASSERT_EQ(res.size(), systems);
            const std::vector<T> xh = x.to_host();
            const std::vector<double> resid = host_residuals(k.data, xh);

            const batch::BatchMatrix<T> A_ref(this->ref, k.data, Format::dense);
            const Array<T> b_ref(this->ref, cast<T>(k.data.rhs));
            Array<T> x_ref(this->ref, systems * n);
            (void)batch::direct_solve(A_ref, b_ref, x_ref);
            const std::vector<T> xr = x_ref.to_host();

            const double tol = forward_tolerance<T>(n);
            for (std::size_t s = 0; s < systems; ++s) {
                EXPECT_EQ(res.reason[s], StopReason::converged) << "system " << s;
                EXPECT_EQ(res.iterations[s], 1);
                double err = 0, err_ref = 0, norm = 0, bnorm = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const double e = double(xh[s * n + i]) - k.x[s * n + i];
                    const double er = double(xh[s * n + i]) - double(xr[s * n + i]);
                    err += e * e;
                    err_ref += er * er;
                    norm += k.x[s * n + i] * k.x[s * n + i];
                    bnorm += double(T(k.data.rhs[s * n + i])) * double(T(k.data.rhs[s * n + i]));
                }
                EXPECT_LE(std::sqrt(err / norm), tol) << "system " << s << ": forward error";
                EXPECT_LE(std::sqrt(err_ref / norm), 2 * tol)
                    << "system " << s << ": vs reference backend";
                // The library's residual (recomputed after the solve) against ours; both are
                // rounding-level, so they agree to a few eps ||b||.
                EXPECT_LE(resid[s], tol * std::sqrt(bnorm) * 3) << "system " << s;
                EXPECT_NEAR(res.residual_norm[s], resid[s], tol * std::sqrt(bnorm) * 3)
                    << "system " << s;
                EXPECT_NEAR(res.rhs_norm[s], std::sqrt(bnorm), 4 * eps<T>() * std::sqrt(bnorm));
            }
            EXPECT_EQ(res.num_converged(), systems);
            EXPECT_GE(res.time_s, 0.0);
            EXPECT_EQ(res.launch.block_size, 0);
        }
}

TYPED_TEST(BatchDirect, FlagsSingularAndNonFiniteSystemsAndSolvesTheOthers) {
    using T = TypeParam;
    const BatchData d =
        batch::read_directory(std::string(PORTLA_TEST_DATA_DIR) + "/batch/nan_singular");
    ASSERT_EQ(d.num_systems, 4u);
    // Repeated so that the failures sit among many good systems (and several per thread/block).
    const BatchData r = batch::replicate(d, 41);
    const batch::BatchMatrix<T> A(this->exec, r, Format::dense);
    const Array<T> b(this->exec, cast<T>(r.rhs));
    Array<T> x = poisoned<T>(this->exec, r.num_systems * r.n);
    const batch::Result res = batch::direct_solve(A, b, x);
    ASSERT_EQ(res.size(), 41u);
    const std::vector<double> resid = host_residuals(r, x.to_host());
    for (std::size_t s = 0; s < 41; ++s) {
        SCOPED_TRACE("system " + std::to_string(s));
        switch (s % 4) {
            case 1:
                EXPECT_EQ(res.reason[s], StopReason::non_finite);
                EXPECT_EQ(res.iterations[s], 0);
                break;
            case 2:
                EXPECT_EQ(res.reason[s], StopReason::breakdown);  // row 3 is all zero
                EXPECT_EQ(res.iterations[s], 0);
                break;
            default:
                EXPECT_EQ(res.reason[s], StopReason::converged);
                EXPECT_EQ(res.iterations[s], 1);
                EXPECT_LE(resid[s], 100 * eps<T>() * res.rhs_norm[s]);
        }
    }
    EXPECT_EQ(res.num_converged(), 21u);  // 0 and 3 of every 4: 11 + 10
}

TYPED_TEST(BatchDirect, RejectsWrongFormatAndSizes) {
    using T = TypeParam;
    const KnownBatch k = known_batch(4, 3, 1);
    const Array<T> b(this->exec, cast<T>(k.data.rhs));
    Array<T> x(this->exec, 12);
    const batch::BatchMatrix<T> csr(this->exec, k.data, Format::csr);
    EXPECT_THROW(batch::direct_solve(csr, b, x), BadInput);
    const batch::BatchMatrix<T> A(this->exec, k.data, Format::dense);
    Array<T> short_x(this->exec, 11);
    EXPECT_THROW(batch::direct_solve(A, b, short_x), DimensionMismatch);
    const Array<T> short_b(this->exec, 13);
    EXPECT_THROW(batch::direct_solve(A, short_b, x), DimensionMismatch);
    const KnownBatch none = known_batch(4, 0, 1);  // a batch of no systems
    const batch::BatchMatrix<T> A0(this->exec, none.data, Format::dense);
    const Array<T> b0(this->exec, 0);
    Array<T> x0(this->exec, 0);
    EXPECT_THROW(batch::direct_solve(A0, b0, x0), BadInput);
}

}  // namespace
}  // namespace portla::test
