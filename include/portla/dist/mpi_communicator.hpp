/// \file
/// dist::MpiCommunicator: the Communicator of include/portla/dist/communicator.hpp over an MPI
/// communicator. Only in builds with PORTLA_WITH_MPI (includes <mpi.h>).
#pragma once

#include <mpi.h>

#include "portla/dist/communicator.hpp"

namespace portla::dist {

/// The Communicator over an MPI communicator (a duplicate of the caller's). Only in builds with
/// PORTLA_WITH_MPI.
class MpiCommunicator : public Communicator {
public:
    /// Over a duplicate of `comm` (MPI_Comm_dup, collective over `comm`), so that portla's
    /// messages never match the caller's. MPI must be initialised; with threads, portla calls
    /// MPI from the thread that calls the solvers only (MPI_THREAD_FUNNELED suffices). Throws
    /// Error when MPI is not initialised.
    explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);
    /// Frees the duplicate (collective), unless MPI has been finalised already.
    ~MpiCommunicator() override;
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    /// Host memory always; device memory when this MPI library is CUDA-aware at run time
    /// (OpenMPI's MPIX_Query_cuda_support) and halo_mode() is not HaloMode::staged.
    bool exchanges_memory_of(const Executor& exec) const override;
    /// Whether this MPI library passes device memory (CUDA-aware), as found at construction.
    bool cuda_aware() const { return cuda_aware_; }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void allreduce_sum(double* values, int count) const override;
    void allreduce_max(double* values, int count) const override;
    /// MPI_Iallreduce; the time blocked in wait() counts as reduce time.
    std::unique_ptr<Exchange> start_allreduce_sum(double* values, int count) const override;
    void broadcast(void* data, std::size_t bytes, int root) const override;
    void alltoall(const std::int64_t* send, std::int64_t* recv) const override;
    std::unique_ptr<Exchange> start_exchange(const std::vector<Message>& receives,
                                             const std::vector<Message>& sends) const override;

    /// The duplicated communicator portla communicates on.
    MPI_Comm get() const { return comm_; }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    bool cuda_aware_ = false;
};

}  // namespace portla::dist
