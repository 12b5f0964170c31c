// The whole CG iteration on a cuda device (settings.device_loop): scalars stay in device memory,
// each iteration is two fused kernels (plus a residual-replacement kernel that is a no-op on
// most iterations), and CUDA graphs of `CgLoop::batch` iterations are launched one after the
// other; the host reads the device state (iteration count, stop code, residual norms of the
// batch) once per graph launch. Defined in src/cuda/cg_kernels.cu; when cuda is switched off,
// src/cuda/not_compiled_cg.cpp defines every member to throw NotCompiled{"cuda"}.
//
// The device loop mirrors src/core/cg.cpp's host loop decision for decision (stopping test in
// double on sqrt(r.r), p.q <= 0 -> indefinite, rho = 0 -> breakdown, residual replacement with
// the same stagnation rule), so the two stop at the same iteration up to rounding. Confirming a
// claimed convergence with the true residual is left to the caller (see CgLoop::resume).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "portla/executor.hpp"

namespace portla::kernels::cuda {

/// Why the device loop stopped. `converged` means the recurrence residual met the test; the
/// caller still has to confirm it with the true residual.
enum class CgStop : int {
    running = 0,
    converged = 1,
    max_iterations = 2,
    breakdown = 3,   ///< rho = r.z = 0
    non_finite = 4,  ///< p.q or ||r|| not finite
    indefinite = 5,  ///< p.q <= 0 or rho < 0
    stagnation = 6,  ///< residual replacement found no new minimum (see detail::Progress::replaced)
};

/// One CG solve on the device. All pointers are device memory of one cuda executor and stay
/// valid while the CgLoop lives. The operator is the dim-D Poisson stencil (`stencil_dim` in
/// {1, 2, 3}, `points` per dimension, see matrix/stencil.hpp) or, with `stencil_dim == 0`, a
/// CSR matrix (rows = n, int32 indices).
template <typename T>
struct CgProblem {
    int stencil_dim = 0;
    std::size_t points = 0;
    const std::int32_t* row_ptrs = nullptr;
    const std::int32_t* col_idxs = nullptr;
    const T* values = nullptr;
    std::size_t nnz = 0;
    std::size_t n = 0;
    const T* inv_diag = nullptr;  ///< Jacobi: 1 / diag(A); nullptr without preconditioning
    const T* b = nullptr;
    T* x = nullptr;                ///< updated in place
    T* r = nullptr;                ///< on construction r = b - A x; the recurrence residual after
    double threshold = 0;          ///< stop when ||r|| <= threshold
    int max_iters = 0;             ///< >= 1
    int residual_replacement = 0;  ///< r = b - A x every this many iterations (0: never)
};

template <typename T>
class CgLoop {
public:
    /// Iterations per graph launch: the host synchronises once per batch, and a solve that
    /// stops inside a batch costs at most batch - 1 iterations of empty launches.
    static constexpr int batch = 16;

    /// Allocates the work vectors and scratch, computes z = M^-1 r and rho = r.z from the
    /// caller's r (after the caller's work on the default stream), and captures the graph.
    /// Throws OutOfMemory or DeviceError.
    CgLoop(const Executor& exec, const CgProblem<T>& problem);
    ~CgLoop();
    CgLoop(const CgLoop&) = delete;
    CgLoop& operator=(const CgLoop&) = delete;

    /// Runs up to `batch` iterations (fewer when the loop stops) and reads the device state
    /// back (blocks).
    void run_batch();
    /// Iterations done so far, and why the loop stopped (running: it did not).
    int iterations() const;
    CgStop stop() const;
    /// The recurrence residual norm ||r|| of iteration `iteration`, one of those the last
    /// run_batch completed (iterations() - batch < iteration <= iterations()).
    double residual_norm(int iteration) const;
    /// After a claimed convergence that the true residual did not confirm: r holds the true
    /// residual b - A x (written by the caller on the default stream). Recomputes z and rho
    /// from it, applies the breakdown tests and the iteration limit, and clears the stop, so
    /// that the next run_batch goes on from there. Does not block.
    void resume();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace portla::kernels::cuda
