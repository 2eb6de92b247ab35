// SPDX-License-Identifier: MIT
// Recipe queries over a module list (recipe_check.h).
#include "recipe/recipe_check.h"

#include <cctype>
#include <map>
#include <regex>

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;

bool endsWith(const std::string &s, const std::string &t)
{
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

/// The pattern as the literal text it means, when it is nothing but literal characters, escaped
/// punctuation and bare dots; "" otherwise.
std::string literalText(const std::string &p, bool &hasBareDot)
{
    std::string out;
    hasBareDot = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            if (i + 1 >= p.size())
                return "";
            const char n = p[++i];
            if (std::isalnum(static_cast<unsigned char>(n)))
                return ""; // \d, \w, …: a class, not a literal
            out += n;
            continue;
        }
        if (std::string_view("^$*+?{}[]()|").find(c) != std::string_view::npos)
            return "";
        if (c == '.')
            hasBareDot = true;
        out += c;
    }
    return out;
}

} // namespace

std::string literalDots(const std::string &p)
{
    std::string out;
    bool inClass = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
            out += c;
            out += p[++i];
            continue;
        }
        if (inClass) {
            inClass = c != ']';
            out += c;
            continue;
        }
        if (c == '[') {
            inClass = true;
            out += c;
            continue;
        }
        const char next = i + 1 < p.size() ? p[i + 1] : '\0';
        if (c == '.' && next != '*' && next != '+' && next != '?' && next != '{')
            out += "\\.";
        else
            out += c;
    }
    return out;
}

