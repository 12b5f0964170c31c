// has_mpi() and the error agreement of include/portla/dist/communicator.hpp (no MPI here: the
// checkpoint goes through the Communicator interface).
#include "portla/dist/communicator.hpp"

#include <algorithm>

namespace portla {

bool has_mpi() {
#if PORTLA_WITH_MPI
    return true;
#else
    return false;
#endif
}

namespace dist {

bool Communicator::exchanges_memory_of(const Executor& exec) const { return exec.is_host(); }

std::unique_ptr<Communicator::Exchange> Communicator::start_allreduce_sum(double* values,
                                                                          int count) const {
    struct Done final : Exchange {
        void wait() override {}
    };
    allreduce_sum(values, count);
    return std::make_unique<Done>();
}

std::string agree_on_error(const Communicator& comm, const std::string& local_error) {
    const int size = comm.size();
    // The lowest failing rank r as size - r, the largest value: 0 when no rank failed.
    double first = local_error.empty() ? 0.0 : double(size - comm.rank());
    comm.allreduce_max(&first, 1);
    if (first == 0) return {};
    const int root = size - static_cast<int>(first);
    std::int64_t length = comm.rank() == root ? std::int64_t(local_error.size()) : 0;
    comm.broadcast(&length, sizeof length, root);
    std::string message = comm.rank() == root ? local_error : std::string(length, ' ');
    comm.broadcast(message.data(), message.size(), root);
    if (size == 1) return message;
    return "rank " + std::to_string(root) + ": " + message;
}

}  // namespace dist
}  // namespace portla
