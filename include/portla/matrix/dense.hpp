/// \file
/// Dense row-major matrix on an executor.
#pragma once

#include <memory>
#include <mutex>

#include "portla/array.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla {

template <typename T>
/// Dense row-major matrix on an executor (entry (i, j) at i * cols() + j), values of type T.
class Dense : public LinearOperator<T> {
public:
    /// From row-major host values (size rows * cols). Throws DimensionMismatch.
    Dense(const Executor& exec, std::size_t rows, std::size_t cols, const std::vector<T>& values);
    /// From coordinate data (duplicates summed). Throws BadInput when too large for int32 rows.
    static Dense from_data(const Executor& exec, const MatrixData& data);
    /// Over rows * cols row-major values already in the memory of `exec` (a NumPy, CuPy or
    /// PyTorch array, for instance), read in place: nothing is copied to a new allocation. The
    /// caller keeps them alive and unchanged while this Dense lives. The diagonal (Jacobi) is
    /// computed on first use, from a host copy of the values.
    static Dense borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                        const_view<T> values);

    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return cols_; }
    const Executor& executor() const override { return values_.executor(); }
    /// y = A x   (gemv; bytes: (rows*cols + cols + rows) sizeof(T))
    void apply(const_view<T> x, view<T> y) const override;
    std::size_t nnz() const override { return rows_ * cols_; }
    std::string format() const override { return "dense"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override;

    /// Every entry, row-major (rows() * cols()).
    const Array<T>& values() const { return values_; }

private:
    Dense(std::size_t rows, std::size_t cols, Array<T> values);
    std::size_t rows_, cols_;
    Array<T> values_;
    // Filled at construction, or on the first diagonal() call of a borrowed Dense (once).
    mutable Array<T> diag_;
    mutable std::unique_ptr<std::once_flag> diag_once_;
};

}  // namespace portla
