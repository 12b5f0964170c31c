// Sparse triangular solves of the reference backend: plain sequential substitution in the
// natural row order (forward for lower, backward for upper), ignoring the level schedule. The
// oracle of the level-scheduled kernels. No vendor library: vendor_sptrsv* throw Unsupported.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/kernels/sptrsv_kernels.hpp"
#include "portla/error.hpp"

namespace portla::kernels::reference {

template <typename T>
std::unique_ptr<SptrsvPlan> sptrsv_analysis(tag, const Executor&, const TriangularMatrix<T>&) {
    return nullptr;
}

// Row i: x_i = (b_i - sum_{j != i} a_ij x_j) / a_ii, rows in dependency order.
template <typename T>
void sptrsv(tag, const Executor&, const TriangularMatrix<T>& a, SptrsvPlan*, const_view<T> b,
            view<T> x) {
    const std::size_t n = a.rows;
    for (std::size_t step = 0; step < n; ++step) {
        const std::size_t i = a.lower ? step : n - 1 - step;
        std::int32_t begin = a.row_ptrs[i], end = a.row_ptrs[i + 1];
        T diag = T(1);
        if (!a.unit_diagonal) {
            if (a.lower) {
                diag = a.values[--end];
            } else {
                diag = a.values[begin++];
            }
        }
        T sum = b[i];
        for (std::int32_t k = begin; k < end; ++k) sum -= a.values[k] * x[a.col_idxs[k]];
        x[i] = a.unit_diagonal ? sum : sum / diag;
    }
}

#include "core/kernels/no_vendor_sptrsv.inc"

PORTLA_INSTANTIATE_SPTRSV_KERNELS(double);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(float);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::reference
