// SPDX-License-Identifier: MIT
// The fused W3A16 GEMM's packed 3-bit layout (gpu/kernels/gemm/w3lr_pack.h) on the CPU, no device:
// the slots are a bijection onto the 24 words of a block; pack → unpack round-trips every code at
// every position; the kernel's register decode (pairBits: shifts and and-or into BF16 128 + u)
// gives every pair of codes at every (lane, step, half); and the kernel's fragment assembly (A from
// pairBits, B from 8 consecutive X) multiplies every code with its own x (the mma's k permutation,
// emulated on integers). Plus the FP64 reference and bound of the GPU test on a tiny case.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "kernels/gemm/w3lr_pack.h"

namespace W = quantscope::gpu::w3lr;

namespace {

/// BF16 (128 + u) → u; −1 when the bits are not of that form.
int codeOfBf16(std::uint32_t half16)
{
    return (half16 & 0xFFF8u) == 0x4300u ? static_cast<int>(half16 & 7u) : -1;
}

/// The physical k (0 … 255) of code j of step st of lane tig (the layout's definition).
int physicalK(int st, int tig, int j)
{
    return 32 * (st >> 1) + 8 * tig + 4 * (st & 1) + j;
}

} // namespace

TEST(W3lrPack, SlotsAreABijectionOntoTheBlock)
{
    std::set<std::pair<int, int>> low, high;
    for (int kk = 0; kk < W::kBlockK; ++kk) {
        const W::CodeSlot c = W::slotOf(kk);
        ASSERT_GE(c.lowWord, 0);
        ASSERT_LT(c.lowWord, 16);
        ASSERT_EQ(c.lowBit % 2, 0);
        ASSERT_LT(c.lowBit, 32);
        ASSERT_GE(c.highWord, 16);
        ASSERT_LT(c.highWord, W::kBlockWords);
        ASSERT_LT(c.highBit, 32);
        low.insert({c.lowWord, c.lowBit});
        high.insert({c.highWord, c.highBit});
        // Lane tig's words: low 4·tig … 4·tig + 3, high 16 + 2·tig, 17 + 2·tig.
        const int tig = (kk >> 3) & 3;
        EXPECT_EQ(c.lowWord / 4, tig) << kk;
        EXPECT_EQ((c.highWord - 16) / 2, tig) << kk;
    }
    EXPECT_EQ(low.size(), 256u);  // 16 words × 16 two-bit slots: every bit used once
    EXPECT_EQ(high.size(), 256u); // 8 words × 32 bits
    EXPECT_EQ(W::rowWords(14336), 14336 * 3 / 32);
}

TEST(W3lrPack, PackUnpackRoundTripsEveryCodeAtEveryPosition)
{
    const long long n = 9, k = 512;
    std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k));
    std::mt19937 rng(43);
    for (long long r = 0; r < n; ++r)
        for (long long i = 0; i < k; ++i)
            codes[static_cast<std::size_t>(r * k + i)] =
                static_cast<std::uint8_t>(r < 8 ? (r + i) % 8 : rng() % 8); // rows 0…7: every code everywhere
    std::vector<std::uint32_t> packed;
    ASSERT_TRUE(W::packCodes(codes.data(), n, k, packed));
    ASSERT_EQ(packed.size(), static_cast<std::size_t>(n * W::rowWords(k)));
    EXPECT_EQ(W::unpackCodes(packed.data(), n, k), codes);
    // 3 bits a code exactly: every bit of a block set when every code is 7.
    std::vector<std::uint8_t> sevens(256, 7);
    ASSERT_TRUE(W::packCodes(sevens.data(), 1, 256, packed));
    for (std::uint32_t w : packed)
        EXPECT_EQ(w, 0xFFFFFFFFu);
    // Refusals: K not a multiple of 256, a code above 7.
    EXPECT_FALSE(W::packCodes(codes.data(), 1, 200, packed));
    codes[5] = 8;
    EXPECT_FALSE(W::packCodes(codes.data(), 1, 256, packed));
}

TEST(W3lrPack, RegisterDecodeGivesEveryPairOfCodes)
{
    // Blocks where the even codes j = 0, 2 are a and the odd ones b, for all 64 (a, b), then random.
    std::mt19937 rng(0x3A);
    for (int trial = 0; trial < 64 + 200; ++trial) {
        std::vector<std::uint8_t> codes(256);
        for (int kk = 0; kk < 256; ++kk)
            codes[static_cast<std::size_t>(kk)] =
                static_cast<std::uint8_t>(trial < 64 ? ((kk & 1) ? trial % 8 : trial / 8) : rng() % 8);
        std::vector<std::uint32_t> block;
        ASSERT_TRUE(W::packCodes(codes.data(), 1, 256, block));
        for (int tig = 0; tig < 4; ++tig)
            for (int st = 0; st < 16; ++st)
                for (int h = 0; h < 2; ++h) {
                    const std::uint32_t lo = block[static_cast<std::size_t>(4 * tig + (st >> 2))];
                    const std::uint32_t hi = block[static_cast<std::size_t>(16 + 2 * tig + (st >> 3))];
                    const std::uint32_t p = W::pairBits(lo, hi, st, h);
                    ASSERT_EQ(codeOfBf16(p & 0xFFFFu), codes[static_cast<std::size_t>(physicalK(st, tig, 2 * h))])
                        << "tig " << tig << " step " << st << " half " << h;
                    ASSERT_EQ(codeOfBf16(p >> 16), codes[static_cast<std::size_t>(physicalK(st, tig, 2 * h + 1))])
                        << "tig " << tig << " step " << st << " half " << h;
                }
    }
}

