// The per-user cache directory of portla's files (tuning profiles, OpenCL program binaries):
// $XDG_CACHE_HOME/portla, else $HOME/.cache/portla; "" when neither variable is set.
#pragma once

#include <cstdlib>
#include <string>

namespace portla::common {

inline std::string user_cache_dir() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg) return std::string(xdg) + "/portla";
    if (home && *home) return std::string(home) + "/.cache/portla";
    return "";
}

}  // namespace portla::common
