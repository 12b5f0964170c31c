// libFuzzer target: the Matrix Market reader on arbitrary bytes (through its stream API).
// A well-formed input must give consistent data; a malformed one must throw a portla::Error
// (BadInput, Unsupported). Anything else (a crash, a sanitizer report, another exception, a
// timeout or an allocation past -rss_limit_mb) is a finding.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "portla/error.hpp"
#include "portla/io/matrix_market.hpp"

namespace {

// A message quotes text from the file escaped and cut: no control byte, no unbounded length.
void check_message(const char* what) {
    const std::size_t length = std::strlen(what);
    if (length > 1000) std::abort();
    for (std::size_t i = 0; i < length; ++i)
        if (static_cast<unsigned char>(what[i]) < 0x20 || what[i] == 0x7f) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    // The header alone (what the CLI sizes a run from) is read by the same rules as the whole
    // file: a file the whole reader takes has a header that reads to the same sizes.
    bool header_read = false;
    portla::io::MatrixMarketHeader header;
    try {
        std::istringstream in(bytes);
        header = portla::io::read_matrix_market_header(in, "fuzz.mtx");
        header_read = true;
    } catch (const portla::Error& e) {
        check_message(e.what());
    }
    for (const bool require_finite : {true, false}) {
        std::istringstream in(bytes);
        portla::io::ReadOptions options;
        options.require_finite = require_finite;
        try {
            portla::MatrixData d = portla::io::read_matrix_market(in, "fuzz.mtx", options);
            if (!header_read || header.rows != d.rows || header.cols != d.cols) std::abort();
            // What the reader promises: one value per entry, every index inside the matrix.
            if (d.rows < 0 || d.cols < 0 || d.row_idx.size() != d.entries() ||
                d.col_idx.size() != d.entries())
                std::abort();
            for (std::size_t k = 0; k < d.entries(); ++k)
                if (d.row_idx[k] < 0 || d.row_idx[k] >= d.rows || d.col_idx[k] < 0 ||
                    d.col_idx[k] >= d.cols)
                    std::abort();
            d.sort_and_sum_duplicates();
            const bool symmetric = d.is_symmetric(portla::MatrixData::rounding_symmetry);
            // A symmetric file gives an exactly symmetric matrix: the test fails only for a
            // value that is not finite (duplicates may sum past the largest double), which the
            // CLI checks instead of testing the symmetry of a symmetric file.
            const bool finite = std::all_of(d.values.begin(), d.values.end(),
                                            [](double v) { return std::isfinite(v); });
            if (header.symmetric && !header.skew && finite && !symmetric) std::abort();
            // The CSR reader holds the same sorted, summed entries (NaN compares unequal, so
            // values are compared by their bits). Rows are bounded: a CSR has a pointer per row.
            if (d.rows <= (1 << 20)) {
                std::istringstream again(bytes);
                const portla::CsrData c =
                    portla::io::read_matrix_market_csr(again, "fuzz.mtx", options);
                const portla::MatrixData back = c.to_matrix_data();
                if (back.row_idx != d.row_idx || back.col_idx != d.col_idx ||
                    back.values.size() != d.values.size() ||
                    (d.entries() > 0 && std::memcmp(back.values.data(), d.values.data(),
                                                    d.entries() * sizeof(double)) != 0) ||
                    c.is_symmetric(portla::MatrixData::rounding_symmetry) != symmetric)
                    std::abort();
            }
        } catch (const portla::Error& e) {
            // malformed input, reported as the reader documents
            check_message(e.what());
        }
        // The complex reader: a complex file's header, in-range indices, a conjugated mirror for
        // every off-diagonal entry of a hermitian one (stored entry, then its mirror).
        try {
            std::istringstream again(bytes);
            const portla::io::ComplexMatrixData c =
                portla::io::read_matrix_market_complex(again, "fuzz.mtx", options);
            if (!header_read || !header.complex || header.rows != c.rows || header.cols != c.cols ||
                c.row_idx.size() != c.values.size() || c.col_idx.size() != c.values.size())
                std::abort();
            for (std::size_t k = 0; k < c.values.size(); ++k) {
                if (c.row_idx[k] < 0 || c.row_idx[k] >= c.rows || c.col_idx[k] < 0 ||
                    c.col_idx[k] >= c.cols)
                    std::abort();
                if (header.hermitian && c.row_idx[k] > c.col_idx[k] &&
                    (k + 1 >= c.values.size() || c.row_idx[k + 1] != c.col_idx[k] ||
                     std::memcmp(&c.values[k + 1], &c.values[k], sizeof(double)) != 0))
                    std::abort();
            }
        } catch (const portla::Error& e) {
            check_message(e.what());
        }
    }
    return 0;
}
