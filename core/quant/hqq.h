// SPDX-License-Identifier: MIT
#pragma once
/// \file hqq.h
/// HQQ (half-quadratic quantization, mobiusml/hqq; docs/numerics.md "HQQ", docs/toolkits.md §4):
/// asymmetric INT2–8 with unsigned codes [0, 2^b − 1], an inverse scale σ per group and a float
/// zero point z fit by a proximal solver. Two presets reproduce the released code:
///
/// |                     | hqq-lib (hqq_base_quant_config) | milo-code (MiLo's quantizer)   |
/// | default bits / axis | 4 / 1                           | 3 / 0                          |
/// | group size          | multiple of 8                   | any                            |
/// | zero rounded        | at init, 4-bit only             | never                          |
/// | range ≤ 1e-4 → σ=1  | yes                             | no                             |
/// Both need numel % g == 0 (else refused, naming the tensor).
///
/// Grouping: the row-major flattened tensor; axis 1 → [numel/g, g] (g consecutive elements),
/// axis 0 → [g, numel/g] reduced over dim 0: group j = elements {t·(numel/g) + j}, which for
/// W[N, K] with g ∤ N wraps across columns.
///
/// Op sequence (f = FP32 operation; with `compute fp16`, h = the same operation done in FP32
/// and rounded to FP16, as torch does per op on CUDA; with `compute fp32`, h = f):
///   init (FP32, from W decoded to FP32):  d = f(max − min);  σ = f(qmax / d);
///        hqq-lib: σ = 1 where |d| ≤ 1e-4f;  σ = min(σ, 2e4);  z = f(−min · σ);
///        z = round_half_even(z) when the preset rounds it
///   cast (fp16): W_f = h(W), σ = h(σ), z = h(z)
///   up to 20 iterations i = 1, 2, …:
///        W_q = clamp(round(h(h(W_f·σ) + z)), 0, qmax)
///        W_r = h(h(W_q − z) / σ);  e = h(W_f − W_r)
///        a = |e|;  W_e = sign(e)·max(h(a − h(0.1f · h(pow(a, p − 1)))), 0)
///              p − 1 = −0.3 as FP32 (fp32) or as FP16 = −0.300048828125 (fp16: torch converts
///              the scalar exponent to the tensor dtype); pow(0, ·) = inf gives W_e = 0;
///              pow is hqqmath::hqqPow (FP64 exp/log series, one rounding: the same bits on
///              every device)
///        z = h(Σ_group h(W_q − h(h(W_f − W_e)·σ)) · c)      c = f(G / numel) (fp16: CUDA's mean)
///              or Σ / g (fp32: torch CPU's sum then divide); sums accumulate in FP64 in a fixed
///              lane order (hqq_math.h), rounded to FP32 once (torch sums in FP32)
///        err_i = h(Σ_all |e| · f(1/numel)) (fp32: f(Σ / numel)); Σ_all adds the groups' FP64
///              sums exactly (fixed point, hqq_math.h), so it does not depend on the order
///              (threads, GPU blocks)
///        stop after iteration i when err_i ≥ the best so far (z of iteration i is kept)
///   final codes (FP32, as the library: W · σ with W FP32 and σ, z of the optimiser's dtype):
///        W_q = clamp(round(f(f(W · σ) + z)), 0, qmax)
///   stored: scale s = h(1 / σ), zero z (FP16 with compute fp16, FP32 with compute fp32)
///   dequantize: Ŵ = h(h(W_q − z) · s)
/// Groups holding NaN/Inf are reported, excluded from the fit and the error means, coded 0
/// with s = 1, z = 0 (Ŵ = 0).
#include <cstdint>
#include <span>
#include <vector>

#include "quant/quantizer.h"

