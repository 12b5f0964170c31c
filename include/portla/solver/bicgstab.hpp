// BiCGSTAB for general (non-symmetric) operators, with right Jacobi preconditioning.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by BiCGSTAB; same contract as cg().
template <typename T>
Result bicgstab(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

}  // namespace portla::solver
