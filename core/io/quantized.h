// SPDX-License-Identifier: MIT
#pragma once
/// \file quantized.h
/// Already-quantized modules of a checkpoint (docs/formats.md "Quantized tensor layouts read"):
/// compressed-tensors pack-quantized / int- / naive- / float-quantized / nvfp4- / mxfp4-pack-
/// quantized, FP8 block (DeepSeek-V3, Qwen3-FP8) and Quark real_quantized INT4.
///
/// A module is a tensor name without its last component. Each quantized module is detected from
/// its tensor set and dtypes, then confirmed against config.json's `quantization_config` when
/// present (bits, strategy, group size, symmetry, block size, pack method): a contradiction is a
/// FormatError naming the module and the mismatch. It is listed once as `<module>.weight` with
/// its scheme; the stored parts stay readable through Checkpoint::tensor, the unpacked codes and
/// the scale grid through quantizedCodes / quantizedParams, and decodeQuantized gives FP32.
///
/// Decisions (also in docs/formats-readers.md):
///  * Layout facts come from the toolkits (docs/toolkits.md §2.4–2.6, §3.5–3.6): c-t stores
///    value + 2^(b−1), element i at bit i·b across int32 words (dense) or, before c-t #715,
///    32/b values per word; for b ∈ {3,5,6,7} the word count decides, equal counts are refused
///    as ambiguous (unless K ≤ 32/b, where both layouts coincide). Zero points are packed along
///    dim 0 in the same layout. Quark packs 8 two's-complement nibbles per int32 in AWQ order
///    ([0,2,4,6,1,3,5,7], `export.pack_method` "reorder", the default) or in order ("order");
///    per-group weights are transposed before packing ([K, N/8]) and so are their scales and
///    zero points. Quark pads the packed width to a multiple of 8: per group the scale grid keeps
///    the true N; per channel/tensor config.json's model dimensions give the true K (else the
///    padded width is read, with a warning). The padding is never decoded.
///  * Without a config: the bit width of c-t packed weights is inferred from weight_shape and
///    the word count when exactly one width fits; the group size as K / groups when that divides
///    exactly (else refused); a block scale grid needs the config (block sizes are never derived
///    from shapes); Quark pack order defaults to "reorder" (Quark's default) and says so.
///  * Ragged groups (K not a multiple of the group size) are read: the last group is short and
///    the scale grid has ceil(K/g) columns.
///  * NaN/Inf/zero scales are loaded and counted (ScaleHealth); E8M0 0xFF counts as NaN.
///  * Decoding is FP32: c-t `(q − z)·s` with s = scale / global for NVFP4 (that division first,
///    as compressed-tensors does); FP8 block `q·s_inv`; Quark `s1·(s2·(q − z2))`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/spec.h"
#include "io/checkpoint.h"
#include "tensor/tensor.h"

namespace quantscope {

enum class QuantFormat : std::uint8_t {
    CtPackQuantized,
    CtIntQuantized,
    CtNaiveQuantized,
    CtFloatQuantized,
    CtNvfp4PackQuantized,
    CtMxfp4PackQuantized,
    Fp8Block,
    QuarkRealQuantized,
    QuantscopeNative, ///< `quantize --save` (io/native.h)
};
/// "compressed-tensors/pack-quantized", "fp8-block", "quark/real_quantized", …
std::string_view formatName(QuantFormat f) noexcept;

// Granularity is the engine's (quant/spec.h): one enum, and one toString, for stored and
// computed schemes.

/// How codes sit in the stored words.
enum class PackOrder : std::uint8_t {
    None,                ///< one code per stored element (I8, F8)
    CtDense,             ///< c-t: element i at bit i·b across int32 words
    CtLegacy,            ///< c-t before #715: 32/b codes per int32, spare high bits
    QuarkReorder,        ///< Quark "reorder": nibble slot i holds element [0,2,4,6,1,3,5,7][i]
    QuarkOrder,          ///< Quark "order": element i in nibble i
    Fp4LowNibbleFirst,   ///< FP4 E2M1 pairs: element 2k low nibble, 2k+1 high nibble
    NativeLowNibbleFirst ///< Quantscope native INT/UINT ≤ 4 bits: element 2k low nibble (U8)
};
std::string_view packOrderName(PackOrder p) noexcept;

/// The scheme of one quantized module.
struct QuantScheme {
    bool isFloat = false; ///< float elements (FP8, FP4) or integers
    int bits = 8;
    std::string element; ///< "int4", "uint4", "int8", "fp8_e4m3", "fp4_e2m1"
    Granularity granularity = Granularity::Tensor;
    std::int64_t groupSize = 0;                ///< Group: columns per group along K
    std::int64_t blockRows = 0, blockCols = 0; ///< Block
    bool symmetric = true;
    PackOrder packOrder = PackOrder::None;
    bool transposed = false; ///< Quark per-group: codes/scales stored transposed
    DType scaleDtype = DType::F32;
    bool scaleIsE8m0 = false;       ///< U8/F8_E8M0 scales meaning 2^(e−127)
    bool inverseScale = false;      ///< FP8 block `weight_scale_inv` (multiplied at dequant)
    bool globalScale = false;       ///< NVFP4 weight_global_scale (scale / global)
    bool twoStage = false;          ///< Quark ProgressiveSpec: s1 · (s2 · (q − z2))
    bool actOrder = false;          ///< c-t weight_g_idx
    bool fromConfig = false;        ///< confirmed against config.json's quantization_config
    bool packOrderAssumed = false;  ///< Quark pack order not in a config: the default assumed
    std::string method;             ///< native layout: the quantizer ("int", "hqq", "milo", …)
    std::vector<std::string> notes; ///< native layout: float zero points, the compensator