namespace quantscope {

enum class HqqPreset : std::uint8_t { HqqLib, MiloCode };
enum class HqqCompute : std::uint8_t { Fp32, Fp16 };
/// Zero-point rounding at initialisation: as the preset says, always, or never.
enum class HqqZeroRounding : std::uint8_t { Preset, Always, Never };

struct HqqSpec {
    HqqPreset preset = HqqPreset::HqqLib;
    int bits = 4; ///< 2..8
    std::int64_t group = 64;
    int axis = 1; ///< 0 or 1 (HQQ's grouping axis)
    HqqCompute compute = HqqCompute::Fp32;
    HqqZeroRounding zeroRounding = HqqZeroRounding::Preset;
    int iters = 20; ///< maximum optimiser iterations (the library: 20)

    /// The preset's defaults (bits, group, axis) on a fresh spec.
    static HqqSpec forPreset(HqqPreset preset);
    /// Whether z is rounded at initialisation (preset rule or override).
    bool roundsZero() const;
    /// Throws UnsupportedError naming the field and the rule (e.g. hqq-lib's multiple of 8).
    void validate() const;
    nlohmann::json toJson() const;
    /// Keys absent take the defaults of the spec's "preset" (bits, axis), then the keys given.
    static HqqSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

std::string toString(HqqPreset v);
std::string toString(HqqCompute v);
std::string toString(HqqZeroRounding v);

/// What one HQQ run over a flat FP32 tensor produces (group order j = 0 … numel/g − 1).
struct HqqResult {
    std::vector<std::uint8_t> codes; ///< one per element, flat row-major, 0..2^b − 1
    std::vector<float> scales;       ///< stored scale s = 1/σ per group
    std::vector<float> zeros;        ///< zero point per group (code units)
    std::vector<float> dequantized;  ///< Ŵ, flat row-major (when asked)
    std::vector<IterationRecord> history;
    std::int64_t nonFiniteGroups = 0;
    std::int64_t firstNonFinite = -1;
};

/// Runs HQQ on `w` (numel elements, flat row-major). Throws UnsupportedError when
/// numel % g != 0 (naming `tensorName`), Cancelled. The result does not depend on `threads`.
HqqResult hqqQuantizeFlat(std::span<const float> w, const HqqSpec &spec, bool wantDequantized, int threads,
                          const std::string &tensorName, const CancelToken *cancel);

/// hqqQuantizeFlat on the tensor's values (any dtype, strided or not), read block by block
/// straight from the tensor: no FP32 copy of W is made (docs/perf.md "Peak memory of HQQ and
/// MiLo"). The result equals hqqQuantizeFlat(W decoded to FP32) bit for bit. Errors as there, and
/// IoError when a mapped file is truncated while it is read.
HqqResult hqqQuantizeTensor(const Tensor &w, const HqqSpec &spec, bool wantDequantized, int threads,
                            const std::string &tensorName, const CancelToken *cancel);

/// p − 1 of the shrink operator as the optimiser dtype holds it: −0.3 as FP32, or as FP16
/// (−0.300048828125: torch converts the scalar exponent to the tensor dtype).
float hqqPowExponent(bool fp16);
/// h(hqqmath::hqqPow(a, hqqPowExponent(true))) for every non-negative FP16 value a (index = its
/// bits, 0x7C00 = +inf): the CPU's lookup for compute fp16.
const std::vector<float> &hqqFp16PowTable();

/// Ŵ of stored codes (the dequantize step of the op sequence).
void hqqDequantizeFlat(const HqqSpec &spec, std::span<const std::uint8_t> codes, std::span<const float> scales,
                       std::span<const float> zeros, std::span<float> out);

class HqqQuantizer final : public Quantizer {
public:
    explicit HqqQuantizer(HqqSpec spec);
    std::string method() const override { return "hqq"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    HqqSpec m_spec;
};

/// The GroupLayout recorded for HQQ grouping: [N, K/g] when axis 1 and g | K (then groupOf is
/// exact), else the library's meta shape [numel/g, 1] (axis 1) or [1, numel/g] (axis 0), whose
/// groupOf does not describe the strided groups.
GroupLayout hqqLayout(const Shape &shape, std::int64_t group, int axis);

} // namespace quantscope
