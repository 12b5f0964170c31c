#include "portla/io/matrix_market.hpp"

#include <algorithm>
#include <atomic>
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
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/csr_build.hpp"
#include "core/host_threads.hpp"
#include "portla/error.hpp"
#include "portla/memory.hpp"
#include "portla/printable.hpp"

namespace portla::io {

namespace {

constexpr std::int64_t max_int64 = std::numeric_limits<std::int64_t>::max();
// A header may lie about its size: never reserve more than this many entries up front.
constexpr std::int64_t max_reserve = std::int64_t{1} << 20;
// The longest line read (a real entry line is under 100 characters): a file without line breaks
// (a binary file, /dev/zero behind a regular name) fails at once instead of growing a string.
constexpr std::size_t max_line_length = std::size_t{1} << 20;
// Rows and columns must be below this: portla's matrices use int32 row and column indices
// (core/matrix_checks.hpp, check_int32_dims). So must the stored entries of read_matrix_market's
// coordinates; read_matrix_market_csr's CsrData has 64-bit row offsets and takes any number.
constexpr std::int64_t max_index_extent = std::numeric_limits<std::int32_t>::max();
// Host bytes per stored entry on the way from the file to a CSR matrix: the triplet (row, col,
// value: 24 B), the sort's permutation and row buckets (8 + 16 B), the sorted copy (24 B) and the
// CSR arrays (column index and value, 12 B); per row, the CSR row pointer and the sort's row
// start (4 + 8 B).
constexpr double bytes_per_entry = 24.0 + 24.0 + 24.0 + 12.0;
constexpr double bytes_per_row = 12.0;
// The same for read_matrix_market_csr, read line by line: the parsed chunks (int32 row and
// column, double value: 16 B per entry of the file, at most one per stored entry, up to 1.5x
// that as reserved) while the CSR arrays (12 B) fill, the chunks freed as they are placed; per
// row the row pointer and the counting sort's cursor (64-bit each). Read in parts
// (read_csr_in_parts) it takes less: the CSR arrays, the row pointers and a cursor per row for
// each part but one, at most 8 B per entry; or, for a general file sorted by rows, the later
// parts' entries (12 B) and a run (8 B) per row of each part.
constexpr double csr_bytes_per_entry = 24.0 + 12.0;
constexpr double csr_bytes_per_row = 16.0;

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
    Format format = Format::coordinate;
    Field field = Field::real;  // of each part for a complex file
    Symmetry symmetry = Symmetry::general;
    // A complex file (each value two reals; Field::real above), `hermitian` when its symmetry is
    // (Symmetry::symmetric above: one triangle stored, mirrored conjugated). Only
    // read_matrix_market_complex reads its entries; the real readers refuse it (require_real).
    bool complex = false;
    bool hermitian = false;
    std::string banner;  // "<field> <symmetry>" as written, for messages
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

// Text from the file as a message shows it: quoted, non-printable bytes escaped, cut after 40.
std::string quoted(std::string_view token) { return "'" + printable(token, 40) + "'"; }

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

// Entries as stored in the file (one triangle of a symmetric file), 0-based, in file order.
struct Triplets {
    std::vector<std::int32_t> rows, cols;
    std::vector<double> values;
    void add(std::int64_t r, std::int64_t c, double v) {
        rows.push_back(static_cast<std::int32_t>(r));
        cols.push_back(static_cast<std::int32_t>(c));
        values.push_back(v);
    }
};

// The common case, read straight from the text: the coordinate line [p, newline) is
// "row col [value]" with nothing else on it, indices in range and in the stored triangle, and
// a finite value (when `finite`). False for anything else, which the general path then reads
// and reports. Sets 0-based row and col.
bool plain_entry(const Header& h, bool finite, const char* p, const char* newline,
                 std::int64_t& row, std::int64_t& col, double& value) {
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
    if (h.symmetry != Symmetry::general && row < col) return false;
    if (h.symmetry == Symmetry::skew_symmetric && row == col) return false;
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
            if (finite && !std::isfinite(value)) return false;
            p = next;
        }
    }
    blanks(false);
    if (p < newline && *p == '\r') ++p;
    if (p != newline) return false;
    --row;
    --col;
    return true;
}

// Parses the plain entry lines of [p, end) (which ends with a newline) into `out`; returns where
// it stopped: `end`, or the first line that is not a plain entry.
const char* plain_entries(const Header& h, bool finite, const char* p, const char* end,
                          Triplets& out) {
    while (p < end) {
        const auto* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
        std::int64_t r = 0, c = 0;
        double v = 1.0;
        if (!newline || !plain_entry(h, finite, p, newline, r, c, v)) return p;
        out.add(r, c, v);
        p = newline + 1;
    }
    return p;
}

class Reader {
public:
    Reader(std::istream& in, const std::string& name, const ReadOptions& options)
        : in_(in), name_(name), options_(options) {}

    /// to_csr: the memory check counts read_matrix_market_csr's way (no sorted triplet copies),
    /// and 2^31 or more entries are taken (CsrData's 64-bit row offsets). check_memory: whether
    /// the memory reading the entries will take is checked (not when only the header is read).
    Header read_header(bool to_csr = false, bool check_memory = true);
    /// read_header() for the real readers: Unsupported for a complex file.
    Header read_real_header(bool to_csr = false) {
        const Header h = read_header(to_csr);
        if (h.complex)
            throw Unsupported(name_ + ": complex matrices are not supported (banner says '" +
                              h.banner +
                              "'; only real, integer and pattern are, except by "
                              "read_matrix_market_complex)");
        return h;
    }
    /// The entries of a complex file, both triangles of a symmetric, skew-symmetric or
    /// hermitian one (the mirror of a hermitian entry conjugated).
    ComplexMatrixData read_complex_entries(const Header& header);
    /// The entries as the file stores them, in file order, in chunks (freed one by one on the
    /// way to what the caller builds).
    std::vector<Triplets> read_stored(const Header& header);
    MatrixData read_entries(const Header& header);

    /// The input's offset of the first byte after what has been read (after read_header: the
    /// line after the size line).
    std::uint64_t consumed() const { return offset(); }

