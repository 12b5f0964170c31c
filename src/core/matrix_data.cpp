#include "portla/matrix/matrix_data.hpp"

#include <algorithm>
#include <cstddef>
#include <tuple>

#include "portla/error.hpp"

namespace portla {

namespace {

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

struct Entry {
    std::int64_t row;
    std::int64_t col;
    double value;
};

bool by_position(const Entry& a, const Entry& b) {
    return std::tie(a.row, a.col) < std::tie(b.row, b.col);
}

// Sorted by (row, col) with duplicates summed; a stable sort keeps the summation order of
// duplicates equal to their order in the input, so the result is deterministic.
std::vector<Entry> sorted_summed(std::vector<Entry> entries) {
    std::stable_sort(entries.begin(), entries.end(), by_position);
    std::size_t out = 0;
    for (std::size_t k = 0; k < entries.size(); ++k) {
        if (out > 0 && entries[out - 1].row == entries[k].row &&
            entries[out - 1].col == entries[k].col) {
            entries[out - 1].value += entries[k].value;
        } else {
            entries[out++] = entries[k];
        }
    }
    entries.resize(out);
    return entries;
}

std::vector<Entry> to_entries(const MatrixData& data, bool transpose) {
    std::vector<Entry> entries(data.values.size());
    for (std::size_t k = 0; k < entries.size(); ++k) {
        entries[k] = transpose ? Entry{data.col_idx[k], data.row_idx[k], data.values[k]}
                               : Entry{data.row_idx[k], data.col_idx[k], data.values[k]};
    }
    return entries;
}

}  // namespace

void MatrixData::sort_and_sum_duplicates() {
    check_sizes(*this, "MatrixData::sort_and_sum_duplicates");
    // Explicit zeros, including sums that cancel, are kept: they are part of the structure.
    const std::vector<Entry> entries = sorted_summed(to_entries(*this, false));
    row_idx.resize(entries.size());
    col_idx.resize(entries.size());
    values.resize(entries.size());
    for (std::size_t k = 0; k < entries.size(); ++k) {
        row_idx[k] = entries[k].row;
        col_idx[k] = entries[k].col;
        values[k] = entries[k].value;
    }
}

bool MatrixData::is_symmetric() const {
    check_sizes(*this, "MatrixData::is_symmetric");
    if (rows != cols) {
        return false;
    }
    // Compare the values of A and A^T, entry by entry, in (row, col) order. Entries whose summed
    // value is zero are dropped first: an explicit zero equals a missing entry as a value.
    auto nonzeros = [this](bool transpose) {
        std::vector<Entry> entries = sorted_summed(to_entries(*this, transpose));
        entries.erase(std::remove_if(entries.begin(), entries.end(),
                                     [](const Entry& e) { return e.value == 0.0; }),
                      entries.end());
        return entries;
    };
    const std::vector<Entry> a = nonzeros(false);
    const std::vector<Entry> at = nonzeros(true);
    if (a.size() != at.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
        // NaN != NaN: a matrix holding NaN is not symmetric.
        if (a[k].row != at[k].row || a[k].col != at[k].col || !(a[k].value == at[k].value)) {
            return false;
        }
    }
    return true;
}

}  // namespace portla
