// Runtime of the cuda backend: device queries, memory, copies and events on the device's one
// stream, CUDA graphs, and the per-device state behind scratch.hpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/runtime.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/peer_exchange.hpp"
#include "cuda/scratch.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {

int device_count(tag) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no GPU: not an error for a query
        return 0;
    }
    return count;
}

void activate(int device) {
    int current = -1;
    PORTLA_CUDA_CHECK(cudaGetDevice(&current));
    if (current != device) PORTLA_CUDA_CHECK(cudaSetDevice(device));
}

namespace {

class CudaEvent final : public detail::Event {
public:
    CudaEvent(int device, cudaStream_t stream) : device_(device), stream_(stream) {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaEventCreate(&event_));
    }
    ~CudaEvent() override { (void)cudaEventDestroy(event_); }
    void record() override {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaEventRecord(event_, stream_));
    }
    double seconds_since(const detail::Event& start) const override {
        PORTLA_CUDA_CHECK(cudaEventSynchronize(event_));
        float ms = 0;
        PORTLA_CUDA_CHECK(
            cudaEventElapsedTime(&ms, static_cast<const CudaEvent&>(start).event_, event_));
        return ms * 1e-3;
    }

private:
    int device_;
    cudaStream_t stream_;
    cudaEvent_t event_ = nullptr;
};

class CudaGraph final : public detail::Graph {
public:
    CudaGraph(int device, cudaStream_t stream, const std::function<void()>& work)
        : device_(device), stream_(stream) {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        try {
            work();
        } catch (...) {
            cudaGraph_t broken = nullptr;
            (void)cudaStreamEndCapture(stream_, &broken);
            if (broken) (void)cudaGraphDestroy(broken);
            (void)cudaGetLastError();
            throw;
        }
        cudaGraph_t graph = nullptr;
        PORTLA_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        const cudaError_t err = cudaGraphInstantiate(&exec_, graph, 0);
        (void)cudaGraphDestroy(graph);
        PORTLA_CUDA_CHECK(err);
    }
    ~CudaGraph() override {
        if (exec_) (void)cudaGraphExecDestroy(exec_);
    }
    void launch() override {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    }

private:
    int device_;
    cudaStream_t stream_;
    cudaGraphExec_t exec_ = nullptr;
};

// What a partial trim of the pool releases beyond an allocation's shortfall: the pool maps and
// releases memory in large pages, and the device keeps some of its free memory for itself.
constexpr std::size_t kTrimMargin = std::size_t{64} << 20;