    [[noreturn]] void fail(long line, const std::string& what) const {
        throw BadInput(name_, line, what);
    }

private:
    static constexpr std::size_t max_tokens = 6;

    // Reads the next line into line_; false at the end of the input.
    bool next_line();
    // Moves the unread text to the front of buffer_ and reads more after it.
    void refill();
    // The input's offset of the next unread character.
    std::uint64_t offset() const {
        return base_ + static_cast<std::uint64_t>(pos_ - buffer_.data());
    }
    // Entry k (0-based) of a coordinate or array file, appended to `out` as stored; BadInput
    // naming the line for anything malformed.
    void next_entry(const Header& header, std::int64_t k, Triplets& out);
    // Parses the whole lines of the buffer (refilled first) in `threads` parts at once, each
    // into a chunk of its own. True when every line was a plain entry and no more than the
    // declared count: the chunks are kept and the text consumed. Otherwise nothing is consumed,
    // and `region` is the offset up to which the caller reads entry by entry (next_entry), for
    // the exact message and line.
    bool parallel_entries(const Header& header, unsigned threads, std::int64_t& k,
                          std::vector<Triplets>& chunks, std::uint64_t& region);
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
    // Next position of an array file, column-major; symmetric arrays list the lower triangle
    // column by column (skew-symmetric: the strict lower triangle).
    std::int64_t array_row_ = -1;
    std::int64_t array_col_ = 0;
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
    std::uint64_t base_ = 0;  // the input's offset of buffer_[0]
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
        refill();
    }
}

void Reader::refill() {
    // Keep the unfinished line at the front and fill the rest of the buffer: it grows (from
    // 64 KiB, so that small files stay cheap) to block_size, and beyond when a line fills it.
    if (buffer_.empty()) buffer_.resize(first_block);
    const auto rest = static_cast<std::size_t>(end_ - pos_);
    if (pos_ != nullptr) base_ = offset();
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

bool Reader::fast_entry(const Header& h, std::int64_t& row, std::int64_t& col, double& value) {
    const auto rest = static_cast<std::size_t>(end_ - pos_);
    const char* newline =
        rest > 0 ? static_cast<const char*>(std::memchr(pos_, '\n', rest)) : nullptr;
    if (!newline || !plain_entry(h, options_.require_finite, pos_, newline, row, col, value))
        return false;
    pos_ = newline + 1;
    ++line_no_;
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

Header Reader::read_header(bool to_csr, bool check_memory) {
    Header h;
    if (!next_line()) {
        fail(1, "empty file: missing '%%MatrixMarket matrix <format> <field> <symmetry>' banner");
    }
    // A UTF-8 byte-order mark some editors put first is not part of the banner.
    if (line_.compare(0, 3, "\xef\xbb\xbf") == 0) line_.erase(0, 3);
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
        fail(1, "unsupported object " + quoted({tokens_[1], lengths_[1]}) + " (expected 'matrix')");
    }
    if (format == "coordinate") {
        h.format = Format::coordinate;
    } else if (format == "array") {
        h.format = Format::array;
    } else {
        fail(1, "unknown format " + quoted({tokens_[2], lengths_[2]}) +
                    " (expected 'coordinate' or 'array')");
    }
    const bool complex = field == "complex";
    if (field == "real") {
        h.field = Field::real;
    } else if (field == "integer") {
        h.field = Field::integer;
    } else if (field == "pattern") {
        h.field = Field::pattern;
    } else if (!complex) {
        fail(1, "unknown field " + quoted({tokens_[3], lengths_[3]}) +
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
        fail(1, "unknown symmetry " + quoted({tokens_[4], lengths_[4]}) +
                    " (expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian')");
    }
    h.banner = printable(field, 40) + " " + printable(symmetry, 40);
    if (hermitian && !complex) {
        throw Unsupported(name_ + ": complex matrices are not supported (banner says '" + h.banner +
                          "'; hermitian needs the complex field)");
    }
    if (complex) {
        h.field = Field::real;  // each part
        h.complex = true;
    }
    if (hermitian) {
        h.symmetry = Symmetry::symmetric;  // one triangle, validated as a symmetric one
        h.hermitian = true;
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
                 "bad size line: " + quoted({tokens_[k], lengths_[k]}) +
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
    if (!to_csr && stored >= static_cast<double>(max_index_extent)) {
        fail(line_no_, std::to_string(h.count) + " entries (" +
                           std::to_string(static_cast<std::int64_t>(stored)) +
                           " once expanded) is too large: portla indexes entries with 32-bit "
                           "integers (at most " +
                           std::to_string(max_index_extent - 1) + ")");
    }
    if (!check_memory) return h;
    // What reading this file and building a CSR matrix from it will take, before any of it is
    // reserved: a lying header is refused here, with the amount, not by the allocator later.
    MemoryNeed need;
    need.add(stored, to_csr ? csr_bytes_per_entry : bytes_per_entry)
        .add(static_cast<double>(h.rows) + 1, to_csr ? csr_bytes_per_row : bytes_per_row);
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
        fail(line_no_,
             std::string("bad ") + what + " index " + quoted({tokens_[token], lengths_[token]}));
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
            fail(line_no_,
                 "bad value " + quoted({tokens_[token], lengths_[token]}) + " in an integer file");
        }
        return static_cast<double>(integer);
    }
    if (!parse_double(tokens_[token], lengths_[token], value)) {
        fail(line_no_,
             "bad value " + quoted({tokens_[token], lengths_[token]}) + " (not a number)");
    }
    if (options_.require_finite && !std::isfinite(value)) {
        fail(line_no_, "non-finite value " + quoted({tokens_[token], lengths_[token]}));
    }
    return value;
}

void Reader::next_entry(const Header& h, std::int64_t k, Triplets& out) {
    std::int64_t r = 0, c = 0;
    double v = 1.0;
    if (h.format == Format::coordinate && fast_entry(h, r, c, v)) {
        out.add(r, c, v);
        return;
    }
    const std::size_t fields = h.format == Format::array ? 1 : (h.field == Field::pattern ? 2 : 3);
    const char* const layout = h.format == Format::array
                                   ? "'value'"
                                   : (h.field == Field::pattern ? "'row col'" : "'row col value'");
    if (!next_data_line()) {
        fail(line_no_ + 1, "truncated file: expected " + std::to_string(h.count) +
                               " entries, found " + std::to_string(k));
    }
    const std::size_t n = tokenize();
    if (n < fields) {
        fail(line_no_, "too few fields: expected " + std::string(layout));
    }
    if (n > fields) {
        fail(line_no_, "unexpected text after the entry (expected " + std::string(layout) + ")");
    }
    if (h.format == Format::array) {
        const std::int64_t first_row_offset = h.symmetry == Symmetry::skew_symmetric ? 1 : 0;
        if (array_row_ < 0) array_row_ = first_row_offset;
        out.add(array_row_, array_col_, parse_value(h, 0));
        if (++array_row_ == h.rows) {
            ++array_col_;
            array_row_ = h.symmetry == Symmetry::general ? 0 : array_col_ + first_row_offset;
        }
        return;
    }
    r = parse_index(0, "row", h.rows);
    c = parse_index(1, "column", h.cols);
    if (h.symmetry != Symmetry::general && r < c) {
        fail(line_no_, "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                           ") above the diagonal in a " +
                           (h.symmetry == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
                           " file (only the lower triangle may be stored)");
    }
    if (h.symmetry == Symmetry::skew_symmetric && r == c) {
        fail(line_no_, "diagonal entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                           ") in a skew-symmetric file");
    }
    out.add(r, c, h.field == Field::pattern ? 1.0 : parse_value(h, 2));
}

bool Reader::parallel_entries(const Header& h, unsigned threads, std::int64_t& k,
                              std::vector<Triplets>& chunks, std::uint64_t& region) {
    if (!eof_ && static_cast<std::size_t>(end_ - pos_) < block_size / 2) refill();
    const auto rest = static_cast<std::size_t>(end_ - pos_);
    const char* last = nullptr;  // the block's last newline
    for (const char* p = end_; p > pos_ && !last; --p)
        if (p[-1] == '\n') last = p - 1;
    if (!last) {
        region = offset() + rest;
        return false;
    }
    const char* const stop = last + 1;
    region = offset() + static_cast<std::uint64_t>(stop - pos_);
    // Below this many bytes a block is read line by line (one part would hold too little).
    constexpr std::ptrdiff_t least = std::ptrdiff_t{1} << 16;
    if (stop - pos_ < least) return false;
    // Part t is [cut[t], cut[t + 1]), each cut just after a newline.
    std::vector<const char*> cut(threads + 1, stop);
    cut[0] = pos_;
    for (unsigned t = 1; t < threads; ++t) {
        const char* p = pos_ + (stop - pos_) * t / threads;
        p = std::max(p, cut[t - 1]);
        const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(stop - p));
        cut[t] = newline ? static_cast<const char*>(newline) + 1 : stop;
    }
    std::vector<Triplets> parts(threads);
    std::vector<const char*> reached(threads);
    const bool finite = options_.require_finite;
    detail::run_on_threads(threads, [&](unsigned t) {
        // About 36 bytes a line in a real file of 16 significant digits.
        const auto guess = static_cast<std::size_t>(cut[t + 1] - cut[t]) / 24;
        try {
            parts[t].rows.reserve(guess);
            parts[t].cols.reserve(guess);
            parts[t].values.reserve(guess);
            reached[t] = plain_entries(h, finite, cut[t], cut[t + 1], parts[t]);
        } catch (const std::bad_alloc&) {
            reached[t] = cut[t];  // line by line, where an allocation failure is reported
        }
    });
    std::int64_t found = 0;
    for (unsigned t = 0; t < threads; ++t) {
        if (reached[t] != cut[t + 1]) return false;
        found += static_cast<std::int64_t>(parts[t].values.size());
    }
    if (found > h.count - k) return false;
    for (Triplets& part : parts)
        if (!part.values.empty()) chunks.push_back(std::move(part));
    k += found;
    line_no_ += static_cast<long>(found);
    pos_ = stop;
    return true;
}

