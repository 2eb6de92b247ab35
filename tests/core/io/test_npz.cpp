// SPDX-License-Identifier: MIT
// .npz reader: archives written by NumPy (stored, deflated with ZIP64 extras, data descriptors)
// and archives built here byte by byte (ZIP64 end records, aligned stored members) with every
// lie a ZIP can tell, each refused naming the file, member and byte offset.
#include "io/checkpoint.h"
#include "io/npz.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <gtest/gtest.h>
#include <vector>
#include <zlib.h>

using namespace quantscope;
using namespace quantscope::test;

namespace {

fs::path data(const std::string &name)
{
    return fs::path(QUANTSCOPE_TEST_DATA) / "npy" / name;
}

std::vector<double> values(const Tensor &t)
{
    std::vector<double> v;
    for (std::int64_t i = 0; i < t.numel(); ++i)
        v.push_back(t.at(i));
    return v;
}

std::vector<double> a34()
{
    std::vector<double> v;
    for (int i = 0; i < 12; ++i)
        v.push_back(0.5 * i - 2.0);
    return v;
}

std::string le(std::uint64_t v, int n)
{
    std::string s;
    for (int i = 0; i < n; ++i)
        s += static_cast<char>((v >> (8 * i)) & 0xFF);
    return s;
}

/// A v1 .npy of float32 values [n] (header padded to 64 bytes).
std::string npyF32(const std::vector<float> &v)
{
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(v.size()) + ",), }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::string s = "\x93NUMPY\x01";
    s += '\0';
    s += le(dict.size(), 2) + dict;
    s.append(reinterpret_cast<const char *>(v.data()), v.size() * 4);
    return s;
}

std::string rawDeflate(const std::string &in)
{
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, in.size()) + 16, '\0');
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

/// Builds ZIP archives member by member; knobs for ZIP64, descriptors and alignment padding.
struct ZipBuilder {
    struct Member {
        std::string name, data;
        int method = 0;
        bool descriptor = false;
        std::size_t align = 0; // pad the local extra field so the data starts at a multiple
    };
    std::vector<Member> members;
    bool zip64 = false;

    struct Built {
        std::string bytes;
        std::vector<std::uint64_t> dataOffsets, centralOffsets;
        std::uint64_t cdOffset = 0, eocdOffset = 0;
    };

