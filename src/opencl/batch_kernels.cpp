// Batch kernels of the opencl backend: launches of src/opencl/batch_kernels.cl (the solvers of
// common/batch/system_solvers.hpp in OpenCL C), one launch for the whole batch, one work-group
// per system (work-groups loop over systems when the batch is larger than one wave of them).
//
// Placement as on cuda (common/batch/placement.hpp): the device's local memory, less the
// reduction's scratch, holds what fits; the rest lives in a global workspace of one region per
// work-group. Work-group size as cuda's block size: one row per work-item, a multiple of 32,
// at most the executor's work-group size. Every sum is in double (cl_khr_fp64), as the C++.
#include "core/kernels/batch_kernels.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/batch/placement.hpp"
#include "opencl/device.hpp"
#include "portla/array.hpp"

namespace portla::kernels::opencl {
namespace {

using namespace ::portla::batch::detail;

constexpr const char* kFile = "batch_kernels.cl";

// The values batch_kernels.cl spells out.
static_assert(static_cast<int>(StopReason::converged) == 0 &&
              static_cast<int>(StopReason::max_iterations) == 1 &&
              static_cast<int>(StopReason::breakdown) == 2 &&
              static_cast<int>(StopReason::non_finite) == 3 &&
              static_cast<int>(StopReason::stagnation) == 5 &&
              static_cast<int>(StopReason::singular_preconditioner) == 6 &&
              sizeof(StopReason) == 1);
static_assert(static_cast<int>(Preconditioner::none) == 0 &&
              static_cast<int>(Preconditioner::jacobi) == 1 &&
              static_cast<int>(Preconditioner::block_jacobi) == 2 &&
              static_cast<int>(Preconditioner::ilu0) == 3);
static_assert(static_cast<int>(Format::dense) == 0 && static_cast<int>(Format::csr) == 1 &&
              static_cast<int>(Format::ell) == 2);
static_assert(kMaxBlockSize == 32 && kMaxFalseConvergence == 3);
static_assert(slot_x == 4 && slot_bi_x == 7 && slot_bi_t == 6 && slot_gm_x == 2 &&
              slot_gm_basis == 3);

/// The device, which must have cl_khr_fp64: the solvers and residuals sum in double.
Device& fp64_device(const Executor& exec) {
    Device& d = device(exec.device_id());
    if (!d.fp64)
        throw Unsupported("opencl: the batched solvers sum in double, and " + d.name +
                          " has no cl_khr_fp64");
    return d;
}

/// Work-items per work-group CPUs take at most.
constexpr std::size_t kCpuWorkGroup = 32;

/// Work-items per work-group: one row each, at most `limit`. GPUs: a multiple of 32 (cuda's
/// rule). CPUs: n, at most kCpuWorkGroup, so no work-item is idle (PoCL 3.1 miscomputed GMRES
/// with a preconditioner on ELL when some work-items had no row: x stayed 0, 2-core VM,
/// 2026-11-25). PoCL runs a work-group's work-items one after the other, so more of them add
/// no parallelism, and its CPU sums read every work-item's value in each (batch_group.cl):
/// 512 stencil3pt systems, BiCGSTAB + Jacobi, n = 144: 0.023 s against 1.22 s with 144
/// work-items; GMRES, n = 512: 0.30 s against 35 s with 256 (PoCL 3.1, 2-core VM, 2026-11-28).
/// And PoCL compiles a kernel for each work-group size it is launched with: one for every
/// n >= 32.
std::size_t work_group_for(const Device& d, std::size_t limit, int n) {
    const auto rows = static_cast<std::size_t>(std::max(n, 1));
    if (d.is_cpu) return std::min({limit, rows, kCpuWorkGroup});
    return std::max<std::size_t>(1,
                                 std::min(limit, std::max<std::size_t>(32, (rows + 31) / 32 * 32)));
}

/// Work-groups for a loop over systems: about one resident wave, at most one per system. CPUs:
/// the reductions' count (4 per compute unit). GPUs: per compute unit 32 work-groups, or as many
/// as 2048 work-items allow (cuda's occupancy bound; the reductions' 8 per compute unit left the
/// H100 a quarter full with work-groups of 32: 3.1x cuda's time on PeleLM drm19, 2.4x now).
std::size_t groups_for(const Launch& k, int systems, std::size_t wg) {
    const Device& d = k.device();
    const std::size_t per_unit =
        std::clamp<std::size_t>(2048 / std::max<std::size_t>(wg, 1), 1, 32);
    const std::size_t wave =
        d.is_cpu ? d.reduction_groups
                 : per_unit * static_cast<std::size_t>(std::max(d.compute_units, 1));
    return std::max<std::size_t>(1, std::min(wave, static_cast<std::size_t>(systems)));
}

cl_int i32(int v) { return static_cast<cl_int>(v); }

/// batch_kernels.cl's BATCH_PLACE values
enum class Place { mixed = 0, local = 1, global = 2 };

/// The program's build-time choices: the format, the preconditioner and the placement
/// (batch_kernels.cl says why; the kernels that take no preconditioner share the program of
/// none, and the residual and product kernels are built mixed).
std::string defines(Format f, Preconditioner p = Preconditioner::none, Place place = Place::mixed) {
    std::string d = "-DBATCH_FORMAT=" + std::to_string(static_cast<int>(f)) +
                    " -DBATCH_PRECOND=" + std::to_string(static_cast<int>(p));
    if (place != Place::mixed) d += " -DBATCH_PLACE=" + std::to_string(static_cast<int>(place));
    return d;
}

/// Which program serves layout `lay`: local when every item the solver uses is in local memory
/// and b fits there too (`capacity` elements), global when nothing is, else mixed.
Place place_of(const Layout& lay, Solver S, Preconditioner precond, long long capacity, int n) {
    if (lay.shared_elems == 0) return Place::global;
    bool all = lay.shared[item_precond(lay.slots)] && lay.shared[item_scalars(lay.slots)] &&
               lay.shared[item_matrix(lay.slots)];
    for (int k = 0; k < lay.slots; ++k) all = all && (unused_slot(S, precond, k) || lay.shared[k]);
    return all && capacity - lay.shared_elems >= n ? Place::local : Place::mixed;
}

/// The batch's matrix (PORTLA_BATCH_PARAMS).
template <typename T>
Launch& matrix_args(Launch& k, const BatchArgs<T>& a) {
    k.value(i32(a.num_systems)).value(i32(a.n)).value(i32(a.width));
    k.value(static_cast<cl_long>(a.stored));
    return k.buffer(a.row_ptrs).buffer(a.col_idxs).buffer(a.values);
}

const char* kernel_of(Solver S) {
    switch (S) {
        case Solver::cg:
            return "batch_cg";
        case Solver::bicgstab:
            return "batch_bicgstab";
        case Solver::gmres:
            break;
        default:  // the monolithic solvers, refused by batch::solve
            throw Unsupported("batch_solve: " + to_string(S) + " is not a batched solver");
    }
    return "batch_gmres";
}

}  // namespace

template <typename T>
void batch_solve(tag, const Executor& exec, const BatchArgs<T>& a, Timer& timer,
                 batch::LaunchInfo& info) {
    info = {};
    const Solver S = a.options.solver;
    const char* kernel = kernel_of(S);
    if (a.num_systems == 0 || a.n == 0) {
        timer.start();  // nothing to time, but seconds() stays valid
        timer.stop();
        return;
    }
    Device& d = fp64_device(exec);
    // The placement picks the program, so it is planned before the program's own work-group
    // limit is known: with the executor's size (capped by the device), which the kernel's
    // limit can only lower, leaving more local memory than planned for.
    const std::size_t planned_wg = work_group_for(
        d, std::min<std::size_t>(exec.launch().work_group_size, d.max_work_group), a.n);
    const long long capacity =
        d.local_memory > 2 * planned_wg * sizeof(double)
            ? static_cast<long long>((d.local_memory - 2 * planned_wg * sizeof(double)) / sizeof(T))
            : 0;
    const Layout lay = plan(a, S, capacity);
    const Place where = place_of(lay, S, a.options.precond, capacity, a.n);
    auto k = Launch::of<T>(exec, kFile, kernel, defines(a.format, a.options.precond, where));
    const std::size_t wg = work_group_for(d, k.work_group_size(), a.n);
    const std::size_t scratch_bytes = 2 * wg * sizeof(double);  // group_total2
    // GPUs with no global workspace: a work-group per system, so the device's own scheduler
    // balances them (a resident wave that loops over the systems ran its last round on part of
    // the device: PeleLM drm19, 2^17 systems, H100, 2026-11-25: 1.10 ms with 4224 work-groups,
    // 0.71 ms with one per system; cuda 0.63 ms).
    const std::size_t groups = !d.is_cpu && lay.global_elems == 0
                                   ? static_cast<std::size_t>(a.num_systems)
                                   : groups_for(k, a.num_systems, wg);
    // batch_kernels.cl's Work::place: an offset in local memory, or -1 - one in the region (an
    // item of no elements counts as in the region under `global`)
    std::vector<cl_long> place(static_cast<std::size_t>(item_matrix(lay.slots)) + 1);
    for (std::size_t i = 0; i < place.size(); ++i)
        place[i] = where == Place::global ? -1 - (lay.shared[i] ? 0 : lay.offset[i])
                   : lay.shared[i]        ? lay.offset[i]
                                          : -1 - lay.offset[i];
    const long long b_place = where == Place::local ? lay.shared_elems : -1;
    const Array<cl_long> place_on_device(exec, place);
    Array<T> workspace(exec, groups * static_cast<std::size_t>(lay.global_elems));

    const Options& o = a.options;
    const IluPattern& ilu = a.ilu;
    matrix_args(k, a).buffer(a.b).buffer(a.x);
    k.value(i32(o.relative)).value(o.tolerance);
    k.value(i32(o.max_iters)).value(i32(o.restart)).value(i32(o.block_size));
    k.value(i32(o.use_initial_guess));
    k.buffer(ilu.diag).buffer(ilu.lower_level_ptrs).buffer(ilu.lower_rows);
    k.value(i32(ilu.lower_levels)).buffer(ilu.upper_level_ptrs).buffer(ilu.upper_rows);
    k.value(i32(ilu.upper_levels)).buffer(a.iterations).buffer(a.reasons);
    k.buffer(place_on_device.data()).value(i32(lay.slots));
    k.value(static_cast<cl_long>(lay.global_elems)).value(static_cast<cl_long>(b_place));
    k.buffer(workspace.data());
    const std::size_t local_bytes =
        static_cast<std::size_t>(lay.shared_elems + (b_place >= 0 ? a.n : 0)) * sizeof(T);
    k.local(local_bytes).local(scratch_bytes);
    timer.start();
    k.run(groups, wg);
    timer.stop();
    info.block_size = static_cast<int>(wg);
    info.grid_size = static_cast<int>(groups);
    info.shared_bytes = local_bytes + scratch_bytes;
    describe(lay, S, o.precond, info);
}

template <typename T>
void batch_residual_norms(tag, const Executor& exec, const BatchArgs<T>& a, double* res,
                          double* bnorm) {
    if (a.num_systems == 0) return;
    fp64_device(exec);
    auto k = Launch::of<T>(exec, kFile, "batch_residual_norms", defines(a.format));
    const std::size_t wg = work_group_for(k.device(), k.work_group_size(), a.n);
    const std::size_t groups = groups_for(k, a.num_systems, wg);
    matrix_args(k, a).buffer(a.b).buffer(a.x).buffer(res).buffer(bnorm);
    k.local(wg * sizeof(double)).run(groups, wg);
}

template <typename T>
void batch_apply(tag, const Executor& exec, const BatchArgs<T>& a, const T* x, T* y) {
    if (a.num_systems == 0) return;
    auto k = Launch::of<T>(exec, kFile, "batch_apply", defines(a.format));
    const std::size_t wg = work_group_for(k.device(), k.work_group_size(), a.n);
    const std::size_t groups = groups_for(k, a.num_systems, wg);
    matrix_args(k, a).buffer(x).buffer(y).run(groups, wg);
}

PORTLA_INSTANTIATE_BATCH_KERNELS(double);
PORTLA_INSTANTIATE_BATCH_KERNELS(float);

}  // namespace portla::kernels::opencl
