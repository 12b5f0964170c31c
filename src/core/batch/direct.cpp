// batch::direct_solve: dense LU with partial pivoting per system, the vendor reference of the
// batched iterative solvers (cuBLAS batched LU on cuda, portla's own LU on the CPU backends).
#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/batch_direct_kernels.hpp"
#include "portla/batch/solver.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"

namespace portla::batch {

template <typename T>
Result direct_solve(const BatchMatrix<T>& A, const Array<T>& b, Array<T>& x) {
    const std::string where = "batch::direct_solve";
    if (A.format() != Format::dense)
        throw BadInput(where + ": the matrix must be in dense format, got " +
                       to_string(A.format()));
    const std::size_t num_systems = A.num_systems(), n = A.size();
    if (num_systems == 0) throw BadInput(where + ": the batch holds no systems");
    if (b.size() != num_systems * n)
        throw DimensionMismatch(where + ": b", num_systems * n, b.size());
    if (x.size() != num_systems * n)
        throw DimensionMismatch(where + ": x", num_systems * n, x.size());
    const Executor& exec = A.executor();
    if (b.executor() != exec || x.executor() != exec)
        throw BadInput(where + ": A, b and x must live on the same executor (A on " + exec.name() +
                       ", b on " + b.executor().name() + ", x on " + x.executor().name() + ")");

    Result res;
    std::vector<int> info;
    // The factorisations and solves alone, timed by the kernel on the executor (device events
    // on a GPU); its workspace, copies and checks are outside the timed region.
    Timer timer(exec);
    dispatch<KernelFamily::batch_direct>(exec, [&](auto backend) {
        batch_lu_solve(backend, exec, num_systems, n, A.values().get_view(), b.get_view(),
                       x.get_view(), info, timer);
    });
    res.time_s = timer.seconds();

    res.residual_norm = residual_norms(A, b, x);
    const std::vector<T> bh = b.to_host();
    res.rhs_norm.resize(num_systems);
    res.iterations.resize(num_systems);
    res.reason.resize(num_systems);
    for (std::size_t s = 0; s < num_systems; ++s) {
        double sum = 0;
        bool finite = true;
        for (std::size_t i = 0; i < n; ++i) {
            sum += double(bh[s * n + i]) * double(bh[s * n + i]);
            finite = finite && std::isfinite(double(bh[s * n + i]));
        }
        res.rhs_norm[s] = std::sqrt(sum);
        // A factorisation whose residual overflowed met pivots that were zero in all but
        // rounding: numerically singular, a breakdown like an exact zero pivot. A NaN or Inf in
        // A_s (info < 0) or b_s is non_finite.
        if (info[s] < 0 || !finite)
            res.reason[s] = solver::StopReason::non_finite;
        else if (info[s] > 0 || !std::isfinite(res.residual_norm[s]))
            res.reason[s] = solver::StopReason::breakdown;
        else
            res.reason[s] = solver::StopReason::converged;
        res.iterations[s] = res.reason[s] == solver::StopReason::converged ? 1 : 0;
    }
    return res;
}

template Result direct_solve<double>(const BatchMatrix<double>&, const Array<double>&,
                                     Array<double>&);
template Result direct_solve<float>(const BatchMatrix<float>&, const Array<float>&, Array<float>&);

}  // namespace portla::batch
