#include "mpi.hpp"

#include <cstdlib>

#if PORTLA_HAS_MPI
#include "portla/dist/mpi_communicator.hpp"
#endif

namespace portla::cli {

#if PORTLA_HAS_MPI
namespace {
bool initialised_here = false;
std::shared_ptr<const dist::Communicator>& world_slot() {
    static std::shared_ptr<const dist::Communicator> comm;
    return comm;
}
}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
    int provided = 0;
    initialised_here = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS;
}

MpiSession::~MpiSession() {
    world_slot().reset();  // frees the duplicated communicator before MPI_Finalize
    if (initialised_here) MPI_Finalize();
}

std::shared_ptr<const dist::Communicator> world() {
    if (!initialised_here || world_size() < 2) return nullptr;
    auto& comm = world_slot();
    if (!comm) comm = std::make_shared<dist::MpiCommunicator>(MPI_COMM_WORLD);
    return comm;
}

int world_rank() {
    int rank = 0;
    if (initialised_here) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int world_size() {
    int size = 1;
    if (initialised_here) MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}
#else
MpiSession::MpiSession(int*, char***) {}
MpiSession::~MpiSession() = default;
std::shared_ptr<const dist::Communicator> world() { return nullptr; }
int world_rank() { return 0; }
int world_size() { return 1; }
#endif

int local_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}) {
        const char* value = std::getenv(name);
        char* end = nullptr;
        const long rank = value ? std::strtol(value, &end, 10) : -1;
        if (value && end != value && *end == '\0' && rank >= 0) return static_cast<int>(rank);
    }
    return world_rank();
}

Executor rank_executor(const std::string& backend) {
    // Decided before any executor exists, so that no rank opens a context on a GPU it does
    // not use.
    const int gpus = device_count(Backend::cuda);
    const bool gpu = backend == "cuda" || (backend == "auto" && gpus > 0);
    if (world_size() < 2 || !gpu) return Executor::create(backend);
    return Executor::create(Backend::cuda, gpus > 0 ? local_rank() % gpus : 0);
}

}  // namespace portla::cli
