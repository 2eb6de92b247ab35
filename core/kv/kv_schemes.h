// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_schemes.h
/// The KV-cache quantizers of the KV lab (docs/numerics.md "KV-cache lab"). Each works on one
/// attention layer's K or V, row-major [Hkv, T, d] FP32 (a token's vector is a row of d), and
/// returns the dequantized cache x̂ of the same shape. Op sequences (FP32 unless said, no fused
/// operations; every group/row holding a value is finite — kv_data.h refuses NaN/Inf):
///  bf16        x̂ = bf16(x) (RNE)
///  fp8[-rule]  E4M3: s by rule, x̂ = e4m3(clamp(x/s, ±448))·s (RNE cast)
///              rule `amax` (default): s = amax(layer's K or V)/448, what llm-compressor and Quark
///              calibrate into k_scale/v_scale; `head`: amax(head)/448 (compressed-tensors'
///              attn_head strategy); `vllm`: amax/200 for K, amax/100 for V (vLLM's
///              calculate_kv_scales with K_SCALE_CONSTANT 200, V_SCALE_CONSTANT 100); `unit`:
///              s = 1 (vLLM's kv_cache_dtype=fp8 without scales). s = 0 → x̂ = 0.
///  codebook    TurboQuant style, per token: n = ‖x‖₂ (FP64, stored as FP16 n'), u = x/(float)n,
///              y = WHT_b(u) (rotation, blocks of b = the largest power of two dividing d, b ≤ d),
///              each y_j → the nearest of 16 levels ℓ (boundaries (ℓ_i + ℓ_{i+1})/2 in FP64 then
///              FP32; y ≥ boundary goes up), ŷ_j = ℓ, û = WHT_b(ŷ), x̂ = n'·û; n = 0 → x̂ = 0.
///              Levels: `theory` = Lloyd–Max for the exact law of a coordinate of a uniform unit
///              vector in R^d (kv_codebook.h), `layer` = refit on this layer's rotated unit
///              vectors, `shared` = refit on all layers'; `norot` = the theoretical levels
///              without the rotation.
///  constopt    UltraQuant Algorithm 1: y = WHT_b(x) per token, groups of 32 along d, m =
///              max|y|, s = 2^round(log2(fc·m)) as UE8M0 (or s = fc·m `unrounded`), q =
///              e2m1(y/s), ŷ = e2m1value(q)·s, x̂ = WHT_b(ŷ) (fp4math.h constOpt ops); c given,
///              or `fit` = this layer's MSE-optimal c on the c grid.
///  mxfp4       OCP MX, groups of 32 along d, UE8M0 scale (`even`), no rotation (fp4math.h).
///  nvfp4       groups of 16 along d, E4M3 block scales, FP32 global = 2688/amax(layer's K or V)
///              (quant/nvfp4.h's op sequence), no rotation.
///  int4        KIVI, asymmetric INT4: K per channel over groups of 32 tokens, V per token over
///              groups of 32 channels; per group mn, mx; s = f16((mx − mn)/15), z = f16(mn);
///              s = 0 → x̂ = z; q = clamp(rne((x − z)/s), 0, 15); x̂ = (float)q·s + z.
#include <cstdint>
#include <string>
#include <vector>

namespace quantscope {

enum class KvRole : std::uint8_t { K, V };
enum class KvMethod : std::uint8_t { Bf16, Fp8, Codebook, ConstOpt, MxFp4, NvFp4, Int4 };
enum class KvFp8Rule : std::uint8_t { Amax, Head, Vllm, Unit };
enum class KvCodebook : std::uint8_t { Theory, Layer, Shared, NoRot };

struct KvScheme {
    KvMethod method = KvMethod::Bf16;
    KvFp8Rule fp8 = KvFp8Rule::Amax;
    KvCodebook codebook = KvCodebook::Theory;
    double c = 0.156;       ///< constOpt's constant
    bool cFit = false;      ///< constOpt: c = the layer's MSE-optimal c
    bool unrounded = false; ///< constOpt: FP32 scales instead of UE8M0

    /// Canonical text: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer,
    /// codebook-shared, codebook-norot, constopt (c 0.156), constopt:c=0.195, constopt:c=fit,
    /// constopt:unrounded, mxfp4, nvfp4, int4.
    std::string name() const;
    /// Parses name()'s forms (constOpt options after ':' separated by ','). Throws UnsupportedError
    /// naming the text and the accepted forms.
    static KvScheme parse(const std::string &text);
    /// Storage in bytes per token of one head's K or V (d values; INT4's per-channel K scales
    /// amortised over their 32 tokens).
    double bytesPerToken(KvRole role, std::int64_t d) const;
    /// Whether a rotation takes part (codebook except norot, constOpt).
    bool rotates() const;
    bool operator==(const KvScheme &) const = default;
};

/// The lab's default list of schemes.
std::vector<KvScheme> defaultKvSchemes();

/// The rotation block for head dimension d: the largest power of two dividing d (d itself when d
/// is a power of two); 1 when d is odd (no rotation possible).
std::int64_t kvRotationBlock(std::int64_t d);

/// What one layer's quantization needs beyond the scheme.
struct KvLayerContext {
    std::int64_t heads = 0, tokens = 0, dim = 0;
    std::vector<double> levels; ///< codebook: the 16 levels (ascending)
    double c = 0.156;           ///< constOpt: the resolved c (given or fit)
};

/// Dequantized cache x̂ of one layer's K or V ([heads, tokens, dim] row-major), by the op sequence
/// above. Throws UnsupportedError when the scheme needs a rotation and dim is odd.
std::vector<float> kvQuantize(const KvScheme &scheme, KvRole role, const std::vector<float> &x,
                              const KvLayerContext &ctx, int threads = 0);
/// kvQuantize into `out` (resized to x's size; its storage reused across calls).
void kvQuantizeInto(const KvScheme &scheme, KvRole role, const std::vector<float> &x, const KvLayerContext &ctx,
                    std::vector<float> &out, int threads = 0);

/// kvQuantizeInto with the per-head MSE in the same pass, 32 rows of a head at a time (each block's
/// x̂ read back while it is in cache): mse[h] = Σ (x − x̂)² / (tokens·dim) over head h, the sum in
/// kvfast::sumSquaredDiff's order (the bits of that function on kvQuantize's x̂). `out` receives
/// x̂ of only the first `kept` rows of each head — `keep` rounded up to whole blocks of 32, at most
/// the tokens — heads kept·dim apart; returns kept. What the lab's attention errors read.
std::int64_t kvQuantizeMse(const KvScheme &scheme, KvRole role, const std::vector<float> &x, const KvLayerContext &ctx,
                           std::int64_t keep, std::vector<float> &out, std::vector<double> &mse);
/// kvQuantizeMse for n schemes of one tensor (contexts of one shape) in one pass over its blocks:
/// out[k] and mse[k] as kvQuantizeMse gives them for schemes[k], ctx[k]. When every scheme is a
/// codebook, or every one constOpt, each block's norms, rotation and group maxima are made once
/// for all of them (kvfast::codebookRowsN, constOptRowsN).
std::int64_t kvQuantizeMseN(const KvScheme *schemes, KvRole role, const std::vector<float> &x,
                            const KvLayerContext *ctx, int n, std::int64_t keep, std::vector<float> *const *out,
                            std::vector<double> *const *mse);

/// Rotates every row of d in blocks of b (hadamard.h's op sequence), in place.
void kvRotateRows(std::vector<float> &x, std::int64_t d, std::int64_t b);

} // namespace quantscope
