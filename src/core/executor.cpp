#include "portla/executor.hpp"

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

#include "core/runtime.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"
#include "portla/tuning.hpp"

#if PORTLA_WITH_OMP
#include <omp.h>
#endif

namespace portla {

std::string to_string(Backend backend) {
    switch (backend) {
#define PORTLA_BACKEND_NAME(name) \
    case Backend::name:           \
        return #name;
        PORTLA_FOR_EACH_BACKEND(PORTLA_BACKEND_NAME)
#undef PORTLA_BACKEND_NAME
    }
    return "unknown";
}

std::string to_string(KernelFamily family) {
    switch (family) {
#define PORTLA_KERNEL_FAMILY_NAME(name) \
    case KernelFamily::name:            \
        return #name;
        PORTLA_FOR_EACH_KERNEL_FAMILY(PORTLA_KERNEL_FAMILY_NAME)
#undef PORTLA_KERNEL_FAMILY_NAME
    }
    return "unknown";
}

const std::vector<Backend>& all_backends() {
#define PORTLA_BACKEND_VALUE(name) Backend::name,
    static const std::vector<Backend> list{PORTLA_FOR_EACH_BACKEND(PORTLA_BACKEND_VALUE)};
#undef PORTLA_BACKEND_VALUE
    return list;
}

bool compiled(Backend backend) {
    switch (backend) {
#define PORTLA_BACKEND_ENABLED(name) \
    case Backend::name:              \
        return kernels::name::tag::enabled;
        PORTLA_FOR_EACH_BACKEND(PORTLA_BACKEND_ENABLED)
#undef PORTLA_BACKEND_ENABLED
    }
    return false;
}

int device_count(Backend backend) {
    if (!compiled(backend)) return 0;
    return dispatch(backend, [](auto tag) { return device_count(tag); });
}

int cuda_device_count() { return device_count(Backend::cuda); }

std::vector<DeviceInfo> cuda_devices() {
    std::vector<DeviceInfo> out;
    for (int i = 0; i < cuda_device_count(); ++i)
        out.push_back(detail::runtime_of(Backend::cuda, i)->device_info());
    return out;
}

bool cuda_compiled() { return compiled(Backend::cuda); }

int opencl_device_count() { return device_count(Backend::opencl); }

std::vector<DeviceInfo> opencl_devices() {
    std::vector<DeviceInfo> out;
    for (int i = 0; i < opencl_device_count(); ++i)
        out.push_back(detail::runtime_of(Backend::opencl, i)->device_info());
    return out;
}
bool omp_compiled() { return PORTLA_WITH_OMP != 0; }

int omp_max_threads() {
#if PORTLA_WITH_OMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

namespace detail {

std::unique_ptr<Graph> Runtime::capture(std::function<void()> work) const {
    struct HostGraph final : Graph {
        std::function<void()> work;
        void launch() override { work(); }
    };
    auto graph = std::make_unique<HostGraph>();
    graph->work = std::move(work);
    return graph;
}

void* Runtime::allocate_pinned(std::size_t bytes) const {
    if (bytes == 0) return nullptr;
    void* ptr = std::malloc(bytes);
    if (!ptr) throw OutOfMemory("host", bytes);
    return ptr;
}

void Runtime::deallocate_pinned(void* ptr) const noexcept { std::free(ptr); }

std::shared_ptr<const Runtime> runtime_of(Backend backend, int device) {
    static std::mutex mutex;
    static std::map<std::pair<Backend, int>, std::shared_ptr<const Runtime>> runtimes;
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = runtimes[{backend, device}];
    if (!slot) slot = dispatch(backend, [&](auto tag) { return make_runtime(tag, device); });
    return slot;
}

}  // namespace detail

Executor Executor::reference() {
    // Called wherever a value crosses to the host (Array copies, scalar reads): made once.
    static const Executor reference = create(Backend::reference, 0);
    return reference;
}
Executor Executor::omp() { return create(Backend::omp, 0); }
Executor Executor::cuda(int device) { return create(Backend::cuda, device); }

Executor Executor::create(Backend backend, int device) {
    if (!compiled(backend)) throw NotCompiled(to_string(backend));
    const int count = device_count(backend);
    if (count == 0)  // cuda: no GPU, or no driver
        throw DeviceError(to_string(backend) + ": no device found (portla info lists the devices)");
    if (device < 0 || device >= count)
        throw DeviceError(to_string(backend) + ": no device with id " + std::to_string(device) +
                          " (" + std::to_string(count) + " found)");
    Executor exec(backend, device, detail::runtime_of(backend, device));
    // A GPU's tuning profile is read here, not at the first vector kernel, which may be
    // running under stream capture (a CUDA graph), where device queries are best avoided.
    if (exec.backend() == Backend::cuda) (void)tuning::active_profile(exec);  // cuda reads it
    return exec;
}

Executor Executor::create(const std::string& name) {
    if (name == "auto") {
        if (device_count(Backend::cuda) > 0) return cuda(0);
        return omp_compiled() ? omp() : reference();
    }
    std::string names;
    for (Backend b : all_backends()) {
        const std::string n = to_string(b);
        names += n + ", ";
        if (name == n) return create(b, 0);
        if (name.rfind(n + ":", 0) == 0) {
            const char* digits = name.c_str() + n.size() + 1;
            char* end = nullptr;
            const long id = std::strtol(digits, &end, 10);
            if (end != digits && *end == '\0' && id >= 0 && id <= INT_MAX)
                return create(b, static_cast<int>(id));
            // name:P:D, device D of platform P (the numbering of DeviceInfo)
            if (end != digits && *end == ':' && id >= 0 && id <= INT_MAX) {
                const char* second = end + 1;
                const long sub = std::strtol(second, &end, 10);
                if (end != second && *end == '\0' && sub >= 0 && sub <= INT_MAX) {
                    for (int d = 0; d < device_count(b); ++d) {
                        const DeviceInfo info = detail::runtime_of(b, d)->device_info();
                        if (info.platform == id && info.platform_device == sub) return create(b, d);
                    }
                    throw DeviceError(n + ": no device " + std::to_string(sub) + " on platform " +
                                      std::to_string(id) + " (portla info lists them)");
                }
            }
        }
    }
    throw BadInput("unknown backend '" + name + "' (expected auto, " + names +
                   "name:N for device N, or name:P:D for device D of platform P)");
}

std::string Executor::device_name() const { return runtime_->device_name(); }
bool Executor::is_host() const { return runtime_->is_host(); }
DeviceInfo Executor::device_info() const { return runtime_->device_info(); }
void Executor::memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const {
    runtime_->memory_info(free_bytes, total_bytes);
}

void Executor::set_launch(const LaunchConfig& config) {
    const std::string problem = tuning::launch_problem(config);
    if (!problem.empty()) throw BadInput("launch configuration: " + problem);
    launch_ = config;
    launch_set_ = true;
}

void Executor::set_kernel_options(const KernelOptions& options) {
    const std::string problem = kernel_options_problem(options);
    if (!problem.empty()) throw BadInput("kernel options: " + problem);
    kernel_options_ = options;
}

void Executor::synchronize() const { runtime_->synchronize(); }

void* Executor::allocate(std::size_t bytes) const { return runtime_->allocate(bytes); }

void Executor::deallocate(void* ptr) const noexcept { runtime_->deallocate(ptr); }

void Executor::copy_bytes(const Executor& dst_exec, void* dst, const Executor& src_exec,
                          const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    const bool dst_host = dst_exec.is_host(), src_host = src_exec.is_host();
    if (src_host) {
        dst_exec.runtime_->copy_from_host(dst, src, bytes);
    } else if (dst_host) {
        src_exec.runtime_->copy_to_host(dst, src, bytes);
    } else {
        if (dst_exec.backend_ != src_exec.backend_ || dst_exec.device_ != src_exec.device_)
            throw DeviceError("copies between two different devices are not supported");
        dst_exec.runtime_->copy_within(dst, src, bytes);
    }
}

Timer::Timer(const Executor& exec)
    : start_(exec.runtime().make_event()), stop_(exec.runtime().make_event()) {}
Timer::~Timer() = default;
Timer::Timer(Timer&&) noexcept = default;
Timer& Timer::operator=(Timer&&) noexcept = default;
void Timer::start() { start_->record(); }
void Timer::stop() { stop_->record(); }
double Timer::seconds() const { return stop_->seconds_since(*start_); }
bool Timer::on_device() const { return stop_->on_device(); }

}  // namespace portla
