// SPDX-License-Identifier: MIT
// Files that are not safetensors / npy / npz (issue 42): Checkpoint::open says what each looks
// like (a llama2.c .bin, a GGUF, a PyTorch ZIP or pickle, a plain ZIP) and what to do, instead of
// the safetensors reader's "the header length field says 738734374976 bytes"; a file like none
// of them keeps the reader's own message.
#include "io/checkpoint.h"
#include "io/sniff.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace quantscope;
using namespace quantscope::test;

namespace {

std::string le32(std::int32_t v)
{
    std::string s(4, '\0');
    const auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i)
        s[static_cast<std::size_t>(i)] = static_cast<char>((u >> (8 * i)) & 0xff);
    return s;
}

/// A llama2.c run.c checkpoint of the given shape, its FP32 weights all zero; `extra` bytes more.
std::string llama2c(int dim, int hidden, int layers, int heads, int kvHeads, int vocab, int seq, bool shared,
                    int extra = 0)
{
    std::string b = le32(dim) + le32(hidden) + le32(layers) + le32(heads) + le32(kvHeads) +
                    le32(shared ? vocab : -vocab) + le32(seq);
    const std::int64_t hs = dim / heads;
    std::int64_t floats = std::int64_t{vocab} * dim + 2LL * layers * dim + 2LL * layers * dim * dim +
                          2LL * layers * dim * kvHeads * hs + 3LL * layers * dim * hidden + dim + seq * hs;
    if (!shared)
        floats += std::int64_t{vocab} * dim;
    b.append(static_cast<std::size_t>(floats * 4 + extra), '\0');
    return b;
}

/// A ZIP's first local file header naming `member` (stored, empty), then the end record.
std::string zipWith(const std::string &member)
{
    std::string b("PK\x03\x04", 4);
    b.append(22, '\0');
    b += static_cast<char>(member.size());
    b.append(3, '\0');
    b += member;
    b += std::string("PK\x05\x06", 4);
    b.append(18, '\0');
    return b;
}

/// Checkpoint::open's message for a file holding `bytes`.
std::string openError(const fs::path &p, const std::string &bytes)
{
    writeBytes(p, bytes);
    try {
        (void)Checkpoint::open(p);
    } catch (const Error &e) {
        return e.what();
    }
    return "(opened)";
}

const std::string kNot = "not a safetensors / npy / npz file (this looks like ";

} // namespace

TEST(Sniff, Llama2cBinSaysWhatItIs)
{
    ScratchDir dir;
    const auto msg = openError(dir / "stories.bin", llama2c(16, 40, 2, 4, 2, 32, 8, true));
    EXPECT_NE(msg.find(kNot + "a llama2.c checkpoint: dim 16, 2 layers, 4 heads, vocabulary 32)"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("export.py"), std::string::npos) << msg; // what to do
    EXPECT_EQ(msg.find("header length"), std::string::npos) << msg;
    // An unshared classifier (negative vocabulary) adds vocab × dim floats.
    EXPECT_NE(openError(dir / "unshared.bin", llama2c(16, 40, 2, 4, 4, 32, 8, false)).find("a llama2.c"),
              std::string::npos);
    // One byte more than the header's shapes need: not llama2.c, the reader's own message stays.
    const auto off = openError(dir / "off.bin", llama2c(16, 40, 2, 4, 2, 32, 8, true, 1));
    EXPECT_EQ(off.find("llama2.c"), std::string::npos) << off;
    EXPECT_NE(off.find("header length"), std::string::npos) << off;
}

TEST(Sniff, RealStories260KBin)
{
    const fs::path bin = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "stories260K.bin";
    if (!fs::exists(bin))
        GTEST_SKIP() << bin << " is absent";
    try {
        (void)Checkpoint::open(bin);
        FAIL() << "opened a llama2.c .bin";
    } catch (const Error &e) {
        const std::string msg = e.what();
        // Its config.json says dim 64, 5 layers, 8 heads, vocabulary 512.
        EXPECT_NE(msg.find(kNot + "a llama2.c checkpoint: dim 64, 5 layers, 8 heads, vocabulary 512)"),
                  std::string::npos)
            << msg;
    }
}

TEST(Sniff, GgufSaysWhatItIs)
{
    // A GGUF file is read by the GGUF reader, so a broken one keeps that reader's refusal (with the
    // offset), not the "not a safetensors file" of files no reader takes.
    ScratchDir dir;
    std::string b = "GGUF" + le32(3);
    b.append(2, '\0');
    const auto msg = openError(dir / "model.bin", b);
    EXPECT_EQ(msg.find(kNot), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.bin"), std::string::npos) << msg;
    // sniffForeignFile still names it for callers that ask.
    const auto f = sniffForeignFile(dir / "model.bin");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->format, ForeignFormat::Gguf);
}

TEST(Sniff, PytorchZipAndPickleSayWhatTheyAre)
{
    ScratchDir dir;
    const auto zip = openError(dir / "pytorch_model.bin", zipWith("archive/data.pkl"));
    EXPECT_NE(zip.find(kNot + "a PyTorch checkpoint (torch.save, ZIP format)"), std::string::npos) << zip;
    EXPECT_NE(zip.find("save_file"), std::string::npos) << zip;
    std::string pickle("\x80\x02\x8a\x0a", 4);
    pickle.append(40, 'x');
    const auto pt = openError(dir / "model.pt", pickle);
    EXPECT_NE(pt.find(kNot + "a Python pickle"), std::string::npos) << pt;
    EXPECT_NE(pt.find("protocol 2"), std::string::npos) << pt;
}

TEST(Sniff, PlainZipAndNpyZip)
{
    ScratchDir dir;
    const auto zip = openError(dir / "weights.zip", zipWith("readme.txt"));
    EXPECT_NE(zip.find(kNot + "a ZIP archive)"), std::string::npos) << zip;
    EXPECT_NE(zip.find("unpack"), std::string::npos) << zip;
    const auto npz = openError(dir / "arrays.zip", zipWith("w.npy"));
    EXPECT_NE(npz.find("rename it to .npz"), std::string::npos) << npz;
    // Named .npz already: the npz reader's own refusal, not "rename it".
    const auto broken = openError(dir / "arrays.npz", zipWith("w.npy"));
    EXPECT_EQ(broken.find("rename"), std::string::npos) << broken;
}

TEST(Sniff, OtherBytesAreNotGuessed)
{
    ScratchDir dir;
    const auto msg = openError(dir / "noise.bin", std::string(100, '\x7f'));
    EXPECT_EQ(msg.find("this looks like"), std::string::npos) << msg;
    // Nothing at all: no guess, and no read past the end.
    EXPECT_FALSE(sniffForeignFormat({}, {}, 0).has_value());
    const unsigned char pk[] = {'P', 'K', 3};
    EXPECT_FALSE(sniffForeignFormat(pk, pk, 3).has_value());
}
