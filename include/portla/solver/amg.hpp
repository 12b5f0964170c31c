/// \file
/// Algebraic multigrid by smoothed aggregation (Vanek, Mandel and Brezina, Computing 56, 1996),
/// the default of PETSc's GAMG and PyAMG, as a preconditioner for the monolithic solvers and as
/// a solver on its own. The hierarchy is built where the matrix lives (on cuda without a round
/// trip through the host), by the kernels of every backend:
///
///  1. strength of connection: (i, j) is strong when |a_ij| >= theta sqrt(a_ii a_jj);
///  2. aggregation by a parallel distance-2 maximal independent set of the strong graph (the
///     roots), each other row joining a root within distance 2 (Bell, Dalton and Olson, SIAM J.
///     Sci. Comput. 34(4), 2012); rows without a strong connection join no aggregate;
///  3. the tentative prolongator T (the constant vector on each aggregate) smoothed by one
///     damped Jacobi step: P = (I - omega D^-1 A) T, omega = prolongator_weight / rho(D^-1 A)
///     with rho estimated by Lanczos;
///  4. the Galerkin coarse operator A_c = P^T A P (sparse::transpose and sparse::multiply).
///
/// With AmgSettings::method "classical" the levels come instead from a split into coarse and
/// fine rows: classical strength (j strongly influences i when |a_ij| >= theta max_k |a_ik|),
/// PMIS coarse rows (De Sterck, Yang and Heys, SIAM J. Matrix Anal. Appl. 27(4), 2006) and
/// interpolation from each fine row's strongly influencing coarse rows (AmgSettings::
/// interpolation "direct") or also from those of its strongly influencing fine rows
/// ("extended+i", the default), truncated by value and to a number of entries per row, then the
/// same Galerkin products, smoothers and cycles (docs/multigrid.md). The first
/// AmgSettings::aggressive_levels levels coarsen aggressively: PMIS again on the distance-2
/// graph of the coarse rows, and multipass interpolation.
///
/// Levels are added until one has at most coarse_size rows, max_levels is reached, or the
/// coarsening stalls (a level keeps more than 90% of its rows, or every row is isolated); the
/// last level is solved directly (its dense inverse, from an LU factorisation with partial
/// pivoting on the host at set-up, applied on the device) when it has at most
/// kAmgMaxDenseRows rows, else by smoothing sweeps (AmgInfo::coarse_solver says which).
///
/// A cycle (V or W) from a zero guess: `sweeps` pre-smoothing steps x += M^-1 (b - A x), the
/// residual restricted by P^T, the coarse level's cycle, its correction prolongated by P, the
/// same post-smoothing steps. The smoothers M: damped Jacobi (weight w / rho(D^-1 A), w =
/// AmgSettings::jacobi_weight, 4 / 3 by default), l1-Jacobi (M = diag of the rows' l1 norms,
/// convergent without a weight) and Chebyshev on
/// D^-1 A over [lmax / 11, lmax], lmax = 1.1 times the Lanczos estimate (PETSc's interval).
/// Each is symmetric and the cycle applies the same steps before and after, so the cycle is a
/// symmetric positive definite preconditioner for an SPD matrix (CG may use it). A cycle reads
/// nothing back to the host: on cuda it runs asynchronously like the solvers' steps.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/solver/preconditioner.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// The last level is solved by its dense inverse at or below this many rows.
inline constexpr std::size_t kAmgMaxDenseRows = 1000;

/// The hierarchy as built.
struct AmgInfo {
    /// One level's operator.
    struct Level {
        std::size_t rows = 0;  ///< its rows (and columns)
        std::size_t nnz = 0;   ///< its stored entries
    };
    /// Each level's operator, finest first.
    std::vector<Level> levels;
    /// Sum of the levels' entries over the finest level's.
    double operator_complexity = 0;
    /// Sum of the levels' rows over the finest level's.
    double grid_complexity = 0;
    /// Wall time of the set-up, seconds (device work included).
    double setup_seconds = 0;
    /// Where the set-up's time went, seconds summed over the levels. The set-up waits for the
    /// device at the end of each phase (a few waits per level), so each phase's device work is
    /// counted in that phase.
    struct SetupTimes {
        double checks = 0;       ///< the diagonal's check and the memory estimate
        double spectrum = 0;     ///< the Lanczos estimates of rho(D^-1 A) and the smoothers
        double aggregation = 0;  ///< strength of connection, independent set, aggregates
        double prolongator = 0;  ///< the tentative prolongator T and P = S T
        double transpose = 0;    ///< R = P^T
        double galerkin = 0;     ///< A P and R (A P)
        double coarse = 0;       ///< the last level's solve and the cycle's vectors
    };
    /// The set-up's phases.
    SetupTimes setup_times;
    /// "dense-lu" or "smoother" (the last level's solve).
    std::string coarse_solver;
    /// Why coarsening stopped: "coarse-size", "max-levels", "stalled", "isolated".
    std::string stopped;
    /// The memory floor of one cycle, bytes: every operator application of the cycle reads its
    /// matrix (offsets, columns, values) and its input vector and writes its output vector once
    /// (a level's operator 2 sweeps (degree + 1) times: the smoothing steps' residuals and
    /// Chebyshev's products, less the first step from zero, plus the residual it restricts; R
    /// and P once per visit; the last level's dense inverse once), each level visited once (V)
    /// or twice per visit of the level above (W). The vector updates between them (axpby,
    /// scaling) are not counted: the ratio of a cycle's time to this floor at the device's copy
    /// bandwidth shows what fusing them would gain.
    double cycle_bytes = 0;
    /// Bytes of device memory the hierarchy holds (operators, transfer operators, smoothers and
    /// the cycle's vectors), the finest operator excluded (its float copy included under
    /// mixed precision).
    std::size_t bytes = 0;
    /// The hierarchy and cycle are float under a double matrix (AmgSettings::mixed_precision).
    bool float_hierarchy = false;
};

