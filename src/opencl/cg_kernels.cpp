// The CG steps of the opencl backend, with their decisions on the device: each step is two
// launches, its pass (src/opencl/cg_kernels.cl: the vector work and partial sums, returning at
// once where the state says the step does not run) and cg_finish (the sums, then the decisions
// of src/common/cg_step.hpp, which the program is built with). Nothing is read back: the host
// reads the state once per replay, as on cuda. The state's doubles need cl_khr_fp64, in float
// too.
#include "core/kernels/cg_kernels.hpp"

#include <complex>
#include <cstddef>
#include <type_traits>

#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "cg_kernels.cl";

// CgState is laid out on the device by OpenCL C's rules: C's order and padding, each type
// aligned to its size. The host's layout is the same where its alignments are the sizes too.
template <typename T>
constexpr bool device_layout() {
    using State = common::CgState<T>;
    return std::is_standard_layout_v<State> && alignof(T) == sizeof(T) &&
           alignof(double) == sizeof(double) && alignof(int) == sizeof(int);
}
static_assert(device_layout<float>() && device_layout<double>());

// cg_kernels.cl's STEP_*
enum class Step : int { initialize, direction, update, replace, preconditioned };

cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }
cl_int flag(bool v) { return v ? 1 : 0; }

template <typename T>
Launch pass(const Executor& exec, const CgArgs<T>& a, const char* kernel) {
    auto k = Launch::of<T>(exec, kFile, kernel);
    if (!k.device().fp64)
        throw Unsupported("opencl: the CG steps keep their state in double, and " +
                          k.device().name + " has no cl_khr_fp64");
    k.buffer(a.state).value(u64(a.n));
    return k;
}

// The fused operator's arguments (PORTLA_OPERATOR): its OP_* kind (CSR by index form).
template <typename T>
void operator_args(Launch& k, const FusedOperator<T>& op) {
    using Kind = typename FusedOperator<T>::Kind;
    const bool csr = op.kind == Kind::csr;
    const cl_int kind = !csr                              ? (op.kind == Kind::ell ? 3 : 1)
                        : op.index == CsrIndex::offsets64 ? 4
                        : op.index == CsrIndex::int64     ? 5
                                                          : 2;
    k.value(kind).value(static_cast<cl_int>(op.dim)).value(u64(op.points)).value(u64(op.width));
    if (kind == 4 || kind == 5)
        k.buffer(op.row_ptrs64)
            .buffer(kind == 5 ? static_cast<const void*>(op.col_idxs64)
                              : static_cast<const void*>(op.col_idxs));
    else
        k.buffer(op.row_ptrs).buffer(op.col_idxs);
    k.buffer(op.values);
}

// The pass `k` (its arguments set up to the partials) and its finish, under the device's
// launch lock (the partials live in its scratch).
template <typename T>
void reduce_and_decide(const Executor& exec, const CgArgs<T>& a, Launch k, Step step,
                       common::CgFinish mode = common::CgFinish::record) {
    std::lock_guard<std::recursive_mutex> lock(k.device().launch_mutex);
    const std::size_t groups = k.groups_for(a.n);
    k.scratch(0).run(groups);
    const common::CgControl& c = a.control;
    Launch::of<T>(exec, kFile, "cg_finish")
        .buffer(a.state)
        .value(static_cast<cl_uint>(groups))
        .scratch(0)
        .value(static_cast<cl_int>(step))
        .value(static_cast<cl_int>(mode))
        .value(c.threshold)
        .value(static_cast<cl_int>(c.max_iters))
        .value(static_cast<cl_int>(c.replacement))
        .value(flag(c.preconditioned))
        .value(flag(c.deferred))
        .value(flag(c.distributed))
        .value(flag(c.indefinite_stops))
        .run(1);
}

template <typename T>
void form_direction(const Executor& exec, const CgArgs<T>& a) {
    auto k = pass(exec, a, "cg_form_direction");
    k.buffer(a.z ? a.z : a.r).buffer(a.p0).buffer(a.p1).run(k.elementwise_groups(a.n));
}

