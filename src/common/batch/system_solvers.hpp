// The batched solvers, written once for one system and one "group" of cooperating threads,
// compiled for every backend: the CPU backends run each system on one thread (SerialGroup),
// the cuda backend on one thread block (BlockGroup in src/cuda/batch_kernels.cu). This is
// SYCL's work-group model: a group has rank() and size(), sync() is the group barrier, sum()
// a group reduction whose result every member gets (it orders the group's memory accesses like
// sync()), sum2() two such reductions in one pass, single() runs on the leader then syncs.
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

constexpr int kMaxBlockSize = 32;        ///< block Jacobi
constexpr int kMaxFalseConvergence = 3;  ///< restarts from the true residual before stagnation

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

    /// f(column, value) for every stored entry of row i (ell padding skipped).
    template <typename F>
    PORTLA_HD void for_row(int i, F&& f) const {
        if (format == Format::csr) {
            for (int k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k) f(col_idxs[k], values[k]);
        } else if (format == Format::ell) {
            for (int k = 0; k < width; ++k) {
                const int c = col_idxs[k * n + i];
                if (c >= 0) f(c, values[k * n + i]);
            }
        } else {
            const T* row = values + static_cast<long long>(i) * n;
            for (int j = 0; j < n; ++j) f(j, row[j]);
        }
    }
    template <typename Acc>
    PORTLA_HD Acc row_dot(int i, const T* x) const {
        Acc s = 0;
        for_row(i, [&](int c, T v) { s += Acc(v) * Acc(x[c]); });
        return s;
    }
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
    slot_r = 0,
    slot_z,
    slot_p,
    slot_q,
    slot_x,
    slot_bi_r = 0,
    slot_bi_rhat,
    slot_bi_p,
    slot_bi_v,
    slot_bi_phat,
    slot_bi_shat,
    slot_bi_t,
    slot_bi_x,
    slot_gm_w = 0,
    slot_gm_z,
    slot_gm_x,
    slot_gm_basis,
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
/// Memory holding v for a SpMV to gather: v's own, or v copied into `scratch` (then synced).
template <typename G, typename T>
PORTLA_HD const T* gatherable(G&, int, MemVec<T>& v, T*) {
    return v.p;
}
template <typename G, typename T, int R>
PORTLA_HD const T* gatherable(G& g, int n, RegVec<T, R>& v, T* scratch) {
    for_rows(g, n, [&](Row k) { scratch[k.i] = v[k]; });
    g.sync();
    return scratch;
}

// ---- group-wide vector operations -------------------------------------------------------

template <typename G, typename T>
PORTLA_HD double dot(G& g, int n, const T* x, const T* y) {
    double s = 0;
    for (int i = g.rank(); i < n; i += g.size()) s += double(x[i]) * double(y[i]);
    return g.sum(s);
}
template <typename G, typename T>
PORTLA_HD double norm2(G& g, int n, const T* x) {
    return group_sqrt(dot(g, n, x, x));
}
/// y = A x (no barrier after: the caller syncs, usually through the next sum()).
template <typename G, typename T>
PORTLA_HD void spmv(G& g, const SystemMatrix<T>& A, const T* x, T* y) {
    for (int i = g.rank(); i < A.n; i += g.size())
        y[i] = static_cast<T>(A.template row_dot<T>(i, x));
}
/// r = b - A x (r a view), returns ||r||.
template <typename G, typename T, typename V>
PORTLA_HD double residual(G& g, const SystemMatrix<T>& A, const T* b, const T* x, V& r) {
    double s = 0;
    for_rows(g, A.n, [&](Row k) {
        const T ri = b[k.i] - static_cast<T>(A.template row_dot<T>(k.i, x));
        r[k] = ri;
        s += double(ri) * double(ri);
    });
    return group_sqrt(g.sum(s));
}
/// r = b - A x (r a view), returns ||r||, and ||b|| in bnorm (one pass, one reduction).
template <typename G, typename T, typename V>
PORTLA_HD double residual_and_rhs_norm(G& g, const SystemMatrix<T>& A, const T* b, const T* x, V& r,
                                       double& bnorm) {
    double s = 0, sb = 0;
    for_rows(g, A.n, [&](Row k) {
        const T ri = b[k.i] - static_cast<T>(A.template row_dot<T>(k.i, x));
        r[k] = ri;
        s += double(ri) * double(ri);
        sb += double(b[k.i]) * double(b[k.i]);
    });
    g.sum2(s, sb);
    bnorm = group_sqrt(sb);
    return group_sqrt(s);
}
template <typename G, typename T>
PORTLA_HD void copy(G& g, int n, const T* x, T* y) {
    for (int i = g.rank(); i < n; i += g.size()) y[i] = x[i];
}
template <typename G, typename T>
PORTLA_HD void fill(G& g, int n, T* y, T v) {
    for (int i = g.rank(); i < n; i += g.size()) y[i] = v;
}

