// Running the portla binary (PORTLA_BINARY) from a test: no shell, stdout and stderr captured
// separately, exit status and signal reported, and a hang turned into a signal by an alarm.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace portla::test {

struct RunResult {
    int exit_code = -1;     ///< WEXITSTATUS, or -1 when it did not exit normally
    bool signaled = false;  ///< WIFSIGNALED
    int signal = 0;         ///< WTERMSIG when signaled
    std::string out;        ///< stdout
    std::string err;        ///< stderr
};

inline std::ostream& operator<<(std::ostream& os, const RunResult& r) {
    os << "exit " << r.exit_code;
    if (r.signaled) os << ", killed by signal " << r.signal;
    return os << "\n--- stdout ---\n" << r.out << "--- stderr ---\n" << r.err << "--------------";
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string temp_path(const std::string& stem) {
    static std::atomic<int> counter{0};
    return ::testing::TempDir() + "portla_cli_" + std::to_string(::getpid()) + "_" +
           std::to_string(counter++) + "_" + stem;
}

/// A fresh directory for one test (files in it are listed to find stray temporary files).
inline std::string fresh_dir(const std::string& stem) {
    std::string dir = temp_path(stem + ".XXXXXX");
    EXPECT_NE(::mkdtemp(dir.data()), nullptr) << dir;
    return dir;
}

/// The names in `dir` that start with '.' (left-over temporary files), "." and ".." aside.
inline std::vector<std::string> hidden_files(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != ".." && n[0] == '.') names.push_back(n);
        }
        ::closedir(d);
    }
    return names;
}

/// Runs PORTLA_BINARY with `args` (no shell involved), stdout and stderr redirected to separate
/// temporary files. The child gets an alarm so that a hang shows up as a signal, not a stuck test.
inline RunResult run_portla(const std::vector<std::string>& args, unsigned timeout_s = 20) {
    const std::string out_path = temp_path("stdout.txt");
    const std::string err_path = temp_path("stderr.txt");
    std::vector<std::string> argv_s{PORTLA_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);

    RunResult r;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ADD_FAILURE() << "fork failed: " << std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        const int fo = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int fe = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0 || ::dup2(fo, STDOUT_FILENO) < 0 || ::dup2(fe, STDERR_FILENO) < 0)
            ::_exit(126);
        ::close(fo);
        ::close(fe);
        ::alarm(timeout_s);  // survives exec: a hang ends as SIGALRM
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            ADD_FAILURE() << "waitpid failed: " << std::strerror(errno);
            return r;
        }
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    r.signaled = WIFSIGNALED(status);
    if (r.signaled) r.signal = WTERMSIG(status);
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
    return r;
}

}  // namespace portla::test
