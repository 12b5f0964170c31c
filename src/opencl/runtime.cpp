// Runtime of the opencl backend: the devices of every platform (one context and one in-order
// queue each), memory as cl_mem behind reserved addresses (device.hpp), blocking copies, timing,
// and the programs: built once per device and options, cached in memory and on disk.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>
#include <vector>

#include "portla/kernel_options.hpp"
#include "common/user_cache.hpp"
#include "core/runtime.hpp"
#include "opencl/device.hpp"
#include "opencl/sources.hpp"

namespace portla::kernels::opencl {

namespace {

const char* error_name(cl_int err) {
    switch (err) {
#define PORTLA_CL_ERROR(e) \
    case e:                \
        return #e;
        PORTLA_CL_ERROR(CL_DEVICE_NOT_FOUND)
        PORTLA_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
        PORTLA_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
        PORTLA_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        PORTLA_CL_ERROR(CL_OUT_OF_RESOURCES)
        PORTLA_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
        PORTLA_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
        PORTLA_CL_ERROR(CL_MEM_COPY_OVERLAP)
        PORTLA_CL_ERROR(CL_INVALID_VALUE)
        PORTLA_CL_ERROR(CL_INVALID_DEVICE)
        PORTLA_CL_ERROR(CL_INVALID_CONTEXT)
        PORTLA_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
        PORTLA_CL_ERROR(CL_INVALID_MEM_OBJECT)
        PORTLA_CL_ERROR(CL_INVALID_BINARY)
        PORTLA_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
        PORTLA_CL_ERROR(CL_INVALID_PROGRAM)
        PORTLA_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
        PORTLA_CL_ERROR(CL_INVALID_KERNEL_NAME)
        PORTLA_CL_ERROR(CL_INVALID_KERNEL)
        PORTLA_CL_ERROR(CL_INVALID_ARG_INDEX)
        PORTLA_CL_ERROR(CL_INVALID_ARG_VALUE)
        PORTLA_CL_ERROR(CL_INVALID_ARG_SIZE)
        PORTLA_CL_ERROR(CL_INVALID_KERNEL_ARGS)
        PORTLA_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
        PORTLA_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
        PORTLA_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
        PORTLA_CL_ERROR(CL_INVALID_BUFFER_SIZE)
        PORTLA_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef PORTLA_CL_ERROR
    }
    return "an OpenCL error";
}

std::string info_string(cl_device_id d, cl_device_info what) {
    std::size_t size = 0;
    if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
    std::string s(size, '\0');
    if (clGetDeviceInfo(d, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}

template <typename V>
V info_value(cl_device_id d, cl_device_info what) {
    V v{};
    (void)clGetDeviceInfo(d, what, sizeof(v), &v, nullptr);
    return v;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    std::size_t size = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
    std::string s(size, '\0');
    if (clGetPlatformInfo(p, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}

// Every device of every platform, found once (opened lazily by device()).
struct Found {
    cl_platform_id platform;
    cl_device_id device;
    int platform_index, index_in_platform;
};

const std::vector<Found>& found_devices() {
    static const std::vector<Found> found = [] {
        std::vector<Found> out;
        cl_uint platforms = 0;
        if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return out;
        std::vector<cl_platform_id> ids(platforms);
        if (clGetPlatformIDs(platforms, ids.data(), nullptr) != CL_SUCCESS) return out;
        for (cl_uint p = 0; p < platforms; ++p) {
            cl_uint count = 0;
            if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS)
                continue;
            std::vector<cl_device_id> devices(count);
            if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr) !=
                CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < count; ++d)
                out.push_back({ids[p], devices[d], static_cast<int>(p), static_cast<int>(d)});
        }
        return out;
    }();
    return found;
}

// --- the address table -----------------------------------------------------------------------

struct Allocation {
    cl_mem mem;
    std::size_t bytes;
    int device;
};
std::mutex table_mutex;
std::map<std::uintptr_t, Allocation> table;
// Addresses from 2^44 upwards, never reused; a gap after each allocation keeps one-past-the-end
// of one apart from the next.
std::uintptr_t next_address = std::uintptr_t{1} << 44;
std::size_t allocated_bytes[64] = {};

// --- programs ------------------------------------------------------------------------------

const char* source_text(const std::string& name) {
    for (std::size_t i = 0; i < cl_source_count; ++i)
        if (name == cl_sources[i].name) return cl_sources[i].text;
    throw Error("opencl: no embedded source " + name);
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

// $XDG_CACHE_HOME/portla/opencl or ~/.cache/portla/opencl; "" (no disk cache) when neither is
// set or OpenclSettings::program_cache is false.
std::string cache_dir() {
    if (!opencl_settings().program_cache) return "";
    const std::string base = common::user_cache_dir();
    return base.empty() ? "" : base + "/opencl";
}

void make_dirs(const std::string& path) {
    for (std::size_t pos = 1; pos <= path.size(); ++pos)
        if (pos == path.size() || path[pos] == '/')
            (void)::mkdir(path.substr(0, pos).c_str(), 0755);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "";
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Written whole or not at all: a temporary file beside it, then a rename.
void write_file_atomically(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;  // no cache, not an error
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

std::string build_log(cl_program program, cl_device_id device) {
    std::size_t size = 0;
    (void)clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size)
        (void)clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                                    nullptr);
    // One line: the compiler's lines joined by " | ".
    std::string line;
    for (char c : log) {
        if (c == '\0') break;
        if (c == '\n') {
            if (!line.empty() && line.substr(line.size() < 3 ? 0 : line.size() - 3) != " | ")
                line += " | ";
        } else {
            line += c;
        }
    }
    while (line.size() >= 3 && line.substr(line.size() - 3) == " | ") line.resize(line.size() - 3);
    return line;
}

// The sources a family's file is built after, besides common.cl: the CG steps take the
// decisions of src/common (stopping.hpp, cg_step.hpp) and apply the operator through
// matrix_kernels.cl's row functions; the batched solvers are the shared algorithms of
// src/common/batch over batch_group.cl's work-group.
std::string prerequisites(const std::string& file) {
    if (file == "cg_kernels.cl")
        return std::string(source_text("stopping.hpp")) + source_text("cg_step.hpp") +
               source_text("matrix_kernels.cl");
    if (file == "batch_kernels.cl")
        return std::string(source_text("batch_constants.h")) + source_text("batch_group.cl") +
               source_text("system_algorithms.h");
    if (file == "sparse_kernels.cl")
        return std::string(source_text("rows.cl")) + source_text("sparse_rows.h") +
               source_text("aggregation_rows.h") + source_text("classical_rows.h");
    return "";
}

cl_program build_program(Device& d, const std::string& file, const std::string& options) {
    const std::string common = source_text("common.cl") + prerequisites(file),
                      family = source_text(file);
    const std::string key = d.name + '\n' + d.driver_version + '\n' + d.device_version + '\n' +
                            d.platform_name + '\n' + options + '\n' + common + family;
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(fnv1a(key)));
    // Not on a driver that caches programs itself: on PoCL, reading a program's binary
    // (CL_PROGRAM_BINARIES) compiles a work-group function for every kernel in it, for any
    // work-group size, where a launch compiles only the kernel it runs, for its size. In
    // batch_kernels.cl's programs that generic build took 15-60 s a solver kernel, the launch's
    // about 4 s, and the binary held kernels never launched: the double SPD batch test with
    // empty caches, 877 s of CPU time with the binaries read, 99 s without (PoCL 3.1, 2-core
    // VM, 2026-11-28). PoCL's own cache keeps the IR and the work-group functions it built.
    const std::string dir = d.driver_caches_programs ? "" : cache_dir();
    const std::string path =
        dir.empty() ? "" : dir + "/" + file.substr(0, file.size() - 3) + "-" + hex + ".bin";
    cl_int err = CL_SUCCESS;

    if (!path.empty()) {  // a binary built earlier for this device, driver and options
        const std::string binary = read_file(path);
        if (!binary.empty()) {
            const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
            const std::size_t size = binary.size();
            cl_int status = CL_SUCCESS;
            cl_program p =
                clCreateProgramWithBinary(d.context, 1, &d.device, &size, &bytes, &status, &err);
            if (err == CL_SUCCESS && status == CL_SUCCESS &&
                clBuildProgram(p, 1, &d.device, options.c_str(), nullptr, nullptr) == CL_SUCCESS)
                return p;
            if (p) (void)clReleaseProgram(p);  // stale or broken: build from the source
        }
    }

    const char* texts[] = {common.c_str(), family.c_str()};
    cl_program p = clCreateProgramWithSource(d.context, 2, texts, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    err = clBuildProgram(p, 1, &d.device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        const std::string log = build_log(p, d.device);
        (void)clReleaseProgram(p);
        throw DeviceError("opencl: building src/opencl/" + file + " for " + d.name + " (" +
                          options + ") failed (" + error_name(err) + "): " + log);
    }
    if (!path.empty()) {
        std::size_t size = 0;
        if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) ==
                CL_SUCCESS &&
            size > 0) {
            std::string binary(size, '\0');
            unsigned char* out = reinterpret_cast<unsigned char*>(binary.data());
            if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(out), &out, nullptr) ==
                CL_SUCCESS) {
                make_dirs(dir);
                write_file_atomically(path, binary);
            }
        }
    }
    return p;
}

