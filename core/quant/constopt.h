// SPDX-License-Identifier: MIT
#pragma once
/// \file constopt.h
/// FP4 constOpt (UltraQuant; docs/numerics.md "FP4 constOpt"): FP4 E2M1 codes with a per-group
/// scale that is a constant c times the group's absmax, optionally after an orthonormal
/// Walsh–Hadamard rotation along K (hadamard.h). Op sequence (FP32):
///   rotation (rotate = d > 0; d a power of two dividing K, else refused): x = WHT_d(W)
///   groups of g (32) along K of x: m = max|x|;  fc = (float)c
///   pow2 (default):  t = fc·m;  E = round(log2 t) (exact; never a tie);  byte = clamp(E + 127, 0,
///   254)
///                    (m = 0 → byte 0);  s = 2^(byte − 127)  — stored as UE8M0
///   unrounded:       s = fc·m  — stored as FP32; s == 0 → codes 0
///   q = e2m1(x / s);  x̂ = e2m1value(q)·s;  Ŵ = WHT_d(x̂) (rotated back: the rotation is its own
///   inverse)
/// Metrics are reported on Ŵ in the original domain; `report` carries the rotation and the
/// rotated tensor's moments (excess kurtosis). Codes and scales are those of the rotated tensor.
/// A group holding NaN/Inf is reported and coded 0 (scale byte 0, or 0 unrounded).
#include "quant/quantizer.h"

namespace quantscope {

enum class ConstOptEncoder : std::uint8_t { Pow2, Unrounded };

struct ConstOptSpec {
    double c = 0.156; ///< the paper's deployed constant
    std::int64_t group = 32;
    ConstOptEncoder encoder = ConstOptEncoder::Pow2;
    std::int64_t rotate = 0; ///< Hadamard block size d; 0 = no rotation
    bool strict = false;

    void validate() const;
    nlohmann::json toJson() const;
    static ConstOptSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

std::string toString(ConstOptEncoder e);
ConstOptEncoder parseConstOptEncoder(const std::string &s); ///< throws UnsupportedError

/// The per-group scale of constOpt (shared by the quantizer and the c sweep).
float constOptScale(float amax, float fc, ConstOptEncoder encoder);

class ConstOptQuantizer final : public Quantizer {
public:
    explicit ConstOptQuantizer(ConstOptSpec spec);
    std::string method() const override { return "constopt"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    ConstOptSpec m_spec;
};

} // namespace quantscope
