// Compressed sparse row matrix (int32 indices) on an executor.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "portla/array.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla {

template <typename T>
class Csr : public LinearOperator<T> {
public:
    /// From host CSR arrays. Checks row_ptrs monotone, column indices in range (BadInput).
    Csr(const Executor& exec, std::size_t rows, std::size_t cols,
        const std::vector<std::int32_t>& row_ptrs, const std::vector<std::int32_t>& col_idxs,
        const std::vector<T>& values);
    /// From coordinate data (sorted, duplicates summed). Throws BadInput past int32 range.
    static Csr from_data(const Executor& exec, const MatrixData& data);
    /// From host CSR (io::read_matrix_market_csr), copied to `exec` (values converted to T).
    static Csr from_data(const Executor& exec, const CsrData& data);
    /// Over CSR arrays already in the memory of `exec` (a NumPy, CuPy or PyTorch matrix's arrays,
    /// for instance): the operator reads them in place, nothing is copied to a new allocation.
    /// The caller keeps them alive and unchanged while this Csr lives. The structure is checked
    /// as by the constructor (BadInput, DimensionMismatch), from a host copy of row_ptrs and
    /// col_idxs when they are device memory (made once here, then dropped); the diagonal
    /// (Jacobi) is computed on first use, from a host copy of the pattern and values.
    static Csr borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values);

    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return cols_; }
    const Executor& executor() const override { return values_.executor(); }
    /// y = A x   (SpMV)
    void apply(const_view<T> x, view<T> y) const override;
    std::size_t nnz() const override { return values_.size(); }
    std::string structural_defect() const override { return defect_; }
    std::string format() const override { return "csr"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override;
    FusedOperator<T> fused() const override {
        FusedOperator<T> f;
        f.kind = FusedOperator<T>::Kind::csr;
        f.row_ptrs = row_ptrs_.data();
        f.col_idxs = col_idxs_.data();
        f.values = values_.data();
        f.nnz = values_.size();
        return f;
    }

    const Array<std::int32_t>& row_ptrs() const { return row_ptrs_; }
    const Array<std::int32_t>& col_idxs() const { return col_idxs_; }
    const Array<T>& values() const { return values_; }

private:
    Csr(std::size_t rows, std::size_t cols, Array<std::int32_t> row_ptrs,
        Array<std::int32_t> col_idxs, Array<T> values, std::string defect);
    std::size_t rows_, cols_;
    Array<std::int32_t> row_ptrs_;
    Array<std::int32_t> col_idxs_;
    Array<T> values_;
    // Filled at construction, or on the first diagonal() call of a borrowed Csr (once).
    mutable Array<T> diag_;
    mutable std::unique_ptr<std::once_flag> diag_once_;
    double avg_row_nnz_ = 0;
    std::string defect_;  // structural_defect(), found once at construction
};

}  // namespace portla