std::string fusionGroupOf(const std::string &m)
{
    static const std::regex experts(R"(^(.*\.experts)\.(\d+)\.([^.]+)$)");
    std::smatch sm;
    if (std::regex_match(m, sm, experts))
        return sm[1].str() + ".*." + sm[3].str();
    for (const char *p : {".q_proj", ".k_proj", ".v_proj"})
        if (endsWith(m, p))
            return m.substr(0, m.size() - 7) + ".{q,k,v}_proj";
    for (const char *p : {".gate_proj", ".up_proj"})
        if (endsWith(m, p))
            return m.substr(0, m.size() - std::string(p).size()) + ".{gate,up}_proj";
    return "";
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

RecipeCheck checkRecipe(const Recipe &recipe, const std::vector<std::string> &modules)
{
    RecipeCheck c;
    std::vector<int> wins(recipe.rules.size(), 0), any(recipe.rules.size(), 0);
    std::vector<int> excludeHits(recipe.exclude.size(), 0);
    std::map<std::string, std::vector<std::size_t>> groups; // group → module indices
    std::vector<std::string> groupOrder;
    for (const auto &module : modules) {
        RecipeCheck::Module m{module, matchModule(recipe, module)};
        const RecipeMatch &r = m.match;
        if (r.excluded) {
            c.excluded.push_back(module);
            ++excludeHits[static_cast<std::size_t>(r.excludeIndex)];
        } else if (r.rule < 0) {
            c.unmatched.push_back(module);
        } else {
            ++wins[static_cast<std::size_t>(r.rule)];
            if (!r.alsoMatched.empty())
                c.overlaps.push_back({module, r.rule, r.alsoMatched});
        }
        // Rules matching at all (an excluded module still counts as matched by them).
        for (std::size_t i = 0; i < recipe.rules.size(); ++i)
            for (const auto &p : recipe.rules[i].patterns)
                if (patternMatches(recipe.rules[i].dialect, p, module)) {
                    ++any[i];
                    break;
                }
        const std::string g = fusionGroupOf(module);
        if (!g.empty()) {
            if (!groups.count(g))
                groupOrder.push_back(g);
            groups[g].push_back(c.modules.size());
        }
        c.modules.push_back(std::move(m));
    }
    for (std::size_t i = 0; i < recipe.rules.size(); ++i)
        if (wins[i] == 0)
            c.unusedRules.push_back({static_cast<int>(i), any[i]});
    for (std::size_t i = 0; i < recipe.exclude.size(); ++i)
        if (excludeHits[i] == 0)
            c.unusedExcludes.push_back(static_cast<int>(i));

    auto specsText = [&](const RecipeMatch &r) {
        if (!r.matched())
            return std::string(r.excluded ? "excluded" : "not quantized");
        std::string s;
        for (const auto &spec : r.specs)
            s += toJson(spec).dump();
        return s;
    };
    for (const auto &g : groupOrder) {
        const auto &idx = groups[g];
        if (idx.size() < 2)
            continue;
        const std::string first = specsText(c.modules[idx[0]].match);
        std::string odd;
        for (const auto i : idx)
            if (specsText(c.modules[i].match) != first && odd.empty())
                odd = c.modules[i].module;
        if (odd.empty())
            continue;
        RecipeCheck::FusionWarning w;
        w.group = g;
        for (const auto i : idx)
            w.members.push_back(c.modules[i].module);
        w.message = "fused at inference but resolved to unequal specs: " + c.modules[idx[0]].module + " (" +
                    c.modules[idx[0]].match.why + ") vs " + odd;
        c.fusion.push_back(std::move(w));
    }

    auto checkRegex = [&](const std::string &where, PatternDialect d, const std::string &p) {
        if (d != PatternDialect::Re)
            return;
        const std::string lit = literalDots(p);
        if (lit == p)
            return;
        RecipeCheck::RegexWarning w{where, p, "", ""};
        for (const auto &m : modules)
            if (patternMatches(d, p, m) && !patternMatches(d, lit, m)) {
                w.example = m;
                break;
            }
        bool bare = false;
        const std::string text = literalText(p, bare);
        if (w.example.empty() && bare && !text.empty()) {
            // A pure literal with bare dots: the first dot replaced by another character still
            // matches.
            std::string e = text;
            const auto dot = e.find('.');
            e[dot] = e[dot] == 'X' ? 'Y' : 'X';
            if (patternMatches(d, p, e))
                w.example = e;
        }
        w.message = "unescaped '.' matches any character" +
                    (w.example.empty() ? std::string(" (write '\\.' for a dot)")
                                       : ", e.g. '" + w.example + "' (write '\\.' for a dot)");
        c.regex.push_back(std::move(w));
    };
    for (std::size_t i = 0; i < recipe.rules.size(); ++i)
        for (std::size_t p = 0; p < recipe.rules[i].patterns.size(); ++p)
            checkRegex("rules[" + std::to_string(i) + "].patterns[" + std::to_string(p) + "]", recipe.rules[i].dialect,
                       recipe.rules[i].patterns[p]);
    for (std::size_t i = 0; i < recipe.exclude.size(); ++i)
        checkRegex("exclude[" + std::to_string(i) + "]", recipe.exclude[i].dialect, recipe.exclude[i].pattern);
    return c;
}

ojson RecipeCheck::toJson(const Recipe &recipe) const
{
    ojson j;
    ojson mods = ojson::array();
    for (const auto &m : modules) {
        ojson mj;
        mj["module"] = m.module;
        mj["status"] = m.match.excluded ? "excluded" : m.match.rule < 0 ? "unmatched" : "matched";
        mj["rule"] = m.match.rule;
        mj["pattern"] = m.match.pattern;
        mj["also"] = m.match.alsoMatched;
        mj["why"] = m.match.why;
        ojson specs = ojson::array();
        for (const auto &s : m.match.specs)
            specs.push_back(ojson::parse(quantscope::toJson(s).dump()));
        mj["specs"] = specs;
        mods.push_back(mj);
    }
    j["modules"] = mods;
    j["unmatched"] = unmatched;
    j["excluded"] = excluded;
    ojson unused = ojson::array();
    for (const auto &u : unusedRules)
        unused.push_back(
            {{"rule", u.rule}, {"name", recipe.rules[static_cast<std::size_t>(u.rule)].name}, {"matches", u.matches}});
    j["unused_rules"] = unused;
    j["unused_excludes"] = unusedExcludes;
    ojson ov = ojson::array();
    for (const auto &o : overlaps)
        ov.push_back({{"module", o.module}, {"winner", o.winner}, {"others", o.others}});
    j["overlaps"] = ov;
    ojson fw = ojson::array();
    for (const auto &f : fusion)
        fw.push_back({{"group", f.group}, {"members", f.members}, {"message", f.message}});
    j["fusion_warnings"] = fw;
    ojson rw = ojson::array();
    for (const auto &r : regex)
        rw.push_back({{"where", r.where}, {"pattern", r.pattern}, {"example", r.example}, {"message", r.message}});
    j["regex_warnings"] = rw;
    return j;
}

} // namespace quantscope
