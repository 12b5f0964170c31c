/// \file
/// ELLPACK matrix: every row padded to the longest row; stored column-major (entry k of row i at
/// k * rows + i) so that consecutive threads read consecutive memory. Padding has column -1.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "portla/array.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla {

template <typename T>
/// ELLPACK matrix on an executor (file comment above): each row padded to max_row_nnz() entries,
/// stored column-major, padding with column -1.
class Ell : public LinearOperator<T> {
public:
    /// From coordinate data (sorted, duplicates summed). Throws BadInput past int32 range.
    static Ell from_data(const Executor& exec, const MatrixData& data);
    /// From host CSR arrays (rows + 1 row offsets; a row's entries in any order):
    /// the form for complex values, which MatrixData does not hold. Throws BadInput for a
    /// malformed structure, OutOfMemory when the padded arrays would not fit.
    static Ell from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int32_t>& row_ptrs,
                           const std::vector<std::int32_t>& col_idxs, const std::vector<T>& values);

    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return cols_; }
    const Executor& executor() const override { return values_.executor(); }
    /// y = A x   (SpMV)
    void apply(const_view<T> x, view<T> y) const override;
    std::size_t nnz() const override { return nnz_; }
    std::string structural_defect() const override { return defect_; }
    std::string format() const override { return "ell"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override;

    /// The ELL structure for the fused CG steps; none for complex values, whose fused steps
    /// take CSR operators only (CG then calls apply()).
    FusedOperator<T> fused() const override {
        FusedOperator<T> f;
        if constexpr (!std::is_floating_point_v<T>) return f;
        f.kind = FusedOperator<T>::Kind::ell;
        f.col_idxs = col_idxs_.data();
        f.values = values_.data();
        f.nnz = nnz_;
        f.width = max_row_nnz_;
        return f;
    }

    /// Entries per padded row: the longest row's non-zeros.
    std::size_t max_row_nnz() const { return max_row_nnz_; }

private:
    Ell(const Executor& exec, std::size_t rows, std::size_t cols, std::size_t width,
        std::size_t nnz, const std::vector<std::int32_t>& cols_cm, const std::vector<T>& vals_cm,
        const std::vector<T>& diag);
    std::size_t rows_, cols_, max_row_nnz_, nnz_;
    Array<std::int32_t> col_idxs_;
    Array<T> values_;
    Array<T> diag_;
    std::string defect_;  // structural_defect(), found once at construction
};

}  // namespace portla
