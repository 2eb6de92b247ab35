// SPDX-License-Identifier: MIT
#pragma once
/// \file toolkit_rules.h
/// What the toolkits do with an exported config, computed on our side (docs/formats.md "How the
/// toolkits resolve a module"), so that every export can be checked module by module against
/// the recipe before it is written:
///  * Quark 0.13 (quark/torch/quantization/model_transformation.py setup_config_per_layer and
///    file2file_quantization.py): `exclude` first (any fnmatch match), then an exact-name key of
///    `layer_quant_config` (a name with no glob character), then the first fnmatch key in the
///    dict's order (the file's order), then `global_quant_config`.
///  * compressed-tensors 0.20 (compressed_tensors/utils/match.py match_targets and
///    quantization/lifecycle/apply.py): `ignore` first (exact names or `re:` regexes, Python
///    re.match); then the targets of all config groups sorted by (is a regex, text): exact names
///    first, then regexes in alphabetical order, then class names (`Linear`); the first that
///    matches gives the group. A target listed by two groups belongs to the later one.
///  * Defaults users expect: embeddings, `lm_head`, MoE routers and anything not 2-D stay dense
///    (llm-compressor's examples ignore lm_head; Quark quantizes Linear layers; vLLM keeps
///    routers dense).
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipe/default_excludes.h"
#include "recipe/recipe.h"
#include "tensor/tensor.h"

namespace quantscope {

// defaultExcludeReason and isEmbeddingModule: recipe/default_excludes.h (the budget uses them too).
/// The same defaults as patterns (`lm_head` exact, routers fnmatch), for configs written without
/// a checkpoint.
const std::vector<std::string> &defaultExcludePatterns();
/// The recipe with the default exclusions added to its exclude list: the exact names of the
/// `modules` (module → weight shape) that defaultExcludeReason names and a rule would quantize
/// (an embedding only when a rule other than the catch-all names it: the toolkits never apply
/// their catch-all to an embedding), or, with no modules, the patterns of
/// defaultExcludePatterns(). Entries already excluded are not repeated.
Recipe withDefaultExcludes(const Recipe &recipe, const std::vector<std::pair<std::string, Shape>> *modules);

// sharedScaleGroupOf (one NVFP4 global scale per fused group): recipe/recipe_check.h, beside fusionGroupOf.

/// Python's re.match(pattern, name): a match anchored at the start only (ECMAScript grammar).
bool pythonReMatch(const std::string &pattern, const std::string &name);

/// The Quark layer config (the `weight` value and the rest of the QLayerConfig dict) that Quark
/// applies to `module` from `quantizationConfig`, or nullopt when excluded.
/// `linear`: false for an embedding, which Quark quantizes only when a layer_quant_config key
/// names it (never with the global config).
std::optional<nlohmann::ordered_json> quarkResolve(const nlohmann::ordered_json &quantizationConfig,
                                                   const std::string &module, bool linear = true);
/// The compressed-tensors config group name that applies to the Linear `module`, or nullopt when
/// ignored or matched by no target.
/// `linear`: false for a module that is not an nn.Linear (class targets such as `Linear` do not
/// match it; names still do). One-off convenience over CtResolver.
std::optional<std::string> ctResolve(const nlohmann::json &quantizationConfig, const std::string &module,
                                     bool linear = true);

/// compressed-tensors' resolution of many modules under one config: the targets are merged,
/// sorted and their regexes compiled once.
class CtResolver {
public:
    explicit CtResolver(const nlohmann::json &quantizationConfig);
    std::optional<std::string> resolve(const std::string &module, bool linear = true) const;

private:
    struct Target {
        std::string text, group;
        std::optional<std::regex> re; ///< `re:` targets, compiled
        bool matches(const std::string &module) const;
    };
    static Target makeTarget(std::string text, std::string group);
    std::vector<Target> m_ignore, m_targets; ///< m_targets in the toolkit's order
};

} // namespace quantscope
