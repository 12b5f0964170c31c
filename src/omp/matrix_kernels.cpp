// OpenMP operator-apply kernels: rows split statically over threads (CSR: by entries + rows).
#include <algorithm>
#include <complex>
#include <vector>

#include "core/kernels/matrix_kernels.hpp"

#include "common/csr_pattern.hpp"
#include "common/scalar.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {

// Four rows at a time: x is loaded once for four rows and the four sums are independent chains
// (one row's simd reduction is bound by the add latency: 9.4 GB/s against OpenBLAS dgemv's
// 21 GB/s on this 2-core VM, 2026-11-21). Multi-versioned for AVX-512/AVX2 like the blas1 loops.
namespace simd {
template <typename T>
PORTLA_SIMD_CLONES void gemv_rows(std::size_t begin, std::size_t end, std::size_t cols,
                                  const T* __restrict a, const T* __restrict x, T* __restrict y) {
    std::size_t i = begin;
    for (; i + 4 <= end; i += 4) {
        const T* __restrict a0 = a + i * cols;
        const T* __restrict a1 = a0 + cols;
        const T* __restrict a2 = a1 + cols;
        const T* __restrict a3 = a2 + cols;
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
        for (std::size_t j = 0; j < cols; ++j) {
            s0 += a0[j] * x[j];
            s1 += a1[j] * x[j];
            s2 += a2[j] * x[j];
            s3 += a3[j] * x[j];
        }
        y[i] = s0;
        y[i + 1] = s1;
        y[i + 2] = s2;
        y[i + 3] = s3;
    }
    for (; i < end; ++i) {
        const T* __restrict ai = a + i * cols;
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (std::size_t j = 0; j < cols; ++j) sum += ai[j] * x[j];
        y[i] = sum;
    }
}
}  // namespace simd

namespace {

template <typename T>
void dense_impl(std::size_t rows, std::size_t cols, const_view<T> values, const_view<T> x,
                view<T> y) {
    if constexpr (common::is_complex_v<T>) {  // no simd reduction over std::complex
        const auto n = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_threshold())
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            const T* a = values.data + static_cast<std::size_t>(i) * cols;
            T sum = 0;
            for (std::size_t j = 0; j < cols; ++j) sum += a[j] * x.data[j];
            y.data[i] = sum;
        }
    } else if (rows * cols < parallel_threshold()) {
        simd::gemv_rows(0, rows, cols, values.data, x.data, y.data);
    } else {
#pragma omp parallel
        {
            // Row blocks of a multiple of 4 rows per thread.
            const auto [begin, end] = thread_range((rows + 3) / 4);
            simd::gemv_rows(std::min(rows, 4 * begin), std::min(rows, 4 * end), cols, values.data,
                            x.data, y.data);
        }
    }
}

template <typename T, typename P, typename C>
void csr_impl(std::size_t rows, const_view<P> row_ptrs, const_view<C> col_idxs,
              const_view<T> values, const_view<T> x, view<T> y) {
    const bool parallel = values.size + rows >= parallel_threshold();
    // Two rows at a time, their sums interleaved while both have entries: two independent add
    // chains instead of one (each row still summed in its own order, so the same bits). 1.39-1.45
    // ms instead of 1.56-1.73 ms on poisson3d:64 (1.8e6 entries), 2 threads, 2-core VM,
    // 2026-11-29.
    const auto run = [&](std::size_t first, std::size_t last) {
        const P* __restrict rp = row_ptrs.data;
        const C* __restrict cols = col_idxs.data;
        const T* __restrict vals = values.data;
        const T* __restrict xs = x.data;
        T* __restrict ys = y.data;
        std::size_t i = first;
        for (; i + 2 <= last; i += 2) {
            P k0 = rp[i], k1 = rp[i + 1];
            const P end0 = k1, end1 = rp[i + 2];
            T sum0 = 0, sum1 = 0;
            for (; k0 < end0 && k1 < end1; ++k0, ++k1) {
                sum0 += vals[k0] * xs[cols[k0]];
                sum1 += vals[k1] * xs[cols[k1]];
            }
            for (; k0 < end0; ++k0) sum0 += vals[k0] * xs[cols[k0]];
            for (; k1 < end1; ++k1) sum1 += vals[k1] * xs[cols[k1]];
            ys[i] = sum0;
            ys[i + 1] = sum1;
        }
        for (; i < last; ++i) {
            T sum = 0;
            for (P k = rp[i]; k < rp[i + 1]; ++k) sum += vals[k] * xs[cols[k]];
            ys[i] = sum;
        }
    };
    if (!parallel) return run(0, rows);
    // Rows split by work, entries + rows (row i starts at work row_ptrs[i] + i), not by count:
    // a power-law matrix's long rows no longer land on one thread. Each row is summed as before.
    const auto start = [&](std::size_t i) { return static_cast<std::size_t>(row_ptrs[i]) + i; };
#pragma omp parallel
    {
        const auto [first, last] = thread_rows(rows, start);
        run(first, last);
    }
}

