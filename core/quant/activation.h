// SPDX-License-Identifier: MIT
#pragma once
/// \file activation.h
/// Activation quantizers (docs/numerics.md "Activations and the paired GEMM simulation"). An
/// activation X is [M, K] (M tokens); a 3-D [B, S, K] one is flattened to [B·S, K] (any rank:
/// matrixView). Op sequences (FP32, division by the scale):
///   int8-token (dynamic, AITER's per-token rule): s[m] = absmax(X[m])/127 (0 → FP32 eps);
///              q = clamp(round_half_even(x/s), −128, 127)  — the `int` quantizer, channel axis 0,
///              scale_rule `max`, bits 8
///   fp8-token  (dynamic): s[m] = absmax(X[m])/448;  q = e4m3(clamp(x/s, ±448))  — `fp8` per
///   channel fp8-tensor (dynamic): s = absmax(X)/448;  q = e4m3(clamp(x/s, ±448))     — `fp8` per
///   tensor static:S   s = S as given (the calibrated scale), or, without S, absmax(X)/448 of the
///   loaded
///              tensor (labelled which); q = e4m3(clamp(x/s, ±448)); NaN/Inf elements coded 0
///   x̂ = decode(q)·s
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quant/quant_spec.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

enum class ActQuantKind : std::uint8_t { Int8Token, Fp8Token, Fp8Tensor, Static };

struct ActQuantSpec {
    ActQuantKind kind = ActQuantKind::Fp8Tensor;
    std::optional<float> staticScale; ///< Static only; unset: the loaded tensor's absmax/448

    /// "int8-token", "fp8-token", "fp8-tensor", "static" or "static:S"; throws UnsupportedError.
    static ActQuantSpec parse(const std::string &s);
    /// The spelling parse() accepts ("static:0.0125" keeps the scale).
    std::string name() const;
    bool int8() const { return kind == ActQuantKind::Int8Token; }
    bool perToken() const { return kind == ActQuantKind::Int8Token || kind == ActQuantKind::Fp8Token; }
};

struct QuantizedActivations {
    std::int64_t rows = 0, cols = 0;
    bool int8 = false; ///< INT8 codes (as int8 bit patterns), else E4M3 codes
    bool perToken = false;
    std::vector<std::uint8_t> codes; ///< [rows, cols]
    std::vector<float> scales;       ///< [rows] per token, or [1]
    std::string scaleSource;         ///< "dynamic", "user" or "absmax of the loaded tensor"
    std::int64_t nonFinite = 0;      ///< elements (static) or tokens (dynamic) holding NaN/Inf
    std::vector<float> dequantized;  ///< X̂ [rows, cols]

    float scaleOf(std::int64_t m) const { return perToken ? scales[static_cast<std::size_t>(m)] : scales[0]; }
    /// The value the code stands for before scaling (INT8 integer or E4M3 value).
    float codeValue(std::int64_t i) const;
};

/// The quantizer a dynamic kind runs (int8-token: INT8 per row, symmetric, scale rule max;
/// fp8-token / fp8-tensor: E4M3 per row or per tensor), as a spec the CPU's quantizers and the
/// GPU's pipeline both take, so their codes agree (a static kind: E4M3 per tensor, whose scale
/// the caller gives instead of this spec's rule).
QuantSpec dynamicActivationSpec(const ActQuantSpec &spec);

/// Quantizes X (any decodable dtype; viewed as [M, K]). Throws UnsupportedError.
QuantizedActivations quantizeActivations(const Tensor &x, const ActQuantSpec &spec, int threads = 0,
                                         const CancelToken *cancel = nullptr);

} // namespace quantscope
