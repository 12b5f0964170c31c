/// \file
/// Conjugate gradients for symmetric positive definite operators, and for Hermitian positive
/// definite ones of complex values (T = std::complex<float> or std::complex<double>, on the
/// reference, omp and cuda backends; preconditioner none or jacobi; docs/solvers.md "Complex
/// systems").
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by (Jacobi-preconditioned) CG. b and x live in A.executor()'s memory; x is the
/// initial guess when settings.use_initial_guess, and holds the solution on return.
/// Throws DimensionMismatch, BadInput (non-finite b, invalid settings, a preconditioner that
/// cannot be built: Jacobi without a diagonal or with a zero diagonal, a zero pivot), Unsupported
/// (a preconditioner the operator's format cannot provide). Non-convergence is reported in the
/// Result.
/// settings.precond selects the preconditioner (make_preconditioner); it must be symmetric
/// (none, jacobi, block-jacobi, ic0, chebyshev; ilu0 throws BadInput).
template <typename T>
Result cg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored); M must be
/// symmetric positive definite and live on A's executor.
template <typename T>
Result cg(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
          view<T> x, const Settings& settings);

}  // namespace portla::solver
