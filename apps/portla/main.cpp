// portla: the command-line tool. Errors print one line on stderr and exit with status 1.
#include <sys/stat.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <new>
#include <regex>
#include <stdexcept>
#include <vector>

#include "portla/environment.hpp"
#include "mpi.hpp"
#include "output.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/printable.hpp"
#include "subcommands.hpp"

#ifndef PORTLA_VERSION
#define PORTLA_VERSION "unknown"
#endif
#ifndef PORTLA_GIT_COMMIT
#define PORTLA_GIT_COMMIT "unknown"
#endif

CLI::Validator portla::cli::non_negative_number() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            if (end == s.c_str() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
                return "must be a finite number >= 0, got '" + s + "'";
            return {};
        },
        "NUMBER >= 0");
}

CLI::Validator portla::cli::positive_number() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            const double least = std::numeric_limits<double>::min();
            if (end == s.c_str() || *end != '\0' || !(v >= least) || !std::isfinite(v)) {
                char range[96];
                std::snprintf(range, sizeof range, "must be a finite number in [%g, %g], got '",
                              least, std::numeric_limits<double>::max());
                return range + s + "'";
            }
            return {};
        },
        "NUMBER > 0");
}

namespace {

// Whether `path` is an existing file that holds, or is named as, a Matrix Market file.
bool is_matrix_market_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    std::string suffix = path.size() >= 4 ? path.substr(path.size() - 4) : "";
    for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (suffix == ".mtx") return true;
    char head[14] = {};
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    const std::size_t got = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return got == sizeof head && std::memcmp(head, "%%MatrixMarket", sizeof head) == 0;
}

}  // namespace

CLI::Option* portla::cli::add_json_option(CLI::App& app, JsonOutput& json) {
    // What CLI11 gives for `--json` without FILE: a string no command line can hold (arguments
    // end at their first NUL), so that it is told apart from `--json ''`, an empty name.
    static const std::string no_file(1, '\0');
    // `--json A.mtx` takes A.mtx as the JSON file (--json's FILE is optional): a Matrix Market
    // file there is an input put after --json, refused before any work instead of overwritten.
    const CLI::Validator json_file(
        [](std::string& path) -> std::string {
            if (path == no_file) return {};
            if (is_matrix_market_file(path))
                return "'" + path +
                       "' is an existing Matrix Market file: refusing to overwrite an input "
                       "(--json takes an optional FILE; give the matrix before --json)";
            return output_problem(path);
        },
        "FILE");
    // CLI11 validates no empty value of an option whose value is optional: `--json ''` is
    // refused here, after the validator.
    json.option =
        app.add_option_function<std::string>(
               "--json",
               [&json](const std::string& value) {
                   if (value.empty())
                       throw CLI::ValidationError(
                           "--json", "an empty file name (--json alone prints on stdout)");
                   json.path = value == no_file ? std::string() : value;
               },
               "print the result as one JSON object; --json FILE writes it to "
               "FILE instead (whole or not at all)")
            ->expected(0, 1)
            ->default_str(no_file)
            ->option_text("[FILE]")
            ->check(json_file);
    return json.option;
}

std::string portla::cli::backend_names() {
    std::string names;
    for (const Backend b : all_backends()) names += (names.empty() ? "" : ", ") + to_string(b);
    return names;
}

std::string portla::cli::executor_option_help() {
    return "auto, " + backend_names() + " or NAME:N (device N of a GPU backend, e.g. cuda:1)";
}

namespace {

// Optimal string alignment distance (Levenshtein with adjacent transpositions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// " (did you mean 'X'?)" for the candidate nearest to `word`, when one is near enough.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_d) best = c, best_d = d;
    }
    return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

// CLI11 prints range limits with %f: 1.8e308 as 309 digits. Any number of 13 or more digits
// (with its decimals) is rewritten with %g.
std::string readable_numbers(const std::string& message) {
    static const std::regex long_number(R"([0-9]{13,}(\.[0-9]+)?)");
    std::string out;
    auto last = message.cbegin();
    for (std::sregex_iterator it(message.begin(), message.end(), long_number), end; it != end;
         ++it) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", std::strtod(it->str().c_str(), nullptr));
        out.append(last, message.cbegin() + it->position()).append(buf);
        last = message.cbegin() + it->position() + it->length();
    }
    return out.append(last, message.cend());
}

// One line for a parse error: the unknown subcommand or option with the nearest valid name.
std::string parse_error_message(CLI::App& app, const CLI::ParseError& e) {
    const auto parsed = app.get_subcommands();
    CLI::App* sub = parsed.empty() ? nullptr : parsed.front();
    const auto extras = sub ? sub->remaining() : app.remaining();
    if (!extras.empty()) {
        const auto option = std::find_if(extras.begin(), extras.end(), [](const std::string& t) {
            return t.size() > 1 && t[0] == '-' && !std::isdigit(static_cast<unsigned char>(t[1]));
        });
        if (option != extras.end()) {
            const std::string name = option->substr(0, option->find('='));
            std::vector<std::string> names;
            for (const CLI::Option* o : (sub ? sub : &app)->get_options({})) {
                for (const auto& l : o->get_lnames()) names.push_back("--" + l);
                for (const auto& s : o->get_snames()) names.push_back("-" + s);
            }
            return "unknown option '" + name + "'" + suggestion(name, names) +
                   (sub ? " (see portla " + sub->get_name() + " --help)" : "");
        }
        if (!sub) {
            std::vector<std::string> names;
            for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
            return "unknown subcommand '" + extras.front() + "'" +
                   suggestion(extras.front(), names);
        }
        return "unexpected argument '" + extras.front() + "' (see portla " + sub->get_name() +
               " --help)";
    }
    return readable_numbers(e.what()) + " (see portla --help)";
}

