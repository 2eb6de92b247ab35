// SPDX-License-Identifier: MIT
#include "export/toolkit_rules.h"

#include <algorithm>
#include <regex>

#include "export/config_export.h"
#include "util/glob.h"

namespace quantscope {

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
        const PatternDialect d = exportdetail::hasGlobMeta(p) ? PatternDialect::Fnmatch : PatternDialect::Exact;
        if (!has(p, d))
            r.exclude.push_back({p, d});
    }
    return r;
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
        if (!exportdetail::hasGlobMeta(module) && layers.contains(module))
            return layers[module];
        for (const auto &[pattern, layer] : layers.items())
            if (globMatch(pattern, module))
                return layer;
    }
    if (!linear)
        return std::nullopt;
    return q.value("global_quant_config", nlohmann::ordered_json());
}

CtResolver::Target CtResolver::makeTarget(std::string text, std::string group)
{
    Target t{std::move(text), std::move(group), std::nullopt};
    if (t.text.rfind("re:", 0) == 0)
        t.re.emplace(t.text.substr(3), std::regex::ECMAScript);
    return t;
}

bool CtResolver::Target::matches(const std::string &module) const
{
    // Python's re.match: anchored at the start only.
    return re ? std::regex_search(module, *re, std::regex_constants::match_continuous) : text == module;
}

CtResolver::CtResolver(const nlohmann::json &q)
{
    if (q.contains("ignore") && q["ignore"].is_array())
        for (const auto &t : q["ignore"])
            if (t.is_string())
                m_ignore.push_back(makeTarget(t.get<std::string>(), ""));
    // target → group, later groups overwriting (Python's dict assignment), then sorted by
    // (is a regex, text).
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
    for (auto &[t, g] : targets)
        m_targets.push_back(makeTarget(std::move(t), std::move(g)));
}

std::optional<std::string> CtResolver::resolve(const std::string &module, bool linear) const
{
    for (const Target &t : m_ignore)
        if (t.matches(module) || (linear && t.text == "Linear"))
            return std::nullopt;
    for (const Target &t : m_targets)
        if (t.matches(module))
            return t.group;
    for (const Target &t : m_targets)
        if (linear && t.text == "Linear")
            return t.group;
    return std::nullopt;
}

std::optional<std::string> ctResolve(const nlohmann::json &q, const std::string &module, bool linear)
{
    return CtResolver(q).resolve(module, linear);
}

} // namespace quantscope
