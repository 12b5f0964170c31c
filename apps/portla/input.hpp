// Files the CLI reads: checked with stat before anything opens them, loaded with errors that
// name the file, and sized from their headers before the data is allocated.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "portla/error.hpp"

namespace portla::cli {

/// Throws BadInput("'PATH' is not a regular file (a FIFO)") unless `path` is a regular file (a
/// FIFO, a device or a directory is refused without being opened), or "no such file" .
void require_regular_file(const std::string& path);

/// A CLI11 validator: the value names a regular file (require_regular_file), checked by stat.
CLI::Validator regular_file();

/// A CLI11 validator: the value names a directory whose numbered entries' A.mtx and b.mtx are
/// regular files where they exist (portla batch's input layout).
CLI::Validator batch_directory();

/// Every file a batch directory's numbered entries hold ("DIR/0/A.mtx", ...), which outputs are
/// compared with (require_distinct_files), each named "DIR/N/NAME".
std::vector<std::string> batch_input_files(const std::string& dir);

/// Runs `load` for the input `path`: std::length_error and std::bad_alloc (a size declared in the
/// file that no vector can hold) become BadInput naming the file.
template <typename Load>
auto load_input(const std::string& path, Load&& load) -> decltype(load()) {
    try {
        return load();
    } catch (const std::length_error&) {
        throw BadInput(path, 0, "the sizes it declares are too large to allocate");
    } catch (const std::bad_alloc&) {
        throw BadInput(path, 0, "out of host memory while reading it");
    }
}

/// The sizes a Matrix Market file declares on its size line (the data is not read, the header
/// read by the library's reader, io::read_matrix_market_header): rows, columns and stored
/// entries (rows * cols for an array file; doubled for a symmetric coordinate file, whose other
/// triangle is added on reading). Throws BadInput naming the file and line when the header is
/// malformed.
struct DeclaredSize {
    double rows = 0;
    double cols = 0;
    double entries = 0;
    /// A symmetric (not skew-symmetric) file: the readers build both triangles from the same
    /// lines, summed in the same order, so the matrix read is exactly symmetric.
    bool symmetric = false;
};
DeclaredSize read_declared_size(const std::string& path);

}  // namespace portla::cli
