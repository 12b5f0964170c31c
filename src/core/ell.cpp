#include "portla/matrix/ell.hpp"

#include <algorithm>
#include <climits>
#include <complex>
#include <string>

#include "core/dispatch_values.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/matrix_checks.hpp"
#include "portla/blas.hpp"
#include "portla/memory.hpp"

namespace portla {

template <typename T>
Ell<T>::Ell(const Executor& exec, std::size_t rows, std::size_t cols, std::size_t width,
            std::size_t nnz, const std::vector<std::int32_t>& cols_cm,
            const std::vector<T>& vals_cm, const std::vector<T>& diag)
    : rows_(rows),
      cols_(cols),
      max_row_nnz_(width),
      nnz_(nnz),
      col_idxs_(exec, cols_cm),
      values_(exec, vals_cm),
      diag_(exec, diag) {}

template <typename T>
Ell<T> Ell<T>::from_data(const Executor& exec, const MatrixData& input) {
    detail::check_int32_dims("ell", input);
    MatrixData copy;
    const MatrixData& data = detail::sorted_entries(input, copy);
    const auto rows = static_cast<std::size_t>(data.rows);
    std::vector<std::int32_t> row_ptrs(rows + 1, 0), col_idxs(data.entries());
    std::vector<T> values(data.entries());
    for (std::size_t k = 0; k < data.entries(); ++k) {
        ++row_ptrs[static_cast<std::size_t>(data.row_idx[k]) + 1];
        col_idxs[k] = static_cast<std::int32_t>(data.col_idx[k]);
        values[k] = static_cast<T>(data.values[k]);
    }
    for (std::size_t i = 0; i < rows; ++i) row_ptrs[i + 1] += row_ptrs[i];
    Ell ell =
        from_arrays(exec, rows, static_cast<std::size_t>(data.cols), row_ptrs, col_idxs, values);
    ell.defect_ = data.structural_defect();
    return ell;
}

template <typename T>
Ell<T> Ell<T>::from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int32_t>& row_ptrs,
                           const std::vector<std::int32_t>& col_idxs,
                           const std::vector<T>& values) {
    if (rows > static_cast<std::size_t>(INT32_MAX) || cols > static_cast<std::size_t>(INT32_MAX))
        throw BadInput("ell: " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " is past the int32 range of its indices");
    if (values.size() != col_idxs.size())
        throw DimensionMismatch("ell: values", col_idxs.size(), values.size());
    detail::check_csr_structure("ell", rows, cols,
                                const_view<std::int32_t>(row_ptrs.data(), row_ptrs.size()),
                                const_view<std::int32_t>(col_idxs.data(), col_idxs.size()));
    std::size_t width = 0;
    for (std::size_t i = 0; i < rows; ++i)
        width = std::max(width, static_cast<std::size_t>(row_ptrs[i + 1] - row_ptrs[i]));
    const std::size_t nnz = col_idxs.size();
    // Every row is padded to the longest: one dense row in a sparse matrix asks for rows^2
    // entries. Refused with OutOfMemory (naming csr) before anything is allocated.
    MemoryNeed padded;
    padded.add(double(rows) * double(width), sizeof(T) + sizeof(std::int32_t));
    const std::string what = "ell: " + std::to_string(rows) + " rows padded to the longest row (" +
                             std::to_string(width) + " entries, " + std::to_string(nnz) +
                             " stored; use csr)";
    // The padded arrays are held once: on a host executor they are filled in place; a device's
    // are filled in host memory and copied (one copy in each memory).
    require_host_memory(padded, what);
    if (!exec.is_host()) require_memory(exec, padded, what);
    Ell ell(exec, rows, cols, width, nnz, {}, {}, {});
    const std::size_t slots = rows * width;
    ell.col_idxs_ = Array<std::int32_t>(exec, slots);
    ell.values_ = Array<T>(exec, slots);
    std::vector<std::int32_t> cols_staged;
    std::vector<T> vals_staged;
    std::int32_t* cols_cm = ell.col_idxs_.data();
    T* vals_cm = ell.values_.data();
    if (!exec.is_host()) {
        cols_staged.resize(slots);
        vals_staged.resize(slots);
        cols_cm = cols_staged.data();
        vals_cm = vals_staged.data();
    }
    std::fill(cols_cm, cols_cm + slots, -1);
    std::fill(vals_cm, vals_cm + slots, T{0});
    std::vector<T> diag(rows, T{0});
    for (std::size_t i = 0; i < rows; ++i)
        for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k) {
            const std::size_t slot = static_cast<std::size_t>(k - row_ptrs[i]) * rows + i;
            cols_cm[slot] = col_idxs[k];
            vals_cm[slot] = values[k];
            if (static_cast<std::size_t>(col_idxs[k]) == i) diag[i] += values[k];
        }
    if (!exec.is_host()) {
        ell.col_idxs_.copy_from_host(cols_staged);
        ell.values_.copy_from_host(vals_staged);
    }
    ell.diag_ = Array<T>(exec, diag);
    return ell;
}

template <typename T>
void Ell<T>::apply(const_view<T> x, view<T> y) const {
    if (rows_ == 0) return;
    if (max_row_nnz_ == 0) return blas::fill(executor(), y, T{0});
    const auto& exec = executor();
    dispatch_values<T>(exec, [&](auto backend) {
        ell_apply(backend, exec, rows_, max_row_nnz_, col_idxs_.get_view(), values_.get_view(), x,
                  y);
    });
}

template <typename T>
void Ell<T>::diagonal(view<T> d) const {
    blas::copy(executor(), diag_.get_view(), d);
}

template class Ell<double>;
template class Ell<float>;
template class Ell<std::complex<double>>;
template class Ell<std::complex<float>>;

}  // namespace portla
