// SPDX-License-Identifier: MIT
// The fused FP4 GEMM's element operations (gpu/kernels/gemm/fp4gemm_math.h) on the CPU, against
// the engine's own E2M1 / E4M3 / E8M0 decoders (core/numeric/fp4math.h, tensor/convert.h) and
// FP64 products: every code in every position of a word, every scale byte, every product
// exact in BF16 (docs/numerics.md "Fused FP4 GEMM"). No device needed (label core).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/gemm/fp4gemm_math.h"
#include "numeric/fp4math.h"
#include "tensor/convert.h"

using namespace quantscope;

namespace {

float bf16Half(std::uint32_t pairBits, int half)
{
    return bf16ToFloat(static_cast<std::uint16_t>(half ? pairBits >> 16 : pairBits & 0xFFFFu));
}

/// The BF16 product of two BF16 values when it is exact: the FP64 product, checked to be a BF16.
bool exactBf16(double v)
{
    const float f = static_cast<float>(v);
    return static_cast<double>(f) == v && static_cast<double>(bf16ToFloat(floatToBf16(f))) == v;
}

/// Sign of a zero survives the decode (−0 from code 8).
bool sameBits(float a, float b)
{
    std::uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y;
}

} // namespace

TEST(Fp4GemmMath, BytePermMatchesTheSelection)
{
    // Bytes 0–3 of a, 4–7 of b, one selector nibble an output byte, high 16 bits ignored.
    const std::uint32_t a = 0x33221100u, b = 0x77665544u;
    for (std::uint32_t s = 0; s < 0x10000u; s += 0x0123u) {
        const std::uint32_t sel = s & 0x7777u;
        std::uint32_t want = 0;
        for (int i = 0; i < 4; ++i) {
            const std::uint32_t idx = (sel >> (4 * i)) & 7u;
            want |= (idx << 4 | idx) << (8 * i);
        }
        EXPECT_EQ(fp4gemm::bytePerm(a, b, sel | 0xABCD0000u), want) << std::hex << sel;
    }
}

TEST(Fp4GemmMath, E2m1PairsAreTheCodesValuesInEveryPosition)
{
    // Each of the 16 codes in each of the 8 nibbles, the other nibbles random.
    std::mt19937 rng(7);
    for (int pos = 0; pos < 8; ++pos)
        for (std::uint32_t c = 0; c < 16; ++c)
            for (int rep = 0; rep < 64; ++rep) {
                std::uint32_t word = rng();
                word = (word & ~(0xFu << (4 * pos))) | (c << (4 * pos));
                std::uint32_t p[4];
                fp4gemm::e2m1PairsBf16(word, p);
                for (int j = 0; j < 8; ++j) {
                    const std::uint32_t code = (word >> (4 * j)) & 0xFu;
                    const float got = bf16Half(p[j & 3], j >> 2); // p[j] = (n_j | n_{j+4})
                    const float want = fp4::e2m1Value(static_cast<std::uint8_t>(code));
                    ASSERT_TRUE(sameBits(got, want)) << "code " << code << " at nibble " << j << ": " << got;
                }
            }
}

TEST(Fp4GemmMath, E4m3BytesAreExactBf16)
{
    for (std::uint32_t b = 0; b < 256; ++b) {
        if ((b & 0x7F) == 0x7F)
            continue; // NaN: refused by the data check
        const float want = e4m3ToFloat(static_cast<std::uint8_t>(b));
        const float got = bf16ToFloat(fp4gemm::e4m3Bf16Bits(b));
        EXPECT_TRUE(sameBits(got, want)) << "byte " << b << ": " << got << " vs " << want;
        const std::uint32_t pairBits = fp4gemm::nvScalePair(b);
        EXPECT_EQ(pairBits >> 16, pairBits & 0xFFFFu);
    }
}

TEST(Fp4GemmMath, NvProductsOfEveryCodeAndBlockScaleAreExactInBf16)
{
    // value·b has ≤ 2 + 4 significant bits and lies in [2^-10, 2688]: a BF16, so the kernel's
    // BF16 multiply (correctly rounded) returns it exactly.
    int checked = 0;
    for (std::uint32_t b = 0; b < 256; ++b) {
        if ((b & 0x7F) == 0x7F)
            continue;
        const double s = e4m3ToFloat(static_cast<std::uint8_t>(b));
        for (std::uint32_t c = 0; c < 16; ++c) {
            const double v = fp4::e2m1Value(static_cast<std::uint8_t>(c));
            const double prod = v * s;
            ASSERT_TRUE(exactBf16(prod)) << "code " << c << " × E4M3 byte " << b;
            if (prod != 0) {
                ASSERT_GE(std::fabs(prod), std::ldexp(1.0, -126)) << "a BF16 normal";
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, 254 * 16);
}

TEST(Fp4GemmMath, MxScalePairIsThePowerOfTwoAndProductsAreExactInItsRange)
{
    for (std::uint32_t byte = 0; byte < 255; ++byte) {
        const std::uint32_t pairBits = fp4gemm::mxScalePair(byte);
        EXPECT_EQ(pairBits >> 16, pairBits & 0xFFFFu);
        const float s = bf16Half(pairBits, 0);
        if (byte == 0) {
            EXPECT_EQ(s, 0.0f); // the data check refuses byte 0 under non-zero codes
            continue;
        }
        EXPECT_EQ(s, fp4::e8m0Scale(static_cast<std::uint8_t>(byte))) << byte;
        for (std::uint32_t c = 0; c < 16; ++c) {
            const double v = fp4::e2m1Value(static_cast<std::uint8_t>(c));
            const double prod = v * static_cast<double>(s);
            const bool ok = exactBf16(prod) && std::isfinite(static_cast<float>(prod)) &&
                            (prod == 0 || std::fabs(prod) >= std::ldexp(1.0, -126));
            if (fp4gemm::mxScaleExact(byte)) {
                ASSERT_TRUE(ok) << "code " << c << " × 2^" << static_cast<int>(byte) - 127;
            }
        }
    }
    // The range is tight: byte 1 makes 0.5·2^-126 subnormal, byte 253 makes 4·2^126 overflow.
    EXPECT_FALSE(fp4gemm::mxScaleExact(1));
    EXPECT_FALSE(fp4gemm::mxScaleExact(253));
    EXPECT_LT(0.5 * std::ldexp(1.0, 1 - 127), std::ldexp(1.0, -126));
    EXPECT_GE(4.0 * std::ldexp(1.0, 253 - 127), std::ldexp(1.0, 128));
}
