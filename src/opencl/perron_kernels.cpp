// The dominant-eigenpair kernels of the opencl backend: launches of
// src/opencl/perron_kernels.cl. Every reduction variant runs the same kernels (one work-group
// per row, local-memory trees); cuda's atomic and sub-group forms are not separate here yet.
#include "core/kernels/perron_kernels.hpp"

#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "perron_kernels.cl";
constexpr std::size_t kMaxRowGroups = 65535;

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

// s_i = the row sums of A (weighted by w, transformed by `scale` first when given)
template <typename T>
void row_sums(const Executor& exec, std::size_t n, const T* a, const T* w, const T* scale, T* s) {
    if (n == 0) return;
    auto k = Launch::of<T>(exec, kFile, "perron_row_sums");
    k.value(u64(n)).buffer(a).buffer(w).value(static_cast<cl_int>(w != nullptr));
    k.buffer(scale).value(static_cast<cl_int>(scale != nullptr)).buffer(s);
    k.run(std::min(n, kMaxRowGroups));
}

// result[0] = max_i x_i, or max_i |x_i - x_(i+1) mod n| (NaN propagates; 0 when empty)
template <typename T>
void max_of(const Executor& exec, const_view<T> x, bool stop_test, T* result) {
    auto k = Launch::of<T>(exec, kFile, "perron_max_partial");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(x.size);
    k.value(u64(x.size)).buffer(x.data).value(static_cast<cl_int>(stop_test)).scratch(0);
    k.run(groups);
    finish_reduction(exec, kFile, "perron_max_finish", groups, result);
}

}  // namespace

template <typename T>
void perron_row_sums(tag, const Executor& exec, eigen::ReductionVariant, std::size_t n,
                     const_view<T> a, view<T> s) {
    row_sums<T>(exec, n, a.data, nullptr, nullptr, s.data);
}

template <typename T>
void perron_weighted_row_sums(tag, const Executor& exec, eigen::ReductionVariant, std::size_t n,
                              const_view<T> a, const_view<T> v, view<T> s) {
    row_sums<T>(exec, n, a.data, v.data, nullptr, s.data);
}

template <typename T>
void perron_max(tag, const Executor& exec, eigen::ReductionVariant, const_view<T> x,
                view<T> result) {
    max_of(exec, x, false, result.data);
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
void perron_stop_test(tag, const Executor& exec, eigen::ReductionVariant, const_view<T> s,
                      view<T> result) {
    max_of(exec, s, true, result.data);
}

template <typename T>
void perron_fused_transform_row_sums(tag, const Executor& exec, eigen::ReductionVariant,
                                     std::size_t n, const_view<T> s, view<T> a, view<T> s_next) {
    row_sums<T>(exec, n, a.data, nullptr, s.data, s_next.data);
}

PORTLA_INSTANTIATE_PERRON_KERNELS(double);
PORTLA_INSTANTIATE_PERRON_KERNELS(float);

}  // namespace portla::kernels::opencl
