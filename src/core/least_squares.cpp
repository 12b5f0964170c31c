// LSQR and LSMR, written once over the blas kernels and the operator's apply / apply_transpose.
// Both run the Golub-Kahan bidiagonalisation beta_1 u_1 = b - A x0, alpha_1 v_1 = A^T u_1,
// beta_{k+1} u_{k+1} = A v_k - alpha_k u_k, alpha_{k+1} v_{k+1} = A^T u_{k+1} - beta_{k+1} v_k;
// the scalars of the plane rotations and of the norm estimates stay on the host in double. For
// complex values A^T is the adjoint A^H (apply_transpose) and every scalar stays real (alpha and
// beta are norms), as in SciPy; lsqr's var then sums d_k^2 (not |d_k|^2), as SciPy's does.
#include "portla/solver/least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "core/solver_common.hpp"

namespace portla::solver {

std::string least_squares_message(int istop) {
    switch (istop) {
        case 0:
            return "The exact solution is x = 0";
        case 1:
            return "Ax - b is small enough, given atol, btol";
        case 2:
            return "The least-squares solution is good enough, given atol";
        case 3:
            return "The estimate of cond(Abar) has exceeded conlim";
        case 4:
            return "Ax - b is small enough for this machine";
        case 5:
            return "The least-squares solution is good enough for this machine";
        case 6:
            return "Cond(Abar) seems to be too large for this machine";
        case 7:
            return "The iteration limit has been reached";
        default:
            throw BadInput("least_squares_message: istop must be 0..7 (got " +
                           std::to_string(istop) + ")");
    }
}

namespace {

// A plane rotation [c s; -s c] with [c s; -s c] [a; b] = [r; 0], r >= 0, computed without
// overflow (the larger of |a|, |b| divides the other).
struct Rotation {
    double c, s, r;
};
Rotation rotation(double a, double b) {
    auto sign = [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; };
    if (b == 0) return {sign(a), 0, std::abs(a)};
    if (a == 0) return {0, sign(b), std::abs(b)};
    if (std::abs(b) > std::abs(a)) {
        const double tau = a / b, s = sign(b) / std::sqrt(1 + tau * tau);
        return {s * tau, s, b / s};
    }
    const double tau = b / a, c = sign(a) / std::sqrt(1 + tau * tau);
    return {c, c * tau, a / c};
}

// The bidiagonalisation's vectors and its checks, shared by LSQR and LSMR.
template <typename T>
class Bidiagonalisation {
public:
    // Checks the inputs, sets x (x0 or 0) and u_1, v_1: beta = ||b - A x0||, alpha.
    Bidiagonalisation(const char* name, const LinearOperator<T>& A, const_view<T> b, view<T> x,
                      const LeastSquaresSettings& s)
        : name_(name),
          A_(A),
          exec_(A.executor()),
          u_(exec_, A.rows()),
          v_(exec_, A.cols()),
          scratch_m_(exec_, A.rows()),
          scratch_n_(exec_, A.cols()) {
        check(b, x, s);
        bnorm = norm(b);
        if (!std::isfinite(bnorm)) throw BadInput(name_ + ": b contains NaN or Inf");
        if (s.use_initial_guess && !std::isfinite(norm(x)))
            throw BadInput(name_ + ": x0 contains NaN or Inf");
        if (!s.use_initial_guess) blas::fill(exec_, x, T{0});
        if (bnorm == 0) {  // x = 0 is the answer (zero_rhs): no operator application
            blas::fill(exec_, view<T>(v_), T{0});
            return;
        }
        detail::initial_residual<T>(A, b, x, u_, detail_settings(s));  // u = b - A x0
        beta = norm(u_);
        finite(beta, "A x0");
        if (beta > 0) {
            scale(u_, beta);
            A.apply_transpose(u_, v_);  // v = A^T u
            alpha = norm(v_);
            finite(alpha, "A^T u");
        } else {
            blas::fill(exec_, view<T>(v_), T{0});
        }
        if (alpha > 0) scale(v_, alpha);
    }

    // The next step: u = (A v - alpha u) / beta, v = (A^T u - beta v) / alpha.
    void step() {
        A_.apply(v_, scratch_m_);
        blas::axpby<T>(exec_, T{1}, scratch_m_, static_cast<T>(-alpha), u_);
        beta = norm(u_);
        finite(beta, "A v");
        if (beta > 0) {
            scale(u_, beta);
            A_.apply_transpose(u_, scratch_n_);
            blas::axpby<T>(exec_, T{1}, scratch_n_, static_cast<T>(-beta), v_);
            alpha = norm(v_);
            finite(alpha, "A^T u");
            if (alpha > 0) scale(v_, alpha);
        }
    }

