// Solve A x = b for a symmetric positive definite matrix read from a Matrix Market file, by
// conjugate gradients with a preconditioner, and check the answer.
//
//   cg_matrix_market [FILE.mtx] [BACKEND]     BACKEND: auto (default), omp, cuda, reference, ...
//
// b is A x_true for a known x_true, so the error of the computed x can be measured too.
#include <portla/portla.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "tests/data/spd_fem_2d.mtx";
    const std::string backend = argc > 2 ? argv[2] : "auto";
    try {
        auto exec = portla::Executor::create(backend);  // auto: cuda with a GPU, else omp
        // Coordinate data on the host; symmetric files are expanded to both triangles.
        portla::MatrixData data = portla::io::read_matrix_market(path);
        auto A = portla::Csr<double>::from_data(exec, data);
        const std::size_t n = A.rows();

        // A known solution and its right-hand side b = A x_true, computed on the host.
        std::vector<double> x_true(n), b_host(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) x_true[i] = std::sin(0.1 * static_cast<double>(i));
        for (std::size_t k = 0; k < data.entries(); ++k)
            b_host[data.row_idx[k]] += data.values[k] * x_true[data.col_idx[k]];

        portla::Array<double> b(exec, b_host);  // copied to the executor's memory
        portla::Array<double> x(exec, n);       // uninitialised: the solver starts from 0

        portla::solver::Settings settings;
        settings.rtol = 1e-10;
        settings.max_iters = 2000;
        settings.precond = portla::solver::Preconditioner::ic0;  // or jacobi, block_jacobi, ...
        portla::solver::Result result = portla::solver::cg<double>(A, b, x, settings);

        // Check independently of the solver: ||b - A x|| / ||b|| and the error, on the host.
        std::vector<double> x_host = x.to_host(), r = b_host;
        for (std::size_t k = 0; k < data.entries(); ++k)
            r[data.row_idx[k]] -= data.values[k] * x_host[data.col_idx[k]];
        double rr = 0, bb = 0, err = 0, xx = 0;
        for (std::size_t i = 0; i < n; ++i) {
            rr += r[i] * r[i];
            bb += b_host[i] * b_host[i];
            err += (x_host[i] - x_true[i]) * (x_host[i] - x_true[i]);
            xx += x_true[i] * x_true[i];
        }
        const double relres = std::sqrt(rr / bb), relerr = std::sqrt(err / xx);

        std::printf("%s: %zu rows, %zu non-zeros, backend %s (%s)\n", path.c_str(), n, A.nnz(),
                    exec.name().c_str(), exec.device_name().c_str());
        std::printf("CG + %s: %s after %d iterations, ||b - Ax||/||b|| = %.3e, error %.3e\n",
                    portla::solver::to_string(settings.precond).c_str(),
                    portla::solver::to_string(result.reason).c_str(), result.iterations, relres,
                    relerr);
        // The solver's own residual is the true one; 2x leaves room for the host's rounding.
        if (!result.converged || relres > 2 * settings.rtol) {
            std::fprintf(stderr, "FAILED: the solve did not reach rtol %.1e\n", settings.rtol);
            return 1;
        }
        return 0;
    } catch (const portla::Error& e) {  // bad file, no such backend, a zero pivot, ...
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
