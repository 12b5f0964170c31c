/// \file
/// Timing work on an executor: device events on a GPU's stream, a steady clock after
/// synchronising on the CPU. Every benchmark and the command-line tool time through it.
#pragma once

#include <memory>

#include "portla/executor.hpp"

namespace portla {

namespace detail {
class Event;
}

/// Times work on one executor: start(), the work, stop(), then seconds().
class Timer {
public:
    /// A timer of the work submitted to `exec` (device events on cuda).
    explicit Timer(const Executor& exec);
    ~Timer();
    /// Takes over other's events.
    Timer(Timer&&) noexcept;
    /// Takes over other's events.
    Timer& operator=(Timer&&) noexcept;

    /// Marks the start: a point in the executor's order of work (does not block on a GPU).
    void start();
    /// Marks the end (does not block on a GPU).
    void stop();
    /// Seconds between the last start() and stop(); blocks until the work before stop() is done.
    double seconds() const;
    /// Whether the device's clock measures (a GPU's events) rather than the host's steady
    /// clock around a synchronisation (CPUs, opencl).
    bool on_device() const;

private:
    std::unique_ptr<detail::Event> start_, stop_;
};

}  // namespace portla
