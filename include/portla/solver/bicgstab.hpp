/// \file
/// BiCGSTAB for general (non-symmetric) operators, with right preconditioning. T may be complex
/// (std::complex<float>, std::complex<double>) on the reference, omp, cuda and opencl backends,
/// with preconditioner none, jacobi or the caller's (docs/solvers.md "Complex systems").
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by BiCGSTAB, right-preconditioned by settings.precond (any); same contract as
/// cg().
template <typename T>
Result bicgstab(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result bicgstab(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
                view<T> x, const Settings& settings);

}  // namespace portla::solver
