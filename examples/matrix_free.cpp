// A matrix-free operator through CallbackOperator: the 1-D Poisson matrix tridiag(-1, 2, -1)
// applied without storing it, solved by CG with Jacobi preconditioning.
//
//   matrix_free [BACKEND] [N]     BACKEND: auto (default), omp, cuda, reference, ...
//
// The callback receives x and y in the executor's memory (device memory on cuda), so it is
// written with portla's vector kernels on shifted views, which run on every backend:
//   y = 2 x;  y[0 .. n-2] -= x[1 .. n-1];  y[1 .. n-1] -= x[0 .. n-2].
#include <portla/portla.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::string backend = argc > 1 ? argv[1] : "auto";
    const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
    try {
        auto exec = portla::Executor::create(backend);
        if (n < 2) throw portla::BadInput("N must be at least 2");

        auto apply = [exec, n](portla::const_view<double> x, portla::view<double> y) {
            using portla::blas::axpby;
            axpby(exec, 2.0, x, 0.0, y);  // y = 2 x (y is not read)
            axpby(exec, -1.0, portla::const_view<double>(x.data + 1, n - 1), 1.0,
                  portla::view<double>(y.data, n - 1));
            axpby(exec, -1.0, portla::const_view<double>(x.data, n - 1), 1.0,
                  portla::view<double>(y.data + 1, n - 1));
        };
        // The diagonal is optional; given, Jacobi preconditioning works on the operator.
        auto diagonal = [exec](portla::view<double> d) { portla::blas::fill(exec, d, 2.0); };
        portla::CallbackOperator<double> A(exec, n, n, apply, diagonal);

        // b = A x_true on the host, for x_true(t) = t (1 - t) on the grid points.
        std::vector<double> x_true(n), b_host(n);
        for (std::size_t i = 0; i < n; ++i) {
            const double t = static_cast<double>(i + 1) / static_cast<double>(n + 1);
            x_true[i] = t * (1 - t);
        }
        for (std::size_t i = 0; i < n; ++i)
            b_host[i] =
                2 * x_true[i] - (i > 0 ? x_true[i - 1] : 0) - (i + 1 < n ? x_true[i + 1] : 0);
        portla::Array<double> b(exec, b_host), x(exec, n);

        portla::solver::Settings settings;
        settings.rtol = 1e-10;
        settings.max_iters = static_cast<int>(2 * n);
        settings.precond = portla::solver::Preconditioner::jacobi;
        auto result = portla::solver::cg<double>(A, b, x, settings);

        // Independent check on the host: the residual with the tridiagonal written out.
        std::vector<double> xh = x.to_host();
        double rr = 0, bb = 0, err = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double ax = 2 * xh[i] - (i > 0 ? xh[i - 1] : 0) - (i + 1 < n ? xh[i + 1] : 0);
            rr += (b_host[i] - ax) * (b_host[i] - ax);
            bb += b_host[i] * b_host[i];
            err = std::fmax(err, std::fabs(xh[i] - x_true[i]));
        }
        const double relres = std::sqrt(rr / bb);
        std::printf(
            "matrix-free 1-D Poisson, n = %zu, backend %s: %s after %d iterations, "
            "||b - Ax||/||b|| = %.3e, max error %.3e\n",
            n, exec.name().c_str(), portla::solver::to_string(result.reason).c_str(),
            result.iterations, relres, err);
        if (!result.converged || relres > 2 * settings.rtol) {
            std::fprintf(stderr, "FAILED: the solve did not reach rtol %.1e\n", settings.rtol);
            return 1;
        }
        return 0;
    } catch (const portla::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
