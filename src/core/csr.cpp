#include "portla/matrix/csr.hpp"

#include "common/csr_pattern.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/matrix_checks.hpp"
#include "portla/blas.hpp"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace portla {
namespace {

void check_structure(std::size_t rows, std::size_t cols, const_view<std::int32_t> row_ptrs,
                     const_view<std::int32_t> col_idxs) {
    if (row_ptrs.size != rows + 1) throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size);
    if (row_ptrs[0] != 0) throw BadInput("Csr: row_ptrs[0] must be 0");
    for (std::size_t i = 0; i < rows; ++i)
        if (row_ptrs[i + 1] < row_ptrs[i])
            throw BadInput("Csr: row_ptrs decrease at row " + std::to_string(i));
    if (static_cast<std::size_t>(row_ptrs[rows]) != col_idxs.size)
        throw DimensionMismatch("Csr col_idxs", row_ptrs[rows], col_idxs.size);
    for (std::size_t k = 0; k < col_idxs.size; ++k)
        if (col_idxs[k] < 0 || static_cast<std::size_t>(col_idxs[k]) >= cols)
            throw BadInput("Csr: column index " + std::to_string(col_idxs[k]) + " at entry " +
                           std::to_string(k) + " out of range [0, " + std::to_string(cols) + ")");
}

template <typename T>
std::vector<T> diagonal_of(std::size_t rows, const_view<std::int32_t> row_ptrs,
                           const_view<std::int32_t> col_idxs, const_view<T> values) {
    std::vector<T> d(rows);
    for (std::size_t i = 0; i < rows; ++i)
        d[i] = common::csr_row_diagonal(i, row_ptrs.data, col_idxs.data, values.data);
    return d;
}

std::string defect_of(std::size_t rows, std::size_t cols, const_view<std::int32_t> row_ptrs,
                      const_view<std::int32_t> col_idxs) {
    return detail::structural_defect(rows, cols, [&](auto&& f) {
        for (std::size_t i = 0; i < rows; ++i)
            for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
                f(i, static_cast<std::size_t>(col_idxs[k]));
    });
}

template <typename T>
const_view<T> of(const std::vector<T>& v) {
    return {v.data(), v.size()};
}

/// `v` itself when it is host memory, else a host copy of it in `copy`.
template <typename T>
const_view<T> on_host(const Executor& exec, const_view<T> v, std::vector<T>& copy) {
    if (exec.is_host()) return v;
    copy.resize(v.size);
    Executor::copy_bytes(Executor::reference(), copy.data(), exec, v.data, v.size * sizeof(T));
    return of(copy);
}

}  // namespace

template <typename T>
Csr<T>::Csr(const Executor& exec, std::size_t rows, std::size_t cols,
            const std::vector<std::int32_t>& row_ptrs, const std::vector<std::int32_t>& col_idxs,
            const std::vector<T>& values)
    : rows_(rows),
      cols_(cols),
      row_ptrs_((check_structure(rows, cols, of(row_ptrs), of(col_idxs)),
                 Array<std::int32_t>(exec, row_ptrs))),
      col_idxs_(exec, col_idxs),
      values_(values.size() == col_idxs.size()
                  ? Array<T>(exec, values)
                  : throw DimensionMismatch("Csr values", col_idxs.size(), values.size())),
      diag_(exec, diagonal_of(rows, of(row_ptrs), of(col_idxs), of(values))),
      defect_(defect_of(rows, cols, of(row_ptrs), of(col_idxs))) {}

template <typename T>
Csr<T>::Csr(std::size_t rows, std::size_t cols, Array<std::int32_t> row_ptrs,
            Array<std::int32_t> col_idxs, Array<T> values, std::string defect)
    : rows_(rows),
      cols_(cols),
      row_ptrs_(std::move(row_ptrs)),
      col_idxs_(std::move(col_idxs)),
      values_(std::move(values)),
      diag_(values_.executor(), 0),
      diag_once_(std::make_unique<std::once_flag>()),
      defect_(std::move(defect)) {}

template <typename T>
Csr<T> Csr<T>::borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values) {
    if (values.size != col_idxs.size)
        throw DimensionMismatch("Csr values", col_idxs.size, values.size);
    if (row_ptrs.size != rows + 1) throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size);
    // Checked where the memory lies (a GPU's: no copy of the pattern, 7e6 entries in ~0.1 ms
    // instead of ~30 ms on the host); a valid pattern with every diagonal entry stored has no
    // structural defect. Anything else is examined again on the host for the exact message.
    const std::uint32_t flags = dispatch(exec, [&](auto backend) {
        return csr_pattern_check(backend, exec, rows, cols, row_ptrs, col_idxs);
    });
    std::string defect;
    if (flags != 0 && !(flags == kernels::kCsrDiagonalMissing && rows != cols)) {
        std::vector<std::int32_t> ptr_copy, col_copy;
        const auto ptr = on_host(exec, row_ptrs, ptr_copy);
        const auto col = on_host(exec, col_idxs, col_copy);
        check_structure(rows, cols, ptr, col);
        defect = defect_of(rows, cols, ptr, col);
    }
    auto* p = const_cast<std::int32_t*>(row_ptrs.data);
    auto* c = const_cast<std::int32_t*>(col_idxs.data);
    return Csr(rows, cols, Array<std::int32_t>::borrow(exec, p, row_ptrs.size),
               Array<std::int32_t>::borrow(exec, c, col_idxs.size),
               Array<T>::borrow(exec, const_cast<T*>(values.data), values.size), std::move(defect));
}

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
Csr<T> Csr<T>::from_data(const Executor& exec, const CsrData& data) {
    const auto rows = static_cast<std::size_t>(data.rows);
    const auto cols = static_cast<std::size_t>(data.cols);
    if constexpr (std::is_same_v<T, double>) {
        return Csr(exec, rows, cols, data.row_ptrs, data.col_idxs, data.values);
    } else {
        return Csr(exec, rows, cols, data.row_ptrs, data.col_idxs,
                   std::vector<T>(data.values.begin(), data.values.end()));
    }
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
    if (diag_once_)
        std::call_once(*diag_once_, [this] {
            const Executor& exec = executor();
            diag_ = Array<T>(exec, rows_);
            dispatch(exec, [&](auto backend) {
                csr_diagonal(backend, exec, rows_, row_ptrs_.get_view(), col_idxs_.get_view(),
                             values_.get_view(), diag_.get_view());
            });
        });
    blas::copy<T>(executor(), diag_.get_view(), d);
}

template class Csr<double>;
template class Csr<float>;

}  // namespace portla
