#include "portla/matrix/ell.hpp"

#include <algorithm>
#include <string>

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
    std::vector<std::size_t> count(rows, 0);
    for (auto r : data.row_idx) ++count[r];
    const std::size_t width = rows ? *std::max_element(count.begin(), count.end()) : 0;
    // Every row is padded to the longest: one dense row in a sparse matrix asks for rows^2
    // entries. Refused with OutOfMemory (naming csr) before anything is allocated.
    MemoryNeed padded;
    padded.add(double(rows) * double(width), sizeof(T) + sizeof(std::int32_t));
    const std::string what = "ell: " + std::to_string(rows) + " rows padded to the longest row (" +
                             std::to_string(width) + " entries, " + std::to_string(data.entries()) +
                             " stored; use csr)";
    // The padded arrays are held once: on a host executor they are filled in place; a device's
    // are filled in host memory and copied (one copy in each memory).
    require_host_memory(padded, what);
    if (!exec.is_host()) require_memory(exec, padded, what);
    Ell ell(exec, rows, static_cast<std::size_t>(data.cols), width, data.entries(), {}, {}, {});
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
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t k = 0; k < data.entries(); ++k) {
        const auto r = static_cast<std::size_t>(data.row_idx[k]);
        const std::size_t slot = count[r]++ * rows + r;
        cols_cm[slot] = static_cast<std::int32_t>(data.col_idx[k]);
        vals_cm[slot] = static_cast<T>(data.values[k]);
        if (data.col_idx[k] == data.row_idx[k]) diag[r] += vals_cm[slot];
    }
    if (!exec.is_host()) {
        ell.col_idxs_.copy_from_host(cols_staged);
        ell.values_.copy_from_host(vals_staged);
    }
    ell.diag_ = Array<T>(exec, diag);
    ell.defect_ = data.structural_defect();
    return ell;
}

template <typename T>
void Ell<T>::apply(const_view<T> x, view<T> y) const {
    if (rows_ == 0) return;
    if (max_row_nnz_ == 0) return blas::fill(executor(), y, T{0});
    const auto& exec = executor();
    dispatch(exec, [&](auto backend) {
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

}  // namespace portla
