// What the opencl kernel files share: the devices of every platform, the table that maps the
// addresses portla hands out (view<T>::data) to a cl_mem and an offset, the program cache and
// a kernel launch. Defined in src/opencl/runtime.cpp.
//
// Memory model: allocate() returns an address in a reserved range that is never dereferenced
// on the host; each allocation is one cl_mem, and buffer_of(p) finds the cl_mem holding p and
// p's offset in it (views of part of an array, p + k, resolve too). A kernel takes each buffer
// as two arguments, its cl_mem and the byte offset (common.cl: PORTLA_BUFFER). This needs no
// shared virtual memory, so any OpenCL 1.2 device runs it.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "common/scalar.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::kernels::opencl {

/// Throws DeviceError "opencl: <what>: <error name>" unless err is CL_SUCCESS.
void check(cl_int err, const char* what);
#define PORTLA_CL_CHECK(call) ::portla::kernels::opencl::check((call), #call)

/// One OpenCL device, its context and its one in-order queue.
struct Device {
    int id = 0;  ///< over every platform in order
    int platform_index = 0, index_in_platform = 0;
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    std::string name, vendor, driver_version, device_version, platform_name;
    bool fp64 = false;
    std::size_t max_work_group = 1;
    std::size_t global_memory = 0, max_allocation = 0;
    int compute_units = 1;
    bool is_cpu = false;
    /// CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: float x / y and sqrt rounded correctly on request.
    bool fp32_exact_divide = false;
    /// Work-groups of a reduction: about one wave (compute units x 8 on a GPU, x 4 on a CPU),
    /// at most kMaxGroups.
    std::size_t reduction_groups = 1;
    std::size_t local_memory = 0;
    /// The driver keeps its own cache of built programs on disk, so portla keeps none (PoCL:
    /// its kernel cache holds the front end's IR and every work-group function it builds).
    bool driver_caches_programs = false;
    /// Work-items of a warp whose shuffles the kernels may use (common.cl's PORTLA_WARP): 32 on
    /// NVIDIA GPUs where a probe kernel with inline PTX shuffles built and summed right, else 0.
    int warp = 0;
    std::string asm_keyword;  ///< how the device's compiler spells inline assembly (asm, __asm__)
    /// cl_khr_subgroups works in programs built with `sub_group_std` (-cl-std=CL3.0 or CL2.0;
    /// OpenCL C 1.2 has no sub-groups): common.cl's sg_* use it where warp is 0.
    bool khr_subgroups = false;
    std::string sub_group_std;
    /// Whether the kernels' sub-group variants (common.cl's PORTLA_SUB_GROUPS) run on this
    /// device in work-groups of `work_group` work-items.
    bool sub_groups(std::size_t work_group) const {
        return warp > 0 ? work_group % static_cast<std::size_t>(warp) == 0 : khr_subgroups;
    }
    /// The build options a program with sub-group kernels adds (its OpenCL C version).
    std::string sub_group_options() const { return warp > 0 ? "" : sub_group_std; }
    /// Held from setting a kernel's arguments to its launch (a cl_kernel is not thread-safe),
    /// and by a reduction from its first launch to reading its result (the scratch is shared).
    std::recursive_mutex launch_mutex;
    /// Partial sums of the reductions (kMaxGroups groups x 4 values x 8 bytes) and results.
    cl_mem scratch = nullptr;
};

/// Groups of a reduction at most (each writes its partial sums to the scratch).
constexpr std::size_t kMaxGroups = 1024;
/// Byte offset in Device::scratch of the reductions' results (after the partials).
constexpr std::size_t kScratchResults = kMaxGroups * 4 * 8;
/// Byte offset in Device::scratch of the one-launch reductions' counter (a uint, zero between
/// reductions: the last group resets it), after the 256 bytes of results.
constexpr std::size_t kScratchCounter = kScratchResults + 256;

/// Device `id` (opened on first use). Throws DeviceError.
Device& device(int id);

/// A cl_mem and the byte offset of an address allocate() handed out.
struct Buffer {
    cl_mem mem = nullptr;
    std::size_t offset = 0;
};
/// nullptr gives {nullptr, 0}. Throws DeviceError for an address of no live allocation.
Buffer buffer_of(const void* ptr);

