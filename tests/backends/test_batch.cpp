// Batched solvers on the backend under test. Every answer is checked apart from the solver:
// residuals recomputed on the host in double from the batch's CSR data, solutions against a
// dense LU solve written here, results of every backend against the reference backend's.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend_fixture.hpp"
#include "portla/batch/matrix.hpp"
#include "portla/batch/solver.hpp"

namespace portla::test {
namespace {

using batch::BatchData;
using portla::Format;
using solver::Preconditioner;
using solver::Solver;
using solver::StopReason;

/// Random systems on a 2-D 5-point pattern (grid g x g): diagonally dominant, nonsymmetric
/// unless `symmetric` (then SPD), per-system values, right-hand sides in [-1, 1].
BatchData grid_batch(int g, std::size_t systems, bool symmetric, unsigned seed) {
    BatchData d;
    d.num_systems = systems;
    d.n = static_cast<std::size_t>(g) * g;
    d.row_ptrs.push_back(0);
    for (int y = 0; y < g; ++y)
        for (int x = 0; x < g; ++x) {
            const int i = y * g + x;
            if (y > 0) d.col_idxs.push_back(i - g);
            if (x > 0) d.col_idxs.push_back(i - 1);
            d.col_idxs.push_back(i);
            if (x < g - 1) d.col_idxs.push_back(i + 1);
            if (y < g - 1) d.col_idxs.push_back(i + g);
            d.row_ptrs.push_back(static_cast<std::int32_t>(d.col_idxs.size()));
        }
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.5, 1.5), rhs(-1, 1);
    const std::size_t nnz = d.col_idxs.size();
    d.values.resize(systems * nnz);
    for (std::size_t s = 0; s < systems; ++s) {
        double* v = d.values.data() + s * nnz;
        for (std::size_t i = 0; i < d.n; ++i)
            for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k) {
                const auto j = static_cast<std::size_t>(d.col_idxs[k]);
                if (j == i) continue;
                if (symmetric && j < i) {  // mirror the entry above the diagonal
                    const auto* first = d.col_idxs.data() + d.row_ptrs[j];
                    const auto* last = d.col_idxs.data() + d.row_ptrs[j + 1];
                    v[k] =
                        v[d.row_ptrs[j] + (std::lower_bound(first, last, std::int32_t(i)) - first)];
                } else {
                    v[k] = -u(gen) * (symmetric ? 1.0 : (j > i ? 1.3 : 0.7));
                }
            }
        for (std::size_t i = 0; i < d.n; ++i) {  // diagonal: the row's off-diagonal sum + a margin
            double off = 0;
            std::size_t diag = 0;
            for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
                if (static_cast<std::size_t>(d.col_idxs[k]) == i)
                    diag = k;
                else
                    off += std::abs(v[k]);
            v[diag] = off + 0.2 * u(gen);
        }
    }
    d.rhs.resize(systems * d.n);
    for (auto& b : d.rhs) b = rhs(gen);
    return d;
}

/// A batch whose row i holds the columns [first, last] = columns(i); values and b left to fill.
template <typename Columns>
BatchData pattern_batch(std::size_t systems, int n, Columns columns) {
    BatchData d;
    d.num_systems = systems;
    d.n = static_cast<std::size_t>(n);
    d.row_ptrs.push_back(0);
    for (int i = 0; i < n; ++i) {
        const auto [first, last] = columns(i);
        for (int j = first; j <= last; ++j) d.col_idxs.push_back(j);
        d.row_ptrs.push_back(static_cast<std::int32_t>(d.col_idxs.size()));
    }
    return d;
}

/// ||b_s - A_s x_s|| / ||b_s|| on the host, in double.
double host_relative_residual(const BatchData& d, std::size_t s, const std::vector<double>& x) {
    const std::size_t n = d.n, nnz = d.nnz();
    double rn = 0, bn = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double r = d.rhs[s * n + i];
        for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
            r -= d.values[s * nnz + k] * x[s * n + d.col_idxs[k]];
        rn += r * r;
        bn += d.rhs[s * n + i] * d.rhs[s * n + i];
    }
    return bn > 0 ? std::sqrt(rn / bn) : std::sqrt(rn);
}

