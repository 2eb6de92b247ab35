// SPDX-License-Identifier: MIT
// .npz reader: ZIP (APPNOTE 6.3.x: EOCD, ZIP64 EOCD + locator, central directory, local headers,
// data descriptors) with stored and deflated members. Decisions are listed in npz.h.
#include "io/npz.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include <zlib.h>

#include "io/mapped_file.h"
#include "util/error.h"
#include "util/memory.h"

namespace quantscope {

namespace {

constexpr std::uint32_t kSigLocal = 0x04034b50;
constexpr std::uint32_t kSigCentral = 0x02014b50;
constexpr std::uint32_t kSigEocd = 0x06054b50;
constexpr std::uint32_t kSigZip64Eocd = 0x06064b50;
constexpr std::uint32_t kSigZip64Locator = 0x07064b50;
constexpr std::uint32_t kSigDescriptor = 0x08074b50;

std::uint64_t rdLe(const std::byte *p, int n)
{
    std::uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = (v << 8) | static_cast<std::uint64_t>(p[i]);
    return v;
}

std::string methodName(int m)
{
    switch (m) {
    case 1:
        return "shrink";
    case 6:
        return "implode";
    case 9:
        return "deflate64";
    case 12:
        return "bzip2";
    case 14:
        return "LZMA";
    case 93:
        return "Zstandard";
    case 95:
        return "XZ";
    case 98:
        return "PPMd";
    default:
        return "method " + std::to_string(m);
    }
}

/// Deflate's largest expansion (maximal-length matches: 258 bytes from about 2 bits).
constexpr std::uint64_t kMaxDeflateRatio = 1032;

/// Streams a raw deflate stream of `csize` bytes through zlib. `sink(data, n)` gets every output
/// chunk; it returns false to stop early (then the function returns the bytes produced so far).
/// Throws FormatError for a corrupt stream; `complete` tells whether the stream ended.
template <typename Sink>
std::uint64_t inflateStream(const std::byte *src, std::uint64_t csize, Sink &&sink, bool &complete,
                            const Location &where)
{
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
        throw FormatError("zlib cannot start inflating", where);
    struct Guard {
        z_stream *z;
        ~Guard() { inflateEnd(z); }
    } guard{&zs};
    unsigned char out[1 << 16];
    std::uint64_t consumed = 0, produced = 0;
    complete = false;
    while (true) {
        if (zs.avail_in == 0 && consumed < csize) {
            const std::uint64_t chunk = std::min<std::uint64_t>(csize - consumed, 1u << 30);
            zs.next_in = reinterpret_cast<Bytef *>(const_cast<std::byte *>(src + consumed));
            zs.avail_in = static_cast<uInt>(chunk);
            consumed += chunk;
        }
        zs.next_out = out;
        zs.avail_out = sizeof out;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        const std::size_t n = sizeof out - zs.avail_out;
        produced += n;
        if (n > 0 && !sink(reinterpret_cast<const std::byte *>(out), n))
            return produced;
        if (rc == Z_STREAM_END) {
            complete = true;
            return produced;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && consumed >= csize)
            return produced; // input exhausted before the end of the stream
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw FormatError(std::string("the deflate stream is corrupt (zlib: ") +
                                  (zs.msg ? zs.msg : "error " + std::to_string(rc)) + ")",
                              where);
    }
}

} // namespace

NpzFile NpzFile::open(const std::filesystem::path &path, const ReadOptions &options)
{
    NpzFile z;
    z.m_path = path;
    z.m_map = MappedFile::open(path);
    const std::byte *base = z.m_map->data();
    const std::uint64_t size = z.m_map->size();
    const std::string file = path.string();
    auto fail = [&](std::uint64_t at, const std::string &msg, const std::string &member = {}) {
        throw FormatError(msg, Location{file, member, at});
    };

    // ---- end of central directory (the last one whose comment reaches the end of the file) ----
    if (size < 22)
        fail(0, "not a ZIP archive: " + std::to_string(size) + " bytes cannot hold an end-of-central-directory record");
    std::uint64_t eocd = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t lowest = size >= 22 + 65535 ? size - 22 - 65535 : 0;
    for (std::uint64_t i = size - 22 + 1; i-- > lowest;) {
        if (rdLe(base + i, 4) == kSigEocd && i + 22 + rdLe(base + i + 20, 2) == size) {
            eocd = i;
            break;
        }
    }
    if (eocd == std::numeric_limits<std::uint64_t>::max())
        fail(size, "not a ZIP archive: no end-of-central-directory record (signature PK\\5\\6) "
                   "in the last 64 KiB");
    std::uint64_t disk = rdLe(base + eocd + 4, 2), cdDisk = rdLe(base + eocd + 6, 2);
    std::uint64_t entries = rdLe(base + eocd + 10, 2);
    std::uint64_t cdSize = rdLe(base + eocd + 12, 4), cdOffset = rdLe(base + eocd + 16, 4);
    // ZIP64: a locator right before the EOCD points at the ZIP64 end record.
    if (eocd >= 20 && rdLe(base + eocd - 20, 4) == kSigZip64Locator) {
        const std::uint64_t loc = eocd - 20;
        const std::uint64_t z64 = rdLe(base + loc + 8, 8);
        if (rdLe(base + loc + 16, 4) > 1)
            fail(loc, "multi-disk ZIP archives are not supported");
        if (z64 > loc || loc - z64 < 56)
            fail(loc + 8, "the ZIP64 end record offset " + std::to_string(z64) +
                              " does not leave room for the record before its locator");
        if (rdLe(base + z64, 4) != kSigZip64Eocd)
            fail(z64, "bad signature of the ZIP64 end-of-central-directory record");
        disk = rdLe(base + z64 + 16, 4);
        cdDisk = rdLe(base + z64 + 20, 4);
        entries = rdLe(base + z64 + 32, 8);
        cdSize = rdLe(base + z64 + 40, 8);
        cdOffset = rdLe(base + z64 + 48, 8);
        if (cdOffset > z64 || cdSize > z64 - cdOffset)
            fail(z64 + 48, "the central directory (offset " + std::to_string(cdOffset) + ", " + std::to_string(cdSize) +
                               " bytes) runs past the ZIP64 end record");
    } else if (cdOffset > eocd || cdSize > eocd - cdOffset) {
        fail(eocd + 16, "the central directory (offset " + std::to_string(cdOffset) + ", " + std::to_string(cdSize) +
                            " bytes) runs past the end record at byte " + std::to_string(eocd) +
                            " (truncated archive?)");
    }
    if (disk != 0 || cdDisk != 0)
        fail(eocd + 4, "multi-disk ZIP archives are not supported");

    // ---- central directory ----
    const std::uint64_t cdEnd = cdOffset + cdSize;
    std::uint64_t p = cdOffset;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (cdEnd - p < 46)
            fail(p, "the central directory is cut off: entry " + std::to_string(e) + " of " + std::to_string(entries) +
                        " does not fit");
        if (rdLe(base + p, 4) != kSigCentral)
            fail(p, "bad signature of central directory entry " + std::to_string(e));
        NpzMember m;
        const auto flags = static_cast<unsigned>(rdLe(base + p + 8, 2));
        m.method = static_cast<int>(rdLe(base + p + 10, 2));
        m.crc32 = static_cast<std::uint32_t>(rdLe(base + p + 16, 4));
        m.compressedSize = rdLe(base + p + 20, 4);
        m.uncompressedSize = rdLe(base + p + 24, 4);
        const std::uint64_t nameLen = rdLe(base + p + 28, 2), extraLen = rdLe(base + p + 30, 2),
                            commentLen = rdLe(base + p + 32, 2);
        std::uint64_t diskStart = rdLe(base + p + 34, 2);
        m.localHeaderOffset = rdLe(base + p + 42, 4);
        if (cdEnd - p - 46 < nameLen + extraLen + commentLen)
            fail(p, "the central directory is cut off inside entry " + std::to_string(e));
        m.memberName.assign(reinterpret_cast<const char *>(base + p + 46), nameLen);
        // ZIP64 extended information: only the fields whose 32/16-bit value is saturated.
        for (std::uint64_t x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
            const std::uint64_t id = rdLe(base + x, 2), len = rdLe(base + x + 2, 2);
            if (x + 4 + len > p + 46 + nameLen + extraLen)
                fail(x, "an extra field runs past its entry", m.memberName);
            if (id == 0x0001) {
                std::uint64_t q = x + 4;
                auto take = [&](std::uint64_t &field, int n) {
                    if (q + static_cast<std::uint64_t>(n) > x + 4 + len)
                        fail(x, "the ZIP64 extra field is too short for the saturated sizes", m.memberName);
                    field = rdLe(base + q, n);
                    q += static_cast<std::uint64_t>(n);
                };
                if (m.uncompressedSize == 0xFFFFFFFFu)
                    take(m.uncompressedSize, 8);
                if (m.compressedSize == 0xFFFFFFFFu)
                    take(m.compressedSize, 8);
                if (m.localHeaderOffset == 0xFFFFFFFFu)
                    take(m.localHeaderOffset, 8);
                if (diskStart == 0xFFFF)
                    take(diskStart, 4);
            }
            x += 4 + len;
        }
        const std::uint64_t entryAt = p;
        p += 46 + nameLen + extraLen + commentLen;

        if (!m.memberName.empty() && m.memberName.back() == '/')
            continue; // a folder entry
        if (diskStart != 0)
            fail(entryAt, "multi-disk ZIP archives are not supported", m.memberName);
        if (flags & 0x1u)
            fail(entryAt, "encrypted members are not supported", m.memberName);
        if (m.method != 0 && m.method != 8)
            fail(entryAt, "unsupported compression " + methodName(m.method) + " (stored and deflate are read)",
                 m.memberName);
        m.dataDescriptor = (flags & 0x8u) != 0;

        // ---- local header ----
        const std::uint64_t lh = m.localHeaderOffset;
        if (lh > size || size - lh < 30)
            fail(entryAt + 42, "the local header offset " + std::to_string(lh) + " lies past the end of the file",
                 m.memberName);
        if (rdLe(base + lh, 4) != kSigLocal)
            fail(lh, "bad signature of the local header", m.memberName);
        const std::uint64_t lNameLen = rdLe(base + lh + 26, 2), lExtraLen = rdLe(base + lh + 28, 2);
        if (size - lh - 30 < lNameLen + lExtraLen)
            fail(lh, "the local header runs past the end of the file", m.memberName);
        if (std::string_view(reinterpret_cast<const char *>(base + lh + 30), lNameLen) != m.memberName)
            fail(lh + 30, "the local header names a different member than the central directory", m.memberName);
        if (static_cast<int>(rdLe(base + lh + 8, 2)) != m.method)
            fail(lh + 8, "the local header's compression method differs from the central directory's", m.memberName);
        m.dataOffset = lh + 30 + lNameLen + lExtraLen;
        if (m.compressedSize > size - m.dataOffset)
            fail(m.dataOffset,
                 "the compressed size " + std::to_string(m.compressedSize) + " runs past the end of the file (" +
                     std::to_string(size - m.dataOffset) + " bytes follow)",
                 m.memberName);
        if (m.method == 0 && m.compressedSize != m.uncompressedSize)
            fail(entryAt + 20,
                 "a stored member's compressed size " + std::to_string(m.compressedSize) + " differs from its size " +
                     std::to_string(m.uncompressedSize),
                 m.memberName);
        if (m.dataDescriptor) {
            std::uint64_t d = m.dataOffset + m.compressedSize;
            if (size - d >= 4 && rdLe(base + d, 4) == kSigDescriptor)
                d += 4;
            if (size - d < 4)
                fail(d, "the data descriptor is cut off by the end of the file", m.memberName);
            if (rdLe(base + d, 4) != m.crc32)
                fail(d, "the data descriptor's CRC-32 differs from the central directory's", m.memberName);
        }

        // ---- CRC-32 of the member's bytes (streaming) ----
        const Location where{file, m.memberName, m.dataOffset};
        const std::byte *src = base + m.dataOffset;
        uLong crc = crc32(0L, Z_NULL, 0);
        std::uint64_t produced = m.compressedSize;
        if (m.method == 0) {
            for (std::uint64_t off = 0; off < m.compressedSize;) {
                const std::uint64_t n = std::min<std::uint64_t>(m.compressedSize - off, 1u << 30);
                crc = crc32(crc, reinterpret_cast<const Bytef *>(src + off), static_cast<uInt>(n));
                off += n;
            }
        } else {
            // A bomb is refused before or while it inflates, never after: deflate cannot expand
            // more than 1032:1, so a larger stated size is a lie, and the stream is stopped as soon
            // as it passes the stated size (docs/reliability.md "Resource limits").
            if (m.uncompressedSize / kMaxDeflateRatio > m.compressedSize + 1)
                fail(m.dataOffset,
                     "the member states " + std::to_string(m.uncompressedSize) + " bytes from " +
                         std::to_string(m.compressedSize) +
                         " compressed ones, more than deflate's largest ratio (1032:1)",
                     m.memberName);
            bool complete = false;
            std::uint64_t seen = 0;
            produced = inflateStream(
                src, m.compressedSize,
                [&](const std::byte *d, std::size_t n) {
                    seen += n;
                    if (seen > m.uncompressedSize)
                        fail(m.dataOffset,
                             "the member inflates past its stated size of " + std::to_string(m.uncompressedSize) +
                                 " bytes",
                             m.memberName);
                    crc = crc32(crc, reinterpret_cast<const Bytef *>(d), static_cast<uInt>(n));
                    return true;
                },
                complete, where);
            if (!complete)
                fail(m.dataOffset, "the deflate stream ends before its end marker (truncated member)", m.memberName);
            if (produced != m.uncompressedSize)
                fail(m.dataOffset,
                     "the member inflates to " + std::to_string(produced) + " bytes, the directory says " +
                         std::to_string(m.uncompressedSize),
                     m.memberName);
        }
        if (static_cast<std::uint32_t>(crc) != m.crc32) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "CRC-32 mismatch: computed %08x, stored %08x", static_cast<unsigned>(crc),
                          static_cast<unsigned>(m.crc32));
            fail(m.dataOffset, buf, m.memberName);
        }

        // ---- the .npy header of the member ----
        const std::string_view nm(m.memberName);
        if (nm.size() <= 4 || nm.substr(nm.size() - 4) != ".npy") {
            z.m_warnings.push_back(
                formatLocation(Location{file, m.memberName, lh}, "member is not an .npy array; ignored"));
            continue;
        }
        m.name = m.memberName.substr(0, m.memberName.size() - 4);
        if (m.method == 0) {
            m.header = parseNpyHeader(src, m.uncompressedSize, file, m.dataOffset, m.name);
        } else {
            // Inflate only as far as the header reaches (≤ 12 + 4 GiB, in practice < 1 KiB).
            std::vector<std::byte> head;
            std::uint64_t want = 12;
            bool complete = false;
            auto grab = [&](std::uint64_t upTo) {
                head.clear();
                inflateStream(
                    src, m.compressedSize,
                    [&](const std::byte *d, std::size_t n) {
                        head.insert(head.end(), d, d + n);
                        return head.size() < upTo;
                    },
                    complete, where);
            };
            grab(want);
            if (head.size() >= 12 && std::memcmp(head.data() + 1, "NUMPY", 5) == 0) {
                const auto major = static_cast<int>(head[6]);
                const std::uint64_t hl = major == 1 ? rdLe(head.data() + 8, 2) : rdLe(head.data() + 8, 4);
                want = (major == 1 ? 10 : 12) + hl;
                if (head.size() < want)
                    grab(want);
            }
            m.header = parseNpyHeader(head.data(), std::min<std::uint64_t>(head.size(), m.uncompressedSize), file,
                                      m.dataOffset, m.name, /*headerOnly=*/true);
            if (m.header.dataBytes > m.uncompressedSize - std::min(m.header.dataOffset, m.uncompressedSize))
                fail(m.dataOffset,
                     "the member's data is shorter than its header says: shape " + shapeToString(m.header.shape) +
                         " of '" + m.header.descr + "' needs " + std::to_string(m.header.dataBytes) +
                         " bytes after the header, the member holds " + std::to_string(m.uncompressedSize),
                     m.name);
        }
        const std::uint64_t end = m.header.dataOffset + m.header.dataBytes;
        if (end != m.uncompressedSize) {
            const std::string msg =
                std::to_string(m.uncompressedSize - end) + " trailing bytes after the array data inside the member";
            if (!options.lenient)
                fail(m.dataOffset, msg + "; --lenient accepts them", m.name);
            z.m_warnings.push_back(formatLocation(Location{file, m.name, m.dataOffset}, msg + " (ignored)"));
        }
        if (z.m_index.count(m.name))
            fail(entryAt, "two members hold the array '" + m.name + "'", m.name);
        z.m_index.emplace(m.name, z.m_members.size());
        z.m_members.push_back(std::move(m));
    }
    if (p != cdEnd)
        z.m_warnings.push_back(formatLocation(Location{file, {}, p}, "the central directory holds " +
                                                                         std::to_string(cdEnd - p) +
                                                                         " bytes after its last entry (ignored)"));
    return z;
}

