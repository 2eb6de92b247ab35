// SPDX-License-Identifier: MIT
#pragma once
/// \file recipe.h
/// A quantization recipe: which quantizer spec(s) each module of a checkpoint gets. Ordered rules
/// `patterns → specs`, the first matching rule wins, an `exclude` list wins over every rule,
/// per-module overrides of a rule's specs (rank, c, bits), free metadata. Semantics and the JSON
/// schema ("quantscope_recipe": 1): docs/formats.md "Recipes".
///
/// Patterns match module names (a tensor name without its last component: the module of
/// `model.layers.0.mlp.up_proj.weight` is `model.layers.0.mlp.up_proj`), in one of three
/// dialects per rule: `fnmatch` (Quark: util/glob.h, the whole name), `re` (compressed-tensors'
/// `re:` targets: a Python regex matched against the whole name, run with std::regex ECMAScript;
/// constructs ECMAScript would read differently are refused), `exact`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/quant_spec.h"

namespace quantscope {

enum class PatternDialect : std::uint8_t { Fnmatch, Re, Exact };
/// "fnmatch", "re", "exact".
std::string_view toString(PatternDialect d) noexcept;

/// The fields a per-module override may set (each applies to the rule's specs that have it).
struct SpecOverride {
    std::optional<int> bits;
    std::optional<int> rank;
    std::optional<double> c;
    bool operator==(const SpecOverride &) const = default;
};

struct RecipeRule {
    std::string name;                  ///< optional label ("" when absent)
    std::vector<std::string> patterns; ///< at least one
    PatternDialect dialect = PatternDialect::Fnmatch;
    std::vector<nlohmann::json> specs; ///< full spec JSON (toJson of the parsed spec), ≥ 1
    /// Exact module name → override, in name order.
    std::vector<std::pair<std::string, SpecOverride>> overrides;
    bool operator==(const RecipeRule &) const = default;
};

struct RecipeExclude {
    std::string pattern;
    PatternDialect dialect = PatternDialect::Fnmatch;
    bool operator==(const RecipeExclude &) const = default;
};

/// Layers [first, last] (the model's attention-layer indices, inclusive) with their own K/V schemes.
struct RecipeKvRange {
    int first = 0, last = 0;
    std::string k, v;
    bool operator==(const RecipeKvRange &) const = default;
};

/// The KV-cache section: the KV lab's scheme names (core/kv/kv_schemes.h) for K and V, boundary
/// protection (the first and last `boundary` layers in BF16) and per-range overrides (a later
/// range wins over an earlier one and over the boundary).
struct RecipeKvCache {
    std::string k = "fp8", v = "fp8";
    int boundary = 0;
    std::optional<int> layers; ///< the model's attention layers; required when boundary > 0
    std::vector<RecipeKvRange> ranges;
    bool operator==(const RecipeKvCache &) const = default;
    /// K and V scheme names of one layer.
    std::pair<std::string, std::string> schemesOf(int layer) const;
    /// Whether every layer gets the same K and V schemes (then `schemesOf(0)`); without `layers`
    /// only a section with no boundary and no ranges is uniform.
    bool uniform() const;
};

struct Recipe {
    static constexpr int kVersion = 1;
    std::vector<RecipeRule> rules;
    std::vector<RecipeExclude> exclude;
    std::optional<RecipeKvCache> kvCache; ///< `kv_cache` (absent: the KV cache is not quantized)
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    bool operator==(const Recipe &) const = default;

    /// Strict parse: unknown keys, wrong types, a missing or other version, empty pattern or
    /// spec lists, specs that do not parse, regexes that do not compile or use a refused
    /// construct, overrides naming a field no spec of the rule has — each refused with a
    /// FormatError whose message names the JSON path (e.g. `rules[1].specs[0].bits`).
    static Recipe fromJson(const nlohmann::ordered_json &j);
    /// Reads and parses a file (UTF-8, duplicate keys refused); errors name the file.
    static Recipe load(const std::string &path);
    /// The canonical JSON: every key written, in schema order; fromJson(toJson()) == *this.
    nlohmann::ordered_json toJson() const;
    /// toJson().dump(2) + "\n": the bytes `save` writes and `hash` digests.
    std::string text() const;
    /// Writes text() atomically (temp file + rename).
    void save(const std::string &path) const;
    /// 16 hex digits (FNV-1a 64 of text()): the resume key's recipe part.
    std::string hash() const;

    /// The recipe used when none is given: every module, one INT4 group-128 symmetric spec
    /// (IntSpec's defaults, as `quantize --method int` runs).
    static Recipe defaults();
    /// A copy whose every rule runs `specs` instead of its own (CLI `scan --specs`); overrides
    /// whose fields no new spec has are dropped.
    Recipe withSpecs(const std::vector<QuantSpec> &specs) const;
};

/// Whether one pattern of a dialect matches a module name (whole-name match in every dialect).
/// Throws FormatError for a regex that does not compile or uses a refused construct.
bool patternMatches(PatternDialect dialect, const std::string &pattern, std::string_view module);
/// Refuses (FormatError naming the construct and its offset) a Python regex std::regex's
/// ECMAScript grammar would read differently: lookbehind, named groups `(?P<…>`, inline flags
/// `(?i)`, atomic groups, `\A` `\Z` `\z`, possessive quantifiers.
void checkRegexSubset(const std::string &pattern);

/// The module of a tensor name: without its last `.`-component (`a.b.weight` → `a.b`).
std::string moduleOf(std::string_view tensorName);

/// How a recipe treats one module.
struct RecipeMatch {
    bool excluded = false;
    int excludeIndex = -1;        ///< which exclude entry, when excluded
    int rule = -1;                ///< the winning rule (-1: no rule matched, or excluded)
    int pattern = -1;             ///< which of that rule's patterns matched first
    std::vector<int> alsoMatched; ///< later rules that match too (overlaps; the first wins)
    std::vector<QuantSpec> specs; ///< the winning rule's specs with the module's override applied
    std::string why;              ///< one line: "rule 2 'experts' pattern 're:…' (first match)" etc.
    bool matched() const { return rule >= 0 && !excluded; }
};

/// Resolves one module. Throws FormatError if an override makes a spec invalid.
RecipeMatch matchModule(const Recipe &recipe, const std::string &module);

} // namespace quantscope