// ---- preconditioners ----------------------------------------------------------------------

/// Whether the preconditioner acts row by row (z_i from r_i alone, or z = r): its apply then
/// fuses into the vector update that produces r, and r.z into that update's reduction.
PORTLA_HD bool row_local(Preconditioner precond) {
    return precond == Preconditioner::none || precond == Preconditioner::jacobi;
}

/// Set-up for this system; returns false (for the whole group) when it is singular.
/// RowLocalOnly: o.precond is none or Jacobi (row_local), the code of the others is left out.
template <bool RowLocalOnly = false, typename G, typename T>
PORTLA_HD bool precond_setup(G& g, const SystemMatrix<T>& A, const Options& o,
                             const IluPattern& ilu, T* P) {
    const int n = A.n;
    double bad = 0;
    if (o.precond == Preconditioner::jacobi) {
        for (int i = g.rank(); i < n; i += g.size()) {
            T d = 0;
            A.for_row(i, [&](int c, T v) {
                if (c == i) d += v;
            });
            if (d == T(0) || !finite(d)) bad += 1;
            P[i] = d == T(0) ? T(0) : T(1) / d;
        }
    } else if (!RowLocalOnly && o.precond == Preconditioner::block_jacobi) {
        // Diagonal blocks of bs rows (the last one may be smaller, padded with the identity),
        // each inverted in place by Gauss-Jordan with partial pivoting, one block per member.
        const int bs = o.block_size;
        const int blocks = (n + bs - 1) / bs;
        for (int blk = g.rank(); blk < blocks; blk += g.size()) {
            T* a = P + static_cast<long long>(blk) * bs * bs;
            const int start = blk * bs;
            for (int k = 0; k < bs * bs; ++k) a[k] = T(0);
            for (int r = 0; r < bs; ++r) {
                const int i = start + r;
                if (i >= n) {
                    a[r * bs + r] = T(1);
                    continue;
                }
                A.for_row(i, [&](int c, T v) {
                    if (c >= start && c < start + bs) a[r * bs + (c - start)] += v;
                });
            }
            int piv[kMaxBlockSize];
            bool ok = true;
            for (int k = 0; k < bs && ok; ++k) {
                int p = k;
                for (int r = k + 1; r < bs; ++r)
                    if (magnitude(a[r * bs + k]) > magnitude(a[p * bs + k])) p = r;
                piv[k] = p;
                if (a[p * bs + k] == T(0) || !finite(a[p * bs + k])) {
                    ok = false;
                    break;
                }
                if (p != k)
                    for (int c = 0; c < bs; ++c) {
                        const T t = a[k * bs + c];
                        a[k * bs + c] = a[p * bs + c];
                        a[p * bs + c] = t;
                    }
                const T inv = T(1) / a[k * bs + k];
                a[k * bs + k] = T(1);
                for (int c = 0; c < bs; ++c) a[k * bs + c] *= inv;
                for (int r = 0; r < bs; ++r) {
                    if (r == k) continue;
                    const T f = a[r * bs + k];
                    a[r * bs + k] = T(0);
                    for (int c = 0; c < bs; ++c) a[r * bs + c] -= f * a[k * bs + c];
                }
            }
            if (!ok) {
                bad += 1;
                continue;
            }
            for (int k = bs - 1; k >= 0; --k)  // undo the row swaps as column swaps
                if (piv[k] != k)
                    for (int r = 0; r < bs; ++r) {
                        const T t = a[r * bs + k];
                        a[r * bs + k] = a[r * bs + piv[k]];
                        a[r * bs + piv[k]] = t;
                    }
        }
    } else if (!RowLocalOnly && o.precond == Preconditioner::ilu0) {
        // P holds this system's values in the csr pattern, factored in place into L (unit
        // diagonal, not stored) and U, row by row in level order (IKJ form).
        const int nnz = A.row_ptrs[n];
        copy(g, nnz, A.values, P);
        g.sync();
        for (int lvl = 0; lvl < ilu.lower_levels; ++lvl) {
            const int first = ilu.lower_level_ptrs[lvl], last = ilu.lower_level_ptrs[lvl + 1];
            for (int t = first + g.rank(); t < last; t += g.size()) {
                const int i = ilu.lower_rows[t];
                const int end_i = A.row_ptrs[i + 1];
                for (int kk = A.row_ptrs[i]; kk < ilu.diag[i]; ++kk) {
                    const int k = A.col_idxs[kk];
                    const T pivot = P[ilu.diag[k]];
                    if (pivot == T(0)) break;  // flagged below: U_kk = 0
                    const T lik = P[kk] / pivot;
                    P[kk] = lik;
                    // row i -= l_ik * (row k of U), on the entries both rows hold
                    int a = kk + 1, b = ilu.diag[k] + 1;
                    const int end_k = A.row_ptrs[k + 1];
                    while (a < end_i && b < end_k) {
                        const int ca = A.col_idxs[a], cb = A.col_idxs[b];
                        if (ca == cb)
                            P[a++] -= lik * P[b++];
                        else if (ca < cb)
                            ++a;
                        else
                            ++b;
                    }
                }
            }
            g.sync();
        }
        for (int i = g.rank(); i < n; i += g.size()) {
            const T u = P[ilu.diag[i]];
            if (u == T(0) || !finite(u)) bad += 1;
        }
    }
    return g.sum(bad) == 0;
}

