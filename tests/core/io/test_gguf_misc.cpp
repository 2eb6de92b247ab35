// SPDX-License-Identifier: MIT
// The ternary types and ggml's MXFP4: our quantizers against gguf.quants.quantize on edge cases
// (tests/data/gguf/*.edge.*, scripts/gguf/make-goldens.py), and where ggml's MXFP4 differs from
// the OCP MXFP4 we already quantize (docs/formats.md "GGUF"): the packing of the nibbles, the
// rounding of ties, the sign of a zero and the scale of a block maximum just below a power of two.
#include "ggml/ggml_quantize.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "numeric/fp4math.h"
#include "quant/quantizer.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

fs::path golden(const std::string &name)
{
    return fs::path(QUANTSCOPE_SOURCE_DIR) / "tests" / "data" / "gguf" / name;
}

std::vector<float> npy(const fs::path &p)
{
    const Checkpoint ck = Checkpoint::open(p);
    const Tensor t = ck.tensor(ck.entries().front().name);
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

/// ggml's MXFP4 block of one row of 32 values.
std::vector<unsigned char> ggmlMxfp4(const std::vector<float> &x)
{
    const std::vector<std::byte> b = ggml::quantizeRows(ggml::Type::MXFP4, x.data(), 1, 32);
    const auto *p = reinterpret_cast<const unsigned char *>(b.data());
    return {p, p + b.size()};
}

/// ggml's nibble of element j (low nibbles hold 0–15, high nibbles 16–31).
unsigned ggmlNibble(const std::vector<unsigned char> &blk, int j)
{
    return j < 16 ? blk[1 + j] & 0x0Fu : blk[1 + j - 16] >> 4;
}

std::vector<float> decodeGgml(const std::vector<unsigned char> &blk)
{
    std::vector<float> out(32);
    ggml::decodeBlocks(ggml::Type::MXFP4, reinterpret_cast<const std::byte *>(blk.data()), 1, out.data());
    return out;
}

} // namespace

TEST(GgufQuantize, TernaryAndMxfp4EqualGgufPackageOnEdgeCases)
{
    // Scales 1e-6 … 1e3, exact rounding ties, block maxima one ulp below a power of two, negative
    // values that round to zero, all-zero blocks: gguf.quants.quantize's bytes (make-goldens.py).
    for (const char *type : {"TQ1_0", "TQ2_0", "MXFP4"}) {
        SCOPED_TRACE(type);
        const std::vector<float> x = npy(golden(std::string(type) + ".edge.input.npy"));
        ASSERT_EQ(x.size(), 6u * 512u);
        const ggml::Type t = *ggml::typeFromName(type);
        const fs::path file = golden(std::string(type) + ".edge.gguf");
        const GgufFile f = GgufFile::open(file);
        const Tensor stored = f.rawBytes("blk.0.attn_q.weight");
        const std::vector<std::byte> codes = ggml::quantizeRows(t, x.data(), 6, 512);
        ASSERT_EQ(codes.size(), stored.nbytes());
        const auto *a = reinterpret_cast<const unsigned char *>(codes.data());
        const auto *b = reinterpret_cast<const unsigned char *>(stored.data());
        for (std::size_t i = 0; i < codes.size(); ++i)
            ASSERT_EQ(a[i], b[i]) << type << " byte " << i;
    }
}

TEST(GgmlMxfp4VsOcp, SameScaleAndCodesPackedDifferently)
{
    // Values off the rounding midpoints: both quantizers give every element the same E2M1 code
    // (ggml's doubled table is indexed by the E2M1 nibble) and the same E8M0 byte — stored apart.
    std::vector<float> x(32);
    for (int j = 0; j < 32; ++j)
        x[j] = (j % 2 ? -1.0f : 1.0f) * (0.3f + 0.37f * static_cast<float>(j % 13)) * 0.125f;
    x[5] = 0.6f; // amax: X = floor(log2 0.6) − 2 = −3
    float amax = 0;
    for (float v : x)
        amax = std::max(amax, std::fabs(v));
    const auto blk = ggmlMxfp4(x);
    ASSERT_EQ(blk.size(), 17u);
    const std::uint8_t byte = fp4::mxScaleByte(amax, fp4::MxFloor);
    EXPECT_EQ(blk[0], byte);
    EXPECT_EQ(blk[0], 127 - 3);
    const float s = fp4::e8m0Scale(byte);
    std::vector<unsigned> ocp(32);
    for (int j = 0; j < 32; ++j) {
        ocp[j] = fp4::mxCode(x[j], s);
        EXPECT_EQ(ggmlNibble(blk, j), ocp[j]) << "element " << j;
    }
    // The packing: OCP byte k = code(2k) | code(2k+1) << 4, ggml byte k = code(k) | code(k+16) << 4.
    int differing = 0;
    for (int k = 0; k < 16; ++k) {
        const unsigned ocpByte = ocp[2 * k] | (ocp[2 * k + 1] << 4);
        EXPECT_EQ(blk[1 + k], ocp[k] | (ocp[k + 16] << 4));
        differing += blk[1 + k] != ocpByte;
    }
    EXPECT_GT(differing, 8);
    // And both decode to the same numbers.
    const std::vector<float> dg = decodeGgml(blk);
    for (int j = 0; j < 32; ++j)
        EXPECT_EQ(dg[j], fp4::mxDequant(static_cast<std::uint8_t>(ocp[j]), s)) << "element " << j;
}

