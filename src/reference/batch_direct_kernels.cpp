// Batched dense direct solve, one system after another: the oracle of the batched solvers.
#include <chrono>
#include <vector>

#include "common/batch/dense_lu.hpp"
#include "core/kernels/batch_direct_kernels.hpp"

namespace portla::kernels::reference {

#define PORTLA_REFERENCE_BATCH_LU_SOLVE(T)                                                        \
    PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(T) {                                                     \
        (void)exec;                                                                               \
        info.assign(num_systems, 0);                                                              \
        std::vector<T> lu(n* n);                                                                  \
        const auto start = std::chrono::steady_clock::now();                                      \
        for (std::size_t s = 0; s < num_systems; ++s)                                             \
            info[s] = batch::detail::lu_solve(n, values.data + s * n * n, b.data + s * n,         \
                                              lu.data(), x.data + s * n);                         \
        time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); \
    }

PORTLA_REFERENCE_BATCH_LU_SOLVE(double)
PORTLA_REFERENCE_BATCH_LU_SOLVE(float)

#undef PORTLA_REFERENCE_BATCH_LU_SOLVE

}  // namespace portla::kernels::reference
