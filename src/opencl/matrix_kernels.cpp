// The operator-apply kernels of the opencl backend: launches of src/opencl/matrix_kernels.cl.
#include "core/kernels/matrix_kernels.hpp"

#include <algorithm>
#include <complex>

#include "core/runtime.hpp"
#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "matrix_kernels.cl";
constexpr std::size_t kMaxRowGroups = 65535;

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

// The kernel of matrix_kernels.cl's PORTLA_CSR_KERNELS for row offsets P and column indices C.
template <typename P, typename C>
const char* csr_kernel(bool apply) {
    if constexpr (sizeof(C) == 8) return apply ? "csr_apply_ll" : "csr_diagonal_ll";
    if constexpr (sizeof(P) == 8) return apply ? "csr_apply_l" : "csr_diagonal_l";
    return apply ? "csr_apply" : "csr_diagonal";
}

}  // namespace

template <typename T>
void dense_apply(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                 const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    const bool cpu = opencl::device(exec.device_id()).is_cpu;
    auto k = Launch::of<T>(exec, kFile, cpu ? "dense_apply_rows" : "dense_apply");
    k.value(u64(rows)).value(u64(cols)).buffer(values.data).buffer(x.data).buffer(y.data);
    if (!cpu) {  // GPUs: a work-group per row
        k.run(std::min(rows, kMaxRowGroups));
        return;
    }
    // CPUs: a row per work-item, in work-groups small enough that every thread gets some
    // (about 4 per compute unit): the launch's usual items per work-item left 4 work-groups
    // for N = 4096, a quarter of the 16-core host busy (7% of omp's dense CG there).
    const std::size_t per_group =
        std::clamp<std::size_t>(rows / k.device().reduction_groups, 1, k.work_group_size());
    k.run(std::min((rows + per_group - 1) / per_group, kMaxRowGroups), per_group);
}

template <typename T, typename P, typename C>
void csr_apply(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,
               const_view<C> col_idxs, const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    auto k = Launch::of<T>(exec, kFile, csr_kernel<P, C>(true));
    const std::size_t groups = k.groups_for(rows, kMaxRowGroups);
    k.value(u64(rows)).buffer(row_ptrs.data).buffer(col_idxs.data).buffer(values.data);
    k.buffer(x.data).buffer(y.data).run(groups);
}

template <typename T>
void ell_apply(tag, const Executor& exec, std::size_t rows, std::size_t width,
               const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,
               view<T> y) {
    if (rows == 0) return;
    auto k = Launch::of<T>(exec, kFile, "ell_apply");
    const std::size_t groups = k.groups_for(rows, kMaxRowGroups);
    k.value(u64(rows)).value(u64(width)).buffer(col_idxs.data).buffer(values.data);
    k.buffer(x.data).buffer(y.data).run(groups);
}

template <typename T>
void stencil_apply(tag, const Executor& exec, int dim, std::size_t points, const_view<T> x,
                   view<T> y) {
    if (y.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "stencil_apply");
    const std::size_t groups = k.groups_for(y.size, kMaxRowGroups);
    k.value(static_cast<cl_int>(dim)).value(u64(points)).value(u64(y.size));
    k.buffer(x.data).buffer(y.data).run(groups);
}

template <typename T>
void slab_stencil_apply(tag, const Executor& exec, int dim, std::size_t points, std::size_t planes,
                        std::size_t first, std::size_t last, const T* below, const T* above,
                        const_view<T> x, view<T> y, T* dot, bool add_dot) {
    const std::size_t nx = dim >= 2 ? points : 1, ny = dim >= 3 ? points : 1;
    const std::size_t begin = first * nx * ny, end = last * nx * ny;
    if (end <= begin && !dot) return;  // with a dot: one group stores (or adds) zero
    auto k = Launch::of<T>(exec, kFile, dot ? "slab_stencil_apply_dot" : "slab_stencil_apply");
    // the dot's one-launch reduction has a partial per group: at most its scratch's
    const std::size_t groups =
        dot ? k.groups_for(end - begin) : k.groups_for(end - begin, kMaxRowGroups);
    k.value(static_cast<cl_int>(dim)).value(u64(nx)).value(u64(ny)).value(u64(planes));
    k.value(u64(begin)).value(u64(end));
    k.buffer(below).value(static_cast<cl_int>(below != nullptr));
    k.buffer(above).value(static_cast<cl_int>(above != nullptr));
    k.buffer(x.data).buffer(y.data);
    if (dot) k.one_launch_reduction().buffer(dot).value(static_cast<cl_int>(add_dot));
    k.run(groups);
}

template <typename T>
void gather(tag, const Executor& exec, const_view<std::int32_t> idx, const_view<T> x, view<T> out) {
    if (idx.size == 0) return;
    auto k = Launch::of<T>(exec, kFile, "gather");
    const std::size_t groups = k.groups_for(idx.size, kMaxRowGroups);
    k.buffer(idx.data).value(u64(idx.size)).buffer(x.data).buffer(out.data).run(groups);
}

template <typename T, typename P, typename C>
void csr_diagonal(tag, const Executor& exec, std::size_t rows, const_view<P> row_ptrs,
                  const_view<C> col_idxs, const_view<T> values, view<T> d) {
    if (rows == 0) return;
    auto k = Launch::of<T>(exec, kFile, csr_kernel<P, C>(false));
    const std::size_t groups = k.groups_for(rows, kMaxRowGroups);
    k.value(u64(rows)).buffer(row_ptrs.data).buffer(col_idxs.data).buffer(values.data);
    k.buffer(d.data).run(groups);
}

std::uint32_t csr_pattern_check(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                                const_view<std::int32_t> row_ptrs,
                                const_view<std::int32_t> col_idxs) {
    const detail::Runtime& runtime = exec.runtime();
    if (rows == 0) {
        std::int32_t first = -1;
        runtime.copy_to_host(&first, row_ptrs.data, sizeof(first));
        return first == 0 && col_idxs.size == 0 ? 0u : kCsrInvalid;
    }
    // The pattern carries no values: the float program serves (no cl_khr_fp64 needed).
    auto k = Launch::of<float>(exec, kFile, "csr_pattern_check");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    std::uint32_t flags = 0;
    write_scratch(k.device(), kScratchResults, &flags, sizeof(flags));
    const std::size_t groups = k.groups_for(rows, kMaxRowGroups);
    k.value(u64(rows)).value(u64(cols)).value(u64(col_idxs.size));
    k.buffer(row_ptrs.data).buffer(col_idxs.data).scratch(kScratchResults).run(groups);
    read_scratch(k.device(), kScratchResults, &flags, sizeof(flags));
    return flags;
}

PORTLA_INSTANTIATE_MATRIX_KERNELS(double);
PORTLA_INSTANTIATE_MATRIX_KERNELS(float);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
