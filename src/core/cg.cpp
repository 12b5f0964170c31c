// The conjugate gradient method, written once for every backend and operator: a sequence of
// steps (core/kernels/cg_kernels.hpp) over scalars that stay in the executor's memory, whose
// decisions are src/common/cg_step.hpp's. The host reads the state back every `batch`
// iterations: 16 for operators the steps read directly (stencil, CSR; Settings::device_loop),
// replayed as a captured graph where the runtime has graphs (cuda); every iteration for other
// operators, or with device_loop off, where the operator's apply() runs between the steps. The host
// records the residual norms (history, monitor) in order and confirms a claimed convergence with
// the true residual, resuming from it when it does not hold. Jacobi is applied inside the steps;
// any other preconditioner M runs between them (z = M^-1 r, then cg_finish_preconditioned), read
// back every iteration.
//
// A distributed operator (LinearOperator::communicator(), more than one rank) takes the path of
// other operators (apply() between the steps, state read every iteration) with
// CgControl::distributed: each step leaves its rank's sums in the state, and reduce_over_ranks()
// sums them over the ranks and takes the step's decisions on the host between the steps. Where
// the operator sums p.q while it applies (LinearOperator::apply_and_dot: the distributed
// stencil), the direction's dot step reads that value instead of a pass over p and q.
#include "portla/solver/cg.hpp"

#include <complex>
#include <memory>

#include "common/cg_step.hpp"
#include "common/scalar.hpp"
#include "core/dispatch_values.hpp"
#include "core/kernels/cg_kernels.hpp"
#include "core/runtime.hpp"
#include "core/solver_common.hpp"
#include "portla/dist/communicator.hpp"

namespace portla::solver {
namespace {

template <typename T>
class CgSolve {
    using R = common::real_t<T>;  // the state's scalars: real for complex values too

public:
    CgSolve(const LinearOperator<T>& A, const_view<T> b, view<T> x, view<T> r,
            const Array<T>& inv_diag, const PreconditionerOperator<T>* M, const Settings& settings,
            double threshold)
        : A_(A),
          M_(M),
          exec_(A.executor()),
          comm_(dist::is_distributed(A.communicator()) ? A.communicator() : nullptr),
          n_(A.rows()),
          fused_(settings.device_loop && !comm_ && A.fused().kind != FusedOperator<T>::Kind::none),
          // Iterates handed out per iteration need the state read back per iteration.
          batch_(fused_ && !M && !settings.iterate_monitor ? common::kCgHistory : 1),
          p_(exec_, 2 * n_),
          q_(exec_, n_),
          z_(exec_, inv_diag.empty() && !M ? 0 : n_),
          ax_(exec_, !fused_ && settings.residual_replacement > 0 ? n_ : 0),
          pq_(exec_, fused_ ? 0 : 1),
          state_(exec_, 1) {
        common::CgState<R> initial{};
        initial.pending_mode = -1;
        state_.copy_from_host({initial});
        // p_old of the first iteration is multiplied by beta = 0: zero, never garbage (0 * NaN).
        blas::fill<T>(exec_, p_.get_view(), T{0});

        args_.state = state_.data();
        args_.control.threshold = threshold;
        args_.control.max_iters = settings.max_iters;
        args_.control.replacement = settings.residual_replacement;
        args_.control.preconditioned = !inv_diag.empty() || M;
        args_.control.deferred = M != nullptr;
        args_.control.distributed = comm_ != nullptr;
        args_.control.indefinite_stops = settings.cg_indefinite_stops;
        args_.n = n_;
        args_.b = b.data;
        args_.x = x.data;
        args_.r = r.data;
        args_.z = z_.empty() ? nullptr : z_.data();
        args_.inv_diag = inv_diag.empty() ? nullptr : inv_diag.data();
        args_.p0 = p_.data();
        args_.p1 = p_.data() + n_;
        args_.q = q_.data();
        args_.ax = fused_ ? nullptr : ax_.data();
        args_.op = A.fused();
        // z = M^-1 r; rho = r . z; beta = 0
        initialize(common::CgFinish::initial);
    }

