// SPDX-License-Identifier: MIT
// The scalar functions the GPU kernels use (gpu/kernels/device_math.h), run on the CPU against
// the reference implementations: these need no device and run in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <Eigen/Dense>

#include "kernels/device_math.h"
#include "kernels/fp4_fast_math.h"
#include "metrics/error_metrics.h"
#include "tensor/convert.h"

using namespace quantscope;
using namespace quantscope::gpumath;

namespace {
std::uint32_t bits(float f)
{
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float fl(std::uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
} // namespace

TEST(DeviceMath, Fp8EncodeMatchesConvertOnASweep)
{
    // Every 251st FP32 pattern (all exponents, both signs, NaN and Inf included) plus the
    // neighbourhood of every E4M3/E5M2 rounding boundary is exercised; the GPU test covers all 2^32.
    std::size_t n = 0;
    for (std::uint64_t u = 0; u < (1ull << 32); u += 251, ++n) {
        const float x = fl(static_cast<std::uint32_t>(u));
        ASSERT_EQ(encodeE4m3(x), floatToE4m3(x)) << std::hex << u;
        ASSERT_EQ(encodeE5m2(x), floatToE5m2(x)) << std::hex << u;
    }
    for (int c = 0; c < 256; ++c)
        for (int fmt = 0; fmt < 2; ++fmt) {
            const float v = fmt ? e5m2ToFloat(static_cast<std::uint8_t>(c)) : e4m3ToFloat(static_cast<std::uint8_t>(c));
            if (!std::isfinite(v))
                continue;
            for (int d = -3; d <= 3; ++d) {
                const float x = fl(bits(v) + static_cast<std::uint32_t>(d));
                const float mid = fl(bits(v) + (1u << (fmt ? 20 : 19)) + static_cast<std::uint32_t>(d));
                for (float y : {x, mid, -x, -mid}) {
                    ASSERT_EQ(encodeE4m3(y), floatToE4m3(y));
                    ASSERT_EQ(encodeE5m2(y), floatToE5m2(y));
                }
            }
        }
    EXPECT_GT(n, 17000000u);
}

TEST(DeviceMath, DecodersMatchConvert)
{
    for (int c = 0; c < 256; ++c) {
        const auto b = static_cast<std::uint8_t>(c);
        const float a = decodeE4m3(b), r = e4m3ToFloat(b);
        EXPECT_TRUE(bits(a) == bits(r) || (std::isnan(a) && std::isnan(r))) << c;
        const float a2 = decodeE5m2(b), r2 = e5m2ToFloat(b);
        EXPECT_TRUE(bits(a2) == bits(r2) || (std::isnan(a2) && std::isnan(r2))) << c;
    }
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const float a = f16ToF32(h), r = f16ToFloat(static_cast<std::uint16_t>(h));
        ASSERT_TRUE(bits(a) == bits(r) || (std::isnan(a) && std::isnan(r))) << h;
        ASSERT_EQ(bits(bf16ToF32(h)), bits(bf16ToFloat(static_cast<std::uint16_t>(h))));
    }
}

TEST(DeviceMath, FloatToDoubleIsExact)
{
    for (std::uint64_t u = 0; u < (1ull << 32); u += 997) {
        const float x = fl(static_cast<std::uint32_t>(u));
        const double a = f32ToF64(x), r = static_cast<double>(x);
        ASSERT_TRUE(std::memcmp(&a, &r, 8) == 0 || (std::isnan(a) && std::isnan(r))) << std::hex << u;
    }
}

TEST(DeviceMath, ThresholdBinsEqualTheReferenceBins)
{
    std::mt19937_64 rng(7);
    std::student_t_distribution<double> t(3.0);
    for (int trial = 0; trial < 12; ++trial) {
        const int B = trial % 3 == 0 ? 256 : (trial % 3 == 1 ? 100 : 7);
        const double lo = static_cast<float>(-0.05 * (1 + trial)), hi = static_cast<float>(0.07 * (1 + trial % 5));
        Histogram h;
        h.lo = lo;
        h.hi = hi;
        h.counts.assign(static_cast<std::size_t>(B), 0);
        std::vector<float> T(static_cast<std::size_t>(B) + 1);
        for (int k = 1; k < B; ++k)
            T[static_cast<std::size_t>(k)] = floatBinThreshold(k, lo, hi, B);
        const float loF = floatAtLeast(lo), hiF = floatAtMost(hi);
        for (int i = 0; i < 20000; ++i) {
            float x = static_cast<float>(0.03 * t(rng));
            if (i % 97 == 0)
                x = T[static_cast<std::size_t>(1 + i % (B - 1))]; // exactly on a threshold
            if (i % 101 == 0)
                x = std::nextafter(T[static_cast<std::size_t>(1 + i % (B - 1))], -1.0f);
            int b;
            if (x < loF)
                b = -1;
            else if (x > hiF)
                b = B;
            else {
                b = 0;
                while (b < B - 1 && x >= T[static_cast<std::size_t>(b) + 1])
                    ++b;
            }
            ASSERT_EQ(b, h.binOf(x)) << x << " trial " << trial;
            ASSERT_EQ(histBin(x, lo, hi, B), h.binOf(x));
        }
    }
}

TEST(DeviceMath, DoubleThresholdsEqualTheFormula)
{
    std::mt19937_64 rng(9);
    for (int trial = 0; trial < 8; ++trial) {
        const int B = trial % 2 ? 4096 : 256;
        const double R = std::ldexp(1.0 + 0.37 * trial, -trial * 3);
        std::vector<double> T(static_cast<std::size_t>(B) + 1);
        for (int k = 1; k < B; ++k)
            T[static_cast<std::size_t>(k)] = doubleBinThreshold(k, R, B);
        std::uniform_real_distribution<double> u01(0.0, 1.0);
        for (int i = 0; i < 20000; ++i) {
            double u = R * u01(rng);
            if (i % 89 == 0)
                u = T[static_cast<std::size_t>(1 + i % (B - 1))];
            if (i % 83 == 0)
                u = std::nextafter(T[static_cast<std::size_t>(1 + i % (B - 1))], 0.0);
            if (i == 5)
                u = R;
            const int ref = std::min(static_cast<int>(std::floor(u * B / R)), B - 1);
            int b = 0;
            while (b < B - 1 && u >= T[static_cast<std::size_t>(b) + 1])
                ++b;
            ASSERT_EQ(b, ref) << u << " R " << R;
        }
    }
}

TEST(DeviceMath, ConversionFreeIntCodesEqualTheReference)
{
    std::mt19937_64 rng(11);
    std::student_t_distribution<float> t(3.0f);
    int combos = 0;
    for (int nb : {2, 3, 4, 8})
        for (int arith : {0, 1, 2})
            for (bool halfAway : {false, true})
                for (bool sym : {true, false}) {
                    IntParams p;
                    p.qmin = -(1 << (nb - 1));
                    p.qmax = (1 << (nb - 1)) - 1;
                    p.symmetric = sym;
                    p.divisor = static_cast<float>(p.qmax - p.qmin) / 2.0f;
                    p.range = static_cast<float>(p.qmax - p.qmin);
                    p.arith = arith;
                    p.halfAway = halfAway;
                    ++combos;
                    for (int gtrial = 0; gtrial < 200; ++gtrial) {
                        float x[32], mn = 1e30f, mx = -1e30f;
                        for (float &v : x) {
                            v = 0.02f * t(rng);
                            if (arith == 1)
                                v = qmath::roundBf16(v);
                            if (arith == 2)
                                v = qmath::roundF16(v);
                            mn = std::min(mn, v);
                            mx = std::max(mx, v);
                        }
                        float s;
                        int z;
                        intGroupParams(p, mn, mx, s, z);
                        const float zf = static_cast<float>(z);
                        for (float v : x) {
                            const int q = intCode(p, v, s, z);
                            const float qf =
                                intCodeValue(p, v, s, zf, static_cast<float>(p.qmin), static_cast<float>(p.qmax));
                            ASSERT_EQ(static_cast<std::uint8_t>(static_cast<std::int8_t>(q)),
                                      static_cast<std::uint8_t>(intOfFloat(qf) & 0xFFu));
                            ASSERT_EQ(bits(intDequant(p, q, s, z)), bits(intDequantValue(p, qf, s, zf)));
                        }
                    }
                }
    EXPECT_EQ(combos, 48);
    for (float v : {0.0f, -0.0f, 1.2e-38f, 1.0f, -2.5f, 1e30f, -3.4e38f})
        EXPECT_EQ(bits(static_cast<float>(f32ToF64NormalOrZero(v))), bits(v)) << v;
    EXPECT_FALSE(isNormalOrZero(1.5e-40f));
    EXPECT_TRUE(isNormalOrZero(-0.0f));
    EXPECT_FALSE(isNormalOrZero(std::numeric_limits<float>::infinity()));
}

namespace {
/// The CPU's quotient rounding (docs/numerics.md: round half to even of RN(x/s)).
float rneOfQuotient(float x, float s)
{
    return std::nearbyint(x / s);
}
} // namespace

TEST(DeviceMath, ReciprocalRoundingAgreesWithTheDivisionWheneverItSaysSo)
{
    // Random scales over many octaves, quotients spread over ±20 and concentrated within a few
    // ulps of the half-integers (where the shortcut must step aside), and exact half-integers.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> oct(-60.0, 60.0), q(-20.0, 20.0), u01(0.0, 1.0);
    std::uniform_int_distribution<int> k(-20, 20), ulps(-6, 6);
    std::size_t checked = 0, declined = 0;
    for (int i = 0; i < 3000000; ++i) {
        const float s = static_cast<float>(std::exp2(oct(rng)) * (1.0 + u01(rng)));
        float x;
        if (i % 3 == 0) {
            x = static_cast<float>(q(rng) * s);
        } else {
            // A half-integer multiple of s, then a few ulps either way.
            const float h = static_cast<float>((k(rng) + 0.5) * static_cast<double>(s));
            const int d = ulps(rng);
            x = fl(bits(h) + static_cast<std::uint32_t>(d));
        }
        if (!std::isfinite(x) || !(s >= 1.1754943508222875e-38f && s < 4.2535295865117308e37f))
            continue;
        const float r = 1.0f / s;
        const float t = x * r;
        const float rt = std::nearbyint(t);
        if (!reciprocalRoundsLikeDivision(t, rt)) {
            ++declined;
            continue;
        }
        ++checked;
        ASSERT_EQ(bits(rt), bits(rneOfQuotient(x, s))) << "x " << x << " s " << s;
    }
    EXPECT_GT(checked, 1000000u);
    EXPECT_GT(declined, 1000u); // the near-tie inputs do reach the exact division
    // An exact half-integer quotient is always declined (both roundings are ties).
    EXPECT_FALSE(reciprocalRoundsLikeDivision(2.5f, 2.0f));
    EXPECT_FALSE(reciprocalRoundsLikeDivision(std::numeric_limits<float>::quiet_NaN(), 0.0f));
}

TEST(DeviceMath, ExactDifferenceClaimsOnlyExactDifferences)
{
    // x: BF16 weights; y: s·(q − z) as the INT dequantizer forms it, from the same group range or
    // from an unrelated one (where the check must decline).
    std::mt19937_64 rng(12);
    std::student_t_distribution<float> t(3.0f);
    std::uniform_int_distribution<int> code(-8, 7);
    std::size_t claimed = 0, declined = 0;
    for (int i = 0; i < 2000000; ++i) {
        const float x = bf16ToFloat(floatToBf16(0.02f * t(rng)));
        const float s = i % 4 == 0 ? 0.02f * std::abs(t(rng)) + 1e-30f : 0.01f;
        const float y =
            (i % 4 == 0 ? s : std::nearbyint(x / s) * s) * (i % 7 == 0 ? static_cast<float>(code(rng)) : 1.0f);
        const float e = x - y;
        if (!exactDifference(e, y)) {
            ++declined;
            continue;
        }
        ++claimed;
        ASSERT_EQ(static_cast<double>(x) - static_cast<double>(y), static_cast<double>(e)) << x << " " << y;
    }
    EXPECT_GT(claimed, 1000000u);
    EXPECT_GT(declined, 1000u);
    // A rounded difference is declined: 1 − 2^-30 is not a float, and 2|e| = 2 ≥ |y| = 2^-30.
    EXPECT_FALSE(exactDifference(1.0f - 9.313225746154785e-10f, 9.313225746154785e-10f));
    EXPECT_TRUE(exactDifference(0.5f, 0.0f));
}

TEST(DeviceMath, GroupsInRangeNeedNoClampAndHaveExactErrors)
{
    // Groups of BF16 values (heavy-tailed, positive-only, exact multiples of 2^-7, groups built so
    // that an extreme sits on a rounding tie), INT 2/3/4 bits, symmetric and asymmetric, with the
    // CPU's own group parameters: when groupCodesInRange says so, no element's unclamped code
    // leaves [qmin, qmax] and every FP32 error x − x̂ equals the FP64 difference. When it says
    // no, some element's code is outside (the claim is tight, not merely safe).
    std::mt19937_64 rng(13);
    std::student_t_distribution<float> t(3.0f);
    std::uniform_int_distribution<int> kind(0, 3), small(-40, 40);
    std::size_t inRange = 0, outOfRange = 0, elements = 0, exactClaims = 0, clampedExact = 0;
    for (int nb : {2, 3, 4})
        for (bool sym : {false, true}) {
            IntParams p;
            p.qmin = -(1 << (nb - 1));
            p.qmax = (1 << (nb - 1)) - 1;
            if (!sym) {
                p.qmin = 0;
                p.qmax = (1 << nb) - 1;
            }
            p.symmetric = sym;
            p.divisor = static_cast<float>(p.qmax - p.qmin) / 2.0f;
            p.range = static_cast<float>(p.qmax - p.qmin);
            const float qminF = static_cast<float>(p.qmin), qmaxF = static_cast<float>(p.qmax);
            for (int g = 0; g < 40000; ++g) {
                float x[64], mn = 1e30f, mx = -1e30f;
                const int k = kind(rng);
                for (float &v : x) {
                    if (k == 0)
                        v = 0.02f * t(rng);
                    else if (k == 1)
                        v = std::abs(0.02f * t(rng)) + 0.01f;
                    else
                        v = static_cast<float>(small(rng)) * 0.0078125f;
                    v = bf16ToFloat(floatToBf16(v));
                }
                if (k == 3) // an element at the half-integer between two codes of the group's scale
                    for (int j = 0; j < 4; ++j) {
                        float lo = 1e30f, hi = -1e30f;
                        for (float v : x)
                            lo = std::min(lo, v), hi = std::max(hi, v);
                        float s0;
                        int z0;
                        intGroupParams(p, lo, hi, s0, z0);
                        x[j] = bf16ToFloat(floatToBf16((static_cast<float>(small(rng) % 4) + 0.5f) * s0));
                    }
                for (float v : x)
                    mn = std::min(mn, v), mx = std::max(mx, v);
                float s;
                int z;
                intGroupParams(p, mn, mx, s, z);
                const float zf = static_cast<float>(z), r = 1.0f / s;
                const bool claim = groupCodesInRange(mn, mx, s, r, zf, qminF, qmaxF);
                bool anyOut = false;
                for (float v : x) {
                    const float u = std::nearbyint(v / s) + zf; // the CPU's unclamped code
                    anyOut = anyOut || u < qminF || u > qmaxF;
                    if (!claim)
                        continue;
                    ++elements;
                    ASSERT_GE(u, qminF) << v << " " << s;
                    ASSERT_LE(u, qmaxF) << v << " " << s;
                    const float y = intDequantValue(p, u, s, zf);
                    const float e = v - y;
                    ASSERT_EQ(static_cast<double>(v) - static_cast<double>(y), static_cast<double>(e))
                        << "x " << v << " s " << s << " code " << u;
                }
                ASSERT_EQ(claim, !anyOut) << "group extremes " << mn << " " << mx;
                (claim ? inRange : outOfRange) += 1;
                // With clamping: groupErrorsExact must only claim groups whose clamped errors are
                // exact FP32 differences too.
                if (groupErrorsExact(mn, mx, s, r, zf, qminF, qmaxF)) {
                    ++exactClaims;
                    clampedExact += claim ? 0 : 1;
                    for (float v : x) {
                        const float q = intCodeValue(p, v, s, zf, qminF, qmaxF); // clamped
                        const float y = intDequantValue(p, q, s, zf);
                        ASSERT_EQ(static_cast<double>(v) - static_cast<double>(y), static_cast<double>(v - y))
                            << "x " << v << " s " << s << " code " << q;
                    }
                }
            }
        }
    EXPECT_GT(inRange, 50000u);
    EXPECT_GT(outOfRange, 10000u); // symmetric groups clamp their largest element, for instance
    EXPECT_GT(elements, 3000000u);
    EXPECT_GE(exactClaims, inRange); // every in-range group is also exact
    EXPECT_GT(clampedExact, 10000u); // and so are most clamping ones (symmetric groups)
    // The conditions one at a time (s = 1, z = 0): a symmetric INT4 extreme 7.5 rounds to 8, one
    // level over qmax = 7 with multiplier 7: exact. One level over a multiplier of 1 (x/s up to 2.5
    // against x̂ = 1: outside Sterbenz's [x̂/2, 2x̂]) or two levels over: not claimed.
    EXPECT_TRUE(groupErrorsExact(-7.5f, 7.5f, 1.0f, 1.0f, 0.0f, -8.0f, 7.0f));
    EXPECT_FALSE(groupErrorsExact(0.0f, 2.3f, 1.0f, 1.0f, 0.0f, -2.0f, 1.0f));
    EXPECT_FALSE(groupErrorsExact(0.0f, 9.2f, 1.0f, 1.0f, 0.0f, -8.0f, 7.0f));
    EXPECT_FALSE(groupErrorsExact(-10.2f, 0.0f, 1.0f, 1.0f, 0.0f, -8.0f, 7.0f));
    EXPECT_FALSE(groupErrorsExact(-2.3f, 0.0f, 1.0f, 1.0f, 0.0f, -1.0f, 2.0f));
}

TEST(DeviceMath, BandBinsEqualTheReferenceBins)
{
    // The INT pass 2 bins an error e ∈ [emin, emax] (and |e| ∈ [0, max|e|]) from its FP32 position
    // and reads a threshold only within eps of an edge. Ranges as errors have them (both signs,
    // one-sided, lopsided, tiny and huge), values drawn inside the range and at every threshold
    // and its float neighbours: each bin must equal the CPU's (histBin), and most decisions must
    // not need the table (else the shortcut would be pointless).
    std::mt19937_64 rng(21);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::size_t checked = 0, randomChecked = 0, randomTableReads = 0;
    struct Range {
        double lo, hi;
        int B;
    };
    const Range ranges[] = {{-0.0123, 0.0131, 256}, {0.0, 0.0131, 4096}, {-3e-7, 5e-7, 256}, {0.0, 2.5e4, 4096},
                            {-0.9, -0.1, 256},      {0.1, 0.9, 100},     {-1e-3, 1e-3, 4096}};
    for (const Range &R : ranges) {
        const int B = R.B;
        std::vector<float> T(static_cast<std::size_t>(B) + 1);
        for (int k = 0; k <= B; ++k)
            T[static_cast<std::size_t>(k)] = floatBinThreshold(k, R.lo, R.hi, B);
        T[0] = -std::numeric_limits<float>::infinity(); // the kernel's sentinels
        T[static_cast<std::size_t>(B)] = std::numeric_limits<float>::infinity();
        const float scale = static_cast<float>(B / (R.hi - R.lo));
        // The kernel's guarantee for the range (Stats1::fastBins): positions within [0, B].
        const double ulp = (std::abs(R.lo) + std::abs(R.hi)) * 2.384185791015625e-7;
        if (!(ulp * B / (R.hi - R.lo) < 0.05))
            continue;
        const Band bd = band(R.lo, R.hi, scale, B);
        const float loF = floatAtLeast(R.lo), hiF = floatAtMost(R.hi);
        auto check = [&](float v, bool random) {
            if (!(v >= loF && v <= hiF))
                return;
            const float pos = std::fma(v, bd.scale, bd.offset);
            bool read = false;
            const int b = bandBin(v, pos, bd.eps, [&](int r) {
                read = true;
                EXPECT_GE(r, 0);
                EXPECT_LE(r, B);
                return T[static_cast<std::size_t>(r)];
            });
            int ref = histBin(static_cast<double>(v), R.lo, R.hi, B);
            ref = ref < 0 ? 0 : (ref >= B ? B - 1 : ref);
            ASSERT_EQ(b, ref) << "v " << v << " range [" << R.lo << ", " << R.hi << "] B " << B;
            ++checked;
            randomChecked += random ? 1 : 0;
            randomTableReads += random && read ? 1 : 0;
        };
        for (int i = 0; i < 200000; ++i)
            check(static_cast<float>(R.lo + (R.hi - R.lo) * u01(rng)), true);
        std::size_t edgeChecks = 0;
        for (int k = 1; k < B; ++k)
            for (int d = -3; d <= 3; ++d) {
                check(fl(bits(T[static_cast<std::size_t>(k)]) + static_cast<std::uint32_t>(d)), false);
                ++edgeChecks;
            }
        EXPECT_GT(edgeChecks, 0u);
    }
    EXPECT_GT(checked, 1000000u);
    EXPECT_LT(randomTableReads * 50, randomChecked); // for values away from the edges the table is the exception
}

TEST(DeviceMath, ReciprocalSafeBelowIsAtLeastAsStrictAsTheElementCheck)
{
    // With T ≥ |t|: |t − rt| < reciprocalSafeBelow(T) must imply reciprocalRoundsLikeDivision(t, rt)
    // (which the test above ties to the division itself).
    std::mt19937_64 rng(22);
    std::uniform_real_distribution<double> q(-20.0, 20.0), grow(1.0, 4.0);
    std::uniform_int_distribution<int> k(-20, 20), ulps(-40, 40);
    std::size_t claimed = 0;
    for (int i = 0; i < 3000000; ++i) {
        float t = i % 2 ? static_cast<float>(q(rng))
                        : fl(bits(static_cast<float>(k(rng) + 0.5)) + static_cast<std::uint32_t>(ulps(rng)));
        const float rt = std::nearbyint(t);
        const float T = static_cast<float>(std::abs(t) * grow(rng));
        if (!(std::abs(t - rt) < reciprocalSafeBelow(T)))
            continue;
        ++claimed;
        ASSERT_TRUE(reciprocalRoundsLikeDivision(t, rt)) << t << " " << T;
    }
    EXPECT_GT(claimed, 1000000u);
}

// ---- the FP4 value-table path's shortcuts (gpu/kernels/fp4_fast_math.h) ------------------------

TEST(DeviceMath, Fp4Pow2ReciprocalMultipliesLikeTheDivision)
{
    // Every E8M0 scale 2^(byte − 127), byte 0..254 (2^-127 is an FP32 subnormal): the reciprocal is
    // 1/s exactly, and x·r equals the CPU's x/s for every BF16 and F16 value (zeros, subnormals,
    // Inf included) and for random FP32 patterns (NaN excluded: the path never sees one).
    std::mt19937 rng(5);
    std::size_t n = 0;
    for (int b = 0; b <= 254; ++b) {
        const float s = fp4::e8m0Scale(static_cast<std::uint8_t>(b));
        const float r = pow2Reciprocal(s);
        ASSERT_EQ(bits(r), bits(1.0f / s)) << "byte " << b;
        auto check = [&](float x) {
            if (std::isnan(x))
                return;
            ++n;
            ASSERT_EQ(bits(x * r), bits(x / s)) << "x " << x << " byte " << b;
        };
        for (std::uint32_t h = 0; h < 65536; ++h) {
            check(bf16ToF32(h));
            check(f16ToF32(h));
        }
        for (int i = 0; i < 4000; ++i)
            check(fl(rng()));
    }
    EXPECT_GT(n, 30000000u);
}

TEST(DeviceMath, E2m1CodeByComparisonsEqualsTheReference)
{
    // Every 97th FP32 pattern, every BF16 value, and the float neighbours of every rounding
    // threshold and grid point (ties to even: 0.25 → 0, 0.75 → 1, …, 5 → 4; above 6 and Inf → 6),
    // both signs: the code of fp4::e2m1Code (NaN excluded, where e2m1Code drops the sign).
    std::size_t n = 0;
    auto check = [&](float t) {
        if (std::isnan(t))
            return;
        ++n;
        ASSERT_EQ(e2m1CodeNotNaN(t), fp4::e2m1Code(t)) << std::hexfloat << t;
    };
    for (std::uint64_t u = 0; u < (1ull << 32); u += 97)
        check(fl(static_cast<std::uint32_t>(u)));
    for (std::uint32_t h = 0; h < 65536; ++h)
        check(bf16ToF32(h));
    for (float v : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 12.0f,
                    std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()})
        for (int d = -4; d <= 4; ++d)
            for (float sg : {1.0f, -1.0f}) {
                const std::uint32_t u = bits(v);
                if ((d < 0 && u < static_cast<std::uint32_t>(-d)) || (d > 0 && u >= 0x7F800000u))
                    continue;
                check(sg * fl(u + static_cast<std::uint32_t>(d)));
            }
    EXPECT_GT(n, 44000000u);
    EXPECT_EQ(e2m1CodeNotNaN(-0.0f), 8u); // the sign of a value that rounds to 0 is kept
    EXPECT_EQ(e2m1CodeNotNaN(-std::numeric_limits<float>::infinity()), 15u);
}

