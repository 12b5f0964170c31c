// dist::MpiCommunicator: the Communicator interface over MPI.
#include "portla/dist/mpi_communicator.hpp"

#include <chrono>
#include <climits>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // OpenMPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace portla::dist {
namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, length));
}

int message_bytes(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT_MAX))
        throw Unsupported("MPI: a message of " + std::to_string(bytes) +
                          " bytes exceeds the int count of MPI 3 (2^31 - 1)");
    return static_cast<int>(bytes);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Requests in flight; the time blocked in wait() goes to the stats' `seconds`, one to `count`.
class MpiExchange : public Communicator::Exchange {
public:
    MpiExchange(std::vector<MPI_Request> requests, Communicator::Stats& stats,
                double Communicator::Stats::*seconds = &Communicator::Stats::exchange_s,
                long Communicator::Stats::*count = &Communicator::Stats::exchanges)
        : requests_(std::move(requests)), stats_(stats), seconds_(seconds), count_(count) {}
    ~MpiExchange() override {
        if (!requests_.empty())
            MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    }
    void wait() override {
        const auto start = std::chrono::steady_clock::now();
        const int code = MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
        stats_.*seconds_ += seconds_since(start);
        ++(stats_.*count_);
        check(code, "MPI_Waitall");
    }

private:
    std::vector<MPI_Request> requests_;
    Communicator::Stats& stats_;
    double Communicator::Stats::*seconds_;
    long Communicator::Stats::*count_;
};

constexpr int kTag = 14;

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) throw Error("MpiCommunicator: MPI is not initialised (call MPI_Init first)");
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    cuda_aware_ = MPIX_Query_cuda_support() == 1;
#endif
}

bool MpiCommunicator::exchanges_memory_of(const Executor& exec) const {
    if (exec.is_host()) return true;
    return cuda_aware_ && halo_mode() != HaloMode::staged;
}

MpiCommunicator::~MpiCommunicator() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::allreduce_sum(double* values, int count) const {
    const auto start = std::chrono::steady_clock::now();
    const int code = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_);
    stats_.reduce_s += seconds_since(start);
    ++stats_.reductions;
    check(code, "MPI_Allreduce");
}

std::unique_ptr<Communicator::Exchange> MpiCommunicator::start_allreduce_sum(double* values,
                                                                             int count) const {
    std::vector<MPI_Request> request(1);
    check(MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_, &request[0]),
          "MPI_Iallreduce");
    return std::make_unique<MpiExchange>(std::move(request), stats_, &Stats::reduce_s,
                                         &Stats::reductions);
}

void MpiCommunicator::allreduce_max(double* values, int count) const {
    const auto start = std::chrono::steady_clock::now();
    const int code = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, comm_);
    stats_.reduce_s += seconds_since(start);
    ++stats_.reductions;
    check(code, "MPI_Allreduce");
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) const {
    check(MPI_Bcast(data, message_bytes(bytes), MPI_BYTE, root, comm_), "MPI_Bcast");
}

void MpiCommunicator::alltoall(const std::int64_t* send, std::int64_t* recv) const {
    check(MPI_Alltoall(send, 1, MPI_INT64_T, recv, 1, MPI_INT64_T, comm_), "MPI_Alltoall");
}

std::unique_ptr<Communicator::Exchange> MpiCommunicator::start_exchange(
    const std::vector<Message>& receives, const std::vector<Message>& sends) const {
    std::vector<MPI_Request> requests;
    requests.reserve(receives.size() + sends.size());
    for (const auto& m : receives) {
        requests.emplace_back();
        check(MPI_Irecv(m.data, message_bytes(m.bytes), MPI_BYTE, m.peer, kTag, comm_,
                        &requests.back()),
              "MPI_Irecv");
    }
    for (const auto& m : sends) {
        requests.emplace_back();
        check(MPI_Isend(m.data, message_bytes(m.bytes), MPI_BYTE, m.peer, kTag, comm_,
                        &requests.back()),
              "MPI_Isend");
    }
    return std::make_unique<MpiExchange>(std::move(requests), stats_);
}

}  // namespace portla::dist
