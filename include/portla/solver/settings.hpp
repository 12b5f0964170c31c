/// \file
/// Settings and results shared by the iterative solvers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "portla/solver/types.hpp"

namespace portla::solver {

/// Settings of smoothed aggregation multigrid (solver/amg.hpp): Preconditioner::amg and
/// amg_solve.
struct AmgSettings {
    /// "sa", smoothed aggregation, or "classical" (PMIS coarse rows, classical interpolation).
    std::string method = "sa";
    /// Strength threshold theta >= 0 of the finest level. sa: (i, j) is strong when
    /// |a_ij| >= theta sqrt(a_ii a_jj); the default 0.08 keeps the connections across jumps of
    /// the coefficients and anisotropies apart (0, PyAMG's and PETSc GAMG's default, keeps
    /// every connection). classical: j strongly influences i when |a_ij| >= theta
    /// max_{k != i} |a_ik| on every level; give it 0.25 (hypre's and PyAMG's default for
    /// classical AMG; `portla solve --amg-method classical` does).
    double strength_threshold = 0.08;
    /// sa: the threshold of every level below the finest. The coarse operators hold many small
    /// entries (the smoothed prolongator's fill) that are not strong connections; 0.02 keeps
    /// the operator complexity near the all-strong hierarchy's (docs/multigrid.md has the
    /// measurements). Not read by the classical method.
    double coarse_strength_threshold = 0.02;
    /// classical: the split into coarse and fine rows. "pmis": PMIS's parallel rounds (De
    /// Sterck, Yang and Heys, 2006). "hmis": Ruge and Stueben's first pass on each block of 256
    /// consecutive rows (each block sequential, the blocks in parallel), then PMIS rounds for
    /// the rows left undecided (the same paper's HMIS, with blocks of rows for processes).
    std::string coarsening = "pmis";
    /// classical: the interpolation of a fine row. "direct": from its strongly influencing
    /// coarse rows (classical modified interpolation). "extended+i": also from the strongly
    /// influencing coarse rows of its strongly influencing fine rows (De Sterck, Falgout,
    /// Nolting and Yang, Numer. Linear Algebra Appl. 15, 2008; hypre's interp_type 6).
    std::string interpolation = "extended+i";
    /// classical: truncation of the interpolation by value; each row drops its weights below
    /// trunc_factor times its largest |w| and is rescaled to keep its sum (0 <= f < 1; 0 drops
    /// none, hypre's default).
    double trunc_factor = 0;
    /// classical: the most weights each row of the interpolation keeps, its largest (0: all;
    /// hypre's default for extended+i, 4), rescaled as above.
    int interp_max_entries = 4;
    /// classical: the number of finest levels that coarsen aggressively (hypre BoomerAMG's
    /// agg_num_levels; 0: none). Such a level splits twice: the coarsening's coarse rows are
    /// split again by PMIS on the graph that joins two of them when a path of at most two strong
    /// connections does, and its fine rows interpolate from what remains by
    /// `aggressive_interpolation`, whatever `interpolation` says; truncated as below.
    /// It keeps a fifth to a quarter of one split's coarse rows (18-27% on the 3-D test
    /// problems): a smaller hierarchy and a shorter set-up for more iterations
    /// (docs/multigrid.md). Only with method "classical" (0 to 40).
    int aggressive_levels = 0;
    /// classical, the aggressive levels' interpolation. "multipass" (Stueben's, hypre
    /// BoomerAMG's agg_interp_type 4): each fine row through the rows nearer the coarse rows.
    /// "multipass-jacobi": then one Jacobi step on its fine rows, P <- (I - D^-1 A) P (Stueben's
    /// Jacobi interpolation), before the truncation: about a third fewer iterations for a larger
    /// hierarchy and a longer set-up (docs/multigrid.md).
    std::string aggressive_interpolation = "multipass";
    /// The smoother of every level but the last.
    AmgSmoother smoother = AmgSmoother::chebyshev;
    /// Pre- and post-smoothing steps per level (1 ... 16).
    int sweeps = 1;
    /// Chebyshev smoother: degree of its polynomial p in x += p(D^-1 A) D^-1 (b - A x) (1 ... 8),
    /// degree + 1 operator applications a sweep. 1, two applications (PETSc's multigrid default of
    /// two Chebyshev iterations), gave shorter solves than 2 on every problem measured
    /// (docs/multigrid.md).
    int chebyshev_degree = 1;
    /// V or W cycle.
    AmgCycle cycle = AmgCycle::v;
    /// Levels at most, the finest included (1 ... 40).
    int max_levels = 25;
    /// A level of at most this many rows is the last one (>= 1).
    int coarse_size = 100;
    /// The prolongator smoother's weight over rho(D^-1 A) (0 < w < 2; PyAMG's 4/3).
    double prolongator_weight = 4.0 / 3.0;
    /// The damped Jacobi smoother's weight over rho(D^-1 A): x += w / rho D^-1 (b - A x)
    /// (0 < w < 2, convergent for a symmetric positive definite matrix; PyAMG's jacobi takes
    /// omega 1 by default).
    double jacobi_weight = 4.0 / 3.0;
    /// For a double matrix: the hierarchy and its cycle in float (hypre's and AmgX's mixed
    /// precision), about two thirds of the cycle's bytes; the Krylov solver around it stays in
    /// double with its true-residual stopping rule. Ignored for a float matrix.
    bool mixed_precision = false;
};

/// Vectors an LGMRES or GCROT(m,k) solve starts from and replaces by its own at the end, to
/// recycle them between solves (SciPy's outer_v and CU), on the host in double, oldest first.
struct KeptVectors {
    /// LGMRES: the augmentation vectors z (a kept correction dx / ||dx||). GCROT(m,k): the u of
    /// each pair.
    std::vector<std::vector<double>> first;
    /// Beside each of `first` (missing or empty: not given): LGMRES, A z (M^-1 A z with left
    /// preconditioning), applied when not given; GCROT(m,k), c = A u, computed when not given.
    std::vector<std::vector<double>> second;
};

/// Settings of the monolithic solvers (cg, bicgstab, gmres, pipecg). A solve stops when the true
/// residual ||b - A x|| <= max(rtol ||b||, atol), at max_iters, or on breakdown.
struct Settings {
    double rtol = 1e-8;  ///< relative to ||b||
    double atol = 0.0;   ///< absolute
    /// Iteration limit (operator applications for GMRES).
    int max_iters = 1000;
    /// Recompute r = b - A x every this many iterations (0: never). Off by default: on the
    /// SuiteSparse set, replacing every 50 iterations cost CG 144 iterations instead of 131 on
    /// bcsstk01 (SciPy: 130) and BiCGSTAB 4709 instead of 2440 on 1138_bus (SciPy: 3494; omp,
    /// 2-core VM, 2026-11-23); the true
    /// residual confirms every convergence either way. The classical-CG benchmarks set 50.
    int residual_replacement = 0;
    /// CG: p.Ap <= 0 (A not positive definite) stops the solve as `indefinite` (default). false:
    /// CG goes on where p.Ap < 0, as SciPy's cg does (its iterates stay defined, and on a
    /// symmetric indefinite A they often still converge); only p.Ap = 0 stops it (`breakdown`).
    bool cg_indefinite_stops = true;
    /// The preconditioner make_preconditioner builds (ignored by the overloads that take one).
    Preconditioner precond = Preconditioner::none;
    /// GMRES: Krylov vectors per cycle (restart length), >= 1.
    int restart = 30;
    /// GMRES: the side of the preconditioner. right (default): the Krylov space of A M^-1, whose
    /// residual is the true one. left: of M^-1 A, minimising ||M^-1 r|| as SciPy's gmres and
    /// PETSc's default do (better on badly scaled rows: 685_bus with Jacobi converges in 607
    /// iterations left, not in 20000 right); convergence is still decided by the true residual.
    bool left_preconditioning = false;
    /// GMRES: flexible (keeps the preconditioned vectors; for preconditioners that change between
    /// iterations). Chosen by itself when the preconditioner says it is not fixed.
    bool flexible = false;
    /// MINRES: solve (A - shift I) x = b (SciPy's minres shift), finite.
    double shift = 0.0;
    /// LGMRES: augmentation vectors, the corrections of the last this many cycles (>= 0;
    /// SciPy's outer_k). Its Krylov vectors per cycle are `restart` (SciPy's inner_m).
    int lgmres_outer_k = 3;
    /// LGMRES: keep A times each augmentation vector (one operator application fewer per
    /// vector and cycle, one vector more stored each; SciPy's store_outer_Av).
    bool lgmres_store_outer_av = true;
    /// LGMRES: the augmentation vectors before the Krylov vectors in each cycle, not after
    /// (SciPy's prepend_outer_v).
    bool lgmres_prepend_outer_v = false;
    /// LGMRES: stop after this many cycles too (0: no such limit; SciPy's maxiter counts them).
    int lgmres_max_cycles = 0;
    /// GCROT(m,k): inner flexible GMRES steps per cycle (>= 1; SciPy's m).
    int gcrot_m = 20;
    /// GCROT(m,k): (c, u) pairs kept between cycles (>= 0, or -1 for gcrot_m; SciPy's k). While
    /// fewer are kept, each cycle takes as many more inner steps.
    int gcrot_k = -1;
    /// GCROT(m,k): when gcrot_k pairs are kept, drop the directions of the smallest singular
    /// values of the cycle's projection instead of the oldest pair (SciPy's truncate).
    bool gcrot_truncate_smallest = false;
    /// GCROT(m,k): stop after this many cycles too (0: no such limit; SciPy's maxiter).
    int gcrot_max_cycles = 0;
    /// LGMRES and GCROT(m,k): vectors kept between solves (nullptr: none). The solve starts
    /// with them (LGMRES: as augmentation vectors, all of them in its first cycles; GCROT(m,k):
    /// as pairs, the newest max(k, 1), with c = A u orthonormalised, U alike, and x and r
    /// corrected along them) and leaves its own there at the end. Their sizes must be A's
    /// (BadInput).
    KeptVectors* kept = nullptr;
    /// block_jacobi: rows per diagonal block (1 ... 32).
    int block_size = 4;
    /// chebyshev: degree of the polynomial (operator applications per preconditioner apply), >= 1.
    int chebyshev_degree = 4;
    /// amg: the hierarchy and its cycle.
    AmgSettings amg;
    /// ilut: drop tolerance tau >= 0, relative to each row's mean |a_ij| (solver/ilu.hpp).
    double ilut_drop_tolerance = 1e-4;
    /// ilut: entries each row of L and of U may hold beyond A's own in that triangle (>= 0).
    int ilut_fill = 10;
    /// ilut: partial pivoting by columns within each row (ILUTP).
    bool ilut_pivoting = false;
    /// ilut: factor Q A Q^T, Q the reverse Cuthill-McKee ordering of A + A^T (fewer entries
    /// dropped where A's graph is banded after it; docs/real-matrices.md has where it pays).
    bool ilut_rcm = false;
    /// ilut: permute the rows first so that the product of the diagonal's |entries| is largest
    /// (static pivoting; for matrices with zero or small diagonal entries).
    bool ilut_matching = false;
    /// iluk: the level of fill k >= 0 (0 is ILU(0)'s pattern).
    int iluk_level = 1;
    /// Use x as the initial guess; otherwise x is set to zero first.
    bool use_initial_guess = false;
    /// Fill Result::history with the recurrence residual norm of every iteration.
    bool record_history = false;
    /// CG: fuse the operator into the solver's steps where the operator allows it (stencil,
    /// CSR) and read the state back every 16 iterations, replayed as a CUDA graph on cuda.
    /// false: the steps call the operator's apply() and the state is read every iteration.
    bool device_loop = true;
    /// Called with (iteration, recurrence residual norm) after each iteration and once at 0.
    std::function<void(int, double)> monitor;
    /// CG, pipelined CG and BiCGSTAB: called with the iteration i >= 1 after each iteration, when x
    /// (the solve's own x) holds iterate i, before the stopping test; the hook reads x itself
    /// (SciPy's callback(xk)). Set, it makes CG read its state back every iteration (no
    /// 16-iteration device loop); unset, it costs nothing. GMRES, which forms x only at the end
    /// of a restart cycle, calls it there (with the iterations done so far), every cycle.
    std::function<void(int)> iterate_monitor;
    /// GMRES: called with (iteration i >= 1, the residual norm the cycle minimises) after each
    /// Arnoldi step: with left preconditioning the estimate of ||M^-1 (b - A x_i)|| (what
    /// SciPy's gmres reports, over ||b||), otherwise of ||b - A x_i||. monitor gets the true
    /// residual's estimate in both cases.
    std::function<void(int, double)> minimised_residual_monitor;
};

/// `converged` is only reported when the true residual ||b - A x||, recomputed, meets the test:
/// when the recurrence residual meets it but the true one does not, the solver replaces the
/// recurrence residual by the true one and goes on. A solve never stops early while it runs:
/// it ends converged, at max_iters, or on breakdown, non_finite or indefinite.
struct Result {
    /// Whether the true residual met the test (reason == converged).
    bool converged = false;
    /// Why the solve stopped.
    StopReason reason = StopReason::max_iterations;
    /// Iterations done (GMRES: Arnoldi steps).
    int iterations = 0;
    /// Cycles begun (LGMRES, GCROT(m,k): each ends with the true residual); 0 for the others.
    int cycles = 0;
    double residual_norm = 0.0;  ///< true ||b - A x|| at the end, recomputed
    double rhs_norm = 0.0;       ///< ||b||
    /// Recurrence residual norm per iteration (entry 0: the initial residual), on request.
    std::vector<double> history;
    /// residual_norm / rhs_norm (residual_norm when b = 0).
    double relative_residual() const {
        return rhs_norm > 0 ? residual_norm / rhs_norm : residual_norm;
    }
};

}  // namespace portla::solver
