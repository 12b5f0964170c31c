// Each subcommand registers its options on the app and returns the function that runs it.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace portla::cli {

/// Runs the subcommand after parsing; returns the process exit code.
using Runner = std::function<int()>;

Runner add_info(CLI::App& app);
Runner add_solve(CLI::App& app);
Runner add_bench(CLI::App& app);
Runner add_portability(CLI::App& app);
Runner add_gemm(CLI::App& app);
Runner add_eig(CLI::App& app);
Runner add_batch(CLI::App& app);
Runner add_tune(CLI::App& app);

/// The process heap while reading input: blocks of 1 MiB and more mapped on their own, so the
/// reading's freed parts leave no resident memory (set at the start of main).
void heap_for_reading();
/// The process heap for a set-up that allocates and frees many large arrays (multigrid's):
/// blocks below 32 MiB from the heap, freed memory kept for reuse. Thresholds the user set
/// through glibc's environment are kept by both.
void heap_for_setup();

/// "reference, omp, cuda": this build's backends (include/portla/backend_list.hpp), in order.
std::string backend_names();
/// The help of a --backend option that names an executor (Executor::create):
/// "auto, reference, omp, cuda or NAME:N (device N of a GPU backend, e.g. cuda:1)".
std::string executor_option_help();

/// Accepts a finite number >= 0 (tolerances): CLI11's NonNegativeNumber lets NaN and inf through.
CLI::Validator non_negative_number();

/// Accepts a finite number >= the least normal double (tolerances that must be > 0); the
/// message gives the range in %g form.
CLI::Validator positive_number();

/// `--json [FILE]`, the same in every subcommand: alone, the JSON result goes to stdout (and
/// nothing else does); with FILE, it is written there whole (output.hpp) and stdout keeps the
/// text summary.
struct JsonOutput {
    CLI::Option* option = nullptr;
    std::string path;
    bool requested() const { return option != nullptr && option->count() > 0; }
    bool to_stdout() const { return requested() && path.empty(); }
};
CLI::Option* add_json_option(CLI::App& app, JsonOutput& json);

/// Exit codes shared by every subcommand.
inline constexpr int exit_ok = 0;
inline constexpr int exit_error = 1;
inline constexpr int exit_not_converged = 2;

}  // namespace portla::cli
