#include "portla/matrix/stencil.hpp"

#include "core/kernels/matrix_kernels.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"

namespace portla {

template <typename T>
Stencil<T>::Stencil(const Executor& exec, int dim, std::size_t points)
    : exec_(exec), dim_(dim), points_(points), size_(1) {
    if (dim < 1 || dim > 3)
        throw BadInput("stencil dimension must be 1, 2 or 3, got " + std::to_string(dim));
    if (points < 1) throw BadInput("stencil needs at least 1 point per dimension");
    for (int d = 0; d < dim; ++d) {
        if (size_ > (std::size_t{1} << 40) / points)
            throw BadInput("stencil of " + std::to_string(points) + "^" + std::to_string(dim) +
                           " points is too large");
        size_ *= points;
    }
}

template <typename T>
std::size_t Stencil<T>::nnz() const {
    // Each dimension contributes 2 (points - 1) off-diagonal couplings per grid line.
    std::size_t lines = size_ / points_;
    return size_ + static_cast<std::size_t>(dim_) * lines * 2 * (points_ - 1);
}

template <typename T>
void Stencil<T>::apply(const_view<T> x, view<T> y) const {
    dispatch(exec_, [&](auto backend) { stencil_apply(backend, exec_, dim_, points_, x, y); });
}

template <typename T>
void Stencil<T>::diagonal(view<T> d) const {
    blas::fill(exec_, d, static_cast<T>(2 * dim_));
}

template <typename T>
MatrixData Stencil<T>::assemble() const {
    MatrixData data;
    data.rows = data.cols = static_cast<std::int64_t>(size_);
    const std::int64_t n = static_cast<std::int64_t>(points_);
    const std::int64_t nx = n, ny = dim_ >= 2 ? n : 1, nz = dim_ >= 3 ? n : 1;
    data.row_idx.reserve(nnz());
    data.col_idx.reserve(nnz());
    data.values.reserve(nnz());
    for (std::int64_t k = 0; k < nz; ++k)
        for (std::int64_t j = 0; j < ny; ++j)
            for (std::int64_t i = 0; i < nx; ++i) {
                const std::int64_t r = (k * ny + j) * nx + i;
                if (k > 0) data.add(r, r - nx * ny, -1.0);
                if (j > 0) data.add(r, r - nx, -1.0);
                if (i > 0) data.add(r, r - 1, -1.0);
                data.add(r, r, 2.0 * dim_);
                if (i + 1 < nx) data.add(r, r + 1, -1.0);
                if (j + 1 < ny) data.add(r, r + nx, -1.0);
                if (k + 1 < nz) data.add(r, r + nx * ny, -1.0);
            }
    return data;
}

template class Stencil<double>;
template class Stencil<float>;

}  // namespace portla
