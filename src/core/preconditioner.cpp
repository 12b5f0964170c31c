// The preconditioners of the monolithic solvers: Jacobi, and the factory that builds the one
// Settings::precond names.
#include "portla/solver/preconditioner.hpp"

#include <complex>
#include <string>

#include "common/scalar.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/solver/amg.hpp"
#include "portla/solver/block_jacobi.hpp"
#include "portla/solver/chebyshev.hpp"
#include "portla/solver/ilu.hpp"

namespace portla::solver {

template <typename T>
Jacobi<T>::Jacobi(const LinearOperator<T>& A)
    : inv_diag_(A.executor(), 0), conj_inv_diag_(A.executor(), 0) {
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
        throw BadInput(std::string("jacobi preconditioner: ") +
                       (value == T{0} ? "zero" : "non-finite") + " diagonal entry at row " +
                       std::to_string(row + 1));
    }
    inv_diag_ = std::move(d);
    if constexpr (common::is_complex_v<T>) {  // conj(D^-1), formed once on the host
        std::vector<T> h = inv_diag_.to_host();
        for (T& v : h) v = std::conj(v);
        conj_inv_diag_ = Array<T>(exec, h);
    }
}

template <typename T>
void Jacobi<T>::apply(const_view<T> r, view<T> z) const {
    blas::pointwise_mul<T>(inv_diag_.executor(), inv_diag_, r, z);  // z = D^-1 r
}

template <typename T>
void Jacobi<T>::apply_transpose(const_view<T> r, view<T> z) const {
    if constexpr (common::is_complex_v<T>)
        blas::pointwise_mul<T>(inv_diag_.executor(), conj_inv_diag_, r, z);  // z = D^-H r
    else
        apply(r, z);
}

namespace {

// The incomplete factorisations and multigrid need the matrix's entries in CSR (on a distributed
// operator: its diagonal block, factored on each rank).
template <typename T>
const Csr<T>& csr_entries(const LinearOperator<T>& A, Preconditioner precond) {
    const auto* csr = dynamic_cast<const Csr<T>*>(&A.diagonal_block());
    if (!csr)
        throw Unsupported(to_string(precond) + " needs a csr matrix (got " + A.format() +
                          "; use --format csr)");
    return *csr;
}

}  // namespace

// Complex values have the none, Jacobi, block Jacobi and ILU(0) paths; real ones every
// preconditioner.
template <typename T>
std::unique_ptr<PreconditionerOperator<T>> make_preconditioner(const LinearOperator<T>& A,
                                                               const Settings& s) {
    switch (s.precond) {
        case Preconditioner::none:
            return nullptr;
        case Preconditioner::jacobi:
            return std::make_unique<Jacobi<T>>(A);
        case Preconditioner::block_jacobi:
            return std::make_unique<BlockJacobi<T>>(A.diagonal_block(), s.block_size);
        case Preconditioner::ilu0:
            return std::make_unique<Ilu0<T>>(csr_entries(A, s.precond));
        default:
            break;
    }
    if constexpr (common::is_complex_v<T>) {
        throw Unsupported("the " + to_string(s.precond) +
                          " preconditioner has no path for complex values (" +
                          common::dtype_name<T>() + "); use jacobi, block-jacobi or ilu0");
    } else {
        if (s.precond == Preconditioner::chebyshev)
            return std::make_unique<Chebyshev<T>>(A, s.chebyshev_degree);
        const Csr<T>& csr = csr_entries(A, s.precond);
        if (s.precond == Preconditioner::amg) return std::make_unique<Amg<T>>(csr, s.amg);
        if (s.precond == Preconditioner::ilut)
            return std::make_unique<Ilut<T>>(csr, s.ilut_drop_tolerance, s.ilut_fill,
                                             s.ilut_pivoting, s.ilut_rcm, s.ilut_matching);
        if (s.precond == Preconditioner::iluk) return std::make_unique<Iluk<T>>(csr, s.iluk_level);
        return std::make_unique<Ic0<T>>(csr);
    }
}

template class Jacobi<double>;
template class Jacobi<float>;
template std::unique_ptr<PreconditionerOperator<double>> make_preconditioner(
    const LinearOperator<double>&, const Settings&);
template std::unique_ptr<PreconditionerOperator<float>> make_preconditioner(
    const LinearOperator<float>&, const Settings&);
template class Jacobi<std::complex<double>>;
template class Jacobi<std::complex<float>>;
template std::unique_ptr<PreconditionerOperator<std::complex<double>>> make_preconditioner(
    const LinearOperator<std::complex<double>>&, const Settings&);
template std::unique_ptr<PreconditionerOperator<std::complex<float>>> make_preconditioner(
    const LinearOperator<std::complex<float>>&, const Settings&);

}  // namespace portla::solver
