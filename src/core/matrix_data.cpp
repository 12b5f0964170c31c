#include "portla/matrix/matrix_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <tuple>

#include "core/matrix_checks.hpp"
#include "portla/error.hpp"

namespace portla {

namespace {

// A permutation of the entries: entry of rank k = order[k].
using Order = std::vector<std::size_t>;

void check_sizes(const MatrixData& data, const char* where) {
    if (data.row_idx.size() != data.values.size()) {
        throw DimensionMismatch(std::string(where) + ": row_idx", data.values.size(),
                                data.row_idx.size());
    }
    if (data.col_idx.size() != data.values.size()) {
        throw DimensionMismatch(std::string(where) + ": col_idx", data.values.size(),
                                data.col_idx.size());
    }
}

// (row, col) of entry k.
std::pair<std::int64_t, std::int64_t> key(const MatrixData& d, std::size_t k) {
    return {d.row_idx[k], d.col_idx[k]};
}

// Sorted by (row, col) without duplicates: already what sort_and_sum_duplicates() gives.
bool strictly_sorted(const MatrixData& d) {
    for (std::size_t k = 1; k < d.entries(); ++k) {
        if (!(key(d, k - 1) < key(d, k))) {
            return false;
        }
    }
    return true;
}

// Counting sort by row pays off when the row range is not much larger than the entry count and
// every row index lies in it; otherwise (hypersparse, or indices out of range) a comparison sort.
bool rows_bucketable(std::int64_t rows, const std::vector<std::int64_t>& row_idx) {
    if (rows < 0 || static_cast<std::uint64_t>(rows) > 2 * row_idx.size() + 1024) {
        return false;
    }
    return std::all_of(row_idx.begin(), row_idx.end(),
                       [rows](std::int64_t r) { return r >= 0 && r < rows; });
}

// THE sort on the way from coordinate data to CSR: the stable (row, col) order of the entries,
// as a permutation (entry of rank k = order[k]); duplicates keep their input order, so summing
// them in this order is deterministic and equal to the former std::stable_sort of the entries.
// Counting sort by row (stable, O(entries + rows)), then each row's few entries by column with
// the input position as tie-break. portla solve sorts once, in load_problem right after reading;
// is_symmetric, the CLI's own sort and Csr/Ell::from_data then take the O(entries) already-sorted
// path. Measured on this 2-core VM (2026-11-23, other builds running, load ~3, so CPU time):
// `portla solve FILE --max-iters 0 --json --backend omp` on a generated 1e6-row 7-point-stencil
// file (6.94e6 entries, column-major order, in /tmp) took 4.2 s user CPU (load ~7) with the four
// std::stable_sort of 24-byte entries, 1.55-1.94 s (3 runs) with this sort done by is_symmetric
// and its order kept as a hint for the later sorts, and 1.30-1.48 s (5 runs) sorting once in
// load_problem (1.24-1.54 s with --solver bicgstab).
Order stable_order(const MatrixData& d) {
    const std::size_t n = d.entries();
    Order order(n);
    if (!rows_bucketable(d.rows, d.row_idx)) {
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&d](std::size_t a, std::size_t b) { return key(d, a) < key(d, b); });
        return order;
    }
    const auto rows = static_cast<std::size_t>(d.rows);
    std::vector<std::size_t> start(rows + 1, 0);
    for (const std::int64_t r : d.row_idx) {
        ++start[static_cast<std::size_t>(r) + 1];
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    struct ColumnOf {
        std::int64_t col;
        std::size_t entry;
        bool operator<(const ColumnOf& o) const {
            return std::tie(col, entry) < std::tie(o.col, o.entry);
        }
    };
    std::vector<ColumnOf> slots(n);
    {
        std::vector<std::size_t> next(start.begin(), start.end() - 1);
        for (std::size_t k = 0; k < n; ++k) {
            slots[next[static_cast<std::size_t>(d.row_idx[k])]++] = {d.col_idx[k], k};
        }
    }
    for (std::size_t i = 0; i < rows; ++i) {
        ColumnOf* const first = slots.data() + start[i];
        ColumnOf* const last = slots.data() + start[i + 1];
        if (last - first <= 32) {
            // Insertion sort: entries of a row arrive in input order, so it is stable.
            for (ColumnOf* p = first + 1; p < last; ++p) {
                const ColumnOf e = *p;
                ColumnOf* q = p;
                for (; q > first && e.col < (q - 1)->col; --q) {
                    *q = *(q - 1);
                }
                *q = e;
            }
        } else {
            std::sort(first, last);
        }
    }
    for (std::size_t k = 0; k < n; ++k) {
        order[k] = slots[k].entry;
    }
    return order;
}

// Entries in `order` with duplicates summed (in that order); explicit zeros, including sums that
// cancel, are kept: they are part of the structure.
void gather_summed(const MatrixData& d, const Order& order, std::vector<std::int64_t>& rows,
                   std::vector<std::int64_t>& cols, std::vector<double>& values) {
    rows.clear();
    cols.clear();
    values.clear();
    rows.reserve(order.size());
    cols.reserve(order.size());
    values.reserve(order.size());
    for (const std::size_t p : order) {
        if (!values.empty() && rows.back() == d.row_idx[p] && cols.back() == d.col_idx[p]) {
            values.back() += d.values[p];
        } else {
            rows.push_back(d.row_idx[p]);
            cols.push_back(d.col_idx[p]);
            values.push_back(d.values[p]);
        }
    }
}

// Symmetry test on entries strictly sorted by (row, col) (the CSR-like structure): every entry
// (i, j, v) needs |v - a_ji| <= tol, with a_ji found by binary search in row j's columns (0 when
// absent, so a missing mirror of a nonzero entry larger than tol fails). With tol = 0 this is
// exact equality; an explicit zero equals a missing entry. NaN fails every comparison: a matrix
// holding NaN is not symmetric. Since transposition is a bijection, checking every stored entry
// compares all of A with A^T.
bool sorted_is_symmetric(std::int64_t n, const std::vector<std::int64_t>& rows,
                         const std::vector<std::int64_t>& cols, const std::vector<double>& values,
                         double rel_tol) {
    double largest = 0;
    if (rel_tol > 0)
        for (const double v : values) largest = std::max(largest, std::abs(v));
    const double tol = rel_tol * largest;
    const std::size_t m = values.size();
    auto in_range = [n](std::int64_t i) { return i >= 0 && i < n; };
    const bool by_row = static_cast<std::uint64_t>(n) <= 2 * m + 1024 &&
                        std::all_of(rows.begin(), rows.end(), in_range) &&
                        std::all_of(cols.begin(), cols.end(), in_range);
    std::vector<std::size_t> row_ptr;
    if (by_row) {
        row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
        for (const std::int64_t r : rows) {
            ++row_ptr[static_cast<std::size_t>(r) + 1];
        }
        std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
    }
    // Position of entry (r, c), or m when absent.
    auto find = [&](std::int64_t r, std::int64_t c) -> std::size_t {
        if (by_row) {
            const auto first = cols.begin() + static_cast<std::ptrdiff_t>(row_ptr[r]);
            const auto last = cols.begin() + static_cast<std::ptrdiff_t>(row_ptr[r + 1]);
            const auto it = std::lower_bound(first, last, c);
            return it != last && *it == c ? static_cast<std::size_t>(it - cols.begin()) : m;
        }
        std::size_t lo = 0, hi = m;  // first position with (row, col) >= (r, c)
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (std::make_pair(rows[mid], cols[mid]) < std::make_pair(r, c)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < m && rows[lo] == r && cols[lo] == c ? lo : m;
    };
    for (std::size_t k = 0; k < m; ++k) {
        if (values[k] == 0.0 && rows[k] != cols[k]) {
            continue;  // its mirror, if nonzero, is checked against this (missing) zero
        }
        const std::size_t mirror = find(cols[k], rows[k]);
        const double transposed = mirror == m ? 0.0 : values[mirror];
        if (!(std::abs(values[k] - transposed) <= tol)) {
            return false;
        }
    }
    return true;
}

}  // namespace

bool MatrixData::is_sorted() const {
    check_sizes(*this, "MatrixData::is_sorted");
    return strictly_sorted(*this);
}

void MatrixData::sort_and_sum_duplicates() {
    check_sizes(*this, "MatrixData::sort_and_sum_duplicates");
    if (strictly_sorted(*this)) {
        return;
    }
    std::vector<std::int64_t> rows, cols;
    std::vector<double> summed;
    gather_summed(*this, stable_order(*this), rows, cols, summed);
    row_idx = std::move(rows);
    col_idx = std::move(cols);
    values = std::move(summed);
}

bool MatrixData::is_symmetric(double rel_tol) const {
    check_sizes(*this, "MatrixData::is_symmetric");
    if (rows != cols) {
        return false;
    }
    if (strictly_sorted(*this)) {
        return sorted_is_symmetric(rows, row_idx, col_idx, values, rel_tol);
    }
    // Unsorted or with duplicates: one sort of a summed copy (this data stays as it is).
    std::vector<std::int64_t> r, c;
    std::vector<double> v;
    gather_summed(*this, stable_order(*this), r, c, v);
    return sorted_is_symmetric(rows, r, c, v, rel_tol);
}

std::string MatrixData::structural_defect() const {
    check_sizes(*this, "MatrixData::structural_defect");
    if (rows < 0 || cols < 0) return {};
    return detail::structural_defect(
        static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), [this](auto&& f) {
            for (std::size_t k = 0; k < entries(); ++k)
                f(static_cast<std::size_t>(row_idx[k]), static_cast<std::size_t>(col_idx[k]));
        });
}

}  // namespace portla