/// z = M^-1 r (z != r). RowLocalOnly as for precond_setup.
template <bool RowLocalOnly = false, typename G, typename T>
PORTLA_HD void precond_apply(G& g, const SystemMatrix<T>& A, const Options& o,
                             const IluPattern& ilu, const T* P, const T* r, T* z) {
    const int n = A.n;
    if (o.precond == Preconditioner::jacobi) {
        for (int i = g.rank(); i < n; i += g.size()) z[i] = P[i] * r[i];
    } else if (!RowLocalOnly && o.precond == Preconditioner::block_jacobi) {
        const int bs = o.block_size;
        for (int i = g.rank(); i < n; i += g.size()) {
            const int blk = i / bs, start = blk * bs, rr = i - start;
            const T* a = P + static_cast<long long>(blk) * bs * bs + rr * bs;
            T s = 0;
            for (int c = 0; c < bs && start + c < n; ++c) s += a[c] * r[start + c];
            z[i] = s;
        }
    } else if (!RowLocalOnly && o.precond == Preconditioner::ilu0) {
        // L y = r (unit lower), then U z = y in place
        for (int lvl = 0; lvl < ilu.lower_levels; ++lvl) {
            const int first = ilu.lower_level_ptrs[lvl], last = ilu.lower_level_ptrs[lvl + 1];
            for (int t = first + g.rank(); t < last; t += g.size()) {
                const int i = ilu.lower_rows[t];
                T s = r[i];
                for (int k = A.row_ptrs[i]; k < ilu.diag[i]; ++k) s -= P[k] * z[A.col_idxs[k]];
                z[i] = s;
            }
            g.sync();
        }
        for (int lvl = 0; lvl < ilu.upper_levels; ++lvl) {
            const int first = ilu.upper_level_ptrs[lvl], last = ilu.upper_level_ptrs[lvl + 1];
            for (int t = first + g.rank(); t < last; t += g.size()) {
                const int i = ilu.upper_rows[t];
                T s = z[i];
                for (int k = ilu.diag[i] + 1; k < A.row_ptrs[i + 1]; ++k)
                    s -= P[k] * z[A.col_idxs[k]];
                z[i] = s / P[ilu.diag[i]];
            }
            g.sync();
        }
    }
}

