// SPDX-License-Identifier: MIT
#pragma once
/// \file nvfp4.h
/// NVFP4, compressed-tensors convention (docs/numerics.md "FP4 E2M1 and micro-scaling";
/// docs/toolkits.md §2.6, §6.4): FP4 E2M1 elements, groups of 16 along K with an FP8 E4M3 block
/// scale, plus one FP32 global scale. Op sequence (FP32, no fused operations):
///   amax_t = max|W| (finite);  global = 2688 / amax_t  (448·6; a non-finite result → 1.0)
///   per block: t = (amax_b / 6) · global;  b = e4m3(clamp(t, ±448))  (RNE)
///              b == 0 (underflow) → b = 0.125 (finfo(e4m3fn).eps, compressed-tensors' rule)
///   eff = b / global;  q = e2m1(x / eff);  x̂ = e2m1value(q) · eff
/// The toolkit multiplies by the global scale in the block-scale step (numerical contract:
/// "except where the toolkit multiplies"). A block holding NaN/Inf is reported: b = 0.125, codes 0.
/// Stored: codes (E2M1 nibbles), `scales` = the block scales b (E4M3), `outerScales[0]` =
/// `weight_global_scale` (the multiplier form 2688/amax; dequantization divides by it).
#include "quant/quantizer.h"

namespace quantscope {

struct NvFp4Spec {
    std::int64_t group = 16; ///< 16 in NVFP4, selectable for exploration
    bool strict = false;

    void validate() const;
    nlohmann::json toJson() const;
    static NvFp4Spec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

class NvFp4Quantizer final : public Quantizer {
public:
    explicit NvFp4Quantizer(NvFp4Spec spec);
    std::string method() const override { return "nvfp4"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

    /// The global scale rule: 2688 / amax in FP32, 1.0 when that is not finite (amax = 0).
    static float globalScale(float amax);

private:
    NvFp4Spec m_spec;
};

} // namespace quantscope