    // From the true residual in r after a false convergence: z, rho, and the stop cleared.
    void resume() { initialize(common::CgFinish::resume); }

    // Runs up to `batch_` iterations (fewer when the solve stops) and reads the state back.
    const common::CgState<R>& run_batch() {
        if (batch_ > 1) {
            if (!whole_iterations()) {
                if (!graph_)
                    graph_ = exec_.runtime().capture([this] {
                        for (int k = 0; k < batch_; ++k) iterate(false);
                    });
                graph_->launch();
            }
        } else {
            iterate(common::replace_at(args_.control.replacement, host_.iteration + 1));
        }
        Executor::copy_bytes(Executor::reference(), &host_, exec_, state_.data(), sizeof(host_));
        return host_;
    }

private:
    // The `batch_` iterations in one launch, where the backend has that path for this system
    // (cuda: one thread block for small systems, no residual replacement).
    bool whole_iterations() {
        if (args_.control.replacement > 0) return false;
        bool done = false;
        dispatch_values<T>(
            exec_, [&](auto backend) { done = cg_iterations(backend, exec_, args_, batch_); });
        return done;
    }

    void initialize(common::CgFinish mode) {
        dispatch_values<T>(exec_, [&](auto backend) {
            cg_initialize(backend, exec_, args_, mode);
            reduce_over_ranks();
            precondition(backend);
        });
    }

    // Distributed: the sums the last step left in the state, summed over the ranks; then the
    // step's decision (common/cg_step.hpp), taken alike on every rank, and the state put back.
    void reduce_over_ranks() {
        if (!comm_) return;
        common::CgState<R> s;
        Executor::copy_bytes(Executor::reference(), &s, exec_, state_.data(), sizeof(s));
        const auto step = static_cast<common::CgLocal>(s.local_step);
        if (step == common::CgLocal::none) return;
        comm_->allreduce_sum(s.local_sums, 2);
        common::CgControl control = args_.control;
        control.distributed = false;
        s.local_step = static_cast<int>(common::CgLocal::none);
        if (step == common::CgLocal::direction)
            common::cg_finish_direction(&s, control, s.local_sums[0]);
        else if (step == common::CgLocal::residual)
            common::cg_finish_residual(&s, control, s.local_sums[0], s.local_sums[1],
                                       static_cast<common::CgFinish>(s.local_mode));
        else
            common::cg_finish_preconditioned(&s, control, s.local_sums[0]);
        Executor::copy_bytes(exec_, state_.data(), Executor::reference(), &s, sizeof(s));
    }

    // Deferred preconditioning: z = M^-1 r, then r.z completes the residual's decisions.
    template <typename Backend>
    void precondition(Backend backend) {
        if (!M_) return;
        M_->apply(const_view<T>(args_.r, n_), view<T>(args_.z, n_));
        cg_finish_preconditioned(backend, exec_, args_);
        reduce_over_ranks();
    }

    // One iteration. With an operator the steps cannot read, apply() runs between them and the
    // host decides the replacement (batch 1: it knows the iteration).
    void iterate(bool replace) {
        dispatch_values<T>(exec_, [&](auto backend) {
            if (fused_) {
                cg_direction(backend, exec_, args_);  // p = z + beta p; q = A p; p.q
                cg_update(backend, exec_, args_);     // x += alpha p; r -= alpha q; ...
                if (args_.control.replacement > 0)
                    cg_replace(backend, exec_, args_);  // r = b - A x, when due
                precondition(backend);                  // z = M^-1 r; r.z (batch 1)
                return;
            }
            cg_form_direction(backend, exec_, args_);  // p = z + beta p
            const bool odd = host_.iteration & 1;
            // q = A p, and p.q in the same pass where the operator has one
            args_.pq = A_.apply_and_dot(const_view<T>(odd ? args_.p0 : args_.p1, n_),
                                        view<T>(args_.q, n_), pq_.get_view())
                           ? pq_.data()
                           : nullptr;
            cg_direction_dot(backend, exec_, args_);  // p.q (or the operator's) -> alpha
            reduce_over_ranks();
            cg_update(backend, exec_, args_);
            reduce_over_ranks();
            if (replace) {
                A_.apply(const_view<T>(args_.x, n_), view<T>(args_.ax, n_));
                cg_replace_from_ax(backend, exec_, args_);  // r = b - A x
                reduce_over_ranks();
            }
            precondition(backend);  // z = M^-1 r; r.z
        });
    }

