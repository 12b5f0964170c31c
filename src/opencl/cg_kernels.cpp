// The CG steps of the opencl backend. Phase 1: each step runs its vector pass on the device
// (src/opencl/cg_kernels.cl, one launch and the sums' finish), then reads the state and the two
// sums back and takes the decisions of src/common/cg_step.hpp on the host, writing the state
// back: two small copies per step, where cuda keeps the decisions on the device. A fused step
// applies the operator through the matrix kernels, then the vector pass.
#include "core/kernels/cg_kernels.hpp"

#include <vector>

#include "core/kernels/matrix_kernels.hpp"
#include "core/runtime.hpp"
#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "cg_kernels.cl";

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

template <typename T>
common::CgState<T> read_state(const Executor& exec, const kernels::CgArgs<T>& a) {
    common::CgState<T> s;
    exec.runtime().copy_to_host(&s, a.state, sizeof(s));
    return s;
}

template <typename T>
void write_state(const Executor& exec, const kernels::CgArgs<T>& a, const common::CgState<T>& s) {
    exec.runtime().copy_from_host(a.state, &s, sizeof(s));
}

// step(state) unless the solve has stopped.
template <typename T, typename Step>
void unless_stopped(const Executor& exec, const kernels::CgArgs<T>& a, Step step) {
    const common::CgState<T> s = read_state(exec, a);
    if (!s.stopped) step(s);
}

template <typename T>
T* p_old(const kernels::CgArgs<T>& a, const common::CgState<T>& s) {
    return (s.iteration & 1) ? a.p1 : a.p0;
}
template <typename T>
T* p_new(const kernels::CgArgs<T>& a, const common::CgState<T>& s) {
    return (s.iteration & 1) ? a.p0 : a.p1;
}

// After a pass that left its partial sums in the scratch: their totals (s0, s1) in double.
// The caller holds the device's launch lock from the pass to here.
template <typename T>
void read_sums(const Executor& exec, Launch& pass, std::size_t groups, double& s0, double& s1) {
    Device& d = pass.device();
    Launch::of<T>(exec, kFile, "sum_partials")
        .scratch(0)
        .value(static_cast<cl_uint>(groups))
        .value(cl_uint{2})
        .scratch(kScratchResults)
        .run(1);
    const bool acc_double = std::is_same_v<T, double> || d.fp64;
    if (acc_double) {
        double sums[2];
        read_scratch(d, kScratchResults, sums, sizeof(sums));
        s0 = sums[0];
        s1 = sums[1];
    } else {
        float sums[2];
        read_scratch(d, kScratchResults, sums, sizeof(sums));
        s0 = sums[0];
        s1 = sums[1];
    }
}

// q = A v for the operator of a fused step.
template <typename T>
void apply_fused(const Executor& exec, const FusedOperator<T>& op, std::size_t n, const T* v,
                 T* out) {
    using Kind = typename FusedOperator<T>::Kind;
    const const_view<T> x(v, n);
    const view<T> y(out, n);
    if (op.kind == Kind::csr)
        csr_apply(tag{}, exec, n, const_view<std::int32_t>(op.row_ptrs, n + 1),
                  const_view<std::int32_t>(op.col_idxs, op.nnz), const_view<T>(op.values, op.nnz),
                  x, y);
    else if (op.kind == Kind::ell)
        ell_apply(tag{}, exec, n, op.width, const_view<std::int32_t>(op.col_idxs, n * op.width),
                  const_view<T>(op.values, n * op.width), x, y);
    else
        stencil_apply(tag{}, exec, op.dim, op.points, x, y);
}

// The residual pass from a given r (z, r.r, r.z) and its decision.
template <typename T>
void residual_pass(const Executor& exec, const CgArgs<T>& a, common::CgFinish mode) {
    auto k = Launch::of<T>(exec, kFile, "cg_residual");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.value(u64(a.n)).buffer(a.r).buffer(a.z).buffer(a.inv_diag);
    k.value(static_cast<cl_int>(a.inv_diag != nullptr)).scratch(0).run(groups);
    double rr = 0, rz = 0;
    read_sums<T>(exec, k, groups, rr, rz);
    common::CgState<T> s = read_state(exec, a);
    common::cg_finish_residual(&s, a.control, rr, rz, mode);
    write_state(exec, a, s);
}

// r = b - ax; [z]; r.r; [r.z] -> finish_residual(replaced)
template <typename T>
void replace_pass(const Executor& exec, const CgArgs<T>& a, const T* ax) {
    auto k = Launch::of<T>(exec, kFile, "cg_replace");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.value(u64(a.n)).buffer(a.b).buffer(ax).buffer(a.r).buffer(a.z).buffer(a.inv_diag);
    k.value(static_cast<cl_int>(a.inv_diag != nullptr)).scratch(0).run(groups);
    double rr = 0, rz = 0;
    read_sums<T>(exec, k, groups, rr, rz);
    common::CgState<T> s = read_state(exec, a);
    common::cg_finish_residual(&s, a.control, rr, rz, common::CgFinish::replaced);
    write_state(exec, a, s);
}

