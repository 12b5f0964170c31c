/// \file
/// dist::DistributedStencil: the matrix-free dim-D Poisson operator of matrix/stencil.hpp split
/// over the ranks of a Communicator by slabs of its outermost dimension (z in 3-D): each rank
/// generates its own planes and holds no global matrix or vector. Vectors are each rank's part,
/// in the global lexicographic order (rank r's rows follow rank r - 1's), so DistributedCsr's
/// row distribution and this one agree for the same grid. Only in builds with PORTLA_WITH_MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "portla/array.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/dist/distributed_operator.hpp"
#include "portla/operator.hpp"

namespace portla::dist {

/// First plane of every rank when `planes` planes are split over `parts` ranks as evenly as
/// possible (parts + 1 values; the first planes % parts ranks get one plane more; ranks beyond
/// `planes` get none).
std::vector<std::int64_t> slab_partition(std::int64_t planes, int parts);

template <typename T>
/// The matrix-free Poisson operator of matrix/stencil.hpp on points^dim grid points, split over
/// the ranks in slabs of the outermost dimension; each rank generates only its own planes, and
/// apply() exchanges one ghost plane with each neighbour.
class DistributedStencil : public DistributedOperator<T> {
public:
    /// Collective over `comm` (every rank passes the same dim and points): dim in {1, 2, 3},
    /// points >= 1 per dimension; this rank owns planes slab_partition(points, size)[rank ...]
    /// of the outermost dimension. Throws BadInput on every rank when the arguments are invalid
    /// or differ between ranks. `comm` must outlive the operator.
    DistributedStencil(const Executor& exec, std::shared_ptr<const Communicator> comm, int dim,
                       std::size_t points);

    /// This rank's rows (its planes times plane_rows()).
    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return rows_; }
    const Executor& executor() const override { return exec_; }
    /// y = A x over the ranks (collective): this rank's first and last planes go to its
    /// neighbours while the planes that need no ghost are computed; then the two boundary
    /// planes. Blocks until done.
    void apply(const_view<T> x, view<T> y) const override;
    /// apply(), and dot[0] = x . y over this rank's rows (not summed over the ranks), summed by
    /// the slab kernels as they go (over the inner planes' call and the boundary planes').
    /// Throws DimensionMismatch unless dot has one value. Returns true.
    bool apply_and_dot(const_view<T> x, view<T> y, view<T> dot) const override;
    /// Non-zeros of the assembled rows of this rank.
    std::size_t nnz() const override;
    std::string format() const override { return "distributed-stencil"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override;
    /// This rank's slab with zero ghosts (the rows and columns it owns).
    const LinearOperator<T>& diagonal_block() const override { return *block_; }

    /// Dimensions of the grid (1, 2 or 3).
    int dim() const { return dim_; }
    /// Points per dimension of the whole grid.
    std::size_t points() const { return points_; }
    /// Local planes and the rows of one plane.
    std::size_t planes() const { return planes_; }
    /// Rows of one plane (points^(dim - 1)).
    std::size_t plane_rows() const { return plane_; }

private:
    // apply(), with x . y into *dot unless dot is nullptr
    void apply_impl(const_view<T> x, view<T> y, T* dot) const;

    using DistributedOperator<T>::comm_;
    using DistributedOperator<T>::offsets_;
    Executor exec_;
    int dim_;
    std::size_t points_, plane_ = 1, planes_ = 0, rows_ = 0;
    int below_rank_ = -1, above_rank_ = -1;  // neighbouring slabs (-1: the grid's boundary)
    // Ghost planes in the executor's memory; on a device without direct messages, the planes
    // are staged through page-locked host buffers (send: first, last; receive: below, above).
    mutable Array<T> below_, above_;
    std::shared_ptr<T> stage_;  // 4 planes, page-locked, or null
    using DistributedOperator<T>::direct_;
    using DistributedOperator<T>::peer_;
    std::unique_ptr<LinearOperator<T>> block_;
};

}  // namespace portla::dist
