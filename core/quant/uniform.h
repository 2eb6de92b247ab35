// SPDX-License-Identifier: MIT
#pragma once
/// \file uniform.h
/// Uniform integer quantizer, INT2–8 (quantizers.md "Uniform integer"). Op sequence per group,
/// every step rounded to the arithmetic precision `a` (FP32, or the source dtype for
/// `arith source`), never fused:
///   symmetric:  amax = max|x|;  s = a(amax / D), D = (qmax − qmin)/2 (toolkit) or qmax (max)
///   asymmetric: lo = min(min, 0), hi = max(max, 0);  s = a(a(hi − lo) / (qmax − qmin))
///   scale dtype: s = bf16(s) | f16(min(s, 65504)) | 2^ceil/round(log2 s) (E8M0) | s (FP32)
///   zero/degenerate group (s == 0): s = eps (toolkit: finfo(scale dtype).eps; plain: FLT_MIN)
///   asymmetric zero point: z = clamp(qmin − round(a(lo / s)), qmin, qmax)
///   q = clamp(round(a(x / s)) + z, qmin, qmax)      (division, never multiplication by 1/s)
///   x̂ = a(s · (q − z))
/// A group holding NaN/Inf is reported; its scale is eps, z = 0, codes 0 (x̂ = 0).
#include "quant/qmath.h"
#include "quant/quantizer.h"

namespace quantscope {

/// The per-group constants of a uniform INT spec, as plain data shared with GPU kernels.
struct IntParams {
    int qmin = -8, qmax = 7;
    bool symmetric = true;
    float divisor = 7.5f;   ///< symmetric divisor D
    float range = 15.0f;    ///< qmax − qmin
    int arith = 0;          ///< 0 FP32, 1 BF16, 2 F16
    int scaleDtype = 0;     ///< 0 F32, 1 BF16, 2 F16, 3 E8M0
    bool e8m0Round = false;
    bool halfAway = false;
    float eps = 1.1920929e-7f;
};

IntParams intParams(const IntSpec &spec, DType source);
/// 0 FP32, 1 BF16, 2 F16: the arithmetic precision `arith` means for a source dtype.
int arithCode(Arith arith, DType source);

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
    case 1: s = roundBf16(s); break;
    case 2: s = roundF16(s < 65504.0f ? s : 65504.0f); break;
    case 3: s = s > 0.0f && isFinite(s) ? powerOfTwoScale(s, p.e8m0Round) : s; break;
    default: break;
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
    float v = roundInt(roundArith(x / s, p.arith), p.halfAway) + static_cast<float>(z);
    v = v < p.qmin ? static_cast<float>(p.qmin) : (v > p.qmax ? static_cast<float>(p.qmax) : v);
    return static_cast<int>(v);
}

/// Dequantized value of one code.
QS_HD inline float intDequant(const IntParams &p, int q, float s, int z)
{
    return qmath::roundArith(s * static_cast<float>(q - z), p.arith);
}

class IntQuantizer final : public Quantizer {
public:
    explicit IntQuantizer(IntSpec spec);
    std::string method() const override { return "int"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    const IntSpec &intSpec() const { return m_spec; }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    IntSpec m_spec;
};

} // namespace quantscope
