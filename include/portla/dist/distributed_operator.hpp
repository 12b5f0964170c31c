/// \file
/// dist::DistributedOperator: what every operator distributed by contiguous row blocks over the
/// ranks of a Communicator shares (DistributedCsr, DistributedStencil): rank r holds rows
/// [offsets()[r], offsets()[r + 1]) of the operator and of every vector, rank r's rows follow
/// rank r - 1's, and vectors are gathered on one rank or scattered from it. Only in builds with
/// PORTLA_WITH_MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "portla/dist/communicator.hpp"
#include "portla/operator.hpp"

namespace portla::detail {
class PeerExchange;  // core/runtime.hpp
}  // namespace portla::detail

namespace portla::dist {

template <typename T>
/// The common part of the operators distributed over ranks by contiguous row blocks
/// (DistributedCsr, DistributedStencil): the communicator, every rank's row offsets, vector
/// gather and scatter, and the choice of the halo path. rows() and cols() are this rank's part.
class DistributedOperator : public LinearOperator<T> {
public:
    const Communicator* communicator() const override { return comm_.get(); }
    /// Rows of the whole operator (over every rank).
    std::int64_t global_rows() const { return offsets_.back(); }
    /// The global index of this rank's first row.
    std::int64_t row_offset() const { return offsets_[comm_->rank()]; }
    /// Row offsets of every rank (size() + 1 values).
    const std::vector<std::int64_t>& offsets() const { return offsets_; }

    /// The whole vector on `root` from every rank's part `x` (in the executor's memory; a host
    /// vector, empty on the other ranks). Collective.
    std::vector<T> gather(const_view<T> x, int root = 0) const;
    /// This rank's part of the vector `global` that rank `root` holds (not read elsewhere).
    /// Collective.
    std::vector<T> scatter_vector(const std::vector<T>& global, int root = 0) const;
    /// How the halo travels: "none" (one rank), "host" (host executors), "direct" (CUDA-aware
    /// MPI), "nccl" (device to device through NCCL) or "staged" (through page-locked host
    /// buffers into MPI).
    const std::string& halo_path() const { return halo_path_; }

protected:
    /// For derived classes: over `comm`, rank r owning rows [offsets[r], offsets[r + 1]).
    DistributedOperator(std::shared_ptr<const Communicator> comm, std::vector<std::int64_t> offsets)
        : comm_(std::move(comm)), offsets_(std::move(offsets)) {}

    /// Chooses the halo path for `exec` (collective): MPI takes its memory, else a
    /// PeerExchange between the devices, else staging. Sets direct_ / peer_ / halo_path().
    void choose_halo_path(const Executor& exec);

    /// The ranks the operator is spread over.
    std::shared_ptr<const Communicator> comm_;
    /// Row offsets of every rank (size() + 1 values).
    std::vector<std::int64_t> offsets_;
    /// Whether MPI takes the executor's memory directly (set by choose_halo_path).
    bool direct_ = false;
    /// Device-to-device messages (NCCL), when choose_halo_path chose them.
    std::shared_ptr<detail::PeerExchange> peer_;
    /// What halo_path() returns.
    std::string halo_path_ = "host";
};

}  // namespace portla::dist
