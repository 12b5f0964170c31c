// Batched dense direct solve on opencl: LU with partial pivoting, one work-group per system
// (src/opencl/batch_direct_kernels.cl), on a copy of the matrices. Two launches: the copy and
// finiteness check (untimed, as the contract asks), then the factorisations and solves.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/kernels/batch_direct_kernels.hpp"
#include "opencl/device.hpp"
#include "portla/array.hpp"
#include "portla/timer.hpp"

namespace portla::kernels::opencl {

template <typename T>
void batch_lu_solve(tag, const Executor& exec, std::size_t num_systems, std::size_t n,
                    const_view<T> values, const_view<T> b, view<T> x, std::vector<int>& info,
                    Timer& timer) {
    info.assign(num_systems, 0);
    if (num_systems == 0 || n == 0) {
        timer.start();  // nothing to time, but seconds() stays valid
        timer.stop();
        return;
    }
    // The factors overwrite their input, so they go to a copy (allocate throws OutOfMemory
    // naming the bytes when it does not fit).
    Array<T> lu(exec, num_systems * n * n);
    Array<int> flags(exec, num_systems);
    constexpr const char* file = "batch_direct_kernels.cl";
    const std::size_t groups = std::min<std::size_t>(num_systems, 65535);
    const auto systems = static_cast<cl_ulong>(num_systems), size = static_cast<cl_ulong>(n);
    Launch::of<T>(exec, file, "batch_lu_prepare")
        .value(systems)
        .value(size)
        .buffer(values.data)
        .buffer(b.data)
        .buffer(lu.data())
        .buffer(x.data)
        .buffer(flags.data())
        .run(groups);
    auto solve = Launch::of<T>(exec, file, "batch_lu_factor_solve");
    solve.value(systems).value(size).buffer(lu.data()).buffer(x.data).buffer(flags.data());
    timer.start();
    solve.run(groups);
    timer.stop();
    info = flags.to_host();
}

PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_DIRECT_KERNELS(float);

}  // namespace portla::kernels::opencl
