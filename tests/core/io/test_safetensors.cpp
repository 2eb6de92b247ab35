// SPDX-License-Identifier: MIT
// safetensors reader: one test per lie a header can tell (each checks the error type, the file,
// the tensor and the byte offset it names), the valid corner cases, the writer, and laziness of
// the mapping.
#include "io/mapped_file.h"
#include "io/safetensors.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace quantscope;
using namespace quantscope::test;

namespace {

/// `"name":{"dtype":…,"shape":…,"data_offsets":[b,e]}`
std::string entry(const std::string &name, const std::string &dtype, const std::string &shape, std::uint64_t b,
                  std::uint64_t e)
{
    return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
           std::to_string(b) + "," + std::to_string(e) + "]}";
}

FormatError openFails(const fs::path &p, const ReadOptions &o = {})
{
    try {
        SafetensorsFile::open(p, o);
    } catch (const FormatError &e) {
        return e;
    }
    throw std::runtime_error("expected a FormatError opening " + p.string());
}

ReadOptions lenient()
{
    ReadOptions o;
    o.lenient = true;
    return o;
}

class Safetensors : public ::testing::Test {
protected:
    ScratchDir dir;
    fs::path file(const std::string &name = "t.safetensors") const { return dir / name; }
};

// ---- the file and its 8-byte header length ------------------------------------------------

TEST_F(Safetensors, EmptyFileIsRefused)
{
    const auto p = file();
    writeBytes(p, "");
    expectWhere(openFails(p), p, "", 0, "empty");
}

TEST_F(Safetensors, FileShorterThanEightBytesIsRefused)
{
    const auto p = file();
    writeBytes(p, std::string("\x02\0\0\0{}", 6));
    expectWhere(openFails(p), p, "", 0, "shorter than the 8-byte header length");
}

TEST_F(Safetensors, HeaderLengthPastEndOfFileIsRefused)
{
    const auto p = file();
    writeBytes(p, le64(100) + "{}      ");
    expectWhere(openFails(p), p, "", 0, "only 8 bytes follow");
}

TEST_F(Safetensors, HeaderLengthOverTheLimitIsRefusedAndRaisingTheLimitOpensIt)
{
    const auto p = file();
    const std::string h = "{" + entry("w", "F32", "[1]", 0, 4) + "}";
    writeSt(p, h, ramp(4));

    ReadOptions small;
    small.maxHeaderBytes = 16;
    const FormatError e = openFails(p, small);
    expectWhere(e, p, "", 0, "more than the limit of 16 bytes");
    // Names no C++ option: each front end says how to raise the limit (the CLI: its flag).
    EXPECT_EQ(e.message().find("maxHeaderBytes"), std::string::npos) << e.message();
    EXPECT_THROW(SafetensorsFile::open(p, small), HeaderTooLargeError);

    ReadOptions raised;
    raised.maxHeaderBytes = 1000;
    EXPECT_EQ(SafetensorsFile::open(p, raised).entries().size(), 1u);

    // The default limit (100,000,000) is checked before the length is compared with the file.
    const auto q = file("huge.safetensors");
    writeBytes(q, le64(100'000'001) + "{}");
    expectWhere(openFails(q), q, "", 0, "limit of 100000000 bytes");
}

// ---- the header text ----------------------------------------------------------------------

TEST_F(Safetensors, HeaderNotStartingWithBraceIsRefused)
{
    const auto a = writeSt(file("array.safetensors"), "[]      ");
    expectWhere(openFails(a), a, "", 8, "first non-space byte is '['");

    const auto x = writeSt(file("x.safetensors"), "x{}     ");
    expectWhere(openFails(x), x, "", 8, "first non-space byte is 'x'");

    const auto s = writeSt(file("spaces.safetensors"), "  \"str\"");
    expectWhere(openFails(s), s, "", 10, "first non-space byte is '\"'");

    const auto blank = writeSt(file("blank.safetensors"), "        ");
    expectWhere(openFails(blank), blank, "", 8, "header is empty");
}

TEST_F(Safetensors, HeaderThatIsNotUtf8IsRefused)
{
    const auto p = writeSt(file(), "{\"w\xff\":{}}", "");
    expectWhere(openFails(p), p, "", 8 + 3, "not valid UTF-8");

    // Overlong encoding of '/' and an encoded surrogate are not UTF-8 either.
    const auto o = writeSt(file("overlong.safetensors"), "{\"\xC0\xAF\":1}");
    expectWhere(openFails(o), o, "", 8 + 2, "not valid UTF-8");
    const auto s = writeSt(file("surrogate.safetensors"), "{\"ab\xED\xA0\x80\":1}");
    expectWhere(openFails(s), s, "", 8 + 4, "not valid UTF-8");
}

TEST_F(Safetensors, HeaderThatIsNotJsonIsRefused)
{
    const auto p = writeSt(file(), "{\"w\" 1}");
    const FormatError e = openFails(p);
    expectWhere(e, p, "", 8 + 5, "not valid JSON");

    const auto t = writeSt(file("trailing.safetensors"), "{} x");
    expectWhere(openFails(t), t, "", 8 + 3, "not valid JSON");
}

TEST_F(Safetensors, EntryThatIsNotAnObjectIsRefused)
{
    const std::string h = "{\"w\":[1,2]}";
    const auto p = writeSt(file(), h);
    expectWhere(openFails(p), p, "w", 8 + h.find('['), "must be a JSON object");
}

TEST_F(Safetensors, EntryWithMissingOrUnknownKeyIsRefused)
{
    const std::string h = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}";
    const auto p = writeSt(file(), h);
    expectWhere(openFails(p), p, "w", 8 + 1, "no \"data_offsets\"");

