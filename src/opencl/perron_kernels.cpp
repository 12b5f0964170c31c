// The dominant-eigenpair kernels of the opencl backend: launches of
// src/opencl/perron_kernels.cl. The reduction variants (perron_kernels.cl's PERRON_REDUCE):
//   local     one work-group per row, group_sum (sums in ACC: double where the device has
//             cl_khr_fp64); the max: partials of one wave of groups, then one group
//   atomic    every term an atomic on its result, in the element type, as on cuda: adds by
//             compare-and-swap on the bit pattern (32-bit: core OpenCL; 64-bit:
//             cl_khr_int64_base_atomics), maxima by atomic max on the bit pattern.
//   subgroup  as on cuda: each work-item's partial (in ACC), a sub-group reduction, one atomic
//             per sub-group. Needs sub-groups (common.cl's PORTLA_SUB_GROUPS: NVIDIA's warps by
//             shuffles in work-groups of a multiple of 32, or cl_khr_subgroups: PoCL 5.0).
// A variant that the device cannot run (atomic or subgroup in double without
// cl_khr_int64_base_atomics, subgroup without sub-groups) runs `local`. The variant changes
// the order of the sums only, never what is computed (perron.hpp).
#include "core/kernels/perron_kernels.hpp"

#include <string>
#include <type_traits>

#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "perron_kernels.cl";
constexpr std::size_t kMaxRowGroups = 65535;

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

// What `variant` runs for T on the executor's device: perron_kernels.cl's REDUCE_* value.
template <typename T>
int reduction_of(const Executor& exec, eigen::ReductionVariant variant) {
    constexpr int local = 0, atomic = 1, subgroup = 2;
    if (variant == eigen::ReductionVariant::local) return local;
    const Device& d = device(exec.device_id());
    if (variant == eigen::ReductionVariant::subgroup &&
        !d.sub_groups(static_cast<std::size_t>(exec.launch().work_group_size)))
        return local;
    if (std::is_same_v<T, double>) {
        std::size_t bytes = 0;
        PORTLA_CL_CHECK(clGetDeviceInfo(d.device, CL_DEVICE_EXTENSIONS, 0, nullptr, &bytes));
        std::string extensions(bytes, '\0');
        PORTLA_CL_CHECK(
            clGetDeviceInfo(d.device, CL_DEVICE_EXTENSIONS, bytes, extensions.data(), nullptr));
        if (extensions.find("cl_khr_int64_base_atomics") == std::string::npos) return local;
    }
    return variant == eigen::ReductionVariant::atomic ? atomic : subgroup;
}

// The kernel `name` built for reduction `reduce`; a subgroup kernel whose work-group size came
// out no multiple of the warp (the kernel's own limit) is built for `local` instead.
// (`local` is the file's default: its program is the one the max's tree kernels use.)
template <typename T>
Launch reduction_kernel(const Executor& exec, const char* name, int& reduce) {
    if (reduce != 0) {
        const std::string sub =
            reduce == 2 ? " " + device(exec.device_id()).sub_group_options() : "";
        Launch k =
            Launch::of<T>(exec, kFile, name, "-DPERRON_REDUCE=" + std::to_string(reduce) + sub);
        if (reduce != 2 || k.device().sub_groups(k.work_group_size())) return k;
        reduce = 0;
    }
    return Launch::of<T>(exec, kFile, name);
}

// s_i = the row sums of A (weighted by w, transformed by `scale` first when given)
template <typename T>
void row_sums(const Executor& exec, eigen::ReductionVariant variant, std::size_t n, const T* a,
              const T* w, const T* scale, T* s) {
    if (n == 0) return;
    int reduce = reduction_of<T>(exec, variant);
    auto k = reduction_kernel<T>(exec, "perron_row_sums", reduce);
    k.value(u64(n)).buffer(a).buffer(w).value(static_cast<cl_int>(w != nullptr));
    k.buffer(scale).value(static_cast<cl_int>(scale != nullptr)).buffer(s);
    k.run(std::min(n, kMaxRowGroups));
}

// result[0] = max_i x_i, or max_i |x_i - x_(i+1) mod n| (NaN propagates; 0 when empty)
template <typename T>
void max_of(const Executor& exec, eigen::ReductionVariant variant, const_view<T> x, bool stop_test,
            T* result) {
    int reduce = reduction_of<T>(exec, variant);
    if (reduce != 0) {
        auto k = reduction_kernel<T>(exec, "perron_max_atomic", reduce);
        if (reduce != 0) {
            Launch::of<T>(exec, kFile, "perron_clear").buffer(result).run(1);
            if (x.size == 0) return;
            const std::size_t groups = k.groups_for(x.size);
            k.value(u64(x.size)).buffer(x.data).value(static_cast<cl_int>(stop_test));
            k.buffer(result).run(groups);
            return;
        }
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
