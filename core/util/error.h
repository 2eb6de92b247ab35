// SPDX-License-Identifier: MIT
#pragma once
/// \file error.h
/// The one error hierarchy of Quantscope. Every error carries, where they apply, the file, the
/// tensor and the byte offset it is about; what() renders them in one line for CLI and UI.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace quantscope {

/// Where an error happened. Empty fields are omitted from the message.
struct Location {
    std::string file;
    std::string tensor;
    std::optional<std::uint64_t> offset;
};

/// Base of all Quantscope errors. `message()` is the bare reason; `what()` adds the location.
class Error : public std::runtime_error {
public:
    explicit Error(std::string message, Location where = {});
    const Location &where() const noexcept { return m_where; }
    const std::string &message() const noexcept { return m_message; }

private:
    Location m_where;
    std::string m_message;
};

/// Reading or writing a file failed at the OS level (open, mmap, write, rename…).
class IoError : public Error {
public:
    using Error::Error;
};
/// The bytes do not follow the format they claim (header lies, bad shapes, bad offsets…).
class FormatError : public Error {
public:
    using Error::Error;
};
/// Valid input that Quantscope does not handle (a dtype it cannot decode, an option it refuses).
class UnsupportedError : public Error {
public:
    using Error::Error;
};
/// A GPU call failed (out of memory, launch failure, no device).
class GpuError : public Error {
public:
    using Error::Error;
};
/// A job was cancelled through its CancelToken.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

/// Renders "file: tensor 'name': byte N: message" with the parts that are set.
std::string formatLocation(const Location &where, const std::string &message);

} // namespace quantscope
