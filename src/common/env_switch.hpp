// The PORTLA_* environment switches (docs/kernel-choices.md, "Switches"): one parser for all of
// them, so a value a switch does not know is a one-line BadInput that names the variable, the
// value and what it accepts ("PORTLA_CG_DIRECTION=flyy: expected pass or fly"), never a silent
// fall-back to the default. Unset and set-but-empty both mean the default. Host code only.
#pragma once

#include <atomic>
#include <initializer_list>
#include <mutex>
#include <string>
#include <utility>

#include "portla/error.hpp"

namespace portla::common {

/// Which of `choices` `value` (the value of environment variable `name`) is: its index; -1 for
/// null or "" (the default). Anything else throws BadInput, e.g.
/// "PORTLA_CG_DIRECTION=flyy: expected pass or fly".
int parse_choice(const char* name, const char* value, std::initializer_list<const char*> choices);

/// A word of `words` (a value of its own each, e.g. {"off", 0}) or an integer in [lo, hi]
/// written in decimal digits (a leading '-' where lo < 0; no sign, space or suffix else); the
/// fallback for null or "". Anything else, or an integer out of range, throws BadInput, e.g.
/// "PORTLA_CG_BLOCK_LOOP=12x: expected off or an integer from 0 to 2147483647".
long long parse_integer(const char* name, const char* value, long long lo, long long hi,
                        long long fallback,
                        std::initializer_list<std::pair<const char*, long long>> words = {});

/// parse_choice of environment variable `name`.
int env_choice(const char* name, std::initializer_list<const char*> choices);

/// parse_integer of environment variable `name`.
long long env_integer(const char* name, long long lo, long long hi, long long fallback,
                      std::initializer_list<std::pair<const char*, long long>> words = {});

/// The generation of the environment: EnvCache reads its switch again when it changed. Starts
/// at 1.
unsigned env_generation();

/// Tells every EnvCache that the environment changed: each reads its switch again at its next
/// use. For tests that set a switch in the process (tests/backends ScopedEnv); like setenv, call
/// it while no other thread uses portla.
void env_changed();

/// A switch read once into a static, where it is consulted per launch: the value `read` returns,
/// or the message of the BadInput it throws, which get() throws again at every use. Read again
/// after env_changed().
template <typename T>
class EnvCache {
public:
    template <typename Read>
    T get(Read read) {
        const unsigned now = env_generation();
        if (read_at_.load(std::memory_order_acquire) != now) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (read_at_.load(std::memory_order_relaxed) != now) {
                error_.clear();
                try {
                    value_ = read();
                } catch (const BadInput& e) {
                    error_ = e.what();
                }
                read_at_.store(now, std::memory_order_release);
            }
        }
        if (!error_.empty()) throw BadInput(error_);
        return value_;
    }

private:
    std::atomic<unsigned> read_at_{0};
    std::mutex mutex_;
    T value_{};
    std::string error_;
};

}  // namespace portla::common