// ---- solvers ----------------------------------------------------------------------------

/// The stopping threshold ||r|| <= tau of this system.
PORTLA_HD double threshold(const Options& o, double bnorm) {
    return o.relative ? o.tolerance * bnorm : o.tolerance;
}

/// Preconditioned CG. x: the view of the iterate, holding the initial guess (or zero) on entry,
/// also in memory at w.vec[slot_x] (the first residual gathers it from there).
/// Per iteration two reductions: p.q (fused into the SpMV), and r.r with r.z (one pass; with
/// no or a Jacobi preconditioner z is formed in the update of r). Each member forms the rows it
/// owns in every loop, so a loop that reads only its own rows needs no barrier before it.
/// Only p is gathered (by the SpMV): r, z, q and x are owner-only views (G::kRows > 0, which
/// needs RowLocalOnly: registers).
template <bool RowLocalOnly = false, typename G, typename T, typename X>
PORTLA_HD Outcome cg(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                     const IluPattern& ilu, Workspace<T>& w, X& x) {
    constexpr int R = G::kRows;
    static_assert(R == 0 || RowLocalOnly, "owner-only vectors in registers need a row-local M");
    const int n = A.n;
    T* p = w.vec[slot_p];
    OwnVec<T, R> r = own_vec<R>(w.vec[slot_r]), q = own_vec<R>(w.vec[slot_q]);
    const bool pre = o.precond != Preconditioner::none;
    const bool jacobi = o.precond == Preconditioner::jacobi;
    const bool fused = RowLocalOnly || row_local(o.precond);
    // z = M^-1 r; without a preconditioner r itself (memory) or a copy of it (registers)
    OwnVec<T, R> z = own_vec<R>(pre ? w.vec[slot_z] : mem_of(r));
    const T* P = w.precond;
    // z from r, returns r.z: in the rows (row-local M), else precond_apply
    auto precondition = [&]() {
        if (!fused) {
            precond_apply<RowLocalOnly>(g, A, o, ilu, P, mem_of(r), mem_of(z));
            g.sync();
        }
        double rz = 0;
        for_rows(g, n, [&](Row k) {
            if (jacobi && fused)
                z[k] = P[k.i] * r[k];
            else if (R > 0)
                z[k] = r[k];
            rz += double(r[k]) * double(z[k]);
        });
        return g.sum(rz);
    };
    Outcome out;
    double bnorm = 0;
    double rnorm = residual_and_rhs_norm(g, A, b, w.vec[slot_x], r, bnorm);
    const double tau = threshold(o, bnorm);
    if (!finite(rnorm) || !finite(tau)) return {0, StopReason::non_finite};
    if (rnorm <= tau) return {0, StopReason::converged};
    double rho = precondition();
    for_rows(g, n, [&](Row k) { p[k.i] = z[k]; });
    g.sync();
    int false_convergence = 0;
    while (out.iterations < o.max_iters) {
        double pq = 0;  // q = A p and p.q in one pass
        for_rows(g, n, [&](Row k) {
            const T qi = static_cast<T>(A.template row_dot<T>(k.i, p));
            q[k] = qi;
            pq += double(p[k.i]) * double(qi);
        });
        pq = g.sum(pq);
        if (!finite(pq)) return {out.iterations, StopReason::non_finite};
        if (pq <= 0 || rho == 0) return {out.iterations, StopReason::breakdown};
        const T alpha = static_cast<T>(rho / pq);
        double rr = 0, rz = 0;
        for_rows(g, n, [&](Row k) {
            x[k] += alpha * p[k.i];
            r[k] -= alpha * q[k];
            rr += double(r[k]) * double(r[k]);
            if (jacobi) {
                z[k] = P[k.i] * r[k];
                rz += double(r[k]) * double(z[k]);
            } else if (R > 0) {
                z[k] = r[k];
            }
        });
        ++out.iterations;
        if (jacobi)
            g.sum2(rr, rz);
        else
            rr = g.sum(rr);
        rnorm = group_sqrt(rr);
        if (!finite(rnorm)) return {out.iterations, StopReason::non_finite};
        bool restart = false;
        if (rnorm <= tau) {  // confirm with the true residual (q is free until the next spmv;
                             // x in registers goes through p, which a restart rebuilds from z)
            const double true_norm = residual(g, A, b, gatherable(g, n, x, p), q);
            if (true_norm <= tau) return {out.iterations, StopReason::converged};
            if (++false_convergence > kMaxFalseConvergence)
                return {out.iterations, StopReason::stagnation};
            for_rows(g, n, [&](Row k) { r[k] = q[k]; });
            restart = true;
            g.sync();
        }
        double rho_new = 0;
        if (fused && !restart) {
            rho_new = jacobi ? rz : rr;
        } else {
            rho_new = precondition();
        }
        const T beta = restart ? T(0) : static_cast<T>(rho_new / rho);
        rho = rho_new;
        for_rows(g, n, [&](Row k) { p[k.i] = z[k] + beta * p[k.i]; });
        g.sync();
    }
    return out;
}

