// SPDX-License-Identifier: MIT
#pragma once
/// \file safetensors.h
/// safetensors reader (strict by default, lenient on request; memory-mapped and lazy) and an
/// atomic writer. Rules: docs/formats.md "safetensors".
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/tensor_entry.h"
#include "util/error.h"
#include "tensor/tensor.h"

namespace quantscope {

class MappedFile;

/// Options of every reader.
struct ReadOptions {
    /// Accept gaps between tensors and trailing bytes after the last one (overlaps and
    /// out-of-range spans are always refused).
    bool lenient = false;
    /// Largest accepted JSON header, in bytes.
    std::uint64_t maxHeaderBytes = 100'000'000;
};

/// The header is larger than ReadOptions::maxHeaderBytes: each front end says how to raise
/// the limit in its own terms (the CLI names its flag), so the message names no option.
class HeaderTooLargeError : public FormatError {
public:
    using FormatError::FormatError;
};

/// An opened safetensors file. Opening validates the header and maps the file; tensor data is
/// only touched when a tensor's elements are read.
class SafetensorsFile {
public:
    /// Throws IoError (cannot open/map) or FormatError (a rule of docs/formats.md broken), each
    /// naming the file, the tensor where there is one, the byte offset and the rule.
    static SafetensorsFile open(const std::filesystem::path &path, const ReadOptions &options = {});

    const std::filesystem::path &path() const noexcept { return m_path; }
    /// Entries in header order (the order of the keys in the JSON).
    const std::vector<TensorEntry> &entries() const noexcept { return m_entries; }
    const TensorEntry *find(std::string_view name) const noexcept;
    /// A borrowed view into the mapping (no copy). Throws FormatError naming the tensor when
    /// absent.
    Tensor tensor(std::string_view name) const;
    Tensor tensor(const TensorEntry &entry) const;
    const std::map<std::string, std::string> &metadata() const noexcept { return m_metadata; }
    /// 8 + N: absolute offset of the byte buffer.
    std::uint64_t dataStart() const noexcept { return m_dataStart; }
    std::uint64_t fileSize() const noexcept;
    /// Lenient mode only: human-readable notes on the gaps/trailing bytes that were accepted.
    const std::vector<std::string> &warnings() const noexcept { return m_warnings; }

private:
    std::filesystem::path m_path;
    std::shared_ptr<const MappedFile> m_map;
    std::vector<TensorEntry> m_entries;
    std::map<std::string, std::size_t> m_index;
    std::map<std::string, std::string> m_metadata;
    std::vector<std::string> m_warnings;
    std::uint64_t m_dataStart = 0;
};

/// Writes a safetensors file atomically (temp file in the target folder, fsync, rename): header
/// padded with spaces to a multiple of 8, tensors contiguous in the given order, `__metadata__`
/// string → string. Tensors are written in logical row-major order (strided views are packed).
/// Throws IoError naming the path; on any failure the target is untouched and no temp is left.
void writeSafetensors(const std::filesystem::path &path, const std::vector<std::pair<std::string, Tensor>> &tensors,
                      const std::map<std::string, std::string> &metadata = {});

} // namespace quantscope
