// Reference matrix product: the plain triple loop, each element of A B summed in double in
// the order l = 0, 1, ..., k-1, then scaled once. The variant is ignored: this backend has
// one implementation, the oracle of every test.
#include <algorithm>
#include <vector>

#include "core/kernels/gemm_kernels.hpp"

namespace portla::kernels::reference {

// Row by row: sum[j] accumulates a[i][l] b[l][j] for l = 0, 1, ... (B read along its rows).
template <typename T>
void gemm_impl(std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a, const T* b, T beta,
               T* c) {
    std::vector<double> sum(n);
    for (std::size_t i = 0; i < m; ++i) {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (std::size_t l = 0; l < k; ++l) {
            const double ail = a[i * k + l];
            for (std::size_t j = 0; j < n; ++j) sum[j] += ail * double(b[l * n + j]);
        }
        for (std::size_t j = 0; j < n; ++j) {
            const double scaled = double(alpha) * sum[j];
            c[i * n + j] = static_cast<T>(
                beta == T(0) ? scaled : scaled + double(beta) * double(c[i * n + j]));
        }
    }
}

template <typename T>
void gemm(tag, const Executor&, GemmVariant, std::size_t m, std::size_t n, std::size_t k, T alpha,
          const_view<T> a, const_view<T> b, T beta, view<T> c) {
    gemm_impl<T>(m, n, k, alpha, a.data, b.data, beta, c.data);
}

PORTLA_INSTANTIATE_GEMM_KERNELS(double);
PORTLA_INSTANTIATE_GEMM_KERNELS(float);

}  // namespace portla::kernels::reference