// One per device for the process: every kernel, copy and event of the device goes to its stream,
// so work of different executors of one device (and the shared reduction scratch) stays in
// order. The stream is a blocking one: it also waits for, and is waited for by, work on the
// legacy default stream (whatever a library queues there stays ordered with portla's work).
//
// Memory comes from the device's default memory pool in the stream's order (cudaMallocAsync,
// cudaFreeAsync on the stream), kept by the pool when freed (release threshold: never), so that
// the many short-lived arrays of a set-up (the AMG hierarchy's workspaces) cost neither a driver
// allocation nor the device-wide synchronisation of cudaFree. Work on the legacy default stream
// (CuPy's and PyTorch's default) is ordered with the stream, so memory a library reads there is
// not reused before it is done; a library's own non-blocking streams are not. The free memory
// reported counts what the pool holds unused. PORTLA_CUDA_POOL=0 in the environment makes every
// allocation a cudaMalloc and every free a cudaFree instead.
class CudaRuntime final : public detail::Runtime {
public:
    explicit CudaRuntime(int device) : device_(device) {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault));
        const char* env = std::getenv("PORTLA_CUDA_POOL");
        int pools = 0;
        (void)cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device_);
        if (pools && !(env && std::string(env) == "0") &&
            cudaDeviceGetDefaultMemPool(&pool_, device_) == cudaSuccess) {
            std::uint64_t keep = UINT64_MAX;
            PORTLA_CUDA_CHECK(
                cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
        } else {
            pool_ = nullptr;
            (void)cudaGetLastError();
        }
    }
    // The stream is left to the process's end: executors may outlive static destructors' order.

    std::string device_name() const override { return device_info().name; }
    DeviceInfo device_info() const override {
        cudaDeviceProp prop{};
        PORTLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
        DeviceInfo info;
        info.id = device_;
        info.name = prop.name;
        info.memory_bytes = prop.totalGlobalMem;
        info.multiprocessors = prop.multiProcessorCount;
        info.compute_major = prop.major;
        info.compute_minor = prop.minor;
        info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
        info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
        PORTLA_CUDA_CHECK(cudaDriverGetVersion(&info.cuda_driver_version));
        PORTLA_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
        return info;
    }
    void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const override {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (pool_) {
            std::uint64_t reserved = 0, used = 0;
            PORTLA_CUDA_CHECK(
                cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved));
            PORTLA_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used));
            free_bytes += static_cast<std::size_t>(reserved > used ? reserved - used : 0);
        }
    }
    bool is_host() const override { return false; }

    void* allocate(std::size_t bytes) const override {
        if (bytes == 0) return nullptr;
        activate(device_);
        release_deferred();
        void* ptr = nullptr;
        // While the stream is captured into a graph, a pool allocation would become a node of
        // the graph: such code gets cudaMalloc (and its capture error) as without the pool.
        const bool pooled = pool_ && !capturing();
        cudaError_t err = pooled ? cudaMallocAsync(&ptr, bytes, stream_) : cudaMalloc(&ptr, bytes);
        if (err == cudaErrorMemoryAllocation && pooled) {
            // The pool's unused memory back to the device: first only what the allocation lacks
            // (the rest stays mapped for the allocations that follow), then all of it.
            (void)cudaGetLastError();
            PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream_));
            std::size_t free_bytes = 0, total_bytes = 0;
            std::uint64_t reserved = 0, used = 0;
            PORTLA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
            PORTLA_CUDA_CHECK(
                cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved));
            PORTLA_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used));
            const std::uint64_t lacking =
                bytes + kTrimMargin > free_bytes ? bytes + kTrimMargin - free_bytes : 0;
            const std::uint64_t unused = reserved > used ? reserved - used : 0;
            // A partial trim only where the pool's unused memory covers the shortfall.
            if (lacking <= unused) {
                PORTLA_CUDA_CHECK(
                    cudaMemPoolTrimTo(pool_, static_cast<std::size_t>(reserved - lacking)));
                err = cudaMallocAsync(&ptr, bytes, stream_);
                if (err == cudaErrorMemoryAllocation) (void)cudaGetLastError();
            }
            if (err == cudaErrorMemoryAllocation) {
                PORTLA_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
                err = cudaMallocAsync(&ptr, bytes, stream_);
            }
        }
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw OutOfMemory("cuda:" + std::to_string(device_), bytes);
        }
        PORTLA_CUDA_CHECK(err);
        return ptr;
    }
    void deallocate(void* ptr) const noexcept override {
        if (!ptr) return;
        // Errors are dropped: this runs in destructors, possibly while the runtime shuts down.
        if (cudaSetDevice(device_) == cudaSuccess) {
            if (!pool_) {
                (void)cudaFree(ptr);
            } else if (capturing()) {
                // Not a node of the graph being captured: freed at the next allocation or free.
                std::lock_guard<std::mutex> lock(deferred_mutex_);
                deferred_.push_back(ptr);
            } else {
                release_deferred();
                // cudaFreeAsync frees cudaMalloc's memory too (allocated while capturing).
                (void)cudaFreeAsync(ptr, stream_);
            }
        }
        (void)cudaGetLastError();
    }
    void* allocate_pinned(std::size_t bytes) const override {
        if (bytes == 0) return nullptr;
        activate(device_);
        void* ptr = nullptr;
        const cudaError_t err = cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw OutOfMemory("host (pinned)", bytes);
        }
        PORTLA_CUDA_CHECK(err);
        return ptr;
    }
    void deallocate_pinned(void* ptr) const noexcept override {
        if (ptr) (void)cudaFreeHost(ptr);
        (void)cudaGetLastError();
    }
    void copy_from_host(void* dst, const void* src, std::size_t bytes) const override {
        copy(dst, src, bytes, cudaMemcpyHostToDevice);
    }
    void copy_to_host(void* dst, const void* src, std::size_t bytes) const override {
        copy(dst, src, bytes, cudaMemcpyDeviceToHost);
    }
    void copy_within(void* dst, const void* src, std::size_t bytes) const override {
        copy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    }
    void synchronize() const override {
        activate(device_);
        PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    void* stream() const override { return stream_; }
    std::unique_ptr<detail::Event> make_event() const override {
        return std::make_unique<CudaEvent>(device_, stream_);
    }
    std::unique_ptr<detail::Graph> capture(std::function<void()> work) const override {
        return std::make_unique<CudaGraph>(device_, stream_, work);
    }
    std::unique_ptr<detail::PeerExchange> make_peer_exchange(
        const dist::Communicator& comm) const override {
        return make_nccl_exchange(comm, device_, stream_);
    }

private:
    bool capturing() const {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        return cudaStreamIsCapturing(stream_, &status) == cudaSuccess &&
               status != cudaStreamCaptureStatusNone;
    }
    // The frees deferred while the stream was captured, done once it is not.
    void release_deferred() const noexcept {
        std::lock_guard<std::mutex> lock(deferred_mutex_);
        if (deferred_.empty() || capturing()) return;
        for (void* ptr : deferred_) (void)cudaFreeAsync(ptr, stream_);
        deferred_.clear();
    }
    void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) const {
        if (bytes == 0) return;
        activate(device_);
        PORTLA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
        PORTLA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    int device_;
    cudaStream_t stream_ = nullptr;
    cudaMemPool_t pool_ = nullptr;  // nullptr: cudaMalloc and cudaFree
    mutable std::mutex deferred_mutex_;
    mutable std::vector<void*> deferred_;
};

}  // namespace

