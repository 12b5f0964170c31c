// The vendor-library baselines (include/portla/vendor.hpp): sizes checked here, then the
// backend's vendor kernels (core/kernels/vendor_kernels.hpp) through dispatch.
#include "portla/vendor.hpp"

#include <string>

#include "core/dispatch.hpp"
#include "core/kernels/vendor_kernels.hpp"
#include "portla/error.hpp"

namespace portla::vendor {
namespace {

void check_size(const char* where, std::size_t expected, std::size_t got) {
    if (expected != got) throw DimensionMismatch(where, expected, got);
}

template <typename T>
void check_csr(const char* where, std::size_t rows, std::size_t cols,
               const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
               const_view<T> values, std::size_t x_size, std::size_t y_size) {
    const std::string w(where);
    check_size((w + " row_ptrs").c_str(), rows + 1, row_ptrs.size);
    check_size((w + " col_idxs").c_str(), values.size, col_idxs.size);
    check_size((w + " x").c_str(), cols, x_size);
    check_size((w + " y").c_str(), rows, y_size);
}

}  // namespace

// Every backend comes with its vendor library: OpenBLAS is required by the build (the CPU
// backends), cuBLAS and cuSPARSE are linked with the cuda backend.
bool available(Backend backend) { return compiled(backend); }

bool sparse_available(Backend backend) { return backend == Backend::cuda && available(backend); }

template <typename T>
void axpy(const Executor& exec, T a, const_view<T> x, view<T> y) {
    check_size("vendor::axpy x", y.size, x.size);
    dispatch<KernelFamily::vendor>(exec,
                                   [&](auto backend) { vendor_axpy(backend, exec, a, x, y); });
}

template <typename T>
void copy(const Executor& exec, const_view<T> x, view<T> y) {
    check_size("vendor::copy x", y.size, x.size);
    dispatch<KernelFamily::vendor>(exec, [&](auto backend) { vendor_copy(backend, exec, x, y); });
}

template <typename T>
void dot(const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) {
    check_size("vendor::dot y", x.size, y.size);
    check_size("vendor::dot result", 1, result.size);
    dispatch<KernelFamily::vendor>(exec,
                                   [&](auto backend) { vendor_dot(backend, exec, x, y, result); });
}

template <typename T>
T dot_host(const Executor& exec, const_view<T> x, const_view<T> y) {
    check_size("vendor::dot_host y", x.size, y.size);
    return dispatch<KernelFamily::vendor>(
        exec, [&](auto backend) { return vendor_dot_host(backend, exec, x, y); });
}

template <typename T>
void nrm2(const Executor& exec, const_view<T> x, view<T> result) {
    check_size("vendor::nrm2 result", 1, result.size);
    dispatch<KernelFamily::vendor>(exec,
                                   [&](auto backend) { vendor_nrm2(backend, exec, x, result); });
}

template <typename T>
void gemv(const Executor& exec, std::size_t rows, std::size_t cols, const_view<T> values,
          const_view<T> x, view<T> y) {
    check_size("vendor::gemv values (rows cols elements)", rows * cols, values.size);
    check_size("vendor::gemv x", cols, x.size);
    check_size("vendor::gemv y", rows, y.size);
    dispatch<KernelFamily::vendor>(
        exec, [&](auto backend) { vendor_gemv(backend, exec, rows, cols, values, x, y); });
}

template <typename T>
void csr_spmv(const Executor& exec, std::size_t rows, std::size_t cols,
              const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
              const_view<T> values, const_view<T> x, view<T> y) {
    check_csr("vendor::csr_spmv", rows, cols, row_ptrs, col_idxs, values, x.size, y.size);
    dispatch<KernelFamily::vendor>(exec, [&](auto backend) {
        vendor_csr_spmv(backend, exec, rows, cols, row_ptrs, col_idxs, values, x, y);
    });
}

template <typename T>
int cg(const Executor& exec, std::size_t rows, const_view<std::int32_t> row_ptrs,
       const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> b, view<T> x,
       double rtol, int max_iters) {
    check_csr("vendor::cg", rows, rows, row_ptrs, col_idxs, values, b.size, x.size);
    return dispatch<KernelFamily::vendor>(exec, [&](auto backend) {
        return vendor_cg(backend, exec, rows, row_ptrs, col_idxs, values, b, x, rtol, max_iters);
    });
}

#define PORTLA_INSTANTIATE_VENDOR(T)                                                               \
    template void axpy<T>(const Executor&, T, const_view<T>, view<T>);                             \
    template void copy<T>(const Executor&, const_view<T>, view<T>);                                \
    template void dot<T>(const Executor&, const_view<T>, const_view<T>, view<T>);                  \
    template T dot_host<T>(const Executor&, const_view<T>, const_view<T>);                         \
    template void nrm2<T>(const Executor&, const_view<T>, view<T>);                                \
    template void gemv<T>(const Executor&, std::size_t, std::size_t, const_view<T>, const_view<T>, \
                          view<T>);                                                                \
    template void csr_spmv<T>(const Executor&, std::size_t, std::size_t, const_view<std::int32_t>, \
                              const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>);    \
    template int cg<T>(const Executor&, std::size_t, const_view<std::int32_t>,                     \
                       const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>, double,    \
                       int)
PORTLA_INSTANTIATE_VENDOR(double);
PORTLA_INSTANTIATE_VENDOR(float);

}  // namespace portla::vendor
