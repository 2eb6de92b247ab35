// SPDX-License-Identifier: MIT
#pragma once
/// \file fp4math.h
/// Scalar FP4 E2M1 / E8M0 operations shared by the CPU reference and future GPU kernels
/// (inline, QS_HD, integer bit manipulation only: no FP rounding takes part in a decision).
/// e2m1Code is bit-identical to convert.h's floatToE2m1 (tested over a sweep of FP32 patterns);
/// the E8M0 helpers return the biased exponent byte, clamped to [0, 254] (0xFF, NaN, is never
/// produced here: non-finite groups are handled by the callers).
#include <cstdint>

#include "numeric/qmath.h"

namespace quantscope::fp4 {

/// Quantization cast to E2M1: clamp |x| to 6, round to nearest even on the grid
/// {0, 0.5, 1, 1.5, 2, 3, 4, 6}; sign in bit 3 (values that round to 0 keep it); NaN → 0.
QS_HD inline std::uint8_t e2m1Code(float x)
{
    const std::uint32_t u = qmath::bitsOf(x);
    const std::uint32_t sign = (u >> 28) & 0x8u;
    std::uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0;
    a = a < 0x40C00000u ? a : 0x40C00000u;
    // Generic RNE of an FP32 magnitude to 1 mantissa bit, bias 1 (convert.cpp's roundMagnitude).
    const std::int32_t field = static_cast<std::int32_t>(a >> 23);
    const std::int32_t eEff = field > 1 ? field : 1;
    const std::uint32_t sig = (a & 0x007FFFFFu) | (static_cast<std::uint32_t>(field != 0) << 23);
    const std::int32_t d = eEff - 127;
    std::int32_t shift = 22 + (d < 0 ? -d : 0);
    shift = shift < 31 ? shift : 31;
    const std::uint32_t half = (1u << (shift - 1)) - 1u;
    const std::uint32_t rounded = (sig + half + ((sig >> shift) & 1u)) >> shift;
    return static_cast<std::uint8_t>(sign | ((static_cast<std::uint32_t>(d > 0 ? d : 0) << 1) + rounded));
}

/// Value of an E2M1 nibble (exact).
QS_HD inline float e2m1Value(std::uint8_t nibble)
{
    const std::uint32_t i = nibble & 0x7u;
    // 0, 0.5 (subnormal); then 1.m · 2^(e−1) for e = 1..3.
    const std::uint32_t e = i >> 1, m = i & 1u;
    const float mag = e == 0 ? (m ? 0.5f : 0.0f) : qmath::fromBits(((e + 126u) << 23) | (m << 22));
    return (nibble & 0x8u) ? -mag : mag;
}

/// e2m1Value(e2m1Code(v)) up to the sign of zero, branch-free (the RNE thresholds of
/// docs/toolkits.md §6.1 as exact comparisons; vectorises): for loops that need values, not codes.
QS_HD inline float e2m1RoundValue(float v)
{
    const float a = qmath::absf(v);
    const float q = 0.5f * static_cast<float>(a > 0.25f) + 0.5f * static_cast<float>(a >= 0.75f) +
                    0.5f * static_cast<float>(a > 1.25f) + 0.5f * static_cast<float>(a >= 1.75f) +
                    static_cast<float>(a > 2.5f) + static_cast<float>(a >= 3.5f) + 2.0f * static_cast<float>(a > 5.0f);
    return (qmath::bitsOf(v) & 0x80000000u) ? -q : q;
}

/// floor(log2 x) of a positive finite x (FP32 subnormals included).
QS_HD inline std::int32_t floorLog2(float x, std::uint32_t *fracOut = nullptr)
{
    const std::uint32_t u = qmath::bitsOf(x) & 0x7FFFFFFFu;
    const std::int32_t field = static_cast<std::int32_t>(u >> 23);
    std::uint32_t frac = u & 0x007FFFFFu;
    std::int32_t e = field - 127;
    if (field == 0) {
        std::int32_t lead = 22;
        while (lead > 0 && !((frac >> lead) & 1u))
            --lead;
        e = lead - 149;
        frac = (frac << (23 - lead)) & 0x007FFFFFu;
    }
    if (fracOut)
        *fracOut = frac;
    return e;
}

QS_HD inline std::uint8_t clampByte(std::int32_t v)
{
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 254 ? 254 : v));
}

/// E8M0 scale 2^(byte − 127) as FP32 (byte 0 → 2^-127, an FP32 subnormal).
QS_HD inline float e8m0Scale(std::uint8_t byte)
{
    return byte == 0 ? qmath::fromBits(0x00400000u) : qmath::fromBits(static_cast<std::uint32_t>(byte) << 23);
}

/// MX shared-exponent modes (docs/numerics.md "FP4 E2M1 and micro-scaling").
enum MxModeCode : int { MxEven = 0, MxFloor = 1, MxCeil = 2 };

/// MXFP4 scale byte of a group with finite amax ≥ 0: X = floor/ceil(log2 amax) − 2, or for
/// `even` floor(log2 amax') − 2 with amax' = amax's FP32 bits + 2^21, exponent kept (the
/// mantissa rounded to E2M1's 1 bit; compressed-tensors round_to_power_2, torchao EVEN).
/// Byte = clamp(X + 127, 0, 254); amax = 0 (and an `even` amax' that is 0) → byte 0; an `even`
/// amax' that carries past FP32's range is 2^128 (X = 126), not Inf.
QS_HD inline std::uint8_t mxScaleByte(float amax, int mode)
{
    if (!(amax > 0.0f))
        return 0;
    if (mode == MxEven) {
        const std::uint32_t a = (qmath::bitsOf(amax) + (1u << 21)) & 0x7F800000u;
        const std::int32_t field = static_cast<std::int32_t>(a >> 23);
        if (field == 0)
            return 0;
        return clampByte(field - 2); // field 255: amax' = 2^128 exactly, X = 126
    }
    std::uint32_t frac = 0;
    std::int32_t e = floorLog2(amax, &frac);
    if (mode == MxCeil && frac != 0)
        ++e;
    return clampByte(e - 2 + 127);
}

