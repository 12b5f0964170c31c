// Shared settings of the OpenMP kernels.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "portla/kernel_options.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

// Loops compiled for AVX-512, AVX2 and baseline x86-64, picked at load time (GCC function
// multi-versioning through an ifunc: the function needs external linkage).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PORTLA_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PORTLA_SIMD_CLONES
#endif

namespace portla::kernels::omp {

// Loops over fewer elements than this run serially: forking a thread team costs more than the
// work. set_omp_parallel_threshold overrides it (0: always parallel), which is how `portla bench`
// measures the crossover on a machine.
inline std::size_t parallel_threshold() {
    // The default, 4096 (src/core/kernel_options.cpp): the measured crossover, omp (2 threads,
    // threshold 0) vs the sequential reference, 2-core Xeon VM, 2026-11-21: axpby 4096 (0.97x the
    // serial time; 1.75x at 2048), dot 1024 (0.92x), fused CG update 2048 (0.55x). 4096 keeps every
    // kernel at or below its serial time.
    return omp_parallel_threshold();
}

/// Threads of a team asked for with `threads` (LaunchConfig::threads): 0 means every thread of
/// the OpenMP runtime.
inline int team_size(int threads) {
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    return threads > 0 ? threads : 1;
#endif
}

/// Count sums over a team of team_size(threads) threads (serial when !parallel): body(part)
/// adds the calling thread's terms into its own part (zeroed), and the parts are added in thread
/// order. OpenMP's reduction clause combines the threads' partial sums in whatever order they
/// finish, so with three threads or more the same inputs could give other bits from call to
/// call; this order is fixed for a given team size.
template <std::size_t Count, typename Body>
std::array<double, Count> ordered_sums(bool parallel, int threads, Body body) {
    std::array<double, Count> total{};
#ifdef _OPENMP
    if (parallel) {
        const int team = team_size(threads);
        std::vector<std::array<double, Count>> parts(static_cast<std::size_t>(team));
#pragma omp parallel num_threads(team)
        {
            std::array<double, Count> mine{};
            body(mine);
            parts[static_cast<std::size_t>(omp_get_thread_num())] = mine;
        }
        for (const auto& part : parts)
            for (std::size_t k = 0; k < Count; ++k) total[k] += part[k];
        return total;
    }
#else
    (void)parallel;
    (void)threads;
#endif
    body(total);
    return total;
}

/// The calling thread's share [begin, end) of [0, n) units in a static split over the team
/// (the whole range outside a parallel region).
inline std::pair<std::size_t, std::size_t> thread_range(std::size_t n) {
#ifdef _OPENMP
    const std::size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
#else
    const std::size_t t = 0, threads = 1;
#endif
    return {n * t / threads, n * (t + 1) / threads};
}

/// Share t of `threads` in a split of n rows by work: row i starts at work start(i),
/// nondecreasing, start(n) the total (CSR rows: row_ptrs[i] + i, entries + rows); share t gets
/// the rows [first, last) starting in its static share [n_w t / threads, n_w (t + 1) / threads)
/// of the n_w = start(n) units. The shares tile [0, n) in order. A power-law matrix's long rows
/// then no longer land on one thread.
template <typename Start>
std::pair<std::size_t, std::size_t> rows_of_share(std::size_t n, Start start, std::size_t t,
                                                  std::size_t threads) {
    const std::size_t total = start(n);
    const auto row_at = [&](std::size_t target) {  // the first row starting at >= target
        std::size_t lo = 0, hi = n;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (start(mid) < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    const std::size_t begin = total * t / threads, end = total * (t + 1) / threads;
    return {row_at(begin), t + 1 == threads ? n : row_at(end)};
}

/// The calling thread's rows of n rows split by work (rows_of_share over the team).
template <typename Start>
std::pair<std::size_t, std::size_t> thread_rows(std::size_t n, Start start) {
#ifdef _OPENMP
    const std::size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
#else
    const std::size_t t = 0, threads = 1;
#endif
    return rows_of_share(n, start, t, threads);
}

}  // namespace portla::kernels::omp