    Built build() const
    {
        Built b;
        std::string central;
        for (const Member &m : members) {
            const std::string comp = m.method == 8 ? rawDeflate(m.data) : m.data;
            const auto crc = static_cast<std::uint32_t>(
                crc32(0, reinterpret_cast<const Bytef *>(m.data.data()), static_cast<uInt>(m.data.size())));
            const std::uint64_t lh = b.bytes.size();
            const unsigned flags = m.descriptor ? 8u : 0u;
            std::string extra;
            if (m.align) {
                const std::size_t base = lh + 30 + m.name.size() + 4;
                const std::size_t pad = (m.align - base % m.align) % m.align;
                extra = le(0xCAFE, 2) + le(pad, 2) + std::string(pad, '\0');
            }
            std::string local = le(0x04034b50, 4) + le(20, 2) + le(flags, 2) + le(m.method, 2) + le(0, 4) +
                                le(m.descriptor ? 0 : crc, 4) + le(m.descriptor ? 0 : comp.size(), 4) +
                                le(m.descriptor ? 0 : m.data.size(), 4) + le(m.name.size(), 2) + le(extra.size(), 2) +
                                m.name + extra;
            b.bytes += local;
            b.dataOffsets.push_back(b.bytes.size());
            b.bytes += comp;
            if (m.descriptor)
                b.bytes += le(0x08074b50, 4) + le(crc, 4) + le(comp.size(), 4) + le(m.data.size(), 4);
            // Central entry; with zip64 the sizes and offset go to the extra field.
            std::string cextra;
            if (zip64)
                cextra = le(0x0001, 2) + le(24, 2) + le(m.data.size(), 8) + le(comp.size(), 8) + le(lh, 8);
            b.centralOffsets.push_back(central.size());
            central += le(0x02014b50, 4) + le(45, 2) + le(45, 2) + le(flags, 2) + le(m.method, 2) + le(0, 4) +
                       le(crc, 4) + le(zip64 ? 0xFFFFFFFF : comp.size(), 4) +
                       le(zip64 ? 0xFFFFFFFF : m.data.size(), 4) + le(m.name.size(), 2) + le(cextra.size(), 2) +
                       le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(zip64 ? 0xFFFFFFFF : lh, 4) + m.name + cextra;
        }
        b.cdOffset = b.bytes.size();
        for (auto &o : b.centralOffsets)
            o += b.cdOffset;
        b.bytes += central;
        const std::uint64_t n = members.size();
        if (zip64) {
            const std::uint64_t z64 = b.bytes.size();
            b.bytes += le(0x06064b50, 4) + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + le(n, 8) +
                       le(n, 8) + le(central.size(), 8) + le(b.cdOffset, 8);
            b.bytes += le(0x07064b50, 4) + le(0, 4) + le(z64, 8) + le(1, 4);
        }
        b.eocdOffset = b.bytes.size();
        b.bytes += le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(zip64 ? 0xFFFF : n, 2) + le(zip64 ? 0xFFFF : n, 2) +
                   le(zip64 ? 0xFFFFFFFF : central.size(), 4) + le(zip64 ? 0xFFFFFFFF : b.cdOffset, 4) + le(0, 2);
        return b;
    }
};

FormatError openFails(const fs::path &p, const ReadOptions &o = {})
{
    try {
        NpzFile::open(p, o);
    } catch (const FormatError &e) {
        return e;
    }
    throw std::runtime_error("expected a FormatError opening " + p.string());
}

bool borrowed(Tensor t)
{
    try {
        t.mutableData();
        return false;
    } catch (const UnsupportedError &) {
        return true;
    }
}

class Npz : public ::testing::Test {
protected:
    ScratchDir dir;
    const std::string x = npyF32({1.0f, -2.0f, 3.5f});
    const std::string y = npyF32({0.25f, 8.0f});
};

} // namespace

TEST(NpzNumpyFiles, StoredDeflatedAndDescriptorArchivesFromNumpy)
{
    for (const char *f : {"stored.npz", "deflated.npz", "descriptor.npz"}) {
        SCOPED_TRACE(f);
        const NpzFile z = NpzFile::open(data(f));
        ASSERT_NE(z.find("a"), nullptr);
        ASSERT_NE(z.find("t"), nullptr);
        EXPECT_EQ(z.find("a")->memberName, "a.npy");
        EXPECT_EQ(z.find("a")->compressed(), std::string(f) != "stored.npz");
        EXPECT_EQ(values(z.tensor("a")), a34());
        const Tensor t = z.tensor("t");
        EXPECT_EQ(t.shape(), (Shape{2, 3, 4}));
        for (int i = 0; i < 24; ++i)
            EXPECT_EQ(t.at(i), i - 12.0);
        EXPECT_TRUE(z.warnings().empty());
    }
    EXPECT_TRUE(NpzFile::open(data("descriptor.npz")).find("a")->dataDescriptor);
    EXPECT_EQ(values(NpzFile::open(data("deflated.npz")).tensor("b")), (std::vector<double>{-2, -1, 0, 1, 2}));
}

TEST(NpzNumpyFiles, CheckpointListsTheArraysWithTheirOffsets)
{
    const Checkpoint ck = Checkpoint::open(data("stored.npz"));
    ASSERT_EQ(ck.entries().size(), 2u);
    EXPECT_EQ(ck.entries()[0].name, "a");
    EXPECT_EQ(ck.entries()[0].file, data("stored.npz"));
    // Stored: the offset is that of the first array byte in the archive.
    const std::string bytes = readBytes(data("stored.npz"));
    float first;
    std::memcpy(&first, bytes.data() + ck.entries()[0].fileOffset, 4);
    EXPECT_EQ(first, -2.0f);
    EXPECT_EQ(values(ck.tensor("a")), a34());
    EXPECT_NE(ck.npz(), nullptr);
}