/// System s as a dense row-major matrix with `extra` zero columns after each row.
std::vector<double> dense_of(const BatchData& d, std::size_t s, std::size_t extra = 0) {
    const std::size_t n = d.n, nnz = d.nnz(), w = n + extra;
    std::vector<double> a(n * w, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
            a[i * w + d.col_idxs[k]] = d.values[s * nnz + k];
    return a;
}

/// Solution of system s by dense Gaussian elimination with partial pivoting (the test's own).
std::vector<double> dense_solve(const BatchData& d, std::size_t s) {
    const std::size_t n = d.n;
    std::vector<double> a = dense_of(d, s), b(d.rhs.begin() + s * n, d.rhs.begin() + (s + 1) * n);
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i)
            if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
        for (std::size_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
        std::swap(b[k], b[p]);
        for (std::size_t i = k + 1; i < n; ++i) {
            const double f = a[i * n + k] / a[k * n + k];
            for (std::size_t j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (std::size_t i = n; i-- > 0;) {
        double t = b[i];
        for (std::size_t j = i + 1; j < n; ++j) t -= a[i * n + j] * b[j];
        b[i] = t / a[i * n + i];
    }
    return b;
}

/// cond_inf(A_s) = ||A_s||_inf ||A_s^-1||_inf, the inverse by Gauss-Jordan with partial pivoting.
double condition_inf(const BatchData& d, std::size_t s) {
    const std::size_t n = d.n;
    std::vector<double> a = dense_of(d, s, n);  // [A | I]
    double norm_a = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < n; ++j) row += std::abs(a[i * 2 * n + j]);
        norm_a = std::max(norm_a, row);
        a[i * 2 * n + n + i] = 1.0;
    }
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i)
            if (std::abs(a[i * 2 * n + k]) > std::abs(a[p * 2 * n + k])) p = i;
        for (std::size_t j = 0; j < 2 * n; ++j) std::swap(a[k * 2 * n + j], a[p * 2 * n + j]);
        const double piv = a[k * 2 * n + k];
        for (std::size_t j = 0; j < 2 * n; ++j) a[k * 2 * n + j] /= piv;
        for (std::size_t i = 0; i < n; ++i) {
            if (i == k) continue;
            const double f = a[i * 2 * n + k];
            for (std::size_t j = 0; j < 2 * n; ++j) a[i * 2 * n + j] -= f * a[k * 2 * n + j];
        }
    }
    double norm_inv = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < n; ++j) row += std::abs(a[i * 2 * n + n + j]);
        norm_inv = std::max(norm_inv, row);
    }
    return norm_a * norm_inv;
}

template <typename T>
std::vector<double> to_double(const std::vector<T>& v) {
    return {v.begin(), v.end()};
}

template <typename T>
Array<T> rhs_of(const Executor& exec, const BatchData& d) {
    return Array<T>(exec, std::vector<T>(d.rhs.begin(), d.rhs.end()));
}

struct Case {
    Solver solver;
    Preconditioner precond;
    Format format;
};

std::string name_of(const Case& c) {
    return to_string(c.solver) + "/" + to_string(c.precond) + "/" + to_string(c.format);
}

/// Every solver with every preconditioner and format it supports.
std::vector<Case> all_cases(bool spd) {
    std::vector<Case> cases;
    for (auto s : {Solver::cg, Solver::bicgstab, Solver::gmres}) {
        if (s == Solver::cg && !spd) continue;
        for (auto p : {Preconditioner::none, Preconditioner::jacobi, Preconditioner::block_jacobi,
                       Preconditioner::ilu0})
            for (auto f : {Format::csr, Format::ell, Format::dense}) {
                if (p == Preconditioner::ilu0 && f != Format::csr) continue;
                if (s == Solver::cg && p == Preconditioner::ilu0)
                    continue;  // ILU(0) is not symmetric
                cases.push_back({s, p, f});
            }
    }
    return cases;
}

class BatchTest : public BackendTest {
protected:
    BatchTest() : BackendTest({KernelFamily::batch}) {}
    /// Solves `d` with each case on the backend under test and checks every system: converged,
    /// host-recomputed relative residual below the tolerance, the reported residual equal to the
    /// host's, the solution near the dense direct one, and the iteration counts near the
    /// reference backend's.
    template <typename T>
    void check_all(const BatchData& d, const std::vector<Case>& cases, double rtol,
                   double sol_tol) {
        std::vector<std::vector<double>> direct(d.num_systems);
        for (std::size_t s = 0; s < d.num_systems; ++s) direct[s] = dense_solve(d, s);
        for (const auto& c : cases) {
            SCOPED_TRACE(name_of(c));
            batch::Settings st;
            st.solver = c.solver;
            st.precond = c.precond;
            st.tolerance = rtol;
            st.max_iters = 1000;
            st.restart = 20;
            st.block_size = 3;
            const batch::BatchMatrix<T> A(exec, d, c.format);
            const auto b = rhs_of<T>(exec, d);
            auto x = poisoned<T>(exec, d.num_systems * d.n);
            const auto res = batch::solve(A, b, x, st);
            const auto xh = to_double(x.to_host());

            const batch::BatchMatrix<T> Ar(ref, d, c.format);
            const auto br = rhs_of<T>(ref, d);
            auto xr = poisoned<T>(ref, d.num_systems * d.n);
            const auto rr = batch::solve(Ar, br, xr, st);

            ASSERT_EQ(res.size(), d.num_systems);
            EXPECT_EQ(res.num_converged(), d.num_systems);
            for (std::size_t s = 0; s < d.num_systems; ++s) {
                SCOPED_TRACE("system " + std::to_string(s));
                EXPECT_EQ(res.reason[s], StopReason::converged) << to_string(res.reason[s]);
                const double host = host_relative_residual(d, s, xh);
                EXPECT_LE(host, rtol);
                EXPECT_NEAR(res.residual_norm[s] / res.rhs_norm[s], host,
                            1e-3 * rtol + 50 * eps<T>());
                double err = 0, scale = 0;
                for (std::size_t i = 0; i < d.n; ++i) {
                    err = std::max(err, std::abs(xh[s * d.n + i] - direct[s][i]));
                    scale = std::max(scale, std::abs(direct[s][i]));
                }
                EXPECT_LE(err, sol_tol * scale);
                EXPECT_GT(res.iterations[s], 0);
                EXPECT_NEAR(res.iterations[s], rr.iterations[s], 2 + 0.1 * rr.iterations[s]);
            }
        }
    }
};

