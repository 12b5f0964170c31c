// Conjugate gradients for symmetric positive definite operators.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by (Jacobi-preconditioned) CG. b and x live in A.executor()'s memory; x is the
/// initial guess when settings.use_initial_guess, and holds the solution on return.
/// Throws DimensionMismatch, BadInput (non-finite b, invalid settings, Jacobi without a
/// diagonal or with a zero diagonal). Non-convergence is reported in the Result.
template <typename T>
Result cg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

}  // namespace portla::solver
