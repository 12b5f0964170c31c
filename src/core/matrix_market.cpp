#include "portla/io/matrix_market.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "portla/error.hpp"
#include "portla/memory.hpp"

namespace portla::io {

namespace {

constexpr std::int64_t max_int64 = std::numeric_limits<std::int64_t>::max();
// A header may lie about its size: never reserve more than this many entries up front.
constexpr std::int64_t max_reserve = std::int64_t{1} << 20;
// The longest line read (a real entry line is under 100 characters): a file without line breaks
// (a binary file, /dev/zero behind a regular name) fails at once instead of growing a string.
constexpr std::size_t max_line_length = std::size_t{1} << 20;
// Rows, columns and stored entries must be below this: portla's matrices use int32 indices
// (core/matrix_checks.hpp, check_int32_dims).
constexpr std::int64_t max_index_extent = std::numeric_limits<std::int32_t>::max();
// Host bytes per stored entry on the way from the file to a CSR matrix: the triplet (row, col,
// value: 24 B), the sort's permutation and row buckets (8 + 16 B), the sorted copy (24 B) and the
// CSR arrays (column index and value, 12 B); per row, the CSR row pointer and the sort's row
// start (4 + 8 B).
constexpr double bytes_per_entry = 24.0 + 24.0 + 24.0 + 12.0;
constexpr double bytes_per_row = 12.0;

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
    Format format = Format::coordinate;
    Field field = Field::real;
    Symmetry symmetry = Symmetry::general;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t count = 0;  // entry lines in the file
    long size_line = 0;
};

std::string lower(std::string s) {
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

std::string quoted(const char* token) {
    constexpr std::size_t max_shown = 40;
    std::string s(token);
    if (s.size() > max_shown) {
        s = s.substr(0, max_shown) + "...";
    }
    return "'" + s + "'";
}

// std::from_chars first (no locale, several times faster than strtoll/strtod); what it does not
// take (a leading '+', hexadecimal floats, out-of-range values) goes to the C functions, whose
// results (correctly rounded, overflow to +-inf) the readers have always had.
bool parse_int64(const char* token, std::size_t length, std::int64_t& out) {
    std::int64_t fast = 0;
    const auto [ptr, ec] = std::from_chars(token, token + length, fast);
    if (ec == std::errc() && ptr == token + length && length > 0) {
        out = fast;
        return true;
    }
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(token, &end, 10);
    if (length == 0 || end != token + length || errno == ERANGE) {
        return false;
    }
    out = static_cast<std::int64_t>(value);
    return true;
}

// Overflow (1e999) gives +-inf, which the finiteness check reports; underflow gives a
// subnormal or zero, which is the correctly rounded value.
bool parse_double(const char* token, std::size_t length, double& out) {
    const auto [ptr, ec] = std::from_chars(token, token + length, out);
    if (ec == std::errc() && ptr == token + length && length > 0) return true;
    char* end = nullptr;
    out = std::strtod(token, &end);
    return length > 0 && end == token + length;
}

// a * b, or false when it does not fit in int64 (a, b >= 0).
bool checked_product(std::int64_t a, std::int64_t b, std::int64_t& out) {
    if (a != 0 && b > max_int64 / a) {
        return false;
    }
    out = a * b;
    return true;
}

// Entries in the stored triangle of an n x n matrix: n (n + 1) / 2 with the diagonal, n (n - 1) / 2
// without it; false when it does not fit in int64.
bool triangle_size(std::int64_t n, bool with_diagonal, std::int64_t& out) {
    if (n == 0) {
        out = 0;
        return true;
    }
    if (with_diagonal && n == max_int64) {
        return false;
    }
    std::int64_t a = n;
    std::int64_t b = with_diagonal ? n + 1 : n - 1;
    (a % 2 == 0 ? a : b) /= 2;
    return checked_product(a, b, out);
}

class Reader {
public:
    Reader(std::istream& in, const std::string& name, const ReadOptions& options)
        : in_(in), name_(name), options_(options) {}

    Header read_header();
    MatrixData read_entries(const Header& header);

    [[noreturn]] void fail(long line, const std::string& what) const {
        throw BadInput(name_, line, what);
    }

private:
    static constexpr std::size_t max_tokens = 6;

    // Reads the next line into line_; false at the end of the input.
    bool next_line();
    // Reads the next line that is neither blank nor a comment; false at the end of the input.
    bool next_data_line();
    // Splits line_ in place into NUL-terminated tokens; returns how many there are (the first
    // max_tokens are kept in tokens_ and lengths_).
    std::size_t tokenize();
    bool is_blank_or_comment() const;
    // The common case read straight from the block buffer: a coordinate line "row col [value]"
    // with nothing else on it, indices in range and a finite value. False (nothing consumed) for
    // anything else, which the general path then reads and reports.
    bool fast_entry(const Header& header, std::int64_t& row, std::int64_t& col, double& value);
    double parse_value(const Header& header, std::size_t token);
    std::int64_t parse_index(std::size_t token, const char* what, std::int64_t bound);

    std::istream& in_;
    const std::string& name_;
    const ReadOptions& options_;
    static constexpr std::size_t first_block = std::size_t{1} << 16;
    static constexpr std::size_t block_size = std::size_t{1} << 20;
    std::string line_;
    std::vector<char> buffer_;   // max_line_length + block_size: a whole line always fits
    const char* pos_ = nullptr;  // the unread text in buffer_: [pos_, end_)
    const char* end_ = nullptr;
    bool eof_ = false;
    long line_no_ = 0;
    const char* tokens_[max_tokens] = {};
    std::size_t lengths_[max_tokens] = {};
};

bool Reader::next_line() {
    // The input is read in blocks (istream::getline per line cost half of the reading time:
    // 1e6-row, 6.9e6-entry file, 2-core VM, 2026-11-23); a line is the text up to the next
    // newline, at most max_line_length characters.
    if (buffer_.empty()) buffer_.resize(first_block);
    for (;;) {
        const std::size_t rest = static_cast<std::size_t>(end_ - pos_);
        const void* newline = rest > 0 ? std::memchr(pos_, '\n', rest) : nullptr;
        if (newline || (eof_ && rest > 0)) {
            const char* stop = newline ? static_cast<const char*>(newline) : end_;
            const auto length = static_cast<std::size_t>(stop - pos_);
            if (length > max_line_length) {
                fail(line_no_ + 1, "line too long (more than " + std::to_string(max_line_length) +
                                       " characters)");
            }
            ++line_no_;
            line_.assign(pos_, length);
            pos_ = newline ? stop + 1 : end_;
            return true;
        }
        if (eof_) return false;
        if (rest > max_line_length) {
            fail(line_no_ + 1,
                 "line too long (more than " + std::to_string(max_line_length) + " characters)");
        }
        // Keep the unfinished line at the front and fill the rest of the buffer: it grows (from
        // 64 KiB, so that small files stay cheap) to block_size, and beyond when a line fills it.
        if (rest > 0) std::memmove(buffer_.data(), pos_, rest);
        if (buffer_.size() < block_size || rest == buffer_.size())
            buffer_.resize(std::min(2 * buffer_.size(), max_line_length + block_size));
        in_.read(buffer_.data() + rest, static_cast<std::streamsize>(buffer_.size() - rest));
        if (in_.bad()) fail(line_no_ + 1, "read error");
        const auto got = static_cast<std::size_t>(in_.gcount());
        eof_ = rest + got < buffer_.size();
        pos_ = buffer_.data();
        end_ = pos_ + rest + got;
    }
}

bool Reader::fast_entry(const Header& h, std::int64_t& row, std::int64_t& col, double& value) {
    const auto rest = static_cast<std::size_t>(end_ - pos_);
    const char* newline =
        rest > 0 ? static_cast<const char*>(std::memchr(pos_, '\n', rest)) : nullptr;
    if (!newline) return false;
    const char* p = pos_;
    auto blanks = [&](bool required) {
        const char* start = p;
        while (p < newline && (*p == ' ' || *p == '\t')) ++p;
        return !required || p > start;
    };
    auto integer = [&](std::int64_t& out) {
        const auto [next, ec] = std::from_chars(p, newline, out);
        if (ec != std::errc() || next == p) return false;
        p = next;
        return true;
    };
    blanks(false);
    if (!integer(row) || !blanks(true) || !integer(col)) return false;
    if (row < 1 || row > h.rows || col < 1 || col > h.cols) return false;
    value = 1.0;
    if (h.field != Field::pattern) {
        if (!blanks(true)) return false;
        if (h.field == Field::integer) {
            std::int64_t v = 0;
            if (!integer(v)) return false;
            value = static_cast<double>(v);
        } else {
            const auto [next, ec] = std::from_chars(p, newline, value);
            if (ec != std::errc() || next == p) return false;
            if (options_.require_finite && !std::isfinite(value)) return false;
            p = next;
        }
    }
    blanks(false);
    if (p < newline && *p == '\r') ++p;
    if (p != newline) return false;
    pos_ = newline + 1;
    ++line_no_;
    --row;
    --col;
    return true;
}

bool Reader::is_blank_or_comment() const {
    for (const char c : line_) {
        if (c == '%') {
            return true;
        }
        if (!std::isspace(static_cast<unsigned char>(c))) {
            return false;
        }
    }
    return true;
}

bool Reader::next_data_line() {
    while (next_line()) {
        if (!is_blank_or_comment()) {
            return true;
        }
    }
    return false;
}

std::size_t Reader::tokenize() {
    std::size_t count = 0;
    char* p = line_.data();
    char* const end = p + line_.size();
    auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
    };
    while (p != end) {
        while (p != end && space(*p)) {
            ++p;
        }
        if (p == end) {
            break;
        }
        char* const start = p;
        while (p != end && !space(*p)) {
            ++p;
        }
        if (count < max_tokens) {
            tokens_[count] = start;
            lengths_[count] = static_cast<std::size_t>(p - start);
        }
        ++count;
        if (p != end) {
            *p++ = '\0';
        }
    }
    return count;
}

Header Reader::read_header() {
    Header h;
    if (!next_line()) {
        fail(1, "empty file: missing '%%MatrixMarket matrix <format> <field> <symmetry>' banner");
    }
    const std::size_t n_banner = tokenize();
    if (n_banner == 0 || lower(tokens_[0]) != "%%matrixmarket") {
        fail(1,
             "missing or bad banner: expected '%%MatrixMarket matrix <format> <field> "
             "<symmetry>'");
    }
    if (n_banner < 5) {
        fail(1, "incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
    }
    if (n_banner > 5) {
        fail(1, "unexpected text after the banner's symmetry keyword");
    }
    const std::string object = lower(tokens_[1]);
    const std::string format = lower(tokens_[2]);
    const std::string field = lower(tokens_[3]);
    const std::string symmetry = lower(tokens_[4]);
    if (object != "matrix") {
        fail(1, "unsupported object " + quoted(tokens_[1]) + " (expected 'matrix')");
    }
    if (format == "coordinate") {
        h.format = Format::coordinate;
    } else if (format == "array") {
        h.format = Format::array;
    } else {
        fail(1, "unknown format " + quoted(tokens_[2]) + " (expected 'coordinate' or 'array')");
    }
    const bool complex = field == "complex";
    if (field == "real") {
        h.field = Field::real;
    } else if (field == "integer") {
        h.field = Field::integer;
    } else if (field == "pattern") {
        h.field = Field::pattern;
    } else if (!complex) {
        fail(1, "unknown field " + quoted(tokens_[3]) +
                    " (expected 'real', 'integer', 'pattern' or 'complex')");
    }
    const bool hermitian = symmetry == "hermitian";
    if (symmetry == "general") {
        h.symmetry = Symmetry::general;
    } else if (symmetry == "symmetric") {
        h.symmetry = Symmetry::symmetric;
    } else if (symmetry == "skew-symmetric") {
        h.symmetry = Symmetry::skew_symmetric;
    } else if (!hermitian) {
        fail(1, "unknown symmetry " + quoted(tokens_[4]) +
                    " (expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian')");
    }
    if (complex || hermitian) {
        throw Unsupported(name_ + ": complex matrices are not supported (banner says '" + field +
                          " " + symmetry + "'; only real, integer and pattern are)");
    }
    if (h.format == Format::array && h.field == Field::pattern) {
        fail(1, "'array pattern' is not a valid combination");
    }
    if (h.field == Field::pattern && h.symmetry == Symmetry::skew_symmetric) {
        fail(1, "'pattern skew-symmetric' is not a valid combination");
    }

    if (!next_data_line()) {
        fail(line_no_ + 1, "missing size line");
    }
    h.size_line = line_no_;
    const std::size_t expected = h.format == Format::coordinate ? 3 : 2;
    const char* const layout =
        h.format == Format::coordinate ? "'rows cols entries'" : "'rows cols'";
    const std::size_t n_size = tokenize();
    if (n_size != expected) {
        fail(line_no_, "bad size line: expected " + std::string(layout) + ", found " +
                           std::to_string(n_size) + " field(s)");
    }
    std::int64_t sizes[3] = {0, 0, 0};
    for (std::size_t k = 0; k < expected; ++k) {
        if (!parse_int64(tokens_[k], lengths_[k], sizes[k]) || sizes[k] < 0) {
            const bool digits = std::all_of(tokens_[k], tokens_[k] + lengths_[k], [](char c) {
                return std::isdigit(static_cast<unsigned char>(c)) != 0;
            });
            fail(line_no_,
                 "bad size line: " + quoted(tokens_[k]) +
                     (digits && lengths_[k] > 0 ? " is too large (beyond 64-bit integers)"
                                                : " is not a non-negative integer (expected " +
                                                      std::string(layout) + ")"));
        }
    }
    for (std::size_t k = 0; k < 2; ++k) {
        if (sizes[k] >= max_index_extent) {
            fail(line_no_, std::string(k == 0 ? "row" : "column") + " count " +
                               std::to_string(sizes[k]) +
                               " is too large: portla indexes rows and columns with 32-bit "
                               "integers (at most " +
                               std::to_string(max_index_extent - 1) + ")");
        }
    }
    h.rows = sizes[0];
    h.cols = sizes[1];
    const std::string shape = std::to_string(h.rows) + " x " + std::to_string(h.cols);
    if (h.symmetry != Symmetry::general && h.rows != h.cols) {
        fail(line_no_, (h.symmetry == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
                           std::string(" matrix must be square, got ") + shape);
    }
    std::int64_t capacity = 0;
    bool fits = true;
    switch (h.symmetry) {
        case Symmetry::general:
            fits = checked_product(h.rows, h.cols, capacity);
            break;
        case Symmetry::symmetric:
            fits = triangle_size(h.rows, true, capacity);
            break;
        case Symmetry::skew_symmetric:
            fits = triangle_size(h.rows, false, capacity);
            break;
    }
    if (h.format == Format::coordinate) {
        h.count = sizes[2];
        if (fits && h.count > capacity) {
            fail(line_no_, std::to_string(h.count) + " entries declared, but a " + shape + " " +
                               symmetry + " matrix holds at most " + std::to_string(capacity));
        }
    } else {
        if (!fits) {
            fail(line_no_, "array of size " + shape + " is too large");
        }
        h.count = capacity;
    }
    // Symmetric and skew-symmetric files are expanded to both triangles.
    const double stored = static_cast<double>(h.count) * (h.symmetry == Symmetry::general ? 1 : 2);
    if (stored >= static_cast<double>(max_index_extent)) {
        fail(line_no_, std::to_string(h.count) + " entries (" +
                           std::to_string(static_cast<std::int64_t>(stored)) +
                           " once expanded) is too large: portla indexes entries with 32-bit "
                           "integers (at most " +
                           std::to_string(max_index_extent - 1) + ")");
    }
    // What reading this file and building a CSR matrix from it will take, before any of it is
    // reserved: a lying header is refused here, with the amount, not by the allocator later.
    MemoryNeed need;
    need.add(stored, bytes_per_entry).add(static_cast<double>(h.rows) + 1, bytes_per_row);
    try {
        require_host_memory(need, "reading a " + shape + " matrix with " +
                                      std::to_string(static_cast<std::int64_t>(stored)) +
                                      " entries");
    } catch (const OutOfMemory& e) {
        fail(line_no_, std::string(e.what()) + " (the size line declares it)");
    }
    return h;
}

std::int64_t Reader::parse_index(std::size_t token, const char* what, std::int64_t bound) {
    std::int64_t index = 0;
    if (!parse_int64(tokens_[token], lengths_[token], index)) {
        fail(line_no_, std::string("bad ") + what + " index " + quoted(tokens_[token]));
    }
    if (index < 1 || index > bound) {
        fail(line_no_, std::string(what) + " index " + std::to_string(index) +
                           " out of range [1, " + std::to_string(bound) + "]");
    }
    return index - 1;
}

double Reader::parse_value(const Header& header, std::size_t token) {
    double value = 0.0;
    if (header.field == Field::integer) {
        std::int64_t integer = 0;
        if (!parse_int64(tokens_[token], lengths_[token], integer)) {
            fail(line_no_, "bad value " + quoted(tokens_[token]) + " in an integer file");
        }
        return static_cast<double>(integer);
    }
    if (!parse_double(tokens_[token], lengths_[token], value)) {
        fail(line_no_, "bad value " + quoted(tokens_[token]) + " (not a number)");
    }
    if (options_.require_finite && !std::isfinite(value)) {
        fail(line_no_, "non-finite value " + quoted(tokens_[token]));
    }
    return value;
}

MatrixData Reader::read_entries(const Header& h) {
    MatrixData data;
    data.rows = h.rows;
    data.cols = h.cols;
    const bool mirrored = h.symmetry != Symmetry::general;
    const std::int64_t stored = std::min(h.count, max_reserve) * (mirrored ? 2 : 1);
    data.row_idx.reserve(static_cast<std::size_t>(stored));
    data.col_idx.reserve(static_cast<std::size_t>(stored));
    data.values.reserve(static_cast<std::size_t>(stored));

    const double mirror_sign = h.symmetry == Symmetry::skew_symmetric ? -1.0 : 1.0;
    auto store = [&](std::int64_t r, std::int64_t c, double v) {
        data.add(r, c, v);
        if (mirrored && r != c) {
            data.add(c, r, mirror_sign * v);
        }
    };

    auto check_triangle = [&](std::int64_t r, std::int64_t c) {
        if (h.symmetry != Symmetry::general && r < c) {
            fail(line_no_,
                 "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                     ") above the diagonal in a " +
                     (h.symmetry == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
                     " file (only the lower triangle may be stored)");
        }
        if (h.symmetry == Symmetry::skew_symmetric && r == c) {
            fail(line_no_, "diagonal entry (" + std::to_string(r + 1) + ", " +
                               std::to_string(c + 1) + ") in a skew-symmetric file");
        }
    };

    // Next position of an array file, column-major; symmetric arrays list the lower triangle
    // column by column (skew-symmetric: the strict lower triangle).
    const std::int64_t first_row_offset =
        h.symmetry == Symmetry::general ? -1 : (h.symmetry == Symmetry::symmetric ? 0 : 1);
    std::int64_t array_row = first_row_offset < 0 ? 0 : first_row_offset;
    std::int64_t array_col = 0;

    const std::size_t fields = h.format == Format::array ? 1 : (h.field == Field::pattern ? 2 : 3);
    const char* const layout = h.format == Format::array
                                   ? "'value'"
                                   : (h.field == Field::pattern ? "'row col'" : "'row col value'");
    const bool coordinate = h.format != Format::array;
    for (std::int64_t k = 0; k < h.count; ++k) {
        std::int64_t r = 0, c = 0;
        double v = 1.0;
        if (coordinate && fast_entry(h, r, c, v)) {
            check_triangle(r, c);
            store(r, c, v);
            continue;
        }
        if (!next_data_line()) {
            fail(line_no_ + 1, "truncated file: expected " + std::to_string(h.count) +
                                   " entries, found " + std::to_string(k));
        }
        const std::size_t n = tokenize();
        if (n < fields) {
            fail(line_no_, "too few fields: expected " + std::string(layout));
        }
        if (n > fields) {
            fail(line_no_,
                 "unexpected text after the entry (expected " + std::string(layout) + ")");
        }
        if (h.format == Format::array) {
            store(array_row, array_col, parse_value(h, 0));
            if (++array_row == h.rows) {
                ++array_col;
                array_row = first_row_offset < 0 ? 0 : array_col + first_row_offset;
            }
            continue;
        }
        r = parse_index(0, "row", h.rows);
        c = parse_index(1, "column", h.cols);
        check_triangle(r, c);
        store(r, c, h.field == Field::pattern ? 1.0 : parse_value(h, 2));
    }
    if (next_data_line()) {
        fail(line_no_, "more entries than the " + std::to_string(h.count) + " declared");
    }
    return data;
}

// Only regular files are read: a FIFO would block the open or the read until a writer came,
// /dev/zero would never end, and a directory has no lines. stat() follows symbolic links; the
// checks use the type the open will meet.
void open_for_reading(std::ifstream& file, const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        throw BadInput(path, 0, "cannot open file: " + std::string(std::strerror(errno)));
    }
    if (!S_ISREG(info.st_mode)) {
        throw BadInput(
            path, 0,
            S_ISDIR(info.st_mode) ? "not a regular file (a directory)" : "not a regular file");
    }
    file.open(path, std::ios::in | std::ios::binary);
    if (!file) {
        throw BadInput(path, 0, "cannot open file: " + std::string(std::strerror(errno)));
    }
}

// A C stream that reports write errors, including those only fclose sees.
class OutputFile {
public:
    explicit OutputFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "w")) {
        if (f_ == nullptr) {
            throw BadInput(path, 0, "cannot open file for writing");
        }
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile() {
        if (f_ != nullptr) {
            std::fclose(f_);
        }
    }
    std::FILE* get() const { return f_; }
    void close() {
        const bool failed = std::ferror(f_) != 0;
        const int closed = std::fclose(f_);
        f_ = nullptr;
        if (failed || closed != 0) {
            throw BadInput(path_, 0, "write failed");
        }
    }

private:
    std::string path_;
    std::FILE* f_;
};

}  // namespace