TEST_F(BatchTest, ApplyMatchesHostProductInEveryFormat) {
    const auto d = grid_batch(7, 5, false, 1);
    const auto xs = random_vector<double>(d.num_systems * d.n, 2);
    for (auto f : {Format::csr, Format::ell, Format::dense}) {
        SCOPED_TRACE(to_string(f));
        const batch::BatchMatrix<double> A(exec, d, f);
        EXPECT_EQ(A.size(), d.n);
        EXPECT_EQ(A.num_systems(), d.num_systems);
        const Array<double> x(exec, xs);
        auto y = poisoned<double>(exec, xs.size());
        A.apply(x, y);
        const auto yh = y.to_host();
        for (std::size_t s = 0; s < d.num_systems; ++s)
            for (std::size_t i = 0; i < d.n; ++i) {
                double want = 0;
                for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
                    want += d.values[s * d.nnz() + k] * xs[s * d.n + d.col_idxs[k]];
                EXPECT_NEAR(yh[s * d.n + i], want, 1e-14 * 8);
            }
    }
}

TEST_F(BatchTest, SpdBatchEverySolverPrecondFormatDouble) {
    check_all<double>(grid_batch(6, 7, true, 3), all_cases(true), 1e-10, 1e-7);
}

TEST_F(BatchTest, NonsymmetricBatchEverySolverPrecondFormatDouble) {
    check_all<double>(grid_batch(6, 7, false, 4), all_cases(false), 1e-10, 1e-7);
}

// Float runs the same solver source as double with the value type changed; what it checks is
// float's rounding of every solver and preconditioner, so it takes them all on csr and leaves
// the formats (the same row loops) to the double cases. Each format and preconditioner pair is
// its own OpenCL program: under PoCL on a 2-core CPU, 3-12 s a solver kernel to compile cold
// (this test: 62 s with empty caches).
TEST_F(BatchTest, NonsymmetricBatchFloat) {
    std::vector<Case> csr;
    for (const Case& c : all_cases(false))
        if (c.format == Format::csr) csr.push_back(c);
    check_all<float>(grid_batch(5, 6, false, 5), csr, 1e-4, 2e-3);
}

TEST_F(BatchTest, ThreeAndFourRowsPerLaneEverySolverPrecondFormat) {
    // n = 81 and 121: on cuda one warp per system with 3 and 4 rows per lane (registers for
    // CG and BiCGSTAB with none / Jacobi); the cases above have 1 and 2
    check_all<double>(grid_batch(9, 4, true, 19), all_cases(true), 1e-10, 1e-7);
    check_all<double>(grid_batch(11, 4, false, 20), all_cases(false), 1e-10, 1e-7);
}

TEST_F(BatchTest, SystemsAboveTheWarpKernelsSizeEverySolverPrecondFormat) {
    // n = 144: on cuda one block per system (n <= 128: one warp per system, the cases above)
    check_all<double>(grid_batch(12, 5, true, 18), all_cases(true), 1e-10, 1e-7);
}

TEST_F(BatchTest, LargerSystemsSpillToGlobalMemory) {
    // n = 1024 with GMRES(60): 64 work vectors do not fit in shared memory on any GPU
    const auto d = grid_batch(32, 3, false, 6);
    check_all<double>(d,
                      {{Solver::gmres, Preconditioner::jacobi, Format::csr},
                       {Solver::bicgstab, Preconditioner::ilu0, Format::csr}},
                      1e-9, 1e-6);
    batch::Settings st;
    st.solver = Solver::gmres;
    st.restart = 60;
    st.tolerance = 1e-9;
    st.max_iters = 1000;
    const batch::BatchMatrix<double> A(exec, d, Format::csr);
    const auto b = rhs_of<double>(exec, d);
    Array<double> x(exec, d.num_systems * d.n);
    const auto res = batch::solve(A, b, x, st);
    EXPECT_EQ(res.num_converged(), d.num_systems);
    EXPECT_LE(res.max_relative_residual(), 1e-9);
    if (exec.backend() == Backend::cuda) {
        EXPECT_EQ(res.launch.vectors_total, 63);  // w, x and 61 basis vectors (no preconditioner)
        EXPECT_LT(res.launch.vectors_in_shared, res.launch.vectors_total);
    }
}

