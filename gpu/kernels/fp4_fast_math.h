// SPDX-License-Identifier: MIT
#pragma once
/// \file fp4_fast_math.h
/// The shortcuts of the FP4 value-table path (fp4_quant.cu) — for power-of-two group scales (MXFP4
/// in every mode, constOpt pow2) and for NVFP4's b/global — written once as QS_HD functions so
/// that they are tested on the host against the CPU reference's own operations
/// (tests/gpu/test_device_math.cpp, label core).
/// Kernel sources define QS_HD as `__host__ __device__` before including.
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

#include "device_math.h"
#include "numeric/fp4math.h"
#include "numeric/qmath.h"

namespace quantscope::gpumath {

/// The exact reciprocal of a power-of-two scale s = 2^k with −127 ≤ k ≤ 127 (every E8M0 scale,
/// fp4::e8m0Scale(0..254)): 2^−k, which is representable (2^−127 as a subnormal). Then x·r and
/// the CPU's x/s are the correctly rounded values of the same real number x·2^−k, so they are the
/// same FP32 value for every x (zeros, subnormals, Inf included): no division, no tie check.
/// Built from the bits (branch-free); s outside that set gives an unspecified value.
QS_HD inline float pow2Reciprocal(float s)
{
    const std::uint32_t u = qmath::bitsOf(s);
    const std::uint32_t f = 254u - (u >> 23); // 2^(F − 127) → field 254 − F; F = 254 → 2^−127
    const std::uint32_t normal = f == 0u ? 0x00400000u : f << 23;
    return qmath::fromBits(u == 0x00400000u ? 0x7F000000u : normal); // s = 2^−127 → 2^127
}

/// fp4::e2m1Code(t) for every t that is not NaN, as the number of round-to-nearest-even
/// thresholds |t| passes (0.25 <, 0.75 ≤, 1.25 <, 1.75 ≤, 2.5 <, 3.5 ≤, 5 <: a tie goes to the
/// even code; Inf and everything above 6 saturate to magnitude code 7) with the sign in bit 3
/// (kept for values that round to 0, as e2m1Code keeps it). Straight-line: seven comparisons.
QS_HD inline std::uint32_t e2m1CodeNotNaN(float t)
{
    const float a = qmath::absf(t);
    const std::uint32_t n = static_cast<std::uint32_t>(a > 0.25f) + static_cast<std::uint32_t>(a >= 0.75f) +
                            static_cast<std::uint32_t>(a > 1.25f) + static_cast<std::uint32_t>(a >= 1.75f) +
                            static_cast<std::uint32_t>(a > 2.5f) + static_cast<std::uint32_t>(a >= 3.5f) +
                            static_cast<std::uint32_t>(a > 5.0f);
    return n | ((qmath::bitsOf(t) >> 28) & 8u);
}

/// True when every error x − x̂ of a group is an exact FP32 difference, given a power-of-two
/// scale s, x̂ = RN(value(e2m1(x/s))·s) finite, and tmax ≥ |x/s| for every element of the group
/// (the kernels pass RN(amax·(1/s)), exact up to underflow). Proof: x̂ = v·s exactly (v has two
/// significant bits, s is a power of two ≥ 2^−127). v = 0 gives e = x. Otherwise x/s lies in v's
/// rounding interval — [0.25, 0.75] for 0.5, [0.75, 1.25] for 1, …, [3.5, 5] for 4, all inside
/// [v/2, 2v] — or, for v = 6, in [5, tmax] ⊂ [3, 12]; so x ∈ [x̂/2, 2x̂] and Sterbenz makes
/// RN(x − x̂) exact (gradual underflow included). An x/s that underflows is below 0.25: v = 0.
/// MXFP4's scales give tmax < 8 in every mode; constOpt pow2 at c gives up to about √2/c (9.1 at
/// the default 0.156), so a group with c < 0.118 may fail and take the per-element check.
QS_HD inline bool fp4ErrorsExact(float tmax)
{
    return tmax <= 12.0f; // NaN: false
}

/// NVFP4's code by thresholds on |x| (no division, no rounding decision at run time): the code
/// e2m1Code(RN(x/e)) of fp4::nvCode steps up where RN(q), q = x/e the real quotient, passes one of
/// its seven thresholds T (0.25 <, 0.75 ≤, 1.25 <, 1.75 ≤, 2.5 <, 3.5 ≤, 5 <). T is an FP32 value
/// with an even significand, so RN(q) > T ⇔ q > T + ulp(T)/2 (the midpoint to T's successor rounds
/// to T) and RN(q) ≥ T ⇔ q ≥ T − ulp(pred T)/2 (that midpoint rounds up to T). With e > 0 these are
/// |x| > m·e and |x| ≥ m·e for the midpoints m; m (≤ 25 significant bits) times e (≤ 24) is exact
/// in FP64, and for an FP32 |x| the comparison with the real m·e equals |x| ≥ thr, thr the
/// smallest FP32 value ≥ m·e (> m·e for the strict ones; +Inf when none is finite). Holds for
/// every finite e > 0 (subnormal e included) and every x that is not NaN: Inf and quotients that
/// overflow reach code 7, quotients that underflow stay below the first midpoint.
QS_HD inline void nvCodeThresholds(float e, float thr[7])
{
    // The midpoints: T + 2^-26, T − 2^-25, … (ulp(T)/2 for the strict ones, ulp(pred T)/2 else).
    const double m[7] = {0.25 + 0x1p-26, 0.75 - 0x1p-25, 1.25 + 0x1p-24, 1.75 - 0x1p-24,
                         2.5 + 0x1p-23,  3.5 - 0x1p-23,  5.0 + 0x1p-22};
    const double ed = static_cast<double>(e);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll
#endif
    for (int i = 0; i < 7; ++i) {
        const double p = m[i] * ed;            // exact
        const float f = static_cast<float>(p); // RN (positive; Inf above FLT_MAX's midpoint)
        const double fd = static_cast<double>(f);
        const bool up = (i % 2 == 0) ? fd <= p : fd < p;          // even i: strict
        thr[i] = up ? qmath::fromBits(qmath::bitsOf(f) + 1u) : f; // the next FP32 value up (FLT_MAX → Inf)
    }
}

/// fp4::nvCode(x, e) for x not NaN, from nvCodeThresholds(e): seven comparisons of |x|, the sign
/// of x in bit 3 (RN(x/e) has x's sign for e > 0, also when it rounds to zero).
QS_HD inline std::uint32_t nvCodeByThresholds(float x, const float thr[7])
{
    const float a = qmath::absf(x);
    const std::uint32_t n = static_cast<std::uint32_t>(a >= thr[0]) + static_cast<std::uint32_t>(a >= thr[1]) +
                            static_cast<std::uint32_t>(a >= thr[2]) + static_cast<std::uint32_t>(a >= thr[3]) +
                            static_cast<std::uint32_t>(a >= thr[4]) + static_cast<std::uint32_t>(a >= thr[5]) +
                            static_cast<std::uint32_t>(a >= thr[6]);
    return n | ((qmath::bitsOf(x) >> 28) & 8u);
}

/// NVFP4's stored block scale as its E4M3 byte (0..0x7E; 0x7F for a NaN target): the CPU's rule
/// (nvBlockTarget cast to E4M3, an underflow to 0 replaced by 0.125 = byte 0x20). The value is
/// gpumath::decodeE4m3 of the byte; Ŵ of a code is a function of this byte and the code alone
/// (the global scale is one per tensor), which the NVFP4 path's level table uses.
QS_HD inline std::uint32_t nvBlockByte(float target)
{
    const std::uint32_t b = encodeE4m3(target) & 0x7Fu; // the target is ≥ 0 (or NaN)
    return b == 0u ? 0x20u : b;
}

} // namespace quantscope::gpumath
