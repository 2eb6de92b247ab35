// SPDX-License-Identifier: MIT
#pragma once
/// \file npz.h
/// NumPy `.npz` reader: a ZIP archive of `.npy` members (docs/formats.md "NumPy").
///
/// What is read: the central directory (ZIP64 end record and extra fields included), local
/// headers, stored (method 0) and deflated (method 8) members, members written with a data
/// descriptor (flag bit 3: the central directory's sizes are used and the descriptor's CRC must
/// agree). A member `x.npy` is the array `x`; other members are ignored with a warning.
///
/// Decisions (also in docs/formats-readers.md):
///  * The CRC-32 of every member is verified when the archive is opened, streaming (a deflated
///    member is inflated through a small buffer and nothing is kept), so a corrupt archive is
///    refused by `info` already. Reading an array later inflates that member alone, once more.
///  * Stored members are borrowed from the mapping when little-endian and aligned, else copied.
///  * Refused, each with file and byte offset: no end-of-central-directory record, a central
///    directory or ZIP64 record cut off or with a bad signature, a local header with a bad
///    signature or a name that differs from the central directory, compressed data running past
///    the end of the file, a compression method other than stored/deflate (named), encryption,
///    multi-disk archives, a CRC mismatch, a member whose .npy header lies (npy.h rules).
///  * Bytes after an array's data inside its member are refused, accepted with a warning under
///    ReadOptions::lenient (as for .npy files).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/npy.h"

namespace quantscope {

class MappedFile;

/// One `.npy` member of an archive.
struct NpzMember {
    std::string name;       ///< array name (member name without ".npy")
    std::string memberName; ///< as stored in the archive
    int method = 0;         ///< 0 stored, 8 deflate
    bool dataDescriptor = false;
    std::uint32_t crc32 = 0;
    std::uint64_t compressedSize = 0;
    std::uint64_t uncompressedSize = 0;
    std::uint64_t localHeaderOffset = 0;
    std::uint64_t dataOffset = 0; ///< absolute offset of the member's (compressed) bytes
    NpyHeader header;             ///< offsets relative to the member's uncompressed bytes
    bool compressed() const noexcept { return method != 0; }
    /// Absolute offset of the first array byte when the member is stored, else of the
    /// compressed stream.
    std::uint64_t arrayOffset() const noexcept { return compressed() ? dataOffset : dataOffset + header.dataOffset; }
};

class NpzFile {
public:
    /// Throws IoError (cannot open/map) or FormatError (a lie), naming the file, member and
    /// byte offset.
    static NpzFile open(const std::filesystem::path &path, const ReadOptions &options = {});

    const std::filesystem::path &path() const noexcept { return m_path; }
    /// Array members in central-directory order.
    const std::vector<NpzMember> &members() const noexcept { return m_members; }
    const NpzMember *find(std::string_view name) const noexcept;
    /// The array `name`: mapped (stored, aligned, little-endian) or inflated now (deflated).
    /// Throws FormatError naming the member when absent or when its bytes lie.
    Tensor tensor(std::string_view name) const;
    const std::vector<std::string> &warnings() const noexcept { return m_warnings; }

private:
    std::filesystem::path m_path;
    std::shared_ptr<const MappedFile> m_map;
    std::vector<NpzMember> m_members;
    std::map<std::string, std::size_t, std::less<>> m_index;
    std::vector<std::string> m_warnings;
};

} // namespace quantscope
