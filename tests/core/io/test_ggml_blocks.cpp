// SPDX-License-Identifier: MIT
// The per-block entry the GPU kernels call (ggml/ggml_kquant_blocks.h quantizeBlock, ggml_block_math.h
// decode), run here on the CPU: block after block it gives ggml::quantizeRows' bytes (ggml's row
// drivers quantize_q*_K and the legacy row loop) and decodeBlocks' values for every type, with and
// without importance weights, on the seeded corner-case rows the GPU tests use (tests/gpu/
// test_gpu_ggml.cpp compares the device with the CPU on the same rows). The header's F16
// conversions equal tensor/convert.h's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../ggml_rows.h"
#include "ggml/ggml_kquant_blocks.h"
#include "ggml/ggml_quantize.h"
#include "ggml/ggml_types.h"
#include "tensor/convert.h"

using namespace quantscope;

namespace {

const ggml::Type kAll[] = {ggml::Type::Q4_0, ggml::Type::Q4_1, ggml::Type::Q5_0, ggml::Type::Q5_1, ggml::Type::Q8_0,
                           ggml::Type::Q2_K, ggml::Type::Q3_K, ggml::Type::Q4_K, ggml::Type::Q5_K, ggml::Type::Q6_K};

bool sameBits(float a, float b)
{
    return std::memcmp(&a, &b, 4) == 0;
}

} // namespace

TEST(GgmlBlocks, F16ConversionsEqualConvertH)
{
    for (std::uint32_t h = 0; h < 65536; ++h)
        ASSERT_TRUE(sameBits(ggml::blockmath::f16ToF32(static_cast<std::uint16_t>(h)),
                             ggml::halfToFloat(static_cast<std::uint16_t>(h))))
            << h;
    // FP32 → F16: a stride through all bit patterns (QS_GGML_F16_EXHAUSTIVE=1: every one), and the
    // rounding boundaries around every F16 value.
    const std::uint64_t stride = std::getenv("QS_GGML_F16_EXHAUSTIVE") ? 1 : 4099;
    std::uint64_t differ = 0;
    for (std::uint64_t u = 0; u < (1ull << 32); u += stride) {
        float f;
        const auto b = static_cast<std::uint32_t>(u);
        std::memcpy(&f, &b, 4);
        differ += ggml::blockmath::fp32ToF16(f) != floatToF16(f);
    }
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const float f = ggml::halfToFloat(static_cast<std::uint16_t>(h));
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        for (std::uint32_t d : {0x0FFFu, 0x1000u, 0x1001u}) {
            for (const std::uint32_t v : {b + d, b - d}) {
                float g;
                std::memcpy(&g, &v, 4);
                differ += ggml::blockmath::fp32ToF16(g) != floatToF16(g);
            }
        }
    }
    EXPECT_EQ(differ, 0u);
}

TEST(GgmlBlocks, PerBlockEntryEqualsTheRowDriversForEveryType)
{
    const std::int64_t rows = 8, cols = 1024;
    const std::vector<float> x = test::ggmlRows(rows, cols, 45);
    test::expectGgmlCornerCases(x, rows, cols);
    const std::vector<float> imp = test::ggmlImportance(cols, 46);
    for (const ggml::Type t : kAll) {
        for (const bool weighted : {false, true}) {
            if (weighted && !ggml::isKQuant(t))
                continue;
            const std::string label = std::string(ggml::typeName(t)) + (weighted ? " imatrix" : "");
            const float *qw = weighted ? imp.data() : nullptr;
            const std::vector<std::byte> want = ggml::quantizeRows(t, x.data(), rows, cols, qw);
            const int tv = static_cast<int>(t), V = ggml::blockmath::blockValues(tv);
            const int B = ggml::blockmath::blockBytes(tv);
            const std::int64_t nblocks = rows * cols / V;
            ASSERT_EQ(want.size(), static_cast<std::size_t>(nblocks * B)) << label;
            std::vector<unsigned char> got(want.size(), 0xA5);
            for (std::int64_t b = 0; b < nblocks; ++b)
                ggml::kquants::quantizeBlock(tv, x.data() + b * V, qw ? qw + (b * V) % cols : nullptr,
                                             got.data() + b * B);
            std::int64_t firstDiff = -1;
            for (std::size_t i = 0; i < got.size() && firstDiff < 0; ++i)
                if (got[i] != static_cast<unsigned char>(want[i]))
                    firstDiff = static_cast<std::int64_t>(i);
            EXPECT_EQ(firstDiff, -1) << label << ": first differing byte";
            // The decode of each block equals decodeBlocks' (gguf.quants.dequantize's bits).
            std::vector<float> ref(static_cast<std::size_t>(rows * cols)), mine(ref.size());
            ggml::decodeBlocks(t, want.data(), static_cast<std::size_t>(nblocks), ref.data());
            for (std::int64_t b = 0; b < nblocks; ++b)
                ASSERT_TRUE(ggml::blockmath::decode(tv, got.data() + b * B, mine.data() + b * V)) << label;
            std::size_t bitsDiffer = 0;
            for (std::size_t i = 0; i < ref.size(); ++i)
                bitsDiffer += !sameBits(ref[i], mine[i]);
            EXPECT_EQ(bitsDiffer, 0u) << label;
            // The corner cases are present: the all-zero super-block decodes to zeros, and the
            // near-GROUP_MAX_EPS block of row 2 is not all zero in W.
            for (std::int64_t c = 0; c < 256; ++c)
                ASSERT_EQ(ref[static_cast<std::size_t>(cols + c)], 0.0f) << label;
        }
    }
}

TEST(GgmlBlocks, LegacyConversionsFollowX86OnNonFiniteInput)
{
    // NaN and ±Inf reach the float → int conversions; the header writes x86-64's cvttss2si
    // (INT32_MIN) out so that the device makes the same choice.
    EXPECT_EQ(ggml::blockmath::truncToInt(std::numeric_limits<float>::quiet_NaN()), std::numeric_limits<int>::min());
    EXPECT_EQ(ggml::blockmath::truncToInt(std::numeric_limits<float>::infinity()), std::numeric_limits<int>::min());
    EXPECT_EQ(ggml::blockmath::truncToInt(-3e9f), std::numeric_limits<int>::min());
    EXPECT_EQ(ggml::blockmath::truncToInt(-2.9f), -2);
    EXPECT_EQ(ggml::blockmath::truncToInt(2147483520.0f), 2147483520);
    EXPECT_EQ(ggml::blockmath::roundAway(2.5f), 3.0f);
    EXPECT_EQ(ggml::blockmath::roundAway(-2.5f), -3.0f);
    EXPECT_EQ(ggml::blockmath::roundAway(0.49999997f), 0.0f);
    EXPECT_TRUE(std::signbit(ggml::blockmath::truncf32(-0.5f)));
    EXPECT_EQ(ggml::blockmath::floorf32(-0.5f), -1.0f);
    EXPECT_EQ(ggml::blockmath::floorf32(1e30f), 1e30f);
}
