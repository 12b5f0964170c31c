// Coordinate entries to host CSR by counting sort: the one conversion behind
// io::read_matrix_market_csr and CsrData::from.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/host_threads.hpp"
#include "portla/matrix/matrix_data.hpp"

namespace portla::detail {

// Sorts one row's (column, value) pairs by column, stably (entries of a row arrive in input
// order), and sums duplicates in that order; returns the row's new length.
inline std::size_t sort_and_sum_row(std::int32_t* col, double* val, std::size_t n) {
    // Rows read from a sorted file are strictly increasing already: checked, and left as they are.
    std::size_t ordered = 1;
    while (ordered < n && col[ordered - 1] < col[ordered]) ++ordered;
    if (ordered >= n) return n;
    if (n <= 32) {
        for (std::size_t p = 1; p < n; ++p) {  // insertion sort: stable
            const std::int32_t c = col[p];
            const double v = val[p];
            std::size_t q = p;
            for (; q > 0 && c < col[q - 1]; --q) {
                col[q] = col[q - 1];
                val[q] = val[q - 1];
            }
            col[q] = c;
            val[q] = v;
        }
    } else {
        std::vector<std::pair<std::int32_t, double>> row(n);
        for (std::size_t p = 0; p < n; ++p) row[p] = {col[p], val[p]};
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t p = 0; p < n; ++p) std::tie(col[p], val[p]) = row[p];
    }
    std::size_t out = 0;
    for (std::size_t p = 0; p < n; ++p) {
        if (out > 0 && col[out - 1] == col[p]) {
            val[out - 1] += val[p];
        } else {
            col[out] = col[p];
            val[out] = val[p];
            ++out;
        }
    }
    return out;
}

/// Finishes a CSR whose rows hold their entries in input order: sorts each row by column (stably)
/// and sums its duplicates in that order (sort_and_sum_row), rows shared out over the host's
/// threads, then closes the gaps the duplicates left and sets the final row offsets. Needs 4 bytes
/// per row besides the matrix; throws bad_alloc (on the calling thread).
inline void sort_and_sum_rows(CsrData& out) {
    const auto n = static_cast<std::size_t>(out.rows);
    std::vector<std::int64_t>& start = out.row_ptrs;
    std::vector<std::int32_t>& col = out.col_idxs;
    std::vector<double>& val = out.values;
    // Rows sorted in parallel, each share of rows by one thread (a long row's sort allocates:
    // its failure is thrown here, on the calling thread). A row's length is below its column
    // count, so below 2^31 - 1.
    std::vector<std::int32_t> length(n);
    const unsigned threads = n < 4096 ? 1u : host_threads();
    std::atomic<bool> out_of_memory{false};
    run_on_threads(threads, [&](unsigned t) {
        const auto [first, last] = share(n, t, threads);
        try {
            for (std::size_t i = first; i < last; ++i) {
                const auto b = static_cast<std::size_t>(start[i]);
                const auto e = static_cast<std::size_t>(start[i + 1]);
                length[i] = static_cast<std::int32_t>(
                    sort_and_sum_row(col.data() + b, val.data() + b, e - b));
            }
        } catch (const std::bad_alloc&) {
            out_of_memory = true;
        }
    });
    if (out_of_memory) throw std::bad_alloc();
    // Close the gaps duplicates left (rows move left, in order), then the final offsets.
    std::size_t to = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto b = static_cast<std::size_t>(start[i]);
        const auto m = static_cast<std::size_t>(length[i]);
        if (to != b) {
            std::copy(col.begin() + b, col.begin() + b + m, col.begin() + to);
            std::copy(val.begin() + b, val.begin() + b + m, val.begin() + to);
        }
        start[i] = static_cast<std::int64_t>(to);
        to += m;
    }
    start[n] = static_cast<std::int64_t>(to);
    col.resize(to);
    val.resize(to);
}

/// CSR of the entries that `visit` lists: visit(f, last) calls f(row, col, value) for every
/// entry, in input order, with 0 <= row < rows and 0 <= col < cols (the caller has checked); it
/// is called twice (counting, then placing: `last` is true, so the caller may free what it has
/// listed). Rows are bucketed by a counting sort, then each row is sorted by column and its
/// duplicates summed in input order (what MatrixData::sort_and_sum_duplicates gives), rows
/// shared out over the host's threads. Bytes: 8 per row and 12 per entry for the result, 8 per
/// row while placing (then 4 while sorting). Any number of entries (64-bit offsets); rows and
/// columns below 2^31 - 1 (int32 indices, checked by the caller). Throws bad_alloc.
template <typename Visit>
CsrData build_csr(std::int64_t rows, std::int64_t cols, const Visit& visit) {
    CsrData out;
    out.rows = rows;
    out.cols = cols;
    const auto n = static_cast<std::size_t>(rows);
    std::vector<std::int64_t>& start = out.row_ptrs;
    start.assign(n + 1, 0);
    std::int64_t total = 0;
    visit([&](std::int32_t r, std::int32_t, double) { ++start[static_cast<std::size_t>(r) + 1]; },
          false);
    for (std::size_t i = 0; i < n; ++i) {
        total += start[i + 1];
        start[i + 1] = total;
    }
    std::vector<std::int32_t>& col = out.col_idxs;
    std::vector<double>& val = out.values;
    col.resize(static_cast<std::size_t>(total));
    val.resize(static_cast<std::size_t>(total));
    {
        std::vector<std::int64_t> next(start.begin(), start.end() - 1);
        visit(
            [&](std::int32_t r, std::int32_t c, double v) {
                const auto p = static_cast<std::size_t>(next[static_cast<std::size_t>(r)]++);
                col[p] = c;
                val[p] = v;
            },
            true);
    }
    sort_and_sum_rows(out);
    return out;
}

}  // namespace portla::detail
