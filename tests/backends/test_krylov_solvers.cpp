// MINRES, CGS, TFQMR, LGMRES and GCROT(m,k) on public SuiteSparse matrices (tests/data/suitesparse,
// sources and licence in its README.md): b = A (1, ..., 1), x0 = 0, rtol 1e-8, no preconditioner
// and Jacobi. Each solve runs on the reference backend and on the backend under test; both must
// converge, with the true residual, recomputed on the host in double, meeting the tolerance,
// and the backend's iteration count close to the reference's (the margin is below). SciPy's
// counts for the same runs are in docs/solvers.md (scripts/more-solvers-table.py).
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/backend_fixture.hpp"

namespace portla::test {
namespace {

using solver::Preconditioner;
using solver::Solver;
using solver::StopReason;

const std::string kDir = std::string(PORTLA_TEST_DATA_DIR) + "/suitesparse";

class KrylovSolvers : public BackendTest {};

solver::Result run(const Executor& exec, Solver method, const MatrixData& d,
                   const std::vector<double>& bh, const solver::Settings& s,
                   std::vector<double>& xh) {
    const auto A = Csr<double>::from_data(exec, d);
    Array<double> b(exec, bh), x(exec, d.cols);
    solver::Result r;
    switch (method) {
        case Solver::minres:
            r = solver::minres<double>(A, b, x, s);
            break;
        case Solver::cgs:
            r = solver::cgs<double>(A, b, x, s);
            break;
        case Solver::lgmres:
            r = solver::lgmres<double>(A, b, x, s);
            break;
        case Solver::gcrotmk:
            r = solver::gcrotmk<double>(A, b, x, s);
            break;
        default:
            r = solver::tfqmr<double>(A, b, x, s);
            break;
    }
    xh = x.to_host();
    return r;
}

// ||b - (A - shift I) x|| / ||b||, in double on the host.
double relative_residual(const MatrixData& d, const std::vector<double>& x,
                         const std::vector<double>& b, double shift) {
    std::vector<double> shifted = b;
    for (std::size_t i = 0; i < b.size(); ++i) shifted[i] = b[i] + shift * x[i];
    // b - A x + shift x has the norm of true_relative_residual's r for the right-hand side
    // b + shift x, over ||b|| instead of ||b + shift x||
    double sn = 0, bn = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        sn += shifted[i] * shifted[i];
        bn += b[i] * b[i];
    }
    return true_relative_residual(d, x, shifted) * std::sqrt(sn / bn);
}

struct Case {
    const char* matrix;
    Solver method;
    Preconditioner precond;
    double shift;
    int outer_k = 3;
    bool prepend = false;
    bool smallest = false;  // gcrotmk: truncate by the smallest singular values
    int gcrot_m = 20, gcrot_k = -1;
};

// The backend sums its reductions in another order than the reference, which moves the count:
// on these cases by at most 16 of 259 (tfqmr, watt_2, Jacobi: reference 259, omp 275, opencl
// 259) and 3 of 137 (minres, bcsstk01: 137, 140, 140); the others agree exactly (2-core VM,
// 2026-11-28; gcrotmk agrees exactly on its cases). A quarter of the reference's count, at least 3,
// is four times the largest drift seen, while a broken recurrence (a wrong coefficient) stalls or
// diverges far beyond it.
int allowance(int reference) { return std::max(3, reference / 4); }

void check_case(const Executor& exec, const Case& c) {
    SCOPED_TRACE(std::string(c.matrix) + " " + solver::to_string(c.method) + " " +
                 solver::to_string(c.precond) + " shift " + std::to_string(c.shift));
    const MatrixData d = io::read_matrix_market(kDir + "/" + c.matrix + ".mtx");
    std::vector<double> bh(d.rows, 0.0);  // b = A 1
    for (std::size_t k = 0; k < d.entries(); ++k) bh[d.row_idx[k]] += d.values[k];
    solver::Settings s;
    s.rtol = 1e-8;
    s.max_iters = 20000;
    s.precond = c.precond;
    s.shift = c.shift;
    s.restart = 30;
    s.lgmres_outer_k = c.outer_k;
    s.lgmres_prepend_outer_v = c.prepend;
    s.gcrot_truncate_smallest = c.smallest;
    s.gcrot_m = c.gcrot_m;
    s.gcrot_k = c.gcrot_k;
    std::vector<double> x_ref, x;
    const auto ref = run(Executor::reference(), c.method, d, bh, s, x_ref);
    const auto res = run(exec, c.method, d, bh, s, x);
    ASSERT_TRUE(ref.converged) << solver::to_string(ref.reason);
    ASSERT_TRUE(res.converged) << solver::to_string(res.reason);
    // The solver's own true residual and the host's agree to rounding; both meet the test
    // (1e-8 relative; the host's double sum differs from the backend's by far less than 1%).
    EXPECT_LE(relative_residual(d, x, bh, c.shift), 1.01e-8);
    EXPECT_LE(res.relative_residual(), 1e-8);
    EXPECT_LE(std::abs(res.iterations - ref.iterations), allowance(ref.iterations))
        << "reference " << ref.iterations << ", " << backend_under_test() << " " << res.iterations;
}

TEST_F(KrylovSolvers, MinresOnSymmetricMatrices) {
    for (const Case& c : {Case{"bcsstk01", Solver::minres, Preconditioner::none, 0},
                          Case{"bcsstk01", Solver::minres, Preconditioner::jacobi, 0},
                          Case{"bcsstk04", Solver::minres, Preconditioner::jacobi, 0}})
        check_case(exec, c);
}

TEST_F(KrylovSolvers, MinresOnShiftedIndefiniteMatrix) {
    // bcsstk01's eigenvalues span about 3e3 ... 3e9: a shift of 1e6 puts a few of them below
    // zero, an indefinite system CG cannot solve.
    check_case(exec, Case{"bcsstk01", Solver::minres, Preconditioner::none, 1e6});
}

TEST_F(KrylovSolvers, CgsAndTfqmrOnNonsymmetricMatrices) {
    for (Solver m : {Solver::cgs, Solver::tfqmr}) {
        for (const char* matrix : {"cage5", "arc130"})
            for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi})
                check_case(exec, Case{matrix, m, p, 0});
        check_case(exec, Case{"watt_2", m, Preconditioner::jacobi, 0});
    }
}

