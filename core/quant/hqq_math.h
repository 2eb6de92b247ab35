// SPDX-License-Identifier: MIT
#pragma once
/// \file hqq_math.h
/// HQQ's scalar arithmetic (docs/numerics.md "HQQ"), written once as QS_HD functions so that the
/// CPU reference (hqq.cpp) and the GPU kernels (gpu/kernels/hqq.cu) make the same rounding
/// decisions bit for bit:
///   - hqqPow: |e|^(p−1) from IEEE FP64 +, −, ×, ÷ only (no libm: glibc's powf and the device's
///     powf differ in the last bit now and then), rounded once to FP32;
///   - hqqElement / hqqGroupSums: one element of an iteration and the group's FP64 sums in the
///     fixed lane order (4 lanes: element t goes to lane t mod 4 below the last multiple of 8,
///     lanes combined as (l0 + l1) + (l2 + l3), then the tail in order) — the order of the CPU's
///     AVX2 code, which every build and the device now follow;
///   - the global error Σ|e| as an exact, order-independent sum of the groups' FP64 sums: each
///     becomes an integer k = RNE(v·2^-u) in 128 bits, the integers add exactly in any order
///     (threads, GPU blocks), and the total returns to FP64 with one rounding (numeric/fixedsum.h,
///     the c sweep's sums, with HQQ's unit).
/// No CUDA/HIP header: GPU sources define QS_HD as `__host__ __device__` before including.
#include <cstdint>

#include "numeric/fixedsum.h"
#include "numeric/qmath.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define QS_HQQ_UNROLL _Pragma("unroll")
#define QS_HQQ_NOINLINE inline __noinline__ ///< the rare shrink path: one copy, not one per unrolled lane
#else
#define QS_HQQ_UNROLL
#define QS_HQQ_NOINLINE inline
#endif