// One line on stderr for an error that ends the run: what it quotes from the input (a file name,
// an option's value) with non-printable bytes escaped, at most 4096 bytes of it.
void print_error(std::string message) {
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "portla: error: " << portla::printable(message, 4096) << "\n";
}

}  // namespace

namespace portla::cli {
namespace {

// Whether the user set glibc's heap thresholds (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_,
// GLIBC_TUNABLES): then they are kept.
bool heap_set_by_user() {
#if defined(__GLIBC__)
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    return std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_") ||
           (tunables &&
            (std::strstr(tunables, "mmap_threshold") || std::strstr(tunables, "trim_threshold")));
#else
    return true;
#endif
}

}  // namespace

// Blocks of 1 MiB and more are mapped on their own and returned when freed. glibc raises this
// threshold to the largest block freed so far (up to 32 MiB), after which the freed vectors of
// the set-up (a reader's parts, the checks' scratch, the warm-up's x) stay resident: `solve FILE
// --max-iters 1` of the 1e6-row 3-D Poisson file peaked at 191 MiB, 2.2x its 87.1 MiB CSR, and
// at 149 MiB (1.7x) with the threshold fixed, in the same CPU time (2-core VM, 2026-11-28).
void heap_for_reading() {
#if defined(__GLIBC__)
    if (!heap_set_by_user()) ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

// A multigrid set-up allocates and frees hundreds of work arrays of one to tens of MiB: mapped
// afresh each time (heap_for_reading), every page of each is faulted in again, a fifth of the
// set-up's time on poisson3d:64 (perf: exc_page_fault 21%, munmap 3%). Blocks below 32 MiB then
// come from the heap, and freed memory is kept for the next array instead of returned: omp,
// 2-core VM, 2026-11-29, poisson3d:64 set-up 487-558 ms (3 runs) -> 371-393 ms (4 runs).
void heap_for_setup() {
#if defined(__GLIBC__)
    if (heap_set_by_user()) return;
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace portla::cli

int main(int argc, char** argv) {
    // CUDA loads every kernel when the context is created, before any timed region, instead of
    // at each kernel's first launch inside it (lazy loading, CUDA's default): 2-2.5 ms of every
    // first solve (`solve --generate poisson3d:16 --assembled`: 2.9-3.5 ms -> 0.86-0.94 ms;
    // 1138_bus 16.1 -> 13.8 ms) with the same process time (0.45-0.50 s; H100, 2026-11-24).
    // A CUDA_MODULE_LOADING the user set is kept.
    ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    // Blocks of 1 MiB and more mapped on their own (cli::heap_for_setup says why and when
    // that changes).
    portla::cli::heap_for_reading();
    // A reader that went away (a closed pipe, a FIFO's reader) is a write error reported with
    // exit 1, not a signal that ends the run.
    std::signal(SIGPIPE, SIG_IGN);
    // Under mpirun every rank runs the same command; only rank 0 prints (subcommands that do not
    // distribute run alike on every rank). An error in a distributed phase is agreed over the
    // ranks (dist::on_every_rank): every rank exits 1, rank 0 prints the one line.
    const portla::cli::MpiScope mpi(&argc, &argv);
    const bool prints = portla::cli::world_rank() == 0;
    CLI::App app{"portla: portable linear-algebra kernels and iterative solvers"};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version", std::string("portla ") + PORTLA_VERSION + " (commit " PORTLA_GIT_COMMIT ")");
    // Every subcommand's help shows each option's default (subcommands inherit this).
    app.option_defaults()->always_capture_default();
    std::map<CLI::App*, portla::cli::Runner> runners;
    auto add = [&](const char* name, const char* help, auto add_fn) {
        auto* sub = app.add_subcommand(name, help);
        runners[sub] = add_fn(*sub);
    };
    add("info", "list the backends compiled in and the devices found", portla::cli::add_info);
    add("solve", "solve A x = b with CG or BiCGSTAB", portla::cli::add_solve);
    add("bench", "time kernels over a sweep of sizes and fit T = T0 + bytes / W_a",
        portla::cli::add_bench);
    add("portability", "performance-portability metric from benchmark results",
        portla::cli::add_portability);
    add("gemm", "time C = alpha A B + beta C (naive ... fast, vendor) and check it",
        portla::cli::add_gemm);
    add("eig", "dominant eigenpair of a positive matrix (parallel similarity transformation)",
        portla::cli::add_eig);
    add("batch", "solve a batch of small systems that share one sparsity pattern",
        portla::cli::add_batch);
    add("tune", "choose the vector kernels' launch per size on this device; write its profile",
        portla::cli::add_tune);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (prints) print_error(parse_error_message(app, e));
        return portla::cli::exit_error;
    }
    try {
        // The PORTLA_* variables set the process's options here and every executor's where the
        // subcommand makes it (executor_from_environment): a bad value is refused before any work.
        portla::apply_environment();
        for (auto& [sub, run] : runners)
            if (sub->parsed()) {
                const int code = run();
                // A result that did not reach stdout (a full device, a closed pipe) is a failure.
                if (const std::string problem = portla::cli::flush_stdout(); !problem.empty()) {
                    if (prints) print_error("cannot write to stdout: " + problem);
                    return portla::cli::exit_error;
                }
                return code;
            }
    } catch (const portla::Error& e) {
        if (prints) print_error(e.what());
    } catch (const std::bad_alloc&) {
        if (prints) print_error("out of host memory");
    } catch (const std::length_error& e) {
        if (prints) print_error(std::string("a size is too large to allocate (") + e.what() + ")");
    } catch (const std::exception& e) {
        if (prints) print_error(e.what());
    }
    return portla::cli::exit_error;
}