// Programs and kernels kept for the process, by (device, file, options) and kernel name.
struct ProgramEntry {
    cl_program program = nullptr;
    std::map<std::string, cl_kernel> kernels;
};
std::mutex program_mutex;
std::map<std::tuple<int, std::string, std::string>, ProgramEntry> programs;

// Builds `text` (a kernel `probe(global uint *out)`) for d and runs it in one work-group of 64
// work-items; what it wrote, or nothing when any step failed.
std::vector<cl_uint> run_probe(const Device& d, const std::string& text,
                               const char* options = "-cl-std=CL1.2") {
    constexpr std::size_t n = 64;
    std::vector<cl_uint> got;
    cl_int err = CL_SUCCESS;
    const char* source = text.c_str();
    cl_program p = clCreateProgramWithSource(d.context, 1, &source, nullptr, &err);
    if (err != CL_SUCCESS) return got;
    cl_kernel k = nullptr;
    cl_mem out = nullptr;
    if (d.max_work_group >= n &&
        clBuildProgram(p, 1, &d.device, options, nullptr, nullptr) == CL_SUCCESS &&
        (k = clCreateKernel(p, "probe", &err)) != nullptr &&
        (out = clCreateBuffer(d.context, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint), nullptr, &err)) !=
            nullptr &&
        clSetKernelArg(k, 0, sizeof(out), &out) == CL_SUCCESS) {
        const std::size_t global = n, local = n;
        std::vector<cl_uint> values(n);
        if (clEnqueueNDRangeKernel(d.queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr) ==
                CL_SUCCESS &&
            clEnqueueReadBuffer(d.queue, out, CL_TRUE, 0, n * sizeof(cl_uint), values.data(), 0,
                                nullptr, nullptr) == CL_SUCCESS)
            got = std::move(values);
    }
    if (out) (void)clReleaseMemObject(out);
    if (k) (void)clReleaseKernel(k);
    (void)clReleaseProgram(p);
    return got;
}

