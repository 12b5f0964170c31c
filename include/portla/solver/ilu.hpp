/// \file
/// Incomplete factorizations: ILU(0) and IC(0) (zero fill), ILUT (threshold dropping, optional
/// column pivoting) and ILU(k) (level of fill) preconditioners for the monolithic Krylov
/// solvers, applied by two sparse triangular solves.
///
/// Set-up (the constructor, blocking): the factorization is computed once, on the host, in double
/// precision (ILU(0) of complex values: in complex double), from a host copy of the matrix. The
/// factors are rounded to T, stored as CSR on A's executor, together with a level schedule of each
/// triangular factor (the rows of level k depend only on rows of levels < k). apply() runs the two
/// triangular solves on A's executor (and, after column pivoting, one gather of the result).
///
/// Every factorization diagnoses itself at set-up (diagnosis()): the growth of its factors and
/// a probe of M^-1 A on a random vector, both in double on the host. A factor found unstable
/// still preconditions (nothing throws): unstable() is true, diagnosis().advice says why and
/// what to try, and a solve that then fails to converge reports
/// StopReason::unstable_preconditioner.
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

/// What the set-up of an incomplete factorization measured, in double on the host.
///
/// growth = max |entry of L or U| / max |a_ij| (L's implied unit diagonal not counted);
/// min_pivot = min |u_ii| (IC(0): min l_ii); probe = ||M^-1 A v - v|| / ||v|| for one
/// pseudo-random v (entries uniform in [-1, 1], fixed seed, so set-up is reproducible). A
/// factor is unstable when growth > kUnstableGrowth, or the probe is not finite or above
/// kProbeLimit: M^-1 then maps A v further from v than kProbeLimit times v's own length, i.e.
/// M^-1 A is far from the identity in a direction a Krylov method cannot avoid.
struct FactorDiagnosis {
    double max_matrix_entry = 0;  ///< max |a_ij| over A
    double max_factor_entry = 0;  ///< max |l_ij|, |u_ij| over the stored factors
    double growth = 0;            ///< max_factor_entry / max_matrix_entry
    double min_pivot = 0;         ///< min |u_ii|
    double probe = 0;             ///< ||M^-1 A v - v|| / ||v||
    bool stable = true;           ///< growth and probe within their limits
    /// Empty when stable; otherwise one line: what was found and the remedies (pivoting, a
    /// diagonal shift, a larger drop tolerance or fill), without a trailing newline.
    std::string advice;
};

/// FactorDiagnosis: growth above this marks a factor unstable.
inline constexpr double kUnstableGrowth = 1e6;
/// FactorDiagnosis: a probe above this (or not finite) marks a factor unstable. M^-1 A v then
/// misses v by 1e7 times v's length, so in single precision (eps 6e-8) the rounding of a
/// preconditioned vector is as large as the vector itself. A factor with a few tiny pivots can
/// probe high and still precondition in double: ILUT(1e-4, 10) with pivoting probes 1.4e3 on
/// mahindas and 1e5 with matching and RCM, both converging; ILU(0) of bcsstk09, which BiCGSTAB
/// and GMRES do not converge with, probes 3e13 (docs/real-matrices.md).
inline constexpr double kProbeLimit = 1e7;

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
    /// Growth and probe of the factors, measured at set-up.
    const FactorDiagnosis& diagnosis() const;
    /// !diagnosis().stable
    bool unstable() const override;

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
/// first entry of each row). T may be complex (`std::complex<float>`, `std::complex<double>`): the
/// same elimination in complex arithmetic, |.| the modulus in the pivot test.
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

