/// \file
/// Errors thrown by portla at its public boundary. Every error carries a one-line message that
/// says what was wrong and where; the CLI prints it and exits with status 1.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace portla {

/// Base class of every exception portla throws.
class Error : public std::runtime_error {
public:
    /// An error whose message (what()) is `what`.
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Invalid input: malformed file, non-finite values, a zero diagonal given to Jacobi, ...
/// For a file, `file` and `line` name the place (line 0: the file as a whole).
class BadInput : public Error {
public:
    /// Invalid input described by `what`.
    explicit BadInput(const std::string& what) : Error(what) {}
    /// Invalid input at `file`:`line`: the message is "file:line: what" ("file: what" for line 0).
    BadInput(const std::string& file, long line, const std::string& what)
        : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what),
          file_(file),
          line_(line) {}
    /// The file named at construction ("" when none).
    const std::string& file() const { return file_; }
    /// The line named at construction (0: none, or the file as a whole).
    long line() const { return line_; }

private:
    std::string file_;
    long line_ = 0;
};

/// A feature that exists in the format but that portla does not handle (e.g. complex values).
class Unsupported : public Error {
public:
    /// An unsupported feature described by `what`.
    explicit Unsupported(const std::string& what) : Error(what) {}
};

/// Operand sizes that do not fit together.
class DimensionMismatch : public Error {
public:
    /// "where: dimension mismatch (expected E, got G)".
    DimensionMismatch(const std::string& where, std::size_t expected, std::size_t got)
        : Error(where + ": dimension mismatch (expected " + std::to_string(expected) + ", got " +
                std::to_string(got) + ")") {}
};

/// A backend that was switched off at build time.
class NotCompiled : public Error {
public:
    /// "backend 'NAME' was not compiled into this build of portla".
    explicit NotCompiled(const std::string& backend)
        : Error("backend '" + backend + "' was not compiled into this build of portla"),
          backend_(backend) {}
    /// The backend's name.
    const std::string& backend() const { return backend_; }

private:
    std::string backend_;
};

/// A device-runtime failure (no GPU present, a failed launch), with the runtime's error string.
class DeviceError : public Error {
public:
    /// A device failure described by `what` (the runtime's own error string included).
    explicit DeviceError(const std::string& what) : Error(what) {}
};

/// An allocation that failed, with the number of bytes asked for.
class OutOfMemory : public Error {
public:
    /// "where: out of memory allocating BYTES bytes".
    OutOfMemory(const std::string& where, std::size_t bytes)
        : Error(where + ": out of memory allocating " + std::to_string(bytes) + " bytes"),
          bytes_(bytes) {}
    /// An estimate refused before allocating: `message` is the whole text.
    static OutOfMemory refused(const std::string& message, std::size_t bytes) {
        return OutOfMemory(message, bytes, 0);
    }
    /// The bytes that were asked for (or estimated).
    std::size_t bytes() const { return bytes_; }

private:
    OutOfMemory(const std::string& message, std::size_t bytes, int)
        : Error(message), bytes_(bytes) {}
    std::size_t bytes_;
};

}  // namespace portla
