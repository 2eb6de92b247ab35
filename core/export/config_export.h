// SPDX-License-Identifier: MIT
#pragma once
/// \file config_export.h
/// Recipe → toolkit configuration text (issue 26, step 1; docs/formats.md "Exported configs"):
/// AMD Quark's `quantization_config` and the Python script that builds the same config with
/// Quark's classes, compressed-tensors' `quantization_config`, an llm-compressor recipe YAML, and
/// the Quantscope recipe JSON itself. The text returned is exactly the file written (the CLI's
/// `export`, the exporter panel's preview and Save share it). What a target cannot express (a
/// method it has no scheme for, a pattern dialect it does not read, precedence it cannot keep)
/// is refused with an UnsupportedError that says which rule or entry and why — never dropped.
///
/// Fields of our specs that describe how Quantscope emulates a toolkit's arithmetic
/// (scale_apply, arith, eps, scale_rule, strict) are not part of any target's config: they are
/// neither written nor refused. Fields that change the stored format are written or refused.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipe/recipe.h"
#include "tensor/tensor.h"

namespace quantscope {

enum class ExportFormat : std::uint8_t { Quark, QuarkScript, CompressedTensors, LlmCompressor, Quantscope, Fp8Block };
/// "quark", "quark-script", "compressed-tensors", "llm-compressor", "quantscope", "fp8-block"
/// (DeepSeek / Hugging Face fine-grained FP8, export/fp8block_writer.h).
std::string_view toString(ExportFormat f) noexcept;
/// The inverse of toString; nullopt for anything else.
std::optional<ExportFormat> parseExportFormat(std::string_view s) noexcept;
/// Every format, in toString order.
const std::vector<ExportFormat> &allExportFormats();
/// The file name a format is saved under by default ("quantization_config.json",
/// "quark_quantize.py", "recipe.yaml", "recipe.json").
std::string defaultExportFileName(ExportFormat f);

/// The activation scheme written next to every weight scheme (a recipe holds weights only).
enum class ActivationScheme : std::uint8_t { None, Fp8Dynamic, Fp8Static };
/// "none", "fp8-dynamic", "fp8-static".
std::string_view toString(ActivationScheme a) noexcept;
std::optional<ActivationScheme> parseActivationScheme(std::string_view s) noexcept;

struct ExportOptions {
    ActivationScheme activations = ActivationScheme::None;
    /// Quark's export.pack_method: "reorder" (Quark's default) or "order".
    std::string packMethod = "reorder";
    /// Keep embeddings, lm_head, MoE routers and anything not 2-D dense (export/toolkit_rules.h
    /// defaultExcludeReason), listed in the config's ignore/exclude. false: only the recipe's
    /// own exclude list.
    bool defaultExcludes = true;
    /// compressed-tensors' format of INT weights: "pack-quantized" (codes packed in I32, the
    /// default) or "int-quantized" (one I8 code per element, as the toolkit stores W8A8 INT8).
    std::string ctIntFormat = "pack-quantized";
};

/// Quark's `quantization_config` object (keys sorted as Quark's exporter writes them, except
/// `layer_quant_config`, which keeps the recipe's precedence: Quark tries its patterns in the
/// file's order, exact names first). `modules` (the checkpoint's module names, when known) lets a
/// recipe without a catch-all rule be written: the modules no rule quantizes are excluded by name.
nlohmann::ordered_json quarkQuantizationConfig(const Recipe &recipe, const ExportOptions &options = {},
                                               const std::vector<std::string> *modules = nullptr);
/// compressed-tensors' `quantization_config` object (keys sorted as the toolkit writes them),
/// its targets written so that the toolkit's order (exact names, then regexes alphabetically,
/// then `Linear`) gives every module the recipe's first-matching rule.
nlohmann::json compressedTensorsConfig(const Recipe &recipe, const ExportOptions &options = {},
                                       const std::vector<std::string> *modules = nullptr);

/// The exact file text of `format` (ends with a newline). Throws UnsupportedError naming what
/// the target cannot express. With `modules` (a checkpoint's 2-D weight modules and shapes) the
/// default exclusions are those modules' exact names and the config is written for them (a
/// Quark config without a catch-all excludes the modules no rule quantizes); without, the default
/// exclusions are patterns.
std::string exportRecipeText(const Recipe &recipe, ExportFormat format, const ExportOptions &options = {},
                             const std::vector<std::pair<std::string, Shape>> *modules = nullptr);

/// Writes `text` to `path` atomically (a temp file in the same folder, then rename): a failure
/// leaves no partial file. Throws IoError naming the path.
void writeTextAtomically(const std::string &path, const std::string &text);

namespace exportdetail {
/// fnmatch pattern → an anchored Python regex (`*` → `.*`, `?` → `.`, `[…]` kept, `[!…]` →
/// `[^…]`, every other regex metacharacter escaped).
std::string fnmatchToRegex(const std::string &pattern);
/// Regex metacharacters escaped (an exact name as a regex).
std::string escapeRegex(const std::string &name);
/// Whether a rule's patterns match every module name ("*" in fnmatch, ".*" in re).
bool isCatchAll(const RecipeRule &rule);
/// Quark's `weight` value of one spec (a QuantizationSpec dict, or the two-entry list of a
/// ProgressiveSpec); throws UnsupportedError naming `where`.
nlohmann::json quarkWeightJson(const QuantSpec &spec, const std::string &where);
/// compressed-tensors' scheme of one spec: {"format", "input_activations", "weights"}.
nlohmann::json ctSchemeJson(const QuantSpec &spec, const ExportOptions &options, const std::string &where);
/// Whether a rule before rule `i` matches the concrete name `name` (that rule wins it in the
/// recipe: a later rule's exact entry for it must not be written, since both toolkits look exact
/// names up before any pattern).
bool earlierRuleMatches(const Recipe &recipe, int i, const std::string &name);
/// Whether an fnmatch pattern has a glob character (`*`, `?`, `[`); Quark looks a name without
/// one up as an exact key.
bool hasGlobMeta(const std::string &pattern);
/// "rules[i] 'name'" for messages.
std::string ruleLabel(const Recipe &recipe, int i);
/// The specs of one overridden module of rule `i` (the rule's specs with the override applied),
/// or nothing when the module resolves to another rule or is excluded (the override is moot).
std::optional<std::vector<QuantSpec>> overriddenSpecs(const Recipe &recipe, int i, const std::string &module);
/// The FP8 KV-cache strategy a toolkit config can state for the recipe's `kv_cache`: nullopt
/// without a section; "tensor" (`fp8`, amax/448 per layer) or "attn_head" (`fp8-head`, only when
/// `allowHead`). Throws UnsupportedError naming `target` and why for anything else: layers with
/// different schemes (boundary protection, ranges; the toolkits state one scheme for every
/// attention layer), K and V with different schemes, a scheme that is not a calibrated FP8
/// (`fp8-vllm`/`fp8-unit` are vLLM run-time settings, the 4-bit schemes have no toolkit or vLLM
/// KV-cache format).
std::optional<std::string> kvCacheFp8Strategy(const Recipe &recipe, const std::string &target, bool allowHead);

} // namespace exportdetail

} // namespace quantscope
