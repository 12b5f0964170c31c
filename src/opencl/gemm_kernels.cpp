// The matrix product of the opencl backend: naive, tiled and subgroup from
// src/opencl/gemm_kernels.cl (fast runs tiled; subgroup needs sub-groups, common.cl's
// PORTLA_SUB_GROUPS: NVIDIA's warps in work-groups of a multiple of 32, or cl_khr_subgroups;
// elsewhere it runs tiled). No vendor library.
#include "core/kernels/gemm_kernels.hpp"

#include "opencl/device.hpp"

namespace portla::kernels::opencl {

template <typename T>
void gemm(tag, const Executor& exec, GemmVariant variant, std::size_t m, std::size_t n,
          std::size_t k, T alpha, const_view<T> a, const_view<T> b, T beta, view<T> c) {
    const auto launch = [&](Launch& kernel, std::size_t groups) {
        kernel.value(static_cast<cl_ulong>(m)).value(static_cast<cl_ulong>(n));
        kernel.value(static_cast<cl_ulong>(k)).value(alpha).buffer(a.data).buffer(b.data);
        kernel.value(beta).buffer(c.data).run(std::min<std::size_t>(groups, 65535));
    };
    const Device& d = device(exec.device_id());
    if (variant == GemmVariant::subgroup &&
        d.sub_groups(static_cast<std::size_t>(exec.launch().work_group_size))) {
        auto kernel =
            Launch::of<T>(exec, "gemm_kernels.cl", "gemm_subgroup", d.sub_group_options());
        const std::size_t wg = kernel.work_group_size();  // the kernel's limit may lower it
        if (d.sub_groups(wg)) return launch(kernel, m * ((n + wg - 1) / wg));
    }
    const bool naive = variant == GemmVariant::naive;
    auto kernel = Launch::of<T>(exec, "gemm_kernels.cl", naive ? "gemm_naive" : "gemm_tiled");
    constexpr std::size_t tile = 16;
    launch(kernel, naive ? kernel.groups_for(m * n, 65535)
                         : ((m + tile - 1) / tile) * ((n + tile - 1) / tile));
}

PORTLA_INSTANTIATE_GEMM_KERNELS(double);
PORTLA_INSTANTIATE_GEMM_KERNELS(float);

}  // namespace portla::kernels::opencl
