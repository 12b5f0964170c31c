// The parser of the PORTLA_* environment variables (read in src/core/environment.cpp only;
// docs/kernel-choices.md, "Options"): a value a variable does not accept is a one-line BadInput
// that names the variable, the value and what it accepts ("PORTLA_CG_DIRECTION=flyy: expected
// pass or fly"), never a silent fall-back to the default. Unset and set-but-empty both mean the
// default. Host code only.
#pragma once

#include <initializer_list>
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

}  // namespace portla::common
