/// \file
/// Incomplete factorizations with zero fill: ILU(0) and IC(0) preconditioners for the monolithic
/// Krylov solvers, applied by two sparse triangular solves.
///
/// Set-up (the constructor, blocking): the factorization is computed once, on the host, in double
/// precision, from a host copy of the matrix, on A's own sparsity pattern (no fill). The factors
/// are rounded to T, stored as CSR on A's executor, together with a level schedule of each
/// triangular factor (the rows of level k depend only on rows of levels < k). apply() runs the
/// two triangular solves on A's executor.
///
/// apply() writes a work vector owned by the object: it is not thread-safe on one object (use
/// one preconditioner per thread); distinct objects are independent.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/solver/preconditioner.hpp"

namespace portla::solver {

/// How the triangular solves of apply() run.
enum class TriangularSolver {
    /// What measurement picks per backend: `levels` everywhere until a measurement of
    /// `portla bench --kernel ilu0-apply` (levels vs vendor) on a GPU says otherwise.
    automatic,
    /// portla's own level-scheduled kernels (every backend; sequential substitution on
    /// reference).
    levels,
    /// The vendor library's sparse triangular solve: cuSPARSE SpSV on cuda (analysis once, at
    /// set-up). Throws Unsupported on backends without one (reference, omp, opencl).
    vendor,
};

/// "automatic", "levels", "vendor".
std::string to_string(TriangularSolver how);
/// The inverse of to_string. Throws BadInput for any other name.
TriangularSolver triangular_solver_from_string(const std::string& name);

namespace detail {
template <typename T>
struct TriangularPair;
}  // namespace detail

/// What ILU(0) and IC(0) share: a lower factor L and an upper factor U on the executor, applied
/// as z = U^-1 (L^-1 r) by one triangular solver (levels or the vendor's). The factors are built
/// by the derived class's constructor.
template <typename T>
class TriangularFactors : public PreconditionerOperator<T> {
public:
    ~TriangularFactors() override;
    /// Takes over other's factors.
    TriangularFactors(TriangularFactors&&) noexcept;
    /// Takes over other's factors.
    TriangularFactors& operator=(TriangularFactors&&) noexcept;

    std::size_t size() const override;
    const Executor& executor() const override;
    /// z = U^-1 (L^-1 r). r and z of size(), must not alias (DimensionMismatch on a size).
    /// Asynchronous on cuda. Not thread-safe on one object (a work vector of the object).
    void apply(const_view<T> r, view<T> z) const override;

    /// The solver apply() uses (automatic resolved).
    TriangularSolver triangular_solver() const;
    /// L and U on the executor, sorted columns (what each holds: see Ilu0 and Ic0).
    const Csr<T>& lower() const;
    /// U on the executor (see lower()).
    const Csr<T>& upper() const;
    /// Levels of the level schedules of L and U.
    std::size_t lower_levels() const;
    /// Levels of U's level schedule.
    std::size_t upper_levels() const;

protected:
    TriangularFactors();
    /// L, U and their triangular solvers, set by the derived class's constructor.
    std::unique_ptr<detail::TriangularPair<T>> factors_;
};

/// ILU(0): M = L U with L unit lower triangular and U upper triangular, both on the sparsity
/// pattern of A (l_ij, u_ij nonzero only where a_ij is stored), such that (L U)_ij = a_ij on
/// that pattern. z = M^-1 r = U^-1 (L^-1 r).
///
/// Requirements, checked at construction: A square (DimensionMismatch), every value finite and
/// every row with its diagonal stored (BadInput "ilu0: row N has no diagonal entry", rows
/// 1-based), and every pivot u_ii finite with |u_ii| > 1e-14 max_j |a_ij| over row i of A
/// (BadInput "ilu0: zero pivot at row N ..."): a pivot within ~45 eps of the row's scale cannot
/// be told apart from the rounding of its own elimination, so the factor would be noise. The
/// column indices of A need not be sorted; duplicates are summed.
/// lower(): L without its unit diagonal (strictly lower part); upper(): U with its diagonal (the
/// first entry of each row).
template <typename T>
class Ilu0 : public TriangularFactors<T> {
public:
    /// Factorizes A (blocking). Throws as listed above, Unsupported for `vendor` on a backend
    /// without a vendor sparse triangular solve or for A with 64-bit indices (Csr::index()),
    /// DeviceError/OutOfMemory from the backend.
    explicit Ilu0(const Csr<T>& A, TriangularSolver how = TriangularSolver::automatic);

    std::string name() const override { return "ilu0"; }
    bool symmetric() const override { return false; }
};

/// IC(0), incomplete Cholesky: M = L L^T with L lower triangular (positive diagonal) on the
/// pattern of the lower triangle of A (j <= i). A must be symmetric: only its lower triangle is
/// read (the upper triangle is ignored, not checked). z = M^-1 r = L^-T (L^-1 r); L^T is stored
/// explicitly as an upper CSR for the backward solve.
///
/// Breakdown: IC(0) of an SPD matrix can meet a pivot d_i = a_ii - sum_k l_ik^2 that is not
/// positive (or not finite). Then the factorization restarts on A + alpha diag(A) (Manteuffel's
/// diagonal shift, as in PETSc and others), alpha = 1e-3, doubled at each failure up to 1 at
/// most (1e-3, 2e-3, ..., 0.512, 1); shift() reports the alpha used (0 when none was needed).
/// A pivot counts as non-positive when d_i <= 1e-14 a_ii (shifted): the same floor as ILU(0).
///
/// Requirements, checked at construction: A square (DimensionMismatch), every value of the
/// lower triangle finite, every row with its diagonal stored (BadInput "ic0: row N has no
/// diagonal entry") and positive (BadInput "ic0: diagonal entry at row N is not positive"), a
/// factorization at the largest shift (BadInput "ic0: non-positive pivot at row N even with
/// shift 1 ..."). Rows are 1-based in messages.
/// lower(): L with its diagonal (the last entry of each row); upper(): L^T (diagonal first).
template <typename T>
class Ic0 : public TriangularFactors<T> {
public:
    /// Factorizes A (blocking). Throws as listed above, Unsupported for `vendor` on a backend
    /// without a vendor sparse triangular solve or for A with 64-bit indices (Csr::index()),
    /// DeviceError/OutOfMemory from the backend.
    explicit Ic0(const Csr<T>& A, TriangularSolver how = TriangularSolver::automatic);

    std::string name() const override { return "ic0"; }
    bool symmetric() const override { return true; }
    /// The diagonal shift alpha of the factorization (M = L L^T ~ A + alpha diag(A)); 0 when
    /// IC(0) of A itself succeeded.
    double shift() const { return shift_; }

private:
    double shift_ = 0;
};

}  // namespace portla::solver
