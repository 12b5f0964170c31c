// The batched solvers for one system and one "group" of cooperating threads, compiled for every
// backend: the CPU backends run each system on one thread (SerialGroup), the cuda backend on
// one thread block or one warp (BlockGroup, WarpGroup in src/cuda/batch_kernels.cu), the
// opencl backend on one work-group. This is SYCL's work-group model: a group has rank() and
// size(), sync() is the group barrier, sum() a group reduction whose result every member gets
// (it orders the group's memory accesses like sync()), sum2() two such reductions in one pass.
//
// The algorithms are in system_algorithms.h, a C subset that OpenCL C compiles too; here they
// are instantiated per (group, value type, preconditioner set) as the static members of
// GroupAlgorithms.
//
// Loops over rows are strided by the group (row i on member i mod size); every member takes
// part in every sum() and sync(), so control flow stays uniform across the group (all
// branches below depend only on reduced, hence group-uniform, values).
//
// Storage: the caller resolves every work vector (and the preconditioner storage) to a pointer
// (shared or global memory on cuda), see Workspace. Nothing here allocates. CG and BiCGSTAB
// reach the vectors that only ever meet their own rows (not gathered by a SpMV) through a view
// (OwnVec): memory at that pointer, or, for a group of G::kRows > 0 rows per member (the cuda
// warp kernel), an array of kRows registers per member, the loops over rows fully unrolled.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/batch/batch_constants.h"
#include "portla/matrix/format.hpp"
#include "portla/solver/types.hpp"

#if defined(__CUDACC__)
#define PORTLA_HD __host__ __device__ __forceinline__
#else
#define PORTLA_HD inline
#endif

