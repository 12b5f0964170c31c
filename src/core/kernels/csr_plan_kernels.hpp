// The long-row plan of a CSR matrix made on the device (cuda/csr_plan.cu): the plan of
// common::plan_csr_long_rows without copying the row offsets to the host.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

namespace portla::kernels::cuda {

/// The plan's arrays on the device (common::CsrLongRowPlan's rows, parts and blocks).
struct CsrDevicePlan {
    Array<std::int32_t> rows, parts, blocks;
};

/// common::plan_csr_long_rows(rows, row_ptrs, lanes)'s segments and row blocks, bit for bit, from
/// valid 32-bit offsets in device memory, for a matrix with a long row (the caller has checked
/// csr_has_long_rows): a thread block per chunk of common::kCsrPlanRows rows counts, a scan places,
/// the same walk writes.
CsrDevicePlan csr_plan_long_rows(tag, const Executor& exec, std::size_t rows,
                                 const_view<std::int32_t> row_ptrs);

}  // namespace portla::kernels::cuda
