// SPDX-License-Identifier: MIT
#pragma once
/// \file fp8.h
/// FP8 quantizer, E4M3 (e4m3fn) or E5M2, per tensor / per output row / per b×b block
/// (docs/numerics.md "FP8"). Op sequence, every step in the arithmetic precision `a`:
///   s = a(amax / M), M = 448 (E4M3) or 57344 (E5M2); s == 0 → eps (toolkit: FP32 eps)
///   q = fp8(clamp(a(x / s), ±M))     (the quantization cast: clamp, then RNE; never NaN)
///   x̂ = a(decode(q) · s)
/// Block scales are stored as DeepSeek's `weight_scale_inv` (the multiplier at dequant).
#include "numeric/qmath.h"
#include "quant/quantizer.h"

namespace quantscope {

class Fp8Quantizer final : public Quantizer {
public:
    explicit Fp8Quantizer(Fp8Spec spec);
    std::string method() const override { return "fp8"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    Fp8Spec m_spec;
};

} // namespace quantscope