    const std::string u = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}";
    const auto q = writeSt(file("unknown.safetensors"), u, ramp(4));
    expectWhere(openFails(q), q, "w", 8 + u.find("\"x\""), "unknown key \"x\"");
}

TEST_F(Safetensors, UnknownDtypeIsRefused)
{
    const std::string h = "{" + entry("w", "F128", "[1]", 0, 4) + "}";
    const auto p = writeSt(file(), h, ramp(4));
    expectWhere(openFails(p), p, "w", 8 + h.find("\"F128\""), "unknown dtype \"F128\"");

    // Case matters, and Quantscope's own I4 is not a safetensors dtype.
    const std::string l = "{" + entry("w", "f32", "[1]", 0, 4) + "}";
    const auto q = writeSt(file("lower.safetensors"), l, ramp(4));
    expectWhere(openFails(q), q, "w", 8 + l.find("\"f32\""), "unknown dtype");
    const std::string i4 = "{" + entry("w", "I4", "[2]", 0, 1) + "}";
    const auto r = writeSt(file("i4.safetensors"), i4, ramp(1));
    expectWhere(openFails(r), r, "w", 8 + i4.find("\"I4\""), "unknown dtype");
}

TEST_F(Safetensors, NegativeShapeEntryIsRefused)
{
    const std::string h = "{" + entry("w", "F32", "[2,-1]", 0, 8) + "}";
    const auto p = writeSt(file(), h, ramp(8));
    expectWhere(openFails(p), p, "w", 8 + h.find("-1"), "negative");
}

TEST_F(Safetensors, NonIntegerShapeEntriesAreRefused)
{
    for (const std::string bad :
         {"1.5", "2e0", "9223372036854775808", "18446744073709551616", "\"4\"", "null", "true", "[1]"}) {
        const std::string h = "{" + entry("w", "U8", "[" + bad + "]", 0, 4) + "}";
        const auto p = writeSt(file(), h, ramp(4));
        const FormatError e = openFails(p);
        EXPECT_EQ(e.where().tensor, "w") << bad;
        EXPECT_EQ(e.where().offset, 8 + h.find(bad)) << bad << ": " << e.what();
        EXPECT_NE(e.message().find("shape"), std::string::npos) << e.what();
    }
}

TEST_F(Safetensors, OverflowingShapeIsRefused)
{
    // 2^40 × 2^40 elements overflow 64 bits.
    const std::string h = "{" + entry("w", "F32", "[1099511627776,1099511627776]", 0, 4) + "}";
    const auto p = writeSt(file(), h, ramp(4));
    expectWhere(openFails(p), p, "w", 8 + h.find("\"w\""), "element count");

    // 2^61 elements fit, 2^61 × 64 bits do not.
    const std::string b = "{" + entry("w", "F64", "[2305843009213693952]", 0, 8) + "}";
    const auto q = writeSt(file("bits.safetensors"), b, ramp(8));
    expectWhere(openFails(q), q, "w", 8 + b.find("\"w\""), "size in bits");
}

