#include "portla/memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>

#include "common/meminfo.hpp"
#include "portla/error.hpp"

namespace portla {

namespace {

// The cgroup v2 limit of this process ("max" or absent: none), minus what it uses now.
std::size_t cgroup_available() {
    std::ifstream max("/sys/fs/cgroup/memory.max"), current("/sys/fs/cgroup/memory.current");
    std::string limit;
    std::size_t used = 0;
    if (!(max >> limit) || limit == "max" || !(current >> used))
        return std::numeric_limits<std::size_t>::max();
    try {
        const std::size_t cap = std::stoull(limit);
        return cap > used ? cap - used : 0;
    } catch (const std::exception&) {
        return std::numeric_limits<std::size_t>::max();
    }
}

// What the resource limits (ulimit -v: RLIMIT_AS, ulimit -d: RLIMIT_DATA) leave this process:
// each limit less what it counts now (/proc/self/statm: the address space, the data and stack).
std::size_t rlimit_available() {
    std::size_t available = std::numeric_limits<std::size_t>::max();
    std::ifstream statm("/proc/self/statm");
    std::size_t pages[6] = {};
    for (auto& p : pages) statm >> p;
    const long page = ::sysconf(_SC_PAGE_SIZE);
    const std::size_t page_bytes = page > 0 ? std::size_t(page) : 4096;
    const std::pair<int, std::size_t> limits[] = {{RLIMIT_AS, pages[0]}, {RLIMIT_DATA, pages[5]}};
    for (const auto& [resource, used_pages] : limits) {
        struct rlimit limit {};
        if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) continue;
        const std::size_t cap = static_cast<std::size_t>(limit.rlim_cur);
        const std::size_t used = statm ? used_pages * page_bytes : 0;
        available = std::min(available, cap > used ? cap - used : 0);
    }
    return available;
}

OutOfMemory too_much(const MemoryNeed& need, double available, const std::string& where,
                     const std::string& what) {
    const double b = need.bytes();
    return OutOfMemory::refused(
        what + " needs " + format_bytes(b) + "; " + format_bytes(available) + " of " + where +
            " memory is available",
        b >= 1.8e19 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(b));
}

}  // namespace

std::size_t host_memory_available() {
    std::size_t avail = common::meminfo_bytes("MemAvailable:");
    if (avail == 0) {
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        avail = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page)
                                      : std::numeric_limits<std::size_t>::max();
    }
    return std::min({avail, cgroup_available(), rlimit_available()});
}

std::string format_bytes(double bytes) {
    char buf[64];
    if (!std::isfinite(bytes)) return "an unbounded amount";
    if (bytes >= 1024.0 * 1024 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f TiB", bytes / (1024.0 * 1024 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024.0)
        std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    return buf;
}

void require_host_memory(const MemoryNeed& need, const std::string& what) {
    const double avail = static_cast<double>(host_memory_available());
    if (!(need.bytes() <= avail)) throw too_much(need, avail, "host", what);
}

void require_memory(const Executor& exec, const MemoryNeed& need, const std::string& what) {
    if (exec.is_host()) return require_host_memory(need, what);
    std::size_t free_bytes = 0, total = 0;
    exec.memory_info(free_bytes, total);
    if (!(need.bytes() <= static_cast<double>(free_bytes)))
        throw too_much(need, static_cast<double>(free_bytes), exec.device_name(), what);
}

}  // namespace portla
