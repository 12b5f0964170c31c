// Block Jacobi: the diagonal blocks extracted and inverted on the host, applied by one kernel.
#include "portla/solver/block_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "common/scalar.hpp"
#include "core/dispatch_values.hpp"
#include "core/kernels/precond_kernels.hpp"
#include "portla/error.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/matrix/dense.hpp"

namespace portla::solver {
namespace {

constexpr double kSingularPivot = 1e-14;  // relative to the block's largest |entry|

std::string rows_of(std::size_t start, std::size_t m) {
    return std::to_string(start + 1) + "-" + std::to_string(start + m);
}

/// Inverts the m x m row-major block `a` (overwritten) into `inv` (row-major) by LU with
/// partial pivoting, in S (double, or complex<double> for complex values). Returns false when the
/// block is singular: a pivot that is 0 or at most kSingularPivot * max |a_ij|.
template <typename S>
bool invert_block(std::size_t m, std::vector<S>& a, std::vector<S>& inv) {
    double scale = 0;
    for (std::size_t k = 0; k < m * m; ++k) scale = std::max(scale, std::abs(a[k]));
    std::vector<std::size_t> perm(m);
    for (std::size_t i = 0; i < m; ++i) perm[i] = i;
    // P A = L U, L unit lower (below the diagonal of a), U upper.
    for (std::size_t k = 0; k < m; ++k) {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < m; ++i)
            if (std::abs(a[i * m + k]) > std::abs(a[p * m + k])) p = i;
        const S pivot = a[p * m + k];
        if (pivot == S(0) || !(std::abs(pivot) > kSingularPivot * scale)) return false;
        if (p != k) {
            for (std::size_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
            std::swap(perm[k], perm[p]);
        }
        for (std::size_t i = k + 1; i < m; ++i) {
            const S l = a[i * m + k] / pivot;
            a[i * m + k] = l;
            for (std::size_t j = k + 1; j < m; ++j) a[i * m + j] -= l * a[k * m + j];
        }
    }
    // Column c of A^-1 solves L U x = P e_c: row i of P e_c is 1 where perm[i] == c.
    inv.assign(m * m, S(0));
    std::vector<S> x(m);
    for (std::size_t c = 0; c < m; ++c) {
        for (std::size_t i = 0; i < m; ++i) {  // L y = P e_c
            S s = perm[i] == c ? S(1) : S(0);
            for (std::size_t j = 0; j < i; ++j) s -= a[i * m + j] * x[j];
            x[i] = s;
        }
        for (std::size_t i = m; i-- > 0;) {  // U x = y
            S s = x[i];
            for (std::size_t j = i + 1; j < m; ++j) s -= a[i * m + j] * x[j];
            x[i] = s / a[i * m + i];
        }
        for (std::size_t i = 0; i < m; ++i) inv[i * m + c] = x[i];
    }
    return true;
}

/// Calls block(start, m, a) for every diagonal block: `a` holds the m x m block of rows and
/// columns [start, start + m), row-major, in common::wide_t<T> (double or complex<double>).
template <typename T, typename Block>
void for_each_diagonal_block(const LinearOperator<T>& A, std::size_t bs, Block&& block) {
    using S = common::wide_t<T>;
    const std::size_t n = A.rows();
    std::vector<S> a;
    if (const auto* csr = dynamic_cast<const Csr<T>*>(&A)) {
        const auto row_ptrs = csr->row_ptrs().to_host();
        const auto col_idxs = csr->col_idxs().to_host();
        const auto values = csr->values().to_host();
        for (std::size_t start = 0; start < n; start += bs) {
            const std::size_t m = std::min(bs, n - start);
            a.assign(m * m, S(0));
            for (std::size_t i = 0; i < m; ++i)
                for (auto k = row_ptrs[start + i]; k < row_ptrs[start + i + 1]; ++k) {
                    const auto c = static_cast<std::size_t>(col_idxs[k]);
                    if (c >= start && c < start + m)
                        a[i * m + (c - start)] += common::widen(values[k]);
                }
            block(start, m, a);
        }
        return;
    }
    const auto& dense = dynamic_cast<const Dense<T>&>(A);
    const auto values = dense.values().to_host();
    for (std::size_t start = 0; start < n; start += bs) {
        const std::size_t m = std::min(bs, n - start);
        a.assign(m * m, S(0));
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < m; ++j)
                a[i * m + j] = common::widen(values[(start + i) * n + start + j]);
        block(start, m, a);
    }
}

}  // namespace

template <typename T>
BlockJacobi<T>::BlockJacobi(const LinearOperator<T>& A, int block_size)
    : n_(A.rows()), block_size_(block_size), blocks_(A.executor(), 0) {
    const auto* csr = dynamic_cast<const Csr<T>*>(&A);
    if (!csr && !dynamic_cast<const Dense<T>*>(&A))
        throw Unsupported("block-jacobi needs a csr or dense matrix (got " + A.format() + ")");
    if (csr) csr->require_int32("block-jacobi");
    if (A.rows() != A.cols())
        throw DimensionMismatch("block-jacobi: matrix must be square (" + std::to_string(A.rows()) +
                                    " x " + std::to_string(A.cols()) + "); rows",
                                A.rows(), A.cols());
    if (block_size < 1 || block_size > 32)
        throw BadInput("block-jacobi: block size must be in [1, 32] (got " +
                       std::to_string(block_size) + ")");
    const std::size_t bs = static_cast<std::size_t>(block_size);
    const std::size_t num_blocks = (n_ + bs - 1) / bs;
    std::vector<T> host(num_blocks * bs * bs, T{0});
    std::vector<common::wide_t<T>> inv;
    for_each_diagonal_block(A, bs, [&](std::size_t start, std::size_t m, auto& a) {
        for (const auto& v : a)
            if (!common::is_finite(v))
                throw BadInput("block-jacobi: singular diagonal block at rows " +
                               rows_of(start, m) + " (it contains NaN or Inf)");
        if (!invert_block(m, a, inv))
            throw BadInput("block-jacobi: singular diagonal block at rows " + rows_of(start, m));
        T* out = host.data() + (start / bs) * bs * bs;  // column-major: (i, j) at j bs + i
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < m; ++j) {
                const T v = common::narrow<T>(inv[i * m + j]);
                if (!common::is_finite(v))
                    throw BadInput("block-jacobi: singular diagonal block at rows " +
                                   rows_of(start, m) + " (its inverse overflows)");
                out[j * bs + i] = v;
            }
    });
    if (!host.empty()) blocks_ = Array<T>(A.executor(), host);
}

template <typename T>
void BlockJacobi<T>::apply(const_view<T> r, view<T> z) const {
    if (r.size != n_) throw DimensionMismatch("block-jacobi apply: r", n_, r.size);
    if (z.size != n_) throw DimensionMismatch("block-jacobi apply: z", n_, z.size);
    if (n_ == 0) return;
    const auto& exec = blocks_.executor();
    // z_i = sum_j inv(A_bb)(i, j) r_j over the rows j of i's block b
    dispatch_values<T>(exec, [&](auto backend) {
        block_jacobi_apply(backend, exec, block_size_, blocks_.get_view(), r, z);
    });
}

template class BlockJacobi<double>;
template class BlockJacobi<float>;
template class BlockJacobi<std::complex<double>>;
template class BlockJacobi<std::complex<float>>;

}  // namespace portla::solver
