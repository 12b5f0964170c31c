// MPI for the command-line tool (issue 14): initialised by main in builds with MPI, and the
// world communicator of a run under mpirun. In builds without MPI: one rank, no communicator.
#pragma once

#include <memory>

#include "portla/dist/communicator.hpp"

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

}  // namespace portla::cli