    const LinearOperator<T>& A_;
    const PreconditionerOperator<T>* M_;
    Executor exec_;
    const dist::Communicator* comm_;  ///< nullptr unless distributed over several ranks
    std::size_t n_;
    bool fused_;
    int batch_;
    Array<T> p_, q_, z_, ax_, pq_;
    Array<common::CgState<R>> state_;
    common::CgState<R> host_{};
    kernels::CgArgs<T> args_;
    std::unique_ptr<portla::detail::Graph> graph_;
};

// The caller's preconditioner M, or (M null) the one settings.precond names: Jacobi runs inside
// the steps (one pass with the update), any other between them.
template <typename T>
Result solve(const LinearOperator<T>& A, const PreconditionerOperator<T>* M, const_view<T> b,
             view<T> x, const Settings& settings) {
    Result result;
    const double bnorm = detail::check_inputs("cg", A, b, x, settings, M);
    const auto& exec = A.executor();
    const Array<T> none(exec, 0);
    std::unique_ptr<PreconditionerOperator<T>> built;
    if (!M) M = (built = detail::preconditioner("cg", A, settings)).get();
    // Jacobi, built here or the caller's, runs inside the steps as its inverse diagonal.
    const auto* diagonal = dynamic_cast<const Jacobi<T>*>(M);
    const Array<T>& inv_diag = diagonal ? diagonal->inverse_diagonal() : none;
    if (diagonal) M = nullptr;
    if (M && !M->symmetric())
        throw BadInput("cg: the " + M->name() +
                       " preconditioner is not symmetric, which CG needs (use ic0 for symmetric "
                       "matrices, or gmres / bicgstab)");
    detail::start<T>(A, x, settings);
    Array<T> r(exec, A.rows());
    detail::Progress progress(settings, bnorm, result);

    detail::initial_residual<T>(A, b, x, r, settings);  // r = b - A x
    const double rnorm0 = detail::norm2<T>(A, r);
    if (progress.record(0, rnorm0) || settings.max_iters == 0) {
        progress.final_residual(rnorm0);  // x is the initial one
    } else {
        CgSolve<T> solve(A, b, x, r, inv_diag, M, settings, progress.threshold());
        int recorded = 0;
        for (;;) {
            const auto& state = solve.run_batch();
            // batch 1 with an iterate monitor: x holds this iteration's iterate.
            if (settings.iterate_monitor && state.iteration > recorded)
                settings.iterate_monitor(state.iteration);
            for (int it = recorded + 1; it <= state.iteration; ++it)
                progress.record(it, state.history[it % common::kCgHistory]);
            recorded = state.iteration;
            if (!state.stopped) continue;
            const auto reason = static_cast<StopReason>(state.reason);
            if (reason == StopReason::converged) {
                detail::residual<T>(A, b, x, r);  // confirm with the true residual r = b - A x
                if (progress.confirm(detail::norm2<T>(A, r))) break;
                solve.resume();  // go on from the true residual
                continue;
            }
            // record() already stopped on a non-finite norm; the iteration limit is the default.
            if (reason != StopReason::max_iterations) progress.stop(reason);
            break;
        }
    }
    detail::finish<T>(A, b, x, r, result, progress);
    detail::blame_unstable_preconditioner(A, M, result);
    return result;
}

}  // namespace

PORTLA_SOLVER_ENTRY_POINTS(cg);
PORTLA_COMPLEX_SOLVER_ENTRY_POINTS(cg);

}  // namespace portla::solver
