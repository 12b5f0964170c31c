// The cuda runtime's PeerExchange through NCCL (src/cuda/peer_exchange.cu).
#pragma once

#include <memory>

#include "core/runtime.hpp"

namespace portla::kernels::cuda {

/// Collective over `comm`: NCCL between the ranks' GPUs (`device`, its stream), or nullptr on
/// every rank (no NCCL in this build, two ranks on one GPU, PORTLA_HALO=staged, or NCCL failed
/// to start).
std::unique_ptr<detail::PeerExchange> make_nccl_exchange(const dist::Communicator& comm, int device,
                                                         void* stream);

}  // namespace portla::kernels::cuda