/// ILUT(tau, p), Saad's threshold ILU, with optional partial pivoting by columns (ILUTP), an
/// optional row permutation by matching (static pivoting) and an optional reverse Cuthill-McKee
/// ordering: M = R^T Q^T L U P^T Q with L unit lower triangular, U upper triangular, P a column
/// permutation (the identity without pivoting), Q the symmetric reverse Cuthill-McKee
/// permutation of the graph of R A + (R A)^T (the identity without `rcm`), and R the row
/// permutation that maximises the product of the diagonal's |entries| (MC64's objective, a
/// minimum-cost matching: a nonzero on every diagonal position, the largest it can be; the
/// identity without `matching`): z = M^-1 r = Q^T P U^-1 L^-1 Q R r, the permutations applied
/// as gathers on the executor.
///
/// Row by row (the IKJ form), in double: row i of A is eliminated by the rows k < i of U in
/// increasing k; a multiplier l_ik with |l_ik| <= tau_i is dropped (row k is not subtracted), as
/// is every entry of the resulting row below tau_i, except the diagonal; tau_i = tau times the
/// mean |a_ij| of row i of A. Of what remains, row i of L keeps its largest nnz_L(i) + p entries
/// and row i of U its diagonal and largest nnz_U(i) + p off-diagonal entries, nnz_L(i) and
/// nnz_U(i) being the entries of A's row i left of and right of the diagonal. With pivoting,
/// before dropping, the column of the largest |u_ij| s_j (j >= i, in the current column order)
/// becomes column i when |u_ii| s_i < 0.1 max_j |u_ij| s_j (SuperLU's default pivot threshold),
/// so a row whose diagonal is missing or small still gets a pivot; s_j = 1 / max_k |a_kj| (of
/// the matrix factored, after matching and ordering) compares entries of different columns in
/// their columns' units, so that the choice does not depend on how A's columns are scaled.
///
/// A multiplier is dropped when |l_ik u_kk| <= tau_i (its size in A's units). A pivot with
/// |u_ii| <= 1e-14 max_j |a_ij| (a row that dropping left dependent on the rows above, or
/// without pivoting a row with no diagonal) is replaced by (1e-4 + tau) times the row's mean
/// |a_ij| (Saad's rule; replaced_pivots() counts them) and left to the diagnosis to judge.
///
/// Requirements, checked at construction: A square (DimensionMismatch), tau >= 0 and finite,
/// p >= 0 (BadInput "ilut: drop tolerance ..." / "ilut: fill ..."), every value finite, no
/// empty row (BadInput "ilut: row N is empty (A is structurally singular)"), every pivot
/// finite; with `matching`, a perfect matching (BadInput "ilut: A is structurally singular
/// ..."). Rows are 1-based in messages (of A, or of the permuted matrix). lower(): L without
/// its unit diagonal; upper(): U, diagonal first, both in the permuted order.
template <typename T>
class Ilut : public TriangularFactors<T> {
public:
    /// Factorizes A (blocking) with drop tolerance `drop_tolerance` (tau) and `fill` (p)
    /// entries per row of L and of U beyond A's own, pivoting by columns when `pivoting`, after
    /// a reverse Cuthill-McKee ordering when `rcm` and a row permutation by matching when
    /// `matching` (both described above).
    /// Throws as listed above, Unsupported for `vendor` on a backend without a vendor sparse
    /// triangular solve or for A with 64-bit indices, DeviceError/OutOfMemory from the backend.
    Ilut(const Csr<T>& A, double drop_tolerance, int fill, bool pivoting, bool rcm = false,
         bool matching = false, TriangularSolver how = TriangularSolver::automatic);

    std::string name() const override { return "ilut"; }
    bool symmetric() const override { return false; }
    /// Columns interchanged by pivoting (0 without pivoting).
    std::size_t interchanges() const { return interchanges_; }
    /// Zero pivots replaced (see above).
    std::size_t replaced_pivots() const { return replaced_pivots_; }

private:
    std::size_t interchanges_ = 0;
    std::size_t replaced_pivots_ = 0;
};

/// ILU(k), ILU with level of fill k: ILU(0)'s elimination (see Ilu0) on the pattern of the
/// entries whose level is at most k, where a_ij's entries have level 0 and a fill entry
/// created at (i, j) through row m has level lev(i, m) + lev(m, j) + 1 (the smallest over the
/// paths that create it). k = 0 is ILU(0). z = M^-1 r = U^-1 (L^-1 r).
///
/// Requirements, checked at construction: k >= 0 (BadInput "iluk: level ..."), and those of
/// Ilu0 (with "iluk:" in the messages): A square, every value finite, every diagonal stored,
/// no zero pivot. lower(): L without its unit diagonal; upper(): U, diagonal first.
template <typename T>
class Iluk : public TriangularFactors<T> {
public:
    /// Factorizes A (blocking) with level of fill `level`. Throws as listed above, Unsupported
    /// for `vendor` on a backend without a vendor sparse triangular solve or for A with 64-bit
    /// indices, DeviceError/OutOfMemory from the backend.
    Iluk(const Csr<T>& A, int level, TriangularSolver how = TriangularSolver::automatic);

    std::string name() const override { return "iluk"; }
    bool symmetric() const override { return false; }
};

}  // namespace portla::solver
