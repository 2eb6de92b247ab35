// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_math.h
/// The KV schemes' per-element, per-row and per-group arithmetic (kv_schemes.h's op sequences),
/// written once as QS_HD functions: the CPU reference (kv_schemes.cpp) and the GPU kernels
/// (gpu/kernels/kv_lab.cu) call these very functions, so the two compute the same bits. No
/// CUDA/HIP header: a kernel source defines QS_HD as `__host__ __device__` before including. FP32
/// operations that decide a value go through fdiv/fmul/fadd/fsub (one correctly rounded operation
/// each: __f*_rn on the device; the host build uses -ffp-contract=off); FP64 ones through
/// qmath::dadd/dmul. min/max keep std::min/std::max's operand choice (the sign of a zero minimum
/// becomes INT4's zero point).
#include <cstdint>

#include "numeric/fp4math.h"
#include "numeric/hadamard.h"
#include "numeric/qmath.h"

namespace quantscope::kvmath {

inline constexpr int kGroup = 32;   ///< constOpt, MXFP4, INT4
inline constexpr int kNvGroup = 16; ///< NVFP4

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline float fdiv(float a, float b)
{
    return __fdiv_rn(a, b);
}
QS_HD inline float fmul(float a, float b)
{
    return __fmul_rn(a, b);
}
QS_HD inline float fadd(float a, float b)
{
    return __fadd_rn(a, b);
}
QS_HD inline float fsub(float a, float b)
{
    return __fsub_rn(a, b);
}
QS_HD inline double dsqrt(double a)
{
    return __dsqrt_rn(a);
}
#else
inline float fdiv(float a, float b)
{
    return a / b;
}
inline float fmul(float a, float b)
{
    return a * b;
}
inline float fadd(float a, float b)
{
    return a + b;
}
inline float fsub(float a, float b)
{
    return a - b;
}
inline double dsqrt(double a)
{
    return __builtin_sqrt(a);
}
#endif

/// std::min / std::max's choice: (b < a) ? b : a and (a < b) ? b : a.
QS_HD inline float minf(float a, float b)
{
    return b < a ? b : a;
}
QS_HD inline float maxf(float a, float b)
{
    return a < b ? b : a;
}

/// max |x| of n values (0 for n = 0).
QS_HD inline float absmax(const float *x, std::int64_t n, std::int64_t stride = 1)
{
    float m = 0;
    for (std::int64_t i = 0; i < n; ++i)
        m = maxf(m, qmath::absf(x[i * stride]));
    return m;
}

/// The quantization cast to E4M3 (e4m3fn): clamp |x| to 448, RNE; NaN → 0x7F | sign
/// (tensor/convert.h's floatToE4m3, tested equal).
QS_HD inline std::uint8_t e4m3Code(float x)
{
    const std::uint32_t u = qmath::bitsOf(x);
    const std::uint32_t sign = (u >> 24) & 0x80u;
    std::uint32_t a = u & 0x7FFFFFFFu;
    const bool nan = a > 0x7F800000u;
    a = a < 0x43E00000u ? a : 0x43E00000u;
    const std::int32_t field = static_cast<std::int32_t>(a >> 23);
    const std::int32_t eEff = field > 1 ? field : 1;
    const std::uint32_t sig = (a & 0x007FFFFFu) | (static_cast<std::uint32_t>(field != 0) << 23);
    const std::int32_t d = eEff - 121; // bias 7: 128 − 7
    std::int32_t shift = 20 + (d < 0 ? -d : 0);
    shift = shift < 31 ? shift : 31;
    const std::uint32_t half = (1u << (shift - 1)) - 1u;
    const std::uint32_t rounded = (sig + half + ((sig >> shift) & 1u)) >> shift;
    const std::uint32_t code = (static_cast<std::uint32_t>(d > 0 ? d : 0) << 3) + rounded;
    return static_cast<std::uint8_t>(sign | (nan ? 0x7Fu : code));
}

/// Value of an E4M3 byte (exact; 0x7F/0xFF → NaN).
QS_HD inline float e4m3Value(std::uint8_t b)
{
    const std::uint32_t sign = (static_cast<std::uint32_t>(b) & 0x80u) << 24;
    const std::uint32_t e = (b >> 3) & 0xFu, m = b & 7u;
    if (e == 15u && m == 7u)
        return qmath::fromBits(sign | 0x7FC00000u);
    if (e == 0u) // m · 2^-9, exact
        return qmath::fromBits(sign | qmath::bitsOf(static_cast<float>(m) * 0.001953125f));
    return qmath::fromBits(sign | ((e + 120u) << 23) | (m << 20));
}

/// FP8: x̂ = e4m3(x/s)·s (the cast clamps to ±448); s ≤ 0 → 0.
QS_HD inline float fp8Value(float x, float s)
{
    if (!(s > 0.0f))
        return 0.0f;
    return fmul(e4m3Value(e4m3Code(fdiv(x, s))), s);
}

/// The FP8 rule's divisor: 200 for K and 100 for V under `vllm`, else 448.
QS_HD inline float fp8Divisor(bool vllm, bool isK)
{
    return vllm ? (isK ? 200.0f : 100.0f) : 448.0f;
}

/// A row scaled to unit length: n = ‖x‖₂ in FP64 (sequential sum), u = x/(float)n; n = 0 → 0
/// (the lab's unit vectors: the codebook refits and the distortion curves on the user's keys).
QS_HD inline void unitRow(const float *x, float *out, std::int64_t d)
{
    double n2 = 0;
    for (std::int64_t j = 0; j < d; ++j)
        n2 = qmath::dadd(n2, qmath::dmul(static_cast<double>(x[j]), static_cast<double>(x[j])));
    const float n = static_cast<float>(dsqrt(n2));
    for (std::int64_t j = 0; j < d; ++j)
        out[j] = n > 0 ? fdiv(x[j], n) : 0.0f;
}

/// The codebook's level index of y: the number of the 15 boundaries ≤ y (y ≥ boundary goes up).
QS_HD inline int codebookIndex(float y, const float *bound)
{
    int idx = 0;
    for (int i = 0; i < 15; ++i)
        idx += y >= bound[i] ? 1 : 0;
    return idx;
}

/// The codebook scheme on one token row of d (kv_schemes.h): n = ‖x‖₂ in FP64 (sequential sum),
/// u = x/(float)n, y = WHT_b(u) (rotate), ŷ = the level, û = WHT_b(ŷ), x̂ = f16(n)·û; n = 0 → 0.
/// `tmp` holds d floats.
QS_HD inline void codebookRow(const float *x, float *out, std::int64_t d, std::int64_t b, float r, bool rotate,
                              const float *lv, const float *bound, float *tmp)
{
    double n2 = 0;
    for (std::int64_t j = 0; j < d; ++j)
        n2 = qmath::dadd(n2, qmath::dmul(static_cast<double>(x[j]), static_cast<double>(x[j])));
    const double nd = dsqrt(n2);
    const float nf = static_cast<float>(nd);
    const float n = qmath::roundF16(nf);
    if (!(nf > 0.0f)) {
        for (std::int64_t j = 0; j < d; ++j)
            out[j] = 0.0f;
        return;
    }
    for (std::int64_t j = 0; j < d; ++j)
        tmp[j] = fdiv(x[j], nf);
    if (rotate)
        for (std::int64_t o = 0; o < d; o += b)
            hadamardBlock(tmp + o, b, r);
    for (std::int64_t j = 0; j < d; ++j)
        tmp[j] = lv[codebookIndex(tmp[j], bound)];
    if (rotate)
        for (std::int64_t o = 0; o < d; o += b)
            hadamardBlock(tmp + o, b, r);
    for (std::int64_t j = 0; j < d; ++j)
        out[j] = fmul(n, tmp[j]);
}

/// constOpt on one row y (rotated already), groups of 32: s = constOptScale(max|y|, fc), x̂ =
/// e2m1value(e2m1(y/s))·s; s ≤ 0 → 0. The caller rotates y and x̂.
QS_HD inline void constOptRow(const float *y, float *out, std::int64_t d, float fc, bool unrounded)
{
    for (std::int64_t g = 0; g < d; g += kGroup) {
        const std::int64_t len = d - g < kGroup ? d - g : kGroup;
        const float s = fp4::constOptScale(absmax(y + g, len), fc, unrounded);
        for (std::int64_t j = g; j < g + len; ++j)
            out[j] = s > 0.0f ? fp4::fp4Dequant(fp4::constOptCode(y[j], s), s) : 0.0f;
    }
}

/// constOpt with the rotation around it: y = WHT_b(x), constOptRow, x̂ = WHT_b(ŷ). `tmp` holds d.
QS_HD inline void constOptRotatedRow(const float *x, float *out, std::int64_t d, std::int64_t b, float r, float fc,
                                     bool unrounded, float *tmp)
{
    for (std::int64_t j = 0; j < d; ++j)
        tmp[j] = x[j];
    for (std::int64_t o = 0; o < d; o += b)
        hadamardBlock(tmp + o, b, r);
    constOptRow(tmp, out, d, fc, unrounded);
    for (std::int64_t o = 0; o < d; o += b)
        hadamardBlock(out + o, b, r);
}

/// MXFP4 (OCP MX, `even` scale) on one row, groups of 32.
QS_HD inline void mxfp4Row(const float *x, float *out, std::int64_t d)
{
    for (std::int64_t g = 0; g < d; g += kGroup) {
        const std::int64_t len = d - g < kGroup ? d - g : kGroup;
        float mn = x[g], mx = x[g];
        for (std::int64_t j = g; j < g + len; ++j) {
            mn = minf(mn, x[j]);
            mx = maxf(mx, x[j]);
        }
        const float s = fp4::mxGroupScale(mn, mx, fp4::MxEven);
        for (std::int64_t j = g; j < g + len; ++j)
            out[j] = fp4::mxDequant(fp4::mxCode(x[j], s), s);
    }
}

/// NVFP4 on one row, groups of 16: b = e4m3((amax_b/6)·global) (0 → 0.125), eff = b/global,
/// x̂ = e2m1value(e2m1(x/eff))·eff.
QS_HD inline void nvfp4Row(const float *x, float *out, std::int64_t d, float global)
{
    for (std::int64_t g = 0; g < d; g += kNvGroup) {
        const std::int64_t len = d - g < kNvGroup ? d - g : kNvGroup;
        float b = e4m3Value(e4m3Code(fp4::nvBlockTarget(absmax(x + g, len), global)));
        if (b == 0.0f)
            b = 0.125f;
        const float eff = fp4::nvEffective(b, global);
        for (std::int64_t j = g; j < g + len; ++j)
            out[j] = fmul(fp4::e2m1Value(fp4::nvCode(x[j], eff)), eff);
    }
}

/// KIVI's asymmetric INT4 on `len` values at `stride`: s = f16((mx − mn)/15), z = f16(mn);
/// s = 0 → x̂ = z; q = clamp(rne((x − z)/s), 0, 15), x̂ = q·s + z.
QS_HD inline void int4Group(const float *x, float *out, std::int64_t len, std::int64_t stride)
{
    float mn = x[0], mx = x[0];
    for (std::int64_t i = 0; i < len; ++i) {
        mn = minf(mn, x[i * stride]);
        mx = maxf(mx, x[i * stride]);
    }
    const float s = qmath::roundF16(fdiv(fsub(mx, mn), 15.0f));
    const float z = qmath::roundF16(mn);
    for (std::int64_t i = 0; i < len; ++i) {
        if (!(s > 0.0f)) {
            out[i * stride] = z;
            continue;
        }
        float q = qmath::roundInt(fdiv(fsub(x[i * stride], z), s), false);
        q = q < 0.0f ? 0.0f : (15.0f < q ? 15.0f : q);
        out[i * stride] = fadd(fmul(q, s), z);
    }
}

} // namespace quantscope::kvmath
