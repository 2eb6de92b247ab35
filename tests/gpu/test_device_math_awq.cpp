// SPDX-License-Identifier: MIT
// The shortcuts of AWQ's team rows kernel (gpu/kernels/awq.cu kRowsTeam, device_math.h), run on the
// CPU against the CPU's own operations: Ŵ = FP32(FP64(deq) / s) by the reciprocal (awqHatFast), and
// the per-element code by the group's reciprocal with its vouching rule, as the kernel applies them;
// and the exact-difference test and the conversion-free stage 2 of ProgressiveSpec's pass 1
// (exactSub, intCodeFp32: fp8_quant.cu kProgFast1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/device_math.h"
#include "tensor/convert.h"

using namespace quantscope;
using namespace quantscope::gpumath;

namespace {

std::uint64_t bits64(double d)
{
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}

/// The CPU's Ŵ of one element (core/quant/awq.cpp), widened to FP64.
double cpuHat(float deq, double s)
{
    return static_cast<double>(static_cast<float>(static_cast<double>(deq) / s));
}

/// The kernel's Ŵ: the shortcut where it vouches, else the division. Counts both.
double kernelHat(float deq, double s, int &fast, int &slow)
{
    double w = 0;
    if (awqHatFast(deq, 1.0 / s, w)) {
        ++fast;
        return w;
    }
    ++slow;
    return awqHatDivide(deq, s);
}

} // namespace

TEST(DeviceMathAwq, HatByReciprocalHasTheDivisionsBits)
{
    std::mt19937_64 rng(4646);
    std::uniform_real_distribution<double> mag(-40.0, 40.0), unit(0.0, 1.0);
    int fast = 0, slow = 0;
    // Random dequantized values (FP32, every magnitude incl. subnormals and ±0) and scales.
    for (int i = 0; i < 2000000; ++i) {
        const float deq = static_cast<float>((unit(rng) < 0.5 ? -1.0 : 1.0) * std::exp2(mag(rng)) * unit(rng));
        const float deqs[] = {deq, i % 1000 == 0 ? 0.0f : deq, i % 1000 == 1 ? -0.0f : deq,
                              i % 997 == 0 ? 1e-40f : deq};
        const double s = std::exp2(mag(rng) / 4) * (1.0 + unit(rng));
        for (float d : deqs)
            ASSERT_EQ(bits64(kernelHat(d, s, fast, slow)), bits64(cpuHat(d, s))) << d << " / " << s;
    }
    EXPECT_GT(fast, 7000000);
    // Quotients within a few FP64 units of a midpoint between two FP32 values: s = deq / m for a
    // midpoint m, and its neighbours, so deq / s lands on either side of m or on it.
    int nearMid = 0;
    for (int i = 0; i < 200000; ++i) {
        const float deq = static_cast<float>(std::exp2(mag(rng) / 2) * (1.0 + unit(rng))) * (i & 1 ? -1.0f : 1.0f);
        const float w = static_cast<float>(std::exp2(mag(rng) / 2) * (1.0 + unit(rng)));
        const double m = static_cast<double>(w) + static_cast<double>(std::nextafter(w, 2 * w) - w) / 2;
        const double s0 = static_cast<double>(std::fabs(deq)) / m;
        for (int d = -3; d <= 3; ++d) {
            double s = s0;
            for (int k = 0; k < (d < 0 ? -d : d); ++k)
                s = std::nextafter(s, d < 0 ? 0.0 : 1e300);
            const int before = slow;
            ASSERT_EQ(bits64(kernelHat(deq, s, fast, slow)), bits64(cpuHat(deq, s))) << deq << " / " << s;
            nearMid += slow - before;
        }
    }
    EXPECT_GT(nearMid, 100000) << "the midpoint cases must take the division";
    // Extremes: results below FP32's normal range, overflowing, and s at its limits.
    for (float d : {1e-30f, -3e-38f, 1.17549435e-38f, 3.0e38f, -3.4e38f, 1.0f, 7.0f})
        for (double s : {1e-300, 1e-10, 1e-8, 0.5, 1.0, 3.0, 1e8, 1e10, 1e300})
            ASSERT_EQ(bits64(kernelHat(d, s, fast, slow)), bits64(cpuHat(d, s))) << d << " / " << s;
}