std::shared_ptr<const detail::Runtime> make_runtime(tag, int device) {
    return std::make_shared<CudaRuntime>(device);
}

namespace {

struct DeviceState {
    bool have_limits = false;
    DeviceLimits limits;
    ReductionScratch scratch;
    SplitScratch split;
    std::vector<void*> outgrown;  // split scratch buffers replaced by larger ones
};

std::mutex state_mutex;
std::map<int, DeviceState> states;  // never destroyed memory: freed with the process

DeviceLimits query_limits(int device) {
    DeviceLimits l;
    PORTLA_CUDA_CHECK(
        cudaDeviceGetAttribute(&l.multiprocessors, cudaDevAttrMultiProcessorCount, device));
    PORTLA_CUDA_CHECK(cudaDeviceGetAttribute(&l.max_threads_per_multiprocessor,
                                             cudaDevAttrMaxThreadsPerMultiProcessor, device));
    PORTLA_CUDA_CHECK(cudaDeviceGetAttribute(&l.max_blocks_per_multiprocessor,
                                             cudaDevAttrMaxBlocksPerMultiprocessor, device));
    PORTLA_CUDA_CHECK(cudaDeviceGetAttribute(&l.max_shared_memory_per_block_optin,
                                             cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    PORTLA_CUDA_CHECK(cudaDeviceGetAttribute(&l.l2_bytes, cudaDevAttrL2CacheSize, device));
    PORTLA_CUDA_CHECK(
        cudaDeviceGetAttribute(&l.compute_major, cudaDevAttrComputeCapabilityMajor, device));
    l.multiprocessors = std::max(l.multiprocessors, 1);
    l.max_threads_per_multiprocessor = std::max(l.max_threads_per_multiprocessor, 32);
    l.max_blocks_per_multiprocessor = std::max(l.max_blocks_per_multiprocessor, 1);
    return l;
}

// Caller holds state_mutex.
const DeviceLimits& limits_locked(int device) {
    DeviceState& s = states[device];
    if (!s.have_limits) {
        s.limits = query_limits(device);
        s.have_limits = true;
    }
    return s.limits;
}

unsigned resident_blocks(const DeviceLimits& l, int block_size) {
    const int per_sm =
        std::max(1, std::min(l.max_threads_per_multiprocessor / std::max(block_size, 1),
                             l.max_blocks_per_multiprocessor));
    return static_cast<unsigned>(l.multiprocessors) * static_cast<unsigned>(per_sm);
}

// Frees every scratch buffer at exit. Constructed on the first allocation, i.e. after the CUDA
// runtime registered its own exit handler, so it runs before the runtime tears the context
// down (and compute-sanitizer's leak check sees nothing left behind).
struct ScratchReleaser {
    ~ScratchReleaser() {
        std::lock_guard<std::mutex> lock(state_mutex);
        for (auto& [device, state] : states) {
            if (!state.scratch.counter && !state.split.counters) continue;
            (void)cudaSetDevice(device);
            if (state.scratch.counter) (void)cudaFree(state.scratch.counter);
            if (state.split.counters) (void)cudaFree(state.split.counters);
            for (void* old : state.outgrown) (void)cudaFree(old);
            state.scratch = ReductionScratch{};
            state.split = SplitScratch{};
            state.outgrown.clear();
        }
    }
};

// `bytes` of device memory whose first `zeroed` bytes are zero, for scratch kept to the process's
// end (freed by ScratchReleaser). Caller holds state_mutex.
void* allocate_scratch(int device, std::size_t bytes, std::size_t zeroed, const char* what) {
    activate(device);
    void* base = nullptr;
    const cudaError_t err = cudaMalloc(&base, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory("cuda:" + std::to_string(device) + ": " + what, bytes);
    }
    PORTLA_CUDA_CHECK(err);
    // Zeroed on the device's stream (every later kernel runs there), and waited for: the counters
    // are zeroed only here.
    const auto stream =
        static_cast<cudaStream_t>(detail::runtime_of(Backend::cuda, device)->stream());
    cudaError_t set_err = cudaMemsetAsync(base, 0, zeroed, stream);
    if (set_err == cudaSuccess) set_err = cudaStreamSynchronize(stream);
    if (set_err != cudaSuccess) {
        (void)cudaFree(base);
        PORTLA_CUDA_CHECK(set_err);
    }
    static ScratchReleaser releaser;
    return base;
}

}  // namespace

// The lookups below run on every launch: each thread keeps the last answers it got (they never
// change once known), so the common case takes no lock and no map search.
DeviceLimits device_limits(int device) {
    thread_local int last_device = -1;
    thread_local DeviceLimits last;
    if (device == last_device) return last;
    std::lock_guard<std::mutex> lock(state_mutex);
    last = limits_locked(device);
    last_device = device;
    return last;
}

unsigned resident_blocks(int device, int block_size) {
    return resident_blocks(device_limits(device), block_size);
}

namespace {

// 16 where `kernel` accepts clusters of 16 blocks of block_size threads (non-portable size) and
// the device can place one, else the portable 8. The current device is the kernel's.
unsigned max_cluster_blocks(const void* kernel, int block_size) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return 8;
    }
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(16);
    config.blockDim = dim3(static_cast<unsigned>(block_size));
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = 16;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        (void)cudaGetLastError();
        return 8;
    }
    return clusters >= 1 ? 16 : 8;
}

}  // namespace

