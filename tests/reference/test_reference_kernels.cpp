// Tiny inputs with the expected values worked out by hand: the oracle itself is checked here.
#include <gtest/gtest.h>

#include <cmath>

#include "portla/portla.hpp"

namespace portla {
namespace {

const Executor ref = Executor::reference();

TEST(ReferenceBlas1, HandComputed) {
    Array<double> x(ref, std::vector<double>{1, 2, 3, 4, 5});
    Array<double> y(ref, std::vector<double>{5, -4, 3, -2, 1});
    EXPECT_EQ(blas::dot<double>(ref, x, y), 5 - 8 + 9 - 8 + 5);                // 3
    EXPECT_EQ(blas::norm2<double>(ref, y), std::sqrt(25.0 + 16 + 9 + 4 + 1));  // sqrt(55)
    blas::axpby<double>(ref, 2.0, x, -1.0, y);                                 // y = 2x - y
    EXPECT_EQ(y.to_host(), (std::vector<double>{-3, 8, 3, 10, 9}));
    Array<double> p(ref, std::vector<double>{1, 0, -1, 0, 2});
    Array<double> q(ref, std::vector<double>{2, 2, 2, 2, 2});
    Array<double> r(ref, std::vector<double>{1, 1, 1, 1, 1});
    double rr = -1;
    blas::fused_cg_update<double>(ref, 0.5, p, q, x, r, view<double>(&rr, 1));
    EXPECT_EQ(x.to_host(), (std::vector<double>{1.5, 2, 2.5, 4, 6}));  // x += p/2
    EXPECT_EQ(r.to_host(), (std::vector<double>{0, 0, 0, 0, 0}));      // r -= q/2
    EXPECT_EQ(rr, 0.0);
}

TEST(ReferenceMatrix, HandComputed5x5) {
    //     [ 4 -1  0  0  1 ]       x = (1, 2, 3, 4, 5)
    //     [-1  4 -1  0  0 ]
    // A = [ 0 -1  4 -1  0 ]   A x = (4-2+5, -1+8-3, -2+12-4, -3+16-5, 1+25) = (7, 4, 6, 8, 26)
    //     [ 0  0 -1  4 -1 ]
    //     [ 0  0  0  0  5 ]  (last row: 1 in column 0 too: 1*1 + 5*5 = 26)
    MatrixData d;
    d.rows = d.cols = 5;
    const double dense[5][5] = {
        {4, -1, 0, 0, 1}, {-1, 4, -1, 0, 0}, {0, -1, 4, -1, 0}, {0, 0, -1, 4, -1}, {1, 0, 0, 0, 5}};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            if (dense[i][j] != 0) d.add(i, j, dense[i][j]);
    const std::vector<double> want{7, 4, 6, 8, 26};
    Array<double> x(ref, std::vector<double>{1, 2, 3, 4, 5}), y(ref, 5);
    Csr<double>::from_data(ref, d).apply(x, y);
    EXPECT_EQ(y.to_host(), want);
    Ell<double>::from_data(ref, d).apply(x, y);
    EXPECT_EQ(y.to_host(), want);
    Dense<double>::from_data(ref, d).apply(x, y);
    EXPECT_EQ(y.to_host(), want);
}

TEST(ReferenceStencil, HandComputed) {
    // 1-D, 5 points: y = (2*1-2, -1+4-3, -2+6-4, -3+8-5, -4+10) = (0, 0, 0, 0, 6)
    Array<double> x(ref, std::vector<double>{1, 2, 3, 4, 5}), y(ref, 5);
    Stencil<double>(ref, 1, 5).apply(x, y);
    EXPECT_EQ(y.to_host(), (std::vector<double>{0, 0, 0, 0, 6}));
    // 2-D, 2x2 points, x = (1, 2, 3, 4): y_00 = 4*1 - 2 - 3 = -1, y_10 = 8 - 1 - 4 = 3,
    // y_01 = 12 - 4 - 1 = 7, y_11 = 16 - 3 - 2 = 11
    Array<double> x2(ref, std::vector<double>{1, 2, 3, 4}), y2(ref, 4);
    Stencil<double>(ref, 2, 2).apply(x2, y2);
    EXPECT_EQ(y2.to_host(), (std::vector<double>{-1, 3, 7, 11}));
    // 3-D, 2x2x2 points, x = 1: every point has 3 neighbours: 6 - 3 = 3
    Array<double> x3(ref, std::vector<double>(8, 1.0)), y3(ref, 8);
    const Stencil<double> s3(ref, 3, 2);
    s3.apply(x3, y3);
    EXPECT_EQ(y3.to_host(), std::vector<double>(8, 3.0));
    EXPECT_EQ(s3.nnz(), 8u + 8u * 3u);
}

TEST(ReferenceCg, SolvesTridiagonalExactlyInNIterations) {
    // CG on an n x n SPD matrix converges in at most n steps in exact arithmetic.
    const Stencil<double> A(ref, 1, 6);
    Array<double> b(ref, std::vector<double>{1, 0, 0, 0, 0, 1}), x(ref, 6);
    solver::Settings s;
    s.rtol = 1e-12;
    const auto res = solver::cg<double>(A, b, x, s);
    EXPECT_TRUE(res.converged);
    EXPECT_LE(res.iterations, 6);
    // A (1,...,1) = (1, 0, 0, 0, 0, 1): the solution is all ones.
    for (double v : x.to_host()) EXPECT_NEAR(v, 1.0, 1e-12);
}

}  // namespace
}  // namespace portla
