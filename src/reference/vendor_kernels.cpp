// Vendor kernels of the reference backend: OpenBLAS on host memory, the same code as the omp
// backend (src/common/openblas.hpp). No sparse vendor library: csr_spmv and cg throw
// Unsupported.
#include <cstddef>
#include <cstdint>

#include "common/openblas.hpp"
#include "core/kernels/vendor_kernels.hpp"

namespace portla::kernels::reference {

template <typename T>
void vendor_axpy(tag, const Executor&, T a, const_view<T> x, view<T> y) {
    openblas::axpy<T>(a, x, y);
}

template <typename T>
void vendor_copy(tag, const Executor&, const_view<T> x, view<T> y) {
    openblas::copy<T>(x, y);
}

template <typename T>
void vendor_dot(tag, const Executor&, const_view<T> x, const_view<T> y, view<T> result) {
    result.data[0] = static_cast<T>(openblas::dot<T>(x.data, y.data, x.size));
}

template <typename T>
T vendor_dot_host(tag, const Executor&, const_view<T> x, const_view<T> y) {
    return static_cast<T>(openblas::dot<T>(x.data, y.data, x.size));
}

template <typename T>
void vendor_nrm2(tag, const Executor&, const_view<T> x, view<T> result) {
    result.data[0] = static_cast<T>(openblas::nrm2<T>(x));
}

template <typename T>
void vendor_gemv(tag, const Executor&, std::size_t rows, std::size_t cols, const_view<T> values,
                 const_view<T> x, view<T> y) {
    openblas::gemv<T>(rows, cols, values, x, y);
}

template <typename T>
void vendor_csr_spmv(tag, const Executor&, std::size_t, std::size_t, const_view<std::int32_t>,
                     const_view<std::int32_t>, const_view<T>, const_view<T>, view<T>) {
    openblas::throw_no_sparse("csr_spmv", tag::name_string);
}

template <typename T>
int vendor_cg(tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,
              const_view<T>, const_view<T>, view<T>, double, int) {
    openblas::throw_no_sparse("cg", tag::name_string);
}

PORTLA_INSTANTIATE_VENDOR_KERNELS(double);
PORTLA_INSTANTIATE_VENDOR_KERNELS(float);

}  // namespace portla::kernels::reference
