// Many small systems that share one sparsity pattern, solved by one batched call (one thread
// block per system on cuda, one thread per system on the CPU), each with its own stopping test.
//
//   batched [BACKEND] [SYSTEMS]     BACKEND: auto (default), omp, cuda, reference, ...
#include <portla/batch/matrix.hpp>
#include <portla/batch/solver.hpp>
#include <portla/portla.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::string backend = argc > 1 ? argv[1] : "auto";
    const std::size_t systems = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10000;
    try {
        auto exec = portla::Executor::create(backend);

        // A batch on the host: one CSR pattern, values and a right-hand side per system. Here
        // generated (random SPD tridiagonal systems of 32 rows); a program of its own fills
        // BatchData's arrays, or reads DIR/<i>/A.mtx and b.mtx with batch::read_directory.
        portla::batch::BatchData data = portla::batch::generate_stencil3pt(32, systems);
        portla::batch::BatchMatrix<double> A(exec, data, portla::Format::csr);
        portla::Array<double> b(exec, data.rhs);  // system after system
        portla::Array<double> x(exec, data.rhs.size());

        portla::batch::Settings settings;
        settings.solver = portla::solver::Solver::cg;
        settings.precond = portla::solver::Preconditioner::jacobi;
        settings.tolerance = 1e-8;  // relative to each ||b_s||
        settings.max_iters = 100;
        portla::batch::Result result = portla::batch::solve(A, b, x, settings);

        // Check every system independently of the solver.
        std::vector<double> res = portla::batch::residual_norms(A, b, x);
        double worst = 0;
        for (std::size_t s = 0; s < result.size(); ++s)
            worst = std::max(worst, res[s] / result.rhs_norm[s]);
        int it_max = 0;
        for (int it : result.iterations) it_max = std::max(it_max, it);

        std::printf(
            "%zu systems of %zu rows on %s: %zu converged, at most %d iterations, "
            "worst ||b_s - A_s x_s||/||b_s|| = %.3e, %.3f ms\n",
            result.size(), A.size(), exec.name().c_str(), result.num_converged(), it_max, worst,
            1e3 * result.time_s);
        if (result.num_converged() != systems || worst > 2 * settings.tolerance) {
            std::fprintf(stderr, "FAILED: not every system reached the tolerance\n");
            return 1;
        }
        return 0;
    } catch (const portla::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
