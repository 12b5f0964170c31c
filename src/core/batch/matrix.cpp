// Batch matrices: conversion of host CSR batch data to dense / csr / ell on an executor.
#include "portla/batch/matrix.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/batch/batch_args.hpp"
#include "core/kernels/batch_kernels.hpp"
#include "portla/error.hpp"

namespace portla::batch {

namespace {

/// a * b, or OutOfMemory when it overflows (no memory could hold it).
std::size_t product(std::size_t a, std::size_t b, std::size_t bytes_each) {
    if (b != 0 && a > std::numeric_limits<std::size_t>::max() / b / bytes_each)
        throw OutOfMemory(
            "batch matrix (" + std::to_string(a) + " x " + std::to_string(b) + " values)",
            std::numeric_limits<std::size_t>::max());
    return a * b;
}

}  // namespace

template <typename T>
BatchMatrix<T>::BatchMatrix(const Executor& exec, const BatchData& data, Format format)
    : format_(format),
      num_systems_(data.num_systems),
      n_(data.n),
      nnz_(data.nnz()),
      host_row_ptrs_(data.row_ptrs),
      host_col_idxs_(data.col_idxs),
      values_(exec, 0) {
    data.validate("batch matrix");
    const std::size_t n = n_, nnz = nnz_, B = num_systems_;
    if (format == Format::ell)
        for (std::size_t i = 0; i < n; ++i)
            ell_width_ =
                std::max(ell_width_, static_cast<int>(data.row_ptrs[i + 1] - data.row_ptrs[i]));
    stored_ = format == Format::dense ? product(n, n, sizeof(T))
              : format == Format::csr ? nnz
                                      : product(n, static_cast<std::size_t>(ell_width_), sizeof(T));
    // Staged on the host through an Array: a batch larger than the available memory is an
    // OutOfMemory error here, not a process killed later while the pages are filled.
    Array<T> vals(Executor::reference(), product(B, stored_, sizeof(T)));
    T* v = vals.data();
    if (format == Format::dense) {
        std::fill(v, v + vals.size(), T(0));
        for (std::size_t s = 0; s < B; ++s)
            for (std::size_t i = 0; i < n; ++i)
                for (auto k = data.row_ptrs[i]; k < data.row_ptrs[i + 1]; ++k)
                    v[s * stored_ + i * n + data.col_idxs[k]] =
                        static_cast<T>(data.values[s * nnz + k]);
    } else if (format == Format::csr) {
        std::transform(data.values.begin(), data.values.end(), v,
                       [](double x) { return static_cast<T>(x); });
        row_ptrs_ = Array<std::int32_t>(exec, data.row_ptrs);
        col_idxs_ = Array<std::int32_t>(exec, data.col_idxs);
    } else {
        std::vector<std::int32_t> cols(stored_, -1);
        std::fill(v, v + vals.size(), T(0));
        for (std::size_t i = 0; i < n; ++i)
            for (auto k = data.row_ptrs[i]; k < data.row_ptrs[i + 1]; ++k) {
                const std::size_t slot = static_cast<std::size_t>(k - data.row_ptrs[i]) * n + i;
                cols[slot] = data.col_idxs[k];
                for (std::size_t s = 0; s < B; ++s)
                    v[s * stored_ + slot] = static_cast<T>(data.values[s * nnz + k]);
            }
        col_idxs_ = Array<std::int32_t>(exec, cols);
    }
    if (row_ptrs_.empty()) row_ptrs_ = Array<std::int32_t>(exec, 0);
    if (col_idxs_.empty()) col_idxs_ = Array<std::int32_t>(exec, 0);
    values_ = Array<T>(exec, vals);
}

template <typename T>
void BatchMatrix<T>::apply(const Array<T>& x, Array<T>& y) const {
    const std::size_t len = num_systems_ * n_;
    if (x.size() != len) throw DimensionMismatch("BatchMatrix::apply (x)", len, x.size());
    if (y.size() != len) throw DimensionMismatch("BatchMatrix::apply (y)", len, y.size());
    const auto args = detail::matrix_args(*this);
    const Executor& exec = executor();
    dispatch<KernelFamily::batch>(
        exec, [&](auto backend) { batch_apply(backend, exec, args, x.data(), y.data()); });
}

template class BatchMatrix<double>;
template class BatchMatrix<float>;

}  // namespace portla::batch