namespace portla::batch::detail {

// The public enums, used as they are (device code stores the StopReason of each system).
using ::portla::Format;
using ::portla::solver::Preconditioner;
using ::portla::solver::Solver;
using ::portla::solver::StopReason;

constexpr int kMaxBlockSize = PORTLA_MAX_BLOCK_SIZE;  ///< block Jacobi
/// restarts from the true residual before stagnation
constexpr int kMaxFalseConvergence = PORTLA_MAX_FALSE_CONVERGENCE;

static_assert(int(StopReason::converged) == PORTLA_STOP_CONVERGED &&
                  int(StopReason::max_iterations) == PORTLA_STOP_MAX_ITERATIONS &&
                  int(StopReason::breakdown) == PORTLA_STOP_BREAKDOWN &&
                  int(StopReason::non_finite) == PORTLA_STOP_NON_FINITE &&
                  int(StopReason::stagnation) == PORTLA_STOP_STAGNATION &&
                  int(StopReason::singular_preconditioner) == PORTLA_STOP_SINGULAR_PRECONDITIONER,
              "batch_constants.h's stop reasons");
static_assert(int(Preconditioner::none) == PORTLA_PRECOND_NONE &&
                  int(Preconditioner::jacobi) == PORTLA_PRECOND_JACOBI &&
                  int(Preconditioner::block_jacobi) == PORTLA_PRECOND_BLOCK_JACOBI &&
                  int(Preconditioner::ilu0) == PORTLA_PRECOND_ILU0,
              "batch_constants.h's preconditioners");
static_assert(int(Format::dense) == PORTLA_FORMAT_DENSE && int(Format::csr) == PORTLA_FORMAT_CSR &&
                  int(Format::ell) == PORTLA_FORMAT_ELL,
              "batch_constants.h's formats");

template <typename T>
PORTLA_HD bool finite(T v) {
    return v == v && v - v == T(0);  // false for NaN and +-Inf
}
PORTLA_HD double group_sqrt(double v) { return sqrt(v); }
template <typename T>
PORTLA_HD T magnitude(T v) {
    return v < T(0) ? -v : v;
}

/// One system of a batch (pattern shared, values of this system).
template <typename T>
struct SystemMatrix {
    Format format = Format::csr;
    int n = 0;
    int width = 0;                           ///< ell
    const std::int32_t* row_ptrs = nullptr;  ///< csr
    const std::int32_t* col_idxs = nullptr;  ///< csr, ell
    const T* values = nullptr;               ///< this system's
};

/// Shared-pattern data of the ILU(0) preconditioner (csr only), computed once on the host:
/// the position of each diagonal entry, and the rows grouped in levels for the lower and the
/// upper triangle (rows of one level depend only on rows of earlier levels).
struct IluPattern {
    const std::int32_t* diag = nullptr;
    const std::int32_t* lower_level_ptrs = nullptr;
    const std::int32_t* lower_rows = nullptr;
    int lower_levels = 0;
    const std::int32_t* upper_level_ptrs = nullptr;
    const std::int32_t* upper_rows = nullptr;
    int upper_levels = 0;
};

struct Options {
    Solver solver = Solver::bicgstab;
    Preconditioner precond = Preconditioner::none;
    bool relative = true;
    double tolerance = 1e-6;
    int max_iters = 500;
    int restart = 30;
    int block_size = 4;
    bool use_initial_guess = false;
};

/// Work vectors of one solve, in order of use (which is the order they are placed in shared
/// memory). Which slots a solver uses: see slots_needed().
enum Slot : int {
    // CG: r z p q x; BiCGSTAB: r r_hat p v p_hat s_hat t x; GMRES: w z x, then the basis.
    slot_r = PORTLA_SLOT_R,
    slot_z = PORTLA_SLOT_Z,
    slot_p = PORTLA_SLOT_P,
    slot_q = PORTLA_SLOT_Q,
    slot_x = PORTLA_SLOT_X,
    slot_bi_r = PORTLA_SLOT_BI_R,
    slot_bi_rhat = PORTLA_SLOT_BI_RHAT,
    slot_bi_p = PORTLA_SLOT_BI_P,
    slot_bi_v = PORTLA_SLOT_BI_V,
    slot_bi_phat = PORTLA_SLOT_BI_PHAT,
    slot_bi_shat = PORTLA_SLOT_BI_SHAT,
    slot_bi_t = PORTLA_SLOT_BI_T,
    slot_bi_x = PORTLA_SLOT_BI_X,
    slot_gm_w = PORTLA_SLOT_GM_W,
    slot_gm_z = PORTLA_SLOT_GM_Z,
    slot_gm_x = PORTLA_SLOT_GM_X,
    slot_gm_basis = PORTLA_SLOT_GM_BASIS,
};
constexpr int kMaxSlots = 72;

/// Number of n-vectors a solve needs (GMRES: restart + 1 basis vectors after its 3).
PORTLA_HD constexpr int slots_needed(Solver solver, int restart) {
    return solver == Solver::cg ? 5 : solver == Solver::bicgstab ? 8 : slot_gm_basis + restart + 1;
}
/// Whether slot k of solver S is an owner-only view in cg / bicgstab (registers for a group of
/// kRows > 0; then the others, p for CG, p-hat and s-hat for BiCGSTAB, are the memory ones).
PORTLA_HD bool owner_only(Solver solver, int k) {
    if (solver == Solver::cg) return k != slot_p;
    if (solver == Solver::bicgstab) return k != slot_bi_phat && k != slot_bi_shat;
    return false;
}
/// Elements of the preconditioner storage.
PORTLA_HD long long precond_elems(Preconditioner precond, int n, int block_size, long long nnz) {
    if (precond == Preconditioner::jacobi) return n;
    if (precond == Preconditioner::block_jacobi) {
        const long long blocks = (n + block_size - 1) / block_size;
        return blocks * block_size * block_size;
    }
    if (precond == Preconditioner::ilu0) return nnz;
    return 0;
}
/// Elements of GMRES's small dense arrays: H ((m + 1) x m), cs, sn, g, y.
PORTLA_HD long long scalar_elems(Solver solver, int restart) {
    return solver == Solver::gmres
               ? static_cast<long long>(restart + 1) * restart + 4LL * restart + 1
               : 0;
}

template <typename T>
struct Workspace {
    T* vec[kMaxSlots] = {};
    T* precond = nullptr;
    T* scalars = nullptr;
};

struct Outcome {
    int iterations = 0;
    StopReason reason = StopReason::max_iterations;
};

// ---- rows and vector views ------------------------------------------------------------

/// A row of a member's loop: i the row, j how many of the member's rows came before it.
struct Row {
    int i;
    int j;
};

/// f(Row) for each row of this member: i = rank, rank + size, ... below n. A group with
/// kRows > 0 has at most kRows rows per member (n <= kRows * size); the loop is unrolled, so
/// that j is known at compile time and a RegVec stays in registers.
template <typename G, typename F>
PORTLA_HD void for_rows(G& g, int n, F&& f) {
    if constexpr (G::kRows > 0) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int j = 0; j < G::kRows; ++j) {
            const int i = g.rank() + j * g.size();
            if (i < n) f(Row{i, j});
        }
    } else {
        for (int i = g.rank(), j = 0; i < n; i += g.size(), ++j) f(Row{i, j});
    }
}

