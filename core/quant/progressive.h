// SPDX-License-Identifier: MIT
#pragma once
/// \file progressive.h
/// Two-stage quantization, Quark's ProgressiveSpec (docs/numerics.md "ProgressiveSpec";
/// docs/toolkits.md §3.1–3.5). Default: stage 1 FP8 E4M3 per tensor, stage 2 INT4 symmetric per
/// channel. Op sequence (each stage is the one-shot quantizer of its spec, with that spec's own op
/// sequence and arithmetic precision — uniform.h, fp8.h):
///   stage 1 on W:  s1 = amax/448,  f = fp8(clamp(W/s1, ±448))          (codes q1, scales s1, z1)
///   domain values: v = decode(q1) — the FP8 value f, or the INT code q1 itself (zero point
///                  included, as Quark's real_quantize returns it); exact in FP32, and in the
///                  source dtype (BF16/F16), which stage 2 then sees as its source
///   stage 2 on v (not on s1·f):  s2[n] from row n of v, q = clamp(round(v/s2) + z2)
///   x̂1 = stage 2's dequantization of q (e.g. a(s2·(q − z2)))
///   Ŵ = a1(x̂1 · s1) for an FP8 stage 1, a1(s1 · a1(x̂1 − z1)) for an INT stage 1
///       (a1 = stage 1's arithmetic precision; FP32 by default)
/// Stored as Quark does: `weight` = q (inner codes, `layout`), `weight_scale_2` = s2 (`scales`),
/// `weight_zero_point_2` = z2 (`zeros`, asymmetric stage 2), `weight_scale` = s1 (`outerScales`,
/// `outerLayout`), `weight_zero_point` = z1 (`outerZeros`). NaN/Inf groups are those of stage 1.
#include <variant>

#include "quant/quantizer.h"
#include "quant/spec.h"

namespace quantscope {

/// One stage of a ProgressiveSpec, typed: parsed and validated once by ProgressiveSpec::fromJson,
/// so the CPU quantizer and the GPU plan never re-parse its JSON.
using ProgressiveStage = std::variant<IntSpec, Fp8Spec>;

/// A stage's full spec JSON (its spec struct's toJson, "method" included).
nlohmann::json stageToJson(const ProgressiveStage &stage);

struct ProgressiveSpec {
    /// The two stages, defaults filled in; each an INT or an FP8 spec.
    ProgressiveStage stage1, stage2;

    ProgressiveSpec();
    void validate() const;
    nlohmann::json toJson() const;
    /// A nested stage without "method", or naming the default stage's method, starts from the
    /// default stage (so {"stage2": {"symmetric": false}} is INT4 asymmetric per channel); a
    /// nested stage naming the other method starts from that method's defaults.
    static ProgressiveSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
    static ProgressiveStage defaultStage1();
    static ProgressiveStage defaultStage2();
};

class ProgressiveQuantizer final : public Quantizer {
public:
    explicit ProgressiveQuantizer(ProgressiveSpec spec);
    ~ProgressiveQuantizer() override;
    std::string method() const override { return "progressive"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    ProgressiveSpec m_spec;
    std::unique_ptr<Quantizer> m_stage1, m_stage2;
};

} // namespace quantscope