TEST_F(KrylovSolvers, LgmresOnNonsymmetricMatrices) {
    for (const char* matrix : {"cage5", "arc130"})
        for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi})
            check_case(exec, Case{matrix, Solver::lgmres, p, 0});
    // restarts that matter (30 + 3 vectors per cycle against 127 BiCGSTAB iterations), with
    // the corrections after and before the Krylov vectors, and none (plain GMRES(30))
    check_case(exec, Case{"watt_2", Solver::lgmres, Preconditioner::jacobi, 0});
    check_case(exec, Case{"watt_2", Solver::lgmres, Preconditioner::jacobi, 0, 3, true});
    check_case(exec, Case{"watt_2", Solver::lgmres, Preconditioner::jacobi, 0, 0});
}

TEST_F(KrylovSolvers, GcrotmkOnNonsymmetricMatrices) {
    for (const char* matrix : {"cage5", "arc130"})
        for (Preconditioner p : {Preconditioner::none, Preconditioner::jacobi})
            check_case(exec, Case{matrix, Solver::gcrotmk, p, 0});
    check_case(exec, Case{"watt_2", Solver::gcrotmk, Preconditioner::jacobi, 0});
    // cycles enough that the kept pairs are truncated again and again, the oldest dropped or
    // the directions of the smallest singular values kept out: GCROT(4,2) on cage5 (about 7
    // cycles) and GCROT(20,20) on 494_bus with Jacobi (about 30 cycles)
    for (bool smallest : {false, true}) {
        check_case(exec, Case{"cage5", Solver::gcrotmk, Preconditioner::none, 0, 3, false, smallest,
                              4, 2});
        check_case(exec,
                   Case{"494_bus", Solver::gcrotmk, Preconditioner::jacobi, 0, 3, false, smallest});
    }
}