// Whether `keyword` (asm or __asm__) gives inline PTX warp shuffles on d: a probe kernel
// builds, and its butterfly sums and lane reads are right over two warps.
bool warp_shuffles_work(const Device& d, const std::string& keyword) {
    const std::vector<cl_uint> got = run_probe(d, "#define PORTLA_ASM " + keyword + R"(
kernel void probe(global uint *out) {
    const uint lid = get_local_id(0);
    uint v = lid, b;
    for (int m = 16; m > 0; m >>= 1) {
        uint r;
        PORTLA_ASM volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                            : "=r"(r) : "r"(v), "r"(m));
        v += r;
    }
    PORTLA_ASM volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                        : "=r"(b) : "r"(lid), "r"(5));
    out[lid] = v * 1000 + b;
})");
    bool right = !got.empty();  // warp w sums lanes 32w .. 32w + 31 and reads lane 32w + 5
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto w = static_cast<cl_uint>(i / 32);
        right = right && got[i] == (32 * 32 * w + 496) * 1000 + 32 * w + 5;
    }
    return right;
}

// Whether cl_khr_subgroups' functions build and work on d the way common.cl uses them, in a
// program of OpenCL C `std` (2.0 or 3.0: C 1.2 has no sub-groups): each work-item's sum of 1 over
// its sub-group (its size S) and lane 0's local id (its first) put it in [first, first + S), and
// agree with get_sub_group_size and get_sub_group_local_id.
bool khr_subgroups_work(const Device& d, const char* std) {
    const std::vector<cl_uint> got = run_probe(d, R"(
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void probe(global uint *out) {
    const uint lid = get_local_id(0), size = sub_group_reduce_add(1u),
               first = sub_group_broadcast(lid, 0u);
    const bool agree = get_sub_group_size() == size && get_sub_group_local_id() == lid - first;
    out[lid] = size << 16 | first | (agree ? 0u : 0x8000u);
})",
                                               std);
    bool right = !got.empty();
    for (std::size_t i = 0; i < got.size(); ++i) {
        const cl_uint size = got[i] >> 16, first = got[i] & 0x7fff;
        right = right && (got[i] & 0x8000) == 0 && size > 0 && first <= i && i < first + size;
    }
    return right;
}

