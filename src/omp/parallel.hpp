// Shared settings of the OpenMP kernels.
#pragma once

#include <cstddef>

namespace portla::kernels::omp {

// Vectors shorter than this run serially. 2^15 doubles = 256 KiB: below it a parallel region's
// fork/join (a few microseconds) costs more than the loop on a 2-core machine (estimate, to be
// replaced by the threshold `portla bench` measures).
inline constexpr std::size_t parallel_threshold = std::size_t{1} << 15;

}  // namespace portla::kernels::omp
