// How the rows of an operator divide the work of a loop over them, for the CPU loop policies
// (src/omp/loops.hpp, src/reference/loops.hpp): `EvenRows` (stencil, ELL: a static split by
// count) or a callable start(i), nondecreasing, start(n) the total (CSR: row_ptrs[i] + i,
// entries + rows), which the omp policy splits by work instead of by count.
#pragma once

#include <cstddef>

namespace portla::common {

struct EvenRows {};

/// start(i) = row_ptrs[i] + i: a CSR row costs its entries plus one.
template <typename P>
auto csr_row_work(const P* row_ptrs) {
    return [row_ptrs](std::size_t i) { return static_cast<std::size_t>(row_ptrs[i]) + i; };
}

}  // namespace portla::common
