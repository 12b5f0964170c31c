#include "bench/gemm_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "portla/environment.hpp"
#include "portla/timer.hpp"
#include "portla/error.hpp"

namespace portla::bench {
namespace {

// Uniform in [-1, 1) from a counter (splitmix64): the same matrix on every backend and
// thread count, filled in parallel.
double counter_uniform(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return double(x >> 11) * 0x1.0p-52 - 1.0;
}

template <typename T>
std::vector<T> random_matrix(std::size_t count, std::uint64_t seed) {
    std::vector<T> v(count);
    const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
        v[i] =
            static_cast<T>(counter_uniform(seed * 0x100000000ull + static_cast<std::uint64_t>(i)));
    return v;
}

template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<T>& want) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double d = double(got[i]) - double(want[i]);
        diff += d * d;
        norm += double(want[i]) * double(want[i]);
    }
    if (std::isnan(diff)) return std::numeric_limits<double>::quiet_NaN();
    return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// Seconds of one call, through the executor's timer (device events on a GPU).
template <typename Fn>
double time_call(Timer& timer, Fn&& fn) {
    timer.start();
    fn();
    timer.stop();
    return timer.seconds();
}

template <typename T>
std::vector<GemmResult> run_typed(const GemmCase& gc) {
    const Executor exec = executor_from_environment(gc.backend);
    for (auto v : gc.variants)
        if (!gemm_supported(exec.backend(), v))
            throw Unsupported("gemm variant '" + to_string(v) + "' is not implemented on the " +
                              exec.name() + " backend");
    const std::size_t m = gc.m, n = gc.n, k = gc.k;
    const T alpha = static_cast<T>(gc.alpha), beta = static_cast<T>(gc.beta);
    const auto a_host = random_matrix<T>(m * k, 1), b_host = random_matrix<T>(k * n, 2);
    const auto c0 = beta == T(0) ? std::vector<T>(m * n, std::numeric_limits<T>::quiet_NaN())
                                 : random_matrix<T>(m * n, 3);
    Array<T> a(exec, a_host), b(exec, b_host), c(exec, m * n);

    // C_check: the reference backend for small products, else the vendor library (or, for the
    // vendor variant, the fast one) on the backend under test; the reference backend checks
    // against OpenBLAS.
    const bool small = double(m) * double(n) * double(k) <= reference_limit();
    auto check_for = [&](GemmVariant v) -> std::pair<std::string, std::vector<T>> {
        Executor check_exec = small ? Executor::reference() : exec;
        if (!small && exec.backend() == Backend::reference) check_exec = Executor::omp();
        const GemmVariant check_variant =
            small ? GemmVariant::naive
                  : (v == GemmVariant::vendor ? GemmVariant::fast : GemmVariant::vendor);
        Array<T> ca(check_exec, a_host), cb(check_exec, b_host), cc(check_exec, c0);
        gemm<T>(check_exec, m, n, k, alpha, ca, cb, beta, cc, check_variant);
        return {small ? "reference" : to_string(check_variant), cc.to_host()};
    };
    std::vector<std::pair<std::string, std::vector<T>>> checks;  // [0]: vendor/reference, [1]: fast

    Timer timer(exec);
    std::vector<GemmResult> results;
    for (auto v : gc.variants) {
        GemmResult r;
        r.variant = v;
        r.backend = exec.name();
        r.precision = gc.precision;
        r.device = exec.device_name();
        r.m = m, r.n = n, r.k = k;
        c.copy_from_host(c0);  // poisoned (NaN) when beta == 0: every element must be written
        gemm<T>(exec, m, n, k, alpha, a, b, beta, c, v);
        const auto got = c.to_host();
        const std::size_t slot = (!small && v == GemmVariant::vendor) ? 1 : 0;
        if (checks.size() <= slot) checks.resize(slot + 1);
        if (checks[slot].second.empty()) checks[slot] = check_for(v);
        r.checked_against = checks[slot].first;
        r.relative_error = relative_error(got, checks[slot].second);

        std::vector<double> times;
        double total = 0;
        while (static_cast<int>(times.size()) < std::max(gc.reps, 3) &&
               (times.size() < 3 || total < gc.max_time_s)) {
            times.push_back(
                time_call(timer, [&] { gemm<T>(exec, m, n, k, alpha, a, b, beta, c, v); }));
            total += times.back();
        }
        std::sort(times.begin(), times.end());
        r.reps = static_cast<int>(times.size());
        r.time_s = times[times.size() / 2];
        r.time_min_s = times.front();
        r.time_max_s = times.back();
        r.gflops = 2.0 * double(m) * double(n) * double(k) / r.time_s / 1e9;
        results.push_back(r);
    }
    return results;
}

}  // namespace

double reference_limit() { return 512.0 * 512.0 * 512.0; }

std::vector<GemmResult> run_gemm(const GemmCase& c) {
    if (c.m == 0 || c.n == 0 || c.k == 0)
        throw BadInput("gemm: --m, --n and --k must be at least 1");
    if (!std::isfinite(c.alpha) || !std::isfinite(c.beta))
        throw BadInput("gemm: alpha and beta must be finite");
    if (c.precision == "double") return run_typed<double>(c);
    if (c.precision == "float") return run_typed<float>(c);
    throw BadInput("gemm: --precision must be float or double, got '" + c.precision + "'");
}

}  // namespace portla::bench
