// SPDX-License-Identifier: MIT
#pragma once
/// \file milo_math.h
/// MiLo's scalar rules (quant/milo.h), shared by the CPU quantizer and the device loop
/// (gpu/kernels/milo.cu): the paper's stop rule and the compensator element codes. Header-only;
/// GPU sources define QS_HD as `__host__ __device__` before including.
#include <cstdint>

#include "numeric/qmath.h"

namespace quantscope::milomath {

/// The paper's stop rule on ε_1 … ε_t (eps[0 .. t−1]): true when pass t should be the last —
/// from pass 4 on, when ε_t > ε_{t−1} or mean(ε_{t−2..t}) improves on mean(ε_{t−3..t−1}) by less
/// than 1e-4 relative.
QS_HD inline bool paperShouldStop(const double *eps, int t)
{
    if (t < 4)
        return false;
    if (eps[t - 1] > eps[t - 2])
        return true;
    const double now = (eps[t - 3] + eps[t - 2] + eps[t - 1]) / 3.0;
    const double before = (eps[t - 4] + eps[t - 3] + eps[t - 2]) / 3.0;
    return before - now < 1e-4 * before;
}

/// The compensator formats' group-scale rule and element code (quant/milo.h):
///   int8:  s = f(max|x| / 127.5), q = clamp(rne(f(x / s)), −128, 127), x̂ = f(s·q)
///   int3:  s = max|x| (milo-code-int3: the signed max), q = clamp(rne(f(f(7x) / f(2s))) + 4, 0, 7),
///          x̂ = f(f(f(2(q − 4))·s) / 7) (milo-code-int3: FP16-rounded)
/// A group whose s is 0 or not finite ("dead") codes 0 (int8) / 4 (int3), x̂ = 0.
enum CompKind : int { kCompInt8 = 0, kCompInt3 = 1, kCompMiloCodeInt3 = 2 };

/// The group scale from the group's reduction: `absMax` = max|x|, `signedMax` = max x.
QS_HD inline float compensatorScale(int kind, float absMax, float signedMax)
{
    if (kind == kCompInt8)
        return absMax / 127.5f;
    return kind == kCompMiloCodeInt3 ? signedMax : absMax;
}

QS_HD inline bool compensatorDead(float s)
{
    return s == 0.0f || !qmath::isFinite(s);
}

/// Code and value of one element x under group scale s.
QS_HD inline void compensatorElement(int kind, float x, float s, std::int8_t &code, float &value)
{
    const bool dead = compensatorDead(s);
    if (kind == kCompInt8) {
        float q = dead ? 0.0f : qmath::roundInt(x / s, false);
        q = q < -128.0f ? -128.0f : (q > 127.0f ? 127.0f : q);
        code = static_cast<std::int8_t>(q);
        value = s * q;
        return;
    }
    float q = dead ? 4.0f : qmath::roundInt((x * 7.0f) / (2.0f * s), false) + 4.0f;
    q = q < 0.0f ? 0.0f : (q > 7.0f ? 7.0f : q);
    code = static_cast<std::int8_t>(q);
    const float v = dead ? 0.0f : ((q - 4.0f) * 2.0f * s) / 7.0f;
    value = kind == kCompMiloCodeInt3 ? qmath::roundF16(v) : v;
}

/// The value x̂ of a stored code under group scale s, as compensatorElement computes it (a reader
/// of a saved factor). The one difference: an INT8 code 0 from a negative x is −0 there, +0 here
/// (the same Ŵ: U·V is summed from +0).
QS_HD inline float compensatorValue(int kind, std::int8_t code, float s)
{
    const float q = static_cast<float>(code);
    if (kind == kCompInt8)
        return s * q;
    const float v = compensatorDead(s) ? 0.0f : ((q - 4.0f) * 2.0f * s) / 7.0f;
    return kind == kCompMiloCodeInt3 ? qmath::roundF16(v) : v;
}

} // namespace quantscope::milomath
