/// \file
/// LGMRES: restarted GMRES augmented with the corrections of earlier cycles.
#pragma once

#include "portla/array.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// Solves A x = b by LGMRES (Baker, Jessup and Manteuffel): each cycle is flexible GMRES over
/// settings.restart Krylov vectors (SciPy's inner_m) plus the corrections x_c - x_{c-1} of the
/// last settings.lgmres_outer_k cycles (outer_k), which keep the restarts from losing the
/// directions GMRES(m) forgets. Right-preconditioned by settings.precond (any): the residual it
/// minimises is the true one; with settings.left_preconditioning, left (as SciPy's lgmres:
/// ||M^-1 r|| minimised, the true residual still decides). With settings.lgmres_store_outer_av
/// (store_outer_Av) the products A x_c are kept too, saving an operator application per
/// augmentation vector; settings.lgmres_prepend_outer_v puts them before the Krylov vectors.
/// Orthogonalises by modified Gram-Schmidt (j + 1 reductions at step j). Iterations count Arnoldi
/// steps, those of augmentation vectors included; settings.lgmres_max_cycles limits the cycles
/// too. Each cycle ends with the true residual, which alone decides `converged`. Same contract
/// and errors as gmres(); BadInput for restart < 1, outer_k < 0 or max_cycles < 0.
template <typename T>
Result lgmres(const LinearOperator<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// As above with the caller's preconditioner M (settings.precond is ignored).
template <typename T>
Result lgmres(const LinearOperator<T>& A, const PreconditionerOperator<T>& M, const_view<T> b,
              view<T> x, const Settings& settings);

}  // namespace portla::solver
