// Text quoted in error messages: from files and command lines, so possibly anything.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace portla {

/// `text` as it may appear in a one-line message: control characters, DEL, C1 controls and
/// bytes that are not UTF-8 written as escapes ("\x0d", "\x1b"; a newline as "\n"), other
/// UTF-8 kept; cut after `max_length` bytes of the original with "..." (the rest not shown).
inline std::string printable(std::string_view text,
                             std::size_t max_length = std::string_view::npos) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    const std::size_t end = std::min(text.size(), max_length);
    out.reserve(end);
    auto escape = [&](unsigned char c) {
        out += c == '\n' ? std::string("\\n") : std::string{'\\', 'x', hex[c >> 4], hex[c & 15]};
    };
    for (std::size_t i = 0; i < end;) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                escape(c);
            else
                out += static_cast<char>(c);
            ++i;
            continue;
        }
        // A well-formed UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF) that
        // is not a C1 control is kept whole; anything else is escaped byte by byte.
        const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        bool valid = length > 0 && c <= 0xf4 && i + length <= end;
        for (std::size_t k = 1; valid && k < length; ++k)
            valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        if (valid) {
            const auto c1 = static_cast<unsigned char>(text[i + 1]);
            valid = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0) &&
                    !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90) &&
                    !(c == 0xc2 && c1 < 0xa0);
        }
        if (!valid) {
            escape(c);
            ++i;
            continue;
        }
        out.append(text.substr(i, length));
        i += length;
    }
    if (end < text.size()) out += "...";
    return out;
}

}  // namespace portla
