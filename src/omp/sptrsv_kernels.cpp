// Sparse triangular solves of the omp backend, level-scheduled: one thread team for the whole
// solve, the levels in order, a worksharing loop over the rows of each level (its implicit
// barrier separates the levels). No vendor library: vendor_sptrsv* throw Unsupported.
//
// When to go parallel. Each level costs a barrier (about 1 us for a few threads, a few us on a
// full socket) and a row of a 5- to 7-point factor about 5 ns of sequential work, so a level
// needs some hundreds of rows before splitting it pays: levels narrower than
// min_level_rows() = parallel_threshold() / 8 (512 by default) run on one thread of the team
// (omp single), and a whole solve whose mean level is that narrow, or of fewer rows than
// parallel_threshold(), runs as one sequential sweep in the natural order (no team, no
// indirection). A threshold of 0 (set_omp_parallel_threshold; PORTLA_OMP_MIN_PARALLEL=0 in the
// tests) makes every level parallel.
// Estimates, to be replaced by `portla bench ilu0-apply --backend omp` on the target machine: the
// only measurement so far, on a 2-core VM shared with two compilers (load 4), is no guide
// (64^3 Poisson: sequential 4.2 ms, every level parallel 29 ms, a barrier costing a time slice).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/kernels/sptrsv_kernels.hpp"
#include "omp/parallel.hpp"
#include "portla/error.hpp"

namespace portla::kernels::omp {
namespace {

std::size_t min_level_rows() { return parallel_threshold() / 8; }

// x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii, once every x_j it reads is final.
template <typename T>
inline void solve_row(const TriangularMatrix<T>& a, std::size_t i, const T* __restrict b,
                      T* __restrict x) {
    std::int32_t begin = a.row_ptrs[i], end = a.row_ptrs[i + 1];
    T diag = T(1);
    if (!a.unit_diagonal) diag = a.lower ? a.values[--end] : a.values[begin++];
    T sum = b[i];
    for (std::int32_t k = begin; k < end; ++k) sum -= a.values[k] * x[a.col_idxs[k]];
    x[i] = a.unit_diagonal ? sum : sum / diag;
}

}  // namespace

template <typename T>
std::unique_ptr<SptrsvPlan> sptrsv_analysis(tag, const Executor&, const TriangularMatrix<T>&) {
    return nullptr;
}

template <typename T>
void sptrsv(tag, const Executor&, const TriangularMatrix<T>& a, SptrsvPlan*, const_view<T> b,
            view<T> x) {
    const std::size_t n = a.rows, levels = a.levels(), narrow = min_level_rows();
    const bool parallel = n > 0 && n >= parallel_threshold() && levels > 0 && n >= narrow * levels;
    if (!parallel) {
        for (std::size_t step = 0; step < n; ++step)
            solve_row(a, a.lower ? step : n - 1 - step, b.data, x.data);
        return;
    }
#pragma omp parallel
    for (std::size_t level = 0; level < levels; ++level) {
        const std::size_t begin = a.level_ptrs[level], end = a.level_ptrs[level + 1];
        // The same branch on every thread: the team meets the same worksharing constructs.
        if (end - begin < narrow) {
#pragma omp single
            for (std::size_t k = begin; k < end; ++k) solve_row(a, a.level_rows[k], b.data, x.data);
        } else {
#pragma omp for schedule(static)
            for (std::size_t k = begin; k < end; ++k) solve_row(a, a.level_rows[k], b.data, x.data);
        }
    }
}

#include "core/kernels/no_vendor_sptrsv.inc"

PORTLA_INSTANTIATE_SPTRSV_KERNELS(double);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(float);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::omp
