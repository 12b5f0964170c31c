// Host-side coordinate (COO) data: the exchange format between readers, generators and the
// stored matrix formats. Entries are in any order; duplicates are summed on conversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace portla {

namespace detail {

/// Memo of the stable (row, col) order of a MatrixData's entries, found by the one sort that
/// is_symmetric() does on unsorted data and shared by copies, so that a later
/// sort_and_sum_duplicates() (Csr::from_data, Ell::from_data, ...) on the same entries needs no
/// second sort. Only a hint: before use it is checked in O(entries) against the current entries
/// (a permutation, keys non-decreasing, ties in input order), so changing the public arrays can
/// never give a wrong result; a stale hint is ignored. Copies and reads are atomic.
class EntryOrderHint {
public:
    using Order = std::vector<std::size_t>;
    EntryOrderHint() = default;
    EntryOrderHint(const EntryOrderHint& other) : order_(other.get()) {}
    EntryOrderHint& operator=(const EntryOrderHint& other) {
        set(other.get());
        return *this;
    }
    std::shared_ptr<const Order> get() const { return std::atomic_load(&order_); }
    void set(std::shared_ptr<const Order> order) const {
        std::atomic_store(&order_, std::move(order));
    }

private:
    mutable std::shared_ptr<const Order> order_;
};

}  // namespace detail

struct MatrixData {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<std::int64_t> row_idx;
    std::vector<std::int64_t> col_idx;
    std::vector<double> values;
    /// Internal: see detail::EntryOrderHint. Never needs to be set by users.
    detail::EntryOrderHint order_hint;

    std::size_t entries() const { return values.size(); }
    void add(std::int64_t r, std::int64_t c, double v) {
        row_idx.push_back(r);
        col_idx.push_back(c);
        values.push_back(v);
    }
    /// Sorts entries by (row, col) and sums duplicates (in input order, so the result is
    /// deterministic). O(entries) when already sorted without duplicates or when the order
    /// hint left by is_symmetric() still matches.
    void sort_and_sum_duplicates();
    /// True when square and A == A^T exactly (after summing duplicates).
    bool is_symmetric() const;
};

}  // namespace portla
