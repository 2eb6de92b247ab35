// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_block_math.h
/// The per-block arithmetic of ggml's legacy block types and of the decode of the types the
/// engine method `gguf` quantizes, written once as QS_HD functions so that the CPU reference
/// (ggml_quantize.cpp, ggml_types.cpp) and the GPU kernels (gpu/kernels/ggml_quant.cu) make the
/// same FP32 operations in the same order (docs/numerics.md "GGUF block types"):
///   - fp32ToF16 / f16ToF32: ggml's ggml_compute_fp32_to_fp16 (round to nearest even, NaN → 0x7E00
///     with the sign; bit for bit what tensor/convert.h floatToF16 gives) and the exact widening;
///   - quantizeLegacy: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 as gguf.quants.quantize (ggml's
///     quantize_row_*_ref), float → int conversions written out as x86-64's cvttss2si does them
///     (out of range or NaN → INT32_MIN), so that the device makes the same choice;
///   - decode: the FP32 values of one block of those types and of Q2_K … Q6_K, as
///     gguf.quants.dequantize.
/// No CUDA/HIP header: GPU sources define QS_HD as `__host__ __device__` before including.
#include <cstdint>

#include "numeric/qmath.h"

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::ggml::blockmath {

using qmath::bitsOf;
using qmath::fromBits;
/// |f|: the sign bit cleared (fabsf's bits, on every compiler).
QS_HD inline float absf(float f)
{
    return fromBits(bitsOf(f) & 0x7FFFFFFFu);
}

/// The block types by their ggml ids (ggml_types.h Type), as plain ints for device code.
enum : int { kQ4_0 = 2, kQ4_1 = 3, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ2_K = 10, kQ3_K, kQ4_K, kQ5_K, kQ6_K };

/// Whether `t` is one of the types this header (and so the GPU kernels) quantizes: the legacy
/// Q4_0 … Q8_0 and the K-quants Q2_K … Q6_K. The i-quants, TQ1_0, TQ2_0 and MXFP4 are the host's.
QS_HD constexpr bool perBlockType(int t)
{
    return t == kQ4_0 || t == kQ4_1 || t == kQ5_0 || t == kQ5_1 || t == kQ8_0 || (t >= kQ2_K && t <= kQ6_K);
}

QS_HD constexpr bool isLegacy(int t)
{
    return t == kQ4_0 || t == kQ4_1 || t == kQ5_0 || t == kQ5_1 || t == kQ8_0;
}
/// Values per block and bytes per block (ggml_types.cpp's table for these types).
QS_HD constexpr int blockValues(int t)
{
    return isLegacy(t) ? 32 : 256;
}
QS_HD constexpr int blockBytes(int t)
{
    switch (t) {
    case kQ4_0:
        return 18;
    case kQ4_1:
        return 20;
    case kQ5_0:
        return 22;
    case kQ5_1:
        return 24;
    case kQ8_0:
        return 34;
    case kQ2_K:
        return 84;
    case kQ3_K:
        return 110;
    case kQ4_K:
        return 144;
    case kQ5_K:
        return 176;
    case kQ6_K:
        return 210;
    default:
        return 0;
    }
}
/// Where a block keeps its (super-)block scale d (F16): offset 0, except Q2_K (80), Q3_K (108), Q6_K (208).
QS_HD constexpr int scaleOffset(int t)
{
    return t == kQ2_K ? 80 : t == kQ3_K ? 108 : t == kQ6_K ? 208 : 0;
}

/// ggml-impl.h ggml_compute_fp32_to_fp16 (round to nearest even).
QS_HD inline std::uint16_t fp32ToF16(float f)
{
    const float scale_to_inf = fromBits(0x77800000u);  // 0x1.0p+112f
    const float scale_to_zero = fromBits(0x08800000u); // 0x1.0p-110f
    float base = (absf(f) * scale_to_inf) * scale_to_zero;
    const std::uint32_t w = bitsOf(f);
    const std::uint32_t shl1_w = w + w;
    const std::uint32_t sign = w & 0x80000000u;
    std::uint32_t bias = shl1_w & 0xFF000000u;
    if (bias < 0x71000000u)
        bias = 0x71000000u;
    base = fromBits((bias >> 1) + 0x07800000u) + base;
    const std::uint32_t bits = bitsOf(base);
    const std::uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
    const std::uint32_t mantissa_bits = bits & 0x00000FFFu;
    const std::uint32_t nonsign = exp_bits + mantissa_bits;
    return static_cast<std::uint16_t>((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

/// F16 → FP32, exact (tensor/convert.h halfToFloat).
QS_HD inline float f16ToF32(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    std::uint32_t man = h & 0x3FFu;
    std::uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { // subnormal: normalise
        std::uint32_t e = 0;
        man <<= 1;
        while ((man & 0x400u) == 0) {
            ++e;
            man <<= 1;
        }
        bits = sign | ((112 - e) << 23) | ((man & 0x3FFu) << 13);
    }
    return fromBits(bits);
}

QS_HD inline std::uint16_t u16(const unsigned char *p)
{
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
QS_HD inline std::uint32_t u32(const unsigned char *p)
{
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
QS_HD inline float f16At(const unsigned char *p)
{
    return f16ToF32(u16(p));
}
QS_HD inline void putF16(unsigned char *p, float v)
{
    const std::uint16_t h = fp32ToF16(v);
    p[0] = static_cast<unsigned char>(h & 0xFF);
    p[1] = static_cast<unsigned char>(h >> 8);
}

/// float → int32 as x86-64's cvttss2si: truncation, INT32_MIN for NaN and out of range (the
/// device's cvt saturates instead, so both sides take this explicit path).
QS_HD inline int truncToInt(float v)
{
    if (!(v >= -2147483648.0f && v < 2147483648.0f))
        return -2147483647 - 1;
    return static_cast<int>(v);
}
QS_HD inline float truncf32(float v)
{
    // |v| ≥ 2^23 (or NaN/Inf) is integral already; otherwise through the exact int conversion.
    if (!(absf(v) < 8388608.0f))
        return v;
    const float t = static_cast<float>(static_cast<int>(v));
    return t == 0.0f ? fromBits(bitsOf(v) & 0x80000000u) : t; // trunc keeps the sign of zero
}
QS_HD inline float floorf32(float v)
{
    const float t = truncf32(v);
    return t > v ? t - 1.0f : t;
}

/// numpy's float → uint8 cast then clip(0, hi), for the values these blocks make.
QS_HD inline unsigned clipCode(float v, int hi)
{
    const int q = truncToInt(v);
    return static_cast<unsigned>(q < 0 ? 0 : (q > hi ? hi : q));
}

/// gguf-py np_roundf: round half away from zero.
QS_HD inline float roundAway(float n)
{
    const float a = absf(n);
    const float floored = floorf32(a);
    const float b = floored + floorf32(2.0f * (a - floored));
    return n > 0 ? b : (n < 0 ? -b : 0.0f);
}

/// The element of largest magnitude, the first one on ties (numpy argmax).
QS_HD inline float absMaxSigned(const float *x, int n)
{
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (absf(x[i]) > absf(x[best]))
            best = i;
    return x[best];
}

QS_HD inline void packLowHigh(const unsigned *q, unsigned char *qs)
{
    for (int j = 0; j < 16; ++j)
        qs[j] = static_cast<unsigned char>(((q[j] & 0x0F) | (q[16 + j] << 4)) & 0xFF);
}

QS_HD inline void packHigh(const unsigned *q, unsigned char *qh)
{
    std::uint32_t h = 0;
    for (int j = 0; j < 32; ++j)
        h |= static_cast<std::uint32_t>((q[j] >> 4) & 1u) << j;
    for (int k = 0; k < 4; ++k)
        qh[k] = static_cast<unsigned char>(h >> (8 * k));
}

/// One block of 32 values of a legacy type `t` (kQ4_0 … kQ8_0) into y (blockBytes(t) bytes).
QS_HD inline void quantizeLegacy(int t, const float *x, unsigned char *y)
{
    unsigned q[32];
    if (t == kQ4_0 || t == kQ5_0) {
        const bool five = t == kQ5_0;
        const float max = absMaxSigned(x, 32);
        const float d = max / (five ? -16.0f : -8.0f);
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        for (int j = 0; j < 32; ++j)
            q[j] = clipCode(truncf32(x[j] * id + (five ? 16.5f : 8.5f)), five ? 31 : 15);
        putF16(y, d);
        if (five) {
            packHigh(q, y + 2);
            packLowHigh(q, y + 6);
        } else {
            packLowHigh(q, y + 2);
        }
    } else if (t == kQ4_1 || t == kQ5_1) {
        const bool five = t == kQ5_1;
        float max = x[0], min = x[0]; // std::max_element / min_element: the first extreme, `<` only
        for (int j = 1; j < 32; ++j) {
            if (max < x[j])
                max = x[j];
            if (x[j] < min)
                min = x[j];
        }
        const float d = (max - min) / (five ? 31.0f : 15.0f);
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        for (int j = 0; j < 32; ++j)
            q[j] = clipCode(truncf32((x[j] - min) * id + 0.5f), five ? 31 : 15);
        putF16(y, d);
        putF16(y + 2, min);
        if (five) {
            packHigh(q, y + 4);
            packLowHigh(q, y + 8);
        } else {
            packLowHigh(q, y + 4);
        }
    } else if (t == kQ8_0) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j) {
            const float a = absf(x[j]);
            amax = amax < a ? a : amax; // std::max(amax, a)
        }
        const float d = amax / 127.0f;
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        putF16(y, d);
        for (int j = 0; j < 32; ++j)
            y[2 + j] = static_cast<unsigned char>(truncToInt(roundAway(x[j] * id)) & 0xFF);
    }
}

/// Low nibbles are elements 0..15, high nibbles 16..31 (Q4_0, Q4_1, Q5_* low bits).
QS_HD inline unsigned nibble32(const unsigned char *qs, int e)
{
    return (qs[e & 15] >> (4 * (e >> 4))) & 0x0Fu;
}

/// Q4_K/Q5_K scales and mins of sub-block j (gguf-py Q4_K.get_scale_min).
QS_HD inline void scaleMin(const unsigned char *s, int j, unsigned &sc, unsigned &m)
{
    if (j < 4) {
        sc = s[j] & 0x3Fu;
        m = s[4 + j] & 0x3Fu;
    } else {
        sc = (s[8 + j - 4] & 0x0Fu) | ((s[j - 4] >> 2) & 0x30u);
        m = (s[8 + j - 4] >> 4) | ((s[j] >> 2) & 0x30u);
    }
}

/// The FP32 values of one block b of type t (blockValues(t) of them) into y, as
/// gguf.quants.dequantize; false for a type this header does not decode.
QS_HD inline bool decode(int t, const unsigned char *b, float *y)
{
    switch (t) {
    case kQ4_0: {
        const float d = f16At(b);
        for (int e = 0; e < 32; ++e)
            y[e] = d * static_cast<float>(static_cast<int>(nibble32(b + 2, e)) - 8);
        return true;
    }
    case kQ4_1: {
        const float d = f16At(b), m = f16At(b + 2);
        for (int e = 0; e < 32; ++e)
            y[e] = d * static_cast<float>(nibble32(b + 4, e)) + m;
        return true;
    }
    case kQ5_0: {
        const float d = f16At(b);
        const std::uint32_t qh = u32(b + 2);
        for (int e = 0; e < 32; ++e) {
            const unsigned q = nibble32(b + 6, e) | (((qh >> e) & 1u) << 4);
            y[e] = d * static_cast<float>(static_cast<int>(q) - 16);
        }
        return true;
    }
    case kQ5_1: {
        const float d = f16At(b), m = f16At(b + 2);
        const std::uint32_t qh = u32(b + 4);
        for (int e = 0; e < 32; ++e) {
            const unsigned q = nibble32(b + 8, e) | (((qh >> e) & 1u) << 4);
            y[e] = d * static_cast<float>(q) + m;
        }
        return true;
    }
    case kQ8_0: {
        const float d = f16At(b);
        for (int e = 0; e < 32; ++e)
            y[e] = static_cast<float>(static_cast<std::int8_t>(b[2 + e])) * d;
        return true;
    }
    case kQ2_K: {
        const unsigned char *sc = b, *qs = b + 16;
        const float d = f16At(b + 80), dmin = f16At(b + 82);
        float dl[16], ml[16];
        for (int j = 0; j < 16; ++j) {
            dl[j] = d * static_cast<float>(sc[j] & 0xF);
            ml[j] = dmin * static_cast<float>(sc[j] >> 4);
        }
        for (int e = 0; e < 256; ++e) {
            const int g = e / 128, s = (e % 128) / 32, j = e % 32;
            const float q = static_cast<float>((qs[g * 32 + j] >> (2 * s)) & 3);
            y[e] = dl[e / 16] * q - ml[e / 16];
        }
        return true;
    }
    case kQ3_K: {
        const unsigned char *hmask = b, *qs = b + 32, *sc = b + 96;
        const float d = f16At(b + 108);
        float dl[16];
        for (int j = 0; j < 16; ++j) {
            const unsigned lo = (sc[j % 8] >> (4 * (j / 8))) & 0x0F;
            const unsigned hi = (sc[8 + j % 4] >> (2 * (j / 4))) & 0x03;
            dl[j] = d * static_cast<float>(static_cast<std::int8_t>(lo | (hi << 4)) - 32);
        }
        for (int e = 0; e < 256; ++e) {
            const int g = e / 128, s = (e % 128) / 32, j = e % 32;
            const int ql = (qs[g * 32 + j] >> (2 * s)) & 3;
            const int qh = ((hmask[j] >> (e / 32)) & 1) ^ 1;
            y[e] = dl[e / 16] * static_cast<float>(ql - (qh << 2));
        }
        return true;
    }
    case kQ4_K:
    case kQ5_K: {
        const float d = f16At(b), dmin = f16At(b + 2);
        const unsigned char *scales = b + 4;
        const bool five = t == kQ5_K;
        const unsigned char *qh = b + 16;
        const unsigned char *qs = five ? b + 48 : b + 16;
        float dl[8], ml[8];
        for (int j = 0; j < 8; ++j) {
            unsigned sc, m;
            scaleMin(scales, j, sc, m);
            dl[j] = d * static_cast<float>(sc);
            ml[j] = dmin * static_cast<float>(m);
        }
        for (int e = 0; e < 256; ++e) {
            const int g = e / 64, s = (e % 64) / 32, j = e % 32;
            unsigned q = (qs[g * 32 + j] >> (4 * s)) & 0x0F;
            if (five)
                q |= ((qh[j] >> (e / 32)) & 1u) << 4;
            y[e] = dl[e / 32] * static_cast<float>(q) - ml[e / 32];
        }
        return true;
    }
    case kQ6_K: {
        const unsigned char *ql = b, *qh = b + 128;
        const unsigned char *sc = b + 192;
        const float d = f16At(b + 208);
        float dl[16];
        for (int j = 0; j < 16; ++j)
            dl[j] = d * static_cast<float>(static_cast<std::int8_t>(sc[j]));
        for (int e = 0; e < 256; ++e) {
            const int g = e / 128;
            const int lo = (ql[g * 64 + (e % 64)] >> (4 * ((e % 128) / 64))) & 0x0F;
            const int hi = (qh[g * 32 + (e % 32)] >> (2 * ((e % 128) / 32))) & 0x03;
            y[e] = dl[e / 16] * static_cast<float>((lo | (hi << 4)) - 32);
        }
        return true;
    }
    default:
        return false;
    }
}

} // namespace quantscope::ggml::blockmath
