// The preconditioners of the monolithic solvers: Jacobi, and the factory that builds the one
// Settings::precond names.
#include "portla/solver/preconditioner.hpp"

#include <string>

#include "portla/blas.hpp"
#include "portla/error.hpp"

namespace portla::solver {

template <typename T>
Jacobi<T>::Jacobi(const LinearOperator<T>& A) : inv_diag_(A.executor(), 0) {
    const auto& exec = A.executor();
    if (!A.has_diagonal())
        throw BadInput("Jacobi preconditioning needs the diagonal, which the " + A.format() +
                       " operator does not provide");
    Array<T> d(exec, A.rows());
    A.diagonal(d.get_view());
    const auto row = blas::invert_diagonal<T>(exec, d.get_view());
    if (row < A.rows()) {
        T value{};
        Executor::copy_bytes(Executor::reference(), &value, exec, d.data() + row, sizeof(T));
        throw BadInput(std::string("Jacobi preconditioner: ") +
                       (value == T{0} ? "zero" : "non-finite") + " diagonal entry at row " +
                       std::to_string(row + 1));
    }
    inv_diag_ = std::move(d);
}

template <typename T>
void Jacobi<T>::apply(const_view<T> r, view<T> z) const {
    blas::pointwise_mul<T>(inv_diag_.executor(), inv_diag_, r, z);  // z = D^-1 r
}

template <typename T>
std::unique_ptr<PreconditionerOperator<T>> make_preconditioner(const LinearOperator<T>& A,
                                                               const Settings& s) {
    switch (s.precond) {
        case Preconditioner::none:
            return nullptr;
        case Preconditioner::jacobi:
            return std::make_unique<Jacobi<T>>(A);
        default:
            break;
    }
    throw Unsupported("the " + to_string(s.precond) + " preconditioner is not available yet");
}

template class Jacobi<double>;
template class Jacobi<float>;
template std::unique_ptr<PreconditionerOperator<double>> make_preconditioner(
    const LinearOperator<double>&, const Settings&);
template std::unique_ptr<PreconditionerOperator<float>> make_preconditioner(
    const LinearOperator<float>&, const Settings&);

}  // namespace portla::solver
