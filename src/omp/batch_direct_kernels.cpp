// Batched dense direct solve on OpenMP: systems split over the threads, each thread with its
// own n x n scratch for the factors.
#include <vector>

#include "common/batch/dense_lu.hpp"
#include "core/kernels/batch_direct_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

template <typename T>
void lu_solve_batch(std::size_t num_systems, std::size_t n, const T* values, const T* b, T* x,
                    int* info) {
    // dynamic: a system with a zero pivot or a NaN stops early, so the work per system varies
#pragma omp parallel if (num_systems > 1)
    {
        std::vector<T> lu(n * n);
        const long long count = static_cast<long long>(num_systems);
#pragma omp for schedule(dynamic, 16)
        for (long long s = 0; s < count; ++s) {
            const std::size_t i = static_cast<std::size_t>(s);
            info[i] =
                batch::detail::lu_solve(n, values + i * n * n, b + i * n, lu.data(), x + i * n);
        }
    }
}

}  // namespace

template <typename T>
void batch_lu_solve(tag, const Executor&, std::size_t num_systems, std::size_t n,
                    const_view<T> values, const_view<T> b, view<T> x, std::vector<int>& info,
                    Timer& timer) {
    info.assign(num_systems, 0);
    timer.start();
    lu_solve_batch(num_systems, n, values.data, b.data, x.data, info.data());
    timer.stop();
}

PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(float);

}  // namespace portla::kernels::omp
