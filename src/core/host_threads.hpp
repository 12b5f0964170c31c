// Host threads for set-up work in core (reading and converting matrices), which is not a
// backend's kernel: core is compiled without OpenMP, so plain std::threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace portla::detail {

/// How many threads host set-up work may use: OMP_NUM_THREADS when set (the omp backend's
/// limit, so one setting governs both), else the CPUs this process may run on (its affinity
/// mask: taskset, a container's cpuset, one MPI rank's binding); 1 to 64.
inline unsigned host_threads() {
    unsigned n = std::thread::hardware_concurrency();
#if defined(__linux__)
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0) n = static_cast<unsigned>(CPU_COUNT(&mask));
#endif
    if (const char* env = std::getenv("OMP_NUM_THREADS")) {
        const long asked = std::strtol(env, nullptr, 10);
        if (asked > 0) n = static_cast<unsigned>(std::min(asked, 64L));
    }
    return std::clamp(n, 1u, 64u);
}

/// Runs work(0) ... work(count - 1) at once, work(0) on the calling thread, and returns when all
/// have. `work` must not throw. A thread that cannot be started runs its share afterwards here.
template <typename Work>
void run_on_threads(unsigned count, const Work& work) {
    std::vector<std::thread> pool;
    std::vector<unsigned> left;
    // Room for every thread first: a reallocation that failed (bad_alloc) while threads run
    // would destroy joinable threads (std::terminate).
    pool.reserve(count);
    left.reserve(count);
    for (unsigned t = 1; t < count; ++t) {
        try {
            pool.emplace_back([&work, t] { work(t); });
        } catch (const std::system_error&) {
            left.push_back(t);
        }
    }
    work(0);
    for (std::thread& thread : pool) thread.join();
    for (const unsigned t : left) work(t);
}

/// [begin, end) of part `t` of `count` nearly equal parts of [0, n).
inline std::pair<std::size_t, std::size_t> share(std::size_t n, unsigned t, unsigned count) {
    return {n * t / count, n * (t + 1) / count};
}

}  // namespace portla::detail
