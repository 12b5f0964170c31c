#include "common/env_switch.hpp"

#include <climits>
#include <cstring>
#include <vector>

namespace portla::common {
namespace {

// "a", "a or b", "a, b or c"
std::string listed(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
        out += items[i];
    }
    return out;
}

[[noreturn]] void refuse(const char* name, const char* value, const std::string& accepted) {
    throw BadInput(std::string(name) + "=" + value + ": expected " + accepted);
}

// Decimal digits (after a '-' where negative) into `out`; false on anything else or overflow.
bool decimal(const char* s, long long& out) {
    const bool negative = *s == '-';
    if (negative) ++s;
    if (*s == '\0') return false;
    unsigned long long magnitude = 0;
    const unsigned long long limit =
        negative ? static_cast<unsigned long long>(LLONG_MAX) + 1 : LLONG_MAX;
    for (; *s; ++s) {
        if (*s < '0' || *s > '9') return false;
        const unsigned digit = static_cast<unsigned>(*s - '0');
        if (magnitude > (limit - digit) / 10) return false;
        magnitude = magnitude * 10 + digit;
    }
    out = negative ? static_cast<long long>(0 - magnitude) : static_cast<long long>(magnitude);
    return true;
}

}  // namespace

int parse_choice(const char* name, const char* value, std::initializer_list<const char*> choices) {
    if (!value || !*value) return -1;
    int index = 0;
    for (const char* c : choices) {
        if (std::strcmp(value, c) == 0) return index;
        ++index;
    }
    refuse(name, value, listed(std::vector<std::string>(choices.begin(), choices.end())));
}

long long parse_integer(const char* name, const char* value, long long lo, long long hi,
                        long long fallback,
                        std::initializer_list<std::pair<const char*, long long>> words) {
    if (!value || !*value) return fallback;
    for (const auto& [word, number] : words)
        if (std::strcmp(value, word) == 0) return number;
    long long n = 0;
    if (decimal(value, n) && n >= lo && n <= hi) return n;
    std::vector<std::string> accepted;
    for (const auto& w : words) accepted.emplace_back(w.first);
    accepted.push_back(hi == LLONG_MAX
                           ? "an integer >= " + std::to_string(lo)
                           : "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    refuse(name, value, listed(accepted));
}

}  // namespace portla::common