TEST_F(Safetensors, SpanThatDoesNotMatchShapeAndDtypeIsRefused)
{
    const std::string h = "{" + entry("a", "U8", "[4]", 0, 4) + "," + entry("w", "F32", "[2]", 4, 8) + "}";
    const auto p = writeSt(file(), h, ramp(8));
    expectWhere(openFails(p), p, "w", 8 + h.size() + 4, "need 8");
}

TEST_F(Safetensors, MisalignedSubByteSpanIsRefused)
{
    // Three F4 elements are 12 bits: not a whole number of bytes.
    const std::string h = "{" + entry("w", "F4", "[3]", 0, 2) + "}";
    const auto p = writeSt(file(), h, ramp(2));
    expectWhere(openFails(p), p, "w", 8 + h.size(), "misaligned sub-byte span");

    // Two F6 elements are 12 bits too; four are 3 bytes and fine.
    const std::string h6 = "{" + entry("w", "F6_E2M3", "[4]", 0, 3) + "}";
    EXPECT_NO_THROW(SafetensorsFile::open(writeSt(file("f6.safetensors"), h6, ramp(3))));
}

TEST_F(Safetensors, OffsetsPastTheDataAreRefusedEvenWhenLenient)
{
    const std::string h = "{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 1000, 1004) + "}";
    const auto p = writeSt(file(), h, ramp(4));
    // BEGIN lies outside the file: the offset is where the header names the tensor.
    expectWhere(openFails(p), p, "b", 8 + h.find("\"b\""), "past the end of the data");
    expectWhere(openFails(p, lenient()), p, "b", 8 + h.find("\"b\""), "past the end of the data");

    // Offsets near 2^64 do not wrap around.
    const std::string w = "{" + entry("w", "U8", "[4]", 18446744073709551611ull, 18446744073709551615ull) + "}";
    const auto q = writeSt(file("wrap.safetensors"), w, ramp(4));
    EXPECT_THROW(SafetensorsFile::open(q, lenient()), FormatError);
}

TEST_F(Safetensors, TruncatedDataIsRefused)
{
    const std::string h = "{" + entry("w", "F32", "[4]", 0, 16) + "}";
    const auto p = writeSt(file(), h, ramp(10));
    expectWhere(openFails(p), p, "w", 8 + h.size(), "truncated");
    expectWhere(openFails(p, lenient()), p, "w", 8 + h.size(), "truncated");
}

TEST_F(Safetensors, ReversedOffsetsAreRefused)
{
    const std::string h = "{" + entry("w", "F32", "[1]", 4, 0) + "}";
    const auto p = writeSt(file(), h, ramp(4));
    expectWhere(openFails(p), p, "w", 8 + h.size() + 4, "reversed");
    expectWhere(openFails(p, lenient()), p, "w", 8 + h.size() + 4, "reversed");
}

TEST_F(Safetensors, OverlappingSpansAreRefusedStrictAndLenient)
{
    const std::string h = "{" + entry("a", "U8", "[4]", 0, 4) + "," + entry("b", "U8", "[4]", 2, 6) + "}";
    const auto p = writeSt(file(), h, ramp(6));
    expectWhere(openFails(p), p, "b", 8 + h.size() + 2, "overlap tensor 'a'");
    expectWhere(openFails(p, lenient()), p, "b", 8 + h.size() + 2, "overlap tensor 'a'");
}

TEST_F(Safetensors, GapIsRefusedStrictAndAcceptedWithAWarningWhenLenient)
{
    // Key order differs from offset order: the reader sorts by offset first.
    const std::string h = "{" + entry("b", "U8", "[4]", 6, 10) + "," + entry("a", "U8", "[4]", 0, 4) + "}";
    const auto p = writeSt(file(), h, ramp(10));
    expectWhere(openFails(p), p, "b", 8 + h.size() + 4, "gap of 2 bytes");

    const SafetensorsFile f = SafetensorsFile::open(p, lenient());
    ASSERT_EQ(f.warnings().size(), 1u);
    EXPECT_NE(f.warnings()[0].find("gap of 2 bytes"), std::string::npos) << f.warnings()[0];
    const Tensor b = f.tensor("b");
    EXPECT_EQ(std::memcmp(b.data(), ramp(10).data() + 6, 4), 0);

    // A first tensor that does not start at 0 leaves a gap too.
    const std::string s = "{" + entry("a", "U8", "[4]", 2, 6) + "}";
    const auto q = writeSt(file("start.safetensors"), s, ramp(6));
    expectWhere(openFails(q), q, "a", 8 + s.size(), "gap of 2 bytes");
    EXPECT_EQ(SafetensorsFile::open(q, lenient()).warnings().size(), 1u);
}

