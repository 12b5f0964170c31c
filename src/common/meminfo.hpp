// The host's memory as Linux reports it in /proc/meminfo.
#pragma once

#include <cstddef>
#include <fstream>
#include <string>

namespace portla::common {

/// A /proc/meminfo entry ("MemAvailable:", "MemTotal:") in bytes, or 0 when unknown.
inline std::size_t meminfo_bytes(const std::string& entry) {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == entry) return kib * 1024;
    return 0;
}

}  // namespace portla::common