TEST(GgmlMxfp4VsOcp, TiesRoundToTheSmallerMagnitudeAndZeroLosesItsSign)
{
    // ggml keeps the first table entry of least |d·k − x|: a midpoint goes to the smaller
    // magnitude; OCP's E2M1 cast rounds to nearest even. amax 4 makes the scale 2^0 in both.
    const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
    const float ggmlWant[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f};
    const float ocpWant[] = {0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 4.0f, 4.0f};
    std::vector<float> x(32, 0.0f);
    x[0] = 4.0f;
    for (int i = 0; i < 7; ++i) {
        x[1 + i] = ties[i];
        x[17 + i] = -ties[i];
    }
    x[10] = -0.1f; // rounds to zero
    const auto blk = ggmlMxfp4(x);
    EXPECT_EQ(blk[0], 127 + 0);
    const std::vector<float> dg = decodeGgml(blk);
    const float s = fp4::e8m0Scale(fp4::mxScaleByte(4.0f, fp4::MxFloor));
    ASSERT_EQ(s, 1.0f);
    int differ = 0;
    for (int i = 0; i < 7; ++i) {
        const float ocpPos = fp4::mxDequant(fp4::mxCode(ties[i], s), s);
        const float ocpNeg = fp4::mxDequant(fp4::mxCode(-ties[i], s), s);
        EXPECT_EQ(dg[1 + i], ggmlWant[i]) << ties[i];
        EXPECT_EQ(dg[17 + i], -ggmlWant[i]) << -ties[i];
        EXPECT_EQ(ocpPos, ocpWant[i]) << ties[i];
        EXPECT_EQ(ocpNeg, -ocpWant[i]) << -ties[i];
        differ += dg[1 + i] != ocpPos;
    }
    EXPECT_EQ(differ, 3); // 0.75, 1.75, 3.5
    // −0.1: ggml's nibble 0 (+0, the first of the two zeros), OCP's 0x8 (−0).
    EXPECT_EQ(ggmlNibble(blk, 10), 0u);
    EXPECT_EQ(fp4::mxCode(-0.1f, s), 0x8u);
    EXPECT_FALSE(std::signbit(dg[10]));
    EXPECT_TRUE(std::signbit(fp4::mxDequant(0x8, s)));
}

TEST(GgmlMxfp4VsOcp, ScaleOfAMaximumJustBelowAPowerOfTwo)
{
    // ggml takes floor(log2f(amax)) in FP32: for amax one ulp below 16, log2f rounds to 4, so its
    // scale is 2^2 where OCP's floor rule (an exact floor) gives 2^1; our default `even` rounds
    // amax's mantissa first and lands on 2^2 as well.
    std::vector<float> x(32, 1.0f);
    x[3] = std::nextafter(16.0f, 0.0f);
    const auto blk = ggmlMxfp4(x);
    EXPECT_EQ(blk[0], 127 + 2);
    EXPECT_EQ(fp4::mxScaleByte(x[3], fp4::MxFloor), 127 + 1);
    EXPECT_EQ(fp4::mxScaleByte(x[3], fp4::MxEven), 127 + 2);
    // Through the engine's two methods: Ŵ of the maximum is 16 under ggml's scale (code 4·2^2),
    // 12 under OCP floor's (6·2^1, saturated).
    const auto ggml = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", "mxfp4"}});
    const auto ocp = makeQuantizer(nlohmann::json{{"method", "mxfp4"}, {"mode", "floor"}});
    QuantizeOptions opts;
    opts.tensorName = "t";
    const Tensor w = Tensor::fromFloats({1, 32}, x);
    const QuantizedTensor qg = ggml->quantize(w, opts), qo = ocp->quantize(w, opts);
    EXPECT_EQ(qg.dequantized[3], 16.0f);
    EXPECT_EQ(qo.dequantized[3], 12.0f);
    EXPECT_EQ(qg.scales.front(), 4.0f);
    EXPECT_DOUBLE_EQ(qg.bitsPerElement(), 4.25);
}