TEST(DeviceMathAwq, CodeByGroupReciprocalEqualsIntCode)
{
    // kRowsTeam's per-element code: t = RN(x·RN(1/s)), rt = rint(t), v = clamp(rt + z) where
    // |t − rt| < reciprocalSafeBelow(max(|RN(mn·r)|, |RN(mx·r)|)), else intCodeValue; then
    // intDequantValue. Against intCode / intDequant (the CPU's) on heavy-tailed groups, both
    // rounding modes, symmetric and asymmetric, 4 and 8 bits, several scale dtypes.
    std::mt19937_64 rng(4647);
    std::student_t_distribution<float> heavy(3.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    int vouched = 0, divided = 0;
    for (int trial = 0; trial < 6000; ++trial) {
        IntParams p;
        const int bits = trial % 3 == 2 ? 8 : 4;
        p.symmetric = trial % 2 == 0;
        p.qmin = p.symmetric ? -(1 << (bits - 1)) : -(1 << (bits - 1));
        p.qmax = (1 << (bits - 1)) - 1;
        p.range = static_cast<float>(p.qmax - p.qmin);
        p.divisor = p.range / 2.0f;
        p.halfAway = trial % 5 == 1;
        p.scaleDtype = trial % 7 == 3 ? 1 : (trial % 7 == 5 ? 2 : 0);
        float x[128];
        const float scale = std::exp2(unit(rng) * 40.0f - 20.0f);
        for (float &v : x)
            v = heavy(rng) * scale;
        if (trial % 11 == 0) // exact ties: multiples of half the scale-to-be
            for (int j = 0; j < 128; j += 3)
                x[j] = std::round(x[j] * 2.0f / scale) * scale / 2.0f;
        float mn = x[0], mx = x[0];
        for (float v : x) {
            mn = std::fmin(mn, v);
            mx = std::fmax(mx, v);
        }
        float s;
        int z;
        intGroupParams(p, mn, mx, s, z);
        const float zf = static_cast<float>(z), qminF = static_cast<float>(p.qmin), qmaxF = static_cast<float>(p.qmax);
        const float r = 1.0f / s;
        const bool sNormal = s >= 1.1754943508222875e-38f && s < 4.2535295865117308e37f;
        const float safeBelow = reciprocalSafeBelow(std::fmax(std::fabs(mn * r), std::fabs(mx * r)));
        for (float v : x) {
            const float t = v * r, rt = std::nearbyint(t);
            float q;
            if (sNormal && std::fabs(t - rt) < safeBelow) {
                q = std::fmin(std::fmax(rt + zf, qminF), qmaxF);
                ++vouched;
            } else {
                q = intCodeValue(p, v, s, zf, qminF, qmaxF);
                ++divided;
            }
            const int ref = intCode(p, v, s, z);
            ASSERT_EQ(static_cast<int>(intOfFloat(q) & 0xFFu), ref & 0xFF) << v << " / " << s;
            const float d = intDequantValue(p, q, s, zf), dref = intDequant(p, ref, s, z);
            ASSERT_EQ(bitsOf(d), bitsOf(dref)) << v << " / " << s;
        }
    }
    EXPECT_GT(vouched, 700000);
    EXPECT_GT(divided, 0);
}

TEST(DeviceMath, ExactSubVouchesExactlyForTheExactDifferences)
{
    // exactSub(x, y, RN(x − y)) against the difference in FP64 (exact here: the operands' exponents
    // lie within 2^±10 of each other, so x − y fits in 53 bits). Random FP32 pairs (many rounded
    // differences), BF16/F16 weights against FP32 levels, subnormals, and ProgressiveSpec's Ŵ: a
    // BF16 weight against RN(RN(s₂·k)·s₁), where exactDifference declines exact errors.
    std::mt19937_64 rng(44);
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::uniform_int_distribution<int> ex(-20, 20), kd(-8, 7), kind(0, 3);
    std::student_t_distribution<float> t(5.0f);
    std::size_t exact = 0, rounded = 0, sterbenzDeclined = 0;
    for (int i = 0; i < 3000000; ++i) {
        float x, y;
        switch (kind(rng)) {
        case 0: // arbitrary FP32 pairs within 2^±20
        {
            const int ey = ex(rng) - 10;
            y = std::ldexp(mant(rng), ey) * (i % 2 ? 1.0f : -1.0f);
            x = std::ldexp(mant(rng), ey + ex(rng) / 2) * (i % 3 ? 1.0f : -1.0f);
            break;
        }
        case 1: // a BF16 weight against an FP32 level of its own scale
            x = bf16ToFloat(floatToBf16(0.02f * t(rng)));
            y = x * mant(rng) * (i % 5 ? 1.0f : 0.3f);
            break;
        case 2: // subnormals and the smallest normals
            x = std::ldexp(mant(rng), -140 + ex(rng) / 4);
            y = std::ldexp(mant(rng), -140 + ex(rng) / 4) * (i % 2 ? 1.0f : -1.0f);
            break;
        default: { // ProgressiveSpec: x̂ = RN(RN(s₂·k)·s₁) against a BF16 weight near it
            const float s1 = std::ldexp(mant(rng), -16), s2 = mant(rng) * 4.0f;
            const int k = kd(rng);
            const float y0 = s2 * static_cast<float>(k);
            y = y0 * s1;
            x = bf16ToFloat(floatToBf16(y * (0.44f + 0.12f * mant(rng))));
            break;
        }
        }
        const float e = x - y;
        const bool isExact = static_cast<double>(x) - static_cast<double>(y) == static_cast<double>(e);
        ASSERT_EQ(exactSub(x, y, e), isExact) << x << " - " << y;
        (isExact ? exact : rounded) += 1;
        sterbenzDeclined += isExact && !exactDifference(e, y) ? 1 : 0;
    }
    EXPECT_GT(exact, 1000000u);
    EXPECT_GT(rounded, 100000u);
    EXPECT_GT(sterbenzDeclined, 100000u); // what exactSub adds over exactDifference
    // 1 − 2^-30 is not a float; an overflowed difference gives NaN in the residual: declined.
    EXPECT_FALSE(exactSub(1.0f, 9.313225746154785e-10f, 1.0f));
    const float big = std::numeric_limits<float>::max();
    EXPECT_FALSE(exactSub(big, -big, big - -big));
    EXPECT_TRUE(exactSub(0.5f, 0.0f, 0.5f));
    EXPECT_TRUE(exactSub(0.3f, 0.3f, 0.0f));
}

TEST(DeviceMath, IntCodeFp32IsIntCodeWithoutConversions)
{
    // intCodeFp32 (ProgressiveSpec's pass 1) against (float)intCode and its Ŵ against intDequant,
    // bit for bit: stage 1's FP8 values (multiples of 2^-9 and up, ties on half-integers of x/s
    // included) and random floats against INT 2/3/4 symmetric and asymmetric scales of random
    // ranges, Quark's x·(1/s) and the division; tiny scales (1/s overflows: NaN → code 0), NaN, Inf.
    std::mt19937_64 rng(4411);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> fp8(-448 * 4, 448 * 4);
    std::size_t checked = 0;
    for (int bits : {2, 3, 4})
        for (bool sym : {true, false})
            for (bool rec : {true, false})
                for (int g = 0; g < 3000; ++g) {
                    IntParams p;
                    p.qmin = -(1 << (bits - 1));
                    p.qmax = (1 << (bits - 1)) - 1;
                    p.symmetric = sym;
                    p.range = static_cast<float>(p.qmax - p.qmin);
                    p.divisor = (p.range) / 2.0f;
                    p.reciprocal = rec;
                    const float span = g % 50 == 0 ? 1e-41f : std::ldexp(1.0f, g % 40 - 20);
                    float mn = span * u(rng), mx = span * u(rng);
                    if (mn > mx)
                        std::swap(mn, mx);
                    float s;
                    int z;
                    intGroupParams(p, mn, mx, s, z);
                    const float zf = static_cast<float>(z), r = 1.0f / s;
                    const float qminF = static_cast<float>(p.qmin), qmaxF = static_cast<float>(p.qmax);
                    for (int i = 0; i < 64; ++i) {
                        float x;
                        if (i == 0)
                            x = std::numeric_limits<float>::quiet_NaN();
                        else if (i == 1)
                            x = -std::numeric_limits<float>::infinity();
                        else if (i < 16) // half-integer multiples of s: ties
                            x = (static_cast<float>(i - 9) + 0.5f) * s;
                        else if (i < 40) // FP8-like values: quarter steps scaled
                            x = static_cast<float>(fp8(rng)) * 0.25f * span / 448.0f;
                        else
                            x = span * u(rng);
                        const float v = rec ? intCodeFp32<true>(x, s, r, zf, qminF, qmaxF)
                                            : intCodeFp32<false>(x, s, r, zf, qminF, qmaxF);
                        const int q = intCode(p, x, s, z);
                        ASSERT_EQ(bitsOf(v), bitsOf(static_cast<float>(q))) << x << " / " << s << " z " << z;
                        ASSERT_EQ(static_cast<int>(intOfFloat(v) & 0xFFu), q & 0xFF);
                        ASSERT_EQ(bitsOf(intDequantValue(p, v, s, zf)), bitsOf(intDequant(p, q, s, z)));
                        ++checked;
                    }
                }
    EXPECT_GT(checked, 1000000u);
}