TEST_F(Npz, AlignedStoredMembersAreMappedOthersCopied)
{
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 0, false, 64}, {"y.npy", y, 0, false, 0}};
    const auto built = zb.build();
    const auto p = dir / "a.npz";
    writeBytes(p, built.bytes);
    const NpzFile z = NpzFile::open(p);
    EXPECT_EQ(z.find("x")->arrayOffset() % 4, 0u);
    EXPECT_TRUE(borrowed(z.tensor("x")));
    EXPECT_EQ(values(z.tensor("x")), (std::vector<double>{1.0, -2.0, 3.5}));
    EXPECT_EQ(values(z.tensor("y")), (std::vector<double>{0.25, 8.0}));
}

TEST_F(Npz, Zip64EndRecordAndExtraFieldsAreRead)
{
    ZipBuilder zb;
    zb.zip64 = true;
    zb.members = {{"x.npy", x, 8, false, 0}, {"y.npy", y, 0, true, 0}};
    const auto p = dir / "z.npz";
    writeBytes(p, zb.build().bytes);
    const NpzFile z = NpzFile::open(p);
    EXPECT_EQ(values(z.tensor("x")), (std::vector<double>{1.0, -2.0, 3.5}));
    EXPECT_EQ(values(z.tensor("y")), (std::vector<double>{0.25, 8.0}));
    EXPECT_TRUE(z.find("y")->dataDescriptor);
}

TEST_F(Npz, NonArrayMembersAndFoldersAreSkipped)
{
    ZipBuilder zb;
    zb.members = {{"dir/", "", 0, false, 0}, {"notes.txt", "hello", 0, false, 0}, {"x.npy", x, 8, false, 0}};
    const auto p = dir / "n.npz";
    writeBytes(p, zb.build().bytes);
    const NpzFile z = NpzFile::open(p);
    ASSERT_EQ(z.members().size(), 1u);
    ASSERT_EQ(z.warnings().size(), 1u);
    EXPECT_NE(z.warnings()[0].find("notes.txt"), std::string::npos);
}

// ---- lies ------------------------------------------------------------------------------------

TEST_F(Npz, MissingOrTruncatedCentralDirectoryIsRefused)
{
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 0, false, 0}};
    const auto b = zb.build();
    const auto p = dir / "t.npz";
    writeBytes(p, b.bytes.substr(0, b.eocdOffset - 10)); // EOCD cut away
    expectWhere(openFails(p), p, "", b.eocdOffset - 10, "no end-of-central-directory record");
    std::string lie = b.bytes;
    lie.replace(b.eocdOffset + 12, 4, le(9999, 4)); // central directory size past the EOCD
    writeBytes(p, lie);
    expectWhere(openFails(p), p, "", b.eocdOffset + 16, "runs past the end record");
    // Two entries announced, one present.
    lie = b.bytes;
    lie.replace(b.eocdOffset + 8, 4, le(2, 2) + le(2, 2));
    writeBytes(p, lie);
    expectWhere(openFails(p), p, "", b.eocdOffset, "central directory is cut off");
}

TEST_F(Npz, BadSignaturesAreRefused)
{
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 0, false, 0}};
    const auto b = zb.build();
    const auto p = dir / "s.npz";
    std::string lie = b.bytes;
    lie[b.centralOffsets[0]] = 'X';
    writeBytes(p, lie);
    expectWhere(openFails(p), p, "", b.centralOffsets[0], "bad signature of central directory entry");
    lie = b.bytes;
    lie[0] = 'X';
    writeBytes(p, lie);
    expectWhere(openFails(p), p, "x.npy", 0, "bad signature of the local header");
}

