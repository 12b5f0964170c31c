// libFuzzer target: the Matrix Market reader on arbitrary bytes (through its stream API).
// A well-formed input must give consistent data; a malformed one must throw a portla::Error
// (BadInput, Unsupported). Anything else (a crash, a sanitizer report, another exception, a
// timeout or an allocation past -rss_limit_mb) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "portla/error.hpp"
#include "portla/io/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    for (const bool require_finite : {true, false}) {
        std::istringstream in(bytes);
        portla::io::ReadOptions options;
        options.require_finite = require_finite;
        try {
            portla::MatrixData d = portla::io::read_matrix_market(in, "fuzz.mtx", options);
            // What the reader promises: one value per entry, every index inside the matrix.
            if (d.rows < 0 || d.cols < 0 || d.row_idx.size() != d.entries() ||
                d.col_idx.size() != d.entries())
                std::abort();
            for (std::size_t k = 0; k < d.entries(); ++k)
                if (d.row_idx[k] < 0 || d.row_idx[k] >= d.rows || d.col_idx[k] < 0 ||
                    d.col_idx[k] >= d.cols)
                    std::abort();
            d.sort_and_sum_duplicates();
            (void)d.is_symmetric(portla::MatrixData::rounding_symmetry);
        } catch (const portla::Error&) {
            // malformed input, reported as the reader documents
        }
    }
    return 0;
}
