/// \file
/// GCROT(m,k): flexible GMRES cycles kept orthogonal to the best directions of earlier cycles.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by GCROT(m,k) (Hicken and Zingg; SciPy's gcrotmk): each cycle is flexible
/// GMRES of settings.gcrot_m steps (plus one per missing pair while fewer than k are kept) on
/// (I - C C^T) A, and ends by keeping the pair (c, u), A u = c, ||c|| = 1, of the cycle's
/// correction; at most settings.gcrot_k pairs (-1: gcrot_m) are kept, the oldest dropped, or
/// with settings.gcrot_truncate_smallest the directions of the smallest singular values of the
/// cycle's projection onto C. Right-preconditioned by settings.precond (any): the residual it
/// minimises is the true one. Orthogonalises by modified Gram-Schmidt (k_c + j + 1 reductions at
/// step j, k_c pairs kept). Iterations count Arnoldi steps; settings.gcrot_max_cycles limits
/// the cycles too. The true residual alone decides `converged`. Same contract and errors as
/// gmres(); BadInput for gcrot_m < 1, gcrot_k < -1 or gcrot_max_cycles < 0.
template <typename T>
Result gcrotmk(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result gcrotmk(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
               view<T> x, const Settings& settings);

}  // namespace portla::solver