TEST_F(BatchTest, SharedAndGlobalPlacementGiveTheSameAnswer) {
    const auto d = grid_batch(8, 9, true, 7);
    for (auto solver : {Solver::cg, Solver::bicgstab, Solver::gmres}) {
        SCOPED_TRACE(to_string(solver));
        batch::Settings st;
        st.solver = solver;
        st.precond = Preconditioner::jacobi;
        st.tolerance = 1e-10;
        std::vector<double> xs[2];
        std::vector<int> its[2];
        for (int shared = 0; shared < 2; ++shared) {
            st.shared_memory = shared == 1;
            const batch::BatchMatrix<double> A(exec, d, Format::csr);
            const auto b = rhs_of<double>(exec, d);
            auto x = poisoned<double>(exec, d.num_systems * d.n);
            const auto res = batch::solve(A, b, x, st);
            EXPECT_EQ(res.num_converged(), d.num_systems);
            xs[shared] = x.to_host();
            its[shared] = res.iterations;
            if (exec.backend() == Backend::cuda) {
                // on chip: in shared memory or (warp kernel, none / Jacobi) registers
                EXPECT_EQ(res.launch.vectors_in_shared + res.launch.vectors_in_registers,
                          shared ? res.launch.vectors_total : 0);
                EXPECT_EQ(res.launch.matrix_in_shared, shared == 1);
            }
        }
        EXPECT_EQ(its[0], its[1]);  // same arithmetic in the same order, whatever the memory
        EXPECT_EQ(xs[0], xs[1]);
    }
}

TEST_F(BatchTest, BadSystemsAreFlaggedAndTheOthersSolved) {
    auto d = grid_batch(5, 6, true, 8);
    const std::size_t nnz = d.nnz();
    d.values[2 * nnz + 7] = std::numeric_limits<double>::quiet_NaN();  // system 2: NaN entry
    for (std::size_t i = 0; i < d.n; ++i)                              // system 4: zero diagonal
        for (auto k = d.row_ptrs[i]; k < d.row_ptrs[i + 1]; ++k)
            if (i == 3 && d.col_idxs[k] == 3) d.values[4 * nnz + k] = 0.0;
    std::fill(d.rhs.begin() + 5 * d.n, d.rhs.begin() + 6 * d.n, 0.0);  // system 5: b = 0
    for (auto solver : {Solver::cg, Solver::bicgstab, Solver::gmres}) {
        SCOPED_TRACE(to_string(solver));
        batch::Settings st;
        st.solver = solver;
        st.precond = Preconditioner::jacobi;
        st.tolerance = 1e-9;
        const batch::BatchMatrix<double> A(exec, d, Format::csr);
        const auto b = rhs_of<double>(exec, d);
        auto x = poisoned<double>(exec, d.num_systems * d.n);
        const auto res = batch::solve(A, b, x, st);
        const auto xh = x.to_host();
        EXPECT_EQ(res.reason[2], StopReason::non_finite);
        EXPECT_EQ(res.reason[4], StopReason::singular_preconditioner);
        EXPECT_EQ(res.reason[5], StopReason::converged);
        EXPECT_EQ(res.iterations[5], 0);
        for (std::size_t i = 0; i < d.n; ++i) EXPECT_EQ(xh[5 * d.n + i], 0.0);
        for (std::size_t s : {0, 1, 3}) {
            EXPECT_EQ(res.reason[s], StopReason::converged) << "system " << s;
            EXPECT_LE(host_relative_residual(d, s, to_double(xh)), 1e-9);
        }
        EXPECT_EQ(res.num_converged(), 4u);
        EXPECT_TRUE(std::isnan(res.max_relative_residual()));  // the NaN system is not hidden
    }
}

