/// \file
/// The names shared by every solver: the monolithic ones (solver::cg, solver::bicgstab), the
/// batched ones (batch::solve) and the command-line tool. One enum per concept; the names as on
/// the command line come from to_string / parse_* (src/core/settings.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

/// The monolithic iterative solvers (cg, bicgstab, gmres, pipecg), their settings, results and
/// preconditioners.
namespace portla::solver {

/// Why a solve (or one system of a batch) stopped. The underlying type is what device code
/// stores per system.
enum class StopReason : std::uint8_t {
    converged,       ///< ||r|| <= max(rtol ||b||, atol) (recomputed true residual)
    max_iterations,  ///< the iteration limit was reached first
    breakdown,       ///< a recurrence scalar became zero (rho = 0, omega = 0, r_hat.v = 0; in the
                     ///< batched CG also p.Ap <= 0; a zero pivot in the batched direct solve)
    non_finite,      ///< a NaN or Inf appeared (in the system, its right-hand side or the
                     ///< iterates; see singular_preconditioner)
    indefinite,      ///< CG found p.Ap <= 0: the operator (or preconditioner) is not SPD
    stagnation,      ///< batched solvers only: the recurrence residual met the test, the true
                     ///< one did not, over several restarts from the true residual (the
                     ///< tolerance is below what the precision attains). The monolithic solvers
                     ///< never stop early: they run to max_iterations instead.
    singular_preconditioner,  ///< zero or non-finite diagonal (Jacobi), singular or non-finite
                              ///< block, zero or non-finite ILU(0) pivot: found at set-up, so a
                              ///< NaN there is reported here rather than as non_finite
    bad_scale,  ///< batched solvers only, found before the solve: ||b_s|| or the stopping
                ///< threshold of system s lies outside what the precision's squared residual
                ///< norms hold (scale A_s and b_s by a power of 2). The monolithic solvers
                ///< throw BadInput instead.
    unstable_preconditioner,  ///< monolithic solvers: the solve did not converge (it reached
                              ///< max_iterations, broke down or met a non-finite value) with a
                              ///< preconditioner whose set-up found it unstable
                              ///< (PreconditionerOperator::unstable(): an incomplete factor with
                              ///< growth above 1e6 or a failed probe, solver/ilu.hpp)
};
/// "converged", "max_iterations", "breakdown", "non_finite", "indefinite", "stagnation",
/// "singular_preconditioner", "bad_scale", "unstable_preconditioner".
std::string to_string(StopReason reason);

/// The monolithic solvers (cg, bicgstab, gmres) support all of them (block_jacobi, ilu0, ic0,
/// amg, ilut and iluk on csr only; ic0 is for symmetric matrices); the batched solvers none,
/// jacobi, block_jacobi and ilu0 (others throw Unsupported). ilut: threshold ILU (Settings
/// ilut_*), iluk: ILU with level-of-fill k (Settings::iluk_level), both in solver/ilu.hpp.
enum class Preconditioner { none, jacobi, block_jacobi, ilu0, ic0, chebyshev, amg, ilut, iluk };
/// "none", "jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg", "ilut", "iluk"; parse
/// throws BadInput for an unknown name.
std::string to_string(Preconditioner p);
/// The inverse of to_string(Preconditioner).
Preconditioner parse_preconditioner(const std::string& name);

/// Algebraic multigrid's smoothers (solver/amg.hpp).
enum class AmgSmoother { jacobi, l1_jacobi, chebyshev };
/// "jacobi", "l1-jacobi", "chebyshev"; parse throws BadInput for an unknown name.
std::string to_string(AmgSmoother s);
/// The inverse of to_string(AmgSmoother).
AmgSmoother parse_amg_smoother(const std::string& name);

/// Algebraic multigrid's cycles: V (each coarse level visited once per visit of the finer one)
/// or W (twice).
enum class AmgCycle { v, w };
/// "v", "w"; parse throws BadInput for an unknown name.
std::string to_string(AmgCycle c);
/// The inverse of to_string(AmgCycle).
AmgCycle parse_amg_cycle(const std::string& name);

/// The Krylov methods, monolithic (solver::cg, solver::bicgstab, solver::gmres,
/// solver::pipecg, solver::minres, solver::cgs, solver::tfqmr, solver::lgmres,
/// solver::gcrotmk, solver::bicg, solver::qmr) and batched (cg, bicgstab, gmres).
enum class Solver {
    cg,
    bicgstab,
    gmres,
    pipecg,
    minres,
    cgs,
    tfqmr,
    lgmres,
    gcrotmk,
    bicg,
    qmr,
};
/// "cg", "bicgstab", "gmres", "pipecg", "minres", "cgs", "tfqmr", "lgmres", "gcrotmk", "bicg",
/// "qmr"; parse throws BadInput for an unknown name.
std::string to_string(Solver s);
/// The inverse of to_string(Solver).
Solver parse_solver(const std::string& name);
/// Every monolithic solver, in the enum's order.
std::vector<Solver> all_solvers();
/// Whether solver s has a path for complex values (every one but pipecg and minres).
bool solves_complex(Solver s);
/// Those solvers' names in the enum's order, the last two joined by `conjunction` ("cg,
/// bicgstab, ..., bicg or qmr"), for the errors that refuse the others.
std::string complex_solver_names(const std::string& conjunction);

}  // namespace portla::solver
