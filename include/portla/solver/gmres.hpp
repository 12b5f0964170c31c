/// \file
/// Restarted GMRES(m) for general operators, with right preconditioning (flexible on request).
/// T may be complex (std::complex<float>, std::complex<double>) on the reference, omp, cuda and
/// opencl backends: projections V^H w, complex Givens rotations; preconditioner none, jacobi or the
/// caller's (docs/solvers.md "Complex systems").
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by GMRES(settings.restart), right-preconditioned by settings.precond: the
/// Krylov space of A M^-1, so the residual it minimises and reports is the true one of A x = b.
/// The basis is orthogonalised by classical Gram-Schmidt applied twice (CGS2), over the basis
/// held as one block: two basis passes and one norm per pass, one read-back per iteration.
/// Flexible GMRES (settings.flexible, or a preconditioner that is not fixed()) keeps the
/// preconditioned vectors, so M may change between iterations. Iterations count Arnoldi steps
/// (operator applications). Each cycle ends with the true residual b - A x, which alone decides
/// `converged`. Stops with breakdown when the Krylov space is invariant (the Arnoldi vector
/// vanishes) but the residual still misses the tolerance (A or M singular). Same contract and
/// errors as cg(); BadInput for restart < 1.
template <typename T>
Result gmres(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result gmres(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
             view<T> x, const Settings& settings);

}  // namespace portla::solver
