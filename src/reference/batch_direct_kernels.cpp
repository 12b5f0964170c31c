// Batched dense direct solve, one system after another: the oracle of the batched solvers.
#include <vector>

#include "common/batch/dense_lu.hpp"
#include "core/kernels/batch_direct_kernels.hpp"

namespace portla::kernels::reference {

template <typename T>
void batch_lu_solve(tag, const Executor&, std::size_t num_systems, std::size_t n,
                    const_view<T> values, const_view<T> b, view<T> x, std::vector<int>& info,
                    Timer& timer) {
    info.assign(num_systems, 0);
    std::vector<T> lu(n * n);
    timer.start();
    for (std::size_t s = 0; s < num_systems; ++s)
        info[s] = batch::detail::lu_solve(n, values.data + s * n * n, b.data + s * n, lu.data(),
                                          x.data + s * n);
    timer.stop();
}

PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(float);

}  // namespace portla::kernels::reference
