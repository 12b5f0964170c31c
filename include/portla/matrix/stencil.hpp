/// \file
/// Matrix-free Poisson operators on a uniform grid with homogeneous Dirichlet boundaries:
///   1-D 3-point [-1 2 -1], 2-D 5-point (4 on the diagonal), 3-D 7-point (6 on the diagonal),
/// unscaled (h^2 A). n points per dimension, n^dim unknowns, lexicographic order (x fastest).
#pragma once

#include "portla/array.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla {

template <typename T>
/// The Poisson operator of the file comment, applied without a stored matrix.
class Stencil : public LinearOperator<T> {
public:
    /// dim in {1, 2, 3}, points >= 1 per dimension. Throws BadInput.
    Stencil(const Executor& exec, int dim, std::size_t points);

    std::size_t rows() const override { return size_; }
    std::size_t cols() const override { return size_; }
    const Executor& executor() const override { return exec_; }
    /// y = A x without a stored matrix (bytes: 2 n sizeof(T) at best)
    void apply(const_view<T> x, view<T> y) const override;
    /// Non-zeros the assembled matrix would have.
    std::size_t nnz() const override;
    std::string format() const override { return "stencil"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override;
    FusedOperator<T> fused() const override {
        FusedOperator<T> f;
        f.kind = FusedOperator<T>::Kind::stencil;
        f.dim = dim_;
        f.points = points_;
        return f;
    }

    /// Dimensions of the grid (1, 2 or 3).
    int dim() const { return dim_; }
    /// Points per dimension.
    std::size_t points() const { return points_; }
    /// The same operator as coordinate data (for --assembled).
    MatrixData assemble() const;

private:
    Executor exec_;
    int dim_;
    std::size_t points_;
    std::size_t size_;
};

}  // namespace portla