/// A work vector in memory: any member may read any row.
template <typename T>
struct MemVec {
    T* p = nullptr;
    PORTLA_HD T& operator[](Row k) const { return p[k.i]; }
};
/// A work vector of which each member only ever meets its own rows, at most R of them: in
/// registers.
template <typename T, int R>
struct RegVec {
    T v[R];
    PORTLA_HD T& operator[](Row k) { return v[k.j]; }
};
/// The view of an owner-only vector for a group of R rows per member (0: no bound, memory).
template <typename T, int R>
using OwnVec = typename std::conditional<R == 0, MemVec<T>, RegVec<T, R>>::type;
template <int R, typename T>
PORTLA_HD OwnVec<T, R> own_vec(T* p) {
    if constexpr (R == 0)
        return MemVec<T>{p};
    else
        return RegVec<T, R>{};
}
/// The memory of a view (nullptr for registers).
template <typename T>
PORTLA_HD T* mem_of(const MemVec<T>& v) {
    return v.p;
}
template <typename T, int R>
PORTLA_HD T* mem_of(const RegVec<T, R>&) {
    return nullptr;
}

/// Whether the preconditioner acts row by row (z_i from r_i alone, or z = r): its apply then
/// fuses into the vector update that produces r, and r.z into that update's reduction.
PORTLA_HD bool row_local(Preconditioner precond) {
    return precond == Preconditioner::none || precond == Preconditioner::jacobi;
}

// ---- the shared algorithms ---------------------------------------------------------------

/// system_algorithms.h for group G, value type T; RowLocalOnly: the preconditioner is none or
/// Jacobi (row_local), the code of the others is left out.
template <typename G, typename T, bool RowLocalOnly>
struct GroupAlgorithms {
    using REAL = T;
    using ACC = double;
    using Vec = T*;
    using CVec = const T*;
    using Offset = long long;
    using Matrix = SystemMatrix<T>;
    using Ilu = IluPattern;
    using Work = Workspace<T>;

