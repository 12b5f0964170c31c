// The dominant-eigenpair kernels of the opencl backend: launches of
// src/opencl/perron_kernels.cl. The reduction variants:
//   local     one work-group per row, a local-memory tree (sums in ACC: double where the device
//             has cl_khr_fp64); the max: partials of one wave of groups, then one group
//   atomic    every term an atomic on its result, in the element type, as on cuda: adds by
//             compare-and-swap on the bit pattern (32-bit: core OpenCL; 64-bit:
//             cl_khr_int64_base_atomics), maxima by atomic max on the bit pattern. In double on
//             a device without cl_khr_int64_base_atomics it runs `local` (PoCL 3.1 and 5.0 have
//             the extension).
//   subgroup  runs `local`: no sub-group kernel is written yet (PoCL 3.1 here reports no
//             cl_khr_subgroups, so one could not be tested).
// The variant changes the order of the sums only, never what is computed (perron.hpp).
#include "core/kernels/perron_kernels.hpp"

#include <string>
#include <type_traits>

#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "perron_kernels.cl";
constexpr std::size_t kMaxRowGroups = 65535;

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

// Whether `variant` runs its atomic kernels for T on the executor's device (see the file comment).
template <typename T>
bool atomic_kernels(const Executor& exec, eigen::ReductionVariant variant) {
    if (variant != eigen::ReductionVariant::atomic) return false;
    if (!std::is_same_v<T, double>) return true;
    const cl_device_id id = device(exec.device_id()).device;
    std::size_t bytes = 0;
    PORTLA_CL_CHECK(clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, nullptr, &bytes));
    std::string extensions(bytes, '\0');
    PORTLA_CL_CHECK(clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, bytes, extensions.data(), nullptr));
    return extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
}

// s_i = the row sums of A (weighted by w, transformed by `scale` first when given)
template <typename T>
void row_sums(const Executor& exec, eigen::ReductionVariant variant, std::size_t n, const T* a,
              const T* w, const T* scale, T* s) {
    if (n == 0) return;
    const bool atomic = atomic_kernels<T>(exec, variant);
    auto k = Launch::of<T>(exec, kFile, atomic ? "perron_row_sums_atomic" : "perron_row_sums");
    k.value(u64(n)).buffer(a).buffer(w).value(static_cast<cl_int>(w != nullptr));
    k.buffer(scale).value(static_cast<cl_int>(scale != nullptr)).buffer(s);
    k.run(std::min(n, kMaxRowGroups));
}

// result[0] = max_i x_i, or max_i |x_i - x_(i+1) mod n| (NaN propagates; 0 when empty)
template <typename T>
void max_of(const Executor& exec, eigen::ReductionVariant variant, const_view<T> x, bool stop_test,
            T* result) {
    if (atomic_kernels<T>(exec, variant)) {
        Launch::of<T>(exec, kFile, "perron_clear").buffer(result).run(1);
        if (x.size == 0) return;
        auto k = Launch::of<T>(exec, kFile, "perron_max_atomic");
        const std::size_t groups = k.groups_for(x.size);
        k.value(u64(x.size)).buffer(x.data).value(static_cast<cl_int>(stop_test)).buffer(result);
        k.run(groups);
        return;
    }
    auto k = Launch::of<T>(exec, kFile, "perron_max_partial");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(x.size);
    k.value(u64(x.size)).buffer(x.data).value(static_cast<cl_int>(stop_test)).scratch(0);
    k.run(groups);
    finish_reduction(exec, kFile, "perron_max_finish", groups, result);
}

}  // namespace

template <typename T>
void perron_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant, std::size_t n,
                     const_view<T> a, view<T> s) {
    row_sums<T>(exec, variant, n, a.data, nullptr, nullptr, s.data);
}

template <typename T>
void perron_weighted_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,
                              std::size_t n, const_view<T> a, const_view<T> v, view<T> s) {
    row_sums<T>(exec, variant, n, a.data, v.data, nullptr, s.data);
}

template <typename T>
void perron_max(tag, const Executor& exec, eigen::ReductionVariant variant, const_view<T> x,
                view<T> result) {
    max_of(exec, variant, x, false, result.data);
}

template <typename T>
void perron_scale(tag, const Executor& exec, const_view<T> s, const_view<T> m, view<T> v) {
    if (v.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "perron_scale");
    const std::size_t groups = k.groups_for(v.size, kMaxRowGroups);
    k.value(u64(v.size)).buffer(s.data).buffer(m.data).buffer(v.data).run(groups);
}

template <typename T>
void perron_transform(tag, const Executor& exec, std::size_t n, const_view<T> s, view<T> a) {
    if (n == 0) return;
    auto k = Launch::of<T>(exec, kFile, "perron_transform");
    const std::size_t groups = k.groups_for(n * n, kMaxRowGroups);
    k.value(u64(n)).buffer(s.data).buffer(a.data).run(groups);
}

template <typename T>
void perron_stop_test(tag, const Executor& exec, eigen::ReductionVariant variant, const_view<T> s,
                      view<T> result) {
    max_of(exec, variant, s, true, result.data);
}

template <typename T>
void perron_fused_transform_row_sums(tag, const Executor& exec, eigen::ReductionVariant variant,
                                     std::size_t n, const_view<T> s, view<T> a, view<T> s_next) {
    row_sums<T>(exec, variant, n, a.data, nullptr, s.data, s_next.data);
}

PORTLA_INSTANTIATE_PERRON_KERNELS(double);
PORTLA_INSTANTIATE_PERRON_KERNELS(float);

}  // namespace portla::kernels::opencl
