// dist::DistributedStencil: slabs of the outermost dimension, one plane of ghosts from each
// neighbouring slab. apply() sends its first and last planes, computes the planes that need no
// ghost while they fly, then the two boundary planes (common::slab_stencil_row on every
// backend: kernels::slab_stencil_apply).
#include "portla/dist/distributed_stencil.hpp"

#include <algorithm>
#include <string>

#include "core/runtime.hpp"
#include "dist/common.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"

namespace portla::dist {

std::vector<std::int64_t> slab_partition(std::int64_t planes, int parts) {
    if (parts < 1) throw BadInput("slab_partition: parts must be >= 1");
    if (planes < 0) throw BadInput("slab_partition: planes must be >= 0");
    std::vector<std::int64_t> first(static_cast<std::size_t>(parts) + 1, 0);
    const std::int64_t base = planes / parts, extra = planes % parts;
    for (int p = 0; p < parts; ++p) first[p + 1] = first[p] + base + (p < extra ? 1 : 0);
    return first;
}

namespace {

// Planes [first, last); with a dot, x . y over them stored in *dot, or added when add_dot.
template <typename T>
void slab_apply(const Executor& exec, int dim, std::size_t points, std::size_t planes,
                std::size_t first, std::size_t last, const T* below, const T* above,
                const_view<T> x, view<T> y, T* dot = nullptr, bool add_dot = false) {
    dispatch(exec, [&](auto backend) {
        slab_stencil_apply(backend, exec, dim, points, planes, first, last, below, above, x, y, dot,
                           add_dot);
    });
}

// This rank's slab with zero ghosts: the diagonal block (rows and columns it owns).
template <typename T>
class LocalSlab final : public LinearOperator<T> {
public:
    LocalSlab(const Executor& exec, int dim, std::size_t points, std::size_t planes,
              std::size_t plane)
        : exec_(exec), dim_(dim), points_(points), planes_(planes), rows_(planes * plane) {}
    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return rows_; }
    const Executor& executor() const override { return exec_; }
    void apply(const_view<T> x, view<T> y) const override {
        if (x.size != rows_) throw DimensionMismatch("stencil slab apply: x", rows_, x.size);
        if (y.size != rows_) throw DimensionMismatch("stencil slab apply: y", rows_, y.size);
        slab_apply<T>(exec_, dim_, points_, planes_, 0, planes_, nullptr, nullptr, x, y);
    }
    std::size_t nnz() const override { return 0; }
    std::string format() const override { return "stencil-slab"; }
    bool has_diagonal() const override { return true; }
    void diagonal(view<T> d) const override { blas::fill(exec_, d, static_cast<T>(2 * dim_)); }

private:
    Executor exec_;
    int dim_;
    std::size_t points_, planes_, rows_;
};

}  // namespace

template <typename T>
DistributedStencil<T>::DistributedStencil(const Executor& exec,
                                          std::shared_ptr<const Communicator> comm, int dim,
                                          std::size_t points)
    : DistributedOperator<T>(std::move(comm), {}), exec_(exec), dim_(dim), points_(points) {
    if (!comm_) throw BadInput("distributed stencil: no communicator");
    const int rank = comm_->rank(), size = comm_->size();
    std::vector<std::int64_t> planes;
    on_every_rank(comm_.get(), [&] {
        if (dim < 1 || dim > 3)
            throw BadInput("stencil dimension must be 1, 2 or 3, got " + std::to_string(dim));
        if (points < 1) throw BadInput("stencil needs at least 1 point per dimension");
        std::size_t total = 1;
        for (int d = 0; d < dim; ++d) {
            if (total > (std::size_t{1} << 40) / points)
                throw BadInput("stencil of " + std::to_string(points) + "^" + std::to_string(dim) +
                               " points is too large");
            total *= points;
        }
        planes = slab_partition(static_cast<std::int64_t>(points), size);
    });
    // Every rank must describe the same grid.
    double mine[2] = {double(dim), double(points)}, low[2] = {-mine[0], -mine[1]};
    comm_->allreduce_max(mine, 2);
    comm_->allreduce_max(low, 2);
    on_every_rank(comm_.get(), [&] {
        if (mine[0] != -low[0] || mine[1] != -low[1])
            throw BadInput("distributed stencil: the ranks pass different grids");
    });
    for (int d = 0; d + 1 < dim; ++d) plane_ *= points;
    planes_ = static_cast<std::size_t>(planes[rank + 1] - planes[rank]);
    rows_ = planes_ * plane_;
    offsets_.resize(planes.size());
    for (std::size_t p = 0; p < planes.size(); ++p)
        offsets_[p] = planes[p] * static_cast<std::int64_t>(plane_);
    if (planes_ > 0) {
        if (rank > 0) below_rank_ = rank - 1;  // ranks with planes are 0 .. min(size, points) - 1
        if (rank + 1 < size && planes[rank + 2] > planes[rank + 1]) above_rank_ = rank + 1;
    }
    this->choose_halo_path(exec);
    below_ = Array<T>(exec, below_rank_ >= 0 ? plane_ : 0);
    above_ = Array<T>(exec, above_rank_ >= 0 ? plane_ : 0);
    if (!direct_ && !peer_ && (below_rank_ >= 0 || above_rank_ >= 0))
        stage_ = detail::pinned_buffer<T>(exec, 4 * plane_);
    block_ = std::make_unique<LocalSlab<T>>(exec, dim, points, planes_, plane_);
}

