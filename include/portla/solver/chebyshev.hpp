/// \file
/// Chebyshev polynomial preconditioner for the monolithic solvers (Jacobi-scaled, as PETSc's
/// Chebyshev/Jacobi): M^-1 = p(B) D^-1 with B = D^-1 A, D = diag(A), when A provides its
/// diagonal; M^-1 = p(A) (B = A, D = I) otherwise.
///
/// p is the polynomial of degree `degree` that the Chebyshev iteration for B z = D^-1 r from
/// z = 0 produces after degree + 1 steps (Saad, Iterative Methods for Sparse Linear Systems, 2nd
/// ed., Alg. 12.1): with theta = (lmax + lmin) / 2, delta = (lmax - lmin) / 2, sigma =
/// theta / delta, its residual polynomial is
///     R(lambda) = 1 - lambda p(lambda) = T_{k}((theta - lambda) / delta) / T_{k}(sigma),
/// k = degree + 1, T_k the Chebyshev polynomial of the first kind. apply() costs `degree`
/// operator applications and is written once over A.apply and blas:: calls (every backend).
///
/// Why M is SPD when A is (so CG may use it). M^-1 = D^-1/2 p(S) D^-1/2 with S = D^-1/2 A D^-1/2
/// (symmetric, the same eigenvalues as B), so M is SPD iff p(lambda) > 0, i.e. R(lambda) < 1,
/// at every eigenvalue lambda > 0 of B. With 0 < lmin < lmax:
///   - on (0, lmin): x = (theta - lambda) / delta lies in (1, sigma), where T_k rises from 1 to
///     T_k(sigma), so 0 < R < 1: 0 < lambda p(lambda) < 1;
///   - on [lmin, lmax]: |x| <= 1, |R| <= 1 / T_k(sigma) < 1: 0 < lambda p(lambda) < 2, within
///     1 / T_k(sigma) of 1 (the minimax approximation of 1 / lambda there);
///   - on (lmax, lmax + lmin): x in (-sigma, -1), |R| < 1 again; beyond, for even degree (odd
///     k) T_k(x) < 0 so R < 0 < 1 on all of (lmax, inf); for odd degree R reaches 1 at
///     lambda = lmax + lmin.
/// So M is SPD when lambda_max(B) < lmax + lmin (always for even degree), and the eigenvalues
/// of M^-1 A lie in (0, 2).
///
/// The interval, when not given: `estimate_steps` Lanczos steps on B in the |D| inner product
/// (equivalently on S; self-adjoint when A is symmetric), from a fixed pseudo-random start
/// vector (splitmix64, seed fixed: the same estimate on every run and backend up to rounding),
/// no reorthogonalisation, stopped early when the Krylov space becomes invariant. The extreme
/// eigenvalues theta_min <= theta_max of the tridiagonal (bisection on Sturm counts, on the
/// host) are Ritz values, inside the spectrum of B: theta_max underestimates lambda_max(B). Then
///     lmax = 1.1 theta_max                      (PETSc's safety factor),
///     lmin = max(theta_min, lmax / 1000).
/// lmax: 20 steps bring theta_max within a few per cent of lambda_max(B) on the Laplacians
/// (tests/backends/test_preconditioners.cpp), so lmax covers lambda_max(B) and the SPD
/// condition lambda_max(B) < lmax + lmin holds with margin. lmin: theta_min is the best
/// estimate of the bottom of the spectrum (targeting the true [lambda_min, lambda_max] gives the
/// best condition number of M^-1 A a degree-k polynomial attains); it can only overestimate
/// lambda_min, which is harmless (eigenvalues below lmin keep 0 < lambda p < 1, see above). The
/// floor lmax / 1000 keeps the interval positive and away from 0 when theta_min is tiny, zero
/// or negative (a singular or indefinite operator, rounding): at a ratio of 1000 even degree 64
/// still has T_65(sigma) ~ 30, i.e. a lower end it can resolve.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"

