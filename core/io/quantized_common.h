// SPDX-License-Identifier: MIT
#pragma once
// Internal to the quantized readers (core/io/quantized*.cpp), not a public interface: what the
// per-toolkit analysers share. config.json's quantization_config reduced to the weight arguments
// a module is confirmed against (quantized_config.cpp), the per-module view of its stored parts
// and the checks every toolkit runs on scales and shapes (quantized_common.cpp), and the five
// analysers detectQuantized dispatches to, one file per toolkit layout.
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/quantized.h"
#include "util/error.h"

namespace quantscope::quantized_detail {

/// "[d0, d1, …]" for messages.
std::string shapeList(const Shape &s);
/// ceil(a / b); 0 when b is not positive.
inline std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return b <= 0 ? 0 : (a + b - 1) / b;
}

// ---- config views (quantized_config.cpp) ------------------------------------------------------

/// Weight quantization arguments as a config states them (normalized).
struct WeightArgs {
    int numBits = 8;
    bool isFloat = false;
    std::optional<bool> symmetric;
    std::string strategy; ///< tensor | channel | group | tensor_group | block | "" (unknown)
    std::int64_t groupSize = 0;
    std::int64_t blockRows = 0, blockCols = 0;
    bool actorder = false;
    std::string format; ///< c-t per-group or top-level format
    std::string source; ///< where it came from, for messages
    // Quark only
    std::string quarkDtype; ///< "int4", "uint4", "fp8_e4m3", …
    bool twoStage = false;
    std::string stage1Dtype, stage1Qscheme;
};

/// One compressed-tensors config group: its targets and weight arguments.
struct CtGroup {
    std::vector<std::string> targets;
    std::vector<std::optional<std::regex>> regexes; ///< compiled `re:` targets (parallel)
    WeightArgs args;
    bool hasWeights = false;
};

/// quantization_config reduced to what the analysers check modules against.
struct ConfigView {
    std::string method; ///< quant_method: "compressed-tensors", "quark", "fp8", … or ""
    // compressed-tensors
    std::string ctFormat;
    std::vector<CtGroup> groups;
    std::vector<std::string> ignore;
    std::vector<std::optional<std::regex>> ignoreRe; ///< compiled `re:` entries (parallel)
    // fp8 (DeepSeek-V3 / Qwen3-FP8)
    std::optional<std::pair<std::int64_t, std::int64_t>> weightBlock;
    // quark
    nlohmann::json quark;
    std::string packMethod;
    bool packMethodGiven = false;
};

/// Reads quantization_config (null or not an object: an empty view, method "").
ConfigView readConfig(const nlohmann::json &qc);

/// Candidate c-t weight args for a module: name/regex matches first, then class targets.
/// `ignored` tells whether the config's ignore list names the module.
std::vector<WeightArgs> ctCandidates(const ConfigView &cv, const std::string &module, bool &ignored);

/// Quark weight spec for a module: layer_quant_config (exact, then fnmatch), then
/// layer_type_quant_config "Linear", then global_quant_config. Null when excluded / none.
nlohmann::json quarkWeightSpec(const ConfigView &cv, const std::string &module, bool &excluded);

/// A Quark weight spec (one stage or a two-stage list) → WeightArgs.
WeightArgs quarkArgs(const nlohmann::json &spec);

// ---- tensor access and shared checks (quantized_common.cpp) -----------------------------------

/// One module's stored parts, by suffix, and the error every analyser throws.
struct Ctx {
    const Checkpoint &ck;
    const std::string &module;
    const std::map<std::string, const TensorEntry *> &sfx; // suffix → entry

    const TensorEntry *get(const std::string &s) const
    {
        const auto it = sfx.find(s);
        return it == sfx.end() ? nullptr : it->second;
    }
    [[noreturn]] void fail(const std::string &msg) const
    {
        const TensorEntry *any = sfx.empty() ? nullptr : sfx.begin()->second;
        throw FormatError(msg, Location{any ? any->file.string() : ck.path().string(), module, {}});
    }
    std::string tname(const std::string &s) const { return module + "." + s; }
};

/// "<suffix> <dtype> [shape]" of a stored tensor, for messages.
std::string describe(const TensorEntry &e);

/// Decodes a stored scale tensor to FP32 (U8 as E8M0 when asked).
std::vector<float> floatsOf(const Tensor &t, bool e8m0FromU8);

/// Adds the NaN / Inf / zero counts of `v` to `h`.
void countHealth(ScaleHealth &h, const std::vector<float> &v);

/// The elements of an integer tensor as int64 (I64 read whole).
std::vector<std::int64_t> integersOf(const Tensor &t);

bool isIntDtype(DType t);
bool isFloatScaleDtype(DType t);

/// Resolves granularity and the scale grid of a weight [experts × N × K] from the per-expert
/// scale shape `s` and the config args (or the shapes alone). Throws naming the mismatch.
void resolveGrid(const Ctx &c, QuantizedModule &m, const Shape &s, const std::string &scaleName, const WeightArgs *a,
                 std::int64_t defaultGroup);

/// Reads the logical weight shape from c-t weight_shape.
Shape readWeightShape(const Ctx &c, const TensorEntry &e);

// ---- the analysers: one per stored layout ----------------------------------------------------
// Each checks the module's tensors against `a` (the config's arguments, null without a config)
// and returns the module with its scheme, parts and layout facts, or throws FormatError.

/// compressed-tensors pack-quantized: INT codes packed in I32 words (quantized_ct_packed.cpp).
QuantizedModule analyzeCtPacked(const Ctx &c, const WeightArgs *a);
/// compressed-tensors nvfp4- / mxfp4-pack-quantized: FP4 pairs in U8 (quantized_ct_fp4.cpp).
QuantizedModule analyzeFp4(const Ctx &c, const WeightArgs *a, const ConfigView &cv);
/// DeepSeek-V3 / Qwen3 FP8 block: F8 weight and weight_scale_inv (quantized_fp8_block.cpp).
QuantizedModule analyzeFp8Block(const Ctx &c, const ConfigView &cv);
/// One code per element (I8 or F8) with weight_scale: c-t int- / naive- / float-quantized, or
/// Quark when the config says so (quantized_unpacked.cpp).
QuantizedModule analyzeNaive(const Ctx &c, const WeightArgs *a, const ConfigView &cv);
/// Quark real_quantized INT4 in I32 words, one or two stages (quantized_quark.cpp).
QuantizedModule analyzeQuark(const Ctx &c, const WeightArgs *a, const ConfigView &cv);

} // namespace quantscope::quantized_detail