TEST_F(Npz, CrcMismatchIsRefusedForStoredAndDeflatedMembers)
{
    for (int method : {0, 8}) {
        SCOPED_TRACE(method);
        ZipBuilder zb;
        zb.members = {{"x.npy", x, method, false, 0}};
        auto b = zb.build();
        const auto p = dir / "c.npz";
        // Change the stored CRC in both headers: the data no longer matches it.
        const std::uint64_t cdCrc = b.centralOffsets[0] + 16;
        b.bytes[cdCrc] = static_cast<char>(b.bytes[cdCrc] ^ 0x55);
        writeBytes(p, b.bytes);
        expectWhere(openFails(p), p, "x.npy", b.dataOffsets[0], "CRC-32 mismatch");
    }
    // A flipped data byte of a stored member.
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 0, false, 0}};
    auto b = zb.build();
    b.bytes[b.dataOffsets[0] + 80] ^= 0x01;
    const auto p = dir / "d.npz";
    writeBytes(p, b.bytes);
    expectWhere(openFails(p), p, "x.npy", b.dataOffsets[0], "CRC-32 mismatch");
}

TEST_F(Npz, CompressedSizePastTheEndIsRefused)
{
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 8, false, 0}};
    auto b = zb.build();
    b.bytes.replace(b.centralOffsets[0] + 20, 4, le(1u << 20, 4));
    const auto p = dir / "e.npz";
    writeBytes(p, b.bytes);
    expectWhere(openFails(p), p, "x.npy", b.dataOffsets[0], "runs past the end of the file");
}

TEST_F(Npz, UnsupportedCompressionAndEncryptionAreRefusedByName)
{
    ZipBuilder zb;
    zb.members = {{"x.npy", x, 0, false, 0}};
    auto b = zb.build();
    std::string lie = b.bytes;
    lie.replace(b.centralOffsets[0] + 10, 2, le(12, 2));
    writeBytes(dir / "m.npz", lie);
    expectWhere(openFails(dir / "m.npz"), dir / "m.npz", "x.npy", b.centralOffsets[0], "unsupported compression bzip2");
    lie = b.bytes;
    lie.replace(b.centralOffsets[0] + 8, 2, le(1, 2));
    writeBytes(dir / "k.npz", lie);
    expectWhere(openFails(dir / "k.npz"), dir / "k.npz", "x.npy", b.centralOffsets[0], "encrypted");
}

TEST_F(Npz, MemberHeaderLiesAreRefusedNamingTheArray)
{
    // The member's .npy promises 3 floats and holds 2.
    std::string shortX = x.substr(0, x.size() - 4);
    for (int method : {0, 8}) {
        ZipBuilder zb;
        zb.members = {{"x.npy", shortX, method, false, 0}};
        const auto b = zb.build();
        const auto p = dir / "h.npz";
        writeBytes(p, b.bytes);
        const FormatError e = openFails(p);
        EXPECT_EQ(e.where().tensor, "x") << e.what();
        EXPECT_NE(std::string(e.what()).find("shorter than"), std::string::npos) << e.what();
    }
    // Trailing bytes after the array inside the member: refused, lenient accepts.
    ZipBuilder zb;
    zb.members = {{"x.npy", x + "junk", 8, false, 0}};
    const auto p = dir / "j.npz";
    writeBytes(p, zb.build().bytes);
    EXPECT_NE(std::string(openFails(p).what()).find("4 trailing bytes"), std::string::npos);
    ReadOptions lenient;
    lenient.lenient = true;
    const NpzFile z = NpzFile::open(p, lenient);
    EXPECT_EQ(values(z.tensor("x")), (std::vector<double>{1.0, -2.0, 3.5}));
    EXPECT_EQ(z.warnings().size(), 1u);
}
