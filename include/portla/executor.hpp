// Executor: which backend runs a kernel, on which device, with which launch parameters.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace portla {

enum class Backend { reference, omp, cuda };

/// "reference", "omp" or "cuda".
std::string to_string(Backend backend);

/// Launch parameters of the vector kernels on a GPU (SYCL: work-group size and items per
/// work-item). Ignored by the CPU backends.
struct LaunchConfig {
    int work_group_size = 256;  ///< threads per block: a multiple of 32 in [32, 1024]
    int items_per_thread = 4;   ///< elements each thread handles per grid-stride step, >= 1
};

/// A GPU found by the CUDA runtime.
struct DeviceInfo {
    int id = 0;
    std::string name;
    std::size_t memory_bytes = 0;
    int multiprocessors = 0;
    int compute_major = 0;
    int compute_minor = 0;
    std::size_t l2_bytes = 0;
    std::size_t shared_memory_per_block_optin = 0;
};

/// Number of CUDA devices visible (0 when the cuda backend is not compiled or no GPU is present).
int cuda_device_count();
/// Properties of every visible CUDA device (empty without a GPU).
std::vector<DeviceInfo> cuda_devices();
/// Whether the cuda backend was compiled into this build.
bool cuda_compiled();
/// Whether the omp backend was compiled into this build.
bool omp_compiled();
/// Threads the omp backend uses (1 when it is not compiled).
int omp_max_threads();

/// An executor is a cheap value: copies share the same device context.
/// Memory allocated through one executor may only be used by kernels of the same executor,
/// or copied to another executor with `copy_bytes`.
class Executor {
public:
    static Executor reference();
    static Executor omp();
    /// Throws NotCompiled when cuda is off, DeviceError when no GPU has this id.
    static Executor cuda(int device = 0);
    /// "auto" (cuda when a GPU is present, else omp, else reference), "reference", "omp",
    /// "cuda" or "cuda:N". Throws BadInput for an unknown name.
    static Executor create(const std::string& name);

    Backend backend() const { return backend_; }
    /// Backend name: "reference", "omp", "cuda".
    std::string name() const { return to_string(backend_); }
    int device_id() const { return device_; }
    /// Human-readable device: the GPU's name, or "CPU (N threads)".
    std::string device_name() const;
    /// True when the memory of this executor is ordinary host memory.
    bool is_host() const { return backend_ != Backend::cuda; }

    const LaunchConfig& launch() const { return launch_; }
    /// Throws BadInput for a work-group size that is not a multiple of 32 in [32, 1024], or
    /// items per thread < 1.
    void set_launch(const LaunchConfig& config);

    /// Blocks until all work submitted to this executor has finished.
    void synchronize() const;

    /// Raw memory on this executor. Throws OutOfMemory.
    void* allocate(std::size_t bytes) const;
    void deallocate(void* ptr) const noexcept;
    /// Copies `bytes` from memory of `src_exec` to memory of `dst_exec`; blocks until done.
    static void copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec,
                           const void* src, std::size_t bytes);

    bool operator==(const Executor& other) const {
        return backend_ == other.backend_ && device_ == other.device_;
    }
    bool operator!=(const Executor& other) const { return !(*this == other); }

private:
    Executor(Backend backend, int device) : backend_(backend), device_(device) {}
    Backend backend_;
    int device_ = 0;
    LaunchConfig launch_{};
};

}  // namespace portla