namespace quantscope::hqqmath {

using qmath::dadd;
using qmath::ddiv;
using qmath::dmul;
using qmath::dsub;

/// Round half to even for |x| < 2^23 (x itself beyond), as torch.round.
QS_HD inline float rne(float x)
{
    const float ax = qmath::absf(x);
    if (!(ax < 8388608.0f))
        return x;
    const float r = (ax + 8388608.0f) - 8388608.0f;
    return x < 0.0f ? -r : r;
}

QS_HD inline float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/// h(x): x rounded to FP16 and back, round to nearest even with subnormals, overflow → ±inf —
/// qmath::roundF16, or on NVIDIA devices the conversion instructions (cvt.rn.f16.f32 and back),
/// which give the same value for every non-NaN input at a fraction of the integer work. The
/// including kernel source provides __float2half_rn (cuda_fp16.h).
QS_HD inline float hqqH(float x)
{
#if defined(__CUDA_ARCH__)
    return __half2float(__float2half_rn(x));
#else
    return qmath::roundF16(x);
#endif
}

QS_HD inline std::uint64_t dbits(double d)
{
    std::uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
QS_HD inline double dOfBits(std::uint64_t u)
{
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}

/// a^e for a ≥ 0 (float), e a float of magnitude < 1: 0^e = +inf for e < 0, inf^e = 0; computed
/// as exp(e·ln a) in FP64 (relative error ~1e-15) and rounded once to FP32. Deterministic: the same
/// sequence of correctly rounded FP64 operations on every device.
QS_HD inline float hqqPow(float a, float e)
{
    const std::uint32_t ua = qmath::bitsOf(a);
    if (ua == 0u)
        return qmath::fromBits(0x7F800000u);
    if (ua >= 0x7F800000u)
        return 0.0f;
    // a = m·2^k with m in [√½, √2).
    int k;
    double m;
    const std::uint32_t field = ua >> 23;
    if (field) {
        k = static_cast<int>(field) - 127;
        m = static_cast<double>(qmath::fromBits((ua & 0x007FFFFFu) | 0x3F800000u));
    } else {                                      // subnormal: a = frac·2^-149, frac < 2^23
        const double f = static_cast<double>(ua); // exact
        const std::uint64_t fb = dbits(f);
        k = static_cast<int>((fb >> 52) & 0x7FF) - 1023 - 149;
        m = dOfBits((fb & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
    }
    if (m > 1.4142135623730951) {
        m = dmul(m, 0.5);
        ++k;
    }
    // ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716: the series to s^25.
    const double s = ddiv(dsub(m, 1.0), dadd(m, 1.0));
    const double s2 = dmul(s, s);
    double p = 1.0 / 25.0;
    p = dadd(dmul(p, s2), 1.0 / 23.0);
    p = dadd(dmul(p, s2), 1.0 / 21.0);
    p = dadd(dmul(p, s2), 1.0 / 19.0);
    p = dadd(dmul(p, s2), 1.0 / 17.0);
    p = dadd(dmul(p, s2), 1.0 / 15.0);
    p = dadd(dmul(p, s2), 1.0 / 13.0);
    p = dadd(dmul(p, s2), 1.0 / 11.0);
    p = dadd(dmul(p, s2), 1.0 / 9.0);
    p = dadd(dmul(p, s2), 1.0 / 7.0);
    p = dadd(dmul(p, s2), 1.0 / 5.0);
    p = dadd(dmul(p, s2), 1.0 / 3.0);
    p = dadd(dmul(p, s2), 1.0);
    const double lnm = dmul(dmul(2.0, s), p);
    // fdlibm's split of ln 2: k·ln2Hi is exact for |k| < 2^11.
    const double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
    const double kd = static_cast<double>(k);
    const double lna = dadd(dmul(kd, ln2Hi), dadd(dmul(kd, ln2Lo), lnm));
    const double y = dmul(static_cast<double>(e), lna);
    // exp(y) = 2^n·exp(r), |r| ≤ ln2/2 (|y| < 50 here): Taylor to r^18.
    const double invLn2 = 1.44269504088896338700e+00;
    const double t = dmul(y, invLn2);
    const int n = static_cast<int>(t < 0.0 ? dsub(t, 0.5) : dadd(t, 0.5)); // nearest (ties away)
    const double nd = static_cast<double>(n);
    const double r = dsub(dsub(y, dmul(nd, ln2Hi)), dmul(nd, ln2Lo));
    // Horner on 1 + r(1 + r/2(1 + r/3(… (1 + r/18)))).
    double q = 1.0;
    q = dadd(1.0, dmul(dmul(r, 1.0 / 18.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 17.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 16.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 15.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 14.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 13.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 12.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 11.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 10.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 9.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 8.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 7.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 6.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 5.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 4.0), q));
    q = dadd(1.0, dmul(dmul(r, 1.0 / 3.0), q));
    q = dadd(1.0, dmul(dmul(r, 0.5), q));
    q = dadd(1.0, dmul(r, q));
    // q·2^n: n within ±200 (the FP32 range), two exact power-of-two factors.
    const int n1 = n / 2, n2 = n - n1;
    const double f1 = dOfBits(static_cast<std::uint64_t>(n1 + 1023) << 52);
    const double f2 = dOfBits(static_cast<std::uint64_t>(n2 + 1023) << 52);
    return static_cast<float>(dmul(dmul(q, f1), f2));
}

/// The per-run constants of an iteration.
struct HqqIterParams {
    float qmax = 15.0f;
    bool fp16 = false;
    float powExp = -0.3f; ///< p − 1 in the optimiser dtype (fp16: −0.300048828125)
};

/// |e| at or above this may have a non-zero shrink term; below it a − 0.1·a^−0.3 < 0 with a wide
/// margin (a = 0.16: 0.16 − 0.1733) in both precisions, so W_e = 0 without the power.
inline constexpr float kHqqShrinkFrom = 0.16f;

/// The shrink term sign(e)·max(h(a − h(0.1·h(a^(p−1)))), 0) of one error e (h = the optimiser
/// rounding). `powH` is h(a^(p−1)) for a ≥ kHqqShrinkFrom.
QS_HD inline float hqqShrinkWith(float e, float a, float powH, bool fp16)
{
    float sh = fp16 ? qmath::roundF16(a - qmath::roundF16(0.1f * powH)) : a - 0.1f * powH;
    sh = sh > 0.0f ? sh : 0.0f;
    return e > 0.0f ? sh : (e < 0.0f ? -sh : 0.0f);
}

QS_HD QS_HQQ_NOINLINE float hqqShrinkFar(float e, float a, float powExp, bool fp16)
{
    const float pw = hqqPow(a, powExp);
    return hqqShrinkWith(e, a, fp16 ? qmath::roundF16(pw) : pw, fp16);
}

QS_HD inline float hqqShrink(float e, const HqqIterParams &P)
{
    const float a = qmath::absf(e);
    if (!(a >= kHqqShrinkFrom))
        return 0.0f;
    return hqqShrinkFar(e, a, P.powExp, P.fp16);
}

/// One element of an iteration (hqq.h's op sequence): |e| and the z-update term. Below
/// kHqqShrinkFrom, W_e = ±0 and h(h(x − W_e)·σ) is the product h(x·σ) the code already took (the
/// same value: x − (±0) = x up to the sign of a zero, which q − (±0) does not see), so it is reused.
/// W_r of code q (a float integer in [0, qmax]): h(h(q − z)/σ), or (q − z)/σ with compute fp32.
QS_HD inline float hqqDequantCode(float q, float s, float zz, bool fp16)
{
    return fp16 ? hqqH(hqqH(q - zz) / s) : (q - zz) / s;
}

/// `wrT` (optional): hqqDequantCode of the group's codes 0 … qmax at wrT[c·wrStride], computed
/// once per group and iteration instead of one division per element (the same operations, so the
/// same values; a code −0 reads entry 0, whose W_r differs at most in the sign of a zero, which
/// neither |e| nor the z term sees).
QS_HD inline void hqqElement(float xv, float s, float zz, const HqqIterParams &P, float &absE, float &zTerm,
                             const float *wrT = nullptr, int wrStride = 0)
{
    if (P.fp16) {
        const float xs = hqqH(xv * s);
        const float q = clampf(rne(hqqH(xs + zz)), 0.0f, P.qmax);
        const float wr = wrT ? wrT[static_cast<int>(q) * wrStride] : hqqDequantCode(q, s, zz, true);
        const float e = hqqH(xv - wr);
        const float a = qmath::absf(e);
        absE = a;
        if (a >= kHqqShrinkFrom) {
            const float we = hqqShrinkFar(e, a, P.powExp, true);
            zTerm = hqqH(q - hqqH(hqqH(xv - we) * s));
        } else {
            zTerm = hqqH(q - xs);
        }
    } else {
        const float xs = xv * s;
        const float q = clampf(rne(xs + zz), 0.0f, P.qmax);
        const float wr = wrT ? wrT[static_cast<int>(q) * wrStride] : hqqDequantCode(q, s, zz, false);
        const float e = xv - wr;
        const float a = qmath::absf(e);
        absE = a;
        if (a >= kHqqShrinkFrom) {
            const float we = hqqShrinkFar(e, a, P.powExp, false);
            zTerm = q - (xv - we) * s;
        } else {
            zTerm = q - xs;
        }
    }
}

/// Σ|e| and Σ(z term) of one group of g elements in the fixed lane order (file comment). `x`
/// gives the elements in the optimiser dtype: x(t) one, x.load8(t0, v) the 8 at t0 (t0 a multiple
/// of 8; a device accessor loads them at once). HqqElems adapts a plain accessor. GS > 0: the
/// group size is the constant GS (g must equal it) and the loop over the blocks of 8 is unrolled,
/// so that an accessor over a register array (the device's fused iterations) keeps its indices
/// constant; the same operations in the same order as GS = 0.
template <int GS = 0, class X>
QS_HD inline void hqqGroupSums(const X &x, std::int64_t g, float s, float zz, const HqqIterParams &P, double &es,
                               double &zs, const float *wrT = nullptr, int wrStride = 0)
{
    double le[4] = {0.0, 0.0, 0.0, 0.0}, lz[4] = {0.0, 0.0, 0.0, 0.0};
    if constexpr (GS > 0)
        g = GS;
    const std::int64_t g8 = g / 8 * 8;
    auto block8 = [&](std::int64_t t0) {
        float xv[8];
        x.load8(t0, xv);
        QS_HQQ_UNROLL
        for (int k = 0; k < 8; ++k) { // constant lane indices once unrolled: registers on the device
            float a, v;
            hqqElement(xv[k], s, zz, P, a, v, wrT, wrStride);
            le[k & 3] = dadd(le[k & 3], static_cast<double>(a));
            lz[k & 3] = dadd(lz[k & 3], static_cast<double>(v));
        }
    };
    if constexpr (GS > 0) {
        QS_HQQ_UNROLL
        for (int t0 = 0; t0 < GS / 8 * 8; t0 += 8)
            block8(t0);
    } else {
        for (std::int64_t t0 = 0; t0 < g8; t0 += 8)
            block8(t0);
    }
    es = dadd(dadd(le[0], le[1]), dadd(le[2], le[3]));
    zs = dadd(dadd(lz[0], lz[1]), dadd(lz[2], lz[3]));
    for (std::int64_t t = g8; t < g; ++t) {
        float a, v;
        hqqElement(x(t), s, zz, P, a, v, wrT, wrStride);
        es = dadd(es, static_cast<double>(a));
        zs = dadd(zs, static_cast<double>(v));
    }
}

/// hqqGroupSums' accessor from a plain one, f(t) → element t.
template <class F> struct HqqElems {
    F f;
    QS_HD float operator()(std::int64_t t) const { return f(t); }
    QS_HD void load8(std::int64_t t0, float v[8]) const
    {
        for (int k = 0; k < 8; ++k)
            v[k] = f(t0 + k);
    }
};
template <class F> QS_HD inline HqqElems<F> hqqElems(F f)
{
    return HqqElems<F>{f};
}

/// hqq.cpp's stop rule for one iteration's global error: an error below the best so far
/// improves it (the loop goes on); anything else (equal, larger, NaN) ends the loop after this
/// iteration, whose z is kept (the library updates z before the test).
QS_HD inline bool hqqImproves(float err, float &best)
{
    if (err < best) {
        best = err;
        return true;
    }
    return false;
}

/// The device's fused iterations run a chunk of `count` iterations (it0 … it0 + count − 1) for
/// every group before the global errors of the chunk are known, keeping each iteration's z. This
/// applies the stop rule to the chunk's errors in order, as hqq.cpp's loop would have seen them:
/// records err_i at hist[i − 1], and returns the index k of the chunk's last iteration that the
/// CPU runs (its z is the result's, or the next chunk's start); `stopped` is set when the rule
/// fired at k (the iterations after k were speculative and are dropped).
QS_HD inline int hqqChunkVerdict(const float *errs, int it0, int count, float &best, float *hist, int &itersRun,
                                 bool &stopped)
{
    stopped = false;
    for (int k = 0; k < count; ++k) {
        hist[it0 - 1 + k] = errs[k];
        itersRun = it0 + k;
        if (!hqqImproves(errs[k], best)) {
            stopped = true;
            return k;
        }
    }
    return count - 1;
}

/// The z update from the group's FP64 sum (fp16: CUDA's mean, Σ·(G/numel) rounded; fp32: Σ/g).
QS_HD inline float hqqNewZero(double zs, float zfactor, std::int64_t g, bool fp16)
{
    return fp16 ? qmath::roundF16(static_cast<float>(zs) * zfactor) : static_cast<float>(zs) / static_cast<float>(g);
}

// ---- the exact global sum ---------------------------------------------------------------------

using fixed::add;
using fixed::U128;

/// The unit exponent u of the global Σ|e| over `counted` elements of groups whose |W| ≤ amax:
/// |e| stays below 8·max(amax, qmax) (the reconstruction lies within the code range), so with
/// 2^20 of margin on top the total is below 2^124·2^u.
QS_HD inline int hqqFixedUnit(float amax, float qmax, std::int64_t counted)
{
    const float b = amax > qmax ? amax : qmax; // qmax ≥ 3: b is a positive normal number (or inf)
    const std::uint32_t ub = qmath::bitsOf(b);
    const int e = ub >= 0x7F800000u ? 128 : static_cast<int>(ub >> 23) - 127;
    int bits = 0;
    for (std::uint64_t c = counted > 0 ? static_cast<std::uint64_t>(counted) : 0u; c; c >>= 1)
        ++bits;
    return bits + e + 1 + 3 + 20 - 124;
}

/// Status bits of a fixed-point conversion (ORed over all groups).
inline constexpr unsigned kHqqSumNaN = 1, kHqqSumInf = 2;

/// k = RNE(v·2^-u) of v ≥ 0 (fixedsum.h); NaN → kHqqSumNaN, +inf or beyond 2^127·2^u →
/// kHqqSumInf (k = 0).
QS_HD inline unsigned hqqToFixed(double v, int u, U128 &k)
{
    const std::uint64_t b = dbits(v) & 0x7FFFFFFFFFFFFFFFull; // v ≥ 0 (a sum of |e|; never −0)
    k = U128{};
    if ((b >> 52) == 0x7FF)
        return (b & 0x000FFFFFFFFFFFFFull) ? kHqqSumNaN : kHqqSumInf;
    return fixed::toFixed(dOfBits(b), u, k) ? 0u : kHqqSumInf;
}

/// k·2^u as FP64 with one rounding (nearest even): fixedsum.h (hqqFixedUnit keeps the result a
/// normal number or 0).
QS_HD inline double hqqToDouble(U128 k, int u)
{
    return fixed::toDouble(k, u);
}

/// The iteration's global error err_i from the exact total (status: kHqqSum* bits): the library's
/// rounding, h(Σ·f(1/n)) (fp16) or f(Σ/n) (fp32); NaN/Inf as an FP64 sum would give them.
QS_HD inline float hqqGlobalError(U128 total, int u, unsigned status, std::int64_t counted, bool fp16)
{
    double t;
    if (status & kHqqSumNaN)
        t = dOfBits(0x7FF8000000000000ull);
    else if (status & kHqqSumInf)
        t = dOfBits(0x7FF0000000000000ull);
    else
        t = hqqToDouble(total, u);
    const float n = static_cast<float>(counted);
    if (fp16)
        return qmath::roundF16(static_cast<float>(t) * (1.0f / n));
    return static_cast<float>(t) / n;
}

} // namespace quantscope::hqqmath