namespace portla::solver {

/// z = M^-1 r = p(D^-1 A) D^-1 r (see the file comment). Keeps a reference to A: A must
/// outlive the preconditioner. apply() uses work vectors of the object: one apply at a time.
template <typename T>
class Chebyshev : public PreconditionerOperator<T> {
public:
    /// The interval estimated by `estimate_steps` Lanczos steps (blocks). Throws
    /// DimensionMismatch (A not square), BadInput: degree outside [1, 64], estimate_steps < 1, a
    /// zero or non-finite diagonal entry (naming the row), a non-finite or non-positive
    /// estimate of lambda_max (the operator is not positive definite, or contains NaN or Inf).
    Chebyshev(const LinearOperator<T>& A, int degree, int estimate_steps = 20);
    /// As above, for an operator whose diagonal is positive, the Lanczos steps started from
    /// `start` (any vector with components along the whole spectrum, in the executor's memory):
    /// nothing is computed on the host but the tridiagonal's eigenvalues (multigrid's set-up on a
    /// GPU). Throws as above.
    Chebyshev(const LinearOperator<T>& A, int degree, int estimate_steps, const Array<T>& start);
    /// The extreme Ritz values {theta_min, theta_max} of the estimate of the constructor above
    /// (the same steps from the same start, the same values), without the preconditioner: no
    /// work vectors of apply(), the diagonal read once, and `start` taken over as the first
    /// Lanczos vector instead of copied (multigrid's set-up, which needs only theta_max of each
    /// level). Throws as the constructor above; {0, 0} for an empty operator.
    static std::pair<double, double> ritz_values(const LinearOperator<T>& A, int estimate_steps,
                                                 Array<T> start);
    /// The interval [lambda_min, lambda_max] given (0 < lambda_min < lambda_max, finite; else
    /// BadInput), for the eigenvalues of D^-1 A (of A without a diagonal). Other errors as above.
    Chebyshev(const LinearOperator<T>& A, int degree, double lambda_min, double lambda_max);

    std::size_t size() const override { return n_; }
    const Executor& executor() const override { return A_->executor(); }
    /// z = M^-1 r: `degree` applications of A. Sizes size() (DimensionMismatch); r and z must
    /// not alias. Asynchronous on cuda.
    void apply(const_view<T> r, view<T> z) const override;
    std::string name() const override { return "chebyshev"; }
    bool symmetric() const override { return true; }
    bool fixed() const override { return true; }

    /// Degree of the polynomial (applications of A per apply()).
    int degree() const { return degree_; }
    /// The interval p is built for (lmin and lmax above; both 0 for an empty operator).
    double lambda_min() const { return lmin_; }
    /// Upper end of the interval.
    double lambda_max() const { return lmax_; }
    /// The degree + 1 steps of the Chebyshev iteration over [lambda_min, lambda_max] (Saad,
    /// Alg. 12.1): step k sets d = c1 d + c2 c and z += d, (c1, c2) its entry k, c the scaled
    /// residual (c1 = 0 at step 0). apply() runs them from z = 0; multigrid's smoothing steps
    /// (solver/amg.hpp) from the current iterate.
    static std::vector<std::pair<double, double>> step_coefficients(double lambda_min,
                                                                    double lambda_max, int degree);
    /// The extreme Ritz values of the estimate (0 when the interval was given).
    double ritz_min() const { return ritz_min_; }
    /// Largest Ritz value of the estimate.
    double ritz_max() const { return ritz_max_; }

private:
    void set_up(int degree);
    /// w = B x   (A x, scaled by D^-1 when there is a diagonal)
    void apply_b(const_view<T> x, view<T> w) const;

    const LinearOperator<T>* A_;
    std::size_t n_ = 0;
    int degree_ = 1;
    bool scaled_ = false;  // D^-1 A (A has a diagonal) or A
    Array<T> inv_diag_;    // D^-1 (empty when !scaled_)
    double lmin_ = 0, lmax_ = 0, ritz_min_ = 0, ritz_max_ = 0;
    std::vector<std::pair<double, double>> steps_;  // step_coefficients of the interval
    mutable Array<T> res_, dir_, work_;
};

}  // namespace portla::solver
