// SPDX-License-Identifier: MIT
// Recipe → compressed-tensors `quantization_config` (keys and values as in
// tests/interop/golden/ct_*/config.json, written by compressed-tensors 0.20). Mapping
// (docs/formats.md "Exported configs"): one config group per distinct (weights, activations,
// format) in first-rule order; a catch-all rule targets "Linear", other rules anchored `re:`
// regexes (fnmatch translated, exact names escaped), per-module overrides the exact name;
// exclude → ignore (exact names as they are, patterns as `re:`).
#include <algorithm>
#include <variant>

#include "export/config_export.h"
#include "util/error.h"

namespace quantscope {

using nlohmann::json;
using namespace exportdetail;

namespace {

json ctArgs(int bits, const char *type, bool symmetric, const char *strategy, json groupSize)
{
    return json{{"dynamic", false},       {"group_size", std::move(groupSize)},
                {"num_bits", bits},       {"strategy", strategy},
                {"symmetric", symmetric}, {"type", type}};
}

struct CtScheme {
    json weights;
    std::string format;
};

CtScheme ctScheme(const QuantSpec &spec, const ExportOptions &options, const std::string &where)
{
    // GPTQ and AWQ choose codes (and AWQ a smoothing) but store ordinary INT weights.
    if (const auto *g = std::get_if<GptqSpec>(&spec)) // its target's scheme (INT, FP8, NVFP4, MXFP4)
        return ctScheme(gptqTargetSpec(*g), options, where);
    if (const auto *a = std::get_if<AwqSpec>(&spec))
        return ctScheme(QuantSpec{a->quant}, options, where);
    if (const auto *s = std::get_if<IntSpec>(&spec)) {
        if (options.ctIntFormat != "pack-quantized" && options.ctIntFormat != "int-quantized")
            throw UnsupportedError("compressed-tensors INT format '" + options.ctIntFormat +
                                   "' — pack-quantized or int-quantized");
        if (s->rounding != Rounding::HalfEven)
            throw UnsupportedError(where + ": rounding half_away — compressed-tensors rounds half to even");
        if (s->scaleDtype == ScaleDType::E8M0)
            throw UnsupportedError(where + ": E8M0 scales — compressed-tensors' integer schemes store float scales");
        CtScheme c{json(), options.ctIntFormat};
        switch (s->granularity) {
        case Granularity::Tensor:
            c.weights = ctArgs(s->bits, "int", s->symmetric, "tensor", nullptr);
            break;
        case Granularity::Channel:
            if (s->axis != 0)
                throw UnsupportedError(where +
                                       ": channel axis 1 — compressed-tensors' channel strategy is per output row");
            c.weights = ctArgs(s->bits, "int", s->symmetric, "channel", nullptr);
            break;
        case Granularity::Group:
            c.weights = ctArgs(s->bits, "int", s->symmetric, "group", s->group);
            break;
        case Granularity::Block:
            c.weights = ctArgs(s->bits, "int", s->symmetric, "block", nullptr);
            c.weights["block_structure"] = json::array({s->block, s->block});
            break;
        }
        return c;
    }
    if (const auto *s = std::get_if<Fp8Spec>(&spec)) {
        if (s->format != Fp8Format::E4M3)
            throw UnsupportedError(where + ": FP8 E5M2 — compressed-tensors' float8 is E4M3");
        CtScheme c{json(), "float-quantized"};
        if (s->granularity == Granularity::Tensor)
            c.weights = ctArgs(8, "float", true, "tensor", nullptr);
        else if (s->granularity == Granularity::Channel)
            c.weights = ctArgs(8, "float", true, "channel", nullptr);
        else {
            c.weights = ctArgs(8, "float", true, "block", nullptr);
            c.weights["block_structure"] = json::array({s->block, s->block});
        }
        return c;
    }
    if (const auto *s = std::get_if<NvFp4Spec>(&spec)) {
        if (s->group != 16)
            throw UnsupportedError(where + ": NVFP4 group " + std::to_string(s->group) +
                                   " — compressed-tensors' NVFP4 has 16-element groups");
        json w = ctArgs(4, "float", true, "tensor_group", 16);
        w["scale_dtype"] = "torch.float8_e4m3fn"; // as compressed-tensors 0.20 writes it
        return {w, "nvfp4-pack-quantized"};
    }
    if (const auto *s = std::get_if<MxFp4Spec>(&spec)) {
        if (s->group != 32)
            throw UnsupportedError(where + ": MXFP4 group " + std::to_string(s->group) +
                                   " — compressed-tensors' MXFP4 has 32-element blocks");
        return {ctArgs(4, "float", true, "group", 32), "mxfp4-pack-quantized"};
    }
    const std::string m = methodOf(spec);
    std::string why;
    if (m == "milo")
        why = "MiLo's low-rank compensators (milo_U, milo_V) have no compressed-tensors scheme";
    else if (m == "hqq")
        why = "HQQ's float zero points have no compressed-tensors scheme (its zero points are integers)";
    else if (m == "progressive")
        why = "compressed-tensors has no two-stage (ProgressiveSpec) scheme; export it to Quark";
    else
        why = "constOpt's fixed-constant codebook has no compressed-tensors scheme";
    throw UnsupportedError(where + ": method '" + m + "' — " + why);
}

json ctInput(const ExportOptions &o, const CtScheme &w, const std::string &where)
{
    if (o.activations == ActivationScheme::None)
        return nullptr;
    if (w.format != "float-quantized")
        throw UnsupportedError(where + ": FP8 activations with " + w.weights["type"].get<std::string>() + " " +
                               std::to_string(w.weights["num_bits"].get<int>()) +
                               "-bit weights — this exporter writes FP8 activations for FP8 weights only");
    json a = ctArgs(8, "float", true, "tensor", nullptr);
    if (o.activations == ActivationScheme::Fp8Dynamic) {
        a["dynamic"] = true;
        a["strategy"] = "token";
    }
    return a;
}

std::string ctTarget(PatternDialect d, const std::string &p)
{
    switch (d) {
    case PatternDialect::Exact:
        return p;
    case PatternDialect::Fnmatch:
        return "re:" + fnmatchToRegex(p);
    case PatternDialect::Re: {
        if (p.find('|') != std::string::npos)
            return "re:^(?:" + p + ")$";
        const bool head = !p.empty() && p.front() == '^';
        const bool tail = !p.empty() && p.back() == '$' && (p.size() < 2 || p[p.size() - 2] != '\\');
        return "re:" + std::string(head ? "" : "^") + p + (tail ? "" : "$");
    }
    }
    return p;
}

/// A pattern as an unanchored regex body (for a lookahead listing earlier rules).
std::string regexBody(PatternDialect d, const std::string &p)
{
    switch (d) {
    case PatternDialect::Exact:
        return escapeRegex(p);
    case PatternDialect::Fnmatch: {
        const std::string r = fnmatchToRegex(p);
        return r.substr(1, r.size() - 2);
    }
    case PatternDialect::Re: {
        std::string b = p;
        if (!b.empty() && b.front() == '^')
            b.erase(0, 1);
        if (!b.empty() && b.back() == '$' && (b.size() < 2 || b[b.size() - 2] != '\\'))
            b.pop_back();
        return "(?:" + b + ")";
    }
    }
    return p;
}

const QuantSpec &oneSpec(const std::vector<QuantSpec> &specs, const std::string &where)
{
    if (specs.size() != 1)
        throw UnsupportedError(where + " has " + std::to_string(specs.size()) +
                               " specs (candidates a scan compares); an export needs the one chosen");
    return specs.front();
}

} // namespace

json exportdetail::ctSchemeJson(const QuantSpec &spec, const ExportOptions &options, const std::string &where)
{
    const CtScheme s = ctScheme(spec, options, where);
    return json{{"format", s.format}, {"input_activations", ctInput(options, s, where)}, {"weights", s.weights}};
}

json compressedTensorsConfig(const Recipe &recipe, const ExportOptions &options, const std::vector<std::string> *)
{
    // compressed-tensors tries exact-name targets first, then regex targets in alphabetical
    // order, then class names (toolkit_rules.h ctResolve). The recipe's first-match order is kept
    // by construction: an exact name an earlier rule wins is not written for the later rule, and
    // a regex target that would sort before an earlier rule's regex gets a lookahead that
    // excludes every earlier rule's patterns, so that the order in which they are tried no
    // longer matters.
    struct Group {
        json weights, input;
        std::string format;
        std::vector<std::string> targets;
    };
    std::vector<Group> groups;
    std::vector<std::string> written; // every target written so far (one group per target)
    auto add = [&](const QuantSpec &spec, const std::string &where, std::vector<std::string> targets) {
        const CtScheme s = ctScheme(spec, options, where);
        const json in = ctInput(options, s, where);
        std::vector<std::string> fresh;
        for (auto &t : targets)
            if (std::find(written.begin(), written.end(), t) == written.end()) {
                written.push_back(t);
                fresh.push_back(t);
            }
        if (fresh.empty())
            return;
        for (Group &g : groups)
            if (g.weights == s.weights && g.input == in && g.format == s.format) {
                g.targets.insert(g.targets.end(), fresh.begin(), fresh.end());
                return;
            }
        groups.push_back({s.weights, in, s.format, std::move(fresh)});
    };
    std::vector<std::string> earlierBodies, earlierRegexTargets, earlierExact;
    int catchAll = -1;
    for (int i = 0; i < static_cast<int>(recipe.rules.size()); ++i) {
        const RecipeRule &rule = recipe.rules[static_cast<std::size_t>(i)];
        const std::string where = ruleLabel(recipe, i);
        if (catchAll >= 0)
            throw UnsupportedError(where + " comes after the catch-all " + ruleLabel(recipe, catchAll) +
                                   " and wins no module; remove it or move it first");
        std::vector<QuantSpec> specs;
        for (const auto &s : rule.specs)
            specs.push_back(parseQuantSpec(s));
        const QuantSpec &spec = oneSpec(specs, where);
        for (const auto &[module, o] : rule.overrides)
            if (auto ov = overriddenSpecs(recipe, i, module))
                add(oneSpec(*ov, where + " override " + module), where + " override " + module, {module});
        if (isCatchAll(rule)) {
            catchAll = i;
            add(spec, where, {"Linear"});
            continue;
        }
        std::vector<std::string> targets;
        for (const auto &p : rule.patterns) {
            if (rule.dialect == PatternDialect::Exact) {
                if (!earlierRuleMatches(recipe, i, p))
                    targets.push_back(p);
                continue;
            }
            std::string t = ctTarget(rule.dialect, p);
            const bool sortsEarly = std::any_of(earlierRegexTargets.begin(), earlierRegexTargets.end(),
                                                [&](const std::string &e) { return t < e; });
            if (sortsEarly) {
                std::string ahead;
                for (const auto &b : earlierBodies)
                    ahead += (ahead.empty() ? "" : "|") + b;
                for (const auto &x : earlierExact)
                    if (patternMatches(rule.dialect, p, x))
                        ahead += (ahead.empty() ? "" : "|") + escapeRegex(x);
                t = "re:^(?!(?:" + ahead + ")$)" + regexBody(rule.dialect, p) + "$";
            }
            targets.push_back(t);
        }
        for (const auto &t : targets)
            if (t.rfind("re:", 0) == 0)
                earlierRegexTargets.push_back(t);
        for (const auto &p : rule.patterns)
            (rule.dialect == PatternDialect::Exact ? earlierExact : earlierBodies)
                .push_back(rule.dialect == PatternDialect::Exact ? p : regexBody(rule.dialect, p));
        add(spec, where, targets);
    }
    if (groups.empty())
        throw UnsupportedError("the recipe has no rule: a compressed-tensors config needs at least one config group");
    json cg = json::object();
    std::string format = groups.front().format;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const Group &g = groups[i];
        if (g.format != format)
            format = "mixed-precision";
        cg["group_" + std::to_string(i)] = json{{"format", g.format},
                                                {"input_activations", g.input},
                                                {"output_activations", nullptr},
                                                {"targets", g.targets},
                                                {"weights", g.weights}};
    }
    json ignore = json::array();
    for (const auto &e : recipe.exclude)
        ignore.push_back(ctTarget(e.dialect, e.pattern));
    json q;
    q["config_groups"] = cg;
    q["format"] = format;
    q["global_compression_ratio"] = nullptr;
    q["ignore"] = ignore;
    q["kv_cache_scheme"] = nullptr;
    if (const auto strategy = kvCacheFp8Strategy(recipe, "compressed-tensors' kv_cache_scheme", true))
        q["kv_cache_scheme"] = ctArgs(8, "float", true, strategy->c_str(), nullptr);
    q["moe_sparsity_config"] = nullptr;
    q["quant_method"] = "compressed-tensors";
    q["quantization_status"] = "compressed";
    q["sparsity_config"] = json::object();
    q["transform_config"] = json::object();
    return q;
}

} // namespace quantscope
