// Batched dense direct solve (LU with partial pivoting, one system after another): the vendor
// reference of the batched iterative solvers. reference: sequential; omp: parallel over
// systems; cuda: cuBLAS getrfBatched + getrsBatched (src/cuda/batch_direct_kernels.cu).
// Declared once for every backend of the list (see core/dispatch.hpp); each backend defines
// the kernel as a template and instantiates it with PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS.
// The kernel times the factorisations and solves themselves on the caller's Timer (core reads
// timer.seconds()); workspace allocation, copies and checks stay outside the timed region.
#pragma once

#include <cstddef>
#include <vector>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/timer.hpp"

// values: num_systems row-major n x n matrices (left unchanged: the factorisation works on a
// copy); b, x: num_systems * n. On return x_s = A_s^{-1} b_s, and info[s] (host, resized to
// num_systems) is 0 when system s was factored and solved, k > 0 when the k-th pivot (1-based)
// was exactly zero (x_s is then unspecified), -1 when A_s or b_s holds a NaN or Inf. `timer`
// (on exec): start() right before the first factorisation, stop() right after the last solve,
// each called exactly once on every path that returns (also when there is nothing to solve).
#define PORTLA_DECLARE_BATCH_DIRECT_KERNELS(backend)                                              \
    namespace backend {                                                                           \
    template <typename T>                                                                         \
    void batch_lu_solve(tag, const Executor& exec, std::size_t num_systems, std::size_t n,        \
                        const_view<T> values, const_view<T> b, view<T> x, std::vector<int>& info, \
                        Timer& timer);                                                            \
    }

#define PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(T)                                                 \
    template void batch_lu_solve<T>(tag, const Executor&, std::size_t, std::size_t, const_view<T>, \
                                    const_view<T>, view<T>, std::vector<int>&, Timer&)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_BATCH_DIRECT_KERNELS)
}  // namespace portla::kernels