namespace {
/// BF16 groups of 32 that stress the FP4 path: heavy-tailed, positive-only, exact multiples of
/// 2^-7, all equal, all zero (and −0), subnormal-only, a mix of huge and tiny, and groups whose
/// elements sit on the E2M1 rounding thresholds (and grid points) of the group's own scale.
std::vector<float> fp4StressGroup(int kind, std::mt19937_64 &rng, float scaleOf(const float *, int))
{
    std::student_t_distribution<float> t(3.0f);
    std::uniform_int_distribution<int> small(-40, 40), pick(0, 15);
    std::vector<float> x(32);
    const float same = 0.02f * t(rng);
    for (std::size_t j = 0; j < x.size(); ++j) {
        float v = 0.0f;
        switch (kind) {
        case 0:
            v = 0.02f * t(rng);
            break;
        case 1:
            v = std::abs(0.02f * t(rng)) + 0.01f;
            break;
        case 2:
            v = static_cast<float>(small(rng)) * 0.0078125f;
            break;
        case 3:
            v = same;
            break;
        case 4:
            v = j % 2 ? 0.0f : -0.0f;
            break;
        case 5:
            v = static_cast<float>(small(rng)) * 1e-39f;
            break;
        case 6:
            v = j % 3 ? 1e30f * t(rng) : 1e-30f * t(rng);
            break;
        default:
            v = 0.02f * t(rng);
            break;
        }
        x[j] = bf16ToFloat(floatToBf16(v));
    }
    if (kind == 7) { // thresholds and grid points of the group's scale, both signs
        const float grid[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f,
                              0.5f,  1.0f,  1.5f,  2.0f,  3.0f, 4.0f, 7.0f, 12.0f};
        const float s = scaleOf(x.data(), 32);
        for (std::size_t j = 0; j + 1 < x.size(); j += 2)
            x[j] = bf16ToFloat(floatToBf16((j % 4 ? -1.0f : 1.0f) * grid[pick(rng)] * s));
    }
    return x;
}
} // namespace

