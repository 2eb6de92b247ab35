// SPDX-License-Identifier: MIT
#pragma once
/// \file uniform_math.h
/// The scalar part of the uniform INT quantizer (op sequence: uniform.h): its per-group constants
/// and the QS_HD functions that the CPU reference and the GPU kernels share. Kept apart from
/// uniform.h so that kernel sources include no JSON or tensor headers (hipcc's clang 15 cannot
/// compile nlohmann/json in device mode); nothing here but qmath.h.
#include "numeric/qmath.h"

namespace quantscope {

/// The per-group constants of a uniform INT spec, as plain data shared with GPU kernels.
struct IntParams {
    int qmin = -8, qmax = 7;
    bool symmetric = true;
    float divisor = 7.5f; ///< symmetric divisor D
    float range = 15.0f;  ///< qmax − qmin
    int arith = 0;        ///< 0 FP32, 1 BF16, 2 F16
    int scaleDtype = 0;   ///< 0 F32, 1 BF16, 2 F16, 3 E8M0
    bool e8m0Round = false;
    bool halfAway = false;
    bool reciprocal = false; ///< Quark: round(x·(1/s) + z) instead of round(x/s) + z
    float eps = 1.1920929e-7f;
};

/// Scale and zero point of one group from its (finite) min and max.
QS_HD inline void intGroupParams(const IntParams &p, float mn, float mx, float &scale, int &zero)
{
    using namespace qmath;
    float s;
    if (p.symmetric) {
        const float amax = absf(mn) > absf(mx) ? absf(mn) : absf(mx);
        s = roundArith(amax / p.divisor, p.arith);
    } else {
        const float lo = mn < 0.0f ? mn : 0.0f;
        const float hi = mx > 0.0f ? mx : 0.0f;
        s = roundArith(roundArith(hi - lo, p.arith) / p.range, p.arith);
    }
    switch (p.scaleDtype) {
    case 1:
        s = roundBf16(s);
        break;
    case 2:
        s = roundF16(s < 65504.0f ? s : 65504.0f);
        break;
    case 3:
        s = s > 0.0f && isFinite(s) ? powerOfTwoScale(s, p.e8m0Round) : s;
        break;
    default:
        break;
    }
    if (!(s > 0.0f) || !isFinite(s))
        s = p.eps;
    int z = 0;
    if (!p.symmetric) {
        const float lo = mn < 0.0f ? mn : 0.0f;
        const float r = roundInt(roundArith(lo / s, p.arith), p.halfAway);
        float zf = static_cast<float>(p.qmin) - r;
        zf = zf < p.qmin ? static_cast<float>(p.qmin) : (zf > p.qmax ? static_cast<float>(p.qmax) : zf);
        z = static_cast<int>(zf);
    }
    scale = s;
    zero = z;
}

/// Code of one element.
QS_HD inline int intCode(const IntParams &p, float x, float s, int z)
{
    using namespace qmath;
    float v;
    if (p.reciprocal) // FP32 reciprocal, FP32 product, zero point before the rounding (Quark)
        v = roundInt(
            roundArith(roundArith(x * roundArith(1.0f / s, p.arith), p.arith) + static_cast<float>(z), p.arith),
            p.halfAway);
    else
        v = roundInt(roundArith(x / s, p.arith), p.halfAway) + static_cast<float>(z);
    // A NaN quotient — 0·∞ when Quark's reciprocal 1/s overflows BF16/F16 arithmetic (a tiny or
    // eps scale) — codes 0, as PyTorch's CUDA cast of NaN to int8 does (the conversion of NaN to
    // int is undefined in C++: x86 gives INT_MIN, GPUs 0).
    v = v == v ? v : 0.0f;
    v = v < p.qmin ? static_cast<float>(p.qmin) : (v > p.qmax ? static_cast<float>(p.qmax) : v);
    return static_cast<int>(v);
}

/// Dequantized value of one code.
QS_HD inline float intDequant(const IntParams &p, int q, float s, int z)
{
    return qmath::roundArith(s * static_cast<float>(q - z), p.arith);
}

} // namespace quantscope
