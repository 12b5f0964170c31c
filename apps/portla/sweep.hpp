// Sweep options shared by `portla bench` and `portla tune` (defined in bench.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"

namespace portla::cli {

/// "2^10:2^30" doubles from the first to the last; "1024,4096" lists; "2^20" is one size.
/// Throws BadInput.
std::vector<std::size_t> parse_sizes(const std::string& spec);
/// "32,64,128": integers. Throws BadInput naming `what`.
std::vector<int> parse_ints(const std::string& spec, const char* what);
/// Whether a device of the backend that `backend` (a portla backend or a vendor library) runs on
/// is present; unknown names are left to the kernel/backend check.
bool backend_runs_here(const std::string& backend);
/// The CPU's model name from /proc/cpuinfo.
std::string cpu_model();
/// "2026-11-24T02:54:24Z"
std::string now_utc();
/// The commit this build came from ($PORTLA_COMMIT overrides it).
std::string build_commit();
/// " wg=256 items=4" (cuda vector kernels), " threads=2" or " threads=auto" (omp vector
/// kernels), "" otherwise.
std::string launch_text(const bench::Point& p);
/// A fit as `portla bench --json` writes it.
nlohmann::json fit_json(const bench::Fit& f);
/// Prints on stdout, per kernel, backend and n, the "default" point against the "tuned" one.
void print_comparison(const std::vector<bench::Point>& points);

}  // namespace portla::cli
