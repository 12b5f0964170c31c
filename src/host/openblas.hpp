// OpenBLAS (cblas) on host memory: the vendor kernels of the CPU backends (omp and reference),
// shared by src/omp/vendor_kernels.cpp and src/reference/vendor_kernels.cpp.
//
// cblas counts are blasint, 32-bit in the usual OpenBLAS builds, so every call gets at most
// kChunk elements (rows for gemv) and longer operands are split: dot and nrm2 combine the
// chunk results in double. n == 0 is handled here, never passed to cblas (gemv would reject
// lda = 0).
#pragma once

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/error.hpp"

namespace portla::kernels::openblas {

inline constexpr std::size_t kChunk = INT_MAX;

inline int chunk_size(std::size_t n, std::size_t start) {
    return static_cast<int>(std::min(kChunk, n - start));
}

// The cblas names, overloaded on the value type.
inline void call_axpy(int n, double a, const double* x, double* y) {
    cblas_daxpy(n, a, x, 1, y, 1);
}
inline void call_axpy(int n, float a, const float* x, float* y) { cblas_saxpy(n, a, x, 1, y, 1); }
inline void call_copy(int n, const double* x, double* y) { cblas_dcopy(n, x, 1, y, 1); }
inline void call_copy(int n, const float* x, float* y) { cblas_scopy(n, x, 1, y, 1); }
inline double call_dot(int n, const double* x, const double* y) {
    return cblas_ddot(n, x, 1, y, 1);
}
inline double call_dot(int n, const float* x, const float* y) { return cblas_sdot(n, x, 1, y, 1); }
inline double call_nrm2(int n, const double* x) { return cblas_dnrm2(n, x, 1); }
inline double call_nrm2(int n, const float* x) { return cblas_snrm2(n, x, 1); }
// y = A x, A row-major rows x cols with leading dimension cols (cols >= 1).
inline void call_gemv(int rows, int cols, const double* a, const double* x, double* y) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, rows, cols, 1.0, a, cols, x, 1, 0.0, y, 1);
}
inline void call_gemv(int rows, int cols, const float* a, const float* x, float* y) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, rows, cols, 1.0f, a, cols, x, 1, 0.0f, y, 1);
}

template <typename T>
void axpy(T a, const_view<T> x, view<T> y) {
    for (std::size_t s = 0; s < y.size; s += kChunk)
        call_axpy(chunk_size(y.size, s), a, x.data + s, y.data + s);
}

template <typename T>
void copy(const_view<T> x, view<T> y) {
    for (std::size_t s = 0; s < y.size; s += kChunk)
        call_copy(chunk_size(y.size, s), x.data + s, y.data + s);
}

// x . y = sum over chunks of the chunk dots (0 for n == 0).
template <typename T>
double dot(const T* x, const T* y, std::size_t n) {
    double sum = 0.0;
    for (std::size_t s = 0; s < n; s += kChunk) sum += call_dot(chunk_size(n, s), x + s, y + s);
    return sum;
}

// ||x|| = m sqrt(sum (c_k / m)^2) over the chunk norms c_k, m = max c_k: scaled so that the
// squares neither overflow nor underflow (what nrm2 itself guarantees inside a chunk).
template <typename T>
double nrm2(const_view<T> x) {
    if (x.size <= kChunk) return x.size == 0 ? 0.0 : call_nrm2(static_cast<int>(x.size), x.data);
    double norms_max = 0.0;
    std::vector<double> norms;
    for (std::size_t s = 0; s < x.size; s += kChunk) {
        norms.push_back(call_nrm2(chunk_size(x.size, s), x.data + s));
        norms_max = std::max(norms_max, norms.back());
    }
    if (norms_max == 0.0 || !std::isfinite(norms_max)) return norms_max;
    double scaled = 0.0;
    for (double c : norms) scaled += (c / norms_max) * (c / norms_max);
    return norms_max * std::sqrt(scaled);
}

template <typename T>
void gemv(std::size_t rows, std::size_t cols, const_view<T> values, const_view<T> x, view<T> y) {
    if (rows == 0) return;
    // cblas gemv quick-returns for cols == 0 without writing y, where y = A x = 0. Whether a
    // NaN already in y survives beta = 0 has differed between OpenBLAS versions and kernels:
    // y is zeroed first instead (rows words of traffic, against rows * cols for A).
    std::fill(y.data, y.data + rows, T(0));
    if (cols == 0) return;
    if (cols <= kChunk) {
        for (std::size_t r = 0; r < rows; r += kChunk)
            call_gemv(chunk_size(rows, r), static_cast<int>(cols), values.data + r * cols, x.data,
                      y.data + r);
        return;
    }
    // A row longer than INT_MAX has a leading dimension cblas cannot take: one chunked dot per
    // row (such a matrix holds > 16 GiB in double).
    for (std::size_t r = 0; r < rows; ++r)
        y.data[r] = static_cast<T>(dot(values.data + r * cols, x.data, cols));
}

/// The CPU backends have no sparse vendor library.
[[noreturn]] inline void throw_no_sparse(const char* what, const char* backend) {
    throw Unsupported(std::string("vendor ") + what + ": no sparse vendor library on the " +
                      backend + " backend (OpenBLAS is dense only; cuSPARSE needs cuda)");
}

}  // namespace portla::kernels::openblas
