/// \file
/// Communicator: the one interface through which portla's solvers reduce across processes, and
/// what a distributed operator's halo exchange needs. Solvers see it through
/// LinearOperator::communicator() (nullptr, or size() == 1: nothing to reduce). The interface
/// names no MPI type; dist::MpiCommunicator (portla/dist/mpi_communicator.hpp, only in builds with
/// PORTLA_WITH_MPI) implements it over an MPI communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla {

/// Whether this build of portla has MPI (CMake option PORTLA_WITH_MPI): then
/// dist::MpiCommunicator and dist::DistributedCsr exist (and PORTLA_HAS_MPI is defined for
/// users of the portla::portla target).
bool has_mpi();

/// Operators distributed over processes (ranks) and the Communicator their reductions and halo
/// exchanges go through.
namespace dist {

/// How the distributed operators over a communicator exchange the halos of a GPU executor.
enum class HaloMode {
    automatic,  ///< device memory through CUDA-aware MPI, else NCCL (a GPU per rank), else staged
    staged      ///< through host memory always
};

/// Collective operations of a group of processes (ranks). Every collective must be called by
/// every rank of the group, in the same order. Blocking unless stated otherwise.
class Communicator {
public:
    /// An exchange (or a non-blocking collective) in flight; wait() returns once every message
    /// has been sent and received, or the collective has completed (the buffers may then be
    /// reused).
    class Exchange {
    public:
        virtual ~Exchange() = default;
        /// Blocks until the exchange or collective has completed.
        virtual void wait() = 0;
    };
    /// Bytes to send to or receive from one rank (host memory, or memory of an executor that
    /// exchanges_memory_of() accepts).
    struct Message {
        /// The other rank.
        int peer = 0;
        /// The buffer sent from or received into.
        void* data = nullptr;
        /// Its size in bytes.
        std::size_t bytes = 0;
    };

    /// Where the time of the collectives and exchanges went (wall-clock seconds spent blocked
    /// in them on this rank: what overlapping did not hide), from construction or reset_stats().
    struct Stats {
        double reduce_s = 0;  ///< in allreduce_sum / allreduce_max
        /// number of allreduce_sum / allreduce_max calls
        long reductions = 0;
        double exchange_s = 0;  ///< in Exchange::wait (halo exchanges)
        /// number of exchanges waited for
        long exchanges = 0;
    };

    virtual ~Communicator() = default;
    /// The time spent blocked in collectives and exchanges so far.
    const Stats& stats() const { return stats_; }
    /// Sets stats() back to zero (this rank only; not collective).
    void reset_stats() const { stats_ = Stats{}; }
    /// Whether start_exchange takes buffers in the memory of `exec` (a device: CUDA-aware MPI)
    /// rather than host memory only.
    virtual bool exchanges_memory_of(const Executor& exec) const;
    /// How the distributed operators made over this communicator afterwards exchange GPU halos;
    /// set it to the same value on every rank. HaloMode::automatic unless set.
    void set_halo_mode(HaloMode mode) { halo_mode_ = mode; }
    /// The mode set_halo_mode set (HaloMode::automatic unless set).
    HaloMode halo_mode() const { return halo_mode_; }
    /// This process's rank, 0 ... size() - 1.
    virtual int rank() const = 0;
    /// Number of ranks of the group.
    virtual int size() const = 0;
    /// values[i] = sum over ranks of values[i], in place, on every rank.
    virtual void allreduce_sum(double* values, int count) const = 0;
    /// Starts values[i] = sum over ranks of values[i] (in place, on every rank) and returns at
    /// once where the library can (MPI_Iallreduce); the values hold the sums after wait(), and
    /// must not be touched before. Collective, in the same order as the other collectives. This
    /// default completes it at once (allreduce_sum).
    virtual std::unique_ptr<Exchange> start_allreduce_sum(double* values, int count) const;
    /// values[i] = max over ranks of values[i], in place, on every rank (NaN propagates).
    virtual void allreduce_max(double* values, int count) const = 0;
    /// `bytes` bytes at `data` of rank `root` copied to every rank's `data`.
    virtual void broadcast(void* data, std::size_t bytes, int root) const = 0;
    /// recv[i] = what rank i put in its send[this rank]: one value per rank each way.
    virtual void alltoall(const std::int64_t* send, std::int64_t* recv) const = 0;
    /// Posts every receive, then every send, without waiting (non-blocking; not collective:
    /// each message must be matched by the peer's). At most one message per peer and direction
    /// per exchange.
    virtual std::unique_ptr<Exchange> start_exchange(const std::vector<Message>& receives,
                                                     const std::vector<Message>& sends) const = 0;
    /// start_exchange(...)->wait()
    void exchange(const std::vector<Message>& receives, const std::vector<Message>& sends) const {
        start_exchange(receives, sends)->wait();
    }

protected:
    /// What stats() returns; implementations add their blocked time to it.
    mutable Stats stats_;

private:
    HaloMode halo_mode_ = HaloMode::automatic;
};

/// Whether `comm` has more than one rank (what a solver must reduce across).
inline bool is_distributed(const Communicator* comm) { return comm && comm->size() > 1; }

/// A collective checkpoint: every rank passes what failed on it ("" when nothing did). Returns
/// "" when nothing failed anywhere, else the message of the lowest failing rank, prefixed with
/// "rank R: " when there is more than one rank. One allreduce (two broadcasts more on failure).
std::string agree_on_error(const Communicator& comm, const std::string& local_error);

/// Runs `step` on every rank and agrees on its outcome, so that an exception on one rank
/// becomes an exception on all of them (never a rank waiting in a later collective for one that
/// has thrown): the rank whose step threw rethrows its exception; the others throw BadInput
/// with the failing rank's message. Without a communicator (or one rank) it just runs `step`.
template <typename Step>
void on_every_rank(const Communicator* comm, Step&& step) {
    if (!is_distributed(comm)) {
        step();
        return;
    }
    std::exception_ptr error;
    std::string message;
    try {
        step();
    } catch (const std::exception& e) {
        error = std::current_exception();
        message = e.what();
        if (message.empty()) message = "unknown error";
    }
    const std::string agreed = agree_on_error(*comm, message);
    if (error) std::rethrow_exception(error);
    if (!agreed.empty()) throw BadInput(agreed);
}

}  // namespace dist
}  // namespace portla