const NpzMember *NpzFile::find(std::string_view name) const noexcept
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_members[it->second];
}

Tensor NpzFile::tensor(std::string_view name) const
{
    const NpzMember *m = find(name);
    if (!m)
        throw FormatError("no array of this name in the archive", Location{m_path.string(), std::string(name), {}});
    const std::byte *src = m_map->data() + m->dataOffset;
    if (m->method == 0)
        return npyTensor(m->header, src, m_map);
    // Inflate this member alone; the tensor owns the buffer (refused first when it cannot fit).
    checkAllocation(m->uncompressedSize, Location{m_path.string(), m->name, m->dataOffset},
                    "inflating array '" + m->name + "'");
    auto buf = std::make_shared<std::vector<std::byte>>();
    buf->reserve(static_cast<std::size_t>(m->uncompressedSize));
    bool complete = false;
    uLong crc = crc32(0L, Z_NULL, 0);
    const Location where{m_path.string(), m->name, m->dataOffset};
    inflateStream(
        src, m->compressedSize,
        [&](const std::byte *d, std::size_t n) {
            if (buf->size() + n > m->uncompressedSize)
                throw FormatError("the member inflates past its stated size", where);
            buf->insert(buf->end(), d, d + n);
            crc = crc32(crc, reinterpret_cast<const Bytef *>(d), static_cast<uInt>(n));
            return true;
        },
        complete, where);
    if (!complete || buf->size() != m->uncompressedSize || static_cast<std::uint32_t>(crc) != m->crc32)
        throw FormatError("the member changed since the archive was opened (size or CRC-32)", where);
    const std::byte *data = buf->data();
    return npyTensor(m->header, data, std::move(buf));
}

} // namespace quantscope