TEST_F(Safetensors, TrailingBytesAreRefusedStrictAndAcceptedWithAWarningWhenLenient)
{
    const std::string h = "{" + entry("a", "U8", "[4]", 0, 4) + "}";
    const auto p = writeSt(file(), h, ramp(6));
    expectWhere(openFails(p), p, "", 8 + h.size() + 4, "2 trailing bytes");

    const SafetensorsFile f = SafetensorsFile::open(p, lenient());
    ASSERT_EQ(f.warnings().size(), 1u);
    EXPECT_NE(f.warnings()[0].find("trailing"), std::string::npos);
    EXPECT_EQ(f.entries().size(), 1u);
}

TEST_F(Safetensors, MetadataMustBeStringToString)
{
    const std::string h = "{\"__metadata__\":{\"format\":\"pt\",\"n\":1}," + entry("a", "U8", "[1]", 0, 1) + "}";
    const auto p = writeSt(file(), h, ramp(1));
    expectWhere(openFails(p), p, "", 8 + h.find("1}"), "metadata values must be strings");

    const std::string o = "{\"__metadata__\":{\"k\":{\"x\":\"y\"}}}";
    const auto q = writeSt(file("nested.safetensors"), o);
    expectWhere(openFails(q), q, "", 8 + o.find("{\"x\""), "metadata values must be strings");

    const std::string a = "{\"__metadata__\":[\"x\"]}";
    const auto r = writeSt(file("array.safetensors"), a);
    expectWhere(openFails(r), r, "", 8 + a.find('['), "__metadata__ must be an object");
}

TEST_F(Safetensors, DuplicateKeysAreRefused)
{
    const std::string h = "{" + entry("a", "U8", "[1]", 0, 1) + "," + entry("a", "U8", "[1]", 1, 2) + "}";
    const auto p = writeSt(file(), h, ramp(2));
    expectWhere(openFails(p), p, "a", 8 + h.rfind("\"a\""), "duplicate key");

    const std::string d = "{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
    const auto q = writeSt(file("entry.safetensors"), d, ramp(1));
    expectWhere(openFails(q), q, "a", 8 + d.rfind("\"dtype\""), "duplicate key \"dtype\"");

    const std::string m = "{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}";
    const auto r = writeSt(file("meta.safetensors"), m);
    expectWhere(openFails(r), r, "", 8 + m.rfind("\"k\""), "duplicate key \"k\"");

    const std::string mm = "{\"__metadata__\":{},\"__metadata__\":{}}";
    const auto s = writeSt(file("meta2.safetensors"), mm);
    expectWhere(openFails(s), s, "", 8 + mm.rfind("\"__metadata__\""), "duplicate key");
}

TEST_F(Safetensors, DeeplyNestedJsonIsRefusedFastWithoutCrashing)
{
    const std::string h = "{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto p = writeSt(file(), h);
    const auto t0 = std::chrono::steady_clock::now();
    const FormatError e = openFails(p);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    // '{' is level 1; the 64th '[' (at header byte 5 + 63) opens level 65.
    expectWhere(e, p, "", 8 + 5 + 63, "nested deeper than 64");
    EXPECT_LT(ms, 1000);

    const std::string o = "{\"__metadata__\":" + std::string(100000, '{');
    const auto q = writeSt(file("objects.safetensors"), o);
    EXPECT_THROW(SafetensorsFile::open(q), FormatError);

    // Brackets inside strings are text, not nesting.
    const std::string s = "{\"__metadata__\":{\"k\":\"" + std::string(1000, '[') + "\"}}";
    const SafetensorsFile f = SafetensorsFile::open(writeSt(file("string.safetensors"), s));
    EXPECT_EQ(f.metadata().at("k"), std::string(1000, '['));
}

