/// \file
/// Conjugate gradients squared (CGS) for general operators, with right preconditioning.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by CGS (Sonneveld), right-preconditioned by settings.precond (any): two
/// operator and two preconditioner applications and two reductions (plus the residual norm)
/// per iteration, no A^T; the residual may grow on the way (no smoothing). A breakdown
/// (r~.r = 0 or r~.A p = 0) restarts once from the true residual as the shadow vector; a
/// second before an iteration completes stops with breakdown. Same contract and errors as cg().
template <typename T>
Result cgs(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result cgs(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
           view<T> x, const Settings& settings);

}  // namespace portla::solver
