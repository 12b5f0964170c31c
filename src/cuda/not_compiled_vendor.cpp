// The vendor-library paths of the cuda backend when PORTLA_WITH_CUDA is OFF: available() is
// false, every kernel throws NotCompiled{"cuda"}. Defined with qualified names (and through the
// declaring macros where a macro declares one function), so a signature that drifts fails the
// build.
#include "core/kernels/vendor_kernels.hpp"
#include "portla/error.hpp"

// The signatures name every parameter; none is used here.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace portla::kernels {

bool cublas::available() { return false; }
bool cusparse::available() { return false; }

#define PORTLA_NOT_COMPILED_VENDOR_KERNELS(T)                                                  \
    void cublas::axpy(const Executor& exec, T a, const_view<T> x, view<T> y) {                 \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    void cublas::copy(const Executor& exec, const_view<T> x, view<T> y) {                      \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    void cublas::dot(const Executor& exec, const_view<T> x, const_view<T> y, view<T> result) { \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    T cublas::dot_host(const Executor& exec, const_view<T> x, const_view<T> y) {               \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    void cublas::nrm2(const Executor& exec, const_view<T> x, view<T> result) {                 \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    void cublas::gemv(const Executor& exec, std::size_t rows, std::size_t cols,                \
                      const_view<T> values, const_view<T> x, view<T> y) {                      \
        throw NotCompiled("cuda");                                                             \
    }                                                                                          \
    namespace cusparse {                                                                       \
    PORTLA_DECLARE_CUSPARSE_SPMV(T) { throw NotCompiled("cuda"); }                             \
    PORTLA_DECLARE_VENDOR_CG(T) { throw NotCompiled("cuda"); }                                 \
    }

PORTLA_NOT_COMPILED_VENDOR_KERNELS(double)
PORTLA_NOT_COMPILED_VENDOR_KERNELS(float)

#undef PORTLA_NOT_COMPILED_VENDOR_KERNELS

}  // namespace portla::kernels