void allow_dynamic_shared(int device, const void* kernel, std::size_t bytes) {
    static std::mutex mutex;
    static std::map<std::pair<int, const void*>, std::size_t> raised;
    std::lock_guard<std::mutex> lock(mutex);
    std::size_t& limit = raised[{device, kernel}];
    if (limit >= bytes) return;
    PORTLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
    limit = bytes;
}

KernelOnDevice kernel_on_device(int device, int block_size, const void* kernel) {
    using Key = std::tuple<int, int, const void*>;
    // Per thread: a direct-mapped table of recent answers in front of the shared map.
    struct Slot {
        Key key{-1, -1, nullptr};
        KernelOnDevice value;
    };
    thread_local Slot recent[64];
    const Key key{device, block_size, kernel};
    Slot& slot = recent[(reinterpret_cast<std::uintptr_t>(kernel) / 16 +
                         static_cast<unsigned>(block_size) / 32 + static_cast<unsigned>(device)) %
                        64];
    if (slot.key == key) return slot.value;

    static std::mutex mutex;
    static std::map<Key, KernelOnDevice> cache;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) {
            slot = {key, it->second};
            return it->second;
        }
    }
    const DeviceLimits limits = device_limits(device);
    activate(device);
    KernelOnDevice info;
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, 0) !=
            cudaSuccess ||
        per_sm < 1) {
        (void)cudaGetLastError();  // the launch reports a kernel that cannot run
        info.resident_blocks = resident_blocks(limits, block_size);
        return info;  // not cached: the launch will say what is wrong
    }
    info.resident_blocks = static_cast<unsigned>(limits.multiprocessors * per_sm);
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess)
        info.binary_version = attributes.binaryVersion;
    else
        (void)cudaGetLastError();
    info.clusters = info.binary_version >= 90 && limits.compute_major >= 9;
    if (info.clusters) info.max_cluster_blocks = max_cluster_blocks(kernel, block_size);
    std::lock_guard<std::mutex> lock(mutex);
    cache.emplace(key, info);
    slot = {key, info};
    return info;
}