    static PORTLA_HD T ld(const T* v, int i) { return v[i]; }
    static PORTLA_HD void st(T* v, int i, T a) { v[i] = a; }
    template <typename P>
    static PORTLA_HD P offset_vec(P v, long long k) {
        return v + k;
    }
    static PORTLA_HD T* work_vec(const Work* w, int k) { return w->vec[k]; }
    static PORTLA_HD T* work_precond(const Work* w) { return w->precond; }
    static PORTLA_HD T* work_scalars(const Work* w) { return w->scalars; }
    using Own = OwnVec<T, G::kRows>;
    static PORTLA_HD Own own_vec(T* p) { return ::portla::batch::detail::own_vec<G::kRows>(p); }
    template <typename V>
    static PORTLA_HD T own_ld(V& v, Row k) {
        return v[k];
    }
    template <typename V>
    static PORTLA_HD void own_st(V& v, Row k, T a) {
        v[k] = a;
    }
    static PORTLA_HD int row_i(Row k) { return k.i; }

#define PORTLA_FN static PORTLA_HD
#define PORTLA_GROUP G& g
#define PORTLA_G g
#define PORTLA_RANK g.rank()
#define PORTLA_SIZE g.size()
#define PORTLA_SYNC() g.sync()
#define PORTLA_SUM(v) g.sum(v)
#define PORTLA_SUM2(a, b) g.sum2(a, b)
#define PORTLA_ABS(v) magnitude(v)
#define PORTLA_FORMAT(A) static_cast<int>((A)->format)
#define PORTLA_IS_PRECOND(o, p) \
    ((!RowLocalOnly || (p) <= PORTLA_PRECOND_JACOBI) && static_cast<int>((o)->precond) == (p))
// the ILU(0) sweeps level-parallel, a barrier after each level
#define PORTLA_ILU_FIRST(first, last) ((first) + g.rank())
#define PORTLA_ILU_STEP g.size()
#define PORTLA_ILU_LEVEL_SYNC() g.sync()
#define PORTLA_ILU_SWEEP_SYNC()
#define PORTLA_ROWS G::kRows
#define PORTLA_FOR_ROWS(n, k) for_rows(g, (n), [&](Row k)
#define PORTLA_END_ROWS )
#define PORTLA_ROW_LOCAL(o) (RowLocalOnly || row_local((o)->precond))
#include "common/batch/system_algorithms.h"
#undef PORTLA_FN
#undef PORTLA_GROUP
#undef PORTLA_G
#undef PORTLA_RANK
#undef PORTLA_SIZE
#undef PORTLA_SYNC
#undef PORTLA_SUM
#undef PORTLA_SUM2
#undef PORTLA_ABS
#undef PORTLA_FORMAT
#undef PORTLA_IS_PRECOND
#undef PORTLA_ILU_FIRST
#undef PORTLA_ILU_STEP
#undef PORTLA_ILU_LEVEL_SYNC
#undef PORTLA_ILU_SWEEP_SYNC
#undef PORTLA_ROWS
#undef PORTLA_FOR_ROWS
#undef PORTLA_END_ROWS
#undef PORTLA_ROW_LOCAL
};

/// The group of the algorithms that take none.
struct NoGroup {
    static constexpr int kRows = 0;
};

/// (A x)_i accumulated in T.
template <typename T>
PORTLA_HD T row_dot(const SystemMatrix<T>& A, int i, const T* x) {
    return GroupAlgorithms<NoGroup, T, false>::row_dot(&A, i, x);
}

// ---- solvers ----------------------------------------------------------------------------

/// The slot of x in a solver's workspace.
PORTLA_HD int x_slot(Solver solver) {
    return solver == Solver::cg ? slot_x : solver == Solver::bicgstab ? slot_bi_x : slot_gm_x;
}

