/// \file
/// Compressed sparse row matrix on an executor: 32-bit indices, or 64-bit row offsets (and column
/// indices) where the matrix passes the 32-bit range or the caller asks for them (CsrIndex).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "portla/array.hpp"
#include "portla/matrix/csr_index.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla {

template <typename T>
/// Compressed sparse row matrix on an executor, values of type T (float or double), 0-based
/// indices. The index form (CsrIndex) is chosen at construction: 32-bit where the matrix fits,
/// else 64-bit row offsets (and column indices).
class Csr : public LinearOperator<T> {
public:
    /// From host CSR arrays. Checks row_ptrs monotone, column indices in range (BadInput). The
    /// index form: `index` (BadInput where it cannot hold the matrix), by default the narrowest.
    Csr(const Executor& exec, std::size_t rows, std::size_t cols,
        const std::vector<std::int32_t>& row_ptrs, const std::vector<std::int32_t>& col_idxs,
        const std::vector<T>& values, CsrIndex index = CsrIndex::automatic);
    /// From host CSR arrays with 64-bit row offsets (and 64-bit column indices): for matrices of
    /// 2^31 or more non-zeros (or columns). Checked and stored as by the constructor.
    static Csr from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int64_t>& row_ptrs,
                           const std::vector<std::int32_t>& col_idxs, const std::vector<T>& values,
                           CsrIndex index = CsrIndex::automatic);
    /// As above, with 64-bit column indices too (for more than 2^31 - 1 columns).
    static Csr from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int64_t>& row_ptrs,
                           const std::vector<std::int64_t>& col_idxs, const std::vector<T>& values,
                           CsrIndex index = CsrIndex::automatic);
    /// From coordinate data (sorted, duplicates summed); the index form as by the constructor.
    static Csr from_data(const Executor& exec, const MatrixData& data,
                         CsrIndex index = CsrIndex::automatic);
    /// From host CSR (io::read_matrix_market_csr), copied to `exec` (values converted to T).
    static Csr from_data(const Executor& exec, const CsrData& data,
                         CsrIndex index = CsrIndex::automatic);
    /// Over CSR arrays already in the memory of `exec` (a NumPy, CuPy or PyTorch matrix's arrays,
    /// for instance): the operator reads them in place, nothing is copied to a new allocation.
    /// The caller keeps them alive and unchanged while this Csr lives. The structure is checked
    /// as by the constructor (BadInput, DimensionMismatch), from a host copy of row_ptrs and
    /// col_idxs when they are device memory (made once here, then dropped); the diagonal
    /// (Jacobi) is computed on first use, from a host copy of the pattern and values. 32-bit
    /// indices only.
    static Csr borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values);
    /// As above, over 64-bit row offsets and 32-bit column indices (a CsrData's arrays): the
    /// column indices and values are read in place. The form is `index` (BadInput where it cannot
    /// hold the matrix, or for CsrIndex::int64, which needs 64-bit column indices), by default
    /// the narrowest: CsrIndex::offsets64 reads the offsets in place too (checked on the host,
    /// from a host copy when they are device memory); CsrIndex::int32 stores a 32-bit copy of
    /// the offsets (4 bytes per row, no copy of an entry), so a matrix that fits 32 bits keeps
    /// the 32-bit form that ILU(0), IC(0), block Jacobi and the vendor libraries need.
    static Csr borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int64_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values, CsrIndex index = CsrIndex::automatic);

    /// Over CSR arrays of 32-bit indices in the memory of `exec`, which the matrix takes over
    /// (the product and transpose of portla/sparse.hpp build their results so). The structure
    /// is checked where it lies, as by the constructor (BadInput, DimensionMismatch).
    static Csr adopt(const Executor& exec, std::size_t rows, std::size_t cols,
                     Array<std::int32_t> row_ptrs, Array<std::int32_t> col_idxs, Array<T> values);

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
    FusedOperator<T> fused() const override;
    /// True for 32-bit indices (the transpose is built by sparse::transpose).
    bool has_transpose() const override { return index_ == CsrIndex::int32; }
    /// y = A^T x (for complex values the adjoint, A^H x) through A^T stored as a Csr, built on
    /// the first call (once, thread-safe; complex values: on the host) and kept: one SpMV per
    /// call at the price of a second copy of the matrix. Throws Unsupported for 64-bit indices.
    void apply_transpose(const_view<T> x, view<T> y) const override;
    /// The cuda plan of a matrix with long rows, read-only: segments and row blocks
    /// (block_count == 0: no plan, the groups by the average row; see CsrLongRows).
    CsrLongRows long_rows() const;

    /// The widths of the stored indices (never CsrIndex::automatic).
    CsrIndex index() const { return index_; }
    /// The 32-bit row offsets; throws Unsupported when they are 64-bit (row_ptrs64()).
    const Array<std::int32_t>& row_ptrs() const;
    /// The 32-bit column indices; throws Unsupported when they are 64-bit (col_idxs64()).
    const Array<std::int32_t>& col_idxs() const;
    /// The 64-bit row offsets (index offsets64 or int64), else Unsupported.
    const Array<std::int64_t>& row_ptrs64() const;
    /// The 64-bit column indices (index int64), else Unsupported.
    const Array<std::int64_t>& col_idxs64() const;
    /// The non-zero values, row after row (nnz() entries).
    const Array<T>& values() const { return values_; }
    /// For the consumers that read the 32-bit arrays (ILU, block Jacobi, vendor libraries, ...):
    /// throws Unsupported "<consumer> needs a csr matrix with 32-bit indices ..." unless index()
    /// is CsrIndex::int32.
    void require_int32(const std::string& consumer) const;