template <typename T>
void DistributedStencil<T>::apply(const_view<T> x, view<T> y) const {
    if (x.size != rows_) throw DimensionMismatch("distributed stencil apply: x", rows_, x.size);
    if (y.size != rows_) throw DimensionMismatch("distributed stencil apply: y", rows_, y.size);
    apply_impl(x, y, nullptr);
}

template <typename T>
bool DistributedStencil<T>::apply_and_dot(const_view<T> x, view<T> y, view<T> dot) const {
    if (x.size != rows_) throw DimensionMismatch("distributed stencil apply: x", rows_, x.size);
    if (y.size != rows_) throw DimensionMismatch("distributed stencil apply: y", rows_, y.size);
    if (dot.size != 1) throw DimensionMismatch("distributed stencil apply: dot", 1, dot.size);
    apply_impl(x, y, dot.data);
    return true;
}

template <typename T>
void DistributedStencil<T>::apply_impl(const_view<T> x, view<T> y, T* dot) const {
    const std::size_t bytes = plane_ * sizeof(T);
    const bool low = below_rank_ >= 0, high = above_rank_ >= 0;
    // Send this slab's first plane down and its last plane up; receive the ghosts.
    const T* first = x.data;
    const T* last = x.data + (planes_ - (planes_ > 0 ? 1 : 0)) * plane_;
    T* ghost_low = below_.data();
    T* ghost_high = above_.data();
    if (stage_) {
        T* s = stage_.get();
        if (low) Executor::copy_bytes(Executor::reference(), s, exec_, first, bytes);
        if (high) Executor::copy_bytes(Executor::reference(), s + plane_, exec_, last, bytes);
        first = s;
        last = s + plane_;
        ghost_low = s + 2 * plane_;
        ghost_high = s + 3 * plane_;
    } else if ((low || high) && !exec_.is_host() && !peer_) {
        exec_.synchronize();  // x is complete before MPI reads it
    }
    std::vector<Communicator::Message> receives, sends;
    if (low) {
        receives.push_back({below_rank_, ghost_low, bytes});
        sends.push_back({below_rank_, const_cast<T*>(first), bytes});
    }
    if (high) {
        receives.push_back({above_rank_, ghost_high, bytes});
        sends.push_back({above_rank_, const_cast<T*>(last), bytes});
    }
    std::unique_ptr<Communicator::Exchange> halo;
    if ((low || high) && !peer_) halo = comm_->start_exchange(receives, sends);
    // The planes whose neighbours are all local (or outside the grid) while the halo flies.
    const std::size_t inner_first = low ? 1 : 0;
    const std::size_t inner_last = high ? planes_ - 1 : planes_;
    const T* below = low ? below_.data() : nullptr;
    const T* above = high ? above_.data() : nullptr;
    // x . y: stored by the first call, added by the later ones (zero for a rank without planes)
    bool stored = false;
    const auto part = [&](std::size_t first_plane, std::size_t last_plane, const T* lo,
                          const T* hi) {
        slab_apply<T>(exec_, dim_, points_, planes_, first_plane, last_plane, lo, hi, x, y, dot,
                      stored);
        stored = true;
    };
    if (inner_first < inner_last || (dot && !low && !high))
        part(inner_first, std::max(inner_first, inner_last), nullptr, nullptr);
    if (!low && !high) return;
    if (peer_)
        peer_->exchange(receives, sends);  // after the inner planes on the stream, before the rest
    else
        halo->wait();
    if (stage_) {
        if (low)
            Executor::copy_bytes(exec_, below_.data(), Executor::reference(), ghost_low, bytes);
        if (high)
            Executor::copy_bytes(exec_, above_.data(), Executor::reference(), ghost_high, bytes);
    }
    // The boundary planes (one plane when the slab has one plane and two neighbours).
    if (low) part(0, 1, below, above);
    if (high && !(low && planes_ == 1)) part(planes_ - 1, planes_, below, above);
}

template <typename T>
std::size_t DistributedStencil<T>::nnz() const {
    // Each row: itself, its in-plane neighbours, and its neighbours across planes.
    const std::size_t in_plane_lines = dim_ >= 2 ? plane_ / points_ : 0;
    const std::size_t per_plane =
        plane_ + static_cast<std::size_t>(dim_ - 1) * in_plane_lines * 2 * (points_ - 1);
    const auto first = static_cast<std::size_t>(offsets_[comm_->rank()]) / plane_;
    std::size_t across = 0;
    for (std::size_t k = first; k < first + planes_; ++k)
        across += (k > 0 ? 1 : 0) + (k + 1 < points_ ? 1 : 0);
    return planes_ * per_plane + across * plane_;
}

template <typename T>
void DistributedStencil<T>::diagonal(view<T> d) const {
    blas::fill(exec_, d, static_cast<T>(2 * dim_));
}

template class DistributedStencil<double>;
template class DistributedStencil<float>;

}  // namespace portla::dist
