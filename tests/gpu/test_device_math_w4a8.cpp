// SPDX-License-Identifier: MIT
// The fused W4A8 GEMM's scalar pieces (gpu/kernels/gemm/w4a8_math.h), run on the CPU: the bit
// tricks that turn a word of packed INT4 codes into the mma's INT8 / E4M3 A operand, over every
// code in every nibble position (and every zero point the E4M3 path and the folded INT8 weight
// accept), against the codes
// unpacked one by one; X's per-token quantizer against a scalar re-implementation; the bound's
// coefficient. No device needed (label core).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/gemm/w4a8_math.h"
#include "tensor/convert.h"

using namespace quantscope;
using namespace quantscope::gpumath;

namespace {

/// Byte i of a word.
int byteOf(std::uint32_t w, int i)
{
    return static_cast<int>((w >> (8 * i)) & 0xFFu);
}

/// The code of nibble j of a packed word, sign-extended the plain way.
int codeOf(std::uint32_t word, int j)
{
    const int n = static_cast<int>((word >> (4 * j)) & 0xFu);
    return n >= 8 ? n - 16 : n;
}

/// Words that put every code in every nibble position (and random mixes).
std::vector<std::uint32_t> testWords()
{
    std::vector<std::uint32_t> words;
    for (std::uint32_t c = 0; c < 16; ++c)
        for (int pos = 0; pos < 8; ++pos) {
            words.push_back(c << (4 * pos));                                          // one code, zeros elsewhere
            words.push_back((c << (4 * pos)) | (0x88888888u & ~(0xFu << (4 * pos)))); // among −8s
        }
    for (std::uint32_t c = 0; c < 16; ++c)
        words.push_back(c * 0x11111111u); // the same code everywhere
    std::mt19937 rng(43);
    for (int i = 0; i < 4000; ++i)
        words.push_back(rng());
    return words;
}

} // namespace

TEST(DeviceMathW4a8, ByteSum16AddsTheSixteenSignedBytesToTheAccumulator)
{
    // every byte value in every position once (16 words of 4 bytes cover 0 … 255 over 4 calls),
    // against the sum of the bytes read back through memcpy as int8
    std::mt19937 rng(16);
    for (int round = 0; round < 64; ++round) {
        std::uint32_t w[4];
        for (int i = 0; i < 4; ++i)
            w[i] = round < 16 ? 0x01010101u * static_cast<std::uint32_t>(16 * round + 4 * i) + 0x03020100u
                              : static_cast<std::uint32_t>(rng());
        std::int8_t bytes[16];
        std::memcpy(bytes, w, 16);
        int expect = -1000 + round;
        for (const std::int8_t b : bytes)
            expect += b;
        EXPECT_EQ(byteSum16(w[0], w[1], w[2], w[3], -1000 + round), expect) << "round " << round;
    }
    EXPECT_EQ(byteSum16(0x80808080u, 0x80808080u, 0x80808080u, 0x80808080u, 0), -128 * 16);
    EXPECT_EQ(byteSum16(0x7F7F7F7Fu, 0x7F7F7F7Fu, 0x7F7F7F7Fu, 0x7F7F7F7Fu, 5), 127 * 16 + 5);
}

TEST(DeviceMathW4a8, BytePermMatchesItsDefinition)
{
    const std::uint32_t a = 0x33221100u, b = 0x77665544u;
    EXPECT_EQ(bytePerm(a, b, 0x3210u), a);
    EXPECT_EQ(bytePerm(a, b, 0x7654u), b);
    EXPECT_EQ(bytePerm(a, b, 0x5140u), 0x55114400u);
    EXPECT_EQ(bytePerm(a, b, 0x0000u), 0x00000000u);
    EXPECT_EQ(bytePerm(a, b, 0x4567u), 0x44556677u);
}

