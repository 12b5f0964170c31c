#include "portla/error.hpp"
#include "subcommands.hpp"
namespace portla::cli {
Runner add_bench(CLI::App&) { return [] { throw Error("bench: being written"); return 1; }; }
}  // namespace portla::cli