/// Preconditioned BiCGSTAB (van der Vorst). x: the view of the iterate, as for cg.
/// Per iteration four reductions: rhat.v (fused into the first SpMV), s.s, t.s with t.t (fused
/// into the second SpMV), r.r with the next rhat.r. A Jacobi preconditioner is applied inside
/// the updates of p and s. Only p-hat and s-hat are gathered (by the SpMVs); r (s), r-hat, p,
/// v, t and x are owner-only views. Without a preconditioner p-hat and s-hat are p and r
/// themselves when those are in memory, else copies of them.
template <bool RowLocalOnly = false, typename G, typename T, typename X>
PORTLA_HD Outcome bicgstab(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                           const IluPattern& ilu, Workspace<T>& w, X& x) {
    constexpr int R = G::kRows;
    static_assert(R == 0 || RowLocalOnly, "owner-only vectors in registers need a row-local M");
    const int n = A.n;
    OwnVec<T, R> r = own_vec<R>(w.vec[slot_bi_r]), rhat = own_vec<R>(w.vec[slot_bi_rhat]),
                 p = own_vec<R>(w.vec[slot_bi_p]), v = own_vec<R>(w.vec[slot_bi_v]),
                 t = own_vec<R>(w.vec[slot_bi_t]);
    const bool pre = o.precond != Preconditioner::none;
    const bool jacobi = o.precond == Preconditioner::jacobi;
    const bool fused = RowLocalOnly || row_local(o.precond);
    T* phat = pre || R > 0 ? w.vec[slot_bi_phat] : mem_of(p);
    T* shat = pre || R > 0 ? w.vec[slot_bi_shat] : mem_of(r);  // s overwrites r
    const T* P = w.precond;
    Outcome out;
    double bnorm = 0;
    double rnorm = residual_and_rhs_norm(g, A, b, w.vec[slot_bi_x], r, bnorm);
    const double tau = threshold(o, bnorm);
    if (!finite(rnorm) || !finite(tau)) return {0, StopReason::non_finite};
    if (rnorm <= tau) return {0, StopReason::converged};
    int false_convergence = 0;
    bool fresh = true;      // (re)start the recurrences from r
    bool have_rho = false;  // rho = rhat.r came with the last iteration's r.r
    double rho = 0, rho_old = 1, alpha = 1, omega = 1;
    // After a convergence claim, check the true residual into t; true: converged; otherwise
    // restart from it (or give up after kMaxFalseConvergence). x in registers goes through
    // p-hat, which the restart rebuilds.
    auto confirm = [&](StopReason& reason) {
        const double true_norm = residual(g, A, b, gatherable(g, n, x, phat), t);
        if (true_norm <= tau) {
            reason = StopReason::converged;
            return true;
        }
        if (++false_convergence > kMaxFalseConvergence) {
            reason = StopReason::stagnation;
            return true;
        }
        for_rows(g, n, [&](Row k) { r[k] = t[k]; });
        fresh = true;
        g.sync();
        return false;
    };
    while (out.iterations < o.max_iters) {
        if (fresh) {
            for_rows(g, n, [&](Row k) {
                rhat[k] = r[k];
                p[k] = T(0);
                v[k] = T(0);
            });
            rho_old = alpha = omega = 1;
            fresh = false;
            have_rho = false;
            g.sync();
        }
        if (!have_rho) {
            double s = 0;
            for_rows(g, n, [&](Row k) { s += double(rhat[k]) * double(r[k]); });
            rho = g.sum(s);
        }
        if (!finite(rho)) return {out.iterations, StopReason::non_finite};
        if (rho == 0) return {out.iterations, StopReason::breakdown};
        const T beta = static_cast<T>((rho / rho_old) * (alpha / omega));
        for_rows(g, n, [&](Row k) {
            p[k] = r[k] + beta * (p[k] - T(omega) * v[k]);
            if (jacobi)
                phat[k.i] = P[k.i] * p[k];
            else if (R > 0)
                phat[k.i] = p[k];
        });
        g.sync();
        if (!fused) {
            precond_apply<RowLocalOnly>(g, A, o, ilu, P, mem_of(p), phat);
            g.sync();
        }
        double rv = 0;  // v = A phat and rhat.v in one pass
        for_rows(g, n, [&](Row k) {
            const T vi = static_cast<T>(A.template row_dot<T>(k.i, phat));
            v[k] = vi;
            rv += double(rhat[k]) * double(vi);
        });
        rv = g.sum(rv);
        if (!finite(rv)) return {out.iterations, StopReason::non_finite};
        if (rv == 0) return {out.iterations, StopReason::breakdown};
        alpha = rho / rv;
        double s2 = 0;
        for_rows(g, n, [&](Row k) {
            r[k] -= T(alpha) * v[k];  // r now holds s
            x[k] += T(alpha) * phat[k.i];
            s2 += double(r[k]) * double(r[k]);
            if (jacobi)
                shat[k.i] = P[k.i] * r[k];
            else if (R > 0)
                shat[k.i] = r[k];
        });
        ++out.iterations;
        const double snorm = group_sqrt(g.sum(s2));  // the sum orders shat for the SpMV
        if (!finite(snorm)) return {out.iterations, StopReason::non_finite};
        StopReason reason = StopReason::converged;
        if (snorm <= tau) {
            if (confirm(reason)) return {out.iterations, reason};
            continue;
        }
        if (!fused) {
            precond_apply<RowLocalOnly>(g, A, o, ilu, P, mem_of(r), shat);
            g.sync();
        }
        double ts = 0, tt = 0;  // t = A shat, t.s and t.t in one pass
        for_rows(g, n, [&](Row k) {
            const T ti = static_cast<T>(A.template row_dot<T>(k.i, shat));
            t[k] = ti;
            ts += double(ti) * double(r[k]);
            tt += double(ti) * double(ti);
        });
        g.sum2(ts, tt);
        if (!finite(ts) || !finite(tt)) return {out.iterations, StopReason::non_finite};
        if (tt == 0) return {out.iterations, StopReason::breakdown};
        omega = ts / tt;
        double r2 = 0, rho_next = 0;
        for_rows(g, n, [&](Row k) {
            x[k] += T(omega) * shat[k.i];
            r[k] -= T(omega) * t[k];
            r2 += double(r[k]) * double(r[k]);
            rho_next += double(rhat[k]) * double(r[k]);
        });
        g.sum2(r2, rho_next);
        rnorm = group_sqrt(r2);
        if (!finite(rnorm)) return {out.iterations, StopReason::non_finite};
        if (rnorm <= tau) {
            if (confirm(reason)) return {out.iterations, reason};
            continue;
        }
        if (omega == 0) return {out.iterations, StopReason::breakdown};
        rho_old = rho;
        rho = rho_next;
        have_rho = true;
    }
    return out;
}

