// The CG steps of core/kernels/cg_kernels.hpp for the CPU backends, written once over a loop
// policy: `Policy::for_each(n, f)` calls f(i) for every i < n, `Policy::sum(n, f, s0, s1)` calls
// f(i, s0, s1) accumulating two sums in double (reference: in order; omp: over threads). For
// complex values the sums are Re(r^H r), Re(r^H z), Re(p^H q) (common::re_dot): real for the
// Hermitian A and M that CG needs. The
// decisions are src/common/cg_step.hpp's, as on cuda. A fused step on the CPU is two passes (the
// direction is formed before the operator reads it at neighbouring rows).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cg_step.hpp"
#include "common/csr_pattern.hpp"
#include "common/row_work.hpp"
#include "common/scalar.hpp"
#include "common/stencil_row.hpp"
#include "core/kernels/cg_kernels.hpp"

namespace portla::host {

template <typename Policy, typename T>
struct HostCgSteps {
    using Args = kernels::CgArgs<T>;

    static T* p_old(const Args& a) { return (a.state->iteration & 1) ? a.p1 : a.p0; }
    static T* p_new(const Args& a) { return (a.state->iteration & 1) ? a.p0 : a.p1; }

    // (A v)_i of a CSR matrix with row offsets P and column indices C.
    template <typename P, typename C>
    static auto csr_row(const P* ptrs, const C* cols, const T* vals) {
        return [=](std::size_t i, const T* v) {
            T acc = T(0);
            for (std::int64_t k = ptrs[i]; k < ptrs[i + 1]; ++k) acc += vals[k] * v[cols[k]];
            return acc;
        };
    }

    // f(row, work), row(i, v) = (A v)_i for the operator of a fused step, chosen once per step:
    // no test of the operator's kind or CSR index form inside the loops over rows; work: how the
    // rows divide a loop's work (common/row_work.hpp: CSR by entries, the others evenly).
    template <typename F>
    static void with_row(const FusedOperator<T>& op, std::size_t n, F&& f) {
        using Kind = typename FusedOperator<T>::Kind;
        if (op.kind == Kind::csr) {
            switch (op.index) {
                case CsrIndex::offsets64:
                    return f(csr_row(op.row_ptrs64, op.col_idxs, op.values),
                             common::csr_row_work(op.row_ptrs64));
                case CsrIndex::int64:
                    return f(csr_row(op.row_ptrs64, op.col_idxs64, op.values),
                             common::csr_row_work(op.row_ptrs64));
                default:
                    return f(csr_row(op.row_ptrs, op.col_idxs, op.values),
                             common::csr_row_work(op.row_ptrs));
            }
        }
        if (op.kind == Kind::ell)
            return f(
                [&op, n](std::size_t i, const T* v) {
                    return common::ell_row<T>(
                        i, n, op.width, [&op](std::size_t e) { return op.col_idxs[e]; },
                        [&op](std::size_t e) { return op.values[e]; },
                        [v](std::size_t j) { return v[j]; });
                },
                common::EvenRows{});
        f(
            [&op](std::size_t i, const T* v) {
                return common::stencil_row<std::size_t>(
                    op.dim, op.points, i, [v](std::size_t j) { return v[j]; }, v[i]);
            },
            common::EvenRows{});
    }

    // r_i given: z_i and the contributions to rr and rz.
    static void store_z(const Args& a, std::size_t i, T ri, double& rr, double& rz) {
        rr += common::re_dot(ri, ri);
        if (a.inv_diag) {
            const T zi = a.inv_diag[i] * ri;
            a.z[i] = zi;
            rz += common::re_dot(ri, zi);
        }
    }

    static void initialize(const Args& a, common::CgFinish mode) {
        double rr = 0, rz = 0;
        Policy::sum(
            a.n, [&](std::size_t i, double& s0, double& s1) { store_z(a, i, a.r[i], s0, s1); }, rr,
            rz);
        common::cg_finish_residual(a.state, a.control, rr, rz, mode);
    }

    static void form_direction(const Args& a) {
        if (a.state->stopped) return;
        const T* z = a.z ? a.z : a.r;
        const T* old = p_old(a);
        T* fresh = p_new(a);
        const T beta = T(a.state->beta);
        Policy::for_each(a.n, [&](std::size_t i) { fresh[i] = beta * old[i] + z[i]; });
    }

    static void direction_dot(const Args& a) {
        if (a.state->stopped) return;
        if (a.pq)
            return common::cg_finish_direction(a.state, a.control,
                                               double(common::real_part(*a.pq)));
        const T* p = p_new(a);
        double pq = 0, unused = 0;
        Policy::sum(
            a.n, [&](std::size_t i, double& s0, double&) { s0 += common::re_dot(p[i], a.q[i]); },
            pq, unused);
        common::cg_finish_direction(a.state, a.control, pq);
    }

    static void direction(const Args& a) {
        if (a.state->stopped) return;
        form_direction(a);
        const T* p = p_new(a);
        double pq = 0, unused = 0;
        with_row(a.op, a.n, [&](const auto& row, const auto& work) {
            Policy::sum_by(
                a.n, work,
                [&](std::size_t i, double& s0, double&) {
                    const T qi = row(i, p);
                    a.q[i] = qi;
                    s0 += common::re_dot(p[i], qi);
                },
                pq, unused);
        });
        common::cg_finish_direction(a.state, a.control, pq);
    }

    static void update(const Args& a) {
        if (a.state->stopped) return;
        const T alpha = T(a.state->alpha);
        const T* p = p_new(a);
        if (a.state->replace_now) {  // the replacement recomputes r (and z): only x moves
            Policy::for_each(a.n, [&](std::size_t i) { a.x[i] += alpha * p[i]; });
            return;
        }
        double rr = 0, rz = 0;
        Policy::sum(
            a.n,
            [&](std::size_t i, double& s0, double& s1) {
                a.x[i] += alpha * p[i];
                const T ri = a.r[i] - alpha * a.q[i];
                a.r[i] = ri;
                store_z(a, i, ri, s0, s1);
            },
            rr, rz);
        common::cg_finish_residual(a.state, a.control, rr, rz, common::CgFinish::record);
    }

    // r = b - (A x) with A x from `ax` (or computed row by row when ax is null).
    static void replace_with(const Args& a, const T* ax) {
        if (a.state->stopped || !a.state->replace_now) return;
        double rr = 0, rz = 0;
        with_row(a.op, a.n, [&](const auto& row, const auto& work) {
            const auto step = [&](std::size_t i, double& s0, double& s1) {
                const T ri = a.b[i] - (ax ? ax[i] : row(i, a.x));
                a.r[i] = ri;
                store_z(a, i, ri, s0, s1);
            };
            if (ax)  // the rows cost the same: no product here
                Policy::sum(a.n, step, rr, rz);
            else
                Policy::sum_by(a.n, work, step, rr, rz);
        });
        common::cg_finish_residual(a.state, a.control, rr, rz, common::CgFinish::replaced);
    }
    static void replace(const Args& a) { replace_with(a, nullptr); }

    // Deferred preconditioning, after z = M^-1 r: rz -> the pending residual's decisions.
    static void finish_preconditioned(const Args& a) {
        if (a.state->pending_mode < 0) return;
        double rz = 0, unused = 0;
        Policy::sum(
            a.n, [&](std::size_t i, double& s0, double&) { s0 += common::re_dot(a.r[i], a.z[i]); },
            rz, unused);
        common::cg_finish_preconditioned(a.state, a.control, rz);
    }
    static void replace_from_ax(const Args& a) { replace_with(a, a.ax); }
};

}  // namespace portla::host
