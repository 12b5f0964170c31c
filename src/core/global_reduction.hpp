// The one place where the monolithic solvers and their preconditioners reduce over vectors: the
// local reduction on the executor, then, when the operator is distributed
// (LinearOperator::communicator() with more than one rank), a sum over the ranks.
#pragma once

#include <cmath>
#include <limits>

#include "common/scalar.hpp"
#include "common/scaled_norm.hpp"
#include "portla/blas.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/operator.hpp"

namespace portla::solver::detail {

/// values[i] summed over A's ranks (in place); nothing for an operator of one process.
template <typename T>
void sum_over_ranks(const LinearOperator<T>& A, double* values, int count) {
    if (const auto* comm = A.communicator(); dist::is_distributed(comm))
        comm->allreduce_sum(values, count);
}

/// x . y (x^H y for complex values) over every rank of A (blocks), in double or complex of
/// double.
template <typename T>
common::wide_t<T> dot(const LinearOperator<T>& A, const_view<T> x, const_view<T> y) {
    common::wide_t<T> value = common::widen(blas::dot<T>(A.executor(), x, y));
    // a complex of double is two doubles (real part first)
    sum_over_ranks(A, reinterpret_cast<double*>(&value), common::is_complex_v<T> ? 2 : 1);
    return value;
}

/// ||x||_2 over every rank of A (blocks). Each rank's norm is blas::norm2's (scaled: no
/// underflow or overflow); their squares are summed in one allreduce, and when that sum is not
/// trustworthy (common::sum_of_squares_is_accurate: an overflow, or every local norm tiny) a
/// second pass sums the squares of the local norms divided by their maximum, so the global norm
/// keeps blas::norm2's range. NaN on any rank gives NaN on every rank.
template <typename T>
double norm2(const LinearOperator<T>& A, const_view<T> x) {
    const double local = double(common::real_part(blas::norm2<T>(A.executor(), x)));
    const auto* comm = A.communicator();
    if (!dist::is_distributed(comm)) return local;
    double sum = local * local;
    comm->allreduce_sum(&sum, 1);
    if (std::isnan(sum)) return sum;
    if (common::sum_of_squares_is_accurate(sum)) return std::sqrt(sum);
    double largest = local;
    comm->allreduce_max(&largest, 1);
    if (largest == 0 || std::isinf(largest)) return largest;
    double scaled = (local / largest) * (local / largest);
    comm->allreduce_sum(&scaled, 1);
    return largest * std::sqrt(scaled);
}

}  // namespace portla::solver::detail