/// The whole solve of one system with solver S: preconditioner set-up, then the iteration.
/// x (its slot) must hold the initial guess, or anything when !o.use_initial_guess.
template <Solver S, bool RowLocalOnly = false, typename G, typename T>
PORTLA_HD Outcome solve_system_with(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                                    const IluPattern& ilu, Workspace<T>& w) {
    using Alg = GroupAlgorithms<G, T, RowLocalOnly>;
    if (!o.use_initial_guess) Alg::fill(g, A.n, w.vec[x_slot(S)], T(0));
    g.sync();
    if (o.precond != Preconditioner::none && !Alg::precond_setup(g, &A, &o, &ilu, w.precond))
        return {0, StopReason::singular_preconditioner};
    if constexpr (S == Solver::gmres) {
        static_assert(G::kRows == 0, "GMRES keeps its vectors in memory");
        int iterations = 0;
        const int reason = Alg::gmres(g, &A, b, &o, &ilu, &w, &iterations);
        return {iterations, static_cast<StopReason>(reason)};
    } else {
        // x's view: its memory, or registers loaded from it and stored back at the end
        constexpr int R = G::kRows;
        static_assert(R == 0 || RowLocalOnly, "owner-only vectors in registers need a row-local M");
        T* xm = w.vec[x_slot(S)];
        OwnVec<T, R> x = own_vec<R>(xm);
        if constexpr (R > 0) for_rows(g, A.n, [&](Row k) { x[k] = xm[k.i]; });
        Outcome out;
        int reason = 0;
        if constexpr (S == Solver::cg)
            reason = Alg::cg(g, &A, b, &o, &ilu, &w, &x, &out.iterations);
        else
            reason = Alg::bicgstab(g, &A, b, &o, &ilu, &w, &x, &out.iterations);
        out.reason = static_cast<StopReason>(reason);
        if constexpr (R > 0) for_rows(g, A.n, [&](Row k) { xm[k.i] = x[k]; });
        return out;
    }
}

/// solve_system_with for the solver named in o.
template <typename G, typename T>
PORTLA_HD Outcome solve_system(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                               const IluPattern& ilu, Workspace<T>& w) {
    if (o.solver == Solver::cg) return solve_system_with<Solver::cg>(g, A, b, o, ilu, w);
    if (o.solver == Solver::bicgstab)
        return solve_system_with<Solver::bicgstab>(g, A, b, o, ilu, w);
    return solve_system_with<Solver::gmres>(g, A, b, o, ilu, w);
}

/// ||b - A x|| of one system without storing the residual (double accumulation); also ||b||
/// (member 0 writes them).
template <typename G, typename T>
PORTLA_HD void residual_norm(G& g, const SystemMatrix<T>& A, const T* b, const T* x, double* res,
                             double* bnorm) {
    GroupAlgorithms<G, T, false>::residual_norm(g, &A, b, x, res, bnorm);
}
/// y = A x (no barrier after).
template <typename G, typename T>
PORTLA_HD void spmv(G& g, const SystemMatrix<T>& A, const T* x, T* y) {
    GroupAlgorithms<G, T, false>::spmv(g, &A, x, y);
}

/// The CPU group: one thread does a whole system.
struct SerialGroup {
    static constexpr int kRows = 0;  ///< rows per member: any number (see for_rows)
    int rank() const { return 0; }
    int size() const { return 1; }
    void sync() const {}
    double sum(double v) const { return v; }
    void sum2(double&, double&) const {}
};

}  // namespace portla::batch::detail

namespace portla::batch::detail {

/// Everything a backend's batch kernels need (device pointers on cuda, host ones on the CPU).
template <typename T>
struct BatchArgs {
    int num_systems = 0;
    int n = 0;
    Format format = Format::csr;
    int width = 0;
    long long stored = 0;  ///< values per system
    long long nnz = 0;     ///< structural non-zeros per system (the csr pattern's)
    const std::int32_t* row_ptrs = nullptr;
    const std::int32_t* col_idxs = nullptr;
    const T* values = nullptr;
    const T* b = nullptr;
    T* x = nullptr;
    Options options;
    IluPattern ilu;
    int* iterations = nullptr;      ///< per system, out
    StopReason* reasons = nullptr;  ///< per system, out (one byte each)
    bool shared_memory = true;      ///< cuda placement switch

    PORTLA_HD SystemMatrix<T> system(int s) const {
        SystemMatrix<T> A;
        A.format = format;
        A.n = n;
        A.width = width;
        A.row_ptrs = row_ptrs;
        A.col_idxs = col_idxs;
        A.values = values + s * stored;
        return A;
    }
};

}  // namespace portla::batch::detail