TEST(W3lrPack, FragmentAssemblyPairsEveryCodeWithItsOwnX)
{
    // One row of W, one token: the mma's k16 step as the PTX fragments define it (A row-major:
    // a0 = k 2tig, 2tig+1, a2 = k 2tig+8, 2tig+9; B col: b0 = k 2tig, 2tig+1, b1 = k 2tig+8, 2tig+9)
    // with A from pairBits and B from X's 8 BF16 at 32·(st >> 1) + 8·tig, half st & 1; integers, exact.
    std::mt19937 rng(7);
    std::vector<std::uint8_t> codes(256);
    std::vector<long long> x(256);
    for (int i = 0; i < 256; ++i) {
        codes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(rng() % 8);
        x[static_cast<std::size_t>(i)] = static_cast<long long>(rng() % 2001) - 1000;
    }
    std::vector<std::uint32_t> block;
    ASSERT_TRUE(W::packCodes(codes.data(), 1, 256, block));
    long long want = 0;
    for (int i = 0; i < 256; ++i)
        want += codes[static_cast<std::size_t>(i)] * x[static_cast<std::size_t>(i)];
    long long got = 0;
    for (int st = 0; st < 16; ++st) {
        long long aK[16] = {}, bK[16] = {};
        for (int tig = 0; tig < 4; ++tig) {
            const std::uint32_t lo = block[static_cast<std::size_t>(4 * tig + (st >> 2))];
            const std::uint32_t hi = block[static_cast<std::size_t>(16 + 2 * tig + (st >> 3))];
            const std::uint32_t a0 = W::pairBits(lo, hi, st, 0), a2 = W::pairBits(lo, hi, st, 1);
            aK[2 * tig] = codeOfBf16(a0 & 0xFFFFu), aK[2 * tig + 1] = codeOfBf16(a0 >> 16);
            aK[2 * tig + 8] = codeOfBf16(a2 & 0xFFFFu), aK[2 * tig + 9] = codeOfBf16(a2 >> 16);
            const long long *xb = x.data() + 32 * (st >> 1) + 8 * tig + 4 * (st & 1); // b0 = xb[0, 1], b1 = xb[2, 3]
            bK[2 * tig] = xb[0], bK[2 * tig + 1] = xb[1], bK[2 * tig + 8] = xb[2], bK[2 * tig + 9] = xb[3];
        }
        for (int k = 0; k < 16; ++k)
            got += aK[k] * bK[k];
    }
    EXPECT_EQ(got, want);
}

TEST(W3lrPack, ReferenceAndBoundOnATinyCase)
{
    // One output, K = 256, group 64, rank 1: the FP64 reference by hand; a y off by twice the bound fails.
    const long long k = 256;
    std::vector<std::uint8_t> codes(k);
    std::vector<float> s(4, 0.01f), z(4, 3.5f), wHat(k), u(1, 0.5f), v(k, 0.25f);
    std::vector<std::uint16_t> x(k, 0x3F80); // 1.0
    double want = 0;
    for (long long i = 0; i < k; ++i) {
        codes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i % 8);
        wHat[static_cast<std::size_t>(i)] = 0.01f * (static_cast<float>(i % 8) - 3.5f);
        want += wHat[static_cast<std::size_t>(i)] + 0.5 * 0.25;
    }
    W::HostOperands o;
    o.m = 1, o.n = 1, o.k = k, o.group = 64, o.rank = 1;
    o.codes = codes.data(), o.scales = s.data(), o.zeros = z.data(), o.wHat = wHat.data();
    o.u = u.data(), o.v = v.data(), o.x = x.data();
    const W::Reference R = W::reference(o);
    EXPECT_NEAR(R.ref[0], want, 1e-12);
    EXPECT_NEAR(R.magC[0], 0.5 * 0.25 * k, 1e-12);
    const double b = W::bound(R, 0, k, 64, 1, false);
    EXPECT_GT(b, 0.0);
    EXPECT_LT(b, 0.05 * std::fabs(want) + 1e-3);
    float yf = static_cast<float>(R.ref[0] + 2 * b);
    std::uint32_t bitsY;
    std::memcpy(&bitsY, &yf, 4);
    const std::uint16_t y = static_cast<std::uint16_t>(bitsY >> 16);
    EXPECT_GT(W::worstOfBound(o, R, &y, false), 1.0);
}