/// MXFP4's per-group and per-element ops (quant/mxfp4.h's op sequence), shared by the CPU
/// reference (quant/mxfp4.cpp) and the GPU kernels (gpu/kernels/kernel_common.cuh) so that the two
/// cannot drift. `x / s` and `v · s` are single correctly rounded FP32 operations (__fdiv_rn /
/// __fmul_rn on the device, which keep subnormals: s = 2^(byte − 127) may be 2^-127).
/// Scale of a group whose finite min/max are mn/mx (amax = max(|mn|, |mx|)).
QS_HD inline float mxGroupScale(float mn, float mx, int mode)
{
    const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
    return e8m0Scale(mxScaleByte(amax, mode));
}
/// Scale stored for a group holding NaN/Inf (its codes are 0).
QS_HD inline float mxBadScale()
{
    return e8m0Scale(0);
}
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline std::uint8_t mxCode(float x, float s)
{
    return e2m1Code(__fdiv_rn(x, s));
}
QS_HD inline float mxDequant(std::uint8_t c, float s)
{
    return __fmul_rn(e2m1Value(c), s);
}
#else
inline std::uint8_t mxCode(float x, float s)
{
    return e2m1Code(x / s);
}
inline float mxDequant(std::uint8_t c, float s)
{
    return e2m1Value(c) * s;
}
#endif

/// Byte of 2^round(log2 t) for t ≥ 0 (constOpt's pow2 encoder): the nearest integer to log2 t
/// (never a tie: log2 of an FP32 value is not a half-integer; tested exactly as 1.f ≥ √2 ⇔
/// (2^23 + f)^2 ≥ 2^47), + 127, clamped to [0, 254]; t = 0 → 0; +Inf → 254.
QS_HD inline std::uint8_t roundLog2Byte(float t)
{
    if (!(t > 0.0f))
        return 0;
    if (!qmath::isFinite(t))
        return 254;
    std::uint32_t frac = 0;
    std::int32_t e = floorLog2(t, &frac);
    const std::uint64_t s = (1ull << 23) | frac;
    if (s * s >= (1ull << 47))
        ++e;
    return clampByte(e + 127);
}

/// constOpt's per-group scale (quant/constopt.h): t = fc·amax; unrounded: t; pow2:
/// 2^round(log2 t) as UE8M0 (t = 0 → byte 0). Shared by the CPU quantizer, the c sweep and the
/// GPU kernels.
QS_HD inline float constOptScale(float amax, float fc, bool unrounded)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    const float t = __fmul_rn(fc, amax);
#else
    const float t = fc * amax;
#endif
    return unrounded ? t : e8m0Scale(roundLog2Byte(t));
}
/// constOpt's scale of a group holding NaN/Inf (its codes are 0).
QS_HD inline float constOptBadScale(bool unrounded)
{
    return unrounded ? 0.0f : e8m0Scale(0);
}
/// constOpt's code of x at scale s (s ≤ 0, an all-zero group's unrounded scale, codes 0), and the
/// dequantized value.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline std::uint8_t constOptCode(float x, float s)
{
    return s > 0.0f ? e2m1Code(__fdiv_rn(x, s)) : 0;
}
QS_HD inline float fp4Dequant(std::uint8_t c, float s)
{
    return __fmul_rn(e2m1Value(c), s);
}
#else
inline std::uint8_t constOptCode(float x, float s)
{
    return s > 0.0f ? e2m1Code(x / s) : 0;
}
inline float fp4Dequant(std::uint8_t c, float s)
{
    return e2m1Value(c) * s;
}
#endif

/// NVFP4's FP32 global scale (quant/nvfp4.h): 2688 / amax of the tensor's finite values as
/// compressed-tensors computes it — `448 * 6 / amax` is a Python scalar over a tensor, which torch
/// evaluates as reciprocal(amax) · 2688, two FP32 roundings (differs from 2688 / amax in the last
/// bit for some amax; its own stories260K export, tests/interop/golden/ct_nvfp4a16_*) — and 1.0
/// when that is not a finite positive number (amax = 0).
QS_HD inline float nvGlobalScale(float amax)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    const float g = __fmul_rn(__frcp_rn(amax), 2688.0f);
#else
    const float g = (1.0f / amax) * 2688.0f;
#endif
    return qmath::isFinite(g) && g > 0.0f ? g : 1.0f;
}
/// NVFP4's block-scale target t = (amax_b / 6) · global (FP32, in that order); the caller casts
/// it to E4M3 (clamp ±448, RNE) and replaces an underflow to 0 by 0.125.
QS_HD inline float nvBlockTarget(float amax, float global)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __fmul_rn(__fdiv_rn(amax, 6.0f), global);
#else
    return (amax / 6.0f) * global;
#endif
}
/// NVFP4's effective scale b / global, code and value.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline float nvEffective(float b, float global)
{
    return __fdiv_rn(b, global);
}
QS_HD inline std::uint8_t nvCode(float x, float eff)
{
    return e2m1Code(__fdiv_rn(x, eff));
}
#else
inline float nvEffective(float b, float global)
{
    return b / global;
}
inline std::uint8_t nvCode(float x, float eff)
{
    return e2m1Code(x / eff);
}
#endif

} // namespace quantscope::fp4