// A NaN or Inf in one system's right-hand side, or a right-hand side outside what the
// precision's squared norms hold, fails that system alone (with its reason), never the batch.
TEST_F(BatchTest, NonFiniteAndBadlyScaledRightHandSidesFailOnlyTheirSystem) {
    auto d = grid_batch(4, 7, true, 21);
    d.rhs[1 * d.n + 3] = std::numeric_limits<double>::quiet_NaN();
    d.rhs[2 * d.n + 0] = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < d.n; ++i) {
        d.rhs[4 * d.n + i] *= 1e-160;  // relative 1e-8: a threshold below double's 2^-498
        d.rhs[5 * d.n + i] *= 1e160;   // ||b||^2 would overflow
    }
    for (auto solver : {Solver::cg, Solver::bicgstab, Solver::gmres}) {
        SCOPED_TRACE(to_string(solver));
        batch::Settings st;
        st.solver = solver;
        st.tolerance = 1e-8;
        const batch::BatchMatrix<double> A(exec, d, Format::csr);
        const auto b = rhs_of<double>(exec, d);
        auto x = poisoned<double>(exec, d.num_systems * d.n);
        const auto res = batch::solve(A, b, x, st);
        ASSERT_EQ(res.size(), d.num_systems);
        EXPECT_EQ(res.reason[1], StopReason::non_finite);
        EXPECT_EQ(res.reason[2], StopReason::non_finite);
        EXPECT_EQ(res.reason[4], StopReason::bad_scale);
        EXPECT_EQ(res.reason[5], StopReason::bad_scale);
        const auto xh = to_double(x.to_host());
        for (std::size_t s : {0, 3, 6}) {
            EXPECT_EQ(res.reason[s], StopReason::converged) << "system " << s;
            EXPECT_LE(host_relative_residual(d, s, xh), 1e-8);
        }
        EXPECT_EQ(res.num_converged(), 3u);
    }
    // Single precision: ||b_s|| = 1e-20 leaves float's squared norms (the same batch in double
    // solves it).
    auto f = grid_batch(4, 3, true, 22);
    for (std::size_t i = 0; i < f.n; ++i) f.rhs[f.n + i] *= 1e-20;
    batch::Settings st;
    st.tolerance = 1e-4;
    const batch::BatchMatrix<float> Af(exec, f, Format::csr);
    const auto bf = rhs_of<float>(exec, f);
    auto xf = poisoned<float>(exec, f.num_systems * f.n);
    const auto rf = batch::solve(Af, bf, xf, st);
    EXPECT_EQ(rf.reason[0], StopReason::converged);
    EXPECT_EQ(rf.reason[1], StopReason::bad_scale);
    EXPECT_EQ(rf.reason[2], StopReason::converged);
    const batch::BatchMatrix<double> Ad(exec, f, Format::csr);
    const auto bd = rhs_of<double>(exec, f);
    auto xd = poisoned<double>(exec, f.num_systems * f.n);
    EXPECT_EQ(batch::solve(Ad, bd, xd, st).num_converged(), 3u);
    // A NaN in the initial guess fails its system too.
    st.use_initial_guess = true;
    auto guess = f.rhs;
    guess[2 * f.n] = std::numeric_limits<double>::quiet_NaN();
    Array<double> xg(exec, guess);
    const auto rg = batch::solve(Ad, bd, xg, st);
    EXPECT_EQ(rg.reason[2], StopReason::non_finite);
    EXPECT_EQ(rg.num_converged(), 2u);
}

TEST_F(BatchTest, ManyMoreSystemsThanResidentBlocks) {
    // 20000 systems: on cuda every block solves many in turn (shared memory reused), with the
    // initial guesses read from x; results equal the reference backend's
    const auto d = grid_batch(4, 20000, true, 16);
    batch::Settings st;
    st.solver = Solver::cg;
    st.precond = Preconditioner::jacobi;
    st.tolerance = 1e-10;
    st.use_initial_guess = true;
    const auto guess = random_vector<double>(d.num_systems * d.n, 17);
    const batch::BatchMatrix<double> A(exec, d, Format::csr), Ar(ref, d, Format::csr);
    const auto b = rhs_of<double>(exec, d);
    const auto br = rhs_of<double>(ref, d);
    Array<double> x(exec, guess), xr(ref, guess);
    const auto res = batch::solve(A, b, x, st);
    const auto rr = batch::solve(Ar, br, xr, st);
    if (exec.backend() == Backend::cuda) {
        EXPECT_LT(res.launch.grid_size, 20000);
    }
    EXPECT_EQ(res.num_converged(), d.num_systems);
    const auto xh = to_double(x.to_host());
    for (std::size_t s = 0; s < d.num_systems; s += 997) {
        EXPECT_LE(host_relative_residual(d, s, xh), 1e-10) << "system " << s;
        EXPECT_NEAR(res.iterations[s], rr.iterations[s], 2) << "system " << s;
    }
}

