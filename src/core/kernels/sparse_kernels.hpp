// The sparse matrix kernels: prefix sums, the sparse matrix-matrix product (SpGEMM) and the
// transpose, declared once for every backend of the list (see core/dispatch.hpp). The work of
// each row is written once in src/common/sparse/sparse_rows.h and run by every backend (the
// C++ ones through core/kernels/row_kernels.inc, opencl through src/opencl/sparse_kernels.cl).
// CSR arrays are 32-bit (rp: rows + 1 offsets, ci, v). Kernels assume valid input (core checks).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_SPARSE_KERNELS(backend)                                                     \
    namespace backend {                                                                            \
    /* out[0] = 0, out[i + 1] = in[0] + ... + in[i] for i < in.size (out.size = in.size + 1) */    \
    template <typename I>                                                                          \
    void exclusive_scan(tag, const Executor& exec, const_view<I> in, view<I> out);                 \
    /* slots[i] = the capped hash-table slots of row i of A B (sparse_rows.h:                      \
       spgemm_table_slots), i < rows; b_cols: B's columns */                                       \
    void spgemm_slots(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> a_rp,  \
                      const_view<std::int32_t> a_ci, const_view<std::int32_t> b_rp, int b_cols,    \
                      view<std::int64_t> slots);                                                   \
    /* slots[i - first] = the full table of row i where counts[i - first] < 0 (its capped table    \
       overflowed), else 0, first <= i < last */                                                   \
    void spgemm_retry_slots(tag, const Executor& exec, std::size_t first, std::size_t last,        \
                            const_view<std::int32_t> a_rp, const_view<std::int32_t> a_ci,          \
                            const_view<std::int32_t> b_rp, int b_cols,                             \
                            const_view<std::int32_t> counts, view<std::int64_t> slots);            \
    /* Rows [first, last) of A B accumulated into their hash tables: row i's at offsets[i] - base  \
       in keys and vals (offsets indexed by i - first when `retry`, which skips the rows of no     \
       table); counts[i - first] = its distinct columns, -1 when they overflow the table */        \
    template <typename T>                                                                          \
    void spgemm_accumulate(tag, const Executor& exec, std::size_t first, std::size_t last,         \
                           const_view<std::int32_t> a_rp, const_view<std::int32_t> a_ci,           \
                           const_view<T> a_v, const_view<std::int32_t> b_rp,                       \
                           const_view<std::int32_t> b_ci, const_view<T> b_v,                       \
                           const_view<std::int64_t> offsets, std::int64_t base, int retry,         \
                           view<std::int32_t> keys, view<T> vals, view<std::int32_t> counts);      \
    /* Rows [first, last) of C = A B from their hash tables, each sorted by column, row i at       \
       c_rp[i]: from the retry tables (offsets2 indexed by i - first; empty: none) where a row     \
       has one, else from the first */                                                             \
    template <typename T>                                                                          \
    void spgemm_extract(tag, const Executor& exec, std::size_t first, std::size_t last,            \
                        const_view<std::int64_t> offsets, std::int64_t base,                       \
                        const_view<std::int32_t> keys, const_view<T> vals,                         \
                        const_view<std::int64_t> offsets2, const_view<std::int32_t> keys2,         \
                        const_view<T> vals2, const_view<std::int32_t> c_rp,                        \
                        view<std::int32_t> c_ci, view<T> c_v);                                     \
    /* counts[c] += the entries of column c (counts zeroed by the caller) */                       \
    void transpose_count(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp, \
                         const_view<std::int32_t> ci, view<std::int32_t> counts);                  \
    /* B = A^T from B's row offsets b_rp (filled: zeroed, one counter per row of B): each row of   \
       B sorted by column */                                                                       \
    template <typename T>                                                                          \
    void transpose_fill(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,  \
                        const_view<std::int32_t> ci, const_view<T> v, std::size_t b_rows,          \
                        const_view<std::int32_t> b_rp, view<std::int32_t> filled,                  \
                        view<std::int32_t> b_ci, view<T> b_v);                                     \
    }

#define PORTLA_INSTANTIATE_SPARSE_KERNELS(T)                                                     \
    template void spgemm_accumulate<T>(                                                          \
        tag, const Executor&, std::size_t, std::size_t, const_view<std::int32_t>,                \
        const_view<std::int32_t>, const_view<T>, const_view<std::int32_t>,                       \
        const_view<std::int32_t>, const_view<T>, const_view<std::int64_t>, std::int64_t, int,    \
        view<std::int32_t>, view<T>, view<std::int32_t>);                                        \
    template void spgemm_extract<T>(                                                             \
        tag, const Executor&, std::size_t, std::size_t, const_view<std::int64_t>, std::int64_t,  \
        const_view<std::int32_t>, const_view<T>, const_view<std::int64_t>,                       \
        const_view<std::int32_t>, const_view<T>, const_view<std::int32_t>, view<std::int32_t>,   \
        view<T>);                                                                                \
    template void transpose_fill<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>, \
                                    const_view<std::int32_t>, const_view<T>, std::size_t,        \
                                    const_view<std::int32_t>, view<std::int32_t>,                \
                                    view<std::int32_t>, view<T>)

#define PORTLA_INSTANTIATE_SCAN_KERNELS                                                        \
    template void exclusive_scan<std::int32_t>(tag, const Executor&, const_view<std::int32_t>, \
                                               view<std::int32_t>);                            \
    template void exclusive_scan<std::int64_t>(tag, const Executor&, const_view<std::int64_t>, \
                                               view<std::int64_t>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_SPARSE_KERNELS)
}  // namespace portla::kernels