/// Smoothed aggregation multigrid: z = (one cycle from z = 0) r. Keeps a reference to A, which
/// must outlive it. apply() uses the hierarchy's own vectors: one apply at a time.
template <typename T>
class Amg : public PreconditionerOperator<T> {
public:
    /// Builds the hierarchy of A (square, 32-bit CSR, every diagonal entry stored and positive,
    /// finite values). Throws DimensionMismatch (not square), BadInput (a zero, negative or
    /// missing diagonal entry naming the row; a non-finite value; settings out of range),
    /// Unsupported (64-bit indices), OutOfMemory (the hierarchy's estimate does not fit the
    /// executor's free memory; refused before anything is built).
    Amg(const Csr<T>& A, const AmgSettings& settings = {});
    ~Amg() override;
    std::size_t size() const override;
    const Executor& executor() const override;
    /// z = one cycle from z = 0 for the right-hand side r. r and z must not alias; sizes
    /// size(). Asynchronous on cuda.
    void apply(const_view<T> r, view<T> z) const override;
    std::string name() const override { return "amg"; }
    bool symmetric() const override { return true; }
    bool fixed() const override { return true; }
    /// The hierarchy's levels, complexities and set-up time.
    const AmgInfo& info() const;
    /// The cycle of the applies that follow (V or W; the hierarchy is the same for both), and
    /// AmgInfo::cycle_bytes with it. Not to be called while an apply runs.
    void set_cycle(AmgCycle cycle);
    /// The cycle apply() runs.
    AmgCycle cycle() const;
    /// The operator of level `level` (0: the matrix itself). Throws Unsupported under mixed
    /// precision (the levels are float).
    const Csr<T>& level_operator(std::size_t level) const;
    /// The prolongator from level level + 1 to level `level` (level < levels - 1). Throws
    /// Unsupported under mixed precision.
    const Csr<T>& prolongator(std::size_t level) const;
    /// The aggregate of each row of level `level` (-1: none), read back to the host; with the
    /// classical method each coarse row's number on the next level (-1: a fine row).
    std::vector<std::int32_t> aggregates(std::size_t level) const;

private:
    template <typename>
    friend class Amg;  // the double hierarchy runs its float one's cycle (mixed precision)
    struct Hierarchy;
    std::unique_ptr<Hierarchy> h_;
};

/// The device memory the hierarchy of an n x n matrix with nnz entries is estimated to need
/// (bytes), before it is built, for AmgSettings::method `method` ("sa" or "classical"): Amg
/// refuses a matrix whose estimate exceeds the executor's free memory.
std::size_t amg_memory_estimate(std::size_t n, std::size_t nnz, std::size_t value_size,
                                const std::string& method = "sa");

/// The part of amg_memory_estimate that the built hierarchy keeps (an upper bound of its
/// AmgInfo::bytes): the rest is the set-up's transient arrays.
std::size_t amg_hierarchy_estimate(std::size_t n, std::size_t nnz, std::size_t value_size,
                                   const std::string& method = "sa");

/// Solves A x = b by multigrid cycles alone (x += cycle(b - A x)), stopping as the Krylov solvers
/// do (the true residual against max(rtol ||b||, atol), max_iters cycles). The hierarchy is
/// built from settings.amg.
template <typename T>
Result amg_solve(const Csr<T>& A, const_view<T> b, view<T> x, const Settings& settings);

/// amg_solve by the cycles of a hierarchy built already from A (settings.amg is not read): its
/// set-up apart from the solve, and a hierarchy kept over several solves. M's size must be A's
/// (as any preconditioner's: DimensionMismatch).
template <typename T>
Result amg_solve(const Amg<T>& M, const Csr<T>& A, const_view<T> b, view<T> x,
                 const Settings& settings);

}  // namespace portla::solver
