// SPDX-License-Identifier: MIT
#pragma once
/// \file milo.h
/// MiLo (docs/numerics.md "MiLo", docs/toolkits.md §5): HQQ plus a rank-r compensator U·V fit by
/// alternating passes. Op sequence (W = the tensor as FP32 [N, K] by matrixView):
///   r = min(rank, min(N, K))  (the clamp is reported); U·V = 0
///   pass t = 1, 2, …:
///     W_t = W (t = 1) or f(W − f(U·V))                (U·V in FP64, rounded to FP32)
///     Q_t = HQQ(W_t) with the inner preset (default milo-code: 3-bit, g 64, axis 0),
///           Ŵ_t = its dequantized value (hqq.h; FP16 ops with compute fp16)
///     rank 0: stop (plain HQQ)
///     E = W − Ŵ_t (FP64);  (Q, B) = rangeSketch(E, q = r, niter = power_iters (2), seed,
///           Philox stream t − 1)  — torch.svd_lowrank's algorithm up to its last SVD, numeric/svd.h
///     U·V = Q·B (FP64): the rank-r truncated SVD U_s·S·V_sᵀ of svd_lowrank, which only rotates
///           inside span(Q) (the pass needs the product, not the factors)
///     ε_t = ‖E − U·V‖_F (FP64)
///     preset code / passes=N: no early stop
///     preset paper: from pass 4 on, stop when mean(ε_{t−2..t}) improves on mean(ε_{t−3..t−1})
///           by less than 1e-4 relative, or when ε_t > ε_{t−1}
///     both return the best pass (the smallest ε_t, the first of equals): ε may rise over the
///     passes (at a high rank), in the released loop too, which returns its last pass
///   factors of the returned pass only: (U_s, S, V_s) = the SVD of its sketch (lowRankFromSketch),
///     U = f(U_s·diag(√S)) [N, r],  V = f(diag(√S)·V_sᵀ) [r, K]
///   signs: each component c is turned so that U's entry of largest |value| in column c (the
///     first such) is positive, V's row c with it (the SVD leaves the sign to the solver in use;
///     one rule makes every device store the same compensator; U·V is unchanged)
///   compensator of the returned pass, per factor (U, V), groups over the flattened factor
///   (a shorter last group keeps its own scale):
///     fp16:  x̂ = h(x)
///     int8:  s = f(max|x| / 127.5) (FP32), q = clamp(rne(f(x / s)), −128, 127), x̂ = f(s·q)
///     int3 (paper eq. 15): s = max|x|, q = clamp(rne(f(f(7x) / f(2s))) + 4, 0, 7),
///           x̂ = f(f(f(2(q − 4))·s) / 7)
///     milo-code-int3 (the released code): s = the signed max of the group, same q, and
///           x̂ = h(f(f(2(q − 4))·s) / 7) (the code returns FP16 factors)
///     a group whose s is 0 or not finite is coded 0 (int8) / 4 (int3): x̂ = 0
///   Ŵ = f(Ŵ_hqq + Û·V̂) (the product in FP64)
/// Bits per element count the HQQ codes, scales and zero points and every compensator element
/// (16, 8 or 3 bits) and scale (FP32).
#include <cstdint>
#include <span>
#include <vector>

#include "quant/hqq.h"
#include "quant/quantizer.h"

namespace quantscope {

enum class MiloPreset : std::uint8_t { Code, Paper };
enum class CompensatorFormat : std::uint8_t { Fp16, Int8, Int3, MiloCodeInt3 };

struct MiloSpec {
    MiloPreset preset = MiloPreset::Code;
    int passes = 0; ///< 0: the preset's count (code 11, paper up to 20)
    int rank = 16;  ///< clamped to min(N, K) at run time
    CompensatorFormat compensator = CompensatorFormat::Fp16;
    std::int64_t compensatorGroup = 64;
    std::int64_t seed = 0;                                 ///< Philox seed of the SVD sketches (≥ 0)
    int powerIters = 2;                                    ///< torch.svd_lowrank's niter
    HqqSpec hqq = HqqSpec::forPreset(HqqPreset::MiloCode); ///< the inner quantizer

    int passCount() const { return passes > 0 ? passes : (preset == MiloPreset::Code ? 11 : 20); }
    void validate() const;
    /// Flat JSON: the MiLo keys plus the inner HQQ's as hqq_preset, bits, group, axis, compute,
    /// zero_rounding, iters (bits/axis default to the inner preset's).
    nlohmann::json toJson() const;
    static MiloSpec fromJson(const nlohmann::json &j);
    static std::vector<SpecField> fields();
};

std::string toString(MiloPreset v);
std::string toString(CompensatorFormat v);

/// The paper's stop rule on ε_1 … ε_t (t = eps.size()): true when pass t should be the last.
bool miloPaperShouldStop(std::span<const double> eps);

/// Quantizes one factor (row-major, rows × cols) as a compensator of the given format.
CompensatorFactor quantizeCompensator(std::span<const float> x, std::int64_t rows, std::int64_t cols,
                                      CompensatorFormat format, std::int64_t group);

/// The sign rule above, in place on U [N, r] and V [r, K] (row-major).
void canonicalFactorSigns(std::span<float> u, std::span<float> v, std::int64_t N, std::int64_t K, std::int64_t r);

class MiloQuantizer final : public Quantizer {
public:
    explicit MiloQuantizer(MiloSpec spec);
    std::string method() const override { return "milo"; }
    nlohmann::json spec() const override { return m_spec.toJson(); }
    QuantizedTensor quantize(const Tensor &w, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    void dequantize(const QuantizedTensor &q, std::span<float> out) const override;

private:
    MiloSpec m_spec;
};

} // namespace quantscope
