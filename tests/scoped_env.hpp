// An environment variable set for a scope, for the tests of what the variables select.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace portla::test {

/// Sets an environment variable for a scope and restores it (or unsets it) on the way out, also
/// when an ASSERT returns early: for the tests that the PORTLA_* variables map onto the options
/// (portla/environment.hpp), and for the environment of a child process.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_.c_str(), old_->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace portla::test
