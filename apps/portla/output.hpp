// Files the CLI writes: whole or not at all, never onto one of the run's inputs, and never in
// place of a device, a FIFO or the terminal they name.
#pragma once

#include <complex>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace portla::cli {

/// Writes `fill`'s text to the output `path`, by what `path` is now (symbolic links followed):
/// - a regular file, or nothing yet: written whole or not at all. `fill` writes into a temporary
///   file ".NAME.XXXXXX" beside the target (NAME cut so that the temporary name stays within
///   the file system's NAME_MAX), which is flushed, fsync'ed and renamed onto the target (a
///   symbolic link's target, the link itself kept). The temporary file is removed on any
///   failure and on SIGINT, SIGTERM and SIGHUP while it exists (the signal then takes its
///   previous course).
/// - a character device, a FIFO or a terminal: written into directly, every write checked
///   (a full device, a reader that went away), never replaced.
/// - the file this process's stdout or stderr already writes to (/dev/stdout, a shell
///   redirection): written through that descriptor, after what the process printed before.
/// A directory, a block device, a socket, a dangling symbolic link and an empty name are
/// refused. Throws BadInput("cannot write 'PATH': <why>"); an exception from `fill` is
/// rethrown as it was. A previous regular file at `path` is left as it was on any failure.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& fill);

/// "" when `path` can be given to write_output as far as a stat tells now, else why not
/// ("cannot write 'PATH': Is a directory"; "... No such file or directory" when its directory
/// does not exist). The directory of a file to write must exist and be writable, unless
/// `create_parent` (the caller creates it before writing).
std::string output_problem(const std::string& path, bool create_parent = false);

/// A CLI11 validator for an output option: output_problem, prefixed by nothing (CLI11 names the
/// option). An empty name is refused.
CLI::Validator output_file(bool create_parent = false);

/// A subcommand's JSON result: printed to stdout when `path` is empty (`--json`), otherwise
/// written to `path` with write_output (`--json FILE`).
void emit_json(const nlohmann::json& j, const std::string& path, int indent = 2);

/// A vector as a Matrix Market "array real general" n x 1 file with full precision (the format
/// of io::write_vector), written with write_output.
void write_vector_output(const std::string& path, const std::vector<double>& values);
/// The same for a complex vector: "array complex general", each line "real imaginary".
void write_vector_output(const std::string& path, const std::vector<std::complex<double>>& values);

/// Flushes stdout. "" when everything printed to it was written, else why not (a full device,
/// a closed pipe): a run whose result could not be written must not exit 0.
std::string flush_stdout();

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
