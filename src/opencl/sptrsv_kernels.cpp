// Sparse triangular solves of the opencl backend, level-scheduled (src/opencl/sptrsv_kernels.cl).
// No vendor library: vendor_sptrsv* throw Unsupported.
//
// Launches. A level of more rows than one work-group holds gets a launch of its own over as
// many work-groups as it needs (sptrsv_level); a run of consecutive levels that each fit in one
// work-group is ONE launch of one work-group (sptrsv_levels), which walks them in order with a
// global-memory barrier between two levels. Such a level would run on one work-group anyway, so
// no parallelism is lost, and the launches fall from the number of levels to the number of wide
// levels plus the runs between them: a 64 x 64 Poisson grid in natural order has 127 levels of
// at most 64 rows, so each factor is one launch. Not a sync-free solve across work-groups as on
// cuda: OpenCL promises no forward progress between work-groups, nor (1.2) acquire/release
// atomics, and PoCL runs the work-items of a group one after the other between barriers, so a
// work-item spinning on another would hang.
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/kernels/sptrsv_kernels.hpp"
#include "opencl/device.hpp"
#include "portla/error.hpp"

namespace portla::kernels::opencl {
namespace {

// Levels [first, last): one wide level (many work-groups) or a run of narrow ones (one group).
struct Step {
    std::size_t first, last;
    bool wide;
};

struct LevelPlan : SptrsvPlan {
    Array<std::int32_t> level_ptrs;  // a copy of TriangularMatrix::level_ptrs on the device
    std::vector<Step> steps;
};

}  // namespace

template <typename T>
std::unique_ptr<SptrsvPlan> sptrsv_analysis(tag, const Executor& exec,
                                            const TriangularMatrix<T>& a) {
    auto plan = std::make_unique<LevelPlan>();
    const std::size_t levels = a.levels();
    if (a.rows == 0 || levels == 0) return plan;
    plan->level_ptrs = Array<std::int32_t>(
        exec, std::vector<std::int32_t>(a.level_ptrs.data, a.level_ptrs.data + levels + 1));
    // The work-group size the launches will have (Launch caps it at the device's maximum).
    const auto wg = std::min(static_cast<std::size_t>(exec.launch().work_group_size),
                             device(exec.device_id()).max_work_group);
    for (std::size_t l = 0; l < levels; ++l) {
        const auto rows = static_cast<std::size_t>(a.level_ptrs[l + 1] - a.level_ptrs[l]);
        if (rows > wg)
            plan->steps.push_back({l, l + 1, true});
        else if (!plan->steps.empty() && !plan->steps.back().wide)
            plan->steps.back().last = l + 1;
        else
            plan->steps.push_back({l, l + 1, false});
    }
    return plan;
}

template <typename T>
void sptrsv(tag, const Executor& exec, const TriangularMatrix<T>& a, SptrsvPlan* plan_base,
            const_view<T> b, view<T> x) {
    if (a.rows == 0) return;
    const auto& plan = static_cast<const LevelPlan&>(*plan_base);  // made by sptrsv_analysis
    for (const Step& s : plan.steps) {
        auto k =
            Launch::of<T>(exec, "sptrsv_kernels.cl", s.wide ? "sptrsv_level" : "sptrsv_levels");
        std::size_t groups = 1;
        if (s.wide) {
            const auto begin = static_cast<std::size_t>(a.level_ptrs[s.first]);
            const auto end = static_cast<std::size_t>(a.level_ptrs[s.last]);
            groups = k.groups_for(end - begin, 65535);
            k.value(static_cast<cl_ulong>(begin)).value(static_cast<cl_ulong>(end));
        } else {
            k.value(static_cast<cl_uint>(s.first)).value(static_cast<cl_uint>(s.last));
            k.buffer(plan.level_ptrs.data());
        }
        k.value(static_cast<cl_int>(a.lower)).value(static_cast<cl_int>(a.unit_diagonal));
        k.buffer(a.row_ptrs.data).buffer(a.col_idxs.data).buffer(a.values.data);
        k.buffer(a.level_rows.data).buffer(b.data).buffer(x.data).run(groups);
    }
}

#include "core/kernels/no_vendor_sptrsv.inc"

PORTLA_INSTANTIATE_SPTRSV_KERNELS(double);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(float);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_SPTRSV_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