MatrixData read_matrix_market(std::istream& in, const std::string& name,
                              const ReadOptions& options) {
    Reader reader(in, name, options);
    const Header header = reader.read_header();
    return reader.read_entries(header);
}

MatrixData read_matrix_market(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    return read_matrix_market(file, path, options);
}

std::vector<double> read_vector(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    Reader reader(file, path, options);
    const Header h = reader.read_header();
    if (h.cols != 1 && h.rows != 1) {
        reader.fail(h.size_line, "expected a vector (n x 1), got " + std::to_string(h.rows) +
                                     " x " + std::to_string(h.cols));
    }
    // Entries are read before the vector is allocated, so a coordinate header that declares a
    // huge length with few entries is the only way to ask for much memory: checked first.
    const std::int64_t n = h.cols == 1 ? h.rows : h.cols;
    try {
        require_host_memory(MemoryNeed().add(static_cast<double>(n), sizeof(double)),
                            "a vector of " + std::to_string(n) + " entries");
    } catch (const OutOfMemory& e) {
        reader.fail(h.size_line, e.what());
    }
    const MatrixData data = reader.read_entries(h);
    std::vector<double> values(static_cast<std::size_t>(n), 0.0);
    const std::vector<std::int64_t>& index = h.cols == 1 ? data.row_idx : data.col_idx;
    for (std::size_t k = 0; k < data.entries(); ++k) {
        values[static_cast<std::size_t>(index[k])] += data.values[k];  // duplicates are summed
    }
    return values;
}

