// The cuda runtime's PeerExchange (core/runtime.hpp): halo messages between the ranks' GPUs
// through NCCL's point-to-point calls on the device's stream (over NVLink or PCIe, no host
// copy). Measured on 2 H200 (NVLink NV18, 2026-11-23, bench/comm_bench.cpp): one plane of 512^2
// doubles each way 51 us against 986 us staged through page-locked host memory into MPI, and
// NCCL ahead at every plane size from 64^2 (26 vs 34 us); so it is the default wherever it can
// run. Allreduces stay with MPI: a few doubles take 15 us staged vs 17 us through NCCL.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/peer_exchange.hpp"
#include "portla/error.hpp"

#if PORTLA_HAVE_NCCL
#include <nccl.h>
#endif

namespace portla::kernels::cuda {

void activate(int device);

#if PORTLA_HAVE_NCCL
namespace {

void check_nccl(ncclResult_t result, const char* call) {
    if (result != ncclSuccess)
        throw DeviceError(std::string("NCCL: ") + call + " failed: " + ncclGetErrorString(result));
}

class NcclExchange final : public detail::PeerExchange {
public:
    NcclExchange(ncclComm_t comm, cudaStream_t stream, int device)
        : comm_(comm), stream_(stream), device_(device) {}
    ~NcclExchange() override {
        if (cudaSetDevice(device_) == cudaSuccess) (void)ncclCommDestroy(comm_);
    }
    void exchange(const std::vector<dist::Communicator::Message>& receives,
                  const std::vector<dist::Communicator::Message>& sends) override {
        activate(device_);
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for (const auto& m : receives)
            (void)ncclRecv(m.data, m.bytes, ncclChar, m.peer, comm_, stream_);
        for (const auto& m : sends)
            (void)ncclSend(m.data, m.bytes, ncclChar, m.peer, comm_, stream_);
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    }
    std::string name() const override { return "nccl"; }

private:
    ncclComm_t comm_;
    cudaStream_t stream_;
    int device_;
};

}  // namespace
#endif

std::unique_ptr<detail::PeerExchange> make_nccl_exchange(const dist::Communicator& comm, int device,
                                                         void* stream) {
#if PORTLA_HAVE_NCCL
    if (comm.halo_mode() == dist::HaloMode::staged) return nullptr;
    const int size = comm.size(), rank = comm.rank();
    // NCCL needs one rank per GPU: every rank's device UUID differs, or nobody uses it.
    cudaDeviceProp prop{};
    PORTLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    std::int64_t key[2];
    std::memcpy(key, prop.uuid.bytes, sizeof key);
    std::vector<std::int64_t> send(size, key[0] ^ (key[1] * 31)), all(size);
    comm.alltoall(send.data(), all.data());
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) return nullptr;
    ncclUniqueId id{};
    double failed = 0;
    if (rank == 0 && ncclGetUniqueId(&id) != ncclSuccess) failed = 1;
    comm.allreduce_max(&failed, 1);
    if (failed != 0) return nullptr;
    comm.broadcast(&id, sizeof id, 0);
    activate(device);
    ncclComm_t nccl = nullptr;
    const ncclResult_t result = ncclCommInitRank(&nccl, size, id, rank);
    failed = result == ncclSuccess ? 0 : 1;
    comm.allreduce_max(&failed, 1);
    if (failed != 0) {
        if (result == ncclSuccess) (void)ncclCommDestroy(nccl);
        return nullptr;
    }
    return std::make_unique<NcclExchange>(nccl, static_cast<cudaStream_t>(stream), device);
#else
    (void)comm, (void)device, (void)stream;
    return nullptr;
#endif
}

}  // namespace portla::kernels::cuda