private:
    Csr(std::size_t rows, std::size_t cols, CsrIndex index, Array<std::int32_t> row_ptrs,
        Array<std::int32_t> col_idxs, Array<std::int64_t> row_ptrs64,
        Array<std::int64_t> col_idxs64, Array<T> values, std::string defect);
    /// A 32-bit Csr over `row_ptrs` (borrowed or owned) and the borrowed columns and values,
    /// its pattern checked by the backend where it lies.
    static Csr borrow_int32(const Executor& exec, std::size_t rows, std::size_t cols,
                            Array<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                            const_view<T> values);
    template <typename P, typename C>
    static Csr build(const Executor& exec, std::size_t rows, std::size_t cols,
                     const std::vector<P>& row_ptrs, const std::vector<C>& col_idxs,
                     const std::vector<T>& values, CsrIndex index);
    /// The long rows' segments and row blocks on a backend that splits them (cuda; 32-bit
    /// form; common/csr_long_rows.hpp), planned where the offsets lie when the longest row
    /// (`longest` entries) is long for the backend's groups of `lanes` lanes; nothing when no
    /// row is long. The callers check KernelOptions::csr_split and that the backend splits
    /// (lanes > 0).
    void plan_long_rows(std::size_t longest, int lanes);
    /// f(row_ptrs view, col_idxs view) with the stored index types.
    template <typename F>
    decltype(auto) with_indices(F&& f) const;
    std::size_t rows_, cols_;
    CsrIndex index_ = CsrIndex::int32;
    Array<std::int32_t> row_ptrs_;
    Array<std::int32_t> col_idxs_;
    Array<std::int64_t> row_ptrs64_;  // index offsets64 or int64
    Array<std::int64_t> col_idxs64_;  // index int64
    Array<T> values_;
    // Filled at construction, or on the first diagonal() call of a borrowed Csr (once).
    mutable Array<T> diag_;
    mutable std::unique_ptr<std::once_flag> diag_once_;
    // A^T, built on the first apply_transpose() call (once).
    mutable std::shared_ptr<const Csr> transposed_;
    mutable std::unique_ptr<std::once_flag> transposed_once_;
    std::string defect_;  // structural_defect(), found once at construction
    // plan_long_rows: rows longer than long_from_ entries, segment -> (row, part), and the row
    // blocks of the others (read by apply() and the CG steps; their scratch is the backend's).
    std::size_t long_from_ = 0;
    Array<std::int32_t> long_rows_, long_parts_, long_blocks_;
};

}  // namespace portla
