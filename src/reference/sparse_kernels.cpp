// The sparse and aggregation kernels of the reference backend: the rows in order, one after the
// other (the oracle for every other backend).
#include <cstdint>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"

namespace portla::kernels::reference {
namespace {

template <typename F>
void for_rows(const Executor&, std::size_t first, std::size_t last, F f) {
    for (std::size_t i = first; i < last; ++i) f(i);
}

template <typename F>
std::size_t count_rows(const Executor&, std::size_t n, F f) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) count += static_cast<std::size_t>(f(i));
    return count;
}

}  // namespace

template <typename I>
void exclusive_scan(tag, const Executor&, const_view<I> in, view<I> out) {
    I sum = 0;
    out[0] = 0;
    for (std::size_t i = 0; i < in.size; ++i) out[i + 1] = sum += in[i];
}

#include "core/kernels/row_kernels.inc"

PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::reference