TEST(DeviceMathW4a8, Int8OperandIsQPlus8InNibbleOrder)
{
    // lo = (q₀ + 8, …, q₃ + 8), hi = (q₄ + 8, …, q₇ + 8): non-negative INT8 bytes, every code.
    int checked = 0;
    for (const std::uint32_t word : testWords()) {
        std::uint32_t lo = 0, hi = 0;
        w4a8Int8Operand(word, lo, hi);
        for (int j = 0; j < 8; ++j) {
            const int got = static_cast<std::int8_t>(byteOf(j < 4 ? lo : hi, j & 3));
            ASSERT_EQ(got, codeOf(word, j) + 8) << std::hex << "word " << word << " nibble " << j;
            ++checked;
        }
    }
    // The zero-point term that turns Σ u·x back into Σ (q − z)·x: u − (z + 8) = q − z for all 16 codes.
    for (int n = 0; n < 16; ++n) {
        std::uint32_t lo = 0, hi = 0;
        w4a8Int8Operand(static_cast<std::uint32_t>(n), lo, hi);
        const int q = n >= 8 ? n - 16 : n;
        for (int z = -128; z <= 127; ++z)
            ASSERT_EQ(byteOf(lo, 0) - (z + 8), q - z);
    }
    EXPECT_GT(checked, 30000);
}

TEST(DeviceMathW4a8, SplitNibbleOrderPutsKAndKPlus4InOneByte)
{
    // The streaming kernel's copy (w4a8TileReorder): byte b of the split word holds the code of
    // k₀ + b in its low nibble and k₀ + 4 + b in its high one, for every code in every position; no
    // two words share a split word (a permutation of the 32 bits), checked on every 16-bit half.
    for (const std::uint32_t word : testWords()) {
        const std::uint32_t split = w4a8SplitNibbles(word);
        for (int b = 0; b < 4; ++b) {
            ASSERT_EQ(byteOf(split, b) & 0xF, static_cast<int>((word >> (4 * b)) & 0xFu)) << std::hex << word;
            ASSERT_EQ(byteOf(split, b) >> 4, static_cast<int>((word >> (16 + 4 * b)) & 0xFu)) << std::hex << word;
        }
    }
    std::vector<bool> seen(65536, false);
    for (std::uint32_t lo = 0; lo < 65536; ++lo) {
        const std::uint32_t s = w4a8SplitNibbles(lo); // the low half's nibbles land in the low nibbles only
        ASSERT_EQ(s & 0xF0F0F0F0u, 0u);
        const std::uint32_t key = (s & 0xFu) | ((s >> 4) & 0xF0u) | ((s >> 8) & 0xF00u) | ((s >> 12) & 0xF000u);
        ASSERT_FALSE(seen[key]) << lo;
        seen[key] = true;
    }
}

TEST(DeviceMathW4a8, SplitOperandsEqualTheKOrderOperands)
{
    // The streaming kernel's operands on the split word are the k-order operands of the word,
    // byte for byte: INT8 for every word, E4M3 for every zero point the E4M3 path accepts.
    for (const std::uint32_t word : testWords()) {
        std::uint32_t lo = 0, hi = 0, slo = 1, shi = 1;
        w4a8Int8Operand(word, lo, hi);
        w4a8Int8OperandSplit(w4a8SplitNibbles(word), slo, shi);
        ASSERT_EQ(slo, lo) << std::hex << word;
        ASSERT_EQ(shi, hi) << std::hex << word;
    }
    for (int z = kW4a8Fp8ZeroMin; z <= kW4a8Fp8ZeroMax; ++z) {
        const std::uint32_t zz = w4a8Fp16ZeroPair(z);
        for (const std::uint32_t word : testWords()) {
            std::uint32_t lo = 0, hi = 0, slo = 1, shi = 1;
            w4a8Fp8Operand(word, zz, lo, hi);
            w4a8Fp8OperandSplit(w4a8SplitNibbles(word), zz, slo, shi);
            ASSERT_EQ(slo, lo) << "z " << z << std::hex << " word " << word;
            ASSERT_EQ(shi, hi) << "z " << z << std::hex << " word " << word;
        }
    }
}