// Inline PTX warp shuffles on NVIDIA GPUs (common.cl's PORTLA_WARP): sets d.warp = 32 and
// d.asm_keyword where a probe works, else leaves 0. `off` (PORTLA_OPENCL_NO_WARP=1, read by
// device()) turns them off: the local-memory trees run instead.
void probe_warp(Device& d, bool off) {
    if (off || d.is_cpu || d.vendor.find("NVIDIA") == std::string::npos) return;
    for (const char* keyword : {"asm", "__asm__"})
        if (warp_shuffles_work(d, keyword)) {
            d.warp = 32;
            d.asm_keyword = keyword;
            return;
        }
}

int power_of_two_above(int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

// --- the runtime ---------------------------------------------------------------------------

// The queue is finished, then the host clock read: a point in the queue's order of work. Not
// markers on a profiling queue: on NVIDIA's OpenCL (H100, 2026-11-26) CL_QUEUE_PROFILING_ENABLE
// made every enqueue slower (axpby's time at n = 2^10 ... 2^19, marker to marker, 17 us against
// 15 us host clock around clFinish without profiling), and the solvers launch on that queue.
class OpenclEvent final : public detail::Event {
public:
    explicit OpenclEvent(Device& d) : device_(d) {}
    void record() override {
        PORTLA_CL_CHECK(clFinish(device_.queue));
        time_ = std::chrono::steady_clock::now();
    }
    double seconds_since(const detail::Event& start) const override {
        return std::chrono::duration<double>(time_ - static_cast<const OpenclEvent&>(start).time_)
            .count();
    }
    bool on_device() const override { return false; }

private:
    Device& device_;
    std::chrono::steady_clock::time_point time_ = std::chrono::steady_clock::now();
};

class OpenclRuntime final : public detail::Runtime {
public:
    explicit OpenclRuntime(int id) : device_(device(id)) {}

    std::string device_name() const override { return device_.name; }
    DeviceInfo device_info() const override {
        DeviceInfo info;
        info.id = device_.id;
        info.name = device_.name;
        info.platform = device_.platform_index;
        info.platform_device = device_.index_in_platform;
        info.platform_name = device_.platform_name;
        info.driver_version = device_.driver_version;
        info.cpu = device_.is_cpu;
        if (device_.warp > 0)
            info.sub_groups = "warp shuffles of " + std::to_string(device_.warp) + " (inline PTX)";
        else if (device_.khr_subgroups)
            info.sub_groups = "cl_khr_subgroups (" + device_.sub_group_std.substr(8) + ")";
        info.memory_bytes = device_.global_memory;
        info.multiprocessors = device_.compute_units;
        info.shared_memory_per_block_optin = device_.local_memory;
        return info;
    }
    void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const override {
        // OpenCL reports no free memory: the total less what portla holds on the device.
        total_bytes = device_.global_memory;
        std::lock_guard<std::mutex> lock(table_mutex);
        const std::size_t used = device_.id < 64 ? allocated_bytes[device_.id] : 0;
        free_bytes = total_bytes > used ? total_bytes - used : 0;
    }
    bool is_host() const override { return false; }

    void* allocate(std::size_t bytes) const override {
        if (bytes == 0) return nullptr;
        const std::string where = "opencl:" + std::to_string(device_.id);
        if (bytes > device_.max_allocation) throw OutOfMemory(where, bytes);
        cl_int err = CL_SUCCESS;
        cl_mem mem = clCreateBuffer(device_.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
        if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
            err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE)
            throw OutOfMemory(where, bytes);
        check(err, "clCreateBuffer");
        std::lock_guard<std::mutex> lock(table_mutex);
        const std::uintptr_t address = next_address;
        next_address += (bytes + 255) / 256 * 256 + 256;
        table[address] = {mem, bytes, device_.id};
        if (device_.id < 64) allocated_bytes[device_.id] += bytes;
        return reinterpret_cast<void*>(address);
    }
    void deallocate(void* ptr) const noexcept override {
        if (!ptr) return;
        std::lock_guard<std::mutex> lock(table_mutex);
        const auto it = table.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == table.end()) return;
        // Kernels still queued on it keep the cl_mem alive (OpenCL's reference counting).
        (void)clReleaseMemObject(it->second.mem);
        if (device_.id < 64) allocated_bytes[device_.id] -= it->second.bytes;
        table.erase(it);
    }
    void copy_from_host(void* dst, const void* src, std::size_t bytes) const override {
        if (bytes == 0) return;
        const Buffer b = buffer_of(dst);
        std::lock_guard<std::recursive_mutex> lock(device_.launch_mutex);
        PORTLA_CL_CHECK(clEnqueueWriteBuffer(device_.queue, b.mem, CL_TRUE, b.offset, bytes, src, 0,
                                             nullptr, nullptr));
    }
    void copy_to_host(void* dst, const void* src, std::size_t bytes) const override {
        if (bytes == 0) return;
        const Buffer b = buffer_of(src);
        std::lock_guard<std::recursive_mutex> lock(device_.launch_mutex);
        PORTLA_CL_CHECK(clEnqueueReadBuffer(device_.queue, b.mem, CL_TRUE, b.offset, bytes, dst, 0,
                                            nullptr, nullptr));
    }
    void copy_within(void* dst, const void* src, std::size_t bytes) const override {
        if (bytes == 0 || dst == src) return;
        const Buffer d = buffer_of(dst), s = buffer_of(src);
        std::lock_guard<std::recursive_mutex> lock(device_.launch_mutex);
        const bool overlap =
            d.mem == s.mem && d.offset < s.offset + bytes && s.offset < d.offset + bytes;
        if (overlap) {  // clEnqueueCopyBuffer refuses overlapping regions: through the host
            std::vector<unsigned char> staging(bytes);
            copy_to_host(staging.data(), src, bytes);
            copy_from_host(dst, staging.data(), bytes);
            return;
        }
        PORTLA_CL_CHECK(clEnqueueCopyBuffer(device_.queue, s.mem, d.mem, s.offset, d.offset, bytes,
                                            0, nullptr, nullptr));
        PORTLA_CL_CHECK(clFinish(device_.queue));
    }
    void synchronize() const override { PORTLA_CL_CHECK(clFinish(device_.queue)); }
    void* stream() const override { return device_.queue; }
    std::unique_ptr<detail::Event> make_event() const override {
        return std::make_unique<OpenclEvent>(device_);
    }

private:
    Device& device_;
};

}  // namespace