// cuda's batch options solve every system at each of their values: batch_warp_max_rows (a row
// count), batch_registers and batch_reg_min_blocks (0, 5, 6 or 8; double only). 16-row CG with
// Jacobi in shared memory: the register variant, which asks all three. Their variables
// (PORTLA_BATCH_WARP_MAX_ROWS, PORTLA_BATCH_REGISTERS: 1 or 0, PORTLA_BATCH_REG_MIN_BLOCKS) map
// onto them and refuse a value they do not know with a one-line BadInput.
TEST_F(BatchTest, SwitchesRefuseAValueTheyDoNotKnow) {
    if (exec.backend() != Backend::cuda) GTEST_SKIP() << "the batch options are cuda's";
    const auto d = grid_batch(4, 100, true, 21);
    batch::Settings st;
    st.solver = Solver::cg;
    st.precond = Preconditioner::jacobi;
    st.tolerance = 1e-10;
    const auto b = rhs_of<double>(exec, d);
    auto x = poisoned<double>(exec, d.num_systems * d.n);
    using Set = void (*)(KernelOptions&);
    const struct {
        const char* name;
        const char* typo;
        const char* accepted;
        std::vector<std::pair<const char*, Set>> valid;  // each with the others at their defaults
    } switches[] = {
        {"PORTLA_BATCH_WARP_MAX_ROWS",
         "128x",
         "an integer from 0 to 2147483647",
         {{"0", [](KernelOptions& o) { o.batch_warp_max_rows = 0; }},
          {"16", [](KernelOptions& o) { o.batch_warp_max_rows = 16; }},
          {"128", [](KernelOptions& o) { o.batch_warp_max_rows = 128; }},
          {"", [](KernelOptions&) {}}}},
        {"PORTLA_BATCH_REGISTERS",
         "on",
         "1 or 0",
         {{"0", [](KernelOptions& o) { o.batch_registers = false; }},
          {"1", [](KernelOptions& o) { o.batch_registers = true; }},
          {"", [](KernelOptions&) {}}}},
        {"PORTLA_BATCH_REG_MIN_BLOCKS",
         "7",
         "0, 5, 6 or 8",
         {{"0", [](KernelOptions& o) { o.batch_reg_min_blocks = 0; }},
          {"5", [](KernelOptions& o) { o.batch_reg_min_blocks = 5; }},
          {"6", [](KernelOptions& o) { o.batch_reg_min_blocks = 6; }},
          {"8", [](KernelOptions& o) { o.batch_reg_min_blocks = 8; }},
          {"", [](KernelOptions&) {}}}},
    };
    for (const auto& s : switches) {
        {
            const ScopedEnv typo(s.name, s.typo);
            for (int use = 0; use < 2; ++use)
                expect_bad_input([] { (void)kernel_options_from_environment(); },
                                 std::string(s.name) + "=" + s.typo + ": expected " + s.accepted);
        }
        for (const auto& [value, set] : s.valid) {
            SCOPED_TRACE(std::string(s.name) + "=" + value);
            KernelOptions o;
            set(o);
            {
                const ScopedEnv env(s.name, value);
                const KernelOptions mapped = kernel_options_from_environment();
                EXPECT_EQ(mapped.batch_warp_max_rows, o.batch_warp_max_rows);
                EXPECT_EQ(mapped.batch_registers, o.batch_registers);
                EXPECT_EQ(mapped.batch_reg_min_blocks, o.batch_reg_min_blocks);
            }
            Executor e = exec;
            e.set_kernel_options(o);
            const batch::BatchMatrix<double> A(e, d, Format::csr);
            const auto res = batch::solve(A, b, x, st);
            EXPECT_EQ(res.num_converged(), d.num_systems);
            const auto xh = to_double(x.to_host());
            for (std::size_t sys = 0; sys < d.num_systems; sys += 7)
                EXPECT_LE(host_relative_residual(d, sys, xh), 1e-10) << "system " << sys;
        }
    }
}

