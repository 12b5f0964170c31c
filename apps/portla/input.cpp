#include "input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "portla/io/matrix_market.hpp"

namespace portla::cli {
namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

// "" when stat succeeds on `path` (filling `st`), else why not; `kind` is "file" or "directory".
std::string stat_problem(const std::string& path, struct stat& st, const char* kind) {
    if (::stat(path.c_str(), &st) == 0) return {};
    return errno == ENOENT ? path + ": no such " + kind
                           : "cannot read '" + path + "': " + std::strerror(errno);
}

// "" when `path` is a regular file, else why not.
std::string regular_file_problem(const std::string& path) {
    struct stat st {};
    const std::string problem = stat_problem(path, st, "file");
    if (!problem.empty()) return problem;
    if (!S_ISREG(st.st_mode))
        return "'" + path + "' is not a regular file (it is " + kind_of(st.st_mode) + ")";
    return {};
}

bool all_digits(const std::string& s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

}  // namespace

void require_regular_file(const std::string& path) {
    const std::string problem = regular_file_problem(path);
    if (!problem.empty()) throw BadInput(problem);
}

CLI::Validator regular_file() {
    return CLI::Validator([](std::string& path) { return regular_file_problem(path); }, "FILE");
}

CLI::Validator batch_directory() {
    return CLI::Validator(
        [](std::string& dir) -> std::string {
            struct stat st {};
            const std::string problem = stat_problem(dir, st, "directory");
            if (!problem.empty()) return problem;
            if (!S_ISDIR(st.st_mode))
                return "'" + dir + "' is not a directory (it is " + kind_of(st.st_mode) + ")";
            std::error_code ec;
            for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
                if (!all_digits(entry.path().filename().string())) continue;
                for (const char* name : {"A.mtx", "b.mtx"}) {
                    const std::string file = (entry.path() / name).string();
                    struct stat fs {};
                    if (::stat(file.c_str(), &fs) == 0 && !S_ISREG(fs.st_mode))
                        return regular_file_problem(file);
                }
            }
            return {};
        },
        "DIR");
}

std::vector<std::string> batch_input_files(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (!all_digits(entry.path().filename().string())) continue;
        std::error_code inner;
        for (const auto& file : std::filesystem::directory_iterator(entry.path(), inner))
            files.push_back(file.path().string());
    }
    return files;
}

DeclaredSize read_declared_size(const std::string& path) {
    require_regular_file(path);
    const io::MatrixMarketHeader h = io::read_matrix_market_header(path);
    DeclaredSize size;
    size.rows = static_cast<double>(h.rows);
    size.cols = static_cast<double>(h.cols);
    size.entries =
        h.array ? size.rows * size.cols : static_cast<double>(h.entries) * (h.symmetric ? 2 : 1);
    size.symmetric = h.symmetric && !h.skew;
    return size;
}

}  // namespace portla::cli
