// SPDX-License-Identifier: MIT
#pragma once
/// \file uniform.h
/// Uniform integer quantizer, INT2–8 (docs/numerics.md "Uniform integer"). Op sequence per group,
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
#include "quant/quantizer.h"
#include "quant/uniform_math.h"

namespace quantscope {

IntParams intParams(const IntSpec &spec, DType source);
/// 0 FP32, 1 BF16, 2 F16: the arithmetic precision `arith` means for a source dtype.
int arithCode(Arith arith, DType source);

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
