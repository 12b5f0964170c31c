// The sparse and aggregation kernels of the omp backend: the rows shared over the thread team in
// chunks handed out as threads free up (the rows of a product differ widely in work), serial
// below parallel_threshold() rows. Each row's result does not depend on the thread that computes
// it; the transpose's scatter order does, and its rows are sorted after.
#include <omp.h>

#include <cstdint>
#include <vector>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

constexpr long long kChunk = 256;  // rows per hand-out

template <typename F>
void for_rows(const Executor&, std::size_t first, std::size_t last, F f) {
    if (last - first < parallel_threshold()) {
        for (std::size_t i = first; i < last; ++i) f(i);
        return;
    }
    const long long begin = static_cast<long long>(first), end = static_cast<long long>(last);
#pragma omp parallel for schedule(dynamic, kChunk)
    for (long long i = begin; i < end; ++i) f(static_cast<std::size_t>(i));
}

template <typename F>
std::size_t count_rows(const Executor&, std::size_t n, F f) {
    long long count = 0;
    const long long end = static_cast<long long>(n);
    if (n < parallel_threshold()) {
        for (long long i = 0; i < end; ++i) count += f(static_cast<std::size_t>(i));
        return static_cast<std::size_t>(count);
    }
#pragma omp parallel for schedule(static) reduction(+ : count)
    for (long long i = 0; i < end; ++i) count += f(static_cast<std::size_t>(i));
    return static_cast<std::size_t>(count);
}

}  // namespace

// Two passes over a static split: each thread sums its share, the shares' offsets are summed in
// thread order, then each thread writes its share's prefix sums from its offset.
template <typename I>
void exclusive_scan(tag, const Executor&, const_view<I> in, view<I> out) {
    const std::size_t n = in.size;
    out[0] = 0;
    if (n < parallel_threshold()) {
        I sum = 0;
        for (std::size_t i = 0; i < n; ++i) out[i + 1] = sum += in[i];
        return;
    }
    std::vector<I> offsets(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
#pragma omp parallel
    {
        const auto [first, last] = thread_range(n);
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
        I sum = 0;
        for (std::size_t i = first; i < last; ++i) sum += in[i];
        offsets[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (std::size_t k = 1; k < offsets.size(); ++k) offsets[k] += offsets[k - 1];
        sum = offsets[t];
        for (std::size_t i = first; i < last; ++i) out[i + 1] = sum += in[i];
    }
}

#include "core/kernels/row_kernels.inc"

PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::omp
