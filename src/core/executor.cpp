#include "portla/executor.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>

#include "core/kernels/runtime.hpp"
#include "portla/error.hpp"

#if PORTLA_WITH_OMP
#include <omp.h>
#endif

namespace portla {

std::string to_string(Backend backend) {
    switch (backend) {
        case Backend::reference:
            return "reference";
        case Backend::omp:
            return "omp";
        case Backend::cuda:
            return "cuda";
    }
    return "unknown";
}

int cuda_device_count() { return kernels::cuda::device_count(); }

std::vector<DeviceInfo> cuda_devices() {
    std::vector<DeviceInfo> out;
    for (int i = 0; i < cuda_device_count(); ++i) out.push_back(kernels::cuda::device_info(i));
    return out;
}

bool cuda_compiled() { return kernels::cuda::compiled(); }
bool omp_compiled() { return PORTLA_WITH_OMP != 0; }

int omp_max_threads() {
#if PORTLA_WITH_OMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

namespace {

// Bytes the kernel says can be allocated without swapping (MemAvailable), or 0 when unknown.
// Linux over-commits: a huge allocation succeeds and the process is killed when it touches the
// pages, so large host allocations are checked against this first.
std::size_t host_memory_available() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

}  // namespace

Executor Executor::reference() { return Executor(Backend::reference, 0); }
Executor Executor::omp() { return Executor(Backend::omp, 0); }

Executor Executor::cuda(int device) {
    if (!kernels::cuda::compiled()) throw NotCompiled("cuda");
    const int count = kernels::cuda::device_count();
    if (count == 0) throw DeviceError("cuda: no CUDA-capable GPU found");
    if (device < 0 || device >= count)
        throw DeviceError("cuda: no GPU with id " + std::to_string(device) + " (" +
                          std::to_string(count) + " found)");
    return Executor(Backend::cuda, device);
}

Executor Executor::create(const std::string& name) {
    if (name == "auto") {
        if (kernels::cuda::compiled() && kernels::cuda::device_count() > 0) return cuda(0);
        return omp_compiled() ? omp() : reference();
    }
    if (name == "reference") return reference();
    if (name == "omp") return omp();
    if (name == "cuda") return cuda(0);
    if (name.rfind("cuda:", 0) == 0) {
        char* end = nullptr;
        const long id = std::strtol(name.c_str() + 5, &end, 10);
        if (end != name.c_str() + 5 && *end == '\0') return cuda(static_cast<int>(id));
    }
    throw BadInput("unknown backend '" + name +
                   "' (expected auto, reference, omp, cuda or cuda:N)");
}

std::string Executor::device_name() const {
    if (backend_ == Backend::cuda) return kernels::cuda::device_info(device_).name;
    const int threads = backend_ == Backend::omp ? omp_max_threads() : 1;
    return "CPU (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

void Executor::set_launch(const LaunchConfig& config) {
    if (config.work_group_size < 32 || config.work_group_size > 1024 ||
        config.work_group_size % 32 != 0)
        throw BadInput("work-group size must be a multiple of 32 in [32, 1024], got " +
                       std::to_string(config.work_group_size));
    if (config.items_per_thread < 1)
        throw BadInput("items per thread must be >= 1, got " +
                       std::to_string(config.items_per_thread));
    launch_ = config;
}

void Executor::synchronize() const {
    if (backend_ == Backend::cuda) kernels::cuda::synchronize(device_);
}

void* Executor::allocate(std::size_t bytes) const {
    if (bytes == 0) return nullptr;
    if (backend_ == Backend::cuda) return kernels::cuda::allocate(device_, bytes);
    // 64-byte alignment: whole cache lines, full-width vector loads.
    if (bytes >= (std::size_t{256} << 20)) {
        const std::size_t available = host_memory_available();
        if (available > 0 && bytes > available) throw OutOfMemory("host", bytes);
    }
    if (bytes > std::numeric_limits<std::size_t>::max() - 64) throw OutOfMemory("host", bytes);
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw OutOfMemory("host", bytes);
    return p;
}

void Executor::deallocate(void* ptr) const noexcept {
    if (!ptr) return;
    if (backend_ == Backend::cuda)
        kernels::cuda::deallocate(device_, ptr);
    else
        std::free(ptr);
}

void Executor::copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec,
                          const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    const bool dst_dev = dst_exec.backend_ == Backend::cuda;
    const bool src_dev = src_exec.backend_ == Backend::cuda;
    if (!dst_dev && !src_dev) {
        std::memcpy(dst, src, bytes);
    } else if (dst_dev && !src_dev) {
        kernels::cuda::copy_to_device(dst_exec.device_, dst, src, bytes);
    } else if (!dst_dev && src_dev) {
        kernels::cuda::copy_to_host(src_exec.device_, dst, src, bytes);
    } else {
        if (dst_exec.device_ != src_exec.device_)
            throw DeviceError("copies between two different GPUs are not supported");
        kernels::cuda::copy_device_to_device(dst_exec.device_, dst, src, bytes);
    }
}

}  // namespace portla