TEST_F(KrylovSolvers, RefuseBadInput) {
    MatrixData rect;
    rect.rows = 3;
    rect.cols = 4;
    rect.row_idx = {0, 1, 2};
    rect.col_idx = {0, 1, 3};
    rect.values = {2.0, 3.0, 5.0};
    const auto A = Csr<double>::from_data(exec, rect);
    Array<double> b(exec, std::vector<double>{1, 2, 3}), x(exec, 4);
    solver::Settings s;
    EXPECT_THROW(solver::minres<double>(A, b, x, s), DimensionMismatch);
    EXPECT_THROW(solver::cgs<double>(A, b, x, s), DimensionMismatch);
    EXPECT_THROW(solver::tfqmr<double>(A, b, x, s), DimensionMismatch);
    EXPECT_THROW(solver::lgmres<double>(A, b, x, s), DimensionMismatch);
    EXPECT_THROW(solver::gcrotmk<double>(A, b, x, s), DimensionMismatch);
    const MatrixData d = io::read_matrix_market(kDir + "/bcsstk01.mtx");
    const auto S = Csr<double>::from_data(exec, d);
    Array<double> bs(exec, std::vector<double>(d.rows, 1.0)), xs(exec, d.cols);
    s.restart = 0;
    expect_bad_input([&] { solver::lgmres<double>(S, bs, xs, s); },
                     "lgmres: restart (inner_m) must be >= 1 (got 0)");
    s.restart = 30;
    s.lgmres_outer_k = -1;
    expect_bad_input([&] { solver::lgmres<double>(S, bs, xs, s); },
                     "lgmres: outer_k must be >= 0 (got -1)");
    s.gcrot_m = 0;
    expect_bad_input([&] { solver::gcrotmk<double>(S, bs, xs, s); },
                     "gcrotmk: m must be >= 1 (got 0)");
    s.gcrot_m = 20;
    s.gcrot_k = -2;
    expect_bad_input([&] { solver::gcrotmk<double>(S, bs, xs, s); },
                     "gcrotmk: k (-1: m) must be >= -1 (got -2)");
    s.shift = std::nan("");
    expect_bad_input([&] { solver::minres<double>(S, bs, xs, s); }, "minres: shift must be finite");
}

// b = A (1, ..., 1)
std::vector<double> rhs_of_ones(const MatrixData& d) {
    std::vector<double> b(d.rows, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) b[d.row_idx[k]] += d.values[k];
    return b;
}

// max_iters ends a solve as max_iterations. So does max_cycles for lgmres and gcrotmk, and
// Result::cycles counts the cycles begun (SciPy's outer iterations, which portla.scipy's maxiter
// counts for them), each of at most m + k Arnoldi steps; the solvers without cycles report 0.
TEST_F(KrylovSolvers, MaxIterationsAndMaxCyclesAreResults) {
    const MatrixData d = io::read_matrix_market(kDir + "/bcsstk04.mtx");
    const std::vector<double> bh = rhs_of_ones(d);
    std::vector<double> x;
    solver::Settings s;
    s.rtol = 1e-8;
    s.max_iters = 5;  // far fewer than any of them needs on bcsstk04
    for (Solver m : {Solver::minres, Solver::cgs, Solver::tfqmr, Solver::lgmres, Solver::gcrotmk}) {
        const auto r = run(exec, m, d, bh, s, x);
        EXPECT_FALSE(r.converged) << solver::to_string(m);
        EXPECT_EQ(r.reason, StopReason::max_iterations) << solver::to_string(m);
        EXPECT_EQ(r.iterations, 5) << solver::to_string(m);
        EXPECT_EQ(r.cycles, m == Solver::lgmres || m == Solver::gcrotmk ? 1 : 0)
            << solver::to_string(m);
        EXPECT_NEAR(r.residual_norm / r.rhs_norm, relative_residual(d, x, bh, 0),
                    1e-12 + 1e-6 * r.residual_norm / r.rhs_norm);
    }
    s.max_iters = 1000;
    s.restart = 5;  // lgmres: 5 + outer_k 3 steps a cycle at most
    s.lgmres_max_cycles = 3;
    s.gcrot_m = 5;  // gcrotmk: 5 + k 2 steps a cycle at most
    s.gcrot_k = 2;
    s.gcrot_max_cycles = 3;
    for (Solver m : {Solver::lgmres, Solver::gcrotmk}) {
        const auto r = run(exec, m, d, bh, s, x);
        const auto r_ref = run(ref, m, d, bh, s, x);
        EXPECT_EQ(r.reason, StopReason::max_iterations) << solver::to_string(m);
        EXPECT_EQ(r.cycles, 3) << solver::to_string(m);
        EXPECT_EQ(r_ref.cycles, 3) << solver::to_string(m);
        EXPECT_GE(r.iterations, 3 * 5) << solver::to_string(m);
        EXPECT_LE(r.iterations, 3 * 8) << solver::to_string(m);
    }
}

}  // namespace
}  // namespace portla::test
