// MPI for the command-line tool: initialised by main in builds with MPI, and the
// world communicator of a run under mpirun. In builds without MPI: one rank, no communicator.
#pragma once

#include <memory>
#include <string>

#include "portla/dist/communicator.hpp"
#include "portla/executor.hpp"

namespace portla::cli {

/// MPI_Init_thread (funneled) in builds with MPI when a launcher started the process (mpirun:
/// OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE in the environment) or the command line
/// has --distributed; MPI_Finalize on destruction; nothing else.
class MpiScope {
public:
    MpiScope(int* argc, char*** argv);
    ~MpiScope();
    MpiScope(const MpiScope&) = delete;
    MpiScope& operator=(const MpiScope&) = delete;
};

/// The world communicator when run on more than one rank (or on any number with
/// `even_one_rank`, in builds with MPI), else nullptr.
std::shared_ptr<const dist::Communicator> world(bool even_one_rank = false);
/// This process's rank in the world (0 without MPI) and the number of ranks (1 without MPI).
int world_rank();
int world_size();
/// This process's rank among the ranks of its host (0 without MPI).
int local_rank();
/// executor_from_environment(name) (portla/environment.hpp), except that under mpirun "cuda" and
/// "auto" (when it means cuda) pick the GPU local_rank() modulo the GPUs visible: one rank per GPU
/// of a host ("cuda:N" is kept).
Executor rank_executor(const std::string& name);

}  // namespace portla::cli