template <typename T>
void ell_impl(std::size_t rows, std::size_t width, const_view<std::int32_t> col_idxs,
              const_view<T> values, const_view<T> x, view<T> y) {
    const bool parallel = rows * width >= parallel_threshold();
#pragma omp parallel for schedule(static) if (parallel)
    for (std::size_t i = 0; i < rows; ++i) {
        T sum = 0;
        for (std::size_t k = 0; k < width; ++k) {
            const auto c = col_idxs[k * rows + i];
            if (c >= 0) sum += values[k * rows + i] * x[c];
        }
        y[i] = sum;
    }
}

// x . y over one line of n values, in double.
template <typename T>
double line_dot(std::size_t n, const T* __restrict x, const T* __restrict y) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += double(x[i]) * double(y[i]);
    return sum;
}

// Planes [first, last) of a slab of `planes` planes of nx * ny points (the whole grid: planes =
// points along the outermost dimension, no below/above). Neighbour rows outside the grid point
// at a row of zeros, so the inner loop has no branches and vectorises. With `dot`: x . y over
// the planes as well, each line's share summed in double while the line is in cache; returned.
template <typename T>
double slab_impl(int dim, std::size_t n, std::size_t nz, std::size_t first, std::size_t last,
                 const T* below, const T* above, const_view<T> x, view<T> y, bool dot = false) {
    const std::size_t nx = dim >= 2 ? n : 1, ny = dim >= 3 ? n : 1;
    const std::size_t plane = nx * ny;
    const T diag = static_cast<T>(2 * dim);
    const std::vector<T> zeros(nx + 2, T{0});
    const bool parallel = (last - first) * plane >= parallel_threshold();
    double sum = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : sum) if (parallel)
    for (std::size_t k = first; k < last; ++k)
        for (std::size_t j = 0; j < ny; ++j) {
            const std::size_t row = (k * ny + j) * nx;
            const T* __restrict xc = x.data + row;
            const T* __restrict xs = j > 0 ? xc - nx : zeros.data();
            const T* __restrict xn = j + 1 < ny ? xc + nx : zeros.data();
            const T* __restrict xb = k > 0 ? xc - plane : below ? below + j * nx : zeros.data();
            const T* __restrict xt = k + 1 < nz         ? xc + plane
                                     : above != nullptr ? above + j * nx
                                                        : zeros.data();
            T* __restrict yr = y.data + row;
            if (nx == 1) {
                yr[0] = diag * xc[0] - xs[0] - xn[0] - xb[0] - xt[0];
                if (dot) sum += double(xc[0]) * double(yr[0]);
                continue;
            }
            yr[0] = diag * xc[0] - xc[1] - xs[0] - xn[0] - xb[0] - xt[0];
#pragma omp simd
            for (std::size_t i = 1; i < nx - 1; ++i)
                yr[i] = diag * xc[i] - xc[i - 1] - xc[i + 1] - xs[i] - xn[i] - xb[i] - xt[i];
            const std::size_t l = nx - 1;
            yr[l] = diag * xc[l] - xc[l - 1] - xs[l] - xn[l] - xb[l] - xt[l];
            if (dot) sum += line_dot(nx, xc, yr);
        }
    return sum;
}

}  // namespace