std::vector<Triplets> Reader::read_stored(const Header& h) {
    std::vector<Triplets> chunks(1);
    const std::int64_t reserve = std::min(h.count, max_reserve);
    chunks[0].rows.reserve(static_cast<std::size_t>(reserve));
    chunks[0].cols.reserve(static_cast<std::size_t>(reserve));
    chunks[0].values.reserve(static_cast<std::size_t>(reserve));
    // Coordinate files are parsed a block at a time by all the host's threads (docs/performance.md,
    // "Set-up", for the measurements).
    const unsigned threads = h.format == Format::coordinate ? detail::host_threads() : 1;
    std::uint64_t region = 0;  // read entry by entry up to here
    std::int64_t k = 0;
    while (k < h.count) {
        if (threads > 1 && offset() >= region && !(eof_ && pos_ == end_) &&
            parallel_entries(h, threads, k, chunks, region))
            continue;
        do {
            next_entry(h, k, chunks.back());
            ++k;
        } while (k < h.count && offset() < region);
    }
    if (next_data_line()) {
        fail(line_no_, "more entries than the " + std::to_string(h.count) + " declared");
    }
    return chunks;
}

// The entries of `chunks` in file order, a symmetric file's mirrored entry right after its
// stored one (so duplicates are summed in that order), the chunks freed as they are read.
template <typename Add>
void expand(const Header& h, std::vector<Triplets>& chunks, bool last, const Add& add) {
    const bool mirrored = h.symmetry != Symmetry::general;
    const double sign = h.symmetry == Symmetry::skew_symmetric ? -1.0 : 1.0;
    for (Triplets& t : chunks) {
        for (std::size_t k = 0; k < t.values.size(); ++k) {
            add(t.rows[k], t.cols[k], t.values[k]);
            if (mirrored && t.rows[k] != t.cols[k]) add(t.cols[k], t.rows[k], sign * t.values[k]);
        }
        if (last) t = Triplets();
    }
}

