/// \file
/// LSQR and LSMR: min ||A x - b||^2 + damp^2 ||x||^2 for a rectangular (or square) A, with
/// scipy.sparse.linalg.lsqr's and lsmr's parameters, stopping tests and returned norms.
#pragma once

#include <string>

#include "portla/array.hpp"
#include "portla/operator.hpp"

namespace portla::solver {

/// The parameters of lsqr() and lsmr(), named and defaulted as SciPy's.
struct LeastSquaresSettings {
    double damp = 0;      ///< the regularisation weight of ||x||^2 (>= 0)
    double atol = 1e-6;   ///< relative error in A: the test ||A^T r|| <= atol ||A|| ||r|| (>= 0)
    double btol = 1e-6;   ///< relative error in b: ||r|| <= btol ||b|| + atol ||A|| ||x|| (>= 0)
    double conlim = 1e8;  ///< stop when the estimate of cond(A) exceeds it (0: no limit)
    /// Iteration limit; negative: SciPy's default (lsqr 2 n, lsmr min(m, n)), n = A.cols().
    long long iter_lim = -1;
    bool use_initial_guess = false;  ///< x holds x0 on entry (else x = 0)
    bool calc_var = false;           ///< lsqr: fill `var` with diag((A^T A + damp^2 I)^-1)
};

/// What lsqr() and lsmr() return: SciPy's istop and norms. lsqr fills r1norm, r2norm, anorm,
/// acond, arnorm, xnorm; lsmr normr (in r2norm), normar (arnorm), norma (anorm), conda (acond)
/// and normx (xnorm).
struct LeastSquaresResult {
    /// Why the iteration stopped, as SciPy: 0 x = 0 is the exact solution (b = 0 or A^T b = 0),
    /// 1 A x = b to the tolerances atol, btol, 2 the least-squares problem to atol, 3 cond(A)
    /// above conlim, 4 A x = b to machine precision, 5 least squares to machine precision, 6
    /// cond(A) too large for machine precision, 7 the iteration limit.
    int istop = 0;
    long long iterations = 0;  ///< iterations taken (SciPy's itn)
    double r1norm = 0;         ///< lsqr: ||b - A x|| (negative when the estimate is inconsistent)
    double r2norm = 0;         ///< sqrt(||b - A x||^2 + damp^2 ||x||^2) (lsmr: its normr)
    double anorm = 0;          ///< estimate of the Frobenius norm of [A; damp I]
    double acond = 0;          ///< estimate of cond([A; damp I])
    double arnorm = 0;         ///< estimate of ||A^T r - damp^2 x||
    double xnorm = 0;          ///< ||x||
};
/// SciPy's message for an istop code (0..7) of lsqr and lsmr.
std::string least_squares_message(int istop);

/// LSQR (Paige & Saunders 1982): Golub-Kahan bidiagonalisation, equivalent to CG on the normal
/// equations, for min ||A x - b||^2 + damp^2 ||x||^2. A is m x n (any shape) and must provide
/// A^T (A.has_transpose()); b has m entries, x and var n. Per iteration: one A v, one A^T u and
/// three norms; vectors stored: u and a scratch of m, v, w and a scratch of n (and x, var).
/// `var` (empty view: not computed) receives diag((A^T A + damp^2 I)^-1) estimates when
/// settings.calc_var is set. Throws BadInput for NaN or Inf in b or x0, for bad settings and
/// when A's applies produce NaN or Inf; DimensionMismatch for wrong sizes; Unsupported without
/// A^T.
template <typename T>
LeastSquaresResult lsqr(const LinearOperator<T>& A, const_view<T> b, view<T> x,
                        const LeastSquaresSettings& settings, view<T> var = {});

/// LSMR (Fong & Saunders 2011): the same bidiagonalisation, equivalent to MINRES on the normal
/// equations, so ||A^T r|| decreases monotonically. Sizes, checks and costs as lsqr (one more
/// norm per iteration, ||x||; vectors of n: v, h, hbar and a scratch).
template <typename T>
LeastSquaresResult lsmr(const LinearOperator<T>& A, const_view<T> b, view<T> x,
                        const LeastSquaresSettings& settings);

}  // namespace portla::solver
