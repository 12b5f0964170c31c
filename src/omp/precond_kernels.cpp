// OpenMP preconditioner kernels. Block Jacobi: the blocks are split statically over the thread
// team (each block's rows by one thread, the same sums in the same order as the reference);
// below `parallel_threshold()` rows the loop runs serially outside any OpenMP construct.
#include <algorithm>

#include <complex>

#include "core/kernels/precond_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

// Rows of blocks [first, last).
template <typename T>
void block_jacobi_blocks(std::size_t first, std::size_t last, std::size_t bs, std::size_t n,
                         const T* blocks, const T* r, T* z) {
    for (std::size_t b = first; b < last; ++b) {
        const std::size_t start = b * bs, m = std::min(bs, n - start);
        const T* block = blocks + b * bs * bs;
        for (std::size_t i = 0; i < m; ++i) {
            T sum{0};
            for (std::size_t j = 0; j < m; ++j) sum += block[j * bs + i] * r[start + j];
            z[start + i] = sum;
        }
    }
}

}  // namespace

template <typename T>
void block_jacobi_apply(tag, const Executor&, int block_size, const_view<T> blocks, const_view<T> r,
                        view<T> z) {
    const std::size_t n = r.size, bs = static_cast<std::size_t>(block_size);
    const std::size_t num_blocks = (n + bs - 1) / bs;
    if (n < parallel_threshold()) {
        block_jacobi_blocks(0, num_blocks, bs, n, blocks.data, r.data, z.data);
        return;
    }
#pragma omp parallel
    {
        const auto [first, last] = thread_range(num_blocks);
        block_jacobi_blocks(first, last, bs, n, blocks.data, r.data, z.data);
    }
}

PORTLA_INSTANTIATE_PRECOND_KERNELS(double);
PORTLA_INSTANTIATE_PRECOND_KERNELS(float);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<float>);

}  // namespace portla::kernels::omp