void write_vector(const std::string& path, const std::vector<double>& values) {
    OutputFile out(path);
    std::fprintf(out.get(), "%%%%MatrixMarket matrix array real general\n%zu 1\n", values.size());
    for (const double v : values) {
        std::fprintf(out.get(), "%.17g\n", v);
    }
    out.close();
}

void write_matrix_market(const std::string& path, const MatrixData& data) {
    const std::string where = "write_matrix_market(" + path + ")";
    if (data.row_idx.size() != data.values.size()) {
        throw DimensionMismatch(where + ": row_idx", data.values.size(), data.row_idx.size());
    }
    if (data.col_idx.size() != data.values.size()) {
        throw DimensionMismatch(where + ": col_idx", data.values.size(), data.col_idx.size());
    }
    if (data.rows < 0 || data.cols < 0) {
        throw BadInput(where + ": negative dimensions " + std::to_string(data.rows) + " x " +
                       std::to_string(data.cols));
    }
    for (std::size_t k = 0; k < data.entries(); ++k) {
        if (data.row_idx[k] < 0 || data.row_idx[k] >= data.rows || data.col_idx[k] < 0 ||
            data.col_idx[k] >= data.cols) {
            throw BadInput(
                where + ": entry " + std::to_string(k) + " at (" + std::to_string(data.row_idx[k]) +
                ", " + std::to_string(data.col_idx[k]) + ") is outside the " +
                std::to_string(data.rows) + " x " + std::to_string(data.cols) + " matrix");
        }
    }
    OutputFile out(path);
    std::fprintf(out.get(),
                 "%%%%MatrixMarket matrix coordinate real general\n%" PRId64 " %" PRId64 " %zu\n",
                 data.rows, data.cols, data.entries());
    for (std::size_t k = 0; k < data.entries(); ++k) {
        std::fprintf(out.get(), "%" PRId64 " %" PRId64 " %.17g\n", data.row_idx[k] + 1,
                     data.col_idx[k] + 1, data.values[k]);
    }
    out.close();
}

}  // namespace portla::io
