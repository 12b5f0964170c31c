/// \file
/// LinearOperator: y = A x, for stored matrices, matrix-free operators and user callbacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/csr_index.hpp"

namespace portla {

namespace dist {
class Communicator;
}

/// How the solvers' fused kernels may read an operator directly instead of calling apply():
/// the dim-D Poisson stencil on `points` per dimension, CSR (its index widths in `index`: 32-bit
/// row_ptrs and col_idxs, or 64-bit offsets in row_ptrs64 with col_idxs or col_idxs64) or ELL.
/// `none` for every other operator (the solvers then call apply()).
/// The long rows of a CSR matrix on cuda (src/common/csr_long_rows.hpp), read-only: rows of
/// more than `from` entries, split into `segments` segments of one warp each (segment s: part
/// parts[s] of row rows[s]); every row lies in a row block [blocks[b], blocks[b + 1]),
/// b < block_count (a long row in a block of its own, which the row-block loop skips).
/// block_count == 0: no plan (no row longer than 32 entries per lane of the groups, or a form the
/// plan does not take); a plan may have no segment (its longest row at most `from` entries). The
/// scratch the kernels write (a partial sum and a counter per segment) is the backend's own.
struct CsrLongRows {
    /// Rows of more than this many entries are split.
    std::size_t from = 0;
    /// Number of segments (one warp each).
    std::size_t segments = 0;
    /// rows[s]: the row segment s belongs to.
    const std::int32_t* rows = nullptr;
    /// parts[s]: which part of its row segment s is.
    const std::int32_t* parts = nullptr;
    /// Number of row blocks (0: no plan).
    std::size_t block_count = 0;
    /// block_count + 1 row offsets of the row blocks.
    const std::int32_t* blocks = nullptr;
};

template <typename T>
/// An operator's structure as the fused solver kernels read it (see the comment above): device
/// pointers of the operator's executor, valid while the operator lives.
struct FusedOperator {
    /// Which structure is described (none: the solvers call apply()).
    enum class Kind { none, stencil, csr, ell };
    /// The structure described.
    Kind kind = Kind::none;
    /// stencil: dimensions of the grid.
    int dim = 0;
    /// stencil: points per dimension.
    std::size_t points = 0;
    /// csr: 32-bit row offsets (index int32).
    const std::int32_t* row_ptrs = nullptr;
    /// csr: by row; ell: column-major, `width` entries per row, padding column -1.
    const std::int32_t* col_idxs = nullptr;
    /// csr: by row; ell: column-major, as col_idxs.
    const T* values = nullptr;
    CsrIndex index = CsrIndex::int32;          ///< csr: which of the index pointers are set
    const std::int64_t* row_ptrs64 = nullptr;  ///< csr, index offsets64 or int64
    const std::int64_t* col_idxs64 = nullptr;  ///< csr, index int64
    /// Stored non-zeros.
    std::size_t nnz = 0;
    /// ell: entries per padded row.
    std::size_t width = 0;
    CsrLongRows long_rows;  ///< csr with 32-bit indices on cuda
};

template <typename T>
/// y = A x for a stored matrix, a matrix-free operator or a user's callback: what every solver
/// takes. x and y live in executor()'s memory. Derive from it (or use CallbackOperator) for an
/// operator of one's own; only rows, cols, executor, apply and format must be defined.
class LinearOperator {
public:
    virtual ~LinearOperator() = default;

    /// Rows of A (for a distributed operator: this rank's rows).
    virtual std::size_t rows() const = 0;
    /// Columns of A (for a distributed operator: this rank's part of x).
    virtual std::size_t cols() const = 0;
    /// The executor whose memory x and y must live in.
    virtual const Executor& executor() const = 0;
    /// y = A x. x and y must not alias; sizes cols() and rows(). Asynchronous on cuda.
    virtual void apply(const_view<T> x, view<T> y) const = 0;
    /// y = A x (as apply()) and, where the operator has such a path (dist::DistributedStencil),
    /// dot[0] = x^T y over this process's rows (a distributed operator's rank part, not summed
    /// over the ranks) in the same pass over memory, returning true; otherwise (the default)
    /// apply() alone, dot untouched, returning false. Sizes cols(), rows() and 1 (dot in
    /// executor()'s memory), no aliasing. Asynchronous on cuda.
    virtual bool apply_and_dot(const_view<T> x, view<T> y, view<T> dot) const {
        (void)dot;
        apply(x, y);
        return false;
    }
    /// Stored (or, for matrix-free operators, implied) non-zeros; 0 when unknown.
    virtual std::size_t nnz() const { return 0; }
    /// "dense", "csr", "ell", "stencil", "callback", ...
    virtual std::string format() const = 0;
    /// Whether `diagonal` is available (needed by Jacobi preconditioning).
    virtual bool has_diagonal() const { return false; }
    /// d = diag(A), in the executor's memory. Throws BadInput when not available.
    virtual void diagonal(view<T> d) const;

