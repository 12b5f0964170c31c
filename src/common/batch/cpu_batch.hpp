// The batch kernels of the CPU backends: one system per thread (SerialGroup). The reference
// backend loops over systems in order, the omp backend hands them to its threads.
#pragma once

#include <vector>

#include "common/batch/system_solvers.hpp"

namespace portla::batch::detail {

/// Per-thread work storage of a CPU solve (every slot but x, the preconditioner, scalars).
template <typename T>
class CpuWorkspace {
public:
    explicit CpuWorkspace(const BatchArgs<T>& a) {
        const Options& o = a.options;
        slots_ = slots_needed(o.solver, o.restart);
        const long long nnz = a.nnz;
        storage_.resize(static_cast<std::size_t>(slots_) * a.n +
                        precond_elems(o.precond, a.n, o.block_size, nnz) +
                        scalar_elems(o.solver, o.restart));
        T* next = storage_.data();
        for (int k = 0; k < slots_; ++k, next += a.n) w_.vec[k] = next;
        w_.precond = next;
        w_.scalars = next + precond_elems(o.precond, a.n, o.block_size, nnz);
        x_slot_ = x_slot(o.solver);
    }
    /// Solves system s (x in place in a.x).
    void solve(const BatchArgs<T>& a, int s) {
        SerialGroup g;
        w_.vec[x_slot_] = a.x + static_cast<long long>(s) * a.n;
        const Outcome out = solve_system(g, a.system(s), a.b + static_cast<long long>(s) * a.n,
                                         a.options, a.ilu, w_);
        a.iterations[s] = out.iterations;
        a.reasons[s] = out.reason;
    }

private:
    int slots_ = 0, x_slot_ = 0;
    std::vector<T> storage_;
    Workspace<T> w_;
};

template <typename T>
void residual_norm_of(const BatchArgs<T>& a, int s, double* res, double* bnorm) {
    SerialGroup g;
    const long long off = static_cast<long long>(s) * a.n;
    residual_norm(g, a.system(s), a.b + off, a.x + off, res + s, bnorm + s);
}

template <typename T>
void apply_of(const BatchArgs<T>& a, int s, const T* x, T* y) {
    SerialGroup g;
    const long long off = static_cast<long long>(s) * a.n;
    spmv(g, a.system(s), x + off, y + off);
}

}  // namespace portla::batch::detail
