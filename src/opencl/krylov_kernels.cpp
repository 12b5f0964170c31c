// The Krylov-basis kernels of the opencl backend: launches of src/opencl/krylov_kernels.cl.
// basis_project is two launches: every work-group's partial dots of every column, then one
// work-item per column adds them up in a fixed order (deterministic).
#include "core/kernels/krylov_kernels.hpp"

#include <algorithm>
#include <complex>

#include "core/runtime.hpp"
#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "krylov_kernels.cl";

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

}  // namespace

template <typename T>
void basis_project(tag, const Executor& exec, std::size_t n, int k, const T* V, std::size_t ld,
                   const T* w, T* h) {
    if (k <= 0) return;
    auto k1 = Launch::of<T>(exec, kFile, "basis_project_partial");
    std::lock_guard<std::recursive_mutex> lock(k1.device().launch_mutex);
    // k columns of partials fit the scratch (kMaxGroups * 4 values of 8 bytes; a complex
    // partial is two) with this many groups.
    const std::size_t columns = static_cast<std::size_t>(k);
    const std::size_t parts = common::is_complex_v<T> ? 2 : 1;
    const std::size_t fit = std::max<std::size_t>(1, kMaxGroups * 4 / (columns * parts));
    const std::size_t groups = k1.groups_for(n, std::min(fit, k1.device().reduction_groups));
    const detail::Runtime& runtime = exec.runtime();
    // Past the scratch (k > 4096 columns, 2048 complex ones): a temporary buffer.
    void* extra = groups * columns * parts > kMaxGroups * 4
                      ? runtime.allocate(groups * columns * parts * 8)
                      : nullptr;
    try {
        k1.value(u64(n)).value(static_cast<cl_int>(k)).buffer(V).value(u64(ld)).buffer(w);
        if (extra)
            k1.buffer(extra);
        else
            k1.scratch(0);
        k1.run(groups);
        auto k2 = Launch::of<T>(exec, kFile, "basis_project_finish");
        k2.value(static_cast<cl_int>(k)).value(static_cast<cl_uint>(groups));
        if (extra)
            k2.buffer(extra);
        else
            k2.scratch(0);
        k2.buffer(h).run(k2.groups_for(columns, 65535));
    } catch (...) {
        runtime.deallocate(extra);
        throw;
    }
    if (extra) {
        runtime.synchronize();
        runtime.deallocate(extra);
    }
}

template <typename T>
void basis_update(tag, const Executor& exec, std::size_t n, int k, const T* V, std::size_t ld,
                  const T* h, T alpha, T beta, T* w) {
    if (n == 0) return;
    auto kernel = Launch::of<T>(exec, kFile, "basis_update");
    const std::size_t groups = kernel.groups_for(n, 65535);
    kernel.value(u64(n)).value(static_cast<cl_int>(std::max(k, 0))).buffer(V).value(u64(ld));
    kernel.buffer(h).value(alpha).value(beta).buffer(w).run(groups);
}

PORTLA_INSTANTIATE_KRYLOV_KERNELS(double);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(float);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_KRYLOV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
