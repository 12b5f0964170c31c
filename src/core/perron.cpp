#include "portla/eigen/perron.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "core/kernels/perron_kernels.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"
#include "portla/timer.hpp"

namespace portla::eigen {

std::string to_string(PerronMethod method) {
    switch (method) {
        case PerronMethod::similarity:
            return "similarity";
        case PerronMethod::fused:
            return "fused";
        case PerronMethod::power:
            return "power";
    }
    return "?";
}

PerronMethod parse_perron_method(const std::string& name) {
    for (auto m : {PerronMethod::similarity, PerronMethod::fused, PerronMethod::power})
        if (to_string(m) == name) return m;
    throw BadInput("unknown method '" + name + "' (similarity, fused or power)");
}

std::string to_string(ReductionVariant variant) {
    switch (variant) {
        case ReductionVariant::atomic:
            return "atomic";
        case ReductionVariant::subgroup:
            return "subgroup";
        case ReductionVariant::local:
            return "local";
    }
    return "?";
}

ReductionVariant parse_reduction_variant(const std::string& name) {
    for (auto v : {ReductionVariant::atomic, ReductionVariant::subgroup, ReductionVariant::local})
        if (to_string(v) == name) return v;
    throw BadInput("unknown reduction variant '" + name + "' (atomic, subgroup or local)");
}

namespace {

void check_size(const char* where, std::size_t expected, std::size_t got) {
    if (expected != got) throw DimensionMismatch(where, expected, got);
}

}  // namespace

namespace kernels {

template <typename T>
void row_sums(const Executor& exec, ReductionVariant variant, std::size_t n, const_view<T> a,
              view<T> s) {
    check_size("perron row_sums a", n * n, a.size);
    check_size("perron row_sums s", n, s.size);
    if (n == 0) return;
    dispatch<KernelFamily::perron>(
        exec, [&](auto backend) { perron_row_sums(backend, exec, variant, n, a, s); });
}

template <typename T>
void weighted_row_sums(const Executor& exec, ReductionVariant variant, std::size_t n,
                       const_view<T> a, const_view<T> v, view<T> s) {
    check_size("perron weighted_row_sums a", n * n, a.size);
    check_size("perron weighted_row_sums v", n, v.size);
    check_size("perron weighted_row_sums s", n, s.size);
    if (n == 0) return;
    dispatch<KernelFamily::perron>(
        exec, [&](auto backend) { perron_weighted_row_sums(backend, exec, variant, n, a, v, s); });
}

template <typename T>
void max(const Executor& exec, ReductionVariant variant, const_view<T> x, view<T> result) {
    check_size("perron max result", 1, result.size);
    dispatch<KernelFamily::perron>(
        exec, [&](auto backend) { perron_max(backend, exec, variant, x, result); });
}

template <typename T>
void scale(const Executor& exec, const_view<T> s, const_view<T> m, view<T> v) {
    check_size("perron scale s", v.size, s.size);
    check_size("perron scale m", 1, m.size);
    if (v.size == 0) return;
    dispatch<KernelFamily::perron>(exec,
                                   [&](auto backend) { perron_scale(backend, exec, s, m, v); });
}

template <typename T>
void transform(const Executor& exec, std::size_t n, const_view<T> s, view<T> a) {
    check_size("perron transform a", n * n, a.size);
    check_size("perron transform s", n, s.size);
    if (n == 0) return;
    dispatch<KernelFamily::perron>(exec,
                                   [&](auto backend) { perron_transform(backend, exec, n, s, a); });
}

template <typename T>
void stop_test(const Executor& exec, ReductionVariant variant, const_view<T> s, view<T> result) {
    check_size("perron stop_test result", 1, result.size);
    dispatch<KernelFamily::perron>(
        exec, [&](auto backend) { perron_stop_test(backend, exec, variant, s, result); });
}

template <typename T>
void fused_transform_row_sums(const Executor& exec, ReductionVariant variant, std::size_t n,
                              const_view<T> s, view<T> a, view<T> s_next) {
    check_size("perron fused a", n * n, a.size);
    check_size("perron fused s", n, s.size);
    check_size("perron fused s_next", n, s_next.size);
    if (n == 0) return;
    dispatch<KernelFamily::perron>(exec, [&](auto backend) {
        perron_fused_transform_row_sums(backend, exec, variant, n, s, a, s_next);
    });
}

}  // namespace kernels

template <typename T>
void check_positive(std::size_t n, const T* values, const std::string& what) {
    for (std::size_t k = 0; k < n * n; ++k)
        if (!(values[k] > T(0)) || !std::isfinite(values[k]))
            throw BadInput(what + ": entry (" + std::to_string(k / n + 1) + ", " +
                           std::to_string(k % n + 1) + ") is " + std::to_string(values[k]) +
                           "; the method needs a positive matrix (every entry > 0 and finite)");
}

namespace {

// ||av - lambda v|| / ||lambda v||, av = A v given
template <typename T, typename U>
double residual_of(std::size_t n, const U* av, const T* v, double lambda) {
    double rr = 0, lv = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double lvi = lambda * double(v[i]);
        rr += (double(av[i]) - lvi) * (double(av[i]) - lvi);
        lv += lvi * lvi;
    }
    return lv > 0 ? std::sqrt(rr / lv) : std::sqrt(rr);
}

}  // namespace

