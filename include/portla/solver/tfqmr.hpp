/// \file
/// Transpose-free QMR (TFQMR) for general operators, with right preconditioning.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by TFQMR (Freund), right-preconditioned by settings.precond (any): the
/// quasi-minimal residual smoothing of CGS, no A^T. An iteration is a half step (one operator
/// and one preconditioner application), as SciPy counts. Its estimate tau sqrt(m + 1) bounds
/// the residual norm; once it meets the test the true residual decides, recomputed each
/// iteration until it does. Stops with breakdown when r~.v or r~.w vanishes (unless the true
/// residual meets the test). Same contract and errors as cg().
template <typename T>
Result tfqmr(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result tfqmr(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
             view<T> x, const Settings& settings);

}  // namespace portla::solver