/// Restarted GMRES(m), right-preconditioned (its residual estimate is that of the
/// unpreconditioned system), modified Gram-Schmidt, Givens rotations.
template <bool RowLocalOnly = false, typename G, typename T>
PORTLA_HD Outcome gmres(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                        const IluPattern& ilu, Workspace<T>& w) {
    const int n = A.n, m = o.restart;
    T *wv = w.vec[slot_gm_w], *z = w.vec[slot_gm_z], *x = w.vec[slot_gm_x];
    T** V = w.vec + slot_gm_basis;
    T* H = w.scalars;         // (m + 1) x m, column j at H + j * (m + 1)
    T* cs = H + (m + 1) * m;  // m
    T* sn = cs + m;           // m
    T* gv = sn + m;           // m + 1
    T* y = gv + m + 1;        // m
    const bool pre = o.precond != Preconditioner::none;
    Outcome out;
    const double tau = threshold(o, norm2(g, n, b));
    if (!finite(tau)) return {0, StopReason::non_finite};
    int false_convergence = 0;
    bool claimed = false;  // the last cycle's estimate met the test
    for (;;) {
        // the true residual: it confirms (or refutes) the last cycle's claim
        MemVec<T> v0{V[0]};
        const double beta = residual(g, A, b, x, v0);
        if (!finite(beta)) return {out.iterations, StopReason::non_finite};
        if (beta <= tau) return {out.iterations, StopReason::converged};
        if (claimed && ++false_convergence > kMaxFalseConvergence)
            return {out.iterations, StopReason::stagnation};
        if (out.iterations >= o.max_iters) return {out.iterations, StopReason::max_iterations};
        for (int i = g.rank(); i < n; i += g.size()) V[0][i] = static_cast<T>(V[0][i] / beta);
        g.single([&] {
            gv[0] = static_cast<T>(beta);
            for (int i = 1; i <= m; ++i) gv[i] = 0;
        });
        int k = 0;  // Krylov vectors of this cycle
        double estimate = beta;
        while (k < m && out.iterations < o.max_iters) {
            const T* dir = V[k];
            if (pre) {
                precond_apply<RowLocalOnly>(g, A, o, ilu, w.precond, V[k], z);
                g.sync();
                dir = z;
            }
            spmv(g, A, dir, wv);
            g.sync();
            T* h = H + k * (m + 1);
            for (int i = 0; i <= k; ++i) {
                const double hik = dot(g, n, wv, V[i]);
                for (int l = g.rank(); l < n; l += g.size()) wv[l] -= T(hik) * V[i][l];
                if (g.rank() == 0) h[i] = T(hik);
                g.sync();
            }
            const double hnext = norm2(g, n, wv);
            if (!finite(hnext)) return {out.iterations, StopReason::non_finite};
            for (int l = g.rank(); l < n; l += g.size())
                V[k + 1][l] = hnext > 0 ? T(wv[l] / hnext) : T(0);
            g.single([&] {
                h[k + 1] = T(hnext);
                for (int i = 0; i < k; ++i) {  // earlier rotations on the new column
                    const T a = h[i], c = h[i + 1];
                    h[i] = cs[i] * a + sn[i] * c;
                    h[i + 1] = -sn[i] * a + cs[i] * c;
                }
                const T a = h[k], c = h[k + 1];
                const T d = static_cast<T>(group_sqrt(double(a) * a + double(c) * c));
                cs[k] = d == T(0) ? T(1) : a / d;
                sn[k] = d == T(0) ? T(0) : c / d;
                h[k] = d;
                h[k + 1] = 0;
                gv[k + 1] = -sn[k] * gv[k];
                gv[k] = cs[k] * gv[k];
            });
            ++k;
            ++out.iterations;
            estimate = magnitude(double(gv[k]));
            if (estimate <= tau || hnext == 0) break;
        }
        // y = H(0:k, 0:k) \ g, then x += M^-1 (V y)
        g.single([&] {
            for (int i = k - 1; i >= 0; --i) {
                T s = gv[i];
                for (int j = i + 1; j < k; ++j) s -= H[j * (m + 1) + i] * y[j];
                const T hii = H[i * (m + 1) + i];
                y[i] = hii == T(0) ? T(0) : s / hii;
            }
        });
        for (int l = g.rank(); l < n; l += g.size()) {
            T s = 0;
            for (int j = 0; j < k; ++j) s += y[j] * V[j][l];
            wv[l] = s;
        }
        g.sync();
        if (pre) {
            precond_apply<RowLocalOnly>(g, A, o, ilu, w.precond, wv, z);
            g.sync();
        }
        const T* dx = pre ? z : wv;
        for (int l = g.rank(); l < n; l += g.size()) x[l] += dx[l];
        g.sync();
        claimed = estimate <= tau;
    }
}