    /// Why the stored structure makes this square operator singular whatever its values (an
    /// empty row or column, see MatrixData::structural_defect), or "" when it does not show or
    /// the operator has no stored structure. The solvers refuse a defect before they start.
    virtual std::string structural_defect() const { return {}; }

    /// The operator's structure for fused solver kernels (device pointers of executor()).
    virtual FusedOperator<T> fused() const { return {}; }

    /// For an operator distributed over ranks (rows(), cols() and the vectors are this rank's
    /// part): the communicator every reduction of a solver (dot products, norms) is summed over,
    /// and apply() is collective. nullptr for an operator of one process.
    virtual const dist::Communicator* communicator() const { return nullptr; }
    /// What the preconditioners that factor or invert A's entries (block Jacobi, ILU(0), IC(0))
    /// are built from: the operator itself, or for a distributed one its diagonal block (the
    /// local rows and local columns, as PETSc's block Jacobi with a local ILU per rank).
    virtual const LinearOperator<T>& diagonal_block() const { return *this; }

    /// apply() with the sizes checked (DimensionMismatch).
    void checked_apply(const_view<T> x, view<T> y) const;

    /// Whether apply_transpose is available (needed by bicg, qmr, lsqr and lsmr).
    virtual bool has_transpose() const { return false; }
    /// y = A^T x: x of rows() and y of cols() entries, not aliasing. Asynchronous on cuda.
    /// Throws Unsupported when has_transpose() is false.
    virtual void apply_transpose(const_view<T> x, view<T> y) const;
};

/// An operator only the caller knows how to apply: `apply(x, y)` must compute y = A x with x
/// and y in the memory of `exec`. An optional `diagonal(d)` enables Jacobi preconditioning; an
/// optional `transpose(x, y)`, y = A^T x, enables apply_transpose.
template <typename T>
class CallbackOperator : public LinearOperator<T> {
public:
    /// y = A x, x of cols() and y of rows() entries in the executor's memory.
    using ApplyFn = std::function<void(const_view<T> x, view<T> y)>;
    /// d = diag(A), rows() entries in the executor's memory.
    using DiagonalFn = std::function<void(view<T> d)>;

    /// A rows x cols operator on `exec` applied by `apply`; with `diagonal`, has_diagonal() is true
    /// and Jacobi preconditioning works; with `transpose` (y = A^T x, x of rows() and y of cols()
    /// entries), has_transpose() is true.
    CallbackOperator(const Executor& exec, std::size_t rows, std::size_t cols, ApplyFn apply,
                     DiagonalFn diagonal = {}, ApplyFn transpose = {})
        : exec_(exec),
          rows_(rows),
          cols_(cols),
          apply_(std::move(apply)),
          diagonal_(std::move(diagonal)),
          transpose_(std::move(transpose)) {}

    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return cols_; }
    const Executor& executor() const override { return exec_; }
    void apply(const_view<T> x, view<T> y) const override { apply_(x, y); }
    std::string format() const override { return "callback"; }
    bool has_diagonal() const override { return static_cast<bool>(diagonal_); }
    void diagonal(view<T> d) const override;
    bool has_transpose() const override { return static_cast<bool>(transpose_); }
    void apply_transpose(const_view<T> x, view<T> y) const override;

private:
    Executor exec_;
    std::size_t rows_, cols_;
    ApplyFn apply_;
    DiagonalFn diagonal_;
    ApplyFn transpose_;
};

}  // namespace portla
