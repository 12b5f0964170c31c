// Sequential operator-apply kernels (the oracle).
#include <complex>

#include "core/kernels/matrix_kernels.hpp"

#include "common/csr_pattern.hpp"
#include "common/stencil_row.hpp"

namespace portla::kernels::reference {
namespace {

template <typename T>
void stencil(int dim, std::size_t n, const_view<T> x, view<T> y) {
    const std::size_t nx = n, ny = dim >= 2 ? n : 1, nz = dim >= 3 ? n : 1;
    const T diag = static_cast<T>(2 * dim);
    for (std::size_t k = 0; k < nz; ++k)
        for (std::size_t j = 0; j < ny; ++j)
            for (std::size_t i = 0; i < nx; ++i) {
                const std::size_t idx = (k * ny + j) * nx + i;
                T sum = diag * x[idx];
                if (i > 0) sum -= x[idx - 1];
                if (i + 1 < nx) sum -= x[idx + 1];
                if (j > 0) sum -= x[idx - nx];
                if (j + 1 < ny) sum -= x[idx + nx];
                if (k > 0) sum -= x[idx - nx * ny];
                if (k + 1 < nz) sum -= x[idx + nx * ny];
                y[idx] = sum;
            }
}

}  // namespace

template <typename T>
void dense_apply(tag, const Executor&, std::size_t rows, std::size_t cols, const_view<T> values,
                 const_view<T> x, view<T> y) {
    for (std::size_t i = 0; i < rows; ++i) {
        T sum = 0;
        for (std::size_t j = 0; j < cols; ++j) sum += values[i * cols + j] * x[j];
        y[i] = sum;
    }
}

template <typename T, typename P, typename C>
void csr_apply(tag, const Executor&, std::size_t rows, const_view<P> row_ptrs,
               const_view<C> col_idxs, const_view<T> values, const_view<T> x, view<T> y) {
    for (std::size_t i = 0; i < rows; ++i) {
        T sum = 0;
        for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k) sum += values[k] * x[col_idxs[k]];
        y[i] = sum;
    }
}

template <typename T>
void ell_apply(tag, const Executor&, std::size_t rows, std::size_t width,
               const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,
               view<T> y) {
    for (std::size_t i = 0; i < rows; ++i) {
        T sum = 0;
        for (std::size_t k = 0; k < width; ++k) {
            const auto c = col_idxs[k * rows + i];
            if (c >= 0) sum += values[k * rows + i] * x[c];
        }
        y[i] = sum;
    }
}

template <typename T>
void stencil_apply(tag, const Executor&, int dim, std::size_t points, const_view<T> x, view<T> y) {
    stencil<T>(dim, points, x, y);
}

template <typename T>
void slab_stencil_apply(tag, const Executor&, int dim, std::size_t points, std::size_t planes,
                        std::size_t first, std::size_t last, const T* below, const T* above,
                        const_view<T> x, view<T> y, T* dot, bool add_dot) {
    const std::size_t nx = dim >= 2 ? points : 1, ny = dim >= 3 ? points : 1;
    double sum = 0;  // x . y in double, rounded to T once per call
    for (std::size_t i = first * nx * ny; i < last * nx * ny; ++i) {
        y[i] = common::slab_stencil_row<std::size_t>(dim, nx, ny, planes, i, x.data, below, above);
        sum += double(x[i]) * double(y[i]);
    }
    if (dot) *dot = add_dot ? *dot + static_cast<T>(sum) : static_cast<T>(sum);
}

template <typename T>
void gather(tag, const Executor&, const_view<std::int32_t> idx, const_view<T> x, view<T> out) {
    for (std::size_t i = 0; i < idx.size; ++i) out[i] = x[static_cast<std::size_t>(idx[i])];
}

template <typename T, typename P, typename C>
void csr_diagonal(tag, const Executor&, std::size_t rows, const_view<P> row_ptrs,
                  const_view<C> col_idxs, const_view<T> values, view<T> d) {
    for (std::size_t i = 0; i < rows; ++i)
        d[i] = common::csr_row_diagonal(i, row_ptrs.data, col_idxs.data, values.data);
}

std::uint32_t csr_pattern_check(tag, const Executor&, std::size_t rows, std::size_t cols,
                                const_view<std::int32_t> row_ptrs,
                                const_view<std::int32_t> col_idxs) {
    if (rows == 0) return row_ptrs[0] == 0 && col_idxs.size == 0 ? 0u : kCsrInvalid;
    std::uint32_t flags = 0;
    for (std::size_t i = 0; i < rows && !(flags & kCsrInvalid); ++i)
        flags |=
            common::csr_row_pattern(i, rows, cols, col_idxs.size, row_ptrs.data, col_idxs.data);
    return flags;
}

PORTLA_INSTANTIATE_MATRIX_KERNELS(double);
PORTLA_INSTANTIATE_MATRIX_KERNELS(float);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<float>);

}  // namespace portla::kernels::reference
