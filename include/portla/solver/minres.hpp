/// \file
/// MINRES for symmetric (possibly indefinite) operators, with a symmetric positive definite
/// preconditioner.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves (A - settings.shift I) x = b by MINRES (Paige and Saunders): the iterate of the
/// Krylov space of M^-1 (A - shift I) whose residual has the least M^-1-norm, by a three-term
/// Lanczos recurrence (one operator application, one preconditioner application and two
/// reductions per iteration; seven vectors). A must be symmetric and M (settings.precond, or the
/// caller's) symmetric positive definite; neither is checked (the CLI and portla.scipy.minres
/// check symmetry). The recurrence's residual estimate is ||r||_{M^-1} (||r|| without M); once
/// it meets the test the true residual b - (A - shift I) x decides, recomputed each iteration
/// until it does. Stops with indefinite when M^-1 is found not positive definite (r.M^-1 r < 0),
/// with breakdown when the Krylov space is invariant and the residual still misses the
/// tolerance. Same contract and errors as cg(); BadInput for a non-finite shift.
template <typename T>
Result minres(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result minres(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
              view<T> x, const Settings& settings);

}  // namespace portla::solver