/// The slot of x in a solver's workspace.
PORTLA_HD int x_slot(Solver solver) {
    return solver == Solver::cg ? slot_x : solver == Solver::bicgstab ? slot_bi_x : slot_gm_x;
}

/// The whole solve of one system with solver S: preconditioner set-up, then the iteration.
/// x (its slot) must hold the initial guess, or anything when !o.use_initial_guess.
template <Solver S, bool RowLocalOnly = false, typename G, typename T>
PORTLA_HD Outcome solve_system_with(G& g, const SystemMatrix<T>& A, const T* b, const Options& o,
                                    const IluPattern& ilu, Workspace<T>& w) {
    if (!o.use_initial_guess) fill(g, A.n, w.vec[x_slot(S)], T(0));
    g.sync();
    if (o.precond != Preconditioner::none && !precond_setup<RowLocalOnly>(g, A, o, ilu, w.precond))
        return {0, StopReason::singular_preconditioner};
    if constexpr (S == Solver::gmres) {
        return gmres<RowLocalOnly>(g, A, b, o, ilu, w);
    } else {
        // x's view: its memory, or registers loaded from it and stored back at the end
        constexpr int R = G::kRows;
        T* xm = w.vec[x_slot(S)];
        OwnVec<T, R> x = own_vec<R>(xm);
        if constexpr (R > 0) for_rows(g, A.n, [&](Row k) { x[k] = xm[k.i]; });
        Outcome out;
        if constexpr (S == Solver::cg)
            out = cg<RowLocalOnly>(g, A, b, o, ilu, w, x);
        else
            out = bicgstab<RowLocalOnly>(g, A, b, o, ilu, w, x);
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

/// ||b - A x|| of one system without storing the residual (double accumulation); also ||b||.
template <typename G, typename T>
PORTLA_HD void residual_norm(G& g, const SystemMatrix<T>& A, const T* b, const T* x, double* res,
                             double* bnorm) {
    double s = 0, sb = 0;
    for (int i = g.rank(); i < A.n; i += g.size()) {
        const double ri = double(b[i]) - A.template row_dot<double>(i, x);
        s += ri * ri;
        sb += double(b[i]) * double(b[i]);
    }
    g.sum2(s, sb);
    if (g.rank() == 0) {
        *res = group_sqrt(s);
        *bnorm = group_sqrt(sb);
    }
}

/// The CPU group: one thread does a whole system.
struct SerialGroup {
    static constexpr int kRows = 0;  ///< rows per member: any number (see for_rows)
    int rank() const { return 0; }
    int size() const { return 1; }
    void sync() const {}
    double sum(double v) const { return v; }
    void sum2(double&, double&) const {}
    template <typename F>
    void single(F&& f) const {
        f();
    }
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
