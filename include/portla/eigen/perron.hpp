/// \file
/// Dominant eigenpair of a positive square matrix by the parallel similarity transformation.
///
/// For A > 0 (every entry positive) the iteration is, with v = (1, ..., 1) and A_0 = A:
///   s = A_k 1 (row sums);  v <- v .* s / max(s);
///   stop when |s_i - s_{(i+1) mod n}| < eps for every i;
///   otherwise A_{k+1} = D^-1 A_k D, D = diag(s)   (a_ij <- a_ij s_j / s_i).
/// At the stop the eigenvalue is the common row sum (reported: max s, a Collatz-Wielandt upper
/// bound) and v its eigenvector (A v = lambda v up to the spread of s). Three formulations give
/// the same iterates up to rounding:
///   similarity  the published one: row sums, then the transform (3 passes over A per iteration)
///   fused       the transform of A_k and the row sums of A_{k+1} in one pass (2 per iteration)
///   power       A is never modified: the row sums of A_k are (A v)_i / v_i with v the current
///               eigenvector estimate, v ~ A^k 1 (1 pass per iteration)
#pragma once

#include <cstddef>
#include <string>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/dense.hpp"
#include "portla/solver/settings.hpp"

/// The dominant (Perron) eigenpair of a matrix with positive entries.
namespace portla::eigen {

/// The three formulations of the iteration (file comment above): the same iterates up to
/// rounding, 3, 2 and 1 passes over A per iteration.
enum class PerronMethod { similarity, fused, power };
/// How the cuda reductions (row sums, max, stop test) combine their terms: `atomic`, every
/// term is an atomic on the result; `subgroup`, a warp reduction then one atomic per warp;
/// `local`, warp results combined in shared memory, one atomic per work-group. The CPU backends
/// compute the same values and ignore it. opencl: `local` is a local-memory tree per work-group,
/// `atomic` every term an atomic (in double only where the device has
/// cl_khr_int64_base_atomics, else it runs `local`), `subgroup` runs `local` (no sub-group
/// kernel yet). The variant changes the order of the sums, never the quantity computed.
enum class ReductionVariant { atomic, subgroup, local };

/// "similarity", "fused", "power"; parse throws BadInput for an unknown name.
std::string to_string(PerronMethod method);
/// The inverse of to_string(PerronMethod).
PerronMethod parse_perron_method(const std::string& name);
/// "atomic", "subgroup", "local"; parse throws BadInput for an unknown name.
std::string to_string(ReductionVariant variant);
/// The inverse of to_string(ReductionVariant).
ReductionVariant parse_reduction_variant(const std::string& name);

/// Settings of perron() and perron_in_place().
struct PerronSettings {
    double eps = 1e-3;     ///< stop when every pair of neighbouring row sums differs by less
    int max_iters = 1000;  ///< at most this many transforms (max_iters + 1 row-sum rounds)
    /// Which formulation runs.
    PerronMethod method = PerronMethod::power;
    /// How the cuda (and opencl) reductions combine their terms.
    ReductionVariant variant = ReductionVariant::local;
    /// Check that every entry of A is positive first (copies A to the host on cuda).
    bool check_positive = true;
};

/// The outcome of perron() and perron_in_place().
struct PerronResult {
    /// Whether the row sums met the eps test.
    bool converged = false;
    /// converged, max_iterations or non_finite (a NaN or Inf in the row sums).
    solver::StopReason reason = solver::StopReason::max_iterations;
    /// Similarity transforms applied: the k of the last A_k, whose row sums were evaluated
    /// (k + 1 evaluations in all). The published "rounds" (Hilbert 128, float, eps 1e-3: 9).
    int iterations = 0;
    double eigenvalue = 0.0;    ///< max_i s_i of the last round
    double max_difference = 0;  ///< max_i |s_i - s_{(i+1) mod n}| of the last round
    double time_s = 0.0;        ///< the iteration (and the working copy of A), synchronised
    /// ||A v - lambda v|| / ||lambda v||, from the original A (perron on a Dense only; -1 when
    /// not computed).
    double residual = -1.0;
};

/// Runs the iteration on the n x n row-major matrix `a` (n * n values in memory of `exec`)
/// and leaves the eigenvector estimate in v (size n). Overwrites `a` with the last A_k for
/// the similarity and fused methods; the power method leaves it unchanged. Throws
/// DimensionMismatch for wrong sizes, BadInput for eps <= 0 or not finite, max_iters < 1, or
/// (with check_positive) an entry <= 0 or not finite. Blocks.
template <typename T>
PerronResult perron_in_place(const Executor& exec, std::size_t n, view<T> a, view<T> v,
                             const PerronSettings& settings);

/// The same on a Dense matrix, which is left unchanged (the similarity and fused methods work
/// on a copy, included in time_s); also computes `residual`. Throws as perron_in_place and
/// DimensionMismatch for a matrix that is not square.
template <typename T>
PerronResult perron(const Dense<T>& A, view<T> v, const PerronSettings& settings);

/// Throws BadInput naming the first entry (1-based row and column) of the row-major n x n
/// host matrix that is not positive and finite; `what` names the matrix.
template <typename T>
void check_positive(std::size_t n, const T* values, const std::string& what);

/// ||A v - lambda v|| / ||lambda v|| in double on the host, A row-major n x n.
template <typename T>
double relative_residual(std::size_t n, const T* a, const T* v, double lambda);

/// The kernels of the iteration, one call each (all views in memory of `exec`, A n x n
/// row-major). Asynchronous on cuda; sizes are checked (DimensionMismatch).
namespace kernels {
/// s_i = sum_j a_ij   (bytes: n^2 + n values)
template <typename T>
void row_sums(const Executor& exec, ReductionVariant variant, std::size_t n, const_view<T> a,
              view<T> s);
/// s_i = (A v)_i / v_i   (bytes: n^2 + 2n values)
template <typename T>
void weighted_row_sums(const Executor& exec, ReductionVariant variant, std::size_t n,
                       const_view<T> a, const_view<T> v, view<T> s);
/// result[0] = max_i x_i, for x_i >= 0 (NaN if any x_i is NaN)
template <typename T>
void max(const Executor& exec, ReductionVariant variant, const_view<T> x, view<T> result);
/// v_i = v_i s_i / m[0]
template <typename T>
void scale(const Executor& exec, const_view<T> s, const_view<T> m, view<T> v);
/// a_ij = a_ij s_j / s_i   (bytes: 2 n^2 + n values)
template <typename T>
void transform(const Executor& exec, std::size_t n, const_view<T> s, view<T> a);
/// result[0] = max_i |s_i - s_{(i+1) mod n}|
template <typename T>
void stop_test(const Executor& exec, ReductionVariant variant, const_view<T> s, view<T> result);
/// a_ij = a_ij s_j / s_i and s_next_i = sum_j a_ij (new), one pass (bytes: 2 n^2 + 2n values)
template <typename T>
void fused_transform_row_sums(const Executor& exec, ReductionVariant variant, std::size_t n,
                              const_view<T> s, view<T> a, view<T> s_next);
}  // namespace kernels

}  // namespace portla::eigen
