/// \file
/// Executor: which backend runs a kernel, on which device, with which launch parameters.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "portla/backend_list.hpp"
#include "portla/kernel_options.hpp"

/// portla: executors and arrays, matrices and operators, vector kernels, errors. The solvers,
/// batches, distributed operators, readers and tuning live in the nested namespaces.
namespace portla {

namespace detail {
class Runtime;
}

#define PORTLA_BACKEND_ENUMERATOR(name) name,
/// The backends of include/portla/backend_list.hpp: reference, omp, cuda, opencl.
enum class Backend { PORTLA_FOR_EACH_BACKEND(PORTLA_BACKEND_ENUMERATOR) };
#undef PORTLA_BACKEND_ENUMERATOR
/// Every backend of the list, in its order.
const std::vector<Backend>& all_backends();
/// Whether `backend` was compiled into this build.
bool compiled(Backend backend);
/// Devices `backend` can run on now (0 when it is not compiled or, for cuda, no GPU is present).
int device_count(Backend backend);

/// "reference", "omp", "cuda" or "opencl".
std::string to_string(Backend backend);

#define PORTLA_KERNEL_FAMILY_ENUMERATOR(name) name,
/// The kernel families of src/core/kernels (include/portla/backend_list.hpp).
enum class KernelFamily { PORTLA_FOR_EACH_KERNEL_FAMILY(PORTLA_KERNEL_FAMILY_ENUMERATOR) };
#undef PORTLA_KERNEL_FAMILY_ENUMERATOR
/// "blas1", "matrix", "cg", ...
std::string to_string(KernelFamily family);
/// Whether `backend` implements `family` (false for the pairs of
/// PORTLA_FOR_EACH_MISSING_KERNEL_FAMILY; says nothing about whether the backend was compiled).
constexpr bool implements(Backend backend, KernelFamily family) {
#define PORTLA_MISSING_FAMILY(b, f) \
    if (backend == Backend::b && family == KernelFamily::f) return false;
    PORTLA_FOR_EACH_MISSING_KERNEL_FAMILY(PORTLA_MISSING_FAMILY)
#undef PORTLA_MISSING_FAMILY
    return true;
}

/// Launch parameters of the vector kernels (SYCL: work-group size and items per work-item on a
/// GPU). The GPU backends read work_group_size and items_per_thread; the omp backend reads
/// threads. An executor whose launch was never set takes them per kernel and size from the
/// device's tuning profile (portla/tuning.hpp).
struct LaunchConfig {
    int work_group_size = 256;  ///< threads per block: a multiple of 32 in [32, 1024]
    /// Items each thread handles per grid-stride step, >= 1: elements, except in the cuda
    /// element-wise kernels (fill, copy, axpby, pointwise_mul), where an item is a 16-byte pack
    /// (two doubles, four floats) when every vector of the call is 16-byte aligned.
    int items_per_thread = 4;
    /// omp: threads of the team of a vector kernel; 0: every thread of the OpenMP runtime, and
    /// none below the serial threshold (omp_parallel_threshold()); 1: serial.
    int threads = 0;
};

/// A GPU found by the CUDA runtime, or an OpenCL device.
struct DeviceInfo {
    /// Index of the device within its backend (the N of "cuda:N", "opencl:N").
    int id = 0;
    /// The device's name, as Executor::device_name() gives it.
    std::string name;
    int platform = 0;            ///< OpenCL: the platform's index (0 elsewhere)
    int platform_device = 0;     ///< OpenCL: the device's index within its platform (else id)
    std::string platform_name;   ///< OpenCL: the platform's name
    std::string driver_version;  ///< OpenCL: the driver's version
    bool cpu = false;            ///< OpenCL: a CPU device (PoCL), so its host's platform
    std::string sub_groups;      ///< OpenCL: what the sub-group kernels use (empty: none)
    /// Device memory in bytes (host memory for CPU backends).
    std::size_t memory_bytes = 0;
    /// Streaming multiprocessors (OpenCL: compute units; CPU: threads).
    int multiprocessors = 0;
    /// CUDA compute capability, major (9 for sm_90); 0 elsewhere.
    int compute_major = 0;
    /// CUDA compute capability, minor; 0 elsewhere.
    int compute_minor = 0;
    /// Size of the L2 cache in bytes (0 when unknown).
    std::size_t l2_bytes = 0;
    /// Bytes of shared memory a block may opt in to (CUDA), local memory (OpenCL); 0 on CPUs.
    std::size_t shared_memory_per_block_optin = 0;
    int cuda_driver_version = 0;  ///< cudaDriverGetVersion (13000 is 13.0); 0 elsewhere
    int runtime_version = 0;      ///< CUDA runtime portla was built with; 0 on CPUs
};

/// Number of CUDA devices visible (0 when the cuda backend is not compiled or no GPU is present).
int cuda_device_count();
/// Properties of every visible CUDA device (empty without a GPU).
std::vector<DeviceInfo> cuda_devices();
/// Whether the cuda backend was compiled into this build.
bool cuda_compiled();
/// Number of OpenCL devices of every platform (0 when opencl is not compiled or none is found).
int opencl_device_count();
/// Every OpenCL device, numbered over the platforms in order (the N of "opencl:N").
std::vector<DeviceInfo> opencl_devices();
/// Whether the omp backend was compiled into this build.
bool omp_compiled();
/// Threads the omp backend uses (1 when it is not compiled).
int omp_max_threads();

/// An executor is a cheap value: copies, and every executor of the same backend and device,
/// share one runtime (on cuda: one stream, on which every kernel and copy of that device runs
/// in order). Memory allocated through one executor may only be used by kernels of the same
/// executor, or copied to another executor with `copy_bytes`.
class Executor {
public:
    /// The sequential reference backend (always compiled).
    static Executor reference();
    /// The OpenMP backend (serial when built without OpenMP).
    static Executor omp();
    /// Throws NotCompiled when cuda is off, DeviceError when no GPU has this id.
    static Executor cuda(int device = 0);
    /// Device `device` of `backend`. Throws NotCompiled when the backend is off, DeviceError
    /// when it has no such device.
    static Executor create(Backend backend, int device = 0);
    /// "auto" (cuda when a GPU is present, else omp, else reference; never opencl), a backend's
    /// name, "name:N" for device N of it ("cuda:1"), or "name:P:D" for device D of platform P
    /// (OpenCL: `portla info` lists them). Throws BadInput for an unknown name.
    static Executor create(const std::string& name);

