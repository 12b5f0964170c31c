// Files the CLI writes: whole or not at all, and never onto one of the run's inputs.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace portla::cli {

/// Writes `path` whole or not at all. `fill` writes the contents into a temporary file
/// ".NAME.XXXXXX" in the same directory, which is flushed, fsync'ed and renamed onto `path`.
/// On any failure (the directory missing or not writable, a write, fsync or rename error, or an
/// exception from `fill`) the temporary file is removed, a previous file at `path` is left as it
/// was, and BadInput("cannot write 'PATH': <strerror>") is thrown (an exception from `fill` is
/// rethrown as it was).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& fill);

/// A subcommand's JSON result: printed to stdout when `path` is empty (`--json`), otherwise
/// written to `path` with write_file_atomically (`--json FILE`).
void emit_json(const nlohmann::json& j, const std::string& path, int indent = 2);

/// A vector as a Matrix Market "array real general" n x 1 file with full precision (the format
/// of io::write_vector), written with write_file_atomically.
void write_vector_atomically(const std::string& path, const std::vector<double>& values);

/// A path given on the command line, with the option (or positional name) that gave it.
struct NamedPath {
    std::string option;
    std::string path;
};

/// Throws BadInput naming both options when an output is the same file as an input (the same
/// st_dev/st_ino when both exist, or the same canonical path) or as another output. Empty paths
/// are skipped. Call it before any work, so a refused run writes and reads nothing.
void require_distinct_files(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs);

}  // namespace portla::cli