template <typename T>
void direction_dot(const Executor& exec, const CgArgs<T>& a) {
    auto k = pass(exec, a, "cg_direction_dot");
    k.buffer(a.p0).buffer(a.p1).buffer(a.q).buffer(a.pq).value(flag(a.pq != nullptr));
    reduce_and_decide(exec, a, std::move(k), Step::direction);
}

// r = b - (ax, or A x row by row); [z]; r.r; [r.z] -> finish_residual(replaced)
template <typename T>
void replace(const Executor& exec, const CgArgs<T>& a, const T* ax) {
    auto k = pass(exec, a, "cg_replace");
    operator_args(k, a.op);
    k.buffer(a.b).buffer(ax).value(flag(ax != nullptr)).buffer(a.x).buffer(a.r).buffer(a.z);
    k.buffer(a.inv_diag).value(flag(a.inv_diag != nullptr));
    reduce_and_decide(exec, a, std::move(k), Step::replace, common::CgFinish::replaced);
}

}  // namespace

template <typename T>
void cg_initialize(tag, const Executor& exec, const CgArgs<T>& a, common::CgFinish mode) {
    auto k = pass(exec, a, "cg_residual");
    k.buffer(a.r).buffer(a.z).buffer(a.inv_diag).value(flag(a.inv_diag != nullptr));
    reduce_and_decide(exec, a, std::move(k), Step::initialize, mode);
}

template <typename T>
void cg_direction(tag, const Executor& exec, const CgArgs<T>& a) {
    using Kind = typename FusedOperator<T>::Kind;
    if (a.op.kind == Kind::stencil) {  // one pass: p_new at every point read, q, p_new . q
        auto k = pass(exec, a, "cg_stencil_direction");
        k.value(static_cast<cl_int>(a.op.dim)).value(u64(a.op.points));
        k.buffer(a.z ? a.z : a.r).buffer(a.p0).buffer(a.p1).buffer(a.q);
        reduce_and_decide(exec, a, std::move(k), Step::direction);
        return;
    }
    form_direction(exec, a);
    auto k = pass(exec, a, "cg_apply");  // q = A p_new
    operator_args(k, a.op);
    k.buffer(a.p0).buffer(a.p1).buffer(a.q).run(k.elementwise_groups(a.n));
    direction_dot(exec, a);
}

template <typename T>
void cg_form_direction(tag, const Executor& exec, const CgArgs<T>& a) {
    form_direction(exec, a);
}

template <typename T>
void cg_direction_dot(tag, const Executor& exec, const CgArgs<T>& a) {
    direction_dot(exec, a);
}

template <typename T>
void cg_update(tag, const Executor& exec, const CgArgs<T>& a) {
    auto k = pass(exec, a, "cg_update");
    k.buffer(a.p0).buffer(a.p1).buffer(a.q).buffer(a.x).buffer(a.r).buffer(a.z);
    k.buffer(a.inv_diag).value(flag(a.inv_diag != nullptr));
    reduce_and_decide(exec, a, std::move(k), Step::update);
}

template <typename T>
void cg_replace(tag, const Executor& exec, const CgArgs<T>& a) {
    replace<T>(exec, a, nullptr);
}

template <typename T>
void cg_replace_from_ax(tag, const Executor& exec, const CgArgs<T>& a) {
    replace<T>(exec, a, a.ax);
}

template <typename T>
void cg_finish_preconditioned(tag, const Executor& exec, const CgArgs<T>& a) {
    auto k = pass(exec, a, "cg_rz");
    k.buffer(a.r).buffer(a.z);
    reduce_and_decide(exec, a, std::move(k), Step::preconditioned);
}

// No whole-iteration path yet (cuda runs small systems in one block): the steps are taken.
template <typename T>
bool cg_iterations(tag, const Executor&, const CgArgs<T>&, int) {
    return false;
}

PORTLA_INSTANTIATE_CG_KERNELS(double);
PORTLA_INSTANTIATE_CG_KERNELS(float);
PORTLA_INSTANTIATE_CG_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_CG_KERNELS(std::complex<float>);

}  // namespace portla::kernels::opencl
