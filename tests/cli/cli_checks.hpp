// Checks shared by the CLI tests: stdout as one JSON object, and the one-line error contract.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_cli.hpp"

namespace portla::test {

/// Parses stdout as one JSON object; a parse failure is a test failure.
inline nlohmann::json parse_json(const RunResult& r) {
    try {
        nlohmann::json j = nlohmann::json::parse(r.out);
        EXPECT_TRUE(j.is_object()) << r;
        return j;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "stdout is not valid JSON: " << e.what() << "\n" << r;
        return nlohmann::json::object();
    }
}

/// `portla SUBCOMMAND args... --json` with the expected exit status and a clean stderr; the
/// parsed stdout.
inline nlohmann::json run_json(const std::string& subcommand, std::vector<std::string> args,
                               int expected_exit = 0) {
    args.insert(args.begin(), subcommand);
    args.push_back("--json");
    const RunResult r = run_portla(args, 120);
    EXPECT_FALSE(r.signaled) << r;
    EXPECT_EQ(r.exit_code, expected_exit) << r;
    EXPECT_EQ(r.err, "") << r;
    return parse_json(r);
}

/// `portla SUBCOMMAND args...` exits 1, not by a signal, with nothing on stdout and exactly one
/// newline-terminated line on stderr that contains `needle`.
inline void expect_cli_error(const std::string& subcommand, const std::vector<std::string>& args,
                             const std::string& needle) {
    std::vector<std::string> full{subcommand};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult r = run_portla(full);
    EXPECT_FALSE(r.signaled) << r;
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(r.out, "") << r;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r;
    EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << r;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in stderr\n"
                                                     << r;
}

}  // namespace portla::test
