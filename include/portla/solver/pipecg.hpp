/// \file
/// Pipelined CG (Ghysels & Vanroose 2014; PETSc's KSPPIPECG) for symmetric positive definite
/// operators: one reduction per iteration, which on a distributed operator is started before the
/// preconditioner and the operator are applied and completed after them (MPI_Iallreduce), so the
/// allreduce hides behind the SpMV. Its extra recurrences (w = A u, z, q, s) drift from the true
/// vectors faster than CG's; residual replacement (Settings::residual_replacement, or every 20
/// iterations when it is 0) recomputes them from x.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by pipelined CG, preconditioned by settings.precond (an SPD one); the same
/// contract as cg() (converged, max_iterations, non_finite, indefinite).
template <typename T>
Result pipecg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result pipecg(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
              view<T> x, const Settings& settings);

}  // namespace portla::solver
