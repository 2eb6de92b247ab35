// SPDX-License-Identifier: MIT
#pragma once
/// \file recipe_check.h
/// The questions a recipe can be asked against a list of module names (`quantscope-cli recipe
/// check`, the scan's header): how each module resolves and why, modules no rule matches, rules
/// that win no module, overlaps (several rules match, the first wins), fusion groups whose
/// members get unequal specs, and regexes whose unescaped dots match more than intended.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipe/recipe.h"

namespace quantscope {

struct RecipeCheck {
    struct Module {
        std::string module;
        RecipeMatch match;
    };
    std::vector<Module> modules;        ///< every module given, in the order given
    std::vector<std::string> unmatched; ///< neither excluded nor matched by a rule
    std::vector<std::string> excluded;
    struct UnusedRule {
        int rule = -1;
        int matches = 0; ///< modules it matches at all (all won by earlier rules or excluded)
    };
    std::vector<UnusedRule> unusedRules; ///< rules that win no module
    std::vector<int> unusedExcludes;     ///< exclude entries that match no module
    struct Overlap {
        std::string module;
        int winner = -1;
        std::vector<int> others;
    };
    std::vector<Overlap> overlaps;
    /// q/k/v of one attention, gate/up of one MLP, one projection of the experts of one layer:
    /// members that would be fused at inference but resolve to different specs (or some not
    /// quantized at all).
    struct FusionWarning {
        std::string group; ///< "model.layers.0.self_attn.{q,k,v}_proj"
        std::vector<std::string> members;
        std::string message;
    };
    std::vector<FusionWarning> fusion;
    struct RegexWarning {
        std::string where; ///< "rules[2].patterns[0]" or "exclude[1]"
        std::string pattern;
        std::string example; ///< a name it matches that the dot-as-literal reading would not ("" none known)
        std::string message;
    };
    std::vector<RegexWarning> regex;

    /// {"modules":[{"module","status","rule","pattern","also","why","specs"}],"unmatched",
    ///  "excluded","unused_rules","unused_excludes","overlaps","fusion_warnings","regex_warnings"}
    nlohmann::ordered_json toJson(const Recipe &recipe) const;
};

/// Runs every query of `recipe` over `modules` (module names, not tensor names).
RecipeCheck checkRecipe(const Recipe &recipe, const std::vector<std::string> &modules);

/// The fusion group of a module ("" when none): `X.self_attn.{q,k,v}_proj` → `X.{q,k,v}_proj`,
/// `X.{gate,up}_proj` → `X.{gate,up}_proj`, `X.experts.N.P` → `X.experts.*.P`.
std::string fusionGroupOf(const std::string &module);

/// The members a serving engine fuses into one layer, which must share one NVFP4 global scale
/// (and one scheme): `X.{q,k,v}_proj` → "X.qkv_proj", `X.{gate,up}_proj` → "X.gate_up_proj",
/// `X.{w1,w3}` → "X.w13"; "" for others.
std::string sharedScaleGroupOf(const std::string &module);

/// The pattern with every unescaped '.' that is not followed by a quantifier read as a literal
/// dot (`\.`); equal to the pattern when it has none.
std::string literalDots(const std::string &pattern);

} // namespace quantscope
