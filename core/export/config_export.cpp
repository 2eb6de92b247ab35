// SPDX-License-Identifier: MIT
// The format list, the shared pattern helpers, the llm-compressor YAML, the Quantscope JSON and
// the atomic write (config_export.h). Quark: export_quark.cpp; compressed-tensors: export_ct.cpp.
#include "export/config_export.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "export/fp8block_writer.h"
#include "export/toolkit_rules.h"
#include "quant/quant_spec.h"
#include "util/error.h"

namespace quantscope {

std::string_view toString(ExportFormat f) noexcept
{
    switch (f) {
    case ExportFormat::Quark:
        return "quark";
    case ExportFormat::QuarkScript:
        return "quark-script";
    case ExportFormat::CompressedTensors:
        return "compressed-tensors";
    case ExportFormat::LlmCompressor:
        return "llm-compressor";
    case ExportFormat::Quantscope:
        return "quantscope";
    case ExportFormat::Fp8Block:
        return "fp8-block";
    }
    return "quark";
}

const std::vector<ExportFormat> &allExportFormats()
{
    static const std::vector<ExportFormat> all{
        ExportFormat::Quark,         ExportFormat::QuarkScript, ExportFormat::CompressedTensors,
        ExportFormat::LlmCompressor, ExportFormat::Quantscope,  ExportFormat::Fp8Block};
    return all;
}

std::optional<ExportFormat> parseExportFormat(std::string_view s) noexcept
{
    for (ExportFormat f : allExportFormats())
        if (toString(f) == s)
            return f;
    return std::nullopt;
}

std::string defaultExportFileName(ExportFormat f)
{
    switch (f) {
    case ExportFormat::Quark:
    case ExportFormat::CompressedTensors:
    case ExportFormat::Fp8Block:
        return "quantization_config.json";
    case ExportFormat::QuarkScript:
        return "quark_quantize.py";
    case ExportFormat::LlmCompressor:
        return "recipe.yaml";
    case ExportFormat::Quantscope:
        return "recipe.json";
    }
    return "export.txt";
}

std::string_view toString(ActivationScheme a) noexcept
{
    switch (a) {
    case ActivationScheme::None:
        return "none";
    case ActivationScheme::Fp8Dynamic:
        return "fp8-dynamic";
    case ActivationScheme::Fp8Static:
        return "fp8-static";
    }
    return "none";
}

std::optional<ActivationScheme> parseActivationScheme(std::string_view s) noexcept
{
    for (ActivationScheme a : {ActivationScheme::None, ActivationScheme::Fp8Dynamic, ActivationScheme::Fp8Static})
        if (toString(a) == s)
            return a;
    return std::nullopt;
}

namespace exportdetail {

std::string escapeRegex(const std::string &name)
{
    std::string out;
    for (char c : name) {
        if (std::string_view(".^$*+?()[]{}|\\").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string fnmatchToRegex(const std::string &pattern)
{
    std::string out = "^";
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '*') {
            out += ".*";
        } else if (c == '?') {
            out += '.';
        } else if (c == '[') {
            const std::size_t close = pattern.find(']', i + 2); // "[]…]": ']' first is a member
            if (close == std::string::npos) {
                out += "\\[";
                continue;
            }
            std::string set = pattern.substr(i + 1, close - i - 1);
            if (!set.empty() && set[0] == '!')
                set[0] = '^';
            std::string esc;
            for (char m : set)
                esc += (m == '\\' ? std::string("\\\\") : std::string(1, m));
            out += '[' + esc + ']';
            i = close;
        } else {
            out += escapeRegex(std::string(1, c));
        }
    }
    return out + '$';
}

bool isCatchAll(const RecipeRule &rule)
{
    for (const auto &p : rule.patterns) {
        if (rule.dialect == PatternDialect::Fnmatch && !p.empty() && p.find_first_not_of('*') == std::string::npos)
            return true;
        if (rule.dialect == PatternDialect::Re && (p == ".*" || p == "^.*$" || p == ".*$" || p == "^.*"))
            return true;
    }
    return false;
}

std::string ruleLabel(const Recipe &recipe, int i)
{
    const auto &r = recipe.rules[static_cast<std::size_t>(i)];
    return "rules[" + std::to_string(i) + "]" + (r.name.empty() ? "" : " '" + r.name + "'");
}

bool earlierRuleMatches(const Recipe &recipe, int i, const std::string &name)
{
    for (int j = 0; j < i; ++j)
        for (const auto &p : recipe.rules[static_cast<std::size_t>(j)].patterns)
            if (patternMatches(recipe.rules[static_cast<std::size_t>(j)].dialect, p, name))
                return true;
    return false;
}

bool hasGlobMeta(const std::string &pattern)
{
    return pattern.find_first_of("*?[") != std::string::npos;
}

std::optional<std::vector<QuantSpec>> overriddenSpecs(const Recipe &recipe, int i, const std::string &module)
{
    const RecipeMatch m = matchModule(recipe, module);
    if (!m.matched() || m.rule != i)
        return std::nullopt;
    return m.specs;
}

std::optional<std::string> kvCacheFp8Strategy(const Recipe &recipe, const std::string &target, bool allowHead)
{
    if (!recipe.kvCache)
        return std::nullopt;
    const RecipeKvCache &kv = *recipe.kvCache;
    if (!kv.uniform())
        throw UnsupportedError("kv_cache: " + target +
                               " states one KV-cache scheme for every attention layer; the recipe gives layers "
                               "different schemes (boundary " +
                               std::to_string(kv.boundary) + ", " + std::to_string(kv.ranges.size()) +
                               " range(s)) — keep the boundary layers quantized or export without kv_cache");
    const auto [k, v] = kv.schemesOf(0);
    if (k != v)
        throw UnsupportedError("kv_cache: " + target + " states one scheme for K and V; the recipe has K " + k +
                               ", V " + v);
    if (k == "fp8")
        return "tensor";
    if (k == "fp8-head") {
        if (!allowHead)
            throw UnsupportedError("kv_cache: fp8-head — " + target + "'s KV cache is FP8 per tensor");
        return "attn_head";
    }
    if (k == "fp8-vllm" || k == "fp8-unit")
        throw UnsupportedError("kv_cache: " + k + " is a vLLM run-time setting (--kv-cache-dtype fp8" +
                               std::string(k == "fp8-vllm" ? " --calculate-kv-scales" : "") +
                               "), not a checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale");
    throw UnsupportedError("kv_cache: " + k + " — " + target +
                           " and vLLM read an FP8 KV cache only (num_bits 8, type float); a 4-bit or BF16 KV "
                           "cache has no config to state it");
}

} // namespace exportdetail

namespace {

/// llm-compressor's recipe: one QuantizationModifier with the compressed-tensors config groups
/// and ignore list (JSON values are YAML flow values, so each is written as its JSON).
std::string llmCompressorYaml(const Recipe &recipe, const ExportOptions &options)
{
    const nlohmann::json ct = compressedTensorsConfig(recipe, options);
    std::string y = "# llm-compressor recipe of the Quantscope recipe " + recipe.hash() +
                    " (quantscope-cli export --format llm-compressor)\n";
    // The data-aware methods keep their algorithm: AWQModifier before the quantizing modifier,
    // GPTQModifier instead of QuantizationModifier; llm-compressor runs one of each per stage.
    std::optional<GptqSpec> gptq;
    std::optional<AwqSpec> awq;
    bool plain = false;
    for (const auto &rule : recipe.rules)
        for (const auto &j : rule.specs) {
            const QuantSpec spec = parseQuantSpec(j);
            if (const auto *g = std::get_if<GptqSpec>(&spec)) {
                if (gptq && gptq->toJson() != g->toJson() &&
                    (gptq->blockSize != g->blockSize || gptq->dampening != g->dampening ||
                     gptq->actorder != g->actorder))
                    throw UnsupportedError("rule '" + rule.name +
                                           "': llm-compressor runs one GPTQModifier, and the recipe's gptq specs "
                                           "differ in block_size, dampening or actorder");
                gptq = *g;
            } else if (const auto *a = std::get_if<AwqSpec>(&spec)) {
                if (awq && (awq->grid != a->grid || awq->duo != a->duo))
                    throw UnsupportedError("rule '" + rule.name +
                                           "': llm-compressor runs one AWQModifier, and the recipe's awq specs "
                                           "differ in n_grid or duo_scaling");
                awq = *a;
            } else {
                plain = true;
            }
        }
    y += "quant_stage:\n  quant_modifiers:\n";
    if (awq) {
        const std::string duo = awq->toJson()["duo_scaling"];
        y += "    AWQModifier:\n      n_grid: " + std::to_string(awq->grid) + "\n      duo_scaling: " +
             (duo == "on"    ? "true"
              : duo == "off" ? "false"
                             : "\"both\"") +
             "\n";
    }
    if (gptq) {
        if (plain)
            y += "    # GPTQModifier quantizes every config group below with GPTQ, the recipe's other rules too\n";
        const std::string order = toString(gptq->actorder);
        y += "    GPTQModifier:\n      block_size: " + std::to_string(gptq->blockSize) +
             "\n      dampening_frac: " + nlohmann::json(gptq->dampening).dump() +
             "\n      actorder: " + (order == "none" ? std::string("null") : order) + "\n";
    } else {
        y += "    QuantizationModifier:\n";
    }
    y += "      ignore: " + ct["ignore"].dump() + "\n";
    y += "      config_groups:\n";
    for (const auto &[name, g] : ct["config_groups"].items()) {
        y += "        " + name + ":\n";
        y += "          targets: " + g["targets"].dump() + "\n";
        y += "          weights: " + g["weights"].dump() + "\n";
        y += "          input_activations: " + g["input_activations"].dump() + "\n";
        y += "          output_activations: " + g["output_activations"].dump() + "\n";
    }
    if (!ct["kv_cache_scheme"].is_null())
        y += "      kv_cache_scheme: " + ct["kv_cache_scheme"].dump() + "\n";
    return y;
}

} // namespace

std::string quarkScriptText(const Recipe &recipe, const ExportOptions &options); // export_quark.cpp

std::string exportRecipeText(const Recipe &recipeIn, ExportFormat format, const ExportOptions &options,
                             const std::vector<std::pair<std::string, Shape>> *modules)
{
    if (options.packMethod != "reorder" && options.packMethod != "order")
        throw UnsupportedError("pack method '" + options.packMethod + "' is not one of Quark's: reorder, order");
    Recipe recipe = recipeIn;
    if (options.defaultExcludes && format != ExportFormat::Quantscope) {
        recipe = withDefaultExcludes(recipeIn, modules);
        if (format == ExportFormat::Fp8Block && !modules) // modules_to_not_convert takes names only
            std::erase_if(recipe.exclude, [&](const RecipeExclude &e) {
                return e.dialect != PatternDialect::Exact &&
                       std::find(recipeIn.exclude.begin(), recipeIn.exclude.end(), e) == recipeIn.exclude.end();
            });
    }
    std::vector<std::string> names;
    if (modules)
        for (const auto &m : *modules)
            names.push_back(m.first);
    switch (format) {
    case ExportFormat::Quark:
        return quarkQuantizationConfig(recipe, options, modules ? &names : nullptr).dump(2) + "\n";
    case ExportFormat::QuarkScript:
        return quarkScriptText(recipe, options);
    case ExportFormat::CompressedTensors:
        return compressedTensorsConfig(recipe, options, modules ? &names : nullptr).dump(2) + "\n";
    case ExportFormat::LlmCompressor:
        return llmCompressorYaml(recipe, options);
    case ExportFormat::Quantscope:
        if (options.activations != ActivationScheme::None)
            throw UnsupportedError("a Quantscope recipe holds weight specs only; activations '" +
                                   std::string(toString(options.activations)) + "' cannot be written to it");
        return recipe.text();
    case ExportFormat::Fp8Block:
        return fp8BlockConfig(recipe, options).dump(2) + "\n";
    }
    throw UnsupportedError("unknown export format");
}

void writeTextAtomically(const std::string &path, const std::string &text)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw IoError("cannot write the export", Location{tmp, {}, {}});
        out << text;
        out.flush();
        if (!out) {
            out.close();
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw IoError("writing the export failed", Location{tmp, {}, {}});
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw IoError("cannot rename the export into place", Location{path, {}, {}});
    }
}

} // namespace quantscope
