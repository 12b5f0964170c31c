// Batches over the ranks of a Communicator: the split of the systems and the gathering of their
// results (include/portla/batch/distributed.hpp).
#include "portla/batch/distributed.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "portla/error.hpp"

namespace portla::batch {

std::vector<std::size_t> split_systems(std::size_t num_systems, int parts) {
    if (parts < 1)
        throw BadInput("split_systems: parts must be >= 1, got " + std::to_string(parts));
    const auto p = static_cast<std::size_t>(parts);
    std::vector<std::size_t> offsets(p + 1, 0);
    for (std::size_t r = 0; r < p; ++r)
        offsets[r + 1] = offsets[r] + num_systems / p + (r < num_systems % p ? 1 : 0);
    return offsets;
}

namespace {

// The results of `count` systems as one message: iterations, reasons, residual norms, right-hand
// side norms, each as `count` doubles (integers and enumerators are exact in a double).
std::vector<double> pack(const Result& r) {
    const std::size_t count = r.size();
    std::vector<double> packed(4 * count);
    for (std::size_t s = 0; s < count; ++s) {
        packed[s] = r.iterations[s];
        packed[count + s] = static_cast<double>(static_cast<int>(r.reason[s]));
        packed[2 * count + s] = r.residual_norm[s];
        packed[3 * count + s] = r.rhs_norm[s];
    }
    return packed;
}

void unpack(const double* packed, std::size_t count, Result& r) {
    for (std::size_t s = 0; s < count; ++s) {
        r.iterations.push_back(static_cast<int>(packed[s]));
        r.reason.push_back(static_cast<solver::StopReason>(static_cast<int>(packed[count + s])));
        r.residual_norm.push_back(packed[2 * count + s]);
        r.rhs_norm.push_back(packed[3 * count + s]);
    }
}

}  // namespace

Result gather(const dist::Communicator& comm, const Result& local, int root) {
    const int size = comm.size(), rank = comm.rank();
    // The slowest rank's time and the largest message, which every rank checks alike.
    double maxima[2] = {local.time_s, double(local.size())};
    comm.allreduce_max(maxima, 2);
    if (4 * sizeof(double) * maxima[1] > double(std::numeric_limits<int>::max()))
        throw Unsupported("batch gather: " + std::to_string(std::size_t(maxima[1])) +
                          " systems on one rank exceed one MPI message (2^31 - 1 bytes)");
    Result whole;
    whole.time_s = maxima[0];
    if (size == 1) {
        Result copy = local;
        copy.time_s = whole.time_s;
        return copy;
    }
    // How many systems each rank sends to root.
    std::vector<std::int64_t> send(static_cast<std::size_t>(size), 0), counts(send.size(), 0);
    send[static_cast<std::size_t>(root)] = static_cast<std::int64_t>(local.size());
    comm.alltoall(send.data(), counts.data());
    std::vector<double> mine = pack(local);
    if (rank != root) {
        if (!mine.empty()) comm.exchange({}, {{root, mine.data(), mine.size() * sizeof(double)}});
        return whole;
    }
    std::vector<std::vector<double>> received(static_cast<std::size_t>(size));
    std::vector<dist::Communicator::Message> receives;
    for (int p = 0; p < size; ++p) {
        auto& buffer = received[static_cast<std::size_t>(p)];
        if (p == root) {
            buffer = std::move(mine);
            continue;
        }
        buffer.resize(4 * static_cast<std::size_t>(counts[static_cast<std::size_t>(p)]));
        if (!buffer.empty()) receives.push_back({p, buffer.data(), buffer.size() * sizeof(double)});
    }
    comm.exchange(receives, {});
    whole.launch = local.launch;
    for (const auto& buffer : received) unpack(buffer.data(), buffer.size() / 4, whole);
    return whole;
}

}  // namespace portla::batch
