// SPDX-License-Identifier: MIT
// .npy reader: files written by NumPy itself (tests/core/data/npy, make_fixtures.py) for every
// layout, and hand-made files for every lie a header can tell (each names file and byte offset).
#include "io/checkpoint.h"
#include "io/npy.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <gtest/gtest.h>
#include <vector>

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

/// a[i,j] = 0.5·(4i + j) − 2 over [3, 4], as make_fixtures.py writes it.
std::vector<double> a34()
{
    std::vector<double> v;
    for (int i = 0; i < 12; ++i)
        v.push_back(0.5 * i - 2.0);
    return v;
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

/// A v1 .npy file from a literal header dict and data bytes (header padded to 64 like NumPy).
std::string npyBytes(std::string dict, const std::string &data, bool pad = true)
{
    if (pad) {
        const std::size_t unpadded = 10 + dict.size() + 1;
        dict.append((64 - unpadded % 64) % 64, ' ');
    }
    dict += '\n';
    std::string s = "\x93NUMPY";
    s += '\x01';
    s += '\x00';
    s += static_cast<char>(dict.size() & 0xFF);
    s += static_cast<char>(dict.size() >> 8);
    return s + dict + data;
}

FormatError openFails(const fs::path &p, const ReadOptions &o = {})
{
    try {
        NpyFile::open(p, o);
    } catch (const FormatError &e) {
        return e;
    }
    throw std::runtime_error("expected a FormatError opening " + p.string());
}

class Npy : public ::testing::Test {
protected:
    ScratchDir dir;
};

} // namespace

TEST(NpyNumpyFiles, LittleEndianCOrderIsMappedWithItsValues)
{
    const NpyFile f = NpyFile::open(data("c_f4.npy"));
    EXPECT_EQ(f.header().descr, "<f4");
    EXPECT_EQ(f.header().major, 1);
    const Tensor t = f.tensor();
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_EQ(t.shape(), (Shape{3, 4}));
    EXPECT_EQ(values(t), a34());
    EXPECT_TRUE(borrowed(t)) << "aligned little-endian data must be a view of the mapping";
    EXPECT_EQ(f.dataOffset() + 48, fs::file_size(data("c_f4.npy")));
}

TEST(NpyNumpyFiles, FortranOrderTwoDimIsAStridedViewWithTheLogicalShape)
{
    const Tensor t = readNpy(data("fortran_f8.npy"));
    EXPECT_EQ(t.dtype(), DType::F64);
    EXPECT_EQ(t.shape(), (Shape{3, 4}));
    EXPECT_FALSE(t.isContiguous());
    EXPECT_TRUE(borrowed(t));
    EXPECT_EQ(values(t), a34());
}

TEST(NpyNumpyFiles, BigEndianIsByteSwappedIntoAnOwningTensor)
{
    const Tensor t = readNpy(data("be_i2.npy"));
    EXPECT_EQ(t.dtype(), DType::I16);
    EXPECT_EQ(values(t), (std::vector<double>{-2, -1, 0, 1, 2}));
    EXPECT_FALSE(borrowed(t));
    const Tensor f = readNpy(data("be_f4_fortran.npy"));
    EXPECT_EQ(f.shape(), (Shape{3, 4}));
    EXPECT_EQ(values(f), a34());
}

TEST(NpyNumpyFiles, FortranOrderThreeDimIsCopiedToCOrder)
{
    const Tensor t = readNpy(data("fortran3d_f4.npy"));
    EXPECT_EQ(t.shape(), (Shape{2, 3, 4}));
    for (int i = 0; i < 24; ++i)
        EXPECT_EQ(t.at(i), i - 12.0) << i;
    // An activation [B, S, K] is quantized as [B·S, K]; the original shape stays for display.
    const Tensor m = activationMatrix(t);
    EXPECT_EQ(m.shape(), (Shape{6, 4}));
    EXPECT_EQ(m.at(23), 11.0);
    EXPECT_EQ(activationMatrixShape({2, 3, 4}), (Shape{6, 4}));
    EXPECT_EQ(activationMatrixShape({7}), (Shape{1, 7}));
    EXPECT_EQ(activationMatrixShape({}), (Shape{1, 1}));
    // A strided 2-D view is copied into the matrix in logical order.
    const Tensor fm = activationMatrix(readNpy(data("fortran_f8.npy")));
    EXPECT_TRUE(fm.isContiguous());
    EXPECT_EQ(values(fm), a34());
}

TEST(NpyNumpyFiles, OtherDtypesVersionsScalarsAndEmptyArrays)
{
    EXPECT_EQ(values(readNpy(data("bool.npy"))), (std::vector<double>{1, 0, 1}));
    const Tensor s = readNpy(data("scalar_f2.npy"));
    EXPECT_EQ(s.rank(), 0);
    EXPECT_EQ(s.at(0), 1.5);
    const Tensor e = readNpy(data("empty_f4.npy"));
    EXPECT_EQ(e.shape(), (Shape{0, 5}));
    EXPECT_EQ(e.numel(), 0);
    for (const char *v : {"v2_u8.npy", "v3_u8.npy"}) {
        const NpyFile f = NpyFile::open(data(v));
        EXPECT_EQ(f.header().major, v[1] - '0');
        EXPECT_EQ(values(f.tensor()), (std::vector<double>{0, 1, 2, 3, 4, 5}));
    }
}

