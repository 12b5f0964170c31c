/// \file
/// Batched iterative solvers: every system of a batch solved by one kernel (one thread block
/// per system on cuda, one thread per system on omp), each with its own stopping test. The
/// solver, preconditioner and stop-reason names are the shared ones of portla/solver/types.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/batch/matrix.hpp"
#include "portla/solver/types.hpp"

namespace portla::batch {

/// Whether Settings::tolerance bounds ||b_s - A_s x_s|| itself or relative to ||b_s||.
enum class ToleranceType { absolute, relative };

/// Settings of batch::solve, shared by every system of the batch.
struct Settings {
    /// The Krylov method: cg, bicgstab or gmres.
    solver::Solver solver = solver::Solver::bicgstab;
    /// none, jacobi, block_jacobi or ilu0 (csr); others throw Unsupported.
    solver::Preconditioner precond = solver::Preconditioner::none;
    /// How `tolerance` is read.
    ToleranceType tolerance_type = ToleranceType::relative;
    double tolerance = 1e-6;  ///< relative to ||b_s|| or absolute
    /// Iteration limit of each system.
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
    int block_size = 0;  ///< threads per block
    int grid_size = 0;   ///< blocks (each loops over systems)
    /// work vectors per system; with vectors in registers the solver's copies of gathered
    /// vectors count too (CG without a preconditioner 5 instead of 4, BiCGSTAB 8 instead of 6)
    int vectors_total = 0;
    int vectors_in_shared = 0;  ///< of those, in shared memory
    /// of those, in registers (cuda, n <= 128 with none / Jacobi: the vectors no other thread
    /// reads)
    int vectors_in_registers = 0;
    /// whether the system's values were placed in shared memory
    bool matrix_in_shared = false;
    std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
};

/// Per-system results.
struct Result {
    /// Iterations each system took.
    std::vector<int> iterations;
    std::vector<solver::StopReason> reason;  ///< why each system stopped
    std::vector<double> residual_norm;       ///< true ||b_s - A_s x_s||, recomputed after the solve
    std::vector<double> rhs_norm;            ///< ||b_s||
    double time_s = 0;                       ///< the solve itself (device time on cuda)
    /// How the cuda kernel was laid out.
    LaunchInfo launch;

    /// Number of systems.
    std::size_t size() const { return iterations.size(); }
    /// Whether system s converged.
    bool converged(std::size_t s) const { return reason[s] == solver::StopReason::converged; }
    /// Number of systems that converged.
    std::size_t num_converged() const;
    /// max over systems of residual_norm / rhs_norm (residual_norm where rhs_norm = 0).
    double max_relative_residual() const;
};

/// Solves A_s x_s = b_s for every system s. b and x hold num_systems * n entries on A's
/// executor. Throws DimensionMismatch, BadInput (e.g. ilu0 on a non-csr matrix, block size out
/// of range: what concerns the whole batch), OutOfMemory; a system that fails (NaN or Inf in
/// A_s, b_s or the initial guess, ||b_s|| out of the precision's range, singular, no
/// convergence) is reported in the Result (non_finite, bad_scale, ...) and never stops the
/// others. The x_s of a system refused before the solve (non_finite in b_s or x_s, bad_scale)
/// is no solution.
template <typename T>
Result solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x, const Settings& settings);

/// ||b_s - A_s x_s|| for every system, computed apart from any solver (double accumulation).
template <typename T>
std::vector<double> residual_norms(const BatchMatrix<T>& A, const Array<T>& b, const Array<T>& x);

/// Direct solve by dense LU with partial pivoting, per system: the vendor reference. A must be
/// in dense format. cuda: cuBLAS getrfBatched + getrsBatched; reference/omp: portla's own LU.
/// A singular system (zero pivot) is flagged with StopReason::breakdown, a NaN one with non_finite.
template <typename T>
Result direct_solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x);

}  // namespace portla::batch
