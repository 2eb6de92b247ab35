// SPDX-License-Identifier: MIT
#include "export/toolkit_rules.h"

#include <algorithm>
#include <regex>

#include "export/config_export.h"
#include "util/glob.h"

namespace quantscope {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lastComponent(const std::string &m)
{
    const auto dot = m.rfind('.');
    return dot == std::string::npos ? m : m.substr(dot + 1);
}

bool hasGlobMeta(const std::string &p)
{
    return p.find_first_of("*?[") != std::string::npos;
}

} // namespace

const std::vector<std::string> &defaultExcludePatterns()
{
    // Embeddings need no entry: compressed-tensors targets Linear layers and Quark quantizes an
    // embedding only when a layer_quant_config pattern names it.
    static const std::vector<std::string> p{"lm_head", "*.mlp.gate", "*.block_sparse_moe.gate", "*.shared_expert_gate",
                                            "*.router"};
    return p;
}

Recipe withDefaultExcludes(const Recipe &recipe, const std::vector<std::pair<std::string, Shape>> *modules)
{
    Recipe r = recipe;
    auto has = [&](const std::string &p, PatternDialect d) {
        return std::any_of(r.exclude.begin(), r.exclude.end(),
                           [&](const RecipeExclude &e) { return e.pattern == p && e.dialect == d; });
    };
    if (modules) {
        for (const auto &[m, shape] : *modules) {
            if (shape.size() != 2 || defaultExcludeReason(m, shape).empty())
                continue;
            const RecipeMatch hit = matchModule(r, m);
            if (!hit.matched())
                continue;
            if (isEmbeddingModule(m) && exportdetail::isCatchAll(r.rules[static_cast<std::size_t>(hit.rule)]))
                continue; // no toolkit applies its catch-all to an embedding
            r.exclude.push_back({m, PatternDialect::Exact});
        }
        return r;
    }
    for (const auto &p : defaultExcludePatterns()) {
        const PatternDialect d = hasGlobMeta(p) ? PatternDialect::Fnmatch : PatternDialect::Exact;
        if (!has(p, d))
            r.exclude.push_back({p, d});
    }
    return r;
}

std::string sharedScaleGroupOf(const std::string &module)
{
    for (const char *p : {".q_proj", ".k_proj", ".v_proj"})
        if (endsWith(module, p))
            return module.substr(0, module.size() - 7) + ".qkv_proj";
    for (const char *p : {".gate_proj", ".up_proj"})
        if (endsWith(module, p))
            return module.substr(0, module.size() - std::string_view(p).size()) + ".gate_up_proj";
    for (const char *p : {".w1", ".w3"})
        if (endsWith(module, p))
            return module.substr(0, module.size() - 3) + ".w13";
    return "";
}

bool pythonReMatch(const std::string &pattern, const std::string &name)
{
    const std::regex re(pattern, std::regex::ECMAScript);
    return std::regex_search(name, re, std::regex_constants::match_continuous);
}

std::optional<nlohmann::ordered_json> quarkResolve(const nlohmann::ordered_json &q, const std::string &module,
                                                   bool linear)
{
    if (q.contains("exclude") && q["exclude"].is_array())
        for (const auto &p : q["exclude"])
            if (p.is_string() && globMatch(p.get<std::string>(), module))
                return std::nullopt;
    if (q.contains("layer_quant_config") && q["layer_quant_config"].is_object()) {
        const auto &layers = q["layer_quant_config"];
        if (!hasGlobMeta(module) && layers.contains(module))
            return layers[module];
        for (const auto &[pattern, layer] : layers.items())
            if (globMatch(pattern, module))
                return layer;
    }
    if (!linear)
        return std::nullopt;
    return q.value("global_quant_config", nlohmann::ordered_json());
}

std::optional<std::string> ctResolve(const nlohmann::json &q, const std::string &module, bool linear)
{
    auto nameMatches = [&](const std::string &target) {
        return target.rfind("re:", 0) == 0 ? pythonReMatch(target.substr(3), module) : target == module;
    };
    if (q.contains("ignore") && q["ignore"].is_array())
        for (const auto &t : q["ignore"])
            if (t.is_string() && (nameMatches(t.get<std::string>()) || (linear && t == "Linear")))
                return std::nullopt;
    // target → group, later groups overwriting (Python's dict assignment), then sorted.
    std::vector<std::pair<std::string, std::string>> targets;
    if (q.contains("config_groups") && q["config_groups"].is_object())
        for (const auto &[group, g] : q["config_groups"].items())
            for (const auto &t : g.value("targets", nlohmann::json::array())) {
                const std::string s = t.get<std::string>();
                auto it = std::find_if(targets.begin(), targets.end(), [&](const auto &e) { return e.first == s; });
                if (it != targets.end())
                    it->second = group;
                else
                    targets.emplace_back(s, group);
            }
    std::sort(targets.begin(), targets.end(), [](const auto &a, const auto &b) {
        const bool ra = a.first.find("re:") != std::string::npos, rb = b.first.find("re:") != std::string::npos;
        return ra != rb ? rb : a.first < b.first;
    });
    for (const auto &[t, g] : targets)
        if (nameMatches(t))
            return g;
    for (const auto &[t, g] : targets)
        if (linear && t == "Linear")
            return g;
    return std::nullopt;
}

} // namespace quantscope