void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS)
        throw DeviceError(std::string("opencl: ") + what + ": " + error_name(err) + " (" +
                          std::to_string(err) + ")");
}

Device& device(int id) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<Device>> devices;  // freed with the process
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = devices[id];
    if (slot) return *slot;
    const bool no_warp = !opencl_settings().warp_shuffles;
    const auto& found = found_devices();
    if (id < 0 || id >= static_cast<int>(found.size()))
        throw DeviceError("opencl: no device with id " + std::to_string(id));
    auto d = std::make_unique<Device>();
    d->id = id;
    d->platform = found[id].platform;
    d->device = found[id].device;
    d->platform_index = found[id].platform_index;
    d->index_in_platform = found[id].index_in_platform;
    d->name = info_string(d->device, CL_DEVICE_NAME);
    d->vendor = info_string(d->device, CL_DEVICE_VENDOR);
    d->driver_version = info_string(d->device, CL_DRIVER_VERSION);
    d->device_version = info_string(d->device, CL_DEVICE_VERSION);
    d->platform_name = platform_string(d->platform, CL_PLATFORM_NAME);
    d->driver_caches_programs = d->platform_name == "Portable Computing Language";
    const std::string extensions = info_string(d->device, CL_DEVICE_EXTENSIONS);
    d->fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
    d->khr_subgroups = false;  // set by the probe below, after the queue exists
    d->max_work_group = info_value<std::size_t>(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    d->global_memory = info_value<cl_ulong>(d->device, CL_DEVICE_GLOBAL_MEM_SIZE);
    d->max_allocation = info_value<cl_ulong>(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    d->compute_units =
        static_cast<int>(info_value<cl_uint>(d->device, CL_DEVICE_MAX_COMPUTE_UNITS));
    d->local_memory = info_value<cl_ulong>(d->device, CL_DEVICE_LOCAL_MEM_SIZE);
    d->is_cpu = (info_value<cl_device_type>(d->device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
    d->fp32_exact_divide = (info_value<cl_device_fp_config>(d->device, CL_DEVICE_SINGLE_FP_CONFIG) &
                            CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    d->reduction_groups = std::min<std::size_t>(
        kMaxGroups, static_cast<std::size_t>(std::max(d->compute_units, 1)) * (d->is_cpu ? 4 : 8));
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(d->platform), 0};
    d->context = clCreateContext(props, 1, &d->device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    d->queue = clCreateCommandQueue(d->context, d->device, 0, &err);  // in order
    check(err, "clCreateCommandQueue");
    d->scratch = clCreateBuffer(d->context, CL_MEM_READ_WRITE, kScratchCounter + 64, nullptr, &err);
    check(err, "clCreateBuffer (reduction scratch)");
    const cl_uint zero = 0;  // the one-launch reductions' counter
    write_scratch(*d, kScratchCounter, &zero, sizeof zero);
    probe_warp(*d, no_warp);
    if (d->warp == 0 && extensions.find("cl_khr_subgroups") != std::string::npos) {
        const char* std = d->device_version.rfind("OpenCL 3", 0) == 0   ? "-cl-std=CL3.0"
                          : d->device_version.rfind("OpenCL 2", 0) == 0 ? "-cl-std=CL2.0"
                                                                        : nullptr;
        if (std && khr_subgroups_work(*d, std)) {
            d->khr_subgroups = true;
            d->sub_group_std = std;
        }
    }
    slot = std::move(d);
    return *slot;
}

Buffer buffer_of(const void* ptr) {
    if (!ptr) return {};
    const auto address = reinterpret_cast<std::uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(table_mutex);
    auto it = table.upper_bound(address);
    if (it != table.begin()) {
        --it;
        if (address <= it->first + it->second.bytes)
            return {it->second.mem, static_cast<std::size_t>(address - it->first)};
    }
    throw DeviceError("opencl: an address that is no live opencl allocation was passed");
}

Launch::Launch(const Executor& exec, const char* file, const char* kernel, bool dbl, bool complex,
               const std::string& defines)
    : device_(&opencl::device(exec.device_id())), lock_(device_->launch_mutex) {
    Device& d = *device_;
    if (dbl && !d.fp64)
        throw Unsupported("opencl: " + d.name +
                          " has no cl_khr_fp64: double precision is not available on it");
    // The executor's work-group size, at most the device's.
    wg_ = std::min<std::size_t>(static_cast<std::size_t>(exec.launch().work_group_size),
                                d.max_work_group);
    items_ = static_cast<std::size_t>(std::max(exec.launch().items_per_thread, 1));
    // OpenCL C 1.2, unless the kernel asks for another (`defines` holding -cl-std=...)
    std::string base = defines.find("-cl-std=") == std::string::npos ? "-cl-std=CL1.2" : "";
    // The element type and the accumulator; complex values are two of each (common.cl).
    const char* scalar = dbl ? "double" : "float";
    const char* acc = dbl || d.fp64 ? "double" : "float";
    if (complex)
        base += std::string(" -DPORTLA_COMPLEX=1 -DSCALAR=") + scalar + " -DSACC=" + acc +
                " -DREAL=" + scalar + "2 -DACC=" + acc + "2";
    else
        base += std::string(" -DREAL=") + scalar + " -DACC=" + acc;
    if (d.fp64) base += " -DPORTLA_FP64=1";
    // CPUs: no warnings. PoCL's clang prints them (and "N warnings generated.") to the process's
    // stderr, not to the build log: on an AVX2 CPU every 8-lane double load of the CPU kernels
    // (vload8) warns that a 512-bit vector changes the ABI, 17 lines for blas1_kernels.cl alone.
    if (d.is_cpu) base += " -DPORTLA_CPU=1 -w";
    if (d.warp > 0)
        base += " -DPORTLA_WARP=" + std::to_string(d.warp) + " -DPORTLA_ASM=" + d.asm_keyword;
    else if (d.khr_subgroups)
        base += " -DPORTLA_KHR_SUBGROUPS=1";
    // OpenCL's float division and sqrt may be 2.5 / 3 ulp off by default (NVIDIA's are): round
    // them correctly, as the other backends do, where the device can.
    if (d.fp32_exact_divide) base += " -cl-fp32-correctly-rounded-divide-sqrt";
    base += " -DIPT=" + std::to_string(items_) +
            " -DPORTLA_SCRATCH_COUNTER=" + std::to_string(kScratchCounter);
    if (!defines.empty()) base += " " + defines;  // the kernel's own build-time choices
    std::lock_guard<std::mutex> lock(program_mutex);
    // A kernel may allow fewer work-items per group than the device (its registers and local
    // memory): it is built again with its own limit (at most twice: the limit only falls).
    for (;;) {
        const std::string options = base + " -DWG=" + std::to_string(wg_) + " -DWG_POW2=" +
                                    std::to_string(power_of_two_above(static_cast<int>(wg_)));
        ProgramEntry& entry = programs[{d.id, file, options}];
        if (!entry.program) entry.program = build_program(d, file, options);
        cl_kernel& k = entry.kernels[kernel];
        if (!k) {
            cl_int err = CL_SUCCESS;
            k = clCreateKernel(entry.program, kernel, &err);
            check(err, kernel);
        }
        kernel_ = k;
        std::size_t limit = 0;
        if (clGetKernelWorkGroupInfo(k, d.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                     nullptr) != CL_SUCCESS ||
            limit == 0 || limit >= wg_)
            return;
        wg_ = limit >= 32 ? limit / 32 * 32 : limit;
    }
}

void Launch::set(std::size_t bytes, const void* value) {
    const cl_int err = clSetKernelArg(kernel_, next_++, bytes, value);
    check(err, "clSetKernelArg");
}

Launch& Launch::buffer(const void* ptr) {
    const Buffer b = buffer_of(ptr);
    set(sizeof(cl_mem), &b.mem);
    return value(static_cast<cl_ulong>(b.offset));
}

Launch& Launch::scratch(std::size_t offset) {
    set(sizeof(cl_mem), &device_->scratch);
    return value(static_cast<cl_ulong>(offset));
}

std::size_t Launch::groups_for(std::size_t n, std::size_t cap) const {
    if (cap == 0) cap = device_->reduction_groups;
    const std::size_t per_group = wg_ * items_;
    return std::max<std::size_t>(1, std::min(cap, (n + per_group - 1) / per_group));
}

Launch& Launch::local(std::size_t bytes) {
    set(std::max<std::size_t>(bytes, 1), nullptr);
    return *this;
}

void Launch::run(std::size_t groups, std::size_t work_group) {
    const std::size_t local = work_group == 0 ? wg_ : std::min(work_group, wg_),
                      global = groups * local;
    PORTLA_CL_CHECK(clEnqueueNDRangeKernel(device_->queue, kernel_, 1, nullptr, &global, &local, 0,
                                           nullptr, nullptr));
    // Not waited for: the queue is in order, and the arguments were taken at the enqueue, so
    // the next launch may set them again at once.
    lock_.unlock();
}

void read_scratch(Device& d, std::size_t offset, void* dst, std::size_t bytes) {
    std::lock_guard<std::recursive_mutex> lock(d.launch_mutex);
    PORTLA_CL_CHECK(
        clEnqueueReadBuffer(d.queue, d.scratch, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr));
}

void write_scratch(Device& d, std::size_t offset, const void* src, std::size_t bytes) {
    std::lock_guard<std::recursive_mutex> lock(d.launch_mutex);
    PORTLA_CL_CHECK(
        clEnqueueWriteBuffer(d.queue, d.scratch, CL_TRUE, offset, bytes, src, 0, nullptr, nullptr));
}

int device_count(tag) { return static_cast<int>(found_devices().size()); }

std::shared_ptr<const detail::Runtime> make_runtime(tag, int id) {
    return std::make_shared<OpenclRuntime>(id);
}

}  // namespace portla::kernels::opencl