TEST_F(Safetensors, DataOffsetsOfWrongLengthAreRefused)
{
    const std::string h = "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}";
    const auto p = writeSt(file(), h, ramp(1));
    expectWhere(openFails(p), p, "w", 8 + h.find(",2]") + 1, "more than two entries");

    const std::string o = "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]}}";
    const auto q = writeSt(file("one.safetensors"), o, ramp(1));
    expectWhere(openFails(q), q, "w", 8 + o.find("]}"), "must be [BEGIN, END]");

    const std::string n = "{" + entry("w", "U8", "[1]", 0, 1) + "}";
    std::string neg = n;
    neg.replace(neg.find("[0,1]"), 5, "[-1,0]");
    const auto r = writeSt(file("neg.safetensors"), neg, ramp(1));
    expectWhere(openFails(r), r, "w", 8 + neg.find("-1"), "negative");
}

TEST_F(Safetensors, RandomlyDamagedFilesGiveFormatErrorsNeverCrashes)
{
    // Parsers never assert on input: any damage to a valid file either still satisfies every
    // rule or is refused with a FormatError.
    const std::string h = "{\"__metadata__\":{\"format\":\"pt\"}," + entry("a", "F32", "[2,3]", 0, 24) + "," +
                          entry("b", "F4", "[4]", 24, 26) + "," + entry("c", "I64", "[]", 26, 34) + "}";
    const std::string good = stBytes(h, ramp(34));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    static constexpr char kChars[] = "{}[]\",:0123456789-.eE \\\x00\x80\xff";
    const auto p = file();
    int refused = 0;
    for (int iter = 0; iter < 500; ++iter) {
        std::string bad = good;
        const int edits = 1 + static_cast<int>(next() % 3);
        for (int k = 0; k < edits; ++k) {
            const std::size_t at = next() % bad.size();
            if (next() % 4 == 0)
                bad[at] = static_cast<char>(next() & 0xFF);
            else
                bad[at] = kChars[next() % (sizeof(kChars) - 1)];
        }
        if (next() % 8 == 0)
            bad.resize(next() % bad.size());
        writeBytes(p, bad);
        for (const bool len : {false, true}) {
            ReadOptions o;
            o.lenient = len;
            try {
                const SafetensorsFile f = SafetensorsFile::open(p, o);
                for (const TensorEntry &e : f.entries())
                    EXPECT_LE(e.fileOffset + e.nbytes(), f.fileSize());
            } catch (const FormatError &e) {
                ++refused;
                EXPECT_EQ(e.where().file, p.string());
                EXPECT_TRUE(e.where().offset.has_value()) << e.what();
            }
        }
    }
    EXPECT_GT(refused, 300);
}

// ---- valid files ----------------------------------------------------------------------------

TEST_F(Safetensors, ZeroSizeAndScalarTensorsAreValid)
{
    const std::string h = "{" + entry("empty", "F32", "[0,3]", 0, 0) + "," + entry("scalar", "F32", "[]", 0, 4) + "," +
                          entry("tail", "BF16", "[5,0]", 4, 4) + "}";
    float v = 2.5f;
    std::string data(4, '\0');
    std::memcpy(data.data(), &v, 4);
    const auto p = writeSt(file(), h, data);
    const SafetensorsFile f = SafetensorsFile::open(p);
    ASSERT_EQ(f.entries().size(), 3u);
    EXPECT_TRUE(f.warnings().empty());

    const Tensor e = f.tensor("empty");
    EXPECT_EQ(e.numel(), 0);
    EXPECT_EQ(e.nbytes(), 0u);
    EXPECT_EQ(e.shape(), (Shape{0, 3}));

    const Tensor s = f.tensor("scalar");
    EXPECT_EQ(s.rank(), 0);
    EXPECT_EQ(s.numel(), 1);
    float got = 0;
    std::memcpy(&got, s.data(), 4);
    EXPECT_EQ(got, 2.5f);
    EXPECT_EQ(f.find("scalar")->fileOffset, 8 + h.size());

    EXPECT_EQ(f.tensor("tail").numel(), 0);
    EXPECT_EQ(f.find("nope"), nullptr);
    try {
        f.tensor("nope");
        FAIL() << "no error for an unknown tensor";
    } catch (const FormatError &err) {
        EXPECT_EQ(err.where().tensor, "nope");
        EXPECT_EQ(err.where().file, p.string());
    }
}