TEST(NpyNumpyFiles, ObjectComplexUnicodeAndStructuredAreRefusedByName)
{
    const std::pair<const char *, const char *> cases[] = {{"object.npy", "object arrays"},
                                                           {"complex.npy", "complex arrays"},
                                                           {"unicode.npy", "unicode string arrays"},
                                                           {"structured.npy", "structured arrays"}};
    for (const auto &[file, rule] : cases) {
        SCOPED_TRACE(file);
        const FormatError e = openFails(data(file));
        expectWhere(e, data(file), "", 10, rule);
    }
}

TEST(NpyNumpyFiles, CheckpointOpensAnNpyAsOneEntry)
{
    const Checkpoint ck = Checkpoint::open(data("c_f4.npy"));
    ASSERT_EQ(ck.entries().size(), 1u);
    const TensorEntry &e = ck.entries()[0];
    EXPECT_EQ(e.name, "c_f4");
    EXPECT_EQ(e.shape, (Shape{3, 4}));
    EXPECT_EQ(e.file, data("c_f4.npy"));
    EXPECT_EQ(e.fileOffset + 48, fs::file_size(data("c_f4.npy")));
    EXPECT_EQ(e.nbytes(), 48u);
    EXPECT_EQ(values(ck.tensor("c_f4")), a34());
    EXPECT_NE(ck.npy(), nullptr);
    EXPECT_EQ(ck.files(), std::vector<fs::path>{data("c_f4.npy")});
}

// ---- lies ------------------------------------------------------------------------------------

TEST_F(Npy, BadMagicIsRefusedAtByteZero)
{
    const auto p = dir / "m.npy";
    writeBytes(p, "\x93NUMPX\x01\x00" + std::string(100, ' '));
    expectWhere(openFails(p), p, "", 0, "magic string");
    writeBytes(p, "abc");
    expectWhere(openFails(p), p, "", 0, "magic string");
}

TEST_F(Npy, BadVersionIsRefusedAtByteSix)
{
    const auto p = dir / "v.npy";
    std::string b = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
    b[6] = '\x04';
    writeBytes(p, b);
    expectWhere(openFails(p), p, "", 6, "unsupported .npy format version 4.0");
}

TEST_F(Npy, HeaderLengthPastTheEndIsRefused)
{
    const auto p = dir / "h.npy";
    std::string b = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
    b[8] = '\xFF';
    b[9] = '\x7F';
    writeBytes(p, b);
    expectWhere(openFails(p), p, "", 8, "runs past the end");
}

TEST_F(Npy, HeaderThatIsNotADictIsRefused)
{
    const auto p = dir / "d.npy";
    writeBytes(p, npyBytes("['descr', '<f4']", "abcd"));
    expectWhere(openFails(p), p, "", 10, "not a Python dict");
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", "abcd"));
    EXPECT_NE(std::string(openFails(p).what()).find("header dict"), std::string::npos);
}

TEST_F(Npy, MissingAndExtraKeysAreRefused)
{
    const auto p = dir / "k.npy";
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, }", "abcd"));
    expectWhere(openFails(p), p, "", 10, "lacks the key 'shape'");
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "abcd"));
    expectWhere(openFails(p), p, "", 10, "unexpected key 'x'");
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", "abcd"));
    expectWhere(openFails(p), p, "", 10, "'fortran_order' must be True or False");
}

TEST_F(Npy, DataShorterThanTheShapeIsRefusedAtTheDataOffset)
{
    const auto p = dir / "s.npy";
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "abcdefgh"));
    expectWhere(openFails(p), p, "", fs::file_size(p) - 8, "data is shorter than the header says");
}

TEST_F(Npy, TrailingBytesAreRefusedUnlessLenient)
{
    const auto p = dir / "t.npy";
    const std::string f1("\x00\x00\x80\x3f", 4); // 1.0f
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f1 + "xyz"));
    expectWhere(openFails(p), p, "", fs::file_size(p) - 3, "3 trailing bytes");
    ReadOptions lenient;
    lenient.lenient = true;
    const NpyFile f = NpyFile::open(p, lenient);
    EXPECT_EQ(f.tensor().at(0), 1.0);
    ASSERT_EQ(f.warnings().size(), 1u);
    EXPECT_NE(f.warnings()[0].find("trailing"), std::string::npos);
}

TEST_F(Npy, UnsupportedDescrAndBadShapesAreRefused)
{
    const auto p = dir / "u.npy";
    writeBytes(p, npyBytes("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", std::string(16, '\0')));
    expectWhere(openFails(p), p, "", 10, "unsupported dtype descr '<f16'");
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""));
    expectWhere(openFails(p), p, "", 10, "non-negative");
    writeBytes(p, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", "abcd"));
    expectWhere(openFails(p), p, "", 10, "tuple");
}

TEST_F(Npy, OldPython2LongSuffixAndUnpaddedHeadersAreRead)
{
    const auto p = dir / "l.npy";
    const std::string data = std::string("\x01\x02\x03\x04\x05\x06", 6);
    writeBytes(p, npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L)}", data, false));
    const Tensor t = readNpy(p);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.at(5), 6.0);
}

TEST_F(Npy, UnalignedLittleEndianDataIsCopied)
{
    const auto p = dir / "a.npy";
    // The data starts at an offset that is not a multiple of 4.
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}";
    while ((10 + dict.size() + 1) % 4 != 1)
        dict += ' ';
    writeBytes(p, npyBytes(dict, std::string("\x00\x00\x80\x3f", 4), false));
    const NpyFile f = NpyFile::open(p);
    EXPECT_EQ(f.dataOffset() % 4, 1u);
    const Tensor t = f.tensor();
    EXPECT_FALSE(borrowed(t));
    EXPECT_EQ(t.at(0), 1.0);
}
