/* The numbers the batched solvers share with their callers on every backend: valid C++, CUDA
   and OpenCL C (plain macros). The C++ enums they stand for (solver::StopReason,
   solver::Preconditioner, Format) are checked against them in system_solvers.hpp. */
#ifndef PORTLA_COMMON_BATCH_BATCH_CONSTANTS_H
#define PORTLA_COMMON_BATCH_BATCH_CONSTANTS_H

/* solver::StopReason */
#define PORTLA_STOP_CONVERGED 0
#define PORTLA_STOP_MAX_ITERATIONS 1
#define PORTLA_STOP_BREAKDOWN 2
#define PORTLA_STOP_NON_FINITE 3
#define PORTLA_STOP_STAGNATION 5
#define PORTLA_STOP_SINGULAR_PRECONDITIONER 6
/* solver::Preconditioner */
#define PORTLA_PRECOND_NONE 0
#define PORTLA_PRECOND_JACOBI 1
#define PORTLA_PRECOND_BLOCK_JACOBI 2
#define PORTLA_PRECOND_ILU0 3
/* Format */
#define PORTLA_FORMAT_DENSE 0
#define PORTLA_FORMAT_CSR 1
#define PORTLA_FORMAT_ELL 2

/* The largest block of block Jacobi, and the restarts from the true residual after a
   convergence claim before a solve stops with stagnation. */
#define PORTLA_MAX_BLOCK_SIZE 32
#define PORTLA_MAX_FALSE_CONVERGENCE 3

/* The work vectors of one solve, in order of use (the order placement.hpp places them in).
   CG: r z p q x; BiCGSTAB: r r_hat p v p_hat s_hat t x; GMRES: w z x, then the basis. */
#define PORTLA_SLOT_R 0
#define PORTLA_SLOT_Z 1
#define PORTLA_SLOT_P 2
#define PORTLA_SLOT_Q 3
#define PORTLA_SLOT_X 4
#define PORTLA_SLOT_BI_R 0
#define PORTLA_SLOT_BI_RHAT 1
#define PORTLA_SLOT_BI_P 2
#define PORTLA_SLOT_BI_V 3
#define PORTLA_SLOT_BI_PHAT 4
#define PORTLA_SLOT_BI_SHAT 5
#define PORTLA_SLOT_BI_T 6
#define PORTLA_SLOT_BI_X 7
#define PORTLA_SLOT_GM_W 0
#define PORTLA_SLOT_GM_Z 1
#define PORTLA_SLOT_GM_X 2
#define PORTLA_SLOT_GM_BASIS 3

#endif
