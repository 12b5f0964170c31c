// Sparse triangular solves (x = A^-1 b, A triangular CSR), declared once for every backend of the
// list (see core/dispatch.hpp). Each backend defines them as templates in
// src/<name>/sptrsv_kernels.{cpp,cu} and instantiates them with PORTLA_INSTANTIATE_SPTRSV_KERNELS:
// sequential substitution on reference (the oracle), level-scheduled on omp and cuda, and the
// vendor library's solve (cuSPARSE SpSV on cuda; Unsupported elsewhere). Kernels assume valid
// input: the factors are built and checked in core (src/core/ilu.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

namespace portla::kernels {

/// A triangular matrix and its level schedule. Every view is in the executor's memory except
/// level_ptrs (host memory).
///
/// Storage: CSR, columns sorted within each row, no duplicates. Lower (forward substitution):
/// columns j <= i, the diagonal (when stored) the last entry of its row. Upper (backward
/// substitution): columns j >= i, the diagonal the first entry. unit_diagonal: no diagonal is
/// stored and a_ii = 1 is implied; otherwise every row stores a non-zero diagonal.
///
/// Level schedule: level_rows holds the rows in level order, level k being
/// level_rows[level_ptrs[k], level_ptrs[k + 1]); a row of level k depends only on rows of
/// levels < k, so the order of level_rows is a topological order of the solve.
template <typename T>
struct TriangularMatrix {
    std::size_t rows = 0;
    bool lower = true;
    bool unit_diagonal = false;
    const_view<std::int32_t> row_ptrs, col_idxs;
    const_view<T> values;
    const_view<std::int32_t> level_rows;
    const_view<std::int32_t> level_ptrs;  // host memory, levels + 1 entries
    std::size_t levels() const { return level_ptrs.size == 0 ? 0 : level_ptrs.size - 1; }
};

/// State a backend keeps between the solves of one matrix (device buffers, vendor
/// descriptors), created once by an analysis kernel and passed back to every solve. Owned by
/// the caller; one solve at a time per plan.
struct SptrsvPlan {
    virtual ~SptrsvPlan() = default;
};

}  // namespace portla::kernels

#define PORTLA_DECLARE_SPTRSV_KERNELS(backend)                                                    \
    namespace backend {                                                                           \
    /* the plan of sptrsv for `a` (nullptr when the backend keeps no state) */                    \
    template <typename T>                                                                         \
    std::unique_ptr<SptrsvPlan> sptrsv_analysis(tag, const Executor& exec,                        \
                                                const TriangularMatrix<T>& a);                    \
    /* x = A^-1 b by portla's own kernels; x and b of a.rows, not aliased */                      \
    template <typename T>                                                                         \
    void sptrsv(tag, const Executor& exec, const TriangularMatrix<T>& a, SptrsvPlan* plan,        \
                const_view<T> b, view<T> x);                                                      \
    /* the vendor plan (analysis) for `a`; throws Unsupported without a vendor sparse library */  \
    template <typename T>                                                                         \
    std::unique_ptr<SptrsvPlan> vendor_sptrsv_analysis(tag, const Executor& exec,                 \
                                                       const TriangularMatrix<T>& a);             \
    /* x = A^-1 b by the vendor library, through the plan of vendor_sptrsv_analysis */            \
    template <typename T>                                                                         \
    void vendor_sptrsv(tag, const Executor& exec, const TriangularMatrix<T>& a, SptrsvPlan& plan, \
                       const_view<T> b, view<T> x);                                               \
    }

#define PORTLA_INSTANTIATE_SPTRSV_KERNELS(T)                                                      \
    template std::unique_ptr<SptrsvPlan> sptrsv_analysis<T>(tag, const Executor&,                 \
                                                            const TriangularMatrix<T>&);          \
    template void sptrsv<T>(tag, const Executor&, const TriangularMatrix<T>&, SptrsvPlan*,        \
                            const_view<T>, view<T>);                                              \
    template std::unique_ptr<SptrsvPlan> vendor_sptrsv_analysis<T>(tag, const Executor&,          \
                                                                   const TriangularMatrix<T>&);   \
    template void vendor_sptrsv<T>(tag, const Executor&, const TriangularMatrix<T>&, SptrsvPlan&, \
                                   const_view<T>, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_SPTRSV_KERNELS)
}  // namespace portla::kernels
