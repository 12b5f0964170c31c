// Batched iterative solvers: every system of a batch solved by one kernel (one thread block
// per system on cuda, one thread per system on omp), each with its own stopping test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/batch/matrix.hpp"

namespace portla::batch {

enum class Solver { cg, bicgstab, gmres };
enum class Precond { none, jacobi, block_jacobi, ilu0 };
enum class ToleranceType { absolute, relative };
/// Names as on the command line ("cg", "bicgstab", "gmres"; "none", "jacobi",
/// "block-jacobi", "ilu0"); parse throws BadInput for an unknown name.
std::string to_string(Solver s);
std::string to_string(Precond p);
Solver parse_solver(const std::string& name);
Precond parse_precond(const std::string& name);

/// Why one system's solve stopped.
enum class Reason : std::uint8_t {
    converged,                ///< ||b - A x|| (recomputed) <= the tolerance
    max_iterations,           ///< the iteration limit came first
    breakdown,                ///< a recurrence scalar became zero (or p.Ap <= 0 in CG)
    non_finite,               ///< NaN or Inf in the system, its right-hand side or the iterates
                              ///< (found by the iteration; see singular_preconditioner)
    singular_preconditioner,  ///< zero or non-finite diagonal (Jacobi), singular or non-finite
                              ///< block, zero or non-finite ILU(0) pivot: found at set-up, so a
                              ///< NaN there is reported here rather than as non_finite
    stagnation,               ///< the recurrence residual met the test, the true one did not,
                              ///< several restarts from the true residual running
};
std::string to_string(Reason r);

struct Settings {
    Solver solver = Solver::bicgstab;
    Precond precond = Precond::none;
    ToleranceType tolerance_type = ToleranceType::relative;
    double tolerance = 1e-6;  ///< relative to ||b_s|| or absolute
    int max_iters = 500;
    int restart = 30;                ///< GMRES restart length (Krylov vectors per cycle)
    int block_size = 4;              ///< block Jacobi: rows per diagonal block (1 ... 32)
    bool use_initial_guess = false;  ///< x holds the initial guesses; otherwise x = 0 first
    /// cuda: keep work vectors (and the matrix when it fits) in shared memory. false puts
    /// everything in global memory (the comparison the shared-memory design is measured by).
    bool shared_memory = true;
};

/// How the cuda kernel was laid out (zeros on the CPU backends).
struct LaunchInfo {
    int block_size = 0;         ///< threads per block
    int grid_size = 0;          ///< blocks (each loops over systems)
    int vectors_total = 0;      ///< work vectors per system
    int vectors_in_shared = 0;  ///< of those, in shared memory
    bool matrix_in_shared = false;
    std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
};

/// Per-system results.
struct Result {
    std::vector<int> iterations;
    std::vector<Reason> reason;
    std::vector<double> residual_norm;  ///< true ||b_s - A_s x_s||, recomputed after the solve
    std::vector<double> rhs_norm;       ///< ||b_s||
    double time_s = 0;                  ///< the solve itself (device time on cuda)
    LaunchInfo launch;

    std::size_t size() const { return iterations.size(); }
    bool converged(std::size_t s) const { return reason[s] == Reason::converged; }
    std::size_t num_converged() const;
    /// max over systems of residual_norm / rhs_norm (residual_norm where rhs_norm = 0).
    double max_relative_residual() const;
};

/// Solves A_s x_s = b_s for every system s. b and x hold num_systems * n entries on A's
/// executor. Throws DimensionMismatch, BadInput (e.g. ilu0 on a non-csr matrix, block size out
/// of range), OutOfMemory; a system that fails (NaN, singular, no convergence) is reported in
/// the Result and never stops the others.
template <typename T>
Result solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x, const Settings& settings);

/// ||b_s - A_s x_s|| for every system, computed apart from any solver (double accumulation).
template <typename T>
std::vector<double> residual_norms(const BatchMatrix<T>& A, const Array<T>& b, const Array<T>& x);

/// Direct solve by dense LU with partial pivoting, per system: the vendor reference. A must be
/// in dense format. cuda: cuBLAS getrfBatched + getrsBatched; reference/omp: portla's own LU.
/// A singular system (zero pivot) is flagged with Reason::breakdown, a NaN one with non_finite.
template <typename T>
Result direct_solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x);

}  // namespace portla::batch