TEST(DeviceMathW4a8, CopyZeroReadsBackEveryZeroPointTheCopyHolds)
{
    // The copy's metadata pair: BF16 136 + z of rows gid (low half) and gid + 8 (high half), for
    // every zero point the copy keeps exact, paired with a different one in the other half.
    for (int z = -128; z <= 120; ++z) {
        const int other = -8 - (z + 128) % 113;
        const auto bf = [](int v) { return qmath::bitsOf(static_cast<float>(136 + v)) >> 16; };
        ASSERT_EQ(qmath::bitsOf(static_cast<float>(136 + z)) & 0xFFFFu, 0u) << "exact in BF16";
        const std::uint32_t lowZ = bf(z) | (bf(other) << 16), highZ = bf(other) | (bf(z) << 16);
        ASSERT_EQ(w4a8CopyZero(lowZ, 0), z);
        ASSERT_EQ(w4a8CopyZero(lowZ, 1), other);
        ASSERT_EQ(w4a8CopyZero(highZ, 1), z);
    }
}

TEST(DeviceMathW4a8, Int8CodesAreTheSignExtendedNibblesInOrder)
{
    // The unfused lab path's vectorized unpack: every code in every position, the plain INT8 q.
    for (const std::uint32_t word : testWords()) {
        std::uint32_t lo = 0, hi = 0;
        w4a8Int8Codes(word, lo, hi);
        for (int j = 0; j < 8; ++j)
            ASSERT_EQ(static_cast<std::int8_t>(byteOf(j < 4 ? lo : hi, j & 3)), codeOf(word, j))
                << std::hex << "word " << word << " nibble " << j;
    }
}

TEST(DeviceMathW4a8, BytewiseSubtractionHasNoBorrowBetweenBytes)
{
    // Every pair of bytes in every position, against four independent 8-bit subtractions.
    for (int a = 0; a < 256; ++a)
        for (int b = 0; b < 256; ++b)
            for (int pos = 0; pos < 4; ++pos) {
                const std::uint32_t fill = 0x5Au * 0x01010101u, other = 0xA5u * 0x01010101u;
                const std::uint32_t mask = 0xFFu << (8 * pos);
                const std::uint32_t wa = (fill & ~mask) | (static_cast<std::uint32_t>(a) << (8 * pos));
                const std::uint32_t wb = (other & ~mask) | (static_cast<std::uint32_t>(b) << (8 * pos));
                const std::uint32_t got = bytewiseSub(wa, wb);
                for (int i = 0; i < 4; ++i)
                    ASSERT_EQ(byteOf(got, i), (byteOf(wa, i) - byteOf(wb, i)) & 0xFF)
                        << "a " << a << " b " << b << " pos " << pos << " byte " << i;
            }
}

TEST(DeviceMathW4a8, FoldedCodesAreQMinusZForEveryZeroPointInRange)
{
    // The large-M W4A8-int8 route's weight: every zero point it accepts (and the range's ends),
    // every code in every position: the INT8 bytes of q − z.
    EXPECT_EQ(kW4a8FoldZeroMax + 7, 127);
    EXPECT_EQ(kW4a8FoldZeroMin - 8, -127);
    for (int z = kW4a8FoldZeroMin; z <= kW4a8FoldZeroMax; ++z)
        for (const std::uint32_t word : testWords()) {
            std::uint32_t lo = 0, hi = 0;
            w4a8FoldedCodes(word, z, lo, hi);
            for (int j = 0; j < 8; ++j)
                ASSERT_EQ(static_cast<std::int8_t>(byteOf(j < 4 ? lo : hi, j & 3)), codeOf(word, j) - z)
                    << "z " << z << " word " << std::hex << word << " nibble " << j;
        }
}