    /// "INT4 sym, group 32 along K, c-t packing, F32 scales".
    std::string text() const;
    /// {"type","bits","element","granularity","group_size","block","symmetric","pack_order",
    ///  "transposed","scale_dtype","global_scale","two_stage","act_order","from_config"}, and for
    ///  the native layout "method" and "notes"
    nlohmann::ordered_json toJson() const;
};

/// Non-finite and zero scales of a module (all its scale tensors together).
struct ScaleHealth {
    std::int64_t nan = 0, inf = 0, zero = 0;
    std::int64_t total = 0;
};

struct QuantizedModule {
    std::string module; ///< "model.layers.0.mlp.down_proj"
    std::string name;   ///< module + ".weight": the logical weight
    QuantFormat format = QuantFormat::CtPackQuantized;
    QuantScheme scheme;
    Shape shape; ///< logical weight shape ([N, K], or [E, N, K] for stacked experts)
    /// Stored parts by role: "codes", "scale", "zero_point", "shape", "g_idx", "global_scale",
    /// "scale_2", "zero_point_2" (tensor names of the checkpoint).
    std::map<std::string, std::string> parts;
    ScaleHealth scaleHealth;
    std::vector<std::string> warnings;

    /// Stored tensor name of a part, or nullptr.
    const std::string *part(std::string_view role) const;
    /// Whether `name` is this module's logical weight, its module name or one of its parts.
    bool answersTo(std::string_view name) const;

    // Layout facts found by detection (used by the decoders).
    std::int64_t experts = 1;                ///< leading dim of 3-D weights, 1 for 2-D
    std::int64_t rows = 0, cols = 0;         ///< N, K per expert
    std::int64_t gridRows = 1, gridCols = 1; ///< scale grid per expert, [rows-blocks, col-groups]
    bool zeroPointPacked = true;             ///< c-t: zero points packed along dim 0 (older files: raw)
};

struct DetectOptions {
    /// true: the first bad module throws. false: bad modules are skipped (their tensors stay
    /// plain) and their errors collected in `problems`, so every other module still decodes.
    bool strict = true;
};

/// A module that looks quantized but cannot be decoded, and why.
struct ModuleProblem {
    std::string module;  ///< "model.layers.0.mlp.down_proj"
    std::string message; ///< the refusal, naming the module and the mismatch
};

struct Detection {
    std::vector<QuantizedModule> modules; ///< in the order of their first stored part
    std::vector<ModuleProblem> problems;  ///< non-strict mode: the skipped modules
    /// The problem of the module this name (module, logical weight or stored part) belongs to.
    const ModuleProblem *problem(std::string_view name) const;
    /// The module with this logical weight, module name or part name (nullptr if none).
    const QuantizedModule *find(std::string_view name) const;
    /// True when `tensorName` is a stored part of a detected module.
    bool isPart(std::string_view tensorName) const;
    /// Name (module, logical weight, part) → index in `modules`; filled by detectQuantized.
    std::map<std::string, std::size_t, std::less<>> index;
    std::map<std::string, std::size_t, std::less<>> partIndex;
};

/// Detects the quantized modules of `ck`. Throws FormatError naming the module and the
/// mismatch (strict mode).
Detection detectQuantized(const Checkpoint &ck, const DetectOptions &options = {});

/// The quantization parameters of a module in normalized orientation.
struct QuantParams {
    /// Scale grid FP32 [experts·gridRows, gridCols], already divided by the global scale (NVFP4).
    std::vector<float> scales;
    /// Zero points in code units, same grid (empty when symmetric).
    std::vector<float> zeroPoints;
    /// Per column group index (act order), empty when columns are in order.
    std::vector<std::int32_t> gIdx;
    /// Quark stage-1 scale s1 (1 when single-stage).
    float outer = 1.0f;
};

/// The unpacked integer codes (I32, logical shape; Quark per-group un-transposed) of an INT
/// module, or the element codes of a float module (F8_E4M3 [N, K] or F4 [N, K] views).
Tensor quantizedCodes(const Checkpoint &ck, const QuantizedModule &m);
QuantParams quantizedParams(const Checkpoint &ck, const QuantizedModule &m);
/// The dequantized weight, FP32, logical shape.
Tensor decodeQuantized(const Checkpoint &ck, const QuantizedModule &m);

/// fnmatch-style match (`*`, `?`, `[…]`) of a whole name, as Quark's exclude/layer patterns.
bool fnmatchName(std::string_view pattern, std::string_view name);

} // namespace quantscope