TEST_F(BatchTest, AbsoluteToleranceInitialGuessAndIterationLimit) {
    auto d = grid_batch(6, 4, true, 9);
    for (std::size_t i = 0; i < d.n; ++i) d.rhs[i] *= 1e-21;  // system 0: a tiny right-hand side
    const batch::BatchMatrix<double> A(exec, d, Format::csr);
    const auto b = rhs_of<double>(exec, d);
    batch::Settings st;
    st.solver = Solver::cg;
    // relative: the tiny system is solved like the others (not "converged" at x = 0)
    st.tolerance = 1e-8;
    Array<double> x(exec, d.num_systems * d.n);
    auto res = batch::solve(A, b, x, st);
    EXPECT_EQ(res.num_converged(), d.num_systems);
    EXPECT_GT(res.iterations[0], 3);
    const auto xs = x.to_host();
    EXPECT_LE(host_relative_residual(d, 0, to_double(xs)), 1e-8);
    // absolute: the tiny system meets 1e-10 at x = 0, the others need iterations
    st.tolerance_type = batch::ToleranceType::absolute;
    st.tolerance = 1e-10;
    res = batch::solve(A, b, x, st);
    EXPECT_EQ(res.iterations[0], 0);
    for (std::size_t s = 0; s < d.num_systems; ++s) EXPECT_LE(res.residual_norm[s], 1e-10);
    // the solution as the initial guess: nothing to do
    st.tolerance_type = batch::ToleranceType::relative;
    st.tolerance = 1e-6;
    st.use_initial_guess = true;
    Array<double> guess(exec, xs);
    res = batch::solve(A, b, guess, st);
    for (std::size_t s = 0; s < d.num_systems; ++s) EXPECT_EQ(res.iterations[s], 0);
    // too few iterations: reported, not hidden
    st.use_initial_guess = false;
    st.tolerance = 1e-12;
    st.max_iters = 2;
    res = batch::solve(A, b, x, st);
    EXPECT_EQ(res.num_converged(), 0u);
    for (std::size_t s = 0; s < d.num_systems; ++s) {
        EXPECT_EQ(res.reason[s], StopReason::max_iterations);
        EXPECT_EQ(res.iterations[s], 2);
        EXPECT_GT(res.residual_norm[s], 1e-12 * res.rhs_norm[s]);
    }
}

TEST_F(BatchTest, IluIsExactOnTridiagonalSystems) {
    // ILU(0) of a tridiagonal matrix is its LU factorisation: one iteration
    BatchData d = pattern_batch(3, 40, [](int i) {
        return std::pair{std::max(0, i - 1), std::min(39, i + 1)};
    });
    const auto v = random_vector<double>(3 * d.nnz(), 11, 0.1, 1.0);
    d.values = v;
    for (std::size_t s = 0; s < 3; ++s)
        for (int i = 0; i < 40; ++i) d.values[s * d.nnz() + d.row_ptrs[i] + (i > 0 ? 1 : 0)] += 3.0;
    d.rhs = random_vector<double>(3 * 40, 12);
    const batch::BatchMatrix<double> A(exec, d, Format::csr);
    const auto b = rhs_of<double>(exec, d);
    Array<double> x(exec, 3 * 40);
    batch::Settings st;
    st.solver = Solver::gmres;
    st.precond = Preconditioner::ilu0;
    st.tolerance = 1e-12;
    const auto res = batch::solve(A, b, x, st);
    for (std::size_t s = 0; s < 3; ++s) {
        EXPECT_EQ(res.reason[s], StopReason::converged);
        EXPECT_EQ(res.iterations[s], 1);
    }
}

TEST_F(BatchTest, BlockJacobiIsExactOnBlockDiagonalSystemsThatNeedPivoting) {
    // two 4 x 4 blocks per system, full, with tiny diagonals (the inversion must pivot): block
    // Jacobi with blocks of 4 is the exact inverse, so GMRES takes one iteration
    BatchData d = pattern_batch(4, 8, [](int i) { return std::pair{i / 4 * 4, i / 4 * 4 + 3}; });
    d.values = random_vector<double>(4 * d.nnz(), 14, 0.5, 2.0);
    for (std::size_t s = 0; s < 4; ++s)
        for (int i = 0; i < 8; ++i) d.values[s * d.nnz() + d.row_ptrs[i] + i % 4] = 1e-3;
    d.rhs = random_vector<double>(4 * 8, 15);
    for (auto f : {Format::csr, Format::ell, Format::dense}) {
        const batch::BatchMatrix<double> A(exec, d, f);
        const auto b = rhs_of<double>(exec, d);
        Array<double> x(exec, 4 * 8);
        batch::Settings st;
        st.solver = Solver::gmres;
        st.precond = Preconditioner::block_jacobi;
        st.block_size = 4;
        st.tolerance = 1e-12;
        const auto res = batch::solve(A, b, x, st);
        const auto xh = to_double(x.to_host());
        for (std::size_t s = 0; s < 4; ++s) {
            EXPECT_EQ(res.reason[s], StopReason::converged);
            EXPECT_EQ(res.iterations[s], 1) << to_string(f) << " system " << s;
            EXPECT_LE(host_relative_residual(d, s, xh), 1e-12);
        }
    }
}

