/// \file
/// Preconditioners for the monolithic solvers (solver::cg, solver::bicgstab, solver::gmres):
/// z = M^-1 r on the operator's executor. make_preconditioner builds the one Settings::precond
/// names; a caller may also pass its own (any class derived from PreconditionerOperator) to the
/// solvers' overloads that take one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "portla/array.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/operator.hpp"
#include "portla/solver/settings.hpp"

namespace portla::solver {

/// z = M^-1 r, where M approximates A.
template <typename T>
class PreconditionerOperator {
public:
    virtual ~PreconditionerOperator() = default;
    /// Rows (= columns) of M.
    virtual std::size_t size() const = 0;
    /// The executor whose memory r and z live in.
    virtual const Executor& executor() const = 0;
    /// z = M^-1 r. r and z must not alias; both of size(). Asynchronous on cuda.
    virtual void apply(const_view<T> r, view<T> z) const = 0;
    /// "jacobi", "block-jacobi", "ilu0", ...
    virtual std::string name() const = 0;
    /// Whether M is symmetric positive definite whenever A is (CG needs it).
    virtual bool symmetric() const { return true; }
    /// Whether apply() is the same linear map at every call (false: GMRES goes flexible).
    virtual bool fixed() const { return true; }
    /// Whether the set-up found M unstable (an incomplete factor's growth or probe, see
    /// solver/ilu.hpp): a solve that does not converge then reports
    /// StopReason::unstable_preconditioner.
    virtual bool unstable() const { return false; }
    /// Whether apply_transpose is available.
    virtual bool has_transpose() const { return false; }
    /// z = M^-T r (bicg and qmr's shadow recurrence); as apply(). Throws Unsupported unless the
    /// preconditioner provides it.
    virtual void apply_transpose(const_view<T>, view<T>) const {
        throw Unsupported("the " + name() + " preconditioner does not provide M^-T");
    }
};

/// Jacobi: M = diag(A), z = r ./ diag(A). Throws BadInput when the operator has no diagonal or
/// a diagonal entry is zero or not finite (naming the row).
template <typename T>
class Jacobi : public PreconditionerOperator<T> {
public:
    /// From diag(A) (A.has_diagonal() must be true).
    explicit Jacobi(const LinearOperator<T>& A);
    std::size_t size() const override { return inv_diag_.size(); }
    const Executor& executor() const override { return inv_diag_.executor(); }
    void apply(const_view<T> r, view<T> z) const override;
    bool has_transpose() const override { return true; }
    /// M^-H: M^-1 for a real diagonal M; for complex values z = r ./ conj(diag(A)).
    void apply_transpose(const_view<T> r, view<T> z) const override;
    std::string name() const override { return "jacobi"; }
    /// 1 / diag(A), in the executor's memory.
    const Array<T>& inverse_diagonal() const { return inv_diag_; }

private:
    Array<T> inv_diag_;
    Array<T> conj_inv_diag_;  ///< conj(1 / diag(A)) for complex values (empty for real ones)
};

/// The preconditioner settings.precond names for A (nullptr for none). Throws BadInput (a zero
/// or non-finite diagonal entry or pivot, naming the row; settings out of range), Unsupported (a
/// preconditioner the operator's format cannot provide, e.g. ilu0 on a matrix-free operator).
template <typename T>
std::unique_ptr<PreconditionerOperator<T>> make_preconditioner(const LinearOperator<T>& A,
                                                               const Settings& settings);

}  // namespace portla::solver