template <typename T>
double relative_residual(std::size_t n, const T* a, const T* v, double lambda) {
    std::vector<double> av(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) av[i] += double(a[i * n + j]) * double(v[j]);
    return residual_of(n, av.data(), v, lambda);
}

namespace {

void check_settings(const PerronSettings& s) {
    if (!(s.eps > 0) || !std::isfinite(s.eps))
        throw BadInput("perron: eps must be finite and > 0, got " + std::to_string(s.eps));
    if (s.max_iters < 1)
        throw BadInput("perron: max_iters must be >= 1, got " + std::to_string(s.max_iters));
}

// The iteration on a (overwritten by the similarity and fused methods). Per round the host
// reads two device values, max s and the stop test's max |s_i - s_{i+1}|: one transfer.
template <typename T>
PerronResult iterate(const Executor& exec, std::size_t n, view<T> a, view<T> v,
                     const PerronSettings& settings) {
    using namespace kernels;
    const auto variant = settings.variant;
    const auto method = settings.method;
    PerronResult res;
    Timer timer(exec);
    timer.start();

    Array<T> s(exec, n), s_next(exec, method == PerronMethod::fused ? n : 0);
    Array<T> scalars(exec, 2);  // [0] = max s, [1] = max |s_i - s_{i+1}|
    const view<T> m(scalars.data(), 1), diff(scalars.data() + 1, 1);
    blas::fill<T>(exec, v, T(1));
    T host[2] = {T(0), T(0)};
    if (method == PerronMethod::fused) row_sums<T>(exec, variant, n, a, s);  // s of A_0
    // Round k evaluates the row sums of A_k; k counts the transforms applied (the published
    // "rounds": 9 for Hilbert 128 in float at eps 1e-3).
    for (int k = 0;; ++k) {
        res.iterations = k;
        if (method == PerronMethod::similarity) row_sums<T>(exec, variant, n, a, s);
        if (method == PerronMethod::power) weighted_row_sums<T>(exec, variant, n, a, v, s);
        // v <- v .* s / max s  (power: = A v / max s)
        eigen::kernels::max<T>(exec, variant, s, m);
        scale<T>(exec, s, m, v);
        stop_test<T>(exec, variant, s, diff);
        Executor::copy_bytes(Executor::reference(), host, exec, scalars.data(), sizeof(host));
        res.eigenvalue = host[0];
        res.max_difference = host[1];
        if (!std::isfinite(host[0]) || !std::isfinite(host[1])) {
            res.reason = solver::StopReason::non_finite;
            break;
        }
        if (host[1] < settings.eps) {
            res.converged = true;
            res.reason = solver::StopReason::converged;
            break;
        }
        if (k == settings.max_iters) break;
        // A <- D^-1 A D, D = diag(s)
        if (method == PerronMethod::similarity) transform<T>(exec, n, s, a);
        if (method == PerronMethod::fused) {
            // ... and s <- row sums of the new A, in the same pass
            fused_transform_row_sums<T>(exec, variant, n, s, a, s_next);
            std::swap(s, s_next);
        }
    }
    timer.stop();
    res.time_s = timer.seconds();
    return res;
}

template <typename T>
void check_inputs(const Executor& exec, std::size_t n, const_view<T> a, view<T> v,
                  const PerronSettings& settings) {
    check_settings(settings);
    check_size("perron matrix", n * n, a.size);
    check_size("perron eigenvector", n, v.size);
    if (n == 0) throw BadInput("perron: the matrix is empty");
    if (!settings.check_positive) return;
    if (exec.is_host()) return check_positive(n, a.data, "perron matrix");
    std::vector<T> host(n * n);
    Executor::copy_bytes(Executor::reference(), host.data(), exec, a.data, n * n * sizeof(T));
    check_positive(n, host.data(), "perron matrix");
}

}  // namespace

