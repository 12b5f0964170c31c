/// \file
/// BiCG (biconjugate gradients) for general square operators, with the transpose A^T.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by BiCG (Fletcher 1976), preconditioned from the left by settings.precond as
/// scipy.sparse.linalg.bicg is: z = M^-1 r and z~ = M^-T r~. Per iteration: one A p, one A^T p~,
/// two preconditioner applies (one M^-1, one M^-T), two dot products and one norm; seven vectors
/// of n stored. Needs A.has_transpose() (Csr with 32-bit indices, a CallbackOperator with its
/// transpose callback) and a preconditioner with M^-T (none, jacobi). The stopping test is on the
/// unpreconditioned residual, confirmed by the true residual, as cg(). Breakdown (|r~.z| below
/// eps^2 or p~.A p = 0, as SciPy) is reported as StopReason::breakdown. Throws as cg() does, and
/// Unsupported when A or M has no transpose.
template <typename T>
Result bicg(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored), which must
/// implement apply_transpose.
template <typename T>
Result bicg(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
            view<T> x, const Settings& settings);

}  // namespace portla::solver
