#include "portla/matrix/dense.hpp"

#include "core/dispatch_values.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/matrix_checks.hpp"
#include "portla/blas.hpp"

#include <complex>
#include <utility>
#include <vector>

namespace portla {
namespace {

template <typename T>
std::vector<T> diagonal_of(std::size_t rows, std::size_t cols, const std::vector<T>& values) {
    std::vector<T> d(rows, T{0});
    for (std::size_t i = 0; i < rows && i < cols; ++i) d[i] = values[i * cols + i];
    return d;
}

}  // namespace

template <typename T>
Dense<T>::Dense(const Executor& exec, std::size_t rows, std::size_t cols,
                const std::vector<T>& values)
    : rows_(rows),
      cols_(cols),
      values_((values.size() == rows * cols)
                  ? Array<T>(exec, values)
                  : throw DimensionMismatch("Dense values", rows * cols, values.size())),
      diag_(exec, diagonal_of(rows, cols, values)) {}

template <typename T>
Dense<T>::Dense(std::size_t rows, std::size_t cols, Array<T> values)
    : rows_(rows),
      cols_(cols),
      values_(std::move(values)),
      diag_(values_.executor(), 0),
      diag_once_(std::make_unique<std::once_flag>()) {}

template <typename T>
Dense<T> Dense<T>::borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                          const_view<T> values) {
    if (values.size != rows * cols)
        throw DimensionMismatch("Dense values", rows * cols, values.size);
    return Dense(rows, cols, Array<T>::borrow(exec, const_cast<T*>(values.data), values.size));
}

template <typename T>
Dense<T> Dense<T>::from_data(const Executor& exec, const MatrixData& data) {
    detail::check_int32_dims("dense", data);
    const auto rows = static_cast<std::size_t>(data.rows),
               cols = static_cast<std::size_t>(data.cols);
    // Duplicates summed in double, then rounded once (as Csr::from_data): the same matrix in
    // float whichever format stores it.
    std::vector<double> sums(rows * cols, 0.0);
    for (std::size_t k = 0; k < data.entries(); ++k)
        sums[data.row_idx[k] * cols + data.col_idx[k]] += data.values[k];
    return Dense(exec, rows, cols, std::vector<T>(sums.begin(), sums.end()));
}

template <typename T>
void Dense<T>::apply(const_view<T> x, view<T> y) const {
    if (rows_ == 0) return;
    if (cols_ == 0) return blas::fill(executor(), y, T{0});
    const auto& exec = executor();
    dispatch_values<T>(exec, [&](auto backend) {
        dense_apply(backend, exec, rows_, cols_, values_.get_view(), x, y);
    });
}

template <typename T>
void Dense<T>::diagonal(view<T> d) const {
    if (diag_once_)
        std::call_once(*diag_once_, [this] {
            diag_ = Array<T>(executor(), diagonal_of(rows_, cols_, values_.to_host()));
        });
    blas::copy<T>(executor(), diag_.get_view(), d);
}

template class Dense<double>;
template class Dense<float>;
template class Dense<std::complex<double>>;
template class Dense<std::complex<float>>;

}  // namespace portla