    // b = 0: x = 0 is the exact solution (x0 aside); sets x to it and returns true.
    bool zero_rhs(view<T> x) {
        if (bnorm != 0) return false;
        blas::fill(exec_, x, T{0});
        return true;
    }
    double norm(const_view<T> a) const { return detail::norm2<T>(A_, a); }
    const_view<T> v() const { return v_; }
    view<T> scratch() { return scratch_n_; }
    const Executor& exec() const { return exec_; }

    double bnorm = 0, alpha = 0, beta = 0;

private:
    void check(const_view<T> b, view<T> x, const LeastSquaresSettings& s) const {
        if (b.size != A_.rows()) throw DimensionMismatch(name_ + ": b", A_.rows(), b.size);
        if (x.size != A_.cols()) throw DimensionMismatch(name_ + ": x", A_.cols(), x.size);
        for (const auto& [value, what] : {std::pair{s.damp, "damp"}, std::pair{s.atol, "atol"},
                                          std::pair{s.btol, "btol"}, std::pair{s.conlim, "conlim"}})
            if (!(value >= 0) || !std::isfinite(value))
                throw BadInput(name_ + ": " + what + " must be finite and >= 0");
        detail::require_transpose(name_.c_str(), A_);
    }
    static Settings detail_settings(const LeastSquaresSettings& s) {
        Settings settings;
        settings.use_initial_guess = s.use_initial_guess;
        return settings;
    }
    void scale(view<T> a, double by) { blas::axpby<T>(exec_, T{0}, a, static_cast<T>(1 / by), a); }
    void finite(double value, const char* what) const {
        if (!std::isfinite(value))
            throw BadInput(name_ + ": " + what +
                           " contains NaN or Inf (A has non-finite entries, " +
                           "or the iteration overflowed)");
    }

