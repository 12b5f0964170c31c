#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <streambuf>

#include "portla/error.hpp"

namespace portla::cli {
namespace {

std::string why_not(const std::string& path, const std::string& why) {
    return "cannot write '" + path + "': " + why;
}

[[noreturn]] void cannot_write(const std::string& path, int err) {
    throw BadInput(why_not(path, std::strerror(err)));
}

// An output stream buffer over a file descriptor that remembers the first write error.
class FdBuffer : public std::streambuf {
public:
    explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        const char* p = pbase();
        while (error_ == 0 && p < pptr()) {
            const ssize_t w = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) error_ = w < 0 ? errno : EIO;
            if (w > 0) p += w;
        }
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return error_ == 0;
    }

    int fd_;
    int error_ = 0;
    std::array<char, 1 << 16> buffer_;
};

// The temporary file of the write in progress, removed by a signal that ends the process
// while it exists. Only async-signal-safe calls touch it from the handler.
constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
char temp_name[PATH_MAX + 1];
volatile std::sig_atomic_t temp_exists = 0;
struct sigaction previous_action[std::size(cleanup_signals)];

extern "C" void remove_temp_file(int sig) {
    if (temp_exists) ::unlink(temp_name);
    temp_exists = 0;
    for (std::size_t i = 0; i < std::size(cleanup_signals); ++i)
        if (cleanup_signals[i] == sig) ::sigaction(sig, &previous_action[i], nullptr);
    // Delivered when the handler returns (the signal is blocked in it), to the previous action.
    ::raise(sig);
}

// Blocks the cleanup signals for its lifetime (creating and registering the file, or
// forgetting it, happen as one step for the handler).
class BlockedSignals {
public:
    BlockedSignals() {
        sigset_t set;
        sigemptyset(&set);
        for (const int sig : cleanup_signals) sigaddset(&set, sig);
        ::sigprocmask(SIG_BLOCK, &set, &old_);
    }
    ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }

private:
    sigset_t old_;
};

// A temporary file created from `pattern` (its trailing XXXXXX replaced by random characters, as
// mkstemp does, mode 0600), removed with the handler above on a signal, and on destruction unless
// kept. A signal sent to the process may be handled by any of its threads (OpenMP's, the GPU
// runtime's), which this thread's blocked mask does not cover: so the handler is installed first
// and the name registered before the file is created (O_EXCL); a signal in between unlinks a name
// that does not exist yet, and no moment leaves the file unregistered.
class TempFile {
public:
    explicit TempFile(std::string pattern) {
        if (pattern.size() > PATH_MAX) {
            errno = ENAMETOOLONG;
            return;
        }
        const BlockedSignals blocked;
        struct sigaction action {};
        action.sa_handler = remove_temp_file;
        sigemptyset(&action.sa_mask);
        for (std::size_t i = 0; i < std::size(cleanup_signals); ++i)
            ::sigaction(cleanup_signals[i], &action, &previous_action[i]);
        static constexpr char kChars[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        std::random_device random;
        const std::size_t suffix = pattern.size() - 6;  // the XXXXXX
        for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
            for (std::size_t k = suffix; k < pattern.size(); ++k)
                pattern[k] = kChars[random() % (sizeof(kChars) - 1)];
            std::memcpy(temp_name, pattern.c_str(), pattern.size() + 1);
            temp_exists = 1;
            fd_ = ::open(pattern.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd_ < 0) {
                temp_exists = 0;
                if (errno != EEXIST) break;
            }
        }
        if (fd_ < 0) {
            const int error = errno;
            for (std::size_t i = 0; i < std::size(cleanup_signals); ++i)
                ::sigaction(cleanup_signals[i], &previous_action[i], nullptr);
            errno = error;
            return;
        }
        name_ = pattern;
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        const BlockedSignals blocked;
        if (!name_.empty() && !renamed_) ::unlink(name_.c_str());
        if (!name_.empty()) {
            temp_exists = 0;
            for (std::size_t i = 0; i < std::size(cleanup_signals); ++i)
                ::sigaction(cleanup_signals[i], &previous_action[i], nullptr);
        }
    }
    int fd() const { return fd_; }
    const std::string& name() const { return name_; }
    // close(2)'s error, or 0.
    int close() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc == 0 ? 0 : errno;
    }
    void renamed() { renamed_ = true; }