MatrixData Reader::read_entries(const Header& h) {
    std::vector<Triplets> chunks = read_stored(h);
    MatrixData data;
    data.rows = h.rows;
    data.cols = h.cols;
    std::size_t total = 0;
    expand(h, chunks, false, [&total](std::int32_t, std::int32_t, double) { ++total; });
    data.row_idx.reserve(total);
    data.col_idx.reserve(total);
    data.values.reserve(total);
    expand(h, chunks, true,
           [&data](std::int32_t r, std::int32_t c, double v) { data.add(r, c, v); });
    return data;
}

ComplexMatrixData Reader::read_complex_entries(const Header& h) {
    ComplexMatrixData data;
    data.rows = h.rows;
    data.cols = h.cols;
    const bool array = h.format == Format::array;
    const std::size_t fields = array ? 2 : 4;
    const char* const layout = array ? "'real imaginary'" : "'row col real imaginary'";
    const char* const kind = h.hermitian                              ? "hermitian"
                             : h.symmetry == Symmetry::symmetric      ? "symmetric"
                             : h.symmetry == Symmetry::skew_symmetric ? "skew-symmetric"
                                                                      : "general";
    const auto add = [&](std::int64_t r, std::int64_t c, std::complex<double> v) {
        data.row_idx.push_back(r);
        data.col_idx.push_back(c);
        data.values.push_back(v);
    };
    for (std::int64_t k = 0; k < h.count; ++k) {
        if (!next_data_line()) {
            fail(line_no_ + 1, "truncated file: expected " + std::to_string(h.count) +
                                   " entries, found " + std::to_string(k));
        }
        const std::size_t n = tokenize();
        if (n != fields) {
            fail(line_no_, std::string(n < fields ? "too few fields"
                                                  : "unexpected text after "
                                                    "the entry") +
                               ": expected " + layout + " (a complex file)");
        }
        std::int64_t r = 0, c = 0;
        if (array) {
            const std::int64_t first_row_offset = h.symmetry == Symmetry::skew_symmetric ? 1 : 0;
            if (array_row_ < 0) array_row_ = first_row_offset;
            r = array_row_;
            c = array_col_;
            if (++array_row_ == h.rows) {
                ++array_col_;
                array_row_ = h.symmetry == Symmetry::general ? 0 : array_col_ + first_row_offset;
            }
        } else {
            r = parse_index(0, "row", h.rows);
            c = parse_index(1, "column", h.cols);
            if (h.symmetry != Symmetry::general && r < c) {
                fail(line_no_, "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                                   ") above the diagonal in a " + kind +
                                   " file (only the lower triangle may be stored)");
            }
            if (h.symmetry == Symmetry::skew_symmetric && r == c) {
                fail(line_no_, "diagonal entry (" + std::to_string(r + 1) + ", " +
                                   std::to_string(c + 1) + ") in a skew-symmetric file");
            }
        }
        const std::complex<double> v(parse_value(h, array ? 0 : 2), parse_value(h, array ? 1 : 3));
        if (h.hermitian && r == c && v.imag() != 0) {
            fail(line_no_, "diagonal entry (" + std::to_string(r + 1) + ", " +
                               std::to_string(c + 1) + ") of a hermitian file is not real");
        }
        add(r, c, v);
        if (h.symmetry != Symmetry::general && r != c)
            add(c, r, h.hermitian ? std::conj(v) : h.symmetry == Symmetry::skew_symmetric ? -v : v);
    }
    if (next_data_line()) {
        fail(line_no_, "more entries than the " + std::to_string(h.count) + " declared");
    }
    return data;
}

// Random access to the input's bytes for the parallel CSR reader. read_at copies up to `length`
// bytes from `offset` (fewer only at the end of the input) and returns how many, or SIZE_MAX on
// a read error; several threads may call it at once.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    virtual std::size_t read_at(std::uint64_t offset, char* to, std::size_t length) = 0;
    std::uint64_t size = 0;  // the input's length in bytes
};

// A file, read with pread (no lock, no shared position).
class FileSource final : public ByteSource {
public:
    explicit FileSource(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        struct stat info {};
        if (fd_ >= 0 && ::fstat(fd_, &info) == 0 && S_ISREG(info.st_mode))
            size = static_cast<std::uint64_t>(info.st_size);
        else
            close();
    }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    ~FileSource() override { close(); }
    bool is_open() const { return fd_ >= 0; }
    std::size_t read_at(std::uint64_t offset, char* to, std::size_t length) override {
        std::size_t got = 0;
        while (got < length) {
            const ssize_t n =
                ::pread(fd_, to + got, length - got, static_cast<off_t>(offset + got));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return SIZE_MAX;
            if (n == 0) break;
            got += static_cast<std::size_t>(n);
        }
        return got;
    }

private:
    void close() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    int fd_;
};

// A seekable stream, from the position it had when given (one reader at a time).
class StreamSource final : public ByteSource {
public:
    StreamSource(std::istream& in, std::streamoff origin) : in_(in), origin_(origin) {
        in_.clear();
        in_.seekg(0, std::ios::end);
        const std::streamoff end = in_.tellg();
        seekable_ = in_ && end >= origin_;
        if (seekable_) size = static_cast<std::uint64_t>(end - origin_);
    }
    bool seekable() const { return seekable_; }
    std::size_t read_at(std::uint64_t offset, char* to, std::size_t length) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        in_.clear();
        in_.seekg(origin_ + static_cast<std::streamoff>(offset));
        if (!in_) return SIZE_MAX;
        in_.read(to, static_cast<std::streamsize>(length));
        if (in_.bad()) return SIZE_MAX;
        return static_cast<std::size_t>(in_.gcount());
    }

private:
    std::istream& in_;
    std::streamoff origin_;
    bool seekable_ = false;
    std::mutex mutex_;
};