TEST(DeviceMath, Fp4PathCodesAndExactErrorsEqualTheReference)
{
    // The FP4 pass 1 per element: code = e2m1CodeNotNaN(x·pow2Reciprocal(s)) must be the CPU's
    // e2m1Code(x/s) and x̂ its fp4Dequant; where fp4ErrorsExact(RN(amax·r)) claims the group, every
    // FP32 error x − x̂ must equal the FP64 difference. MXFP4 in all three modes (always claimed
    // while x̂ is finite: amax/s < 8) and constOpt pow2 at several c (small c: not claimed; at
    // c = 1e-9, x/s ≈ 2^30 and x − 6s is really rounded — the FP64 route is needed).
    std::mt19937_64 rng(29);
    std::uniform_int_distribution<int> kindOf(0, 7);
    std::size_t elements = 0, claimedGroups = 0, unclaimedGroups = 0, roundedWhereUnclaimed = 0;
    struct Scheme {
        int mx; // MX mode, or −1: constOpt pow2 at c
        float c;
    };
    for (const Scheme sc : {Scheme{fp4::MxEven, 0}, Scheme{fp4::MxFloor, 0}, Scheme{fp4::MxCeil, 0}, Scheme{-1, 0.156f},
                            Scheme{-1, 0.3331f}, Scheme{-1, 0.05f}, Scheme{-1, 0.01f}, Scheme{-1, 1e-9f}}) {
        static Scheme cur;
        cur = sc;
        auto scaleOf = [](const float *x, int n) {
            float mn = x[0], mx = x[0];
            for (int j = 1; j < n; ++j)
                mn = std::min(mn, x[j]), mx = std::max(mx, x[j]);
            if (cur.mx >= 0)
                return fp4::mxGroupScale(mn, mx, cur.mx);
            return fp4::constOptScale(std::max(std::abs(mn), std::abs(mx)), cur.c, false);
        };
        for (int g = 0; g < 30000; ++g) {
            const auto x = fp4StressGroup(kindOf(rng), rng, scaleOf);
            const float s = scaleOf(x.data(), 32);
            const float r = pow2Reciprocal(s);
            float amax = 0.0f;
            for (float v : x)
                amax = std::max(amax, std::abs(v));
            const bool claim = fp4ErrorsExact(amax * r);
            bool allFinite = true, anyRounded = false;
            for (float v : x) {
                const std::uint32_t c = e2m1CodeNotNaN(v * r);
                const std::uint8_t ref = sc.mx >= 0 ? fp4::mxCode(v, s) : fp4::constOptCode(v, s);
                ASSERT_EQ(c, ref) << "x " << v << " s " << s;
                const float y = fp4::fp4Dequant(static_cast<std::uint8_t>(c), s);
                ASSERT_EQ(bits(y), bits(sc.mx >= 0 ? fp4::mxDequant(ref, s) : fp4::fp4Dequant(ref, s)));
                allFinite = allFinite && std::isfinite(y);
                const bool exact = static_cast<double>(v) - static_cast<double>(y) == static_cast<double>(v - y);
                anyRounded = anyRounded || !exact;
                ++elements;
                if (claim && std::isfinite(y)) {
                    ASSERT_TRUE(exact) << "x " << v << " s " << s << " x̂ " << y;
                }
            }
            if (sc.mx >= 0 && allFinite) {
                ASSERT_TRUE(claim) << "MXFP4 group with amax " << amax << " s " << s;
            }
            (claim ? claimedGroups : unclaimedGroups) += 1;
            roundedWhereUnclaimed += !claim && anyRounded ? 1 : 0;
        }
    }
    EXPECT_GT(elements, 7000000u);
    EXPECT_GT(claimedGroups, 140000u);
    EXPECT_GT(unclaimedGroups, 5000u);
    EXPECT_GT(roundedWhereUnclaimed, 100u);
    EXPECT_TRUE(fp4ErrorsExact(12.0f));
    EXPECT_FALSE(fp4ErrorsExact(12.000001f));
    EXPECT_FALSE(fp4ErrorsExact(std::numeric_limits<float>::infinity()));
    EXPECT_FALSE(fp4ErrorsExact(std::numeric_limits<float>::quiet_NaN()));
}