TEST_F(Safetensors, EmptyHeaderWithNoTensorsIsValid)
{
    const auto p = writeSt(file(), "{}      ");
    const SafetensorsFile f = SafetensorsFile::open(p);
    EXPECT_TRUE(f.entries().empty());
    EXPECT_EQ(f.dataStart(), 16u);
    EXPECT_EQ(f.fileSize(), 16u);
}

TEST_F(Safetensors, AllTwentyTwoDtypesParse)
{
    const std::vector<std::pair<std::string, int>> dtypes = {
        {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6},     {"U8", 8},          {"I8", 8},
        {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
        {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},        {"U32", 32},        {"F32", 32},
        {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64}};
    ASSERT_EQ(dtypes.size(), 22u);
    std::string h = "{";
    std::uint64_t off = 0;
    for (const auto &[name, bits] : dtypes) {
        const std::uint64_t bytes = 8u * static_cast<std::uint64_t>(bits) / 8u; // shape [8]
        if (off)
            h += ",";
        h += entry("t_" + name, name, "[8]", off, off + bytes);
        off += bytes;
    }
    h += "}";
    const auto p = writeSt(file(), h, ramp(off));
    const SafetensorsFile f = SafetensorsFile::open(p);
    ASSERT_EQ(f.entries().size(), 22u);
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
        const TensorEntry &e = f.entries()[i];
        EXPECT_EQ(e.name, "t_" + dtypes[i].first);
        EXPECT_EQ(nameOf(e.dtype), dtypes[i].first);
        EXPECT_EQ(e.nbytes(), 8u * static_cast<std::uint64_t>(dtypes[i].second) / 8u);
        EXPECT_EQ(f.tensor(e).data(), f.tensor(e.name).data());
    }
}

TEST_F(Safetensors, LeadingSpacesAndPaddingAreAccepted)
{
    const std::string h = "  {" + entry("a", "U8", "[2]", 0, 2) + "}    ";
    const SafetensorsFile f = SafetensorsFile::open(writeSt(file(), h, ramp(2)));
    EXPECT_EQ(f.dataStart(), 8 + h.size());
    EXPECT_EQ(f.find("a")->fileOffset, 8 + h.size());
}

// ---- writer ---------------------------------------------------------------------------------

std::vector<std::byte> bytesOf(const std::string &s)
{
    std::vector<std::byte> v(s.size());
    std::memcpy(v.data(), s.data(), s.size());
    return v;
}