TEST(DeviceMathW4a8, Fp8OperandIsQMinusZExactlyInNibbleOrder)
{
    // Every zero point the E4M3 path accepts, every code in every position: the E4M3 bytes of
    // q − z (exact: integers up to 16), against the library's own FP32 → E4M3 conversion.
    for (int z = kW4a8Fp8ZeroMin; z <= kW4a8Fp8ZeroMax; ++z) {
        const std::uint32_t zz = w4a8Fp16ZeroPair(z);
        EXPECT_EQ(f16ToF32(zz & 0xFFFFu), 1032.0f + static_cast<float>(z));
        EXPECT_EQ(zz >> 16, zz & 0xFFFFu);
        for (const std::uint32_t word : testWords()) {
            std::uint32_t lo = 0, hi = 0;
            w4a8Fp8Operand(word, zz, lo, hi);
            for (int j = 0; j < 8; ++j) {
                const int v = codeOf(word, j) - z;
                ASSERT_LE(std::abs(v), 16);
                const std::uint8_t got = static_cast<std::uint8_t>(byteOf(j < 4 ? lo : hi, j & 3));
                ASSERT_EQ(got, floatToE4m3(static_cast<float>(v))) << "z " << z << " word " << std::hex << word;
                ASSERT_EQ(e4m3ToFloat(got), static_cast<float>(v)) << "exact";
            }
        }
    }
    // The FP16 pairs: 1024 + u, u = nibble XOR 8.
    for (int n = 0; n < 16; ++n) {
        const std::uint32_t p = w4a8Fp16Pair(static_cast<std::uint32_t>(n) | (static_cast<std::uint32_t>(n) << 16), 0);
        EXPECT_EQ(f16ToF32(p & 0xFFFFu), 1024.0f + static_cast<float>(n ^ 8));
        EXPECT_EQ(f16ToF32(p >> 16), 1024.0f + static_cast<float>(n ^ 8));
    }
}

TEST(DeviceMathW4a8, XQuantizerMatchesAScalarReference)
{
    // Per token: s = amax / 127 (INT8) or / 448 (E4M3), 1 for a zero row; code = RNE(x / s)
    // clamped to ±127, or E4M3(x / s) saturating — against a plain re-implementation in double
    // where the FP32 division is exact to reproduce (the quotient rounded to FP32 first).
    std::mt19937_64 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int row = 0; row < 40; ++row) {
        std::vector<float> x(256);
        for (auto &v : x)
            v = bf16ToFloat(floatToBf16(normal(rng) * (row % 7 == 0 ? 100.0f : 1.0f)));
        if (row == 3)
            std::fill(x.begin(), x.end(), 0.0f);
        if (row == 5)
            x[17] = 1e30f;
        float amax = 0;
        for (float v : x)
            amax = std::max(amax, std::fabs(v));
        for (const bool fp8 : {false, true}) {
            const float s = w4a8TokenScale(amax, fp8);
            const float expectS =
                amax > 0 ? static_cast<float>(static_cast<double>(amax) / (fp8 ? 448.0 : 127.0)) : 1.0f;
            ASSERT_EQ(s, expectS);
            for (const float v : x) {
                const double t = static_cast<double>(static_cast<float>(static_cast<double>(v) / s));
                if (fp8) {
                    ASSERT_EQ(w4a8E4m3Code(v, s), floatToE4m3(static_cast<float>(t)));
                    ASSERT_LE(std::fabs(e4m3ToFloat(w4a8E4m3Code(v, s))), 448.0f);
                } else {
                    double r = std::floor(t + 0.5);
                    if (r - t == 0.5 && std::fmod(r, 2.0) != 0) // a tie: to even
                        r -= 1.0;
                    r = std::clamp(r, -127.0, 127.0);
                    ASSERT_EQ(static_cast<int>(w4a8Int8Code(v, s)), static_cast<int>(r)) << v << " / " << s;
                }
            }
        }
    }
    // Ties round to even, the extremes clamp.
    EXPECT_EQ(w4a8Int8Code(2.5f, 1.0f), 2);
    EXPECT_EQ(w4a8Int8Code(-3.5f, 1.0f), -4);
    EXPECT_EQ(w4a8Int8Code(127.6f, 1.0f), 127);
    EXPECT_EQ(w4a8Int8Code(-500.0f, 1.0f), -127);
}

TEST(DeviceMathW4a8, BoundCoefficient)
{
    EXPECT_DOUBLE_EQ(w4a8BoundCoefficient(false, 14336), (14336.0 / 32 + 3) * std::ldexp(1.0, -24));
    EXPECT_DOUBLE_EQ(w4a8BoundCoefficient(true, 14336),
                     (14336.0 / 32 + 3) * std::ldexp(1.0, -24) + std::ldexp(1.0, -10));
}