/// A kernel of the program built from common.cl and `file` for the element type T under the
/// executor's launch configuration (and `defines`, more -D options: a program per set), its
/// arguments set one after the other; run() launches it. A complex T (std::complex<float> or
/// <double>) builds the file's complex program (common.cl's PORTLA_COMPLEX), on first use.
class Launch {
public:
    template <typename T>
    static Launch of(const Executor& exec, const char* file, const char* kernel,
                     const std::string& defines = "") {
        using R = common::real_t<T>;
        static_assert(std::is_same_v<R, double> || std::is_same_v<R, float>);
        return Launch(exec, file, kernel, std::is_same_v<R, double>, common::is_complex_v<T>,
                      defines);
    }
    Launch(Launch&&) = default;

    /// A buffer (two kernel arguments: cl_mem, byte offset).
    Launch& buffer(const void* ptr);
    /// Device::scratch at byte offset `offset`.
    Launch& scratch(std::size_t offset);
    /// The one argument of a one-launch reduction (PORTLA_ONE_LAUNCH in common.cl): the device's
    /// scratch, its partials at byte 0 and its counter at kScratchCounter.
    /// Safe without the launch lock past run(): the queue is in order, so the next reduction
    /// starts after this one has reset the counter and read its partials.
    Launch& one_launch_reduction() {
        set(sizeof(cl_mem), &device_->scratch);
        return *this;
    }
    /// A scalar argument, passed as it is (int, unsigned long long, float, double, a complex
    /// as float2 / double2: the same bytes).
    template <typename S>
    Launch& value(S v) {
        set(sizeof(S), &v);
        return *this;
    }
    /// A local-memory argument of `bytes` (at least 1).
    Launch& local(std::size_t bytes);
    /// Runs `groups` work-groups of `work_group` work-items (0: work_group_size(); at most that).
    void run(std::size_t groups, std::size_t work_group = 0);

    /// Work-groups for n items of `items` per work-item, between 1 and `cap` (by default the
    /// device's reduction_groups).
    std::size_t groups_for(std::size_t n, std::size_t cap = 0) const;
    /// Work-groups of an element-wise kernel (a PORTLA_FOR_EACH over n): on a GPU up to 65535
    /// (a grid-stride loop); on a CPU the reductions' few per compute unit, so each work-item's
    /// chunk is long (PORTLA_CHUNK). 65535 groups of 256 x 4 gave axpby at n = 2^22 chunks of
    /// 4 elements and PoCL a work-group per 1024: 26-34 GB/s on the 2-core VM against omp's
    /// 42-43 (2026-11-26).
    std::size_t elementwise_groups(std::size_t n) const {
        return groups_for(n, device_->is_cpu ? 0 : 65535);
    }
    std::size_t work_group_size() const { return wg_; }
    Device& device() const { return *device_; }

private:
    Launch(const Executor& exec, const char* file, const char* kernel, bool dbl, bool complex,
           const std::string& defines);
    void set(std::size_t bytes, const void* value);

    Device* device_;
    std::unique_lock<std::recursive_mutex> lock_;
    cl_kernel kernel_ = nullptr;
    cl_uint next_ = 0;
    std::size_t wg_ = 1, items_ = 1;
};

/// The second launch of a two-launch reduction: `kernel` of `file`, one work-group, reads the
/// `groups` partials at the start of the scratch and writes result[0].
template <typename T>
void finish_reduction(const Executor& exec, const char* file, const char* kernel,
                      std::size_t groups, T* result) {
    Launch::of<T>(exec, file, kernel)
        .scratch(0)
        .value(static_cast<cl_uint>(groups))
        .buffer(result)
        .run(1);
}

/// Reads `bytes` at byte `offset` of the device's scratch into `dst` (blocking, in queue order).
void read_scratch(Device& d, std::size_t offset, void* dst, std::size_t bytes);
/// Writes `bytes` from `src` to byte `offset` of the device's scratch (blocking).
void write_scratch(Device& d, std::size_t offset, const void* src, std::size_t bytes);

}  // namespace portla::kernels::opencl
