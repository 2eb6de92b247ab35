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

/// The thresholds e2m1CodeByReciprocal reads, thr[n] ≤ |t| < thr[n + 1] around magnitude code n:
/// −inf, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, +inf (the kernels keep them in shared memory).
QS_HD inline float e2m1Threshold(int n)
{
    const float inf = qmath::fromBits(0x7F800000u); // selects, not an array (local memory)
    return n <= 0   ? -inf
           : n == 1 ? 0.25f
           : n == 2 ? 0.75f
           : n == 3 ? 1.25f
           : n == 4 ? 1.75f
           : n == 5 ? 2.5f
           : n == 6 ? 3.5f
           : n == 7 ? 5.0f
                    : inf;
}

/// NVFP4's code e2m1Code(RN(x/e)) (fp4::nvCode) from tr = RN(x·RN(1/e)), with RN(1/e) normal
/// (2^−126 ≤ RN(1/e) < 2^128): RN(1/e) and the product each add at most 2^−24 relative, so tr lies
/// within 3·2^−24·|tr| of RN(x/e) (subnormal tr: within 2^−149, far below the first threshold).
/// Both give the same code unless a rounding threshold lies within 2^−20·|tr| of tr — the two
/// thresholds around tr's code, thr[n] and thr[n + 1] (e2m1Threshold). `near` says so, and then
/// the caller divides. tr not NaN; tr = ±Inf is always near.
QS_HD inline std::uint32_t e2m1CodeByReciprocal(float tr, const float *thr, bool &near)
{
    const std::uint32_t c = e2m1CodeNotNaN(tr);
    const float a = qmath::absf(tr);
    const std::uint32_t n = c & 7u;
    const float m = a * 9.5367431640625e-7f; // 2^−20·|tr|
    near = !((a - thr[n] > m) & (thr[n + 1] - a > m));
    return c;
}

/// True when RN(1/e) is a normal FP32 number (e2m1CodeByReciprocal's condition).
QS_HD inline bool reciprocalNormal(float r)
{
    return r >= 1.1754943508222875e-38f && r < qmath::fromBits(0x7F800000u);
}

} // namespace quantscope::gpumath
