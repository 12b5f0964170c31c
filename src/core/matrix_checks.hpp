// Checks shared by the stored matrix formats, done once on the host at construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/error.hpp"
#include "portla/matrix/matrix_data.hpp"

namespace portla::detail {

/// `input` when it is sorted without duplicates, else `copy` sorted and summed: what the
/// from_data builders read (a sorted input is not copied: 24 bytes per entry).
inline const MatrixData& sorted_entries(const MatrixData& input, MatrixData& copy) {
    if (input.is_sorted()) return input;
    copy = input;
    copy.sort_and_sum_duplicates();
    return copy;
}

/// CSR arrays of a rows x cols matrix: rows + 1 offsets from 0, never decreasing, ending at the
/// entry count, every column index in [0, cols). DimensionMismatch or BadInput, named by
/// `format`, for the first that fails.
template <typename P, typename C>
void check_csr_structure(const char* format, std::size_t rows, std::size_t cols,
                         const_view<P> row_ptrs, const_view<C> col_idxs) {
    const std::string name(format);
    if (row_ptrs.size != rows + 1)
        throw DimensionMismatch(name + " row_ptrs", rows + 1, row_ptrs.size);
    if (row_ptrs[0] != 0) throw BadInput(name + ": row_ptrs[0] must be 0");
    for (std::size_t i = 0; i < rows; ++i)
        if (row_ptrs[i + 1] < row_ptrs[i])
            throw BadInput(name + ": row_ptrs decrease at row " + std::to_string(i));
    if (static_cast<std::size_t>(row_ptrs[rows]) != col_idxs.size)
        throw DimensionMismatch(name + " col_idxs", row_ptrs[rows], col_idxs.size);
    for (std::size_t k = 0; k < col_idxs.size; ++k)
        if (col_idxs[k] < 0 || static_cast<std::size_t>(col_idxs[k]) >= cols)
            throw BadInput(name + ": column index " + std::to_string(col_idxs[k]) + " at entry " +
                           std::to_string(k) + " out of range [0, " + std::to_string(cols) + ")");
}

inline void check_int32_dims(const char* format, const MatrixData& data) {
    constexpr auto max = std::numeric_limits<std::int32_t>::max();
    if (data.rows < 0 || data.cols < 0)
        throw BadInput(std::string(format) + ": negative dimensions");
    if (data.rows >= max || data.cols >= max || static_cast<std::int64_t>(data.entries()) >= max)
        throw BadInput(std::string(format) + ": " + std::to_string(data.rows) + " x " +
                       std::to_string(data.cols) + " with " + std::to_string(data.entries()) +
                       " entries exceeds the int32 index range");
}

/// The size of a maximum matching of the bipartite row-column graph of an n x n pattern given
/// as CSR (row_ptrs, col_idxs): the structural rank, the largest rank any values on this pattern
/// can give. Hopcroft-Karp, O(entries sqrt(n)) time whatever the input, iterative (no recursion).
inline std::size_t structural_rank(std::size_t n, const std::vector<std::size_t>& row_ptrs,
                                   const std::vector<std::size_t>& col_idxs) {
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> row_match(n, none), col_match(n, none), dist(n), next(n), queue(n),
        path, cols;
    std::size_t matched = 0;
    for (std::size_t r = 0; r < n; ++r)  // greedy start
        for (std::size_t k = row_ptrs[r]; k < row_ptrs[r + 1] && row_match[r] == none; ++k)
            if (col_match[col_idxs[k]] == none) {
                row_match[r] = col_idxs[k];
                col_match[col_idxs[k]] = r;
                ++matched;
            }
    for (;;) {
        // Layers from the free rows along alternating paths; stop at the first free column.
        std::size_t head = 0, tail = 0;
        bool found = false;
        for (std::size_t r = 0; r < n; ++r) {
            dist[r] = row_match[r] == none ? 0 : none;
            if (dist[r] == 0) queue[tail++] = r;
        }
        while (head < tail) {
            const std::size_t r = queue[head++];
            for (std::size_t k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
                const std::size_t w = col_match[col_idxs[k]];
                if (w == none) {
                    found = true;
                } else if (dist[w] == none) {
                    dist[w] = dist[r] + 1;
                    queue[tail++] = w;
                }
            }
        }
        if (!found) return matched;
        // Vertex-disjoint shortest augmenting paths, by an explicit-stack search per free row.
        for (std::size_t r = 0; r < n; ++r) next[r] = row_ptrs[r];
        for (std::size_t r0 = 0; r0 < n; ++r0) {
            if (row_match[r0] != none || dist[r0] != 0) continue;
            path.assign(1, r0);
            cols.clear();
            while (!path.empty()) {
                const std::size_t r = path.back();
                if (next[r] == row_ptrs[r + 1]) {  // dead end
                    dist[r] = none;
                    path.pop_back();
                    if (!cols.empty()) cols.pop_back();
                    continue;
                }
                const std::size_t c = col_idxs[next[r]++];
                const std::size_t w = col_match[c];
                if (w == none) {  // augment along the path
                    cols.push_back(c);
                    for (std::size_t i = 0; i < path.size(); ++i) {
                        row_match[path[i]] = cols[i];
                        col_match[cols[i]] = path[i];
                    }
                    ++matched;
                    dist[r0] = none;
                    break;
                }
                if (dist[w] != none && dist[w] == dist[r] + 1) {
                    cols.push_back(c);
                    path.push_back(w);
                }
            }
        }
    }
}

/// Most entries structural_defect copies for the structural rank (2 GiB of copy).
constexpr std::size_t kMaxMatchedEntries = std::size_t{1} << 28;

/// Why a square rows x cols structure is singular whatever its values: the first empty row or,
/// failing that, the first empty column (1-based in the message), or, when some diagonal entry
/// is not stored, a structural rank below n (a maximum matching); "" otherwise. `for_each_entry(f)`
/// calls f(row, col) for every stored entry (explicit zeros count: they are structure). With every
/// diagonal entry stored (the common case) O(entries + rows + cols) time and rows + cols bits;
/// otherwise the pattern is copied once for the matching, up to `max_matched` entries (past it
/// the rank is not computed: "" unless a row or column is empty).
template <typename ForEachEntry>
std::string structural_defect(std::size_t rows, std::size_t cols, ForEachEntry for_each_entry,
                              std::size_t max_matched = kMaxMatchedEntries) {
    if (rows != cols || rows == 0) return {};
    std::vector<bool> row_used(rows, false), col_used(cols, false), diagonal(rows, false);
    for_each_entry([&](std::size_t r, std::size_t c) {
        row_used[r] = true;
        col_used[c] = true;
        if (r == c) diagonal[r] = true;
    });
    for (const auto& [used, what] : {std::pair{&row_used, "row"}, std::pair{&col_used, "column"}})
        for (std::size_t i = 0; i < used->size(); ++i)
            if (!(*used)[i])
                return std::string("matrix has an empty ") + what + " (" + what + " " +
                       std::to_string(i + 1) + " of " + std::to_string(rows) +
                       ", counting from 1): the system is singular";
    bool all_diagonal = true;
    for (std::size_t i = 0; i < rows && all_diagonal; ++i) all_diagonal = diagonal[i];
    if (all_diagonal) return {};  // the diagonal is a perfect matching
    std::vector<std::size_t> row_ptrs(rows + 1, 0), col_idxs;
    for_each_entry([&](std::size_t r, std::size_t) { ++row_ptrs[r + 1]; });
    for (std::size_t i = 0; i < rows; ++i) row_ptrs[i + 1] += row_ptrs[i];
    // The matching copies the pattern (8 bytes per entry): past max_matched it is not
    // attempted (2e9 entries would take 16 GB more host memory), and only the empty rows and
    // columns above are reported.
    if (row_ptrs[rows] > max_matched) return {};
    col_idxs.resize(row_ptrs[rows]);
    std::vector<std::size_t> fill(row_ptrs.begin(), row_ptrs.end() - 1);
    for_each_entry([&](std::size_t r, std::size_t c) { col_idxs[fill[r]++] = c; });
    const std::size_t rank = structural_rank(rows, row_ptrs, col_idxs);
    if (rank == rows) return {};
    return "matrix is structurally singular: its pattern allows rank " + std::to_string(rank) +
           " of " + std::to_string(rows) + " whatever the values (no row-column matching covers " +
           "every row)";
}

}  // namespace portla::detail