// Bytes each thread of the parallel CSR reader reads at a time, and the longest line it takes:
// a longer one (a long comment; an entry line is under 100 characters) sends the file to the
// line-by-line reader, which applies max_line_length.
constexpr std::size_t part_window = std::size_t{1} << 20;
constexpr std::size_t part_line = std::size_t{1} << 16;

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The decimal digits at p (8 bytes readable from every position up to the end of the run)
// appended to m, 8 bytes at a time, as long as they are digits; m wraps past 19 digits, which the
// caller tells by `count`. Returns the end of the run.
inline const char* digits_at(const char* p, std::uint64_t& m, int& count) {
    static constexpr std::uint64_t scale[] = {1,      10,      100,      1000,     10000,
                                              100000, 1000000, 10000000, 100000000};
    constexpr std::uint64_t ones = 0x0101010101010101;
    for (;;) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, 8);  // little-endian: the first character is the lowest byte
        const std::uint64_t x = v ^ (0x30 * ones);  // a digit's byte is now its value, 0-9
        // High bit of each byte that is not a digit: x >= 0x80, or its low seven bits >= 10.
        const std::uint64_t other = (((x & (0x7f * ones)) + 0x76 * ones) | x) & (0x80 * ones);
        const int k = other == 0 ? 8 : __builtin_ctzll(other) / 8;  // the run's digits here
        if (k > 0) {
            // The k digits moved to the top bytes (as if led by zeros), then combined: pairs,
            // quadruples, the eight; the first character is the most significant digit.
            std::uint64_t d = k == 8 ? x : x << (64 - 8 * k);
            d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ff;
            d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffff;
            d = (d * 10000 + (d >> 32)) & 0xffffffff;
            m = m * scale[k] + d;
            p += k;
            count += k;
        }
        if (k < 8) return p;
    }
}

// The digits at p as a positive index (at most 18 of them, so no overflow): advances p and
// returns true, or leaves p and returns false (no digit, or more digits than that, which the
// line-by-line reader reads or reports).
inline bool index_at(const char*& p, std::int64_t& out) {
    std::uint64_t v = 0;
    int count = 0;
    const char* const q = digits_at(p, v, count);
    if (count == 0 || count > 18) return false;
    out = static_cast<std::int64_t>(v);
    p = q;
    return true;
}

// The real value at p (at least 8 readable bytes past `end`): [-]digits[.digits][e[+-]digits]
// with at most 19 significant digits, a significand up to 2^53 and a power of ten up to 10^22 in
// magnitude is the significand times or divided by that power: both exact in a double, so the
// one operation rounds once, correctly, to what strtod gives (Clinger's fast path). Anything else
// (more digits, a larger exponent, inf, nan, hexadecimal) is std::from_chars's, also correctly
// rounded. Returns the end of the number, or nullptr when there is none.
inline const char* value_at(const char* p, const char* end, double& out) {
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* const start = p;
    const bool negative = *p == '-';
    p += negative ? 1 : 0;
    std::uint64_t m = 0;
    int count = 0;
    p = digits_at(p, m, count);
    int exponent = 0;
    if (*p == '.') {
        const int whole = count;
        p = digits_at(p + 1, m, count);
        exponent = whole - count;
    }
    bool exact = count > 0 && count <= 19 && m <= (std::uint64_t{1} << 53);
    if (exact && (*p == 'e' || *p == 'E')) {
        ++p;
        const bool minus = *p == '-';
        if (*p == '-' || *p == '+') ++p;
        int e = 0;
        const char* const first = p;
        while (static_cast<unsigned>(static_cast<unsigned char>(*p)) - unsigned{'0'} <= 9 &&
               p - first < 4)
            e = e * 10 + (*p++ - '0');
        exact =
            p > first && static_cast<unsigned>(static_cast<unsigned char>(*p)) - unsigned{'0'} > 9;
        exponent += minus ? -e : e;
    }
    if (exact && exponent >= -22 && exponent <= 22) {
        const double v = static_cast<double>(m);
        const double scaled = exponent < 0 ? v / powers[-exponent] : v * powers[exponent];
        out = negative ? -scaled : scaled;
        return p;
    }
    const auto [next, ec] = std::from_chars(start, end, out);
    return ec == std::errc() && next != start ? next : nullptr;
}

// The first newline at or after p (there is one, with 8 readable bytes past it), a word at a time.
inline const char* newline_at(const char* p) {
    constexpr std::uint64_t ones = 0x0101010101010101;
    for (;;) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, 8);
        const std::uint64_t x = v ^ (0x0a * ones);  // a newline's byte is now zero
        // High bit of each zero byte (and of none before the first: borrows only run upwards).
        const std::uint64_t zero = (x - ones) & ~x & (0x80 * ones);
        if (zero != 0) return p + __builtin_ctzll(zero) / 8;
        p += 8;
    }
}

// The lines of [p, end), which ends with a newline: entry(row, col, value) (0-based) for each
// entry line, blank and comment lines (Reader::is_blank_or_comment) skipped, `lines` counting
// the entries. False at the first line that is anything else: a line plain_entry would not take
// (with Values false only the indices are read, and of a general file only the row: the rest of
// the line is left to the Values pass) or one longer than part_line.
template <bool Values, typename Entry>
bool scan_lines(const Header& h, bool finite, const char* p, const char* const end,
                std::int64_t& lines, const Entry& entry) {
    const bool triangle = h.symmetry != Symmetry::general;
    const bool skew = h.symmetry == Symmetry::skew_symmetric;
    const std::int64_t rows = h.rows, cols = h.cols;
    const Field field = h.field;
    while (p < end) {
        const char* q = p;
        while (is_blank(*q)) ++q;
        std::int64_t row = 0, col = 0;
        if (!index_at(q, row)) {
            while (is_blank(*q) || *q == '\r' || *q == '\v' || *q == '\f') ++q;
            if (*q != '%' && *q != '\n') return false;
            q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)));
            if (q - p > static_cast<std::ptrdiff_t>(part_line)) return false;
            p = q + 1;
            continue;
        }
        if constexpr (!Values) {
            // Counting a general file's rows needs no column: the Values pass checks it.
            if (!triangle) {
                if (row > rows || row < 1) return false;
                q = newline_at(q);
                if (q - p > static_cast<std::ptrdiff_t>(part_line)) return false;
                p = q + 1;
                ++lines;
                entry(row - 1, std::int64_t{0}, 1.0);
                continue;
            }
        }
        if (!is_blank(*q)) return false;
        while (is_blank(*q)) ++q;
        if (!index_at(q, col)) return false;
        if (row > rows || col > cols || row < 1 || col < 1) return false;
        if (triangle && row < col) return false;
        if (skew && row == col) return false;
        double value = 1.0;
        if constexpr (Values) {
            if (field != Field::pattern) {
                if (!is_blank(*q)) return false;
                while (is_blank(*q)) ++q;
                if (field == Field::integer) {
                    std::int64_t v = 0;
                    const auto [next, ec] = std::from_chars(q, end, v);
                    if (ec != std::errc() || next == q) return false;
                    value = static_cast<double>(v);
                    q = next;
                } else {
                    q = value_at(q, end, value);
                    if (!q || (finite && !std::isfinite(value))) return false;
                }
            }
            while (is_blank(*q)) ++q;
            if (*q == '\r') ++q;
            if (*q != '\n') return false;
        } else {
            q = newline_at(q);
        }
        if (q - p > static_cast<std::ptrdiff_t>(part_line)) return false;
        p = q + 1;
        ++lines;
        entry(row - 1, col - 1, value);
    }
    return true;
}

