// The runtime of the CPU backends (reference, omp): host memory, memcpy, a steady clock, and
// "graphs" that call the captured function again. Compiled into each CPU backend's runtime.cpp.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "common/meminfo.hpp"
#include "core/runtime.hpp"
#include "portla/error.hpp"
#include "portla/memory.hpp"

namespace portla::host {

/// The host's memory in bytes (MemTotal), 0 when unknown.
inline std::size_t host_memory_total() { return common::meminfo_bytes("MemTotal:"); }

class HostEvent final : public detail::Event {
public:
    void record() override { time_ = std::chrono::steady_clock::now(); }
    double seconds_since(const detail::Event& start) const override {
        return std::chrono::duration<double>(time_ - static_cast<const HostEvent&>(start).time_)
            .count();
    }
    bool on_device() const override { return false; }

private:
    std::chrono::steady_clock::time_point time_ = std::chrono::steady_clock::now();
};

/// `threads`: the worker threads the backend runs on (for the device name).
class HostRuntime : public detail::Runtime {
public:
    explicit HostRuntime(int threads) : threads_(threads) {}

    std::string device_name() const override {
        return "CPU (" + std::to_string(threads_) + (threads_ == 1 ? " thread)" : " threads)");
    }
    DeviceInfo device_info() const override {
        DeviceInfo info;
        info.name = device_name();
        info.memory_bytes = host_memory_total();
        info.multiprocessors = threads_;
        return info;
    }
    void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) const override {
        free_bytes = host_memory_available();
        total_bytes = host_memory_total();
    }
    bool is_host() const override { return true; }

    void* allocate(std::size_t bytes) const override {
        if (bytes == 0) return nullptr;
        if (bytes >= (std::size_t{256} << 20)) {
            const std::size_t available = host_memory_available();
            if (available > 0 && bytes > available) throw OutOfMemory("host", bytes);
        }
        if (bytes > std::numeric_limits<std::size_t>::max() - 64) throw OutOfMemory("host", bytes);
        // 64-byte alignment: whole cache lines, full-width vector loads.
        const std::size_t rounded = (bytes + 63) / 64 * 64;
        void* p = std::aligned_alloc(64, rounded);
        if (!p) throw OutOfMemory("host", bytes);
        return p;
    }
    void deallocate(void* ptr) const noexcept override { std::free(ptr); }
    void copy_from_host(void* dst, const void* src, std::size_t bytes) const override {
        std::memcpy(dst, src, bytes);
    }
    void copy_to_host(void* dst, const void* src, std::size_t bytes) const override {
        std::memcpy(dst, src, bytes);
    }
    void copy_within(void* dst, const void* src, std::size_t bytes) const override {
        std::memmove(dst, src, bytes);
    }
    void synchronize() const override {}
    std::unique_ptr<detail::Event> make_event() const override {
        return std::make_unique<HostEvent>();
    }

private:
    int threads_;
};

}  // namespace portla::host
