// SPDX-License-Identifier: MIT
#pragma once
/// \file qmath.h
/// The scalar operations every backend shares, written once as inline host/device functions so
/// that the CPU reference and the GPU kernels make the same rounding decisions bit for bit.
/// No CUDA/HIP header here: GPU sources define QS_HD as `__host__ __device__` before including.
/// All arithmetic is explicit FP32 (the build uses -ffp-contract=off; kernels use __f*_rn where
/// these are re-expressed).
#include <cstdint>
#include <cstring>

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::qmath {

QS_HD inline std::uint32_t bitsOf(float f)
{
    std::uint32_t u;
    __builtin_memcpy(&u, &f, 4); // the builtin: usable in nvcc and hipcc device code
    return u;
}
QS_HD inline float fromBits(std::uint32_t u)
{
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
// FP64 operations whose rounding decides a histogram bin: explicitly rounded on the device (no
// FMA contraction), plain on the host (built with -ffp-contract=off).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline double dadd(double a, double b)
{
    return __dadd_rn(a, b);
}
QS_HD inline double dsub(double a, double b)
{
    return __dadd_rn(a, -b);
}
QS_HD inline double dmul(double a, double b)
{
    return __dmul_rn(a, b);
}
QS_HD inline double ddiv(double a, double b)
{
    return __ddiv_rn(a, b);
}
QS_HD inline double dfloor(double a)
{
    return floor(a);
}
#else
inline double dadd(double a, double b)
{
    return a + b;
}
inline double dsub(double a, double b)
{
    return a - b;
}
inline double dmul(double a, double b)
{
    return a * b;
}
inline double ddiv(double a, double b)
{
    return a / b;
}
inline double dfloor(double a)
{
    return __builtin_floor(a);
}
#endif

/// The histogram bin of x in [lo, hi] with B bins (Histogram::binOf, and every GPU bin decision):
/// −1 below, B above, hi itself in the last bin, a zero-width range in bin 0.
QS_HD inline int histBin(double x, double lo, double hi, int B)
{
    if (x < lo)
        return -1;
    if (x > hi)
        return B;
    if (x == hi || hi == lo)
        return x == hi && hi != lo ? B - 1 : 0;
    const int b = static_cast<int>(dfloor(ddiv(dmul(dsub(x, lo), static_cast<double>(B)), dsub(hi, lo))));
    return b < B - 1 ? b : B - 1;
}

QS_HD inline bool isFinite(float f)
{
    return (bitsOf(f) & 0x7F800000u) != 0x7F800000u;
}
QS_HD inline float absf(float f)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return fabsf(f); // the same bits; on the device an operand modifier of the next instruction
#else
    return fromBits(bitsOf(f) & 0x7FFFFFFFu);
#endif
}

/// FP32 → BF16 → FP32, round to nearest even, overflow → ±Inf, NaN kept (quiet).
QS_HD inline float roundBf16(float f)
{
    std::uint32_t u = bitsOf(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return fromBits((u | 0x00400000u) & 0xFFFF0000u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return fromBits(u & 0xFFFF0000u);
}

/// FP32 → F16 → FP32, round to nearest even (subnormals included), overflow → ±Inf.
QS_HD inline float roundF16(float f)
{
    const std::uint32_t u = bitsOf(f);
    const std::uint32_t sign = u & 0x80000000u;
    const std::uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return f;         // NaN
    if (a >= 0x477FF000u) // ≥ 65520: rounds to Inf
        return fromBits(sign | 0x7F800000u);
    if (a < 0x38800000u) {
        // Below the F16 normal range: quantum 2^-24. Adding 0.5 (2^-1) aligns the FP32
        // mantissa so that the hardware's RNE addition does the rounding; exact otherwise.
        const float q = fromBits(a) + 0.5f;
        const float r = q - 0.5f;
        return fromBits(sign | bitsOf(r));
    }
    // Normal range: keep 10 mantissa bits with RNE.
    std::uint32_t v = a + 0xFFFu + ((a >> 13) & 1u);
    v &= 0xFFFFE000u;
    return fromBits(sign | v);
}

/// Rounds an FP32 value to the arithmetic precision of the computation (0 FP32, 1 BF16, 2 F16).
QS_HD inline float roundArith(float f, int arith)
{
    return arith == 1 ? roundBf16(f) : (arith == 2 ? roundF16(f) : f);
}

/// Round to integer: half to even (torch.round) or half away from zero.
QS_HD inline float roundInt(float x, bool halfAway)
{
    // |x| ≥ 2^23 is already integral (and NaN passes through).
    const float ax = absf(x);
    if (!(ax < 8388608.0f))
        return x;
    if (halfAway) {
        const float t = static_cast<float>(static_cast<std::int32_t>(ax + 0.5f));
        // ax + 0.5 is exact for ax < 2^23 except when it rounds up at the top; guard it.
        const float r = (t - ax > 0.5f) ? t - 1.0f : t;
        return (bitsOf(x) & 0x80000000u) ? -r : r;
    }
    // 2^23 trick: adding and subtracting 2^23 rounds to nearest even in FP32.
    const float r = (ax + 8388608.0f) - 8388608.0f;
    return (bitsOf(x) & 0x80000000u) ? -r : r;
}

/// E8M0 power-of-two scale of a positive finite s: 2^ceil(log2 s) (ceil) or the nearer power
/// of two in the log domain (round: mantissa < √2 rounds down). Clamped to [2^-127, 2^127].
QS_HD inline float powerOfTwoScale(float s, bool roundMode)
{
    const std::uint32_t u = bitsOf(s);
    int e = static_cast<int>((u >> 23) & 0xFF);
    std::uint32_t m = u & 0x7FFFFFu;
    if (e == 0) {
        // Subnormal: normalise.
        if (m == 0)
            return fromBits(0x00400000u); // 2^-127
        int shift = 0;
        while (!(m & 0x800000u)) {
            m <<= 1;
            ++shift;
        }
        m &= 0x7FFFFFu;
        e = 1 - shift;
    }
    int x = e - 127; // s = 1.m · 2^x
    if (roundMode) {
        if (m >= 0x3504F4u) // 1.m > √2 (frac(√2)·2^23 = 3474675.4; no ties, √2 is irrational)
            ++x;
    } else if (m != 0) {
        ++x;
    }
    if (x > 127)
        x = 127;
    if (x < -127)
        x = -127;
    if (x >= -126)
        return fromBits(static_cast<std::uint32_t>(x + 127) << 23);
    return fromBits(0x00400000u); // 2^-127 (subnormal in FP32)
}

} // namespace quantscope::qmath
