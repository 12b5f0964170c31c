// A distributed solve: each MPI rank owns a contiguous block of rows of the 2-D Poisson matrix
// (5-point stencil on a grid of N x N points), given in CSR with global column indices, and the
// ordinary CG solver runs over the ranks (its reductions go through the communicator).
//
//   mpirun -np 4 distributed [BACKEND] [N]     BACKEND: auto (default), omp, cuda, ...
//
// With a GPU per rank, "cuda" (or "auto") gives rank r the GPU r modulo the GPUs present.
#include <mpi.h>

#include <portla/dist/distributed_csr.hpp>
#include <portla/dist/mpi_communicator.hpp>
#include <portla/portla.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

int run(int argc, char** argv) {
    std::string backend = argc > 1 ? argv[1] : "auto";
    const std::int64_t points = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 64;
    auto comm = std::make_shared<portla::dist::MpiCommunicator>(MPI_COMM_WORLD);
    const int rank = comm->rank(), ranks = comm->size();
    const int gpus = portla::device_count(portla::Backend::cuda);
    if ((backend == "auto" || backend == "cuda") && gpus > 0)
        backend = "cuda:" + std::to_string(rank % gpus);
    auto exec = portla::Executor::create(backend);

    // This rank's rows [first, last) of the N^2 x N^2 matrix, about as many on every rank.
    const std::int64_t rows = points * points;
    const std::int64_t first = rows * rank / ranks, last = rows * (rank + 1) / ranks;
    std::vector<std::int64_t> row_ptrs{0}, cols;
    std::vector<double> values;
    for (std::int64_t row = first; row < last; ++row) {
        const std::int64_t i = row % points, j = row / points;
        auto add = [&](std::int64_t c, double v) {
            cols.push_back(c);
            values.push_back(v);
        };
        if (j > 0) add(row - points, -1);
        if (i > 0) add(row - 1, -1);
        add(row, 4);
        if (i + 1 < points) add(row + 1, -1);
        if (j + 1 < points) add(row + points, -1);
        row_ptrs.push_back(static_cast<std::int64_t>(cols.size()));
    }
    // Collective: every rank constructs its part; the halo (ghost columns) is found once.
    portla::dist::DistributedCsr<double> A(exec, comm, rows, first, row_ptrs, cols, values);

    // b = A x_true for a known x_true, computed through the distributed operator itself.
    const std::size_t n = A.rows();  // this rank's rows
    std::vector<double> x_true(n);
    for (std::size_t k = 0; k < n; ++k) x_true[k] = std::cos(1e-3 * static_cast<double>(first + k));
    portla::Array<double> xt(exec, x_true), b(exec, n), x(exec, n);
    A.apply(xt, b);

    portla::solver::Settings settings;
    settings.rtol = 1e-8;
    settings.max_iters = 2000;
    settings.precond = portla::solver::Preconditioner::jacobi;  // each rank's diagonal
    auto result = portla::solver::cg<double>(A, b, x, settings);

    // Check: the global relative error ||x - x_true|| / ||x_true||, summed over the ranks.
    std::vector<double> xh = x.to_host();
    double sums[2] = {0, 0};
    for (std::size_t k = 0; k < n; ++k) {
        sums[0] += (xh[k] - x_true[k]) * (xh[k] - x_true[k]);
        sums[1] += x_true[k] * x_true[k];
    }
    comm->allreduce_sum(sums, 2);
    const double relerr = std::sqrt(sums[0] / sums[1]);
    if (rank == 0)
        std::printf(
            "2-D Poisson %lld^2 on %d ranks (%s): %s after %d iterations, "
            "||b - Ax||/||b|| = %.3e, error %.3e\n",
            static_cast<long long>(points), ranks, exec.name().c_str(),
            portla::solver::to_string(result.reason).c_str(), result.iterations,
            result.relative_residual(), relerr);
    // cond(A) ~ 0.4 N^2 bounds the error by about rtol * cond(A).
    if (!result.converged || result.relative_residual() > settings.rtol || relerr > 1e-4) {
        if (rank == 0) std::fprintf(stderr, "FAILED: the distributed solve is wrong\n");
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 1;
    try {
        status = run(argc, argv);  // the communicator is freed before MPI_Finalize
    } catch (const portla::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return status;
}
