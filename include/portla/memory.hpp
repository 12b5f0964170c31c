/// \file
/// Memory budgets: a whole run's memory, estimated before anything is allocated, checked against
/// what the machine can give now (not its physical total), so a tiny input that declares a huge
/// problem is refused in a second with one line instead of paging or being killed.
#pragma once

#include <cstddef>
#include <string>

#include "portla/executor.hpp"

namespace portla {

/// Bytes of host memory the kernel says can be allocated now without swapping: MemAvailable,
/// further limited by the cgroup's memory.max when one is set and by what the process's
/// resource limits (RLIMIT_AS, RLIMIT_DATA) leave it. Falls back to the physical total, then
/// to unlimited, when MemAvailable is not known.
std::size_t host_memory_available();

/// An estimate of the bytes a run needs, added up in double so that no product of sizes wraps.
class MemoryNeed {
public:
    /// `count` elements of `bytes_each` bytes (count may be a product of declared sizes).
    MemoryNeed& add(double count, double bytes_each) {
        bytes_ += count * bytes_each;
        return *this;
    }
    /// `bytes` bytes more.
    MemoryNeed& add_bytes(double bytes) {
        bytes_ += bytes;
        return *this;
    }
    /// The total so far, in bytes.
    double bytes() const { return bytes_; }

private:
    double bytes_ = 0;
};

/// Throws OutOfMemory ("WHAT needs 12.0 GiB; 3.1 GiB of host memory is available") when `need`
/// exceeds what `exec` can give now (host: host_memory_available(); GPU: its free memory).
void require_memory(const Executor& exec, const MemoryNeed& need, const std::string& what);

/// The same against host memory only (readers, generators: data built on the host first).
void require_host_memory(const MemoryNeed& need, const std::string& what);

/// "12.0 GiB", "512.0 MiB", "740 B".
std::string format_bytes(double bytes);

}  // namespace portla