private:
    int fd_ = -1;
    std::string name_;
    bool renamed_ = false;
};

// The permissions of the new file: those of the file it replaces, else 0666 less the umask.
mode_t new_file_mode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "Is a directory";
    if (S_ISBLK(mode)) return "it is a block device (refusing to write onto one)";
    if (S_ISSOCK(mode)) return "it is a socket";
    return "it is not a file, a device or a FIFO";
}

// How an output is written.
struct Target {
    enum Kind { file, stream, descriptor } kind = file;
    std::string path;  // file: the regular file to replace or create (symbolic links resolved)
    int fd = -1;       // descriptor: STDOUT_FILENO or STDERR_FILENO
};

bool same_file(const struct stat& st, int fd) {
    struct stat other {};
    return ::fstat(fd, &other) == 0 && other.st_dev == st.st_dev && other.st_ino == st.st_ino;
}

// What `path` is now, or why it cannot be written ("" in `problem` when it can). A file's
// directory must exist and be writable, unless `create_parent` (the caller makes it).
Target classify(const std::string& path, std::string& problem, bool create_parent = false) {
    Target t;
    t.path = path;
    if (path.empty()) {
        problem = "an empty file name";
        return t;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        for (const int fd : {STDOUT_FILENO, STDERR_FILENO})
            if ((S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) &&
                same_file(st, fd)) {
                t.kind = Target::descriptor;
                t.fd = fd;
                return t;
            }
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            t.kind = Target::stream;
            return t;
        }
        if (!S_ISREG(st.st_mode)) {
            problem = why_not(path, kind_of(st.st_mode));
            return t;
        }
        struct stat link {};
        if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
            char resolved[PATH_MAX];
            if (::realpath(path.c_str(), resolved) == nullptr) {
                problem = why_not(path, std::strerror(errno));
                return t;
            }
            t.path = resolved;
        }
    } else if (errno == ENOENT) {
        struct stat link {};
        if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
            problem = why_not(path, "a symbolic link to a file that does not exist");
            return t;
        }
    } else {
        problem = why_not(path, std::strerror(errno));
        return t;
    }
    const std::filesystem::path target(t.path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    if (name_max <= 0) name_max = NAME_MAX;
    if (target.filename().string().size() > static_cast<std::size_t>(name_max)) {
        problem = why_not(path, std::strerror(ENAMETOOLONG));
        return t;
    }
    if (create_parent) return t;
    // The temporary file is created in the directory, and renamed there.
    struct stat dir_st {};
    if (::stat(dir.c_str(), &dir_st) != 0)
        problem = why_not(path, std::strerror(errno));
    else if (!S_ISDIR(dir_st.st_mode))
        problem = why_not(path, std::strerror(ENOTDIR));
    else if (::access(dir.c_str(), W_OK | X_OK) != 0)
        problem = why_not(path, std::strerror(errno));
    return t;
}

// Streams `fill` into the open descriptor `fd`: every write checked. 0 or the first error.
int stream_into(int fd, const std::function<void(std::ostream&)>& fill) {
    FdBuffer buffer(fd);
    std::ostream out(&buffer);
    fill(out);
    out.flush();
    return buffer.error() != 0 ? buffer.error() : (out ? 0 : EIO);
}

void write_regular(const std::string& path, const std::string& target,
                   const std::function<void(std::ostream&)>& fill) {
    const std::filesystem::path p(target);
    const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    if (name_max <= 0) name_max = NAME_MAX;
    // "." + NAME + ".XXXXXX" within NAME_MAX: NAME cut to fit.
    const std::string name = p.filename().string();
    const std::size_t keep = static_cast<std::size_t>(std::max(1L, name_max - 8));
    TempFile tmp(dir + "/." + name.substr(0, keep) + ".XXXXXX");
    if (tmp.fd() < 0) cannot_write(path, errno);
    int err = stream_into(tmp.fd(), fill);
    if (err == 0 && ::fchmod(tmp.fd(), new_file_mode(target)) != 0) err = errno;
    if (err == 0 && ::fsync(tmp.fd()) != 0) err = errno;
    if (const int closed = tmp.close(); err == 0) err = closed;
    // What is there now must still be a regular file (or nothing): a device or FIFO put in its
    // place since the check is never replaced.
    struct stat now {};
    if (err == 0 && ::lstat(target.c_str(), &now) == 0 && !S_ISREG(now.st_mode))
        throw BadInput(why_not(path, "it is no longer a regular file"));
    if (err == 0 && std::rename(tmp.name().c_str(), target.c_str()) != 0) err = errno;
    if (err != 0) cannot_write(path, err);
    tmp.renamed();
}

