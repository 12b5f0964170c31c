#include "mpi.hpp"

#include <cstdlib>
#include <string>

#include "portla/environment.hpp"
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

// Whether a launcher (mpirun, mpiexec, srun) started this process: then MPI is initialised.
// Otherwise it is not (MPI_Init as a singleton costs about 0.4 s, every command paid it), unless
// the command asks for the distributed path (--distributed).
bool wants_mpi(int argc, char** argv) {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--distributed") return true;
    return false;
}

MpiScope::MpiScope(int* argc, char*** argv) {
    if (!wants_mpi(*argc, *argv)) return;
    int provided = 0;
    initialised_here = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS;
}

MpiScope::~MpiScope() {
    world_slot().reset();  // frees the duplicated communicator before MPI_Finalize
    if (initialised_here) MPI_Finalize();
}

std::shared_ptr<const dist::Communicator> world(bool even_one_rank) {
    if (!initialised_here || (world_size() < 2 && !even_one_rank)) return nullptr;
    auto& comm = world_slot();
    if (!comm) {
        auto made = std::make_shared<dist::MpiCommunicator>(MPI_COMM_WORLD);
        // PORTLA_HALO, agreed on every rank: a value one rank refuses is an error on all of them
        dist::HaloMode mode = dist::HaloMode::automatic;
        dist::on_every_rank(made.get(), [&] { mode = halo_mode_from_environment(); });
        made->set_halo_mode(mode);
        comm = std::move(made);
    }
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

int local_rank() {
    static const int rank = [] {
        if (!initialised_here) return 0;
        MPI_Comm node = MPI_COMM_NULL;
        int r = 0;
        if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS) {
            MPI_Comm_rank(node, &r);
            MPI_Comm_free(&node);
        }
        return r;
    }();
    return rank;
}
#else
MpiScope::MpiScope(int*, char***) {}
MpiScope::~MpiScope() = default;
std::shared_ptr<const dist::Communicator> world(bool) { return nullptr; }
int world_rank() { return 0; }
int world_size() { return 1; }
int local_rank() { return 0; }
#endif

Executor rank_executor(const std::string& name) {
    if (world_size() > 1 && (name == "cuda" || name == "auto")) {
        const int gpus = cuda_device_count();
        if (gpus > 0) return with_environment(Executor::cuda(local_rank() % gpus));
    }
    return executor_from_environment(name);
}

}  // namespace portla::cli
