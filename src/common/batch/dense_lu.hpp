// LU with partial pivoting of one small dense system, for the CPU backends' batched direct
// solve (src/reference and src/omp batch_direct_kernels.cpp). Internal to portla.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>

namespace portla::batch::detail {

/// Solves A x = b for one row-major n x n matrix. `lu` (n * n) receives a copy of `a` and is
/// overwritten by the factors; `x` (n) receives b and then the solution. Returns 0 on success,
/// k > 0 when the k-th pivot (1-based) is exactly zero, -1 when a or b holds a NaN or Inf.
template <typename T>
int lu_solve(std::size_t n, const T* a, const T* b, T* lu, T* x) {
    bool finite = true;
    for (std::size_t k = 0; k < n * n; ++k) {
        lu[k] = a[k];
        finite = finite && std::isfinite(a[k]);
    }
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = b[i];
        finite = finite && std::isfinite(b[i]);
    }
    if (!finite) return -1;
    for (std::size_t k = 0; k < n; ++k) {
        // pivot: the largest |a_ik|, i >= k; the rows are swapped in lu and in x at once, so
        // x becomes P b as the factorisation P A = L U proceeds
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i)
            if (std::abs(lu[i * n + k]) > std::abs(lu[p * n + k])) p = i;
        if (lu[p * n + k] == T{0}) return static_cast<int>(k + 1);
        if (p != k) {
            for (std::size_t j = 0; j < n; ++j) std::swap(lu[k * n + j], lu[p * n + j]);
            std::swap(x[k], x[p]);
        }
        // rows below: l_ik = a_ik / u_kk;  a_ij -= l_ik u_kj (j > k);  forward step y_i -= l_ik y_k
        const T* __restrict u_k = lu + k * n;
        for (std::size_t i = k + 1; i < n; ++i) {
            T* __restrict row = lu + i * n;
            const T l = row[k] / u_k[k];
            row[k] = l;
            for (std::size_t j = k + 1; j < n; ++j) row[j] -= l * u_k[j];
            x[i] -= l * x[k];
        }
    }
    // back substitution: x_i = (y_i - sum_{j > i} u_ij x_j) / u_ii
    for (std::size_t i = n; i-- > 0;) {
        const T* row = lu + i * n;
        T sum = x[i];
        for (std::size_t j = i + 1; j < n; ++j) sum -= row[j] * x[j];
        x[i] = sum / row[i];
    }
    return 0;
}

}  // namespace portla::batch::detail