TEST_F(BatchTest, PeleLmSystemsMatchADenseSolve) {
    // Real chemistry systems (nonsymmetric, badly scaled, right-hand sides near 1e-21), with
    // the given b and with b = 1, at the paper's rtol 1e-6: BiCGSTAB + Jacobi as the paper ran
    // them, GMRES + ILU(0), BiCGSTAB + block Jacobi on ELL. The solution must match the dense
    // solve within the forward-error bound cond(A) * relative residual (cond from the inverse).
    for (const char* cls : {"drm19", "gri12", "gri30", "dodecane_lu", "isooctane"}) {
        auto d = batch::read_directory(std::string(PORTLA_TEST_DATA_DIR) + "/pelelm/" + cls);
        ASSERT_EQ(d.num_systems, 3u);
        std::vector<double> cond(d.num_systems);
        for (std::size_t s = 0; s < d.num_systems; ++s) cond[s] = condition_inf(d, s);
        for (int ones = 0; ones < 2; ++ones) {
            if (ones) std::fill(d.rhs.begin(), d.rhs.end(), 1.0);
            for (const Case c :
                 {Case{Solver::bicgstab, Preconditioner::jacobi, Format::csr},
                  Case{Solver::gmres, Preconditioner::ilu0, Format::csr},
                  Case{Solver::bicgstab, Preconditioner::block_jacobi, Format::ell}}) {
                SCOPED_TRACE(std::string(cls) + (ones ? " b = 1 " : " given b ") + name_of(c));
                batch::Settings st;
                st.solver = c.solver;
                st.precond = c.precond;
                st.tolerance = 1e-6;
                st.max_iters = static_cast<int>(2 * d.n);
                const batch::BatchMatrix<double> A(exec, d, c.format);
                const auto b = rhs_of<double>(exec, d);
                auto x = poisoned<double>(exec, d.num_systems * d.n);
                const auto res = batch::solve(A, b, x, st);
                const auto xh = to_double(x.to_host());
                for (std::size_t s = 0; s < d.num_systems; ++s) {
                    EXPECT_EQ(res.reason[s], StopReason::converged) << "system " << s;
                    const double rel = host_relative_residual(d, s, xh);
                    EXPECT_LE(rel, 1e-6);
                    const auto direct = dense_solve(d, s);
                    double err = 0, scale = 0;
                    for (std::size_t i = 0; i < d.n; ++i) {
                        err = std::max(err, std::abs(xh[s * d.n + i] - direct[i]));
                        scale = std::max(scale, std::abs(direct[i]));
                    }
                    EXPECT_LE(err, (2 * std::sqrt(double(d.n)) * cond[s] * rel + 1e-12) * scale)
                        << "system " << s << ", cond " << cond[s];
                }
            }
        }
    }
}

TEST_F(BatchTest, BadArgumentsAreRejected) {
    const auto d = grid_batch(4, 2, true, 13);
    const batch::BatchMatrix<double> A(exec, d, Format::dense);
    const auto b = rhs_of<double>(exec, d);
    Array<double> x(exec, d.num_systems * d.n), short_x(exec, 3);
    batch::Settings st;
    EXPECT_THROW(batch::solve(A, b, short_x, st), DimensionMismatch);
    st.precond = Preconditioner::ilu0;
    EXPECT_THROW(batch::solve(A, b, x, st), BadInput);  // ilu0 needs csr
    st.precond = Preconditioner::block_jacobi;
    st.block_size = 33;
    EXPECT_THROW(batch::solve(A, b, x, st), BadInput);
    st.precond = Preconditioner::none;
    st.solver = Solver::gmres;
    st.restart = 0;
    EXPECT_THROW(batch::solve(A, b, x, st), BadInput);
    st.restart = 30;
    st.tolerance = -1;
    EXPECT_THROW(batch::solve(A, b, x, st), BadInput);
    EXPECT_THROW(solver::parse_solver("lu"), BadInput);
    BatchData no_systems = d;  // a batch of no systems
    no_systems.num_systems = 0;
    no_systems.values.clear();
    no_systems.rhs.clear();
    const batch::BatchMatrix<double> A0(exec, no_systems, Format::dense);
    Array<double> b0(exec, 0), x0(exec, 0);
    st = batch::Settings{};
    EXPECT_THROW(batch::solve(A0, b0, x0, st), BadInput);
    BatchData empty_systems = d;  // systems of size 0
    empty_systems.n = 0;
    empty_systems.row_ptrs = {0};
    empty_systems.col_idxs.clear();
    empty_systems.values.clear();
    EXPECT_THROW(batch::BatchMatrix<double>(exec, empty_systems, Format::csr), BadInput);
    // a dense batch larger than any memory: a clear OutOfMemory, not a killed process
    BatchData huge;
    huge.num_systems = 1;
    huge.n = std::size_t{1} << 20;  // dense: 2^40 values
    for (std::size_t i = 0; i <= huge.n; ++i) huge.row_ptrs.push_back(static_cast<std::int32_t>(i));
    for (std::size_t i = 0; i < huge.n; ++i) huge.col_idxs.push_back(static_cast<std::int32_t>(i));
    huge.values.assign(huge.n, 1.0);
    EXPECT_THROW(batch::BatchMatrix<double>(exec, huge, Format::dense), OutOfMemory);
    EXPECT_THROW(solver::parse_preconditioner("ilu"), BadInput);
}

}  // namespace
}  // namespace portla::test
