// Device runtime of the cuda backend: device queries, memory, blocking copies, and the
// per-device state behind scratch.hpp.
#include "core/kernels/runtime.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "cuda/cuda_check.hpp"
#include "cuda/scratch.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {

bool compiled() { return true; }

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no GPU: not an error for a query
        return 0;
    }
    return count;
}

DeviceInfo device_info(int device) {
    cudaDeviceProp prop{};
    PORTLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    DeviceInfo info;
    info.id = device;
    info.name = prop.name;
    info.memory_bytes = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    return info;
}

void activate(int device) {
    int current = -1;
    PORTLA_CUDA_CHECK(cudaGetDevice(&current));
    if (current != device) PORTLA_CUDA_CHECK(cudaSetDevice(device));
}

void* allocate(int device, std::size_t bytes) {
    activate(device);
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory("cuda:" + std::to_string(device), bytes);
    }
    PORTLA_CUDA_CHECK(err);
    return ptr;
}

void deallocate(int device, void* ptr) noexcept {
    if (!ptr) return;
    // Errors are dropped: this runs in destructors, possibly while the runtime shuts down.
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(ptr);
    (void)cudaGetLastError();
}

void copy_to_device(int device, void* dst, const void* src, std::size_t bytes) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void copy_to_host(int device, void* dst, const void* src, std::size_t bytes) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void copy_device_to_device(int device, void* dst, const void* src, std::size_t bytes) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}

void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void* event_create(int device) {
    activate(device);
    cudaEvent_t ev = nullptr;
    PORTLA_CUDA_CHECK(cudaEventCreate(&ev));
    return ev;
}

void event_destroy(void* event) noexcept {
    if (event) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void event_record(int device, void* event) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), 0));
}

double event_elapsed_s(void* start, void* stop) {
    PORTLA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop)));
    float ms = 0;
    PORTLA_CUDA_CHECK(
        cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop)));
    return ms * 1e-3;
}

void synchronize(int device) {
    activate(device);
    PORTLA_CUDA_CHECK(cudaDeviceSynchronize());
}

namespace {

struct DeviceState {
    bool have_limits = false;
    DeviceLimits limits;
    ReductionScratch scratch;
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
        for (auto& [device, state] : states)
            if (state.scratch.counter) {
                (void)cudaSetDevice(device);
                (void)cudaFree(state.scratch.counter);
                state.scratch = ReductionScratch{};
            }
    }
};

}  // namespace

DeviceLimits device_limits(int device) {
    std::lock_guard<std::mutex> lock(state_mutex);
    return limits_locked(device);
}

unsigned resident_blocks(int device, int block_size) {
    return resident_blocks(device_limits(device), block_size);
}

ReductionScratch reduction_scratch(int device) {
    std::lock_guard<std::mutex> lock(state_mutex);
    const DeviceLimits& l = limits_locked(device);
    DeviceState& s = states[device];
    if (s.scratch.partials) return s.scratch;

    // Room for the largest grid a reduction uses: one wave of 32-thread blocks.
    const std::size_t capacity = resident_blocks(l, 32);
    const std::size_t counter_bytes = 256;  // keeps the partials 256-byte aligned
    const std::size_t bytes = counter_bytes + capacity * sizeof(double);
    activate(device);
    void* base = nullptr;
    const cudaError_t err = cudaMalloc(&base, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory("cuda:" + std::to_string(device) + ": reduction scratch", bytes);
    }
    PORTLA_CUDA_CHECK(err);
    // Ordered before every later kernel on the default stream; the counter is zeroed only here.
    const cudaError_t set_err = cudaMemset(base, 0, counter_bytes);
    if (set_err != cudaSuccess) {
        (void)cudaFree(base);
        PORTLA_CUDA_CHECK(set_err);
    }
    s.scratch.counter = static_cast<unsigned int*>(base);
    s.scratch.partials = static_cast<unsigned char*>(base) + counter_bytes;
    s.scratch.capacity = capacity;
    static ScratchReleaser releaser;
    return s.scratch;
}

}  // namespace portla::kernels::cuda