template <typename T>
void form_direction(const Executor& exec, const CgArgs<T>& a, const common::CgState<T>& s) {
    if (a.n == 0) return;
    auto k = Launch::of<T>(exec, kFile, "cg_form_direction");
    const std::size_t groups = k.groups_for(a.n, 65535);
    k.value(u64(a.n)).value(s.beta).buffer(a.z ? a.z : a.r).buffer(p_old(a, s));
    k.buffer(p_new(a, s)).run(groups);
}

// pq = p_new . q -> finish_direction
template <typename T>
void direction_dot(const Executor& exec, const CgArgs<T>& a, common::CgState<T> s) {
    auto k = Launch::of<T>(exec, kFile, "cg_dot");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.value(u64(a.n)).buffer(p_new(a, s)).buffer(a.q).scratch(0).run(groups);
    double pq = 0, unused = 0;
    read_sums<T>(exec, k, groups, pq, unused);
    common::cg_finish_direction(&s, a.control, pq);
    write_state(exec, a, s);
}

}  // namespace

template <typename T>
void cg_initialize(tag, const Executor& exec, const CgArgs<T>& a, common::CgFinish mode) {
    residual_pass(exec, a, mode);
}

template <typename T>
void cg_direction(tag, const Executor& exec, const CgArgs<T>& a) {
    unless_stopped(exec, a, [&](const common::CgState<T>& s) {
        form_direction(exec, a, s);
        if (a.n > 0) apply_fused(exec, a.op, a.n, p_new(a, s), a.q);
        direction_dot(exec, a, s);
    });
}

template <typename T>
void cg_form_direction(tag, const Executor& exec, const CgArgs<T>& a) {
    unless_stopped(exec, a, [&](const common::CgState<T>& s) { form_direction(exec, a, s); });
}

template <typename T>
void cg_direction_dot(tag, const Executor& exec, const CgArgs<T>& a) {
    unless_stopped(exec, a, [&](const common::CgState<T>& s) { direction_dot(exec, a, s); });
}

template <typename T>
void cg_update(tag, const Executor& exec, const CgArgs<T>& a) {
    common::CgState<T> s = read_state(exec, a);
    if (s.stopped) return;
    const bool move_r = !s.replace_now;  // a replacement recomputes r (and z): only x moves
    auto k = Launch::of<T>(exec, kFile, "cg_update");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.value(u64(a.n)).value(s.alpha).buffer(p_new(a, s)).buffer(a.q).buffer(a.x).buffer(a.r);
    k.buffer(a.z).buffer(a.inv_diag).value(static_cast<cl_int>(a.inv_diag != nullptr));
    k.value(static_cast<cl_int>(move_r)).scratch(0).run(groups);
    if (!move_r) return;
    double rr = 0, rz = 0;
    read_sums<T>(exec, k, groups, rr, rz);
    common::cg_finish_residual(&s, a.control, rr, rz, common::CgFinish::record);
    write_state(exec, a, s);
}

template <typename T>
void cg_replace(tag, const Executor& exec, const CgArgs<T>& a) {
    const common::CgState<T> s = read_state(exec, a);
    if (s.stopped || !s.replace_now) return;
    // A x row by row on cuda; here into a temporary (replacements are rare).
    const detail::Runtime& runtime = exec.runtime();
    T* ax = static_cast<T*>(runtime.allocate(a.n * sizeof(T)));
    try {
        if (a.n > 0) apply_fused(exec, a.op, a.n, a.x, ax);
        replace_pass(exec, a, ax);
    } catch (...) {
        runtime.deallocate(ax);
        throw;
    }
    runtime.deallocate(ax);
}

template <typename T>
void cg_replace_from_ax(tag, const Executor& exec, const CgArgs<T>& a) {
    const common::CgState<T> s = read_state(exec, a);
    if (s.stopped || !s.replace_now) return;
    replace_pass(exec, a, a.ax);
}

template <typename T>
void cg_finish_preconditioned(tag, const Executor& exec, const CgArgs<T>& a) {
    common::CgState<T> s = read_state(exec, a);
    if (s.pending_mode < 0) return;
    auto k = Launch::of<T>(exec, kFile, "cg_dot");
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.value(u64(a.n)).buffer(a.r).buffer(a.z).scratch(0).run(groups);
    double rz = 0, unused = 0;
    read_sums<T>(exec, k, groups, rz, unused);
    common::cg_finish_preconditioned(&s, a.control, rz);
    write_state(exec, a, s);
}

PORTLA_INSTANTIATE_CG_KERNELS(double);
PORTLA_INSTANTIATE_CG_KERNELS(float);

}  // namespace portla::kernels::opencl
