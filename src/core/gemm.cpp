#include "portla/gemm.hpp"

#include <climits>

#include "core/kernels/gemm_kernels.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"

namespace portla {
namespace {

constexpr const char* kVariantNames[] = {"naive", "tiled", "subgroup", "fast", "vendor"};

void check_dim(const char* name, std::size_t value) {
    if (value > static_cast<std::size_t>(INT_MAX))
        throw BadInput(std::string("gemm: ") + name + " = " + std::to_string(value) +
                       " exceeds 2^31 - 1");
}

void check_size(const char* where, std::size_t expected, std::size_t got) {
    if (expected != got) throw DimensionMismatch(where, expected, got);
}

}  // namespace

std::string to_string(GemmVariant variant) { return kVariantNames[static_cast<int>(variant)]; }

GemmVariant parse_gemm_variant(const std::string& name) {
    for (int i = 0; i < 5; ++i)
        if (name == kVariantNames[i]) return static_cast<GemmVariant>(i);
    throw BadInput("unknown gemm variant '" + name +
                   "' (expected naive, tiled, subgroup, fast or vendor)");
}

bool gemm_supported(Backend backend, GemmVariant variant) {
    if (backend == Backend::omp)
        return variant != GemmVariant::tiled && variant != GemmVariant::subgroup;
    if (backend == Backend::opencl)  // fast runs tiled; no sub-group variant or library yet
        return variant != GemmVariant::subgroup && variant != GemmVariant::vendor;
    return true;
}

template <typename T>
void gemm(const Executor& exec, std::size_t m, std::size_t n, std::size_t k, T alpha,
          const_view<T> a, const_view<T> b, T beta, view<T> c, GemmVariant variant) {
    check_dim("m", m);
    check_dim("n", n);
    check_dim("k", k);
    check_size("gemm A (m k elements)", m * k, a.size);
    check_size("gemm B (k n elements)", k * n, b.size);
    check_size("gemm C (m n elements)", m * n, c.size);
    if (!gemm_supported(exec.backend(), variant))
        throw Unsupported(
            "gemm variant '" + to_string(variant) + "' is not implemented on the " + exec.name() +
            " backend (" +
            (exec.backend() == Backend::omp ? "naive, fast and vendor" : "naive, tiled and fast") +
            " are)");
    if (m == 0 || n == 0) return;
    if (k == 0) {  // C = beta C; C is not read when beta == 0
        if (beta == T(0)) return blas::fill(exec, c, T(0));
        return blas::axpby(exec, beta, const_view<T>(c), T(0), c);  // beta C, Inf stays Inf
    }
    dispatch<KernelFamily::gemm>(
        exec, [&](auto backend) { gemm(backend, exec, variant, m, n, k, alpha, a, b, beta, c); });
}

template <typename T>
void gemm(T alpha, const Dense<T>& a, const Dense<T>& b, T beta, view<T> c, GemmVariant variant) {
    if (a.cols() != b.rows())
        throw DimensionMismatch("gemm: A columns vs B rows", a.cols(), b.rows());
    if (a.executor() != b.executor())
        throw BadInput("gemm: A and B live on different executors (" + a.executor().name() + ", " +
                       b.executor().name() + ")");
    gemm(a.executor(), a.rows(), b.cols(), a.cols(), alpha, a.values().get_view(),
         b.values().get_view(), beta, c, variant);
}

#define PORTLA_INSTANTIATE_GEMM(T)                                                   \
    template void gemm<T>(const Executor&, std::size_t, std::size_t, std::size_t, T, \
                          const_view<T>, const_view<T>, T, view<T>, GemmVariant);    \
    template void gemm<T>(T, const Dense<T>&, const Dense<T>&, T, view<T>, GemmVariant)
PORTLA_INSTANTIATE_GEMM(double);
PORTLA_INSTANTIATE_GEMM(float);

}  // namespace portla