TEST_F(Safetensors, WriterRoundTripsBytesOrderAndMetadata)
{
    const std::vector<float> fv = {1.f, -2.f, 3.5f, 0.f, 1e-3f, -7.f};
    const Tensor base = Tensor::fromBytes(DType::U8, {2, 3}, bytesOf(ramp(6, 10)));
    std::vector<std::pair<std::string, Tensor>> tensors = {
        {"z.f32", Tensor::fromFloats({2, 3}, fv)},
        {"a.u8.transposed", base.transposed()}, // strided view: packed row-major on write
        {"m.empty", Tensor::zeros(DType::F16, {0, 4})},
        {"s.scalar", Tensor::fromBytes(DType::I32, {}, bytesOf(ramp(4, 1)))},
        {"f4", Tensor::fromBytes(DType::F4, {2, 4}, bytesOf(ramp(4, 0x21)))},
        {"unicode \xC3\xA9 \"q\"", Tensor::fromBytes(DType::BF16, {3}, bytesOf(ramp(6)))},
    };
    const std::map<std::string, std::string> meta = {{"format", "pt"}, {"quantscope", "{\"x\": [1, 2]}"}};
    const auto p = file("out.safetensors");
    writeSafetensors(p, tensors, meta);

    const std::string raw = readBytes(p);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | static_cast<unsigned char>(raw[static_cast<std::size_t>(i)]);
    EXPECT_EQ(n % 8, 0u);
    const std::string header = raw.substr(8, n);
    EXPECT_EQ(header.rfind("{\"__metadata__\":", 0), 0u) << header;
    EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));
    // Entries in the given order.
    std::size_t last = 0;
    for (const auto &[name, t] : tensors) {
        const auto at = header.find("\"dtype\":\"" + std::string(nameOf(t.dtype())) + "\"", last);
        ASSERT_NE(at, std::string::npos) << name;
        last = at;
    }

    const SafetensorsFile f = SafetensorsFile::open(p);
    EXPECT_EQ(f.metadata(), meta);
    ASSERT_EQ(f.entries().size(), tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        EXPECT_EQ(f.entries()[i].name, tensors[i].first);
        EXPECT_EQ(f.entries()[i].dtype, tensors[i].second.dtype());
        EXPECT_EQ(f.entries()[i].shape, tensors[i].second.shape());
    }
    const Tensor t = f.tensor("z.f32");
    EXPECT_EQ(std::memcmp(t.data(), fv.data(), fv.size() * 4), 0);
    // The transpose of [[10,11,12],[13,14,15]] in row-major order.
    const Tensor tr = f.tensor("a.u8.transposed");
    EXPECT_EQ(tr.shape(), (Shape{3, 2}));
    const unsigned char want[] = {10, 13, 11, 14, 12, 15};
    EXPECT_EQ(std::memcmp(tr.data(), want, 6), 0);
    EXPECT_EQ(std::memcmp(f.tensor("f4").data(), ramp(4, 0x21).data(), 4), 0);
    EXPECT_EQ(f.tensor("s.scalar").rank(), 0);

    // Writing what was read gives the same bytes.
    std::vector<std::pair<std::string, Tensor>> again;
    for (const TensorEntry &e : f.entries())
        again.emplace_back(e.name, f.tensor(e));
    const auto q = file("again.safetensors");
    writeSafetensors(q, again, f.metadata());
    EXPECT_EQ(readBytes(q), raw);
}

TEST_F(Safetensors, WriterWithoutMetadataWritesNone)
{
    const auto p = file();
    writeSafetensors(p, {{"a", Tensor::fromBytes(DType::U8, {3}, bytesOf(ramp(3)))}});
    const std::string raw = readBytes(p);
    EXPECT_EQ(raw.find("__metadata__"), std::string::npos);
    EXPECT_EQ(raw.size() % 8, 3u); // 8 + padded header + 3 data bytes
    EXPECT_TRUE(SafetensorsFile::open(p).metadata().empty());
}

TEST_F(Safetensors, WriterIntoAMissingFolderThrowsIoErrorAndLeavesNothing)
{
    const fs::path missing = dir / "no" / "such" / "folder";
    const fs::path p = missing / "out.safetensors";
    try {
        writeSafetensors(p, {{"a", Tensor::fromBytes(DType::U8, {1}, bytesOf("x"))}});
        FAIL() << "no error";
    } catch (const IoError &e) {
        EXPECT_EQ(e.where().file, p.string());
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "no"));
}

TEST_F(Safetensors, FailedWriteLeavesTheExistingTargetUntouchedAndNoTemporary)
{
    const auto p = file("keep.safetensors");
    writeBytes(p, "original contents");
    const Tensor t = Tensor::fromBytes(DType::U8, {1}, bytesOf("x"));
    try {
        writeSafetensors(p, {{"a", t}, {"b", t}, {"a", t}});
        FAIL() << "duplicate name accepted";
    } catch (const FormatError &e) {
        expectWhere(e, p, "a", std::nullopt, "occurs twice");
    }
    EXPECT_THROW(writeSafetensors(p, {{"", t}}), FormatError);
    EXPECT_THROW(writeSafetensors(p, {{"__metadata__", t}}), FormatError);
    EXPECT_THROW(writeSafetensors(p, {{"i4", Tensor::zeros(DType::I4, {2})}}), UnsupportedError);
    EXPECT_THROW(writeSafetensors(p, {{"f4", Tensor::zeros(DType::F4, {3})}}), FormatError);

    EXPECT_EQ(readBytes(p), "original contents");
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir.path()))
        names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"keep.safetensors"});
}

