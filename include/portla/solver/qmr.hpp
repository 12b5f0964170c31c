/// \file
/// QMR (quasi-minimal residual, Freund & Nachtigal 1991) for general square operators, with the
/// transpose A^T and split preconditioning.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by QMR with the look-ahead-free two-sided Lanczos recurrence of
/// scipy.sparse.linalg.qmr, split-preconditioned M1^-1 A M2^-1 with M1 the preconditioner
/// settings.precond names and M2 = I. Per iteration: one A p, one A^T q, M1^-1, M1^-T, M2^-1 and
/// M2^-T once each, two dot products and three norms; ten vectors of n stored (two more with a
/// preconditioner). Needs A.has_transpose() and preconditioners with M^-T (none, jacobi). The
/// stopping test is on the unpreconditioned residual, confirmed by the true residual, as cg().
/// A Lanczos scalar below eps (rho, xi, delta, epsilon, beta, gamma; SciPy's tests) is
/// StopReason::breakdown. Throws as cg() does, and Unsupported when A or M has no transpose.
template <typename T>
Result qmr(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's left preconditioner M1 = M (settings.precond is ignored), M2 = I.
template <typename T>
Result qmr(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
           view<T> x, const Settings& settings);

/// As above with the caller's split preconditioners M1 (left) and M2 (right), either nullptr for
/// the identity (settings.precond is ignored); both must implement apply_transpose.
template <typename T>
Result qmr(const LinearOperator<T>& A, const PreconditionerOperator<T>* M1,
           const PreconditionerOperator<T>* M2, const_view<T> b, view<T> x,
           const Settings& settings);

}  // namespace portla::solver
