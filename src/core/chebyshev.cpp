// Chebyshev polynomial preconditioner: the interval estimated by Lanczos, the polynomial applied
// by the Chebyshev iteration, both over A.apply and blas:: calls (every backend).
#include "portla/solver/chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "core/global_reduction.hpp"
#include "portla/blas.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/error.hpp"

namespace portla::solver {
namespace {

constexpr double kSafety = 1.1;     // lmax = kSafety * theta_max
constexpr double kMaxRatio = 1000;  // lmin >= lmax / kMaxRatio
constexpr int kMaxDegree = 64;
constexpr std::uint64_t kSeed = 0x5eed0fc4eb75e7ull;

/// splitmix64: a fixed, platform-independent stream of 64-bit values.
std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Eigenvalues of the symmetric tridiagonal matrix (diagonal a, off-diagonal b, b.size() =
/// a.size() - 1) below x (Sturm count of the LDL^T pivots).
int count_below(const std::vector<double>& a, const std::vector<double>& b, double x, double tiny) {
    int count = 0;
    double q = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        q = (a[i] - x) - (i > 0 ? b[i - 1] * b[i - 1] / q : 0.0);
        if (q == 0) q = -tiny;
        if (q < 0) ++count;
    }
    return count;
}

/// The i-th smallest eigenvalue (0-based) of the symmetric tridiagonal matrix, by bisection
/// inside its Gershgorin interval.
double tridiagonal_eigenvalue(const std::vector<double>& a, const std::vector<double>& b, int i) {
    const std::size_t k = a.size();
    double lo = a[0], hi = a[0];
    for (std::size_t j = 0; j < k; ++j) {
        const double radius =
            (j > 0 ? std::abs(b[j - 1]) : 0.0) + (j + 1 < k ? std::abs(b[j]) : 0.0);
        lo = std::min(lo, a[j] - radius);
        hi = std::max(hi, a[j] + radius);
    }
    const double scale = std::max(std::abs(lo), std::abs(hi));
    const double tiny = std::numeric_limits<double>::min() + 1e-16 * scale;
    lo -= 1e-15 * scale;
    hi += 1e-15 * scale;
    for (int it = 0; it < 200 && hi - lo > 4e-16 * scale; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (count_below(a, b, mid, tiny) > i)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

/// w = B x, B = D^-1 A (A without a diagonal: B = A): the operator of the Lanczos steps and of
/// the Chebyshev iteration; inv_diag holds D^-1 when `scaled`.
template <typename T>
void apply_scaled(const LinearOperator<T>& A, bool scaled, const Array<T>& inv_diag,
                  const_view<T> x, view<T> w) {
    A.apply(x, w);
    if (scaled) blas::pointwise_mul<T>(A.executor(), inv_diag.get_view(), w, w);
}

/// The extreme Ritz values {theta_min, theta_max} of `steps` Lanczos steps on B = D^-1 A (A
/// without a diagonal) from v, which is overwritten: inv_diag holds D^-1 and abs_diag |D| when
/// `scaled`.
template <typename T>
std::pair<double, double> lanczos(const LinearOperator<T>& A, bool scaled, const Array<T>& inv_diag,
                                  const Array<T>& abs_diag, int steps, Array<T> v) {
    const auto& exec = A.executor();
    const std::size_t n = A.rows();
    // <x, y> = x^T |D| y (x^T y without a diagonal): B = D^-1 A is self-adjoint in it when A is
    // symmetric with a diagonal of one sign.
    Array<T> weighted(exec, scaled ? n : 0);
    auto inner = [&](const_view<T> x, const_view<T> y) {
        if (!scaled) return detail::dot<T>(A, x, y);
        blas::pointwise_mul<T>(exec, abs_diag.get_view(), x, weighted.get_view());
        return detail::dot<T>(A, std::as_const(weighted).get_view(), y);
    };
    Array<T> v_prev(exec, n), w(exec, n);
    const double start_norm = std::sqrt(inner(v, v));
    blas::axpby<T>(exec, T(1 / start_norm), v, T{0}, v);
    std::vector<double> alpha, beta;
    double scale = 0;
    const double breakdown = 1e3 * std::numeric_limits<T>::epsilon();
    for (int j = 0; j < steps; ++j) {
        apply_scaled<T>(A, scaled, inv_diag, v, w);  // w = B v_j
        const double a = inner(w, v);                // alpha_j = <B v_j, v_j>
        blas::axpby<T>(exec, T(-a), v, T{1}, w);     // w -= alpha_j v_j
        if (j > 0) blas::axpby<T>(exec, T(-beta.back()), v_prev, T{1}, w);  // - beta v_{j-1}
        const double b = std::sqrt(std::max(0.0, inner(w, w)));             // beta_j = ||w||
        alpha.push_back(a);
        if (!std::isfinite(a) || !std::isfinite(b))
            throw BadInput(
                "chebyshev: the eigenvalue estimate is not finite: the operator "
                "contains NaN or Inf or is not positive definite");
        scale = std::max(scale, std::abs(a) + b + (j > 0 ? beta.back() : 0.0));
        if (j + 1 == steps || b <= breakdown * scale) break;  // done, or invariant subspace
        beta.push_back(b);
        std::swap(v_prev, v);
        blas::axpby<T>(exec, T(1 / b), w, T{0}, v);  // v_{j+1} = w / beta_j
    }
    const double ritz_min = tridiagonal_eigenvalue(alpha, beta, 0);
    const double ritz_max = tridiagonal_eigenvalue(alpha, beta, static_cast<int>(alpha.size()) - 1);
    if (!(std::isfinite(ritz_max) && ritz_max > 0))
        throw BadInput("chebyshev: the largest eigenvalue estimate of " +
                       std::string(scaled ? "D^-1 A" : "A") + " is " + std::to_string(ritz_max) +
                       ": the operator is not positive definite");
    return {ritz_min, ritz_max};
}

template <typename T>
void check_square(const LinearOperator<T>& A) {
    if (A.rows() != A.cols())
        throw DimensionMismatch("chebyshev: operator must be square (" + std::to_string(A.rows()) +
                                    " x " + std::to_string(A.cols()) + "); rows",
                                A.rows(), A.cols());
}

void check_estimate_steps(int estimate_steps) {
    if (estimate_steps < 1)
        throw BadInput("chebyshev: estimate_steps must be >= 1 (got " +
                       std::to_string(estimate_steps) + ")");
}

/// The estimate's arguments given a start vector: the steps, and a start of A's rows.
template <typename T>
void check_estimate(const LinearOperator<T>& A, int estimate_steps, const Array<T>& start) {
    check_estimate_steps(estimate_steps);
    if (start.size() != A.rows())
        throw DimensionMismatch("chebyshev: start vector", A.rows(), start.size());
}

/// d = 1 / d (n entries); BadInput naming the first zero or non-finite entry.
template <typename T>
void check_inverted(const Executor& exec, std::size_t n, Array<T>& d) {
    const auto row = blas::invert_diagonal<T>(exec, d.get_view());
    if (row < n) {
        T value{};
        Executor::copy_bytes(Executor::reference(), &value, exec, d.data() + row, sizeof(T));
        throw BadInput(std::string("chebyshev: ") + (value == T{0} ? "zero" : "non-finite") +
                       " diagonal entry at row " + std::to_string(row + 1));
    }
}

}  // namespace

template <typename T>
Chebyshev<T>::Chebyshev(const LinearOperator<T>& A, int degree, int estimate_steps) : A_(&A) {
    check_estimate_steps(estimate_steps);
    set_up(degree);
    // A rank of a distributed operator with no rows still takes part in the collective Lanczos.
    if (n_ == 0 && !dist::is_distributed(A.communicator())) return;
    Array<T> abs_diag(A.executor(), 0);
    if (scaled_) {  // |D| from D^-1 on the host (set-up only)
        auto h = inv_diag_.to_host();
        for (auto& v : h) v = std::abs(T{1} / v);
        abs_diag = Array<T>(A.executor(), h);
    }
    std::vector<T> start(n_);
    std::uint64_t state = kSeed;
    for (auto& v : start)  // uniform in [-1, 1)
        v = static_cast<T>(double(splitmix64(state) >> 11) * 0x1.0p-52 - 1.0);
    std::tie(ritz_min_, ritz_max_) =
        lanczos(A, scaled_, inv_diag_, abs_diag, estimate_steps, Array<T>(A.executor(), start));
    lmax_ = kSafety * ritz_max_;
    lmin_ = std::max(ritz_min_, lmax_ / kMaxRatio);
    steps_ = step_coefficients(lmin_, lmax_, degree_);
}

template <typename T>
Chebyshev<T>::Chebyshev(const LinearOperator<T>& A, int degree, int estimate_steps,
                        const Array<T>& start)
    : A_(&A) {
    check_estimate(A, estimate_steps, start);
    set_up(degree);
    if (n_ == 0 && !dist::is_distributed(A.communicator())) return;
    // |D| = D (positive): the diagonal again, on the device.
    Array<T> abs_diag(A.executor(), scaled_ ? n_ : 0);
    if (scaled_) A.diagonal(abs_diag.get_view());
    std::tie(ritz_min_, ritz_max_) =
        lanczos(A, scaled_, inv_diag_, abs_diag, estimate_steps, Array<T>(A.executor(), start));
    lmax_ = kSafety * ritz_max_;
    lmin_ = std::max(ritz_min_, lmax_ / kMaxRatio);
    steps_ = step_coefficients(lmin_, lmax_, degree_);
}

template <typename T>
std::pair<double, double> Chebyshev<T>::ritz_values(const LinearOperator<T>& A, int estimate_steps,
                                                    Array<T> start) {
    check_square(A);
    check_estimate(A, estimate_steps, start);
    const std::size_t n = A.rows();
    if (n == 0 && !dist::is_distributed(A.communicator())) return {0.0, 0.0};
    // D read once: |D| = D (positive), and D^-1 from a copy of it.
    const Executor& exec = A.executor();
    const bool scaled = A.has_diagonal();
    Array<T> abs_diag(exec, scaled ? n : 0), inv_diag(exec, scaled ? n : 0);
    dist::on_every_rank(A.communicator(), [&] {
        if (!scaled || n == 0) return;
        A.diagonal(abs_diag.get_view());
        blas::copy<T>(exec, std::as_const(abs_diag).get_view(), inv_diag.get_view());
        check_inverted(exec, n, inv_diag);
    });
    return lanczos(A, scaled, inv_diag, abs_diag, estimate_steps, std::move(start));
}

template <typename T>
Chebyshev<T>::Chebyshev(const LinearOperator<T>& A, int degree, double lambda_min,
                        double lambda_max)
    : A_(&A) {
    if (!(std::isfinite(lambda_min) && std::isfinite(lambda_max) && 0 < lambda_min &&
          lambda_min < lambda_max))
        throw BadInput(
            "chebyshev: the interval must satisfy 0 < lambda_min < lambda_max, finite "
            "(got [" +
            std::to_string(lambda_min) + ", " + std::to_string(lambda_max) + "])");
    set_up(degree);
    lmin_ = lambda_min;
    lmax_ = lambda_max;
    steps_ = step_coefficients(lmin_, lmax_, degree_);
}

template <typename T>
void Chebyshev<T>::set_up(int degree) {
    const auto& A = *A_;
    check_square(A);
    if (degree < 1 || degree > kMaxDegree)
        throw BadInput("chebyshev: degree must be in [1, " + std::to_string(kMaxDegree) +
                       "] (got " + std::to_string(degree) + ")");
    n_ = A.rows();
    degree_ = degree;
    const auto& exec = A.executor();
    scaled_ = A.has_diagonal();
    inv_diag_ = Array<T>(exec, scaled_ ? n_ : 0);
    res_ = Array<T>(exec, n_);
    dir_ = Array<T>(exec, n_);
    work_ = Array<T>(exec, n_);
    // Agreed over the ranks of a distributed operator: the Lanczos steps that follow are
    // collective.
    dist::on_every_rank(A.communicator(), [&] {
        if (!scaled_ || n_ == 0) return;
        A.diagonal(inv_diag_.get_view());
        check_inverted(exec, n_, inv_diag_);
    });
}

template <typename T>
void Chebyshev<T>::apply_b(const_view<T> x, view<T> w) const {
    apply_scaled<T>(*A_, scaled_, inv_diag_, x, w);
}

template <typename T>
void Chebyshev<T>::apply(const_view<T> r, view<T> z) const {
    if (r.size != n_) throw DimensionMismatch("chebyshev apply: r", n_, r.size);
    if (z.size != n_) throw DimensionMismatch("chebyshev apply: z", n_, z.size);
    if (n_ == 0 && !dist::is_distributed(A_->communicator())) return;  // apply() is collective
    const auto& exec = A_->executor();
    auto res = res_.get_view();
    auto dir = dir_.get_view();
    auto work = work_.get_view();
    // Saad, Alg. 12.1 on B z = c, c = D^-1 r, from z_0 = 0: res_0 = c, d_0 = c / theta.
    const auto& steps = steps_;
    if (scaled_)
        blas::pointwise_mul<T>(exec, inv_diag_.get_view(), r, res);  // res = D^-1 r
    else
        blas::copy<T>(exec, r, res);
    blas::axpby<T>(exec, T(steps[0].second), res, T{0}, dir);  // d = res / theta
    blas::copy<T>(exec, dir, z);                               // z_1 = d_0
    for (int k = 1; k <= degree_; ++k) {
        apply_b(dir, work);                            // w = B d
        blas::axpby<T>(exec, T{-1}, work, T{1}, res);  // res -= B d
        // d = rho_next rho d + (2 rho_next / delta) res
        blas::axpby<T>(exec, T(steps[k].second), res, T(steps[k].first), dir);
        blas::axpby<T>(exec, T{1}, dir, T{1}, z);  // z += d
    }
}

template <typename T>
std::vector<std::pair<double, double>> Chebyshev<T>::step_coefficients(double lambda_min,
                                                                       double lambda_max,
                                                                       int degree) {
    const double theta = 0.5 * (lambda_max + lambda_min), delta = 0.5 * (lambda_max - lambda_min);
    const double sigma = theta / delta;
    double rho = 1 / sigma;
    std::vector<std::pair<double, double>> steps{{0.0, 1 / theta}};
    for (int k = 1; k <= degree; ++k) {
        const double rho_next = 1 / (2 * sigma - rho);
        steps.push_back({rho_next * rho, 2 * rho_next / delta});
        rho = rho_next;
    }
    return steps;
}

template class Chebyshev<double>;
template class Chebyshev<float>;

}  // namespace portla::solver
