// The parser of the PORTLA_* environment switches (src/common/env_switch.hpp): a choice among
// named values or a bounded integer; unset or empty is the default; anything else is a
// one-line BadInput naming the variable, the value and what is accepted.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "common/env_switch.hpp"

namespace portla {
namespace {

using common::env_changed;
using common::env_choice;
using common::env_integer;
using common::EnvCache;
using common::parse_choice;
using common::parse_integer;

/// The message of the BadInput `f` throws ("" and a failure when it throws nothing).
template <typename F>
std::string refusal(F f) {
    try {
        f();
    } catch (const BadInput& e) {
        return e.what();
    }
    ADD_FAILURE() << "no BadInput thrown";
    return "";
}

TEST(EnvSwitch, ChoiceNamesItsIndex) {
    EXPECT_EQ(parse_choice("PORTLA_X", "pass", {"pass", "fly"}), 0);
    EXPECT_EQ(parse_choice("PORTLA_X", "fly", {"pass", "fly"}), 1);
    EXPECT_EQ(parse_choice("PORTLA_X", "8", {"16", "8"}), 1);
}

TEST(EnvSwitch, ChoiceUnsetOrEmptyIsTheDefault) {
    EXPECT_EQ(parse_choice("PORTLA_X", nullptr, {"pass", "fly"}), -1);
    EXPECT_EQ(parse_choice("PORTLA_X", "", {"pass", "fly"}), -1);
}

TEST(EnvSwitch, ChoiceRefusesATypoInOneLine) {
    EXPECT_EQ(refusal([] {
                  parse_choice("PORTLA_CG_DIRECTION", "flyy", {"pass", "fly"});
              }),
              "PORTLA_CG_DIRECTION=flyy: expected pass or fly");
    EXPECT_EQ(refusal([] { parse_choice("PORTLA_HALO", "stagd", {"staged"}); }),
              "PORTLA_HALO=stagd: expected staged");
    EXPECT_EQ(refusal([] {
                  parse_choice("PORTLA_B", "7", {"0", "5", "6", "8"});
              }),
              "PORTLA_B=7: expected 0, 5, 6 or 8");
    // exact words only: no case folding, no prefix, no surrounding space
    for (const char* typo : {"Fly", "FLY", "fl", "flyer", " fly", "fly ", "fly\n", "pass,fly"})
        EXPECT_EQ(refusal([typo] {
                      parse_choice("PORTLA_X", typo, {"pass", "fly"});
                  }),
                  std::string("PORTLA_X=") + typo + ": expected pass or fly");
}

TEST(EnvSwitch, IntegerInRange) {
    EXPECT_EQ(parse_integer("PORTLA_X", "0", 0, 100, 7), 0);
    EXPECT_EQ(parse_integer("PORTLA_X", "12", 0, 100, 7), 12);
    EXPECT_EQ(parse_integer("PORTLA_X", "100", 0, 100, 7), 100);
    EXPECT_EQ(parse_integer("PORTLA_X", "007", 0, 100, 7), 7);
    EXPECT_EQ(parse_integer("PORTLA_X", "-5", -5, 5, 7), -5);
    EXPECT_EQ(parse_integer("PORTLA_X", "9223372036854775807", 0, LLONG_MAX, 7), LLONG_MAX);
    EXPECT_EQ(parse_integer("PORTLA_X", "-9223372036854775808", LLONG_MIN, 0, 7), LLONG_MIN);
}

TEST(EnvSwitch, IntegerUnsetOrEmptyIsTheDefault) {
    EXPECT_EQ(parse_integer("PORTLA_X", nullptr, 0, 100, 42), 42);
    EXPECT_EQ(parse_integer("PORTLA_X", "", 0, 100, 42), 42);
}

TEST(EnvSwitch, IntegerWordsHaveTheirOwnValue) {
    EXPECT_EQ(parse_integer("PORTLA_X", "off", 1, 100, 42, {{"off", 0}}), 0);
    EXPECT_EQ(parse_integer("PORTLA_X", "50", 1, 100, 42, {{"off", 0}}), 50);
}

TEST(EnvSwitch, IntegerRefusesJunkAndOutOfRangeInOneLine) {
    const std::string range = ": expected an integer from 0 to 100";
    for (const char* bad : {"12x", "x12", "1 2", " 12", "12 ", "+12", "1e3", "0x10", "12.0", "-",
                            "-1", "101", "99999999999999999999", "off"})
        EXPECT_EQ(refusal([bad] { parse_integer("PORTLA_X", bad, 0, 100, 42); }),
                  std::string("PORTLA_X=") + bad + range);
    EXPECT_EQ(refusal([] {
                  parse_integer("PORTLA_CG_BLOCK_LOOP", "of", 0, 100, 42, {{"off", 0}});
              }),
              "PORTLA_CG_BLOCK_LOOP=of: expected off or an integer from 0 to 100");
    EXPECT_EQ(refusal([] { parse_integer("PORTLA_OMP_MIN_PARALLEL", "-1", 0, LLONG_MAX, 42); }),
              "PORTLA_OMP_MIN_PARALLEL=-1: expected an integer >= 0");
    EXPECT_EQ(refusal([] {
                  parse_integer("PORTLA_X", "9223372036854775808", 0, LLONG_MAX, 42);  // 2^63
              }),
              "PORTLA_X=9223372036854775808: expected an integer >= 0");
}

/// Sets `name` for the scope (unset on the way out) and tells the EnvCaches.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const char* value) : name_(name) {
        ::setenv(name, value, 1);
        env_changed();
    }
    ~ScopedVariable() {
        ::unsetenv(name_);
        env_changed();
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
};

TEST(EnvSwitch, ReadsTheEnvironment) {
    const char* name = "PORTLA_TEST_ENV_SWITCH";
    ::unsetenv(name);
    EXPECT_EQ(env_choice(name, {"a", "b"}), -1);
    EXPECT_EQ(env_integer(name, 0, 9, 4), 4);
    {
        const ScopedVariable v(name, "b");
        EXPECT_EQ(env_choice(name, {"a", "b"}), 1);
        EXPECT_EQ(refusal([name] { env_integer(name, 0, 9, 4); }),
                  "PORTLA_TEST_ENV_SWITCH=b: expected an integer from 0 to 9");
    }
    {
        const ScopedVariable v(name, "3");
        EXPECT_EQ(env_integer(name, 0, 9, 4), 3);
        EXPECT_EQ(refusal([name] {
                      env_choice(name, {"a", "b"});
                  }),
                  "PORTLA_TEST_ENV_SWITCH=3: expected a or b");
    }
}

// A cached switch is read once per generation of the environment; a bad value throws at every
// use, not only the first.
TEST(EnvSwitch, CacheReadsOnceAndRefusesAtEveryUse) {
    const char* name = "PORTLA_TEST_ENV_CACHE";
    EnvCache<int> cache;
    int reads = 0;
    const auto read = [&reads, name] {
        ++reads;
        return static_cast<int>(env_integer(name, 0, 9, 4));
    };
    ::unsetenv(name);
    env_changed();
    EXPECT_EQ(cache.get(read), 4);
    EXPECT_EQ(cache.get(read), 4);
    EXPECT_EQ(reads, 1);
    ::setenv(name, "7", 1);  // not told: still the value read
    EXPECT_EQ(cache.get(read), 4);
    EXPECT_EQ(reads, 1);
    {
        const ScopedVariable v(name, "7");
        EXPECT_EQ(cache.get(read), 7);
        EXPECT_EQ(reads, 2);
    }
    {
        const ScopedVariable v(name, "7x");
        for (int use = 0; use < 3; ++use)
            EXPECT_EQ(refusal([&] { cache.get(read); }),
                      "PORTLA_TEST_ENV_CACHE=7x: expected an integer from 0 to 9");
        EXPECT_EQ(reads, 3);
    }
    EXPECT_EQ(cache.get(read), 4);  // unset again: the default
    EXPECT_EQ(reads, 4);
}

}  // namespace
}  // namespace portla
