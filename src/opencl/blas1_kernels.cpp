// The vector kernels of the opencl backend: launches of src/opencl/blas1_kernels.cl. A reduction
// holds the device's launch lock from its first launch to its last (the partials live in the
// device's one scratch buffer).
#include "core/kernels/blas1_kernels.hpp"

#include <complex>

#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "blas1_kernels.cl";

}  // namespace

template <typename T>
void fill(tag, const Executor& exec, view<T> x, T value) {
    if (x.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "fill");
    const std::size_t groups = k.elementwise_groups(x.size);
    k.buffer(x.data).value(static_cast<cl_ulong>(x.size)).value(value).run(groups);
}

template <typename T>
void copy(tag, const Executor& exec, const_view<T> x, view<T> y) {
    if (x.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "copy");
    const std::size_t groups = k.elementwise_groups(x.size);
    k.buffer(x.data).buffer(y.data).value(static_cast<cl_ulong>(x.size)).run(groups);
}

template <typename T>
void axpby(tag, const Executor& exec, T a, const_view<T> x, T b, view<T> y) {
    if (x.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "axpby");
    const std::size_t groups = k.elementwise_groups(x.size);
    k.value(a).buffer(x.data).value(b).buffer(y.data).value(static_cast<cl_ulong>(x.size));
    k.run(groups);
}

template <typename T>
void pointwise_mul(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> z) {
    if (x.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "pointwise_mul");
    const std::size_t groups = k.elementwise_groups(x.size);
    k.buffer(x.data).buffer(y.data).buffer(z.data).value(static_cast<cl_ulong>(x.size));
    k.run(groups);
}

template <typename T>
void dot(tag, const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    auto k = Launch::of<T>(exec, kFile, "dot_product");
    const std::size_t groups = k.groups_for(x.size);
    k.buffer(x.data).buffer(y.data).value(static_cast<cl_ulong>(x.size)).one_launch_reduction();
    k.buffer(result.data).run(groups);
}

// Blue's scaled sums always (as on cuda): one pass, memory-bound either way.
template <typename T>
void norm2(tag, const Executor& exec, const_view<T> x, view<T> result) {
    auto k = Launch::of<T>(exec, kFile, "norm2_partial");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(x.size);
    k.buffer(x.data).value(static_cast<cl_ulong>(x.size)).scratch(0).run(groups);
    finish_reduction(exec, kFile, "norm2_finish", groups, result.data);
}

template <typename T>
void invert_diagonal(tag, const Executor& exec, view<T> d, view<unsigned long long> first_bad) {
    if (d.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "find_bad_partial");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(d.size);
    k.buffer(d.data).value(static_cast<cl_ulong>(d.size)).scratch(0).run(groups);
    Launch::of<T>(exec, kFile, "find_bad_finish")
        .scratch(0)
        .value(static_cast<cl_uint>(groups))
        .value(static_cast<cl_ulong>(d.size))
        .buffer(first_bad.data)
        .scratch(kScratchResults)
        .run(1);
    auto invert = Launch::of<T>(exec, kFile, "invert_below");
    const std::size_t invert_groups = invert.elementwise_groups(d.size);
    invert.buffer(d.data).scratch(kScratchResults).run(invert_groups);
}

template <typename T>
void fused_cg_update(tag, const Executor& exec, T alpha, const_view<T> p, const_view<T> q,
                     view<T> x, view<T> r, view<T> rr) {
    auto k = Launch::of<T>(exec, kFile, "fused_cg_update");
    const std::size_t groups = k.groups_for(r.size);
    k.value(alpha).buffer(p.data).buffer(q.data).buffer(x.data).buffer(r.data);
    k.value(static_cast<cl_ulong>(r.size)).one_launch_reduction().buffer(rr.data).run(groups);
}

PORTLA_INSTANTIATE_BLAS1_KERNELS(double);
PORTLA_INSTANTIATE_BLAS1_KERNELS(float);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_BLAS1_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
