// Solves a 2-D Poisson problem through the installed library; exits 0 when CG converges to the
// requested tolerance (checked with an independently computed residual).
#include <cmath>
#include <cstdio>

#include <portla/portla.hpp>

int main() {
    const auto exec = portla::Executor::create("omp");
    const portla::Stencil<double> A(exec, 2, 32);
    portla::Array<double> b(exec, std::vector<double>(A.rows(), 1.0)), x(exec, A.rows()),
        r(exec, A.rows());
    portla::solver::Settings s;
    s.rtol = 1e-10;
    const auto res = portla::solver::cg<double>(A, b, x, s);
    A.apply(x, r);
    portla::blas::axpby<double>(exec, 1.0, b, -1.0, r);  // r = b - A x
    const double rel = portla::blas::norm2<double>(exec, r) / portla::blas::norm2<double>(exec, b);
    std::printf("consumer: %s after %d iterations, relative residual %.3e\n",
                portla::solver::to_string(res.reason).c_str(), res.iterations, rel);
    return res.converged && rel <= 2e-10 ? 0 : 1;
}