TEST_F(Safetensors, AtomicFileReplacesOnlyOnCommit)
{
    const auto p = file("atomic.bin");
    writeBytes(p, "old");
    {
        AtomicFile out(p);
        out.write("new!", 4);
        EXPECT_EQ(readBytes(p), "old");
        // Not committed: the destructor removes the temporary.
    }
    EXPECT_EQ(readBytes(p), "old");
    {
        AtomicFile out(p);
        out.write("new!", 4);
        out.commit();
    }
    EXPECT_EQ(readBytes(p), "new!");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
}

TEST_F(Safetensors, MappedFileOfAnEmptyFileAndMissingFile)
{
    const auto p = file("empty.bin");
    writeBytes(p, "");
    const auto m = MappedFile::open(p);
    EXPECT_EQ(m->size(), 0u);
    try {
        MappedFile::open(file("absent.bin"));
        FAIL() << "no error";
    } catch (const IoError &e) {
        EXPECT_EQ(e.where().file, file("absent.bin").string());
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
    }
    EXPECT_THROW(SafetensorsFile::open(file("absent.bin")), IoError);
}

// ---- laziness: reading one tensor touches only its pages ----------------------------------

TEST_F(Safetensors, ReadingOneTensorOfASparseThreeGigabyteFileTouchesOnlyItsPages)
{
    constexpr std::uint64_t kElems = std::uint64_t{1} << 28; // 1 GiB of F32 per tensor
    constexpr std::uint64_t kBytes = kElems * 4;
    const std::string shape = "[" + std::to_string(kElems) + "]";
    std::string h = "{" + entry("a", "F32", shape, 0, kBytes) + "," + entry("b", "F32", shape, kBytes, 2 * kBytes) +
                    "," + entry("c", "F32", shape, 2 * kBytes, 3 * kBytes) + "}";
    h.append((8 - h.size() % 8) % 8, ' ');
    const std::uint64_t dataStart = 8 + h.size();
    const std::uint64_t total = dataStart + 3 * kBytes;

    const auto p = file("sparse.safetensors");
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const std::string head = le64(h.size()) + h;
    ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
    if (::ftruncate(fd, static_cast<off_t>(total)) != 0) {
        const int err = errno;
        ::close(fd);
        GTEST_SKIP() << "the file system refuses a 3 GiB sparse file (" << std::strerror(err) << ")";
    }
    // The first 4 pages of "b" hold 0, 1, 2, …; everything else is a hole.
    std::vector<float> values(4096);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i) + 0.5f;
    ASSERT_EQ(::pwrite(fd, values.data(), values.size() * 4, static_cast<off_t>(dataStart + kBytes)),
              static_cast<ssize_t>(values.size() * 4));
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    ::close(fd);
    if (static_cast<std::uint64_t>(st.st_blocks) * 512 > (std::uint64_t{64} << 20))
        GTEST_SKIP() << "the file system does not keep sparse files sparse (" << st.st_blocks * 512
                     << " bytes allocated)";

    const SafetensorsFile f = SafetensorsFile::open(p);
    ASSERT_EQ(f.fileSize(), total);
    const TensorEntry *eb = f.find("b");
    ASSERT_NE(eb, nullptr);
    const Tensor b = f.tensor(*eb);
    ASSERT_EQ(b.numel(), static_cast<std::int64_t>(kElems));
    std::vector<float> got(values.size());
    std::memcpy(got.data(), b.data(), got.size() * 4);
    EXPECT_EQ(got, values);
    float far = -1;
    std::memcpy(&far, b.data() + (kBytes / 2), 4);
    EXPECT_EQ(far, 0.f);

    const long page = ::sysconf(_SC_PAGESIZE);
    const std::byte *base = b.data() - eb->fileOffset;
    const std::size_t pages = static_cast<std::size_t>((total + page - 1) / page);
    std::vector<unsigned char> resident(pages);
    ASSERT_EQ(::mincore(const_cast<std::byte *>(base), pages * page, resident.data()), 0) << std::strerror(errno);
    std::uint64_t residentBytes = 0;
    for (unsigned char r : resident)
        residentBytes += (r & 1) ? page : 0;
    // The pages just read are resident (mincore works here), the gigabytes around them are not.
    EXPECT_GE(residentBytes, values.size() * 4);
    EXPECT_LT(residentBytes, std::uint64_t{64} << 20)
        << "resident " << residentBytes << " bytes of a " << total << "-byte mapping";
    fs::remove(p);
}

} // namespace