    std::string name_;
    const LinearOperator<T>& A_;
    const Executor& exec_;
    Array<T> u_, v_, scratch_m_, scratch_n_;
};

long long iteration_limit(const LeastSquaresSettings& s, long long fallback) {
    return s.iter_lim >= 0 ? s.iter_lim : fallback;
}

// SciPy's istop from the tests of one iteration, the first that holds in the order 7, 6, ..., 1
// overridden by the later ones (the smallest code wins among 1..3, then 4..6, then 7).
int stop_code(long long it, long long limit, double test1, double test2, double test3, double t1,
              double rtol, const LeastSquaresSettings& s) {
    const double ctol = s.conlim > 0 ? 1 / s.conlim : 0;
    int istop = 0;
    if (it >= limit) istop = 7;
    if (1 + test3 <= 1) istop = 6;
    if (1 + test2 <= 1) istop = 5;
    if (1 + t1 <= 1) istop = 4;
    if (test3 <= ctol) istop = 3;
    if (test2 <= s.atol) istop = 2;
    if (test1 <= rtol) istop = 1;
    return istop;
}

}  // namespace

template <typename T>
LeastSquaresResult lsqr(const LinearOperator<T>& A, const_view<T> b, view<T> x,
                        const LeastSquaresSettings& s, view<T> var) {
    if (s.calc_var && var.size != A.cols())
        throw DimensionMismatch("lsqr: var", A.cols(), var.size);
    Bidiagonalisation<T> gk("lsqr", A, b, x, s);
    const auto& exec = gk.exec();
    const long long limit = iteration_limit(s, 2 * static_cast<long long>(A.cols()));
    const double eps = std::numeric_limits<double>::epsilon();
    const double dampsq = s.damp * s.damp;
    if (s.calc_var) blas::fill(exec, var, T{0});
    LeastSquaresResult r;
    Array<T> w(exec, A.cols());
    blas::copy<T>(exec, gk.v(), w);
    double rhobar = gk.alpha, phibar = gk.beta, anorm = 0, ddnorm = 0, res2 = 0, xxnorm = 0;
    double z = 0, cs2 = -1, sn2 = 0;
    r.r1norm = r.r2norm = gk.beta;
    r.arnorm = gk.alpha * gk.beta;
    if (gk.zero_rhs(x)) return r;
    if (r.arnorm == 0) return r;  // b = A x0 or A^T (b - A x0) = 0: x0 is the answer
    while (r.iterations < limit) {
        ++r.iterations;
        const double alpha = gk.alpha;
        gk.step();
        if (gk.beta > 0)
            anorm = std::sqrt(anorm * anorm + alpha * alpha + gk.beta * gk.beta + dampsq);
        // Rotate the damping away, then the subdiagonal beta.
        double rhobar1 = rhobar, psi = 0;
        if (s.damp > 0) {
            rhobar1 = std::hypot(rhobar, s.damp);
            psi = s.damp / rhobar1 * phibar;
            phibar *= rhobar / rhobar1;
        }
        const Rotation q = rotation(rhobar1, gk.beta);
        const double rho = q.r, theta = q.s * gk.alpha;
        rhobar = -q.c * gk.alpha;
        const double phi = q.c * phibar;
        phibar *= q.s;
        const double tau = q.s * phi;
        // d_k = w / rho;  x += (phi / rho) w;  w = v - (theta / rho) w
        const double wnorm = gk.norm(w);
        ddnorm += (wnorm / rho) * (wnorm / rho);
        if (s.calc_var) {
            auto w2 = gk.scratch();
            blas::pointwise_mul<T>(exec, w, w, w2);
            blas::axpby<T>(exec, static_cast<T>(1 / (rho * rho)), w2, T{1}, var);  // var += d_k^2
        }
        blas::axpby<T>(exec, static_cast<T>(phi / rho), w, T{1}, x);
        blas::axpby<T>(exec, T{1}, gk.v(), static_cast<T>(-theta / rho), w);
        // ||x|| from the lower-bidiagonal system of its components (one rotation more).
        const double delta = sn2 * rho, gambar = -cs2 * rho, rhs = phi - delta * z;
        const double zbar = rhs / gambar;
        r.xnorm = std::sqrt(xxnorm + zbar * zbar);
        const double gamma = std::hypot(gambar, theta);
        cs2 = gambar / gamma;
        sn2 = theta / gamma;
        z = rhs / gamma;
        xxnorm += z * z;
        r.anorm = anorm;
        r.acond = anorm * std::sqrt(ddnorm);
        res2 += psi * psi;
        const double rnorm = std::sqrt(phibar * phibar + res2);
        r.arnorm = gk.alpha * std::abs(tau);
        const double r1sq = rnorm * rnorm - dampsq * xxnorm;
        r.r1norm = std::copysign(std::sqrt(std::abs(r1sq)), r1sq);
        r.r2norm = rnorm;
        const double test1 = rnorm / gk.bnorm, test2 = r.arnorm / (anorm * rnorm + eps);
        const double test3 = 1 / (r.acond + eps);
        const double t1 = test1 / (1 + anorm * r.xnorm / gk.bnorm);
        const double rtol = s.btol + s.atol * anorm * r.xnorm / gk.bnorm;
        r.istop = stop_code(r.iterations, limit, test1, test2, test3, t1, rtol, s);
        if (r.istop != 0) break;
    }
    return r;
}

template <typename T>
LeastSquaresResult lsmr(const LinearOperator<T>& A, const_view<T> b, view<T> x,
                        const LeastSquaresSettings& s) {
    Bidiagonalisation<T> gk("lsmr", A, b, x, s);
    const auto& exec = gk.exec();
    const long long limit =
        iteration_limit(s, static_cast<long long>(std::min(A.rows(), A.cols())));
    LeastSquaresResult r;
    Array<T> h(exec, A.cols()), hbar(exec, A.cols());
    blas::copy<T>(exec, gk.v(), h);
    blas::fill(exec, view<T>(hbar), T{0});
    double zetabar = gk.alpha * gk.beta, alphabar = gk.alpha, rho = 1, rhobar = 1, cbar = 1;
    double sbar = 0;
    // ||r||: the rotations applied to the right-hand side (beta's double-dotted and checked
    // forms, Fong & Saunders section 3.4).
    double betadd = gk.beta, betad = 0, rhodold = 1, tautildeold = 0, thetatilde = 0, zeta = 0;
    double d = 0;
    // ||A|| and cond(A)
    double norm_a2 = gk.alpha * gk.alpha, maxrbar = 0, minrbar = 1e100;
    r.anorm = std::sqrt(norm_a2);
    r.acond = 1;
    r.r1norm = r.r2norm = gk.beta;
    r.arnorm = gk.alpha * gk.beta;
    if (gk.zero_rhs(x) || r.arnorm == 0) return r;
    while (r.iterations < limit) {
        ++r.iterations;
        gk.step();
        const Rotation qhat = rotation(alphabar, s.damp);  // the damping
        const double rhoold = rho;
        const Rotation q = rotation(qhat.r, gk.beta);
        rho = q.r;
        const double thetanew = q.s * gk.alpha;
        alphabar = q.c * gk.alpha;
        const double rhobarold = rhobar, zetaold = zeta, thetabar = sbar * rho;
        const double rhotemp = cbar * rho;
        const Rotation qbar = rotation(cbar * rho, thetanew);
        cbar = qbar.c;
        sbar = qbar.s;
        rhobar = qbar.r;
        zeta = cbar * zetabar;
        zetabar *= -sbar;
        // hbar = h - (thetabar rho / (rhoold rhobarold)) hbar;  x += (zeta / (rho rhobar)) hbar;
        // h = v - (thetanew / rho) h
        blas::axpby<T>(exec, T{1}, h, static_cast<T>(-thetabar * rho / (rhoold * rhobarold)), hbar);
        blas::axpby<T>(exec, static_cast<T>(zeta / (rho * rhobar)), hbar, T{1}, x);
        blas::axpby<T>(exec, T{1}, gk.v(), static_cast<T>(-thetanew / rho), h);
        // ||r||
        const double betaacute = qhat.c * betadd, betacheck = -qhat.s * betadd;
        const double betahat = q.c * betaacute;
        betadd = -q.s * betaacute;
        const double thetatildeold = thetatilde;
        const Rotation qtilde = rotation(rhodold, thetabar);
        thetatilde = qtilde.s * rhobar;
        rhodold = qtilde.c * rhobar;
        betad = -qtilde.s * betad + qtilde.c * betahat;
        tautildeold = (zetaold - thetatildeold * tautildeold) / qtilde.r;
        const double taud = (zeta - thetatilde * tautildeold) / rhodold;
        d += betacheck * betacheck;
        r.r2norm = std::sqrt(d + (betad - taud) * (betad - taud) + betadd * betadd);
        r.r1norm = r.r2norm;
        // ||A||_F of the bidiagonal so far, and cond(A) from the extreme diagonals of R-bar
        norm_a2 += gk.beta * gk.beta;
        r.anorm = std::sqrt(norm_a2);
        norm_a2 += gk.alpha * gk.alpha;
        maxrbar = std::max(maxrbar, rhobarold);
        if (r.iterations > 1) minrbar = std::min(minrbar, rhobarold);
        r.acond = std::max(maxrbar, rhotemp) / std::min(minrbar, rhotemp);
        r.arnorm = std::abs(zetabar);
        r.xnorm = gk.norm(x);
        const double test1 = r.r2norm / gk.bnorm;
        const double test2 = r.anorm * r.r2norm != 0 ? r.arnorm / (r.anorm * r.r2norm)
                                                     : std::numeric_limits<double>::infinity();
        const double test3 = 1 / r.acond;
        const double t1 = test1 / (1 + r.anorm * r.xnorm / gk.bnorm);
        const double rtol = s.btol + s.atol * r.anorm * r.xnorm / gk.bnorm;
        r.istop = stop_code(r.iterations, limit, test1, test2, test3, t1, rtol, s);
        if (r.istop != 0) break;
    }
    return r;
}

#define PORTLA_INSTANTIATE_LEAST_SQUARES(T)                                               \
    template LeastSquaresResult lsqr<T>(const LinearOperator<T>&, const_view<T>, view<T>, \
                                        const LeastSquaresSettings&, view<T>);            \
    template LeastSquaresResult lsmr<T>(const LinearOperator<T>&, const_view<T>, view<T>, \
                                        const LeastSquaresSettings&)
PORTLA_INSTANTIATE_LEAST_SQUARES(double);
PORTLA_INSTANTIATE_LEAST_SQUARES(float);
PORTLA_INSTANTIATE_LEAST_SQUARES(std::complex<double>);
PORTLA_INSTANTIATE_LEAST_SQUARES(std::complex<float>);
#undef PORTLA_INSTANTIATE_LEAST_SQUARES

}  // namespace portla::solver
