#include "portla/blas.hpp"

#include <cmath>
#include <complex>

#include "core/dispatch_values.hpp"
#include "core/kernels/blas1_kernels.hpp"
#include "portla/error.hpp"

namespace portla::blas {
namespace {

void check_size(const char* where, std::size_t expected, std::size_t got) {
    if (expected != got) throw DimensionMismatch(where, expected, got);
}

template <typename T>
T reduce_to_host(const Executor& exec,
                 void (*reduce)(const Executor&, const_view<T>, const_view<T>, view<T>),
                 const_view<T> x, const_view<T> y) {
    if (exec.is_host()) {
        T result{};
        reduce(exec, x, y, view<T>(&result, 1));
        return result;
    }
    Array<T> result(exec, 1);
    reduce(exec, x, y, result.get_view());
    return result.to_host()[0];
}

}  // namespace

template <typename T>
void fill(const Executor& exec, view<T> x, T value) {
    if (x.size == 0) return;
    dispatch_values<T>(exec, [&](auto backend) { fill(backend, exec, x, value); });
}

template <typename T>
void copy(const Executor& exec, const_view<T> x, view<T> y) {
    check_size("copy", x.size, y.size);
    if (x.size == 0) return;
    dispatch_values<T>(exec, [&](auto backend) { copy(backend, exec, x, y); });
}

template <typename T>
void axpby(const Executor& exec, T a, const_view<T> x, T b, view<T> y) {
    check_size("axpby", x.size, y.size);
    if (x.size == 0) return;
    dispatch_values<T>(exec, [&](auto backend) { axpby(backend, exec, a, x, b, y); });
}

template <typename T>
void pointwise_mul(const Executor& exec, const_view<T> x, const_view<T> y, view<T> z) {
    check_size("pointwise_mul", x.size, y.size);
    check_size("pointwise_mul", x.size, z.size);
    if (x.size == 0) return;
    dispatch_values<T>(exec, [&](auto backend) { pointwise_mul(backend, exec, x, y, z); });
}

template <typename T>
void dot(const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    check_size("dot", x.size, y.size);
    check_size("dot result", 1, result.size);
    dispatch_values<T>(exec, [&](auto backend) { dot(backend, exec, x, y, result); });
}

template <typename T>
T dot(const Executor& exec, const_view<T> x, const_view<T> y) {
    return reduce_to_host<T>(
        exec,
        [](const Executor& e, const_view<T> a, const_view<T> b, view<T> r) { dot(e, a, b, r); }, x,
        y);
}

template <typename T>
void norm2(const Executor& exec, const_view<T> x, view<T> result) {
    check_size("norm2 result", 1, result.size);
    dispatch_values<T>(exec, [&](auto backend) { norm2(backend, exec, x, result); });
}

template <typename T>
T norm2(const Executor& exec, const_view<T> x) {
    return reduce_to_host<T>(
        exec, [](const Executor& e, const_view<T> a, const_view<T>, view<T> r) { norm2(e, a, r); },
        x, x);
}

template <typename T>
void fused_cg_update(const Executor& exec, T alpha, const_view<T> p, const_view<T> q, view<T> x,
                     view<T> r, view<T> rr) {
    check_size("fused_cg_update p", r.size, p.size);
    check_size("fused_cg_update q", r.size, q.size);
    check_size("fused_cg_update x", r.size, x.size);
    check_size("fused_cg_update result", 1, rr.size);
    dispatch_values<T>(
        exec, [&](auto backend) { fused_cg_update(backend, exec, alpha, p, q, x, r, rr); });
}

template <typename T>
std::size_t invert_diagonal(const Executor& exec, view<T> d) {
    if (d.size == 0) return 0;
    const unsigned long long none = ~0ull;
    Array<unsigned long long> first_bad(exec, std::vector<unsigned long long>{none});
    dispatch_values<T>(
        exec, [&](auto backend) { invert_diagonal(backend, exec, d, first_bad.get_view()); });
    const unsigned long long bad = first_bad.to_host()[0];
    return bad == none ? d.size : static_cast<std::size_t>(bad);
}

#define PORTLA_INSTANTIATE_BLAS(T)                                                              \
    template void fill<T>(const Executor&, view<T>, T);                                         \
    template void copy<T>(const Executor&, const_view<T>, view<T>);                             \
    template void axpby<T>(const Executor&, T, const_view<T>, T, view<T>);                      \
    template void pointwise_mul<T>(const Executor&, const_view<T>, const_view<T>, view<T>);     \
    template void dot<T>(const Executor&, const_view<T>, const_view<T>, view<T>);               \
    template T dot<T>(const Executor&, const_view<T>, const_view<T>);                           \
    template void norm2<T>(const Executor&, const_view<T>, view<T>);                            \
    template T norm2<T>(const Executor&, const_view<T>);                                        \
    template std::size_t invert_diagonal<T>(const Executor&, view<T>);                          \
    template void fused_cg_update<T>(const Executor&, T, const_view<T>, const_view<T>, view<T>, \
                                     view<T>, view<T>)
PORTLA_INSTANTIATE_BLAS(double);
PORTLA_INSTANTIATE_BLAS(float);
PORTLA_INSTANTIATE_BLAS(std::complex<double>);
PORTLA_INSTANTIATE_BLAS(std::complex<float>);

}  // namespace portla::blas
