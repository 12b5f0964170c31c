// The preconditioner kernels of the opencl backend: launches of src/opencl/precond_kernels.cl.
#include <complex>

#include "core/kernels/precond_kernels.hpp"

#include "opencl/device.hpp"

namespace portla::kernels::opencl {

template <typename T>
void block_jacobi_apply(tag, const Executor& exec, int block_size, const_view<T> blocks,
                        const_view<T> r, view<T> z) {
    if (r.size == 0) return;
    auto k = Launch::of<T>(exec, "precond_kernels.cl", "block_jacobi_apply");
    const std::size_t groups = k.elementwise_groups(r.size);
    k.value(static_cast<cl_ulong>(r.size)).value(static_cast<cl_ulong>(block_size));
    k.buffer(blocks.data).buffer(r.data).buffer(z.data).run(groups);
}

PORTLA_INSTANTIATE_PRECOND_KERNELS(double);
PORTLA_INSTANTIATE_PRECOND_KERNELS(float);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_PRECOND_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