    /// The backend the executor runs on.
    Backend backend() const { return backend_; }
    /// Backend name: "reference", "omp", "cuda" or "opencl".
    std::string name() const { return to_string(backend_); }
    /// The device index within the backend (0 for CPU backends).
    int device_id() const { return device_; }
    /// Human-readable device: the GPU's name, or "CPU (N threads)".
    std::string device_name() const;
    /// True when the memory of this executor is ordinary host memory.
    bool is_host() const;
    /// Properties of the device (for a CPU backend: its threads and the host's memory).
    DeviceInfo device_info() const;
    /// Free and total memory of the device in bytes (host: MemAvailable and MemTotal).
    void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const;

    /// The launch parameters set by set_launch (the defaults when launch_is_set() is false).
    const LaunchConfig& launch() const { return launch_; }
    /// Sets the launch parameters of every kernel of this executor value (copies made later keep
    /// them); the vector kernels then use them instead of the tuning profile. Throws BadInput for
    /// a work-group size that is not a multiple of 32 in [32, 1024], items per thread < 1 or
    /// threads < 0.
    void set_launch(const LaunchConfig& config);
    /// Whether set_launch was called: the vector kernels use launch(), else the tuning profile.
    bool launch_is_set() const { return launch_set_; }

    /// The kernel variants this executor's kernels take (portla/kernel_options.hpp); the
    /// defaults unless set_kernel_options was called.
    const KernelOptions& kernel_options() const { return kernel_options_; }
    /// Sets the kernel variants of this executor value (copies made later keep them, as they
    /// keep launch()). Throws BadInput with kernel_options_problem's message for an option out
    /// of range.
    void set_kernel_options(const KernelOptions& options);

    /// Blocks until all work submitted to this executor has finished.
    void synchronize() const;

    /// Raw memory on this executor. Throws OutOfMemory.
    void* allocate(std::size_t bytes) const;
    /// Frees memory from allocate() of an executor of the same backend and device.
    void deallocate(void* ptr) const noexcept;
    /// Copies `bytes` from memory of `src_exec` to memory of `dst_exec`; blocks until done.
    static void copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec,
                           const void* src, std::size_t bytes);

    /// Same backend and device (launch parameters are not compared): memory of one may be used by
    /// the other's kernels.
    bool operator==(const Executor& other) const {
        return backend_ == other.backend_ && device_ == other.device_;
    }
    /// !(*this == other)
    bool operator!=(const Executor& other) const { return !(*this == other); }

    /// The backend's runtime behind this executor (memory, copies, stream, events); internal.
    const detail::Runtime& runtime() const { return *runtime_; }

private:
    Executor(Backend backend, int device, std::shared_ptr<const detail::Runtime> runtime)
        : backend_(backend), device_(device), runtime_(std::move(runtime)) {}
    Backend backend_;
    int device_ = 0;
    std::shared_ptr<const detail::Runtime> runtime_;
    LaunchConfig launch_{};
    bool launch_set_ = false;
    KernelOptions kernel_options_{};
};

}  // namespace portla
