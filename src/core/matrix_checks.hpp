// Checks shared by the stored matrix formats, done once on the host at construction.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

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

}  // namespace portla::detail
