// Per-device state of the cuda backend: cached device limits (for grid sizing), the scratch
// memory of the one-launch reductions and that of the split CSR kernels. Internal to src/cuda.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/runtime.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"

namespace portla::kernels::cuda {

/// The stream of the executor's device: every kernel and copy of the cuda backend runs on it.
inline cudaStream_t stream_of(const Executor& exec) {
    return static_cast<cudaStream_t>(exec.runtime().stream());
}

/// Makes `device` the current device (calls cudaSetDevice only when it is not already).
void activate(int device);

struct DeviceLimits {
    int multiprocessors = 1;
    int max_threads_per_multiprocessor = 2048;
    int max_blocks_per_multiprocessor = 32;
    /// Dynamic shared memory a block may use after opting in (cudaFuncSetAttribute), bytes.
    int max_shared_memory_per_block_optin = 48 * 1024;
    /// L2 cache, bytes.
    int l2_bytes = 0;
    /// Compute capability, major number (9: Hopper, thread block clusters).
    int compute_major = 0;
};

/// Queried once per device, then cached. Thread-safe.
DeviceLimits device_limits(int device);

/// Blocks of `block_size` threads that the device holds at once (one full wave at the
/// theoretical occupancy; registers and shared memory may lower the real figure).
unsigned resident_blocks(int device, int block_size);

/// Blocks of `block_size` threads of `kernel` that the device holds at once, from its registers
/// and shared memory (cudaOccupancyMaxActiveBlocksPerMultiprocessor, cached per device, kernel
/// and block size). A grid of one such wave has no partial second wave: with the theoretical
/// figure above, the 40-register CSR/ELL CG kernels (75% occupancy) ran 1.33 waves and 1.21 TB/s
/// (H100, poisson3d:128, ncu, 2026-11-24).
unsigned resident_blocks(int device, int block_size, const void* kernel);

/// What a kernel can do on a device, cached per device, block size and kernel. Like the
/// reduction scratch and the kernels' raised shared-memory limits, these caches assume the
/// device's context lives as long as the process (cudaDeviceReset under portla is unsupported).
struct KernelOnDevice {
    /// resident_blocks(device, block_size, kernel).
    unsigned resident_blocks = 1;
    /// The compute capability its machine code was built for (cudaFuncAttributes, 90 = sm_90).
    int binary_version = 0;
    /// Whether it may be launched in thread block clusters: machine code for sm_90 or later
    /// (a kernel's cluster code exists only there) on a device of compute capability 9 or later.
    bool clusters = false;
    /// The most blocks of one cluster it may be launched with: 8 (portable), 16 where the
    /// non-portable size is allowed and cudaOccupancyMaxActiveClusters places one; 0 without
    /// clusters.
    unsigned max_cluster_blocks = 0;
};
KernelOnDevice kernel_on_device(int device, int block_size, const void* kernel);

/// Lets `kernel` take `bytes` of dynamic shared memory per block on `device` (the current
/// device): cudaFuncSetAttribute only when the limit raised so far for the pair is lower, so a
/// launch on the per-iteration host path costs a map lookup, not a driver call. Thread-safe.
void allow_dynamic_shared(int device, const void* kernel, std::size_t bytes);

template <typename... Params>
void allow_dynamic_shared(int device, void (*kernel)(Params...), std::size_t bytes) {
    allow_dynamic_shared(device, reinterpret_cast<const void*>(kernel), bytes);
}

/// Scratch of the reductions on one device: `capacity` partial sums (room for doubles) and a
/// counter that is zero between launches (zeroed once at allocation; the last block of each
/// reduction leaves it at zero). capacity >= resident_blocks(device, 32).
/// Allocated on first use, freed at exit. Shared by every reduction on the device: reductions
/// must be ordered (they all run on the device's one stream, stream_of).
struct ReductionScratch {
    void* partials = nullptr;
    unsigned int* counter = nullptr;
    std::size_t capacity = 0;
};

/// Throws OutOfMemory or DeviceError on the first call for a device if allocation fails.
ReductionScratch reduction_scratch(int device);

/// Scratch of the split CSR kernels on one device (cuda/csr_split.cuh): a partial sum (room for
/// a double) and a counter per segment of a plan (CsrLongRows), the counters zero between
/// launches (zeroed at allocation; a row's last ticket wraps its counter back to zero). Shared by
/// every plan on the device: their launches must be ordered (the device's one stream, as the
/// reductions'). Nothing for a plan without segments.
struct SplitScratch {
    void* partials = nullptr;
    std::uint32_t* counters = nullptr;
    std::size_t capacity = 0;
};

/// The scratch for `segments` segments: a larger buffer is allocated when the device's is
/// smaller (at a plan's set-up, csr_split_reserve; never while a graph is captured); an outgrown
/// one stays allocated to the process's end, since a captured graph may still use it. Throws
/// OutOfMemory or DeviceError if allocation fails.
SplitScratch split_scratch(int device, std::size_t segments);

/// The plan as the split kernels take it: the matrix's (read-only) and the device's scratch.
template <typename T>
struct SplitRows : CsrLongRows {
    T* partials = nullptr;
    std::uint32_t* counters = nullptr;
};

/// `plan` with the split scratch of `device`.
template <typename T>
SplitRows<T> split_rows(int device, const CsrLongRows& plan) {
    SplitRows<T> lr;
    static_cast<CsrLongRows&>(lr) = plan;
    const SplitScratch scratch = split_scratch(device, plan.segments);
    lr.partials = static_cast<T*>(scratch.partials);
    lr.counters = scratch.counters;
    return lr;
}

}  // namespace portla::kernels::cuda