// scan_lines over the bytes [first, last) of `source`, part_window bytes at a time through
// `buffer` (a window of up to part_window bytes, part_line + 1 more, and 8 that value_at may
// read past its end). Every part but
// the input's last ends just after a newline; the last may end without one. False where scan_lines
// is, when `stop` is set (another part failed) or when the input ends early or cannot be read.
template <bool Values, typename Entry>
bool scan_part(ByteSource& source, std::uint64_t first, std::uint64_t last,
               std::vector<char>& buffer, const Header& h, bool finite,
               const std::atomic<bool>& stop, std::int64_t& lines, const Entry& entry) {
    std::size_t rest = 0;  // the unfinished line at the front of buffer
    std::uint64_t at = first;
    while (at < last) {
        if (stop) return false;
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(buffer.size() - part_line - 9, last - at));
        if (source.read_at(at, buffer.data() + rest, want) != want) return false;
        at += want;
        std::size_t size = rest + want;
        if (at == last && buffer[size - 1] != '\n') buffer[size++] = '\n';
        const char* const begin = buffer.data();
        const void* newline = ::memrchr(begin, '\n', size);
        const char* const whole = newline ? static_cast<const char*>(newline) + 1 : begin;
        std::int64_t found = 0;  // counted here, not in `lines`: threads' counts share a cache line
        const bool taken = scan_lines<Values>(h, finite, begin, whole, found, entry);
        lines += found;
        if (!taken) return false;
        rest = size - static_cast<std::size_t>(whole - begin);
        if (rest > part_line) return false;
        std::memmove(buffer.data(), whole, rest);
    }
    return rest == 0;
}

// Sizes the CSR arrays to `entries`, the two allocated and zeroed (first touch) by two threads
// at once when `threads` > 1. Throws bad_alloc.
void allocate_entries(CsrData& out, std::size_t entries, unsigned threads) {
    std::atomic<bool> out_of_memory{false};
    detail::run_on_threads(std::min(threads, 2u), [&](unsigned t) {
        try {
            if (t == 0 || threads == 1) out.col_idxs.resize(entries);
            if (t == 1 || threads == 1) out.values.resize(entries);
        } catch (const std::bad_alloc&) {
            out_of_memory = true;
        }
    });
    if (out_of_memory) throw std::bad_alloc();
}

// A general file whose rows never decrease from one entry line to the next (as writers of CSR
// or sorted coordinates leave them) read in one pass over the parts: the first part's entries
// go straight into the CSR arrays, each later part's into arrays of its own, copied after the
// earlier parts' once their counts are known; the rows' lengths come from each part's runs of
// equal rows. False, with `out` cleared, at the first row smaller than the one before it (the
// caller then counts and places in two passes), and where read_csr_in_parts would be. Besides
// the CSR: the later parts' entries (12 bytes each) and runs (8 bytes per row).
bool read_sorted_csr_in_parts(const Header& h, bool finite, ByteSource& source,
                              const std::vector<std::uint64_t>& cut,
                              std::vector<std::vector<char>>& buffers, CsrData& out) {
    const auto threads = static_cast<unsigned>(cut.size() - 1);
    const auto declared = static_cast<std::size_t>(h.count);
    struct Run {  // a row's entries in one part (a longer run than 2^31 - 1 takes two passes)
        std::int32_t row;
        std::int32_t length;
    };
    struct Part {
        std::vector<std::int32_t> col;
        std::vector<double> val;
        std::vector<Run> runs;
        std::int64_t lines = 0;
    };
    std::vector<Part> parts(threads);
    out = CsrData();
    out.rows = h.rows;
    out.cols = h.cols;
    allocate_entries(out, declared, threads);
    std::int32_t* const col = out.col_idxs.data();
    double* const val = out.values.data();
    std::atomic<bool> failed{false};
    const std::uint64_t length = cut.back() - cut.front();
    detail::run_on_threads(threads, [&](unsigned t) {
        Part& part = parts[t];
        bool bad = false;
        std::int64_t row = -1;
        std::int32_t run = 0;
        std::size_t placed = 0;
        const auto add = [&](std::int64_t r, std::int64_t c, double v) {
            if (r != row) {
                if (r < row) {
                    if (!bad) failed = true;
                    bad = true;
                    return;
                }
                if (run > 0) part.runs.push_back({static_cast<std::int32_t>(row), run});
                row = r;
                run = 0;
            }
            if (run == std::numeric_limits<std::int32_t>::max()) {
                if (!bad) failed = true;
                bad = true;
                return;
            }
            ++run;
            if (t == 0) {
                if (placed < declared) {
                    col[placed] = static_cast<std::int32_t>(c);
                    val[placed] = v;
                }
                ++placed;
            } else {
                part.col.push_back(static_cast<std::int32_t>(c));
                part.val.push_back(v);
            }
        };
        try {
            if (t > 0) {  // about this part's share of the entries, a little more
                const auto guess = static_cast<std::size_t>(
                    static_cast<double>(declared) * static_cast<double>(cut[t + 1] - cut[t]) /
                        static_cast<double>(length) * 1.05 +
                    1024);
                part.col.reserve(guess);
                part.val.reserve(guess);
            }
            if (!scan_part<true>(source, cut[t], cut[t + 1], buffers[t], h, finite, failed,
                                 part.lines, add) ||
                bad)
                failed = true;
            if (run > 0) part.runs.push_back({static_cast<std::int32_t>(row), run});
        } catch (const std::bad_alloc&) {
            failed = true;  // the two passes need less memory
        }
    });
    std::int64_t found = 0;
    for (unsigned t = 0; t < threads && !failed; ++t) {
        found += parts[t].lines;
        // Rows keep not decreasing across a cut.
        for (unsigned u = t + 1; u < threads && !parts[t].runs.empty(); ++u)
            if (!parts[u].runs.empty()) {
                if (parts[u].runs.front().row < parts[t].runs.back().row) failed = true;
                break;
            }
    }
    if (failed || found != h.count) {
        out = CsrData();
        return false;
    }
    const auto n = static_cast<std::size_t>(h.rows);
    out.row_ptrs.assign(n + 1, 0);
    for (const Part& part : parts)
        for (const Run& r : part.runs)
            out.row_ptrs[static_cast<std::size_t>(r.row) + 1] += r.length;
    for (std::size_t r = 0; r < n; ++r) out.row_ptrs[r + 1] += out.row_ptrs[r];
    // The later parts' entries after the earlier parts', in file order: CSR order.
    std::vector<std::size_t> offset(threads, 0);
    for (unsigned t = 1; t < threads; ++t)
        offset[t] = offset[t - 1] + static_cast<std::size_t>(parts[t - 1].lines);
    detail::run_on_threads(threads, [&](unsigned t) {
        if (t == 0) return;
        std::copy(parts[t].col.begin(), parts[t].col.end(), col + offset[t]);
        std::copy(parts[t].val.begin(), parts[t].val.end(), val + offset[t]);
        parts[t] = Part();
    });
    detail::sort_and_sum_rows(out);
    return true;
}

