// Checks shared by the stored matrix formats, done once on the host at construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "portla/error.hpp"
#include "portla/matrix/matrix_data.hpp"

namespace portla::detail {

inline void check_int32_dims(const char* format, const MatrixData& data) {
    constexpr auto max = std::numeric_limits<std::int32_t>::max();
    if (data.rows < 0 || data.cols < 0)
        throw BadInput(std::string(format) + ": negative dimensions");
    if (data.rows >= max || data.cols >= max || static_cast<std::int64_t>(data.entries()) >= max)
        throw BadInput(std::string(format) + ": " + std::to_string(data.rows) + " x " +
                       std::to_string(data.cols) + " with " + std::to_string(data.entries()) +
                       " entries exceeds the int32 index range");
}

/// Why a square rows x cols structure is singular whatever its values: the first empty row or,
/// failing that, the first empty column (1-based in the message), or "" when every row and column
/// holds an entry. `for_each_entry(f)` calls f(row, col) for every stored entry (explicit zeros
/// count: they are structure). O(entries + rows + cols) time, rows + cols bits.
template <typename ForEachEntry>
std::string structural_defect(std::size_t rows, std::size_t cols, ForEachEntry for_each_entry) {
    if (rows != cols || rows == 0) return {};
    std::vector<bool> row_used(rows, false), col_used(cols, false);
    for_each_entry([&](std::size_t r, std::size_t c) {
        row_used[r] = true;
        col_used[c] = true;
    });
    for (const auto& [used, what] : {std::pair{&row_used, "row"}, std::pair{&col_used, "column"}})
        for (std::size_t i = 0; i < used->size(); ++i)
            if (!(*used)[i])
                return std::string("matrix has an empty ") + what + " (" + what + " " +
                       std::to_string(i + 1) + " of " + std::to_string(rows) +
                       ", counting from 1): the system is singular";
    return {};
}

}  // namespace portla::detail
