/// \file
/// Block Jacobi preconditioner for the monolithic solvers: M = blockdiag(A_00, A_11, ...), the
/// contiguous diagonal blocks of `block_size` rows of A (the last block may be smaller).
#pragma once

#include <cstddef>
#include <string>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"
#include "portla/solver/preconditioner.hpp"

namespace portla::solver {

/// z = M^-1 r = blockdiag(A_00^-1, A_11^-1, ...) r.
///
/// Set-up (in the constructor, on the host): the matrix arrays are copied to the host, each
/// diagonal block is extracted dense and inverted in double by LU with partial pivoting, and
/// the inverses (rounded to T) are copied to A's executor: ceil(n / block_size) block_size^2
/// values, column-major
/// per block. apply() is one kernel (core/kernels/precond_kernels.hpp) and does not block.
///
/// symmetric() is true: when A is SPD, every diagonal block A_bb is SPD (a principal
/// submatrix), so is its inverse, and so is the block-diagonal M^-1.
template <typename T>
class BlockJacobi : public PreconditionerOperator<T> {
public:
    /// A must be a Csr<T> or a Dense<T>, square. Throws Unsupported ("block-jacobi needs a csr
    /// or dense matrix (got FORMAT)") for any other operator and for a Csr with 64-bit indices
    /// (Csr::index()), DimensionMismatch for a
    /// non-square matrix, BadInput for block_size outside [1, 32] and for a singular diagonal
    /// block ("block-jacobi: singular diagonal block at rows A-B", 1-based, inclusive: a pivot
    /// that is 0 or at most 1e-14 times the block's largest |entry|, a NaN or Inf in the block,
    /// or an inverse that overflows T).
    BlockJacobi(const LinearOperator<T>& A, int block_size);

    std::size_t size() const override { return n_; }
    const Executor& executor() const override { return blocks_.executor(); }
    /// z = M^-1 r. Sizes size() (DimensionMismatch); r and z must not alias. Asynchronous on
    /// cuda.
    void apply(const_view<T> r, view<T> z) const override;
    std::string name() const override { return "block-jacobi"; }
    bool symmetric() const override { return true; }
    bool fixed() const override { return true; }

    /// Rows per diagonal block.
    int block_size() const { return block_size_; }

private:
    std::size_t n_ = 0;
    int block_size_ = 1;
    Array<T> blocks_;
};

}  // namespace portla::solver
