// The CSR kernels by the plan of a matrix with long rows (common/csr_long_rows.hpp), 32-bit
// indices only. They are declared for the backends of PORTLA_FOR_EACH_CSR_SPLIT_BACKEND
// (include/portla/backend_list.hpp), each of which defines them and has splits_csr_long_rows
// set; Csr (core/csr.cpp) reaches them through dispatch and that trait, never by a backend's
// name. The other backends keep csr_apply for every matrix and have none of these.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"

namespace portla::kernels {

/// Whether the backend of tag Tag splits the long rows of a CSR matrix by the plan: false unless
/// PORTLA_FOR_EACH_CSR_SPLIT_BACKEND lists it.
template <typename Tag>
inline constexpr bool splits_csr_long_rows = false;

/// A plan's arrays where the backend made it (common::CsrLongRowPlan's rows, parts and blocks).
struct CsrPlanArrays {
    Array<std::int32_t> rows, parts, blocks;
};

}  // namespace portla::kernels

#define PORTLA_DECLARE_CSR_SPLIT_KERNELS(backend)                                                \
    namespace backend {                                                                          \
    /* The lanes per row of the backend's CSR groups (csr_apply and the fused CG steps) for      \
       `entries` entries in `rows` rows: a matrix with a row of more than                        \
       common::csr_long_from(lanes) entries is planned. */                                       \
    int csr_group_lanes(tag, std::size_t entries, std::size_t rows);                             \
    /* Readies the split kernels' scratch (the backend's own: a partial sum and a counter per    \
       segment) for a plan of `segments` segments on exec's device. At set-up, before any launch \
       of the plan (never while a graph is captured). */                                         \
    void csr_split_reserve(tag, const Executor& exec, std::size_t segments);                     \
    /* y = A x: the rows longer than long_rows.from entries by segments of a warp each, the      \
       others by row blocks. */                                                                  \
    template <typename T>                                                                        \
    void csr_split_apply(tag, const Executor& exec, std::size_t rows,                            \
                         const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,   \
                         const_view<T> values, const CsrLongRows& long_rows, const_view<T> x,    \
                         view<T> y);                                                             \
    /* The entries of the longest row of valid 32-bit offsets in device memory (a borrowed       \
       matrix is planned only when a row is long). */                                            \
    std::size_t csr_longest_row(tag, const Executor& exec, std::size_t rows,                     \
                                const_view<std::int32_t> row_ptrs);                              \
    /* common::plan_csr_long_rows(rows, row_ptrs, lanes)'s segments and row blocks, bit for bit, \
       made on the device from valid 32-bit offsets in device memory, for a matrix with a long   \
       row (the caller has checked csr_has_long_rows): a thread block per chunk of               \
       common::kCsrPlanRows rows counts, a scan places, the same walk writes. No copy of the     \
       offsets. */                                                                               \
    CsrPlanArrays csr_plan_long_rows(tag, const Executor& exec, std::size_t rows,                \
                                     const_view<std::int32_t> row_ptrs);                         \
    }                                                                                            \
    template <>                                                                                  \
    inline constexpr bool splits_csr_long_rows<backend::tag> = true;

namespace portla::kernels {
PORTLA_FOR_EACH_CSR_SPLIT_BACKEND(PORTLA_DECLARE_CSR_SPLIT_KERNELS)
}  // namespace portla::kernels
