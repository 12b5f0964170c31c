// Sequential preconditioner kernels: obviously correct, the oracle for every other backend.
#include <algorithm>

#include <complex>

#include "core/kernels/precond_kernels.hpp"

namespace portla::kernels::reference {

template <typename T>
void block_jacobi_apply(tag, const Executor&, int block_size, const_view<T> blocks, const_view<T> r,
                        view<T> z) {
    const std::size_t n = r.size, bs = static_cast<std::size_t>(block_size);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t b = i / bs, start = b * bs, m = std::min(bs, n - start);
        const T* row = blocks.data + b * bs * bs + (i - start);  // entry (i - start, j) at j bs
        T sum{0};
        for (std::size_t j = 0; j < m; ++j) sum += row[j * bs] * r[start + j];
        z[i] = sum;
    }
}

PORTLA_INSTANTIATE_PRECOND_KERNELS(double);
PORTLA_INSTANTIATE_PRECOND_KERNELS(float);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<float>);

}  // namespace portla::kernels::reference