template <typename T>
PerronResult perron_in_place(const Executor& exec, std::size_t n, view<T> a, view<T> v,
                             const PerronSettings& settings) {
    check_inputs<T>(exec, n, a, v, settings);
    return iterate(exec, n, a, v, settings);
}

template <typename T>
PerronResult perron(const Dense<T>& A, view<T> v, const PerronSettings& settings) {
    const Executor& exec = A.executor();
    if (A.rows() != A.cols()) throw DimensionMismatch("perron: square matrix", A.rows(), A.cols());
    const std::size_t n = A.rows();
    check_inputs<T>(exec, n, A.values().get_view(), v, settings);
    PerronResult res;
    if (settings.method == PerronMethod::power) {
        // never written by the power method
        const view<T> a(const_cast<T*>(A.values().data()), n * n);
        res = iterate(exec, n, a, v, settings);
    } else {
        Timer timer(exec);  // includes the copy of A
        timer.start();
        Array<T> work(exec, A.values());
        res = iterate<T>(exec, n, work, v, settings);
        timer.stop();
        res.time_s = timer.seconds();
    }
    // ||A v - lambda v|| / ||lambda v|| with y = A v on the executor, the rest on the host
    Array<T> y(exec, n);
    A.apply(v, y);
    const auto yh = y.to_host();
    std::vector<T> vh(n);
    Executor::copy_bytes(Executor::reference(), vh.data(), exec, v.data, n * sizeof(T));
    res.residual = residual_of(n, yh.data(), vh.data(), res.eigenvalue);
    return res;
}

#define PORTLA_INSTANTIATE_PERRON(T)                                                            \
    template PerronResult perron_in_place<T>(const Executor&, std::size_t, view<T>, view<T>,    \
                                             const PerronSettings&);                            \
    template PerronResult perron<T>(const Dense<T>&, view<T>, const PerronSettings&);           \
    template void check_positive<T>(std::size_t, const T*, const std::string&);                 \
    template double relative_residual<T>(std::size_t, const T*, const T*, double);              \
    template void kernels::row_sums<T>(const Executor&, ReductionVariant, std::size_t,          \
                                       const_view<T>, view<T>);                                 \
    template void kernels::weighted_row_sums<T>(const Executor&, ReductionVariant, std::size_t, \
                                                const_view<T>, const_view<T>, view<T>);         \
    template void kernels::max<T>(const Executor&, ReductionVariant, const_view<T>, view<T>);   \
    template void kernels::scale<T>(const Executor&, const_view<T>, const_view<T>, view<T>);    \
    template void kernels::transform<T>(const Executor&, std::size_t, const_view<T>, view<T>);  \
    template void kernels::stop_test<T>(const Executor&, ReductionVariant, const_view<T>,       \
                                        view<T>);                                               \
    template void kernels::fused_transform_row_sums<T>(                                         \
        const Executor&, ReductionVariant, std::size_t, const_view<T>, view<T>, view<T>)
PORTLA_INSTANTIATE_PERRON(double);
PORTLA_INSTANTIATE_PERRON(float);

}  // namespace portla::eigen