TEST(DeviceMath, Nvfp4CodeByThresholdsEqualsTheDivisionEverywhere)
{
    // NVFP4's effective scales e = b/global (b every positive E4M3 value, global = 2688/amax for
    // random and edge amax, subnormal and huge e included) and e straight from FP32 patterns: for
    // e with few significant bits (so that x/e = T exactly, a tie of the code's rounding): for
    // every BF16 and F16 value x (a stride through them), the values at and around each rounding
    // midpoint m·e and threshold T·e (built from the FP64 product, ± 3 FP32 steps) and their
    // negatives, the code from the group's FP32 thresholds equals fp4::nvCode(x, e) =
    // e2m1Code(RN(x/e)), the CPU's division — no exception, no fallback. (x/e can never equal a
    // midpoint m exactly: m has 25 significant bits.)
    const double mid[7] = {0.25 + 0x1p-26, 0.75 - 0x1p-25, 1.25 + 0x1p-24, 1.75 - 0x1p-24,
                           2.5 + 0x1p-23,  3.5 - 0x1p-23,  5.0 + 0x1p-22};
    const float thrT[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
    std::mt19937_64 rng(71);
    std::uniform_real_distribution<float> amaxDist(-20.0f, 20.0f);
    std::vector<float> effs;
    for (int trial = 0; trial < 40; ++trial) {
        const float amax = trial == 0   ? 1.0f
                           : trial == 1 ? 6.0f
                           : trial == 2 ? 1e-34f // global ≈ 2.7e37: subnormal e
                           : trial == 3 ? 3e38f  // global ≈ 9e-36: huge e
                                        : std::exp2(amaxDist(rng));
        const float global = fp4::nvGlobalScale(amax);
        for (std::uint32_t bc = 1; bc < 0x7F; bc += 3)
            effs.push_back(fp4::nvEffective(e4m3ToFloat(static_cast<std::uint8_t>(bc)), global));
    }
    std::uniform_int_distribution<std::uint32_t> patterns(1u, 0x7F7FFFFFu); // positive finite FP32
    for (int i = 0; i < 400; ++i)
        effs.push_back(fl(patterns(rng)));
    for (int j = -140; j < 120; j += 7)
        for (int k = 0; k < 8; ++k)
            effs.push_back(std::ldexp(1.0f + static_cast<float>(k) / 8.0f, j));
    effs.push_back(std::numeric_limits<float>::max());
    effs.push_back(std::numeric_limits<float>::denorm_min());
    std::size_t checked = 0, atThreshold = 0;
    for (const float e : effs) {
        ASSERT_TRUE(e > 0.0f && std::isfinite(e));
        float thr[7];
        nvCodeThresholds(e, thr);
        auto check = [&](float x) {
            if (std::isnan(x))
                return;
            ASSERT_EQ(nvCodeByThresholds(x, thr), fp4::nvCode(x, e)) << "x " << x << " e " << e;
            ++checked;
        };
        for (std::uint32_t h = 0; h < 65536; h += 5) {
            check(bf16ToF32(h));
            check(f16ToF32(h));
        }
        for (int k = 0; k < 7; ++k) {
            const double pts[2] = {mid[k] * static_cast<double>(e), static_cast<double>(thrT[k]) * e};
            for (int q = 0; q < 2; ++q) {
                const float c = static_cast<float>(pts[q]);
                if (!std::isfinite(c))
                    continue;
                atThreshold += q == 1 && static_cast<double>(c) == pts[q] ? 1 : 0; // x/e = T: a tie
                for (int d = -3; d <= 3; ++d) {
                    const float x = fl(bits(c) + static_cast<std::uint32_t>(d));
                    check(x);
                    check(-x);
                }
            }
        }
        check(std::numeric_limits<float>::infinity());
        check(-std::numeric_limits<float>::infinity());
        check(std::numeric_limits<float>::max());
        check(-0.0f);
        check(std::numeric_limits<float>::denorm_min());
    }
    EXPECT_GT(checked, 20000000u);
    EXPECT_GT(atThreshold, 1000u); // exact ties were among the inputs
    // The block byte: the CPU's rule (cast to E4M3, 0 → 0.125) for targets from 0 to past 448.
    std::uniform_real_distribution<float> tExp(-16.0f, 10.0f);
    for (int i = 0; i < 200000; ++i) {
        const float t = i == 0 ? 0.0f : (i == 1 ? 448.0f : (i == 2 ? 1e30f : std::exp2(tExp(rng))));
        const float b0 = e4m3ToFloat(floatToE4m3(t));
        const float ref = b0 == 0.0f ? 0.125f : b0;
        const std::uint32_t byte = nvBlockByte(t);
        ASSERT_LT(byte, 0x7Fu) << t;
        ASSERT_EQ(bits(decodeE4m3(byte)), bits(ref)) << t;
    }
}

TEST(DeviceMath, CholeskyGuardTrustsOnlyPassesThatCholeskyQr2MakesOrthonormal)
{
    // The range sketch's Gram route (gpu/host/linalg_sketch.h) trusts a CholeskyQR pass when
    // cholDiagonalOk holds for its R, and orthonormalises its final Q with a second pass. Here the
    // same two FP64 passes (Eigen's LLT) on Y [400 × 40] of condition κ, singular values geometric
    // between 1 and 1/κ, random singular vectors: a trusted pass always ends with
    // ‖QᵀQ − I‖_max ≤ 1e-13; κ ≤ 1e6 is trusted; κ ≥ 1e8 is not — at 1e8 the Cholesky itself still
    // succeeds, so the guard, not the factorisation's status, is what sends it to Householder.
    using Mat = Eigen::MatrixXd;
    constexpr double kRatio = 1e-6; // the Gram route's bound (linalg_sketch_gram.cpp)
    std::mt19937_64 rng(3);
    std::normal_distribution<double> nd;
    const int m = 400, l = 40;
    auto randomQ = [&](int rows, int cols) {
        Mat a(rows, cols);
        for (Eigen::Index i = 0; i < a.size(); ++i)
            a.data()[i] = nd(rng);
        return Mat(Eigen::HouseholderQR<Mat>(a).householderQ() * Mat::Identity(rows, cols));
    };
    for (const double kappa : {1.0, 1e2, 1e4, 1e6, 1e7, 1e8, 3e8, 1e9, 1e12}) {
        for (int trial = 0; trial < 4; ++trial) {
            Eigen::VectorXd s(l);
            for (int i = 0; i < l; ++i)
                s[i] = std::pow(kappa, -static_cast<double>(i) / (l - 1));
            Mat q = randomQ(m, l) * s.asDiagonal() * randomQ(l, l).transpose();
            bool cholOk = true, trusted = true, firstCholOk = false;
            for (int pass = 0; pass < 2 && cholOk && trusted; ++pass) {
                Eigen::LLT<Mat> llt(q.transpose() * q);
                cholOk = llt.info() == Eigen::Success;
                if (pass == 0)
                    firstCholOk = cholOk;
                if (!cholOk)
                    break;
                const Mat r = llt.matrixU();
                const Eigen::VectorXd d = r.diagonal().cwiseAbs();
                trusted = cholDiagonalOk(d.minCoeff(), d.maxCoeff(), d.allFinite(), kRatio);
                q = r.transpose().triangularView<Eigen::Lower>().solve(q.transpose()).transpose();
            }
            const std::string what = "κ " + std::to_string(kappa) + " trial " + std::to_string(trial);
            if (cholOk && trusted) {
                EXPECT_LE((q.transpose() * q - Mat::Identity(l, l)).cwiseAbs().maxCoeff(), 1e-13) << what;
            }
            if (kappa <= 1e6) {
                EXPECT_TRUE(cholOk && trusted) << what;
            }
            if (kappa >= 1e8) {
                EXPECT_FALSE(cholOk && trusted) << what;
            }
            if (kappa == 1e8) {
                EXPECT_TRUE(firstCholOk) << what;
            }
        }
    }
    EXPECT_FALSE(cholDiagonalOk(1.0, 2.0, false, kRatio)); // a NaN or Inf on the diagonal
    EXPECT_FALSE(cholDiagonalOk(0.0, 0.0, true, kRatio));  // Y = 0
    EXPECT_TRUE(cholDiagonalOk(1e-6, 1.0, true, kRatio));
    EXPECT_FALSE(cholDiagonalOk(0.99e-6, 1.0, true, kRatio));
}
