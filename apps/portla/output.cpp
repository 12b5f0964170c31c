#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>

#include "portla/error.hpp"

namespace portla::cli {
namespace {

[[noreturn]] void cannot_write(const std::string& path, int err) {
    throw BadInput("cannot write '" + path + "': " + std::strerror(err));
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

// The permissions of the new file: those of the file it replaces, else 0666 less the umask.
mode_t new_file_mode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
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

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& fill) {
    const std::filesystem::path target(path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    std::string tmp = dir + "/." + target.filename().string() + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) cannot_write(path, errno);
    int err = 0;
    try {
        FdBuffer buffer(fd);
        std::ostream out(&buffer);
        fill(out);
        out.flush();
        err = buffer.error() != 0 ? buffer.error() : (out ? 0 : EIO);
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (err == 0 && ::fchmod(fd, new_file_mode(path)) != 0) err = errno;
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        cannot_write(path, err);
    }
}

void emit_json(const nlohmann::json& j, const std::string& path, int indent) {
    if (path.empty()) {
        std::cout << j.dump(indent) << std::endl;
        return;
    }
    write_file_atomically(path, [&](std::ostream& out) { out << j.dump(indent) << "\n"; });
}

void write_vector_atomically(const std::string& path, const std::vector<double>& values) {
    write_file_atomically(path, [&](std::ostream& out) {
        out << "%%MatrixMarket matrix array real general\n" << values.size() << " 1\n";
        char number[32];
        for (const double v : values) {
            std::snprintf(number, sizeof number, "%.17g\n", v);
            out << number;
        }
    });
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
