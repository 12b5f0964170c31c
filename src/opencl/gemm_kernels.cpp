// The matrix product of the opencl backend: naive and tiled (fast runs tiled) from
// src/opencl/gemm_kernels.cl. No sub-group variant yet, no vendor library.
#include "core/kernels/gemm_kernels.hpp"

#include "opencl/device.hpp"

namespace portla::kernels::opencl {

template <typename T>
void gemm(tag, const Executor& exec, GemmVariant variant, std::size_t m, std::size_t n,
          std::size_t k, T alpha, const_view<T> a, const_view<T> b, T beta, view<T> c) {
    const bool naive = variant == GemmVariant::naive;
    auto kernel = Launch::of<T>(exec, "gemm_kernels.cl", naive ? "gemm_naive" : "gemm_tiled");
    constexpr std::size_t tile = 16;
    const std::size_t groups =
        naive ? kernel.groups_for(m * n, 65535)
              : std::min<std::size_t>(65535, ((m + tile - 1) / tile) * ((n + tile - 1) / tile));
    kernel.value(static_cast<cl_ulong>(m)).value(static_cast<cl_ulong>(n));
    kernel.value(static_cast<cl_ulong>(k)).value(alpha).buffer(a.data).buffer(b.data);
    kernel.value(beta).buffer(c.data).run(groups);
}

PORTLA_INSTANTIATE_GEMM_KERNELS(double);
PORTLA_INSTANTIATE_GEMM_KERNELS(float);

}  // namespace portla::kernels::opencl
