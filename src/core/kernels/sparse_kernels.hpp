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

/// Whether the backend of tag Tag has the CPU product and transpose below: false unless
/// PORTLA_FOR_EACH_HOST_SPARSE_BACKEND lists it.
template <typename Tag>
inline constexpr bool has_host_sparse = false;

/// A CSR matrix's arrays, made by a kernel that learns its size as it goes.
template <typename T>
struct CsrArrays {
    Array<std::int32_t> rp, ci;
    Array<T> v;
};
}  // namespace portla::kernels

/// X(name) for every backend with a sparse product and transpose of its own for CPU threads
/// (below: a dense accumulator per thread, a transpose in row order); the others build them
/// from the row kernels every backend has.
#define PORTLA_FOR_EACH_HOST_SPARSE_BACKEND(X) X(omp)

// The sparse product and transpose of a backend whose threads are CPU cores, declared for the
// backends of PORTLA_FOR_EACH_HOST_SPARSE_BACKEND, each of
// which defines them and has has_host_sparse set; core/sparse.cpp reaches them through dispatch
// and that trait (and KernelOptions::host_sparse), never by a backend's name. Their results are
// the row kernels' above, bit for bit: the same pattern, each row sorted by column, each entry
// summed in the same order.
#define PORTLA_DECLARE_HOST_SPARSE_KERNELS(backend)                                             \
    namespace backend {                                                                         \
    /* C = A B (A: rows rows, B: b_cols columns), Gustavson's row by row product: each thread   \
       sums its rows in a dense accumulator of b_cols entries, marked per row, into a buffer of \
       its own; the rows are then copied to their places. */                                    \
    template <typename T>                                                                       \
    CsrArrays<T> host_spgemm(tag, const Executor& exec, std::size_t rows, std::size_t b_cols,   \
                             const_view<std::int32_t> a_rp, const_view<std::int32_t> a_ci,      \
                             const_view<T> a_v, const_view<std::int32_t> b_rp,                  \
                             const_view<std::int32_t> b_ci, const_view<T> b_v);                 \
    /* B = A^T (A: rows x cols): each thread counts the columns of its share of the rows, and   \
       writes them after the earlier threads' entries of each column, so every row of B comes   \
       out sorted without atomics or a sort. */                                                 \
    template <typename T>                                                                       \
    CsrArrays<T> host_transpose(tag, const Executor& exec, std::size_t rows, std::size_t cols,  \
                                const_view<std::int32_t> rp, const_view<std::int32_t> ci,       \
                                const_view<T> v);                                               \
    }                                                                                           \
    template <>                                                                                 \
    inline constexpr bool has_host_sparse<backend::tag> = true;

#define PORTLA_INSTANTIATE_HOST_SPARSE_KERNELS(T)                                               \
    template CsrArrays<T> host_spgemm<T>(tag, const Executor&, std::size_t, std::size_t,        \
                                         const_view<std::int32_t>, const_view<std::int32_t>,    \
                                         const_view<T>, const_view<std::int32_t>,               \
                                         const_view<std::int32_t>, const_view<T>);              \
    template CsrArrays<T> host_transpose<T>(tag, const Executor&, std::size_t, std::size_t,     \
                                            const_view<std::int32_t>, const_view<std::int32_t>, \
                                            const_view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_HOST_SPARSE_BACKEND(PORTLA_DECLARE_HOST_SPARSE_KERNELS)
}  // namespace portla::kernels