// The CSR of a coordinate file straight from its text, in parallel parts split at line
// boundaries, each read by one thread twice: first counting its entries per row, then (each
// part's cursor in a row after the earlier parts' entries) placing columns and values where
// they go, so that every row holds its entries in file order (a symmetric file's mirrored entry
// where its line is). The rows are then sorted and their duplicates summed (sort_and_sum_rows).
// Only plain entry lines, blank lines and comments are taken: anything else, or entry lines other
// than the declared count, returns false, and the line-by-line reader reads the file and
// reports what it finds. Besides the CSR: 8 bytes per row for each part but one, and a
// buffer per part. Reading the text twice instead of keeping parsed triplets (16 bytes an entry):
// the whole `portla solve` of the 6.94e6-entry general 3-D Poisson file 0.81 s of CPU and 181
// MiB at the peak, against 0.94 s and 217 MiB with triplets (2-core VM, 2026-11-28;
// docs/performance.md, "Set-up"). A general file sorted by rows is read once instead
// (read_sorted_csr_in_parts): the reading of that file alone 0.42-0.52 s of CPU instead of
// 0.54-0.61 s, its peak 148 MiB instead of 101 (below the solve's).
bool read_csr_in_parts(const Header& h, bool finite, ByteSource& source, std::uint64_t begin,
                       CsrData& out) {
    if (source.size < begin) return false;
    const std::uint64_t length = source.size - begin;
    const auto n = static_cast<std::size_t>(h.rows);
    // Parts of at least 256 KiB; each part but the last counts rows in an array of its own (8
    // bytes a row), so at most 1 + entries / rows parts: those arrays stay below 8 bytes an entry.
    std::uint64_t parts =
        std::min<std::uint64_t>(detail::host_threads(), std::max<std::uint64_t>(1, length >> 18));
    if (n > 0)
        parts = std::min<std::uint64_t>(
            parts, 1 + static_cast<std::uint64_t>(h.count) / static_cast<std::uint64_t>(n));
    const auto threads = static_cast<unsigned>(std::max<std::uint64_t>(1, parts));
    const auto window = static_cast<std::size_t>(std::min<std::uint64_t>(part_window, length));
    // Part t is [cut[t], cut[t + 1]), each inner cut just after a newline.
    std::vector<std::uint64_t> cut(threads + 1, source.size);
    cut[0] = begin;
    // Each made in place (a prototype to copy would be one more allocation, zeroed and freed).
    std::vector<std::vector<char>> buffers(threads);
    for (std::vector<char>& b : buffers) b.resize(window + part_line + 1 + 8);
    for (unsigned t = 1; t < threads; ++t) {
        const std::uint64_t guess = std::max(begin + length * t / threads, cut[t - 1]);
        if (guess == cut[t - 1]) {
            cut[t] = guess;
            continue;
        }
        std::vector<char>& probe = buffers[t];
        const std::size_t got = source.read_at(guess - 1, probe.data(), part_line);
        if (got == SIZE_MAX) return false;
        const void* newline = std::memchr(probe.data(), '\n', got);
        if (!newline) {
            if (guess - 1 + got < source.size) return false;
            cut[t] = source.size;
            continue;
        }
        cut[t] =
            guess + static_cast<std::uint64_t>(static_cast<const char*>(newline) - probe.data());
    }
    // A general file sorted by rows (the common case) in one pass; if it is not, in two.
    if (h.symmetry == Symmetry::general &&
        read_sorted_csr_in_parts(h, finite, source, cut, buffers, out))
        return true;
    const bool mirrored = h.symmetry != Symmetry::general;
    out = CsrData();
    out.rows = h.rows;
    out.cols = h.cols;
    out.row_ptrs.assign(n + 1, 0);
    // Each part's count, then cursor, per row; the last part's is row_ptrs[1..n], which ends as
    // the rows' ends.
    std::vector<std::vector<std::int64_t>> own(threads - 1);
    for (std::vector<std::int64_t>& o : own) o.resize(n);
    std::vector<std::int64_t*> next(threads);
    for (unsigned t = 0; t + 1 < threads; ++t) next[t] = own[t].data();
    next[threads - 1] = out.row_ptrs.data() + 1;
    std::vector<std::int64_t> lines(threads, 0);
    std::atomic<bool> failed{false};
    detail::run_on_threads(threads, [&](unsigned t) {
        std::int64_t* const count = next[t];
        const auto add = [count, mirrored](std::int64_t r, std::int64_t c, double) {
            ++count[r];
            if (mirrored && r != c) ++count[c];
        };
        if (!scan_part<false>(source, cut[t], cut[t + 1], buffers[t], h, finite, failed, lines[t],
                              add))
            failed = true;
    });
    std::int64_t found = 0;
    for (const std::int64_t l : lines) found += l;
    if (failed || found != h.count) return false;
    // Cursors: part t's entries of row r start after those of row r's earlier parts.
    std::int64_t total = 0;
    for (std::size_t r = 0; r < n; ++r)
        for (unsigned t = 0; t < threads; ++t) {
            const std::int64_t c = next[t][r];
            next[t][r] = total;
            total += c;
        }
    const auto entries = static_cast<std::size_t>(total);
    allocate_entries(out, entries, threads);
    std::int32_t* const col = out.col_idxs.data();
    double* const val = out.values.data();
    const double sign = h.symmetry == Symmetry::skew_symmetric ? -1.0 : 1.0;
    detail::run_on_threads(threads, [&](unsigned t) {
        std::int64_t* const cursor = next[t];
        bool outside = false;  // only if the input changed between the two readings
        const auto place = [&](std::int64_t r, std::int64_t c, double v) {
            const auto p = static_cast<std::size_t>(cursor[r]++);
            if (p >= entries) {
                outside = true;
                return;
            }
            col[p] = static_cast<std::int32_t>(c);
            val[p] = v;
            if (mirrored && r != c) {
                const auto q = static_cast<std::size_t>(cursor[c]++);
                if (q >= entries) {
                    outside = true;
                    return;
                }
                col[q] = static_cast<std::int32_t>(r);
                val[q] = sign * v;
            }
        };
        std::int64_t placed = 0;
        if (!scan_part<true>(source, cut[t], cut[t + 1], buffers[t], h, finite, failed, placed,
                             place) ||
            outside || placed != lines[t])
            failed = true;
    });
    if (failed) return false;
    own = {};
    buffers = {};
    detail::sort_and_sum_rows(out);
    return true;
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
    const Header header = reader.read_real_header();
    return reader.read_entries(header);
}

