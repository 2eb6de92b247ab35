// SPDX-License-Identifier: MIT
#pragma once
/// \file mxfp4.h
/// MXFP4 (OCP MX v1.0; docs/numerics.md "FP4 E2M1 and micro-scaling"): FP4 E2M1 elements in groups
/// of 32 along K sharing one E8M0 scale 2^X. Op sequence per group (FP32; every step exact except
/// the element cast):
///   amax = max|x|                                  (finite elements)
///   even  (default; Quark, compressed-tensors): amax' = bits(amax) + 2^21, exponent field kept;
///         X = floor(log2 amax') − 2
///   floor (OCP): X = floor(log2 amax) − 2;   ceil: X = ceil(log2 amax) − 2
///   byte = clamp(X + 127, 0, 254)  (amax = 0 → byte 0);  s = 2^(byte − 127)
///   q = e2m1(x / s)   (clamp to ±6, round to nearest even; division by a power of two)
///   x̂ = e2m1value(q) · s
/// A group holding NaN/Inf is reported, gets byte 0 and codes 0 (E2M1 has no NaN).
/// Codes are E2M1 nibbles (bit 3 = sign), one per element; scales are stored as E8M0 bytes.
#include "quant/quantizer.h"

namespace quantscope {

enum class MxMode : std::uint8_t { Even, Floor, Ceil };

struct MxFp4Spec {
    MxMode mode = MxMode::Even;
    std::int64_t group = 32; ///< the MX block; 32 in the OCP spec, selectable for exploration
    bool strict = false;     ///< refuse K not divisible by the group size

    void validate() const;
    nlohmann::json toJson() const;
    static MxFp4Spec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

std::string toString(MxMode m);

class MxFp4Quantizer final : public Quantizer {
public:
    explicit MxFp4Quantizer(MxFp4Spec spec);
    std::string method() const override { return "mxfp4"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    MxFp4Spec m_spec;
};

} // namespace quantscope
