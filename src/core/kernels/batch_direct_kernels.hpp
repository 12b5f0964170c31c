// Batched dense direct solve (LU with partial pivoting, one system after another): the vendor
// reference of the batched iterative solvers. reference: sequential; omp: parallel over
// systems; cuda: cuBLAS getrfBatched + getrsBatched (src/cuda/batch_direct_kernels.cu).
#pragma once

#include <cstddef>
#include <vector>

#include "portla/array.hpp"
#include "portla/executor.hpp"

// values: num_systems row-major n x n matrices (left unchanged: the factorisation works on a
// copy); b, x: num_systems * n. On return x_s = A_s^{-1} b_s, and info[s] (host, resized to
// num_systems) is 0 when system s was factored and solved, k > 0 when the k-th pivot (1-based)
// was exactly zero (x_s is then unspecified), -1 when A_s or b_s holds a NaN or Inf. time_s:
// seconds of the factorisation and the solves alone (device events on cuda).
#define PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(T)                                                 \
    void batch_lu_solve(const ::portla::Executor& exec, std::size_t num_systems, std::size_t n, \
                        ::portla::const_view<T> values, ::portla::const_view<T> b,              \
                        ::portla::view<T> x, std::vector<int>& info, double& time_s)

namespace portla::kernels {
namespace reference {
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(double);
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(float);
}  // namespace reference
namespace omp {
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(double);
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(float);
}  // namespace omp
namespace cuda {
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(double);
PORTLA_DECLARE_BATCH_LU_SOLVE_KERNEL(float);
}  // namespace cuda
}  // namespace portla::kernels