unsigned resident_blocks(int device, int block_size, const void* kernel) {
    return kernel_on_device(device, block_size, kernel).resident_blocks;
}

ReductionScratch reduction_scratch(int device) {
    thread_local int last_device = -1;
    thread_local ReductionScratch last;  // allocated once per device, kept to the process's end
    if (device == last_device) return last;
    std::lock_guard<std::mutex> lock(state_mutex);
    const DeviceLimits& l = limits_locked(device);
    DeviceState& s = states[device];
    if (s.scratch.partials) {
        last = s.scratch;
        last_device = device;
        return last;
    }

    // Room for the largest grid a reduction uses: one wave of 32-thread blocks.
    const std::size_t capacity = resident_blocks(l, 32);
    const std::size_t counter_bytes = 256;  // keeps the partials 256-byte aligned
    void* base = allocate_scratch(device, counter_bytes + capacity * sizeof(double), counter_bytes,
                                  "reduction scratch");
    s.scratch.counter = static_cast<unsigned int*>(base);
    s.scratch.partials = static_cast<unsigned char*>(base) + counter_bytes;
    s.scratch.capacity = capacity;
    last = s.scratch;
    last_device = device;
    return s.scratch;
}

SplitScratch split_scratch(int device, std::size_t segments) {
    if (segments == 0) return {};
    thread_local int last_device = -1;
    thread_local SplitScratch last;  // an outgrown buffer stays valid: kept to the process's end
    if (device == last_device && last.capacity >= segments) return last;
    std::lock_guard<std::mutex> lock(state_mutex);
    DeviceState& s = states[device];
    if (s.split.capacity < segments) {
        // At least twice the last: a few buffers outgrown at most, whatever the plans' order.
        const std::size_t capacity = std::max(segments, 2 * s.split.capacity);
        const std::size_t counter_bytes = (capacity * sizeof(std::uint32_t) + 255) / 256 * 256;
        void* base = allocate_scratch(device, counter_bytes + capacity * sizeof(double),
                                      counter_bytes, "split CSR scratch");
        if (s.split.counters) s.outgrown.push_back(s.split.counters);
        s.split.counters = static_cast<std::uint32_t*>(base);
        s.split.partials = static_cast<unsigned char*>(base) + counter_bytes;
        s.split.capacity = capacity;
    }
    last = s.split;
    last_device = device;
    return last;
}

}  // namespace portla::kernels::cuda