MatrixData read_matrix_market(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    return read_matrix_market(file, path, options);
}

namespace {

// The CSR reader line by line: every file it takes, and the exact message and line for those
// it does not.
CsrData read_csr_by_lines(std::istream& in, const std::string& name, const ReadOptions& options) {
    Reader reader(in, name, options);
    const Header h = reader.read_real_header(true);
    std::vector<Triplets> chunks = reader.read_stored(h);
    return detail::build_csr(h.rows, h.cols,
                             [&](auto&& add, bool last) { expand(h, chunks, last, add); });
}

// The header from `in`, then a coordinate file's entries in parallel parts from `source`
// (read_csr_in_parts); false when the file is to be read line by line (an array file, or a line
// the parts do not take).
bool read_csr_fast(std::istream& in, const std::string& name, const ReadOptions& options,
                   ByteSource& source, CsrData& out) {
    Reader reader(in, name, options);
    const Header h = reader.read_real_header(true);
    return h.format == Format::coordinate &&
           read_csr_in_parts(h, options.require_finite, source, reader.consumed(), out);
}

}  // namespace

CsrData read_matrix_market_csr(std::istream& in, const std::string& name,
                               const ReadOptions& options) {
    const std::streamoff origin = in.tellg();
    if (origin >= 0) {
        StreamSource source(in, origin);
        if (source.seekable()) {
            in.seekg(origin);
            CsrData out;
            if (read_csr_fast(in, name, options, source, out)) return out;
            in.clear();
            in.seekg(origin);
        } else {
            in.clear();
            in.seekg(origin);
        }
    }
    return read_csr_by_lines(in, name, options);
}

CsrData read_matrix_market_csr(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    FileSource source(path);
    if (source.is_open()) {
        CsrData out;
        if (read_csr_fast(file, path, options, source, out)) return out;
        file.clear();
        file.seekg(0);
    }
    return read_csr_by_lines(file, path, options);
}

ComplexMatrixData read_matrix_market_complex(std::istream& in, const std::string& name,
                                             const ReadOptions& options) {
    Reader reader(in, name, options);
    const Header h = reader.read_header();
    if (!h.complex)
        reader.fail(1, "expected a complex matrix (banner says '" + h.banner +
                           "'): read it with read_matrix_market");
    return reader.read_complex_entries(h);
}

ComplexMatrixData read_matrix_market_complex(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    return read_matrix_market_complex(file, path, options);
}

MatrixMarketHeader read_matrix_market_header(std::istream& in, const std::string& name) {
    const ReadOptions options;
    Reader reader(in, name, options);
    const Header h = reader.read_header(true, false);
    MatrixMarketHeader out;
    out.rows = h.rows;
    out.cols = h.cols;
    out.entries = h.count;
    out.array = h.format == Format::array;
    out.symmetric = h.symmetry != Symmetry::general;
    out.skew = h.symmetry == Symmetry::skew_symmetric;
    out.complex = h.complex;
    out.hermitian = h.hermitian;
    out.size_line = h.size_line;
    return out;
}

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
    std::ifstream file;
    open_for_reading(file, path);
    return read_matrix_market_header(file, path);
}

std::vector<double> read_vector(const std::string& path, const ReadOptions& options) {
    std::ifstream file;
    open_for_reading(file, path);
    Reader reader(file, path, options);
    const Header h = reader.read_real_header();
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

void write_complex_vector(const std::string& path,
                          const std::vector<std::complex<double>>& values) {
    OutputFile out(path);
    std::fprintf(out.get(), "%%%%MatrixMarket matrix array complex general\n%zu 1\n",
                 values.size());
    for (const std::complex<double>& v : values) {
        std::fprintf(out.get(), "%.17g %.17g\n", v.real(), v.imag());
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
