// SPDX-License-Identifier: MIT
#pragma once
/// \file device_math.h
/// Scalar functions the GPU kernels share with host code, written once as QS_HD functions so
/// that they can be tested on the CPU against the reference (tests/gpu/test_device_math.cpp)
/// and compiled unchanged by nvcc and hipcc. No CUDA/HIP header: kernel sources define QS_HD
/// as `__host__ __device__` before including. Every FP64 operation whose rounding decides a
/// histogram bin goes through dadd/dsub/dmul/ddiv (explicitly rounded on the device; the host
/// build uses -ffp-contract=off), so device and CPU take the same decisions.
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

#include "numeric/fp4math.h"
#include "numeric/qmath.h"
#include "quant/uniform_math.h"

namespace quantscope::gpumath {

using qmath::bitsOf;
using qmath::fromBits;

using qmath::dadd;
using qmath::ddiv;
using qmath::dfloor;
using qmath::dmul;
using qmath::dsub;
using qmath::histBin;
QS_HD inline std::uint64_t dbits(double d)
{
    std::uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
QS_HD inline double dfromBits(std::uint64_t u)
{
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}

// ---- decoding the stored input ----------------------------------------------------------------

QS_HD inline float bf16ToF32(std::uint32_t h)
{
    return fromBits(h << 16);
}

/// F16 → F32, exact (the same fields as core/tensor/convert.cpp's f16ToFloat).
QS_HD inline float f16ToF32(std::uint32_t h)
{
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t mag = h & 0x7FFFu;
    const std::uint32_t shifted = mag << 13;
    if (mag >= 0x7C00u)
        return fromBits(sign | 0x7F800000u | (shifted & 0x007FFFFFu));
    if (mag >= 0x0400u)
        return fromBits(sign | (shifted + (112u << 23)));
    if (mag == 0)
        return fromBits(sign);
    // subnormal: mag · 2^-24, exact in FP32 (an integer below 2^10 times a power of two)
    return fromBits(sign | bitsOf(static_cast<float>(mag) * 5.9604644775390625e-8f));
}

/// FP32 → FP64 without the (slow, on GPUs) conversion instruction for normal numbers and zeros;
/// subnormals take the conversion. Exact, like the conversion.
QS_HD inline double f32ToF64(float f)
{
    const std::uint32_t u = bitsOf(f);
    const std::uint32_t a = u & 0x7FFFFFFFu;
    const std::uint32_t e = a & 0x7F800000u;
    if (e == 0u && a != 0u)
        return static_cast<double>(f); // subnormal
    if (e == 0x7F800000u)
        return static_cast<double>(f); // Inf / NaN
    const std::uint32_t hi = (a == 0u ? 0u : (a >> 3) + (896u << 20)) | (u & 0x80000000u);
    const std::uint32_t lo = u << 29;
    return dfromBits((static_cast<std::uint64_t>(hi) << 32) | lo);
}

// ---- uniform INT without int↔float conversions ---------------------------------------------
// intCode's clamped value v is an integer-valued float in [qmin, qmax]; the code is (int)v and
// intDequant computes s·(float)(q − z) = s·(v − z) (small integers: the subtraction is exact).
// Conversions run at a quarter of the FP32 rate on NVIDIA GPUs, so the kernels keep v as a float
// and take the integer from its bits. Identical to intCode/intDequant (tested on the host).

QS_HD inline float intCodeValue(const IntParams &p, float x, float s, float zf, float qminF, float qmaxF)
{
    float v = qmath::roundInt(qmath::roundArith(x / s, p.arith), p.halfAway) + zf;
    v = v < qminF ? qminF : (v > qmaxF ? qmaxF : v);
    return v;
}
/// intCode with FP32 arithmetic and half-to-even rounding (ProgressiveSpec's value-table path) as
/// an integer-valued float, like intCodeValue but with both of intCode's roundings — Quark's
/// rint(RN(x·r) + z) with r = RN(1/s) (REC), or rint(RN(x/s)) + z — and its NaN rule (code 0),
/// then the clamp. No float→int or int→float conversion (intCode's cast and intDequant's: each at a
/// fraction of the FP32 rate on the device). Equal to (float)intCode (tested on the host).
template <bool REC> QS_HD inline float intCodeFp32(float x, float s, float r, float zf, float qminF, float qmaxF)
{
    // + 0: rint of a small negative value is −0, which intCode's int 0 is not (Ŵ's sign of zero).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    float v = REC ? rintf(x * r + zf) + 0.0f : rintf(x / s) + zf; // rintf: half to even, as roundInt
#else
    float v = REC ? qmath::roundInt(x * r + zf, false) + 0.0f : qmath::roundInt(x / s, false) + zf;
#endif
    v = v == v ? v : 0.0f;
    return v < qminF ? qminF : (v > qmaxF ? qmaxF : v);
}
/// The integer of an integer-valued float in [−2^22, 2^22] (low byte = the int8 code).
QS_HD inline std::uint32_t intOfFloat(float v)
{
    return bitsOf(v + 12582912.0f) - 0x4B400000u;
}
QS_HD inline float intDequantValue(const IntParams &p, float v, float s, float zf)
{
    return qmath::roundArith(s * (v - zf), p.arith);
}

// ---- the value-table INT path's two shortcuts (int_quant.cu), tested on the host ---------------

/// t = RN(x·RN(1/s)) and rt = rint(t): true when rt is certainly also the half-to-even rounding
/// of RN(x/s), the CPU's quotient. The two quotients differ by at most 3·2^-24 relative, so they
/// round alike unless a half-integer lies within 2^-21·|t| of t. (Callers also need RN(1/s)
/// normal: 2^-126 ≤ s < 2^125.)
QS_HD inline bool reciprocalRoundsLikeDivision(float t, float rt)
{
    const float dist = qmath::absf(qmath::absf(t - rt) - 0.5f);
    return dist > qmath::absf(t) * 4.76837158203125e-7f; // NaN: false
}

/// The per-unit form of reciprocalRoundsLikeDivision: with T ≥ |t| for every t of a unit,
/// |t − rt| < reciprocalSafeBelow(T) vouches for rt as the former does for each t (the margin is
/// 2^-20·max(T, 1), at least twice the former's, so the rounding of this threshold cannot matter).
QS_HD inline float reciprocalSafeBelow(float T)
{
    return 0.5f - (T > 1.0f ? T : 1.0f) * 9.5367431640625e-7f; // 2^-20
}

/// The unclamped code rint(RN(x/s)) + zf (half to even), by the reciprocal r = RN(1/s) where
/// reciprocalRoundsLikeDivision vouches for it, else by the division.
QS_HD inline float intCodeUnclamped(float x, float s, float r, float zf)
{
    const float t = x * r;
    const float rt = qmath::roundInt(t, false);
    return (reciprocalRoundsLikeDivision(t, rt) ? rt : qmath::roundInt(x / s, false)) + zf;
}

/// True when no element of a group with extremes mn ≤ mx needs clamping: the unclamped code is
/// monotone in x, so the codes of mn and mx bound every element's. Then every error x − x̂ of the
/// group is an exact FP32 difference (Sterbenz; see kIntFast1), which the value-table INT path
/// relies on to skip the clamp and the per-element exactness check. Needs RN(1/s) normal.
QS_HD inline bool groupCodesInRange(float mn, float mx, float s, float r, float zf, float qminF, float qmaxF)
{
    return (intCodeUnclamped(mn, s, r, zf) >= qminF) & (intCodeUnclamped(mx, s, r, zf) <= qmaxF);
}

/// True when every error x − x̂ of the group is an exact FP32 difference even though some codes
/// are clamped: the unclamped codes overshoot [qmin, qmax] by at most one level, and a clamped
/// level's multiplier q − z is at least 2 in magnitude. Then a clamped x lies within
/// (k + 1/2, k + 3/2]·s of x̂ = k·s with |k| ≥ 2, inside [x̂/2, 2x̂] (Sterbenz). This is the usual
/// symmetric case: the positive extreme, 7.5·s, rounds to 8 and is clamped to 7.
QS_HD inline bool groupErrorsExact(float mn, float mx, float s, float r, float zf, float qminF, float qmaxF)
{
    const float lo = intCodeUnclamped(mn, s, r, zf), hi = intCodeUnclamped(mx, s, r, zf);
    const bool top = hi <= qmaxF || (hi <= qmaxF + 1.0f && qmaxF - zf >= 2.0f);
    const bool bottom = lo >= qminF || (lo >= qminF - 1.0f && qminF - zf <= -2.0f);
    return top & bottom;
}

/// e = RN(x − y) is the exact difference when y is 0 or 2|e| < |y|: then x lies within a factor
/// of two of y (Sterbenz). No short circuit, so the kernels stay branch-free.
QS_HD inline bool exactDifference(float e, float y)
{
    return (y == 0.0f) | (2.0f * qmath::absf(e) < qmath::absf(y));
}

/// True exactly when e = RN(x − y) is the exact difference x − y (finite x and y): the residual of
/// Knuth's TwoSum on x + (−y) is zero. Additions only (nothing to contract into an FMA), valid for
/// every finite input, subnormals included; an overflowed e gives NaN, so false. Unlike
/// exactDifference it also vouches where x lies outside [y/2, 2y]: ProgressiveSpec's Ŵ comes from
/// a rounded stage-1 value, so x near half a stage-2 level can sit at 0.47·x̂ with an exact error
/// (BF16/F16 x carries far fewer bits than x̂), which exactDifference declines for ~0.7 % of
/// Student-t weights — enough to send most warps of pass 1, and all of pass 2, to the FP64 route.
QS_HD inline bool exactSub(float x, float y, float e)
{
    const float xPart = e + y;     // a' = s − b (b = −y)
    const float yPart = e - xPart; // b' = s − a'
    const float dx = x - xPart;    // a − a'
    const float dy = (-y) - yPart; // b − b'
    return dx + dy == 0.0f;        // the rounding error of s, exactly
}

/// FP32 → FP64 of a finite normal number or zero, branch-free (the caller has checked).
QS_HD inline double f32ToF64NormalOrZero(float f)
{
    const std::uint32_t u = bitsOf(f);
    const std::uint32_t a = u & 0x7FFFFFFFu;
    const std::uint32_t hi = (a == 0u ? 0u : (a >> 3) + (896u << 20)) | (u & 0x80000000u);
    return dfromBits((static_cast<std::uint64_t>(hi) << 32) | (u << 29));
}
/// True for finite normal numbers and zeros (not subnormal, Inf or NaN).
QS_HD inline bool isNormalOrZero(float f)
{
    const std::uint32_t a = bitsOf(f) & 0x7FFFFFFFu;
    return a == 0u || a - 0x00800000u < 0x7F000000u;
}

// ---- AWQ's Ŵ = FP32(deq / s) without the FP64 division (awq.cu's kRowsTeam) ---------------------

/// Ŵ of one AWQ element as the CPU computes it, FP32(FP64(deq) / s), widened to FP64, from
/// y = RN(1/s) (s finite and positive, y normal). q = RN(deq·y) lies within 2^-52 relative of
/// deq/s, so within 3 FP64 units of RN(deq/s) (6 across a power of two). Where no midpoint between
/// two FP32 values (low 29 bits 2^28) lies within 8 units of q, and q is inside FP32's normal
/// range, both round to the same FP32: q rounded at bit 29 (no tie there, so adding 2^28 and
/// clearing the low bits is the rounding). deq = ±0 gives itself. Returns false elsewhere: the
/// caller divides (awqHatDivide).
QS_HD inline bool awqHatFast(float deq, double y, double &wh)
{
    const double q = dmul(static_cast<double>(deq), y);
    const std::uint64_t b = dbits(q);
    const std::uint32_t lo = static_cast<std::uint32_t>(b) & 0x1FFFFFFFu;
    const std::uint32_t e = static_cast<std::uint32_t>(b >> 52) & 0x7FFu;
    const bool zero = deq == 0.0f;
    wh = zero ? static_cast<double>(deq) : dfromBits((b + 0x10000000u) & ~std::uint64_t{0x1FFFFFFFu});
    return zero | ((lo - 0x0FFFFFF8u > 16u) & (e - 898u < 252u)); // q ∈ [2^-125, 2^127)
}
/// The CPU's Ŵ of one element, FP32(FP64(deq) / s), widened to FP64.
QS_HD inline double awqHatDivide(float deq, double s)
{
    return static_cast<double>(static_cast<float>(ddiv(static_cast<double>(deq), s)));
}

// ---- FP8 (docs/numerics.md "FP8"; the same algorithm as core/tensor/convert.cpp) --------------

/// Round to nearest even of a non-NaN FP32 magnitude `a` to M mantissa bits, exponent bias B.
template <int M, int B> QS_HD inline std::uint32_t fp8RoundMagnitude(std::uint32_t a)
{
    const auto field = static_cast<std::int32_t>(a >> 23);
    const std::int32_t eEff = field > 1 ? field : 1;
    const std::uint32_t sig = (a & 0x007FFFFFu) | (static_cast<std::uint32_t>(field != 0) << 23);
    const std::int32_t d = eEff - (128 - B);
    std::int32_t shift = (23 - M) + (d < 0 ? -d : 0);
    shift = shift < 31 ? shift : 31;
    const std::uint32_t half = (1u << (shift - 1)) - 1u;
    const std::uint32_t rounded = (sig + half + ((sig >> shift) & 1u)) >> shift;
    return (static_cast<std::uint32_t>(d > 0 ? d : 0) << M) + rounded;
}

/// The quantization cast to E4M3 (e4m3fn): clamp to ±448, RNE; NaN → 0x7F | sign.
QS_HD inline std::uint8_t encodeE4m3(float x)
{
    const std::uint32_t u = bitsOf(x);
    const std::uint32_t sign = (u >> 24) & 0x80u;
    const std::uint32_t a = u & 0x7FFFFFFFu;
    const std::uint32_t c = fp8RoundMagnitude<3, 7>(a < 0x43E00000u ? a : 0x43E00000u);
    return static_cast<std::uint8_t>(sign | (a > 0x7F800000u ? 0x7Fu : c));
}

/// The quantization cast to E5M2: clamp to ±57344, RNE; NaN → 0x7E | sign.
QS_HD inline std::uint8_t encodeE5m2(float x)
{
    const std::uint32_t u = bitsOf(x);
    const std::uint32_t sign = (u >> 24) & 0x80u;
    const std::uint32_t a = u & 0x7FFFFFFFu;
    const std::uint32_t c = fp8RoundMagnitude<2, 15>(a < 0x47600000u ? a : 0x47600000u);
    return static_cast<std::uint8_t>(sign | (a > 0x7F800000u ? 0x7Eu : c));
}

QS_HD inline float decodeE4m3(std::uint32_t b)
{
    const std::uint32_t sign = (b & 0x80u) << 24;
    const std::uint32_t e = (b >> 3) & 0xFu, m = b & 7u;
    if (e == 15u && m == 7u)
        return fromBits(sign | 0x7FC00000u);
    if (e == 0u) // subnormal m · 2^-9, exact
        return fromBits(sign | bitsOf(static_cast<float>(m) * 0.001953125f));
    return fromBits(sign | ((e + 120u) << 23) | (m << 20));
}

QS_HD inline float decodeE5m2(std::uint32_t b)
{
    const std::uint32_t sign = (b & 0x80u) << 24;
    const std::uint32_t e = (b >> 2) & 0x1Fu, m = b & 3u;
    if (e == 31u)
        return fromBits(sign | (m == 0u ? 0x7F800000u : 0x7FC00000u));
    if (e == 0u) // subnormal m · 2^-16
        return fromBits(sign | bitsOf(static_cast<float>(m) * 1.52587890625e-5f));
    return fromBits(sign | ((e + 112u) << 23) | (m << 21));
}

/// The FP8 quantizer's per-group constants and element ops (quant/fp8.h's op sequence).
struct Fp8Params {
    bool e4m3 = true;
    float maxValue = 448.0f;
    int arith = 0;
    float eps = 1.1920929e-7f;
};

QS_HD inline float fp8Scale(const Fp8Params &p, float mn, float mx)
{
    const float amax = qmath::absf(mn) > qmath::absf(mx) ? qmath::absf(mn) : qmath::absf(mx);
    float s = qmath::roundArith(amax / p.maxValue, p.arith);
    if (!(s > 0.0f) || !qmath::isFinite(s))
        s = p.eps;
    return s;
}
QS_HD inline std::uint8_t fp8Code(const Fp8Params &p, float x, float s)
{
    const float v = qmath::roundArith(x / s, p.arith);
    return p.e4m3 ? encodeE4m3(v) : encodeE5m2(v);
}
QS_HD inline float fp8Dequant(const Fp8Params &p, std::uint32_t c, float s)
{
    const float f = p.e4m3 ? decodeE4m3(c) : decodeE5m2(c);
    return qmath::roundArith(f * s, p.arith);
}

// ---- order-preserving keys (atomic min/max of floats, searches over floats) --------------------

QS_HD inline std::uint32_t floatKey(float f)
{
    const std::uint32_t u = bitsOf(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
QS_HD inline float keyFloat(std::uint32_t k)
{
    return fromBits((k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k);
}

// ---- histogram bins (core/metrics/error_metrics.cpp, Histogram::binOf) ------------------------
//
// A bin is floor(((x − lo)·B)/(hi − lo)) in FP64 — a monotone function of x, since each correctly
// rounded step is. So bin(x) ≥ k  ⇔  x ≥ T[k], with T[k] the smallest input whose bin is ≥ k.
// The kernels therefore compare x with a table T found once per run by binary search over the
// ordered inputs, evaluating the exact formula (no division per element), and get the same bin
// as the CPU for every input.

/// The bin of v among FP32 thresholds T (T[k] = the smallest value of bin ≥ k, T[0] = −inf,
/// T[B] = +inf) from an FP32 estimate of its position, pos = RN(v·scale + offset) with scale ≈
/// B/(hi − lo), offset = −RN(lo·scale): the nearest integer r decides alone (bin r − 1 below it,
/// r above) unless pos lies within eps of r; only then is T[r] read. eps bounds the error of pos
/// and of the thresholds' own rounding (both a few 2^-24 of (|lo| + |hi|)·scale + B) eightfold.
/// pos must lie in [0, B] up to rounding, which Stats1::fastBins guarantees for v in [lo, hi].
struct Band {
    float scale, offset, eps;
};
QS_HD inline Band band(double lo, double hi, float scale, int B)
{
    Band b;
    b.scale = scale;
    b.offset = -(static_cast<float>(lo) * scale);
    b.eps = static_cast<float>(((lo < 0 ? -lo : lo) + (hi < 0 ? -hi : hi)) * static_cast<double>(scale) * 0x1p-20 +
                               static_cast<double>(B) * 0x1p-20);
    return b;
}
template <typename At> QS_HD inline int bandBin(float v, float pos, float eps, At T)
{
    const std::uint32_t rb = bitsOf(pos + 12582912.0f); // 1.5·2^23: the nearest integer in the low bits
    const int r = static_cast<int>(rb) - 0x4B400000;
    const float d = pos - (fromBits(rb) - 12582912.0f); // exact
    bool below = d < 0.0f;
    if (qmath::absf(d) <= eps)
        below = v < T(r);
    return r - (below ? 1 : 0);
}

/// Smallest float x (NaN excluded; may be +Inf) with histBin(x) ≥ k. k in 0..B.
/// Searches the 16 floats around the nominal edge lo + k·(hi − lo)/B first (four steps), then 512,
/// then all floats.
QS_HD inline float floatBinThreshold(int k, double lo, double hi, int B)
{
    const std::uint32_t kMin = floatKey(qmath::fromBits(0xFF800000u)), kMax = floatKey(qmath::fromBits(0x7F800000u));
    auto pred = [&](std::uint32_t key) { return histBin(static_cast<double>(keyFloat(key)), lo, hi, B) >= k; };
    std::uint32_t a = kMin, b = kMax; // pred(b) true
    if (pred(a))
        return keyFloat(a);
    const double edge = lo + static_cast<double>(k) * ((hi - lo) / static_cast<double>(B));
    const float ef = static_cast<float>(edge);
    if (ef == ef && qmath::isFinite(ef)) {
        const std::uint32_t ke = floatKey(ef);
        for (std::uint32_t r : {8u, 256u}) { // the nominal edge is a float or two from the threshold
            const std::uint32_t a2 = ke - kMin > r ? ke - r : kMin, b2 = kMax - ke > r ? ke + r : kMax;
            if (!pred(a2) && pred(b2)) {
                a = a2;
                b = b2;
                break;
            }
        }
    }
    while (b - a > 1u) { // pred(a) false, pred(b) true
        const std::uint32_t m = a + (b - a) / 2u;
        if (pred(m))
            b = m;
        else
            a = m;
    }
    return keyFloat(b);
}

/// Smallest float ≥ lo, and largest float ≤ hi (the below/above tests in FP32).
QS_HD inline float floatAtLeast(double lo)
{
    std::uint32_t a = floatKey(qmath::fromBits(0xFF800000u)), b = floatKey(qmath::fromBits(0x7F800000u));
    if (static_cast<double>(keyFloat(a)) >= lo)
        return keyFloat(a);
    if (!(static_cast<double>(keyFloat(b)) >= lo))
        return qmath::fromBits(0x7FC00000u);
    while (b - a > 1u) {
        const std::uint32_t m = a + (b - a) / 2u;
        if (static_cast<double>(keyFloat(m)) >= lo)
            b = m;
        else
            a = m;
    }
    return keyFloat(b);
}
QS_HD inline float floatAtMost(double hi)
{
    std::uint32_t a = floatKey(qmath::fromBits(0xFF800000u)), b = floatKey(qmath::fromBits(0x7F800000u));
    if (static_cast<double>(keyFloat(b)) <= hi)
        return keyFloat(b);
    if (!(static_cast<double>(keyFloat(a)) <= hi))
        return qmath::fromBits(0x7FC00000u);
    while (b - a > 1u) { // pred(a) = a ≤ hi true, pred(b) false
        const std::uint32_t m = a + (b - a) / 2u;
        if (static_cast<double>(keyFloat(m)) <= hi)
            a = m;
        else
            b = m;
    }
    return keyFloat(a);
}

/// Bin of u = RN(x − lo) ≥ 0 for a range of width R = RN(hi − lo) > 0 and B bins: the formula of
/// histBin after its first step, floor(RN(RN(u·B)/R)), not clamped.
QS_HD inline double scaledBin(double u, double R, double B)
{
    return dfloor(ddiv(dmul(u, B), R));
}

/// Smallest double u in [0, R] with floor(RN(RN(u·B)/R)) ≥ k (k ≤ B − 1 < B = the value at R).
/// Starts from the bracket k·R/B · (1 ± 2^-40), widening to [0, R] if it does not hold.
QS_HD inline double doubleBinThreshold(int k, double R, int B)
{
    const double Bd = static_cast<double>(B);
    auto pred = [&](double u) { return scaledBin(u, R, Bd) >= static_cast<double>(k); };
    const double g = ddiv(dmul(static_cast<double>(k), R), Bd);
    double lo = dmul(g, 1.0 - 9.094947017729282e-13), hi = dmul(g, 1.0 + 9.094947017729282e-13);
    if (hi > R)
        hi = R;
    if (pred(lo) || !pred(hi)) {
        lo = 0.0;
        hi = R;
    }
    if (pred(lo))
        return lo;
    std::uint64_t a = dbits(lo), b = dbits(hi); // non-negative doubles: bits are ordered
    while (b - a > 1u) {
        const std::uint64_t m = a + (b - a) / 2u;
        if (pred(dfromBits(m)))
            b = m;
        else
            a = m;
    }
    return dfromBits(b);
}

/// The range sketch's CholeskyQR guard (linalg_sketch.h, the Gram route): a pass R = chol(YᵀY),
/// Q = Y·R⁻¹ is trusted when R's diagonal is finite and its smallest |rᵢᵢ| (lo) is at least
/// `minRatio` times its largest (hi). hi/lo bounds cond(Y) from below, and one FP64 pass leaves Q
/// within about u·cond(Y)² of orthonormal, so with minRatio = 1e-6 a trusted pass is within ≈ 1e-4
/// and the final second pass makes it orthonormal to machine precision. An untrusted pass sets the
/// sketch's failed flag (Householder QR reruns it).
/// (a & b) ^ c; on an NVIDIA device one lop3 (ptxas makes an and and an xor of the C expression
/// when b and c are both immediates). The fused GEMMs' nibble → operand tricks.
QS_HD inline std::uint32_t andXor(std::uint32_t a, std::uint32_t b, std::uint32_t c)
{
#if defined(__CUDA_ARCH__)
    std::uint32_t r;
    asm("lop3.b32 %0, %1, %2, %3, 0x6A;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return (a & b) ^ c;
#endif
}

/// acc + the sum of the 16 signed bytes of the words (x, y, z, w), exact in INT32; on a device four
/// dp4a against ones (the fused W4A8 GEMMs' Σx̂, X's chunk sums, the unfused lab's row sums; HIP,
/// which has no __dp4a, and the host sum the bytes).
QS_HD inline int byteSum16(std::uint32_t x, std::uint32_t y, std::uint32_t z, std::uint32_t w, int acc)
{
#if defined(__CUDA_ARCH__)
    acc = __dp4a(static_cast<int>(x), 0x01010101, acc);
    acc = __dp4a(static_cast<int>(y), 0x01010101, acc);
    acc = __dp4a(static_cast<int>(z), 0x01010101, acc);
    return __dp4a(static_cast<int>(w), 0x01010101, acc);
#else
    const std::uint32_t words[4] = {x, y, z, w};
    for (const std::uint32_t word : words)
        for (int b = 0; b < 4; ++b)
            acc += static_cast<std::int8_t>(static_cast<std::uint8_t>(word >> (8 * b)));
    return acc;
#endif
}

QS_HD inline bool cholDiagonalOk(double lo, double hi, bool finite, double minRatio)
{
    return finite && hi > 0 && lo >= minRatio * hi;
}

} // namespace quantscope::gpumath