template <typename T>
void dense_apply(tag, const Executor&, std::size_t rows, std::size_t cols, const_view<T> values,
                 const_view<T> x, view<T> y) {
    dense_impl(rows, cols, values, x, y);
}

template <typename T, typename P, typename C>
void csr_apply(tag, const Executor&, std::size_t rows, const_view<P> row_ptrs,
               const_view<C> col_idxs, const_view<T> values, const_view<T> x, view<T> y) {
    csr_impl(rows, row_ptrs, col_idxs, values, x, y);
}

template <typename T>
void ell_apply(tag, const Executor&, std::size_t rows, std::size_t width,
               const_view<std::int32_t> col_idxs, const_view<T> values, const_view<T> x,
               view<T> y) {
    ell_impl(rows, width, col_idxs, values, x, y);
}

template <typename T>
void stencil_apply(tag, const Executor&, int dim, std::size_t points, const_view<T> x, view<T> y) {
    slab_impl<T>(dim, points, points, 0, points, nullptr, nullptr, x, y);
}

template <typename T>
void slab_stencil_apply(tag, const Executor&, int dim, std::size_t points, std::size_t planes,
                        std::size_t first, std::size_t last, const T* below, const T* above,
                        const_view<T> x, view<T> y, T* dot, bool add_dot) {
    const double sum =
        slab_impl(dim, points, planes, first, last, below, above, x, y, dot != nullptr);
    if (dot) *dot = add_dot ? *dot + static_cast<T>(sum) : static_cast<T>(sum);
}

template <typename T>
void gather(tag, const Executor&, const_view<std::int32_t> idx, const_view<T> x, view<T> out) {
    const auto n = static_cast<std::ptrdiff_t>(idx.size);
#pragma omp parallel for schedule(static) if (idx.size >= parallel_threshold())
    for (std::ptrdiff_t i = 0; i < n; ++i) out.data[i] = x.data[idx.data[i]];
}

template <typename T, typename P, typename C>
void csr_diagonal(tag, const Executor&, std::size_t rows, const_view<P> row_ptrs,
                  const_view<C> col_idxs, const_view<T> values, view<T> d) {
    const auto n = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(static) if (rows >= parallel_threshold())
    for (std::ptrdiff_t i = 0; i < n; ++i)
        d.data[i] = common::csr_row_diagonal(static_cast<std::size_t>(i), row_ptrs.data,
                                             col_idxs.data, values.data);
}

std::uint32_t csr_pattern_check(tag, const Executor&, std::size_t rows, std::size_t cols,
                                const_view<std::int32_t> row_ptrs,
                                const_view<std::int32_t> col_idxs) {
    if (rows == 0) return row_ptrs[0] == 0 && col_idxs.size == 0 ? 0u : kCsrInvalid;
    const auto n = static_cast<std::ptrdiff_t>(rows);
    std::uint32_t flags = 0;
#pragma omp parallel for schedule(static) reduction(| : flags) if (rows >= parallel_threshold())
    for (std::ptrdiff_t i = 0; i < n; ++i)
        flags |= common::csr_row_pattern(static_cast<std::size_t>(i), rows, cols, col_idxs.size,
                                         row_ptrs.data, col_idxs.data);
    return flags;
}

PORTLA_INSTANTIATE_MATRIX_KERNELS(double);
PORTLA_INSTANTIATE_MATRIX_KERNELS(float);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<double>);
PORTLA_INSTANTIATE_COMPLEX_MATRIX_KERNELS(std::complex<float>);

}  // namespace portla::kernels::omp
