#include "portla/error.hpp"
#include "subcommands.hpp"
namespace portla::cli {
Runner add_portability(CLI::App&) { return [] { throw Error("portability: being written"); return 1; }; }
}  // namespace portla::cli
