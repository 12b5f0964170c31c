// portla: the command-line tool. Errors print one line on stderr and exit with status 1.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <new>

#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "subcommands.hpp"

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

std::string portla::cli::backend_names() {
    std::string names;
    for (const Backend b : all_backends()) names += (names.empty() ? "" : ", ") + to_string(b);
    return names;
}

std::string portla::cli::executor_option_help() {
    return "auto, " + backend_names() + " or NAME:N (device N of a GPU backend, e.g. cuda:1)";
}

int main(int argc, char** argv) {
    CLI::App app{"portla: portable linear-algebra kernels and iterative solvers"};
    app.require_subcommand(1);
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
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "portla: error: " << e.what() << " (see portla --help)\n";
        return portla::cli::exit_error;
    }
    try {
        for (auto& [sub, run] : runners)
            if (sub->parsed()) return run();
    } catch (const portla::Error& e) {
        std::cerr << "portla: error: " << e.what() << "\n";
    } catch (const std::bad_alloc&) {
        std::cerr << "portla: error: out of host memory\n";
    } catch (const std::exception& e) {
        std::cerr << "portla: error: " << e.what() << "\n";
    }
    return portla::cli::exit_error;
}
