// The runtime interface every backend implements behind the Executor: memory, copies, ordering
// (a stream on a GPU), timing and graphs. One instance per backend and device, shared by every
// executor of that device. Each backend defines, in src/<name>/runtime.{cpp,cu}:
//
//     int device_count(tag);                                      // never throws
//     std::shared_ptr<const detail::Runtime> make_runtime(tag, int device);
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <vector>

#include "core/dispatch.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/executor.hpp"

namespace portla::detail {

/// Times work submitted to one runtime: record() marks a point in its order of work.
class Event {
public:
    virtual ~Event() = default;
    /// Marks the current point of the runtime's work (does not block).
    virtual void record() = 0;
    /// Seconds from `start` (recorded earlier) to this event; blocks until this event passed.
    virtual double seconds_since(const Event& start) const = 0;
    /// Whether the device's own clock measures (a GPU's events), or the host's steady clock.
    virtual bool on_device() const { return true; }
};

/// A fixed sequence of work captured once and launched again and again (a CUDA graph on cuda;
/// on the CPU backends the captured function itself).
class Graph {
public:
    virtual ~Graph() = default;
    /// Submits the sequence once (does not block on a GPU).
    virtual void launch() = 0;
};

/// Messages between the devices of a group of ranks, straight from device memory to device
/// memory (NCCL on cuda), ordered on the runtime's stream after the work already submitted and
/// before the work submitted later.
class PeerExchange {
public:
    virtual ~PeerExchange() = default;
    /// Enqueues the receives and sends (at most one per peer and direction; buffers in the
    /// runtime's memory); does not wait for them.
    virtual void exchange(const std::vector<dist::Communicator::Message>& receives,
                          const std::vector<dist::Communicator::Message>& sends) = 0;
    /// What moves the messages ("nccl").
    virtual std::string name() const = 0;
};

class Runtime {
public:
    virtual ~Runtime() = default;
    virtual std::string device_name() const = 0;
    virtual DeviceInfo device_info() const = 0;
    /// Free and total memory in bytes.
    virtual void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const = 0;
    /// True when this runtime's memory is ordinary host memory.
    virtual bool is_host() const = 0;

    /// Throws OutOfMemory (with the bytes) or DeviceError. 0 bytes gives nullptr.
    virtual void* allocate(std::size_t bytes) const = 0;
    virtual void deallocate(void* ptr) const noexcept = 0;
    /// Host memory that copies to and from this runtime's memory reach at full speed (page-locked
    /// on cuda: cudaHostAlloc; ordinary memory on the host backends), for staging messages.
    /// Throws OutOfMemory. 0 bytes gives nullptr.
    virtual void* allocate_pinned(std::size_t bytes) const;
    virtual void deallocate_pinned(void* ptr) const noexcept;
    /// Blocking copies after the work already submitted: host memory to this runtime's memory,
    /// back, and within it.
    virtual void copy_from_host(void* dst, const void* src, std::size_t bytes) const = 0;
    virtual void copy_to_host(void* dst, const void* src, std::size_t bytes) const = 0;
    virtual void copy_within(void* dst, const void* src, std::size_t bytes) const = 0;
    /// Blocks until all submitted work has finished.
    virtual void synchronize() const = 0;
    /// The native queue every kernel of this device is submitted to (cudaStream_t on cuda),
    /// nullptr on the host backends.
    virtual void* stream() const { return nullptr; }

    virtual std::unique_ptr<Event> make_event() const = 0;
    /// Captures the work `work` submits, for replay (on the host: keeps `work`). On cuda the
    /// capture takes the device's one stream: no other thread may submit work to an executor of
    /// the same device while `work` runs.
    virtual std::unique_ptr<Graph> capture(std::function<void()> work) const;
    /// Collective over `comm` (every rank's runtime of one backend): a PeerExchange between the
    /// ranks' devices, or nullptr on every rank where there is none (host memory, no NCCL, two
    /// ranks on one device, or PORTLA_HALO=staged in the environment).
    virtual std::unique_ptr<PeerExchange> make_peer_exchange(const dist::Communicator& comm) const {
        (void)comm;
        return nullptr;
    }
};

/// The runtime of device `device` of `backend`, created on first use and kept for the process.
/// Throws NotCompiled or DeviceError.
std::shared_ptr<const Runtime> runtime_of(Backend backend, int device);

}  // namespace portla::detail

namespace portla::kernels {
#define PORTLA_DECLARE_RUNTIME(name)                                                \
    namespace name {                                                                \
    int device_count(tag);                                                          \
    std::shared_ptr<const ::portla::detail::Runtime> make_runtime(tag, int device); \
    }
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_RUNTIME)
#undef PORTLA_DECLARE_RUNTIME
}  // namespace portla::kernels
