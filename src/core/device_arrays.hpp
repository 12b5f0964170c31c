// Small steps over index arrays in an executor's memory, shared by the sparse products and the
// multigrid set-up: one entry read back, and exclusive prefix sums.
#pragma once

#include <cstddef>

#include "core/kernels/sparse_kernels.hpp"
#include "portla/array.hpp"

namespace portla::detail {

/// The entry `i` of an array in any executor's memory, read back.
template <typename I>
I read_at(const Array<I>& a, std::size_t i) {
    I value{};
    Executor::copy_bytes(Executor::reference(), &value, a.executor(), a.data() + i, sizeof(I));
    return value;
}

/// The exclusive prefix sums of `in` (in.size() + 1 entries: 0, in[0], in[0] + in[1], ...).
template <typename I>
Array<I> prefix_sums(const Executor& exec, const Array<I>& in) {
    Array<I> out(exec, in.size() + 1);
    dispatch<KernelFamily::sparse>(
        exec, [&](auto backend) { exclusive_scan(backend, exec, in.get_view(), out.get_view()); });
    return out;
}

}  // namespace portla::detail
