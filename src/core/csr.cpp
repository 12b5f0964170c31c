#include "portla/matrix/csr.hpp"

#include "core/kernels/matrix_kernels.hpp"
#include "core/matrix_checks.hpp"
#include "portla/blas.hpp"

namespace portla {
namespace {

void check_structure(std::size_t rows, std::size_t cols, const std::vector<std::int32_t>& row_ptrs,
                     const std::vector<std::int32_t>& col_idxs) {
    if (row_ptrs.size() != rows + 1)
        throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size());
    if (row_ptrs[0] != 0) throw BadInput("Csr: row_ptrs[0] must be 0");
    for (std::size_t i = 0; i < rows; ++i)
        if (row_ptrs[i + 1] < row_ptrs[i])
            throw BadInput("Csr: row_ptrs decrease at row " + std::to_string(i));
    if (static_cast<std::size_t>(row_ptrs[rows]) != col_idxs.size())
        throw DimensionMismatch("Csr col_idxs", row_ptrs[rows], col_idxs.size());
    for (std::size_t k = 0; k < col_idxs.size(); ++k)
        if (col_idxs[k] < 0 || static_cast<std::size_t>(col_idxs[k]) >= cols)
            throw BadInput("Csr: column index " + std::to_string(col_idxs[k]) + " at entry " +
                           std::to_string(k) + " out of range [0, " + std::to_string(cols) + ")");
}

template <typename T>
std::vector<T> diagonal_of(std::size_t rows, const std::vector<std::int32_t>& row_ptrs,
                           const std::vector<std::int32_t>& col_idxs,
                           const std::vector<T>& values) {
    std::vector<T> d(rows, T{0});
    for (std::size_t i = 0; i < rows; ++i)
        for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
            if (static_cast<std::size_t>(col_idxs[k]) == i) d[i] += values[k];
    return d;
}

}  // namespace

template <typename T>
Csr<T>::Csr(const Executor& exec, std::size_t rows, std::size_t cols,
            const std::vector<std::int32_t>& row_ptrs, const std::vector<std::int32_t>& col_idxs,
            const std::vector<T>& values)
    : rows_(rows),
      cols_(cols),
      row_ptrs_(
          (check_structure(rows, cols, row_ptrs, col_idxs), Array<std::int32_t>(exec, row_ptrs))),
      col_idxs_(exec, col_idxs),
      values_(values.size() == col_idxs.size()
                  ? Array<T>(exec, values)
                  : throw DimensionMismatch("Csr values", col_idxs.size(), values.size())),
      diag_(exec, diagonal_of(rows, row_ptrs, col_idxs, values)),
      defect_(detail::structural_defect(rows, cols, [&](auto&& f) {
          for (std::size_t i = 0; i < rows; ++i)
              for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
                  f(i, static_cast<std::size_t>(col_idxs[k]));
      })) {}

template <typename T>
Csr<T> Csr<T>::from_data(const Executor& exec, const MatrixData& input) {
    detail::check_int32_dims("csr", input);
    MatrixData copy;
    const MatrixData& data = detail::sorted_entries(input, copy);
    const auto rows = static_cast<std::size_t>(data.rows);
    std::vector<std::int32_t> row_ptrs(rows + 1, 0), col_idxs(data.entries());
    std::vector<T> values(data.entries());
    for (std::size_t k = 0; k < data.entries(); ++k) {
        ++row_ptrs[data.row_idx[k] + 1];
        col_idxs[k] = static_cast<std::int32_t>(data.col_idx[k]);
        values[k] = static_cast<T>(data.values[k]);
    }
    for (std::size_t i = 0; i < rows; ++i) row_ptrs[i + 1] += row_ptrs[i];
    return Csr(exec, rows, static_cast<std::size_t>(data.cols), row_ptrs, col_idxs, values);
}

template <typename T>
void Csr<T>::apply(const_view<T> x, view<T> y) const {
    if (rows_ == 0) return;
    const auto& exec = executor();
    dispatch(exec, [&](auto backend) {
        csr_apply(backend, exec, rows_, row_ptrs_.get_view(), col_idxs_.get_view(),
                  values_.get_view(), x, y);
    });
}

template <typename T>
void Csr<T>::diagonal(view<T> d) const {
    blas::copy(executor(), diag_.get_view(), d);
}

template class Csr<double>;
template class Csr<float>;

}  // namespace portla
