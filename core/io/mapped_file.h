// SPDX-License-Identifier: MIT
#pragma once
/// \file mapped_file.h
/// Read-only memory mapping of a whole file (POSIX mmap). Pages are faulted in only when read.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace quantscope {

class MappedFile {
public:
    /// Throws IoError naming the file when it cannot be opened, stat'ed or mapped. An empty file
    /// gives a valid mapping of size 0.
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path &path);
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const std::byte *data() const noexcept { return m_data; }
    std::uint64_t size() const noexcept { return m_size; }
    const std::filesystem::path &path() const noexcept { return m_path; }

private:
    MappedFile() = default;
    std::filesystem::path m_path;
    const std::byte *m_data = nullptr;
    std::uint64_t m_size = 0;
};

/// Atomic file writing: write to a temp file in the target's folder (".NAME.tmp-PID-XXXXXX"),
/// fsync, rename over the target. If the object is destroyed before commit() the temp file is
/// removed; a temp file left by a writer that was killed (its PID no longer runs) is removed by
/// the next commit to the same target. docs/reliability.md "Crash-safe writes".
class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path target); ///< throws IoError
    ~AtomicFile();
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;
    void write(const void *data, std::size_t size); ///< throws IoError
    void commit();                                  ///< fsync + rename; throws IoError

private:
    std::filesystem::path m_target;
    std::filesystem::path m_temp;
    int m_fd = -1;
    bool m_committed = false;
};

} // namespace quantscope