// What makes two paths the same file: the device and inode when it exists, else the canonical
// path (the parent directory resolved, the file name appended).
std::string file_identity(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        return "inode:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    std::error_code ec;
    const auto canonical =
        std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    return "path:" + (ec ? path : canonical.string());
}

}  // namespace

void write_output(const std::string& path, const std::function<void(std::ostream&)>& fill) {
    std::string problem;
    const Target t = classify(path, problem);
    if (!problem.empty()) throw BadInput(problem);
    switch (t.kind) {
        case Target::descriptor: {
            // After what this process printed there: its streams are flushed first.
            std::cout.flush();
            std::cerr.flush();
            std::fflush(t.fd == STDOUT_FILENO ? stdout : stderr);
            if (const int err = stream_into(t.fd, fill); err != 0) cannot_write(path, err);
            return;
        }
        case Target::stream: {
            const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (fd < 0) cannot_write(path, errno);
            int err = 0;
            try {
                err = stream_into(fd, fill);
            } catch (...) {
                ::close(fd);
                throw;
            }
            if (::close(fd) != 0 && err == 0) err = errno;
            if (err != 0) cannot_write(path, err);
            return;
        }
        case Target::file:
            return write_regular(path, t.path, fill);
    }
}

std::string output_problem(const std::string& path, bool create_parent) {
    std::string problem;
    (void)classify(path, problem, create_parent);
    return problem;
}

CLI::Validator output_file(bool create_parent) {
    return CLI::Validator(
        [create_parent](std::string& path) { return output_problem(path, create_parent); }, "FILE");
}

void emit_json(const nlohmann::json& j, const std::string& path, int indent) {
    if (path.empty()) {
        errno = 0;
        std::cout << j.dump(indent) << std::endl;
        if (!std::cout)
            throw BadInput(std::string("cannot write the result to stdout: ") +
                           (errno != 0 ? std::strerror(errno) : "a write failed"));
        return;
    }
    write_output(path, [&](std::ostream& out) { out << j.dump(indent) << "\n"; });
}

void write_vector_output(const std::string& path, const std::vector<double>& values) {
    write_output(path, [&](std::ostream& out) {
        out << "%%MatrixMarket matrix array real general\n" << values.size() << " 1\n";
        char number[32];
        for (const double v : values) {
            std::snprintf(number, sizeof number, "%.17g\n", v);
            out << number;
        }
    });
}

void write_vector_output(const std::string& path, const std::vector<std::complex<double>>& values) {
    write_output(path, [&](std::ostream& out) {
        out << "%%MatrixMarket matrix array complex general\n" << values.size() << " 1\n";
        char number[64];
        for (const std::complex<double>& v : values) {
            std::snprintf(number, sizeof number, "%.17g %.17g\n", v.real(), v.imag());
            out << number;
        }
    });
}

std::string flush_stdout() {
    std::cout.flush();
    errno = 0;
    const int err = std::fflush(stdout) != 0 ? errno : 0;
    if (err != 0) return std::strerror(err);
    if (!std::cout || std::ferror(stdout) != 0) return "a write failed";
    return {};
}

void require_distinct_files(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const NamedPath& out = outputs[i];
        if (out.path.empty()) continue;
        const std::string id = file_identity(out.path);
        for (const NamedPath& in : inputs)
            if (!in.path.empty() && file_identity(in.path) == id)
                throw BadInput(out.option + " '" + out.path + "' is the input " + in.option + " '" +
                               in.path + "': refusing to overwrite an input");
        for (std::size_t k = 0; k < i; ++k)
            if (!outputs[k].path.empty() && file_identity(outputs[k].path) == id)
                throw BadInput(outputs[k].option + " and " + out.option + " name the same file '" +
                               out.path + "'");
    }
}

}  // namespace portla::cli
