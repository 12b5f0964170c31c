// MPI for the command-line tool (issue 14): initialised by main in builds with MPI, and the
// world communicator of a run under mpirun. In builds without MPI: one rank, no communicator.
#pragma once

#include <memory>
#include <string>

#include "portla/dist/communicator.hpp"
#include "portla/executor.hpp"

namespace portla::cli {

/// MPI_Init_thread (funneled) in builds with MPI, MPI_Finalize on destruction; nothing else.
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
};

/// The world communicator when run on more than one rank, else nullptr.
std::shared_ptr<const dist::Communicator> world();
/// This process's rank in the world (0 without MPI) and the number of ranks (1 without MPI).
int world_rank();
int world_size();
/// This process's rank among the ranks of its node: OMPI_COMM_WORLD_LOCAL_RANK (Open MPI) or
/// MPI_LOCALRANKID (MPICH) from the environment, else world_rank().
int local_rank();

/// Executor::create(backend), except that under mpirun with several ranks a GPU backend named
/// without a device ("cuda", or "auto" when it picks cuda) runs on device local_rank() modulo
/// the node's device count: one rank per GPU, ranks sharing GPUs round robin when there are more.
Executor rank_executor(const std::string& backend);

}  // namespace portla::cli
