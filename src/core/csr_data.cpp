#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "core/csr_build.hpp"
#include "core/host_threads.hpp"
#include "core/matrix_checks.hpp"
#include "portla/error.hpp"
#include "portla/matrix/matrix_data.hpp"

namespace portla {

CsrData CsrData::from(const MatrixData& data) {
    if (data.row_idx.size() != data.values.size())
        throw DimensionMismatch("CsrData::from: row_idx", data.values.size(), data.row_idx.size());
    if (data.col_idx.size() != data.values.size())
        throw DimensionMismatch("CsrData::from: col_idx", data.values.size(), data.col_idx.size());
    // Rows and columns are indexed with int32 (the parts of a row and its column indices); the
    // offsets are 64-bit, so the entries are not limited.
    constexpr std::int64_t max = std::numeric_limits<std::int32_t>::max();
    if (data.rows < 0 || data.cols < 0) throw BadInput("CsrData::from: negative dimensions");
    if (data.rows >= max || data.cols >= max)
        throw BadInput("CsrData::from: " + std::to_string(data.rows) + " x " +
                       std::to_string(data.cols) +
                       " exceeds the int32 range of row and column indices (at most " +
                       std::to_string(max - 1) + " each)");
    for (std::size_t k = 0; k < data.entries(); ++k)
        if (data.row_idx[k] < 0 || data.row_idx[k] >= data.rows || data.col_idx[k] < 0 ||
            data.col_idx[k] >= data.cols)
            throw BadInput("CsrData::from: entry " + std::to_string(k) + " at (" +
                           std::to_string(data.row_idx[k]) + ", " +
                           std::to_string(data.col_idx[k]) + ") is outside the " +
                           std::to_string(data.rows) + " x " + std::to_string(data.cols) +
                           " matrix");
    return detail::build_csr(data.rows, data.cols, [&data](auto&& f, bool) {
        for (std::size_t k = 0; k < data.entries(); ++k)
            f(static_cast<std::int32_t>(data.row_idx[k]),
              static_cast<std::int32_t>(data.col_idx[k]), data.values[k]);
    });
}

MatrixData CsrData::to_matrix_data() const {
    MatrixData d;
    d.rows = rows;
    d.cols = cols;
    d.row_idx.resize(entries());
    d.col_idx.assign(col_idxs.begin(), col_idxs.end());
    d.values = values;
    for (std::size_t i = 0; i + 1 < row_ptrs.size(); ++i)
        std::fill(d.row_idx.begin() + static_cast<std::ptrdiff_t>(row_ptrs[i]),
                  d.row_idx.begin() + static_cast<std::ptrdiff_t>(row_ptrs[i + 1]),
                  static_cast<std::int64_t>(i));
    return d;
}

// The test of MatrixData::is_symmetric (sorted_is_symmetric there) on rows already in CSR: every
// entry (i, j, v) needs |v - a_ji| <= tol, a_ji found by binary search in row j (0 when absent);
// an explicit off-diagonal zero is skipped, its mirror being checked against it. Rows shared out
// over the host's threads.
bool CsrData::is_symmetric(double rel_tol) const {
    if (rows != cols) return false;
    const auto n = static_cast<std::size_t>(rows);
    double largest = 0;
    if (rel_tol > 0)
        for (const double v : values) largest = std::max(largest, std::abs(v));
    const double tol = rel_tol * largest;
    std::atomic<bool> symmetric{true};
    const unsigned threads = entries() < 65536 ? 1u : detail::host_threads();
    detail::run_on_threads(threads, [&](unsigned t) {
        const auto [first, last] = detail::share(n, t, threads);
        for (std::size_t i = first; i < last && symmetric.load(std::memory_order_relaxed); ++i) {
            for (auto k = static_cast<std::size_t>(row_ptrs[i]);
                 k < static_cast<std::size_t>(row_ptrs[i + 1]); ++k) {
                const auto j = static_cast<std::size_t>(col_idxs[k]);
                if (values[k] == 0.0 && j != i) continue;
                const auto b = col_idxs.begin() + static_cast<std::ptrdiff_t>(row_ptrs[j]);
                const auto e = col_idxs.begin() + static_cast<std::ptrdiff_t>(row_ptrs[j + 1]);
                const auto it = std::lower_bound(b, e, static_cast<std::int32_t>(i));
                const double transposed = it != e && *it == static_cast<std::int32_t>(i)
                                              ? values[it - col_idxs.begin()]
                                              : 0.0;
                if (!(std::abs(values[k] - transposed) <= tol)) {
                    symmetric = false;
                    return;
                }
            }
        }
    });
    return symmetric;
}

std::string CsrData::structural_defect() const {
    if (rows < 0 || cols < 0) return {};
    const auto n = static_cast<std::size_t>(rows);
    return detail::structural_defect(n, static_cast<std::size_t>(cols), [this, n](auto&& f) {
        for (std::size_t i = 0; i < n; ++i)
            for (auto k = static_cast<std::size_t>(row_ptrs[i]);
                 k < static_cast<std::size_t>(row_ptrs[i + 1]); ++k)
                f(i, static_cast<std::size_t>(col_idxs[k]));
    });
}

}  // namespace portla
