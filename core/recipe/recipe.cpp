// SPDX-License-Identifier: MIT
// Recipes (recipe.h): strict JSON parse, canonical writing, pattern matching, module resolution.
#include "recipe/recipe.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "io/json_strict.h"
#include "kv/kv_schemes.h"
#include "util/error.h"
#include "util/glob.h"
#include "util/hash.h"

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string &path, const std::string &msg)
{
    throw FormatError("recipe " + (path.empty() ? std::string("(top)") : path) + ": " + msg);
}

const ojson &member(const ojson &j, const std::string &path, const char *key)
{
    if (!j.contains(key))
        fail(path, std::string("missing \"") + key + "\"");
    return j.at(key);
}

void refuseUnknown(const ojson &j, const std::string &path, std::initializer_list<const char *> keys)
{
    if (!j.is_object())
        fail(path, "must be an object");
    for (const auto &[k, v] : j.items()) {
        bool known = false;
        for (const char *key : keys)
            known = known || k == key;
        if (!known) {
            std::string list;
            for (const char *key : keys)
                list += std::string(list.empty() ? "" : ", ") + key;
            fail(path.empty() ? k : path + "." + k, "unknown key (known: " + list + ")");
        }
    }
}

std::string stringAt(const ojson &v, const std::string &path)
{
    if (!v.is_string())
        fail(path, "must be a string");
    return v.get<std::string>();
}

PatternDialect parseDialect(const ojson &v, const std::string &path)
{
    const std::string s = stringAt(v, path);
    if (s == "fnmatch")
        return PatternDialect::Fnmatch;
    if (s == "re")
        return PatternDialect::Re;
    if (s == "exact")
        return PatternDialect::Exact;
    fail(path, "'" + s + "' is not a dialect (fnmatch, re, exact)");
}

void checkPattern(PatternDialect d, const std::string &p, const std::string &path)
{
    if (p.empty())
        fail(path, "empty pattern");
    if (d != PatternDialect::Re)
        return;
    try {
        patternMatches(d, p, "");
    } catch (const Error &e) {
        fail(path, e.message());
    }
}

nlohmann::json plain(const ojson &j)
{
    return nlohmann::json::parse(j.dump());
}
ojson ordered(const nlohmann::json &j)
{
    return ojson::parse(j.dump());
}

/// Applies an override to one spec JSON: each set field the spec has; parse validates it.
nlohmann::json applyOverride(nlohmann::json spec, const SpecOverride &o)
{
    if (o.bits && spec.contains("bits"))
        spec["bits"] = *o.bits;
    if (o.rank && spec.contains("rank"))
        spec["rank"] = *o.rank;
    if (o.c && spec.contains("c"))
        spec["c"] = *o.c;
    return spec;
}

const std::regex &compiled(const std::string &pattern)
{
    static std::mutex mutex;
    static std::map<std::string, std::regex, std::less<>> cache;
    const std::lock_guard lock(mutex);
    auto it = cache.find(pattern);
    if (it == cache.end()) {
        checkRegexSubset(pattern);
        try {
            it = cache.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
        } catch (const std::regex_error &e) {
            throw FormatError("regex '" + pattern + "' does not compile: " + e.what());
        }
    }
    return it->second;
}

} // namespace

std::string_view toString(PatternDialect d) noexcept
{
    switch (d) {
    case PatternDialect::Fnmatch:
        return "fnmatch";
    case PatternDialect::Re:
        return "re";
    case PatternDialect::Exact:
        return "exact";
    }
    return "fnmatch";
}

void checkRegexSubset(const std::string &p)
{
    // The subset: docs/formats.md "Recipes".
    auto refuse = [&](std::size_t at, const std::string &what) {
        throw FormatError("regex '" + p + "': " + what + " at offset " + std::to_string(at) +
                          " is not in the supported subset (std::regex ECMAScript; see the recipe "
                          "section of the formats documentation)");
    };
    bool inClass = false;
    // libstdc++'s regex compiler reads a number in a {m,n} count or after a backslash into a long
    // without an overflow check (undefined behaviour; a fuzz finding, docs/reliability.md): the
    // subset allows counts up to 1000 and escapes of at most 3 digits.
    auto digitsAt = [&](std::size_t j) {
        std::size_t k = j;
        while (k < p.size() && p[k] >= '0' && p[k] <= '9')
            ++k;
        return k - j;
    };
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size() && digitsAt(i + 1) > 3)
            refuse(i, "an escape with more than 3 digits");
        if (c == '{' && !inClass) {
            for (std::size_t j = i + 1; j < p.size() && p[j] != '}'; ++j) {
                const std::size_t n = digitsAt(j);
                if (n > 4 || (n > 0 && std::stoi(p.substr(j, n)) > 1000))
                    refuse(i, "a repetition count above 1000");
                j += n > 0 ? n - 1 : 0;
            }
        }
        if (c == '\\') {
            if (i + 1 < p.size() && !inClass) {
                const char n = p[i + 1];
                if (n == 'A' || n == 'Z' || n == 'z')
                    refuse(i, std::string("\\") + n);
            }
            ++i;
            continue;
        }
        if (inClass) {
            if (c == ']')
                inClass = false;
            continue;
        }
        if (c == '[') {
            inClass = true;
            // A ']' right after '[' or '[^' is a member in Python, the end of an empty class in
            // ECMAScript: refused as ambiguous.
            std::size_t q = i + 1;
            if (q < p.size() && p[q] == '^')
                ++q;
            if (q < p.size() && p[q] == ']')
                refuse(i, "a ']' first in a class");
            continue;
        }
        if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
            const char k = i + 2 < p.size() ? p[i + 2] : '\0';
            if (k == ':' || k == '=' || k == '!')
                continue;
            if (k == '<' && i + 3 < p.size() && (p[i + 3] == '=' || p[i + 3] == '!'))
                refuse(i, "lookbehind");
            if (k == 'P' || k == '<')
                refuse(i, "a named group");
            if (k == '>')
                refuse(i, "an atomic group");
            refuse(i, "an inline flag or extension '(?" + std::string(1, k) + "'");
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < p.size() && p[i + 1] == '+')
            refuse(i + 1, "a possessive quantifier");
    }
}

bool patternMatches(PatternDialect dialect, const std::string &pattern, std::string_view module)
{
    switch (dialect) {
    case PatternDialect::Exact:
        return pattern == module;
    case PatternDialect::Fnmatch:
        return globMatch(pattern, module);
    case PatternDialect::Re: {
        const std::regex &re = compiled(pattern);
        return std::regex_match(module.begin(), module.end(), re);
    }
    }
    return false;
}

std::string moduleOf(std::string_view name)
{
    const auto dot = name.rfind('.');
    return std::string(dot == std::string_view::npos ? name : name.substr(0, dot));
}

namespace {

std::string kvSchemeAt(const ojson &v, const std::string &path)
{
    if (!v.is_string())
        fail(path, "must be a KV scheme name (a string)");
    const std::string name = v.get<std::string>();
    try {
        return KvScheme::parse(name).name();
    } catch (const UnsupportedError &e) {
        fail(path, e.message());
    }
    return {};
}

int kvIntAt(const ojson &v, const std::string &path, int lo)
{
    if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > 100000)
        fail(path, "must be an integer in [" + std::to_string(lo) + ", 100000], got " + v.dump());
    return static_cast<int>(v.get<std::int64_t>());
}

RecipeKvCache parseKvCache(const ojson &j)
{
    if (!j.is_object())
        fail("kv_cache", "must be an object");
    refuseUnknown(j, "kv_cache", {"k", "v", "boundary", "layers", "ranges"});
    RecipeKvCache kv;
    if (j.contains("k"))
        kv.k = kvSchemeAt(j["k"], "kv_cache.k");
    if (j.contains("v"))
        kv.v = kvSchemeAt(j["v"], "kv_cache.v");
    if (j.contains("boundary"))
        kv.boundary = kvIntAt(j["boundary"], "kv_cache.boundary", 0);
    if (j.contains("layers"))
        kv.layers = kvIntAt(j["layers"], "kv_cache.layers", 1);
    if (kv.boundary > 0 && !kv.layers)
        fail("kv_cache.boundary", "needs kv_cache.layers (the model's attention layers) to know which are last");
    if (j.contains("ranges")) {
        const ojson &rs = j["ranges"];
        if (!rs.is_array())
            fail("kv_cache.ranges", "must be an array");
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const std::string path = "kv_cache.ranges[" + std::to_string(i) + "]";
            refuseUnknown(rs[i], path, {"layers", "k", "v"});
            const ojson &ls = member(rs[i], path, "layers");
            if (!ls.is_array() || ls.size() != 2)
                fail(path + ".layers", "must be [first, last]");
            RecipeKvRange r;
            r.first = kvIntAt(ls[0], path + ".layers[0]", 0);
            r.last = kvIntAt(ls[1], path + ".layers[1]", 0);
            if (r.last < r.first)
                fail(path + ".layers",
                     "last (" + std::to_string(r.last) + ") is before first (" + std::to_string(r.first) + ")");
            if (kv.layers && r.last >= *kv.layers)
                fail(path + ".layers", "layer " + std::to_string(r.last) + " is beyond kv_cache.layers (" +
                                           std::to_string(*kv.layers) + ")");
            r.k = kvSchemeAt(member(rs[i], path, "k"), path + ".k");
            r.v = kvSchemeAt(member(rs[i], path, "v"), path + ".v");
            kv.ranges.push_back(std::move(r));
        }
    }
    return kv;
}

} // namespace

Recipe Recipe::fromJson(const ojson &j)
{
    refuseUnknown(j, "", {"quantscope_recipe", "rules", "exclude", "kv_cache", "metadata"});
    const ojson &version = member(j, "", "quantscope_recipe");
    if (!version.is_number_integer() || version.get<std::int64_t>() != kVersion)
        fail("quantscope_recipe", "must be " + std::to_string(kVersion) + ", got " + version.dump());
    Recipe r;
    const ojson &rules = member(j, "", "rules");
    if (!rules.is_array())
        fail("rules", "must be an array");
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string path = "rules[" + std::to_string(i) + "]";
        const ojson &rj = rules[i];
        refuseUnknown(rj, path, {"name", "patterns", "dialect", "specs", "overrides"});
        RecipeRule rule;
        if (rj.contains("name"))
            rule.name = stringAt(rj["name"], path + ".name");
        if (rj.contains("dialect"))
            rule.dialect = parseDialect(rj["dialect"], path + ".dialect");
        const ojson &pats = member(rj, path, "patterns");
        if (!pats.is_array() || pats.empty())
            fail(path + ".patterns", "must be a non-empty array of strings");
        for (std::size_t p = 0; p < pats.size(); ++p) {
            const std::string pp = path + ".patterns[" + std::to_string(p) + "]";
            rule.patterns.push_back(stringAt(pats[p], pp));
            checkPattern(rule.dialect, rule.patterns.back(), pp);
        }
        const ojson &specs = member(rj, path, "specs");
        if (!specs.is_array() || specs.empty())
            fail(path + ".specs", "must be a non-empty array of spec objects");
        for (std::size_t s = 0; s < specs.size(); ++s) {
            const std::string sp = path + ".specs[" + std::to_string(s) + "]";
            if (!specs[s].is_object())
                fail(sp, "must be a spec object with \"method\"");
            try {
                rule.specs.push_back(quantscope::toJson(parseQuantSpec(plain(specs[s]))));
            } catch (const Error &e) {
                fail(sp, e.message());
            }
        }
        if (rj.contains("overrides")) {
            const ojson &ov = rj["overrides"];
            if (!ov.is_object())
                fail(path + ".overrides", "must be an object: module name → {bits, rank, c}");
            std::map<std::string, SpecOverride> sorted;
            for (const auto &[module, o] : ov.items()) {
                const std::string op = path + ".overrides." + module;
                refuseUnknown(o, op, {"bits", "rank", "c"});
                SpecOverride so;
                bool used = false;
                auto has = [&](const char *k) {
                    for (const auto &s : rule.specs)
                        if (s.contains(k))
                            return true;
                    return false;
                };
                if (o.contains("bits")) {
                    if (!o["bits"].is_number_integer() || o["bits"] < std::numeric_limits<int>::min() ||
                        o["bits"] > std::numeric_limits<int>::max())
                        fail(op + ".bits", "must be an integer"); // get<int>() would truncate a larger one
                    so.bits = o["bits"].get<int>();
                    if (!has("bits"))
                        fail(op + ".bits", "no spec of this rule has \"bits\"");
                    used = true;
                }
                if (o.contains("rank")) {
                    if (!o["rank"].is_number_integer() || o["rank"] < std::numeric_limits<int>::min() ||
                        o["rank"] > std::numeric_limits<int>::max())
                        fail(op + ".rank", "must be an integer"); // get<int>() would truncate a larger one
                    so.rank = o["rank"].get<int>();
                    if (!has("rank"))
                        fail(op + ".rank", "no spec of this rule has \"rank\"");
                    used = true;
                }
                if (o.contains("c")) {
                    if (!o["c"].is_number())
                        fail(op + ".c", "must be a number");
                    so.c = o["c"].get<double>();
                    if (!has("c"))
                        fail(op + ".c", "no spec of this rule has \"c\"");
                    used = true;
                }
                if (!used)
                    fail(op, "sets nothing (bits, rank or c)");
                for (std::size_t s = 0; s < rule.specs.size(); ++s) {
                    try {
                        parseQuantSpec(applyOverride(rule.specs[s], so));
                    } catch (const Error &e) {
                        fail(op, "makes specs[" + std::to_string(s) + "] invalid: " + e.message());
                    }
                }
                sorted[module] = so;
            }
            rule.overrides.assign(sorted.begin(), sorted.end());
        }
        r.rules.push_back(std::move(rule));
    }
    if (j.contains("exclude")) {
        const ojson &ex = j["exclude"];
        if (!ex.is_array())
            fail("exclude", "must be an array");
        for (std::size_t i = 0; i < ex.size(); ++i) {
            const std::string path = "exclude[" + std::to_string(i) + "]";
            RecipeExclude e;
            if (ex[i].is_string()) { // shorthand: an fnmatch pattern (a Quark exclude list)
                e.pattern = ex[i].get<std::string>();
            } else {
                refuseUnknown(ex[i], path, {"pattern", "dialect"});
                e.pattern = stringAt(member(ex[i], path, "pattern"), path + ".pattern");
                if (ex[i].contains("dialect"))
                    e.dialect = parseDialect(ex[i]["dialect"], path + ".dialect");
            }
            checkPattern(e.dialect, e.pattern, path);
            r.exclude.push_back(std::move(e));
        }
    }
    if (j.contains("kv_cache"))
        r.kvCache = parseKvCache(j["kv_cache"]);
    if (j.contains("metadata")) {
        if (!j["metadata"].is_object())
            fail("metadata", "must be an object");
        r.metadata = j["metadata"];
    }
    return r;
}

std::pair<std::string, std::string> RecipeKvCache::schemesOf(int layer) const
{
    std::pair<std::string, std::string> out{k, v};
    if (boundary > 0 && layers && (layer < boundary || layer >= *layers - boundary))
        out = {"bf16", "bf16"};
    for (const auto &r : ranges)
        if (layer >= r.first && layer <= r.last)
            out = {r.k, r.v};
    return out;
}

bool RecipeKvCache::uniform() const
{
    if (!layers)
        return boundary == 0 && ranges.empty();
    const auto first = schemesOf(0);
    for (int l = 1; l < *layers; ++l)
        if (schemesOf(l) != first)
            return false;
    return true;
}

Recipe Recipe::load(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot open the recipe", Location{path, {}, {}});
    std::stringstream ss;
    ss << in.rdbuf();
    const ojson j = io_detail::parseStrictJson(ss.str(), path);
    try {
        return fromJson(j);
    } catch (const Error &e) {
        throw FormatError(e.message(), Location{path, {}, {}});
    }
}

ojson Recipe::toJson() const
{
    ojson j;
    j["quantscope_recipe"] = kVersion;
    ojson rules = ojson::array();
    for (const auto &rule : this->rules) {
        ojson rj;
        rj["name"] = rule.name;
        rj["patterns"] = rule.patterns;
        rj["dialect"] = std::string(quantscope::toString(rule.dialect));
        ojson specs = ojson::array();
        for (const auto &s : rule.specs)
            specs.push_back(ordered(s));
        rj["specs"] = specs;
        ojson ov = ojson::object();
        for (const auto &[module, o] : rule.overrides) {
            ojson oj = ojson::object();
            if (o.bits)
                oj["bits"] = *o.bits;
            if (o.rank)
                oj["rank"] = *o.rank;
            if (o.c)
                oj["c"] = *o.c;
            ov[module] = oj;
        }
        rj["overrides"] = ov;
        rules.push_back(rj);
    }
    j["rules"] = rules;
    ojson ex = ojson::array();
    for (const auto &e : exclude)
        ex.push_back(ojson{{"pattern", e.pattern}, {"dialect", std::string(quantscope::toString(e.dialect))}});
    j["exclude"] = ex;
    if (kvCache) {
        ojson kv;
        kv["k"] = kvCache->k;
        kv["v"] = kvCache->v;
        kv["boundary"] = kvCache->boundary;
        if (kvCache->layers)
            kv["layers"] = *kvCache->layers;
        ojson rs = ojson::array();
        for (const auto &r : kvCache->ranges)
            rs.push_back(ojson{{"layers", {r.first, r.last}}, {"k", r.k}, {"v", r.v}});
        kv["ranges"] = rs;
        j["kv_cache"] = kv;
    }
    j["metadata"] = metadata;
    return j;
}

std::string Recipe::text() const
{
    return toJson().dump(2) + "\n";
}

void Recipe::save(const std::string &path) const
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw IoError("cannot write the recipe", Location{tmp, {}, {}});
        out << text();
        out.flush();
        if (!out)
            throw IoError("writing the recipe failed", Location{tmp, {}, {}});
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw IoError("cannot rename the recipe into place", Location{path, {}, {}});
    }
}

std::string Recipe::hash() const
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(text())));
    return buf;
}

Recipe Recipe::defaults()
{
    Recipe r;
    RecipeRule rule;
    rule.name = "default: every 2-D weight, INT4 g128";
    rule.patterns = {"*"};
    rule.specs = {quantscope::toJson(QuantSpec{IntSpec{}})};
    r.rules.push_back(std::move(rule));
    return r;
}

Recipe Recipe::withSpecs(const std::vector<QuantSpec> &specs) const
{
    Recipe r = *this;
    for (auto &rule : r.rules) {
        rule.specs.clear();
        for (const auto &s : specs)
            rule.specs.push_back(quantscope::toJson(s));
        std::vector<std::pair<std::string, SpecOverride>> kept;
        for (auto [module, o] : rule.overrides) {
            auto has = [&](const char *k) {
                for (const auto &s : rule.specs)
                    if (s.contains(k))
                        return true;
                return false;
            };
            if (o.bits && !has("bits"))
                o.bits.reset();
            if (o.rank && !has("rank"))
                o.rank.reset();
            if (o.c && !has("c"))
                o.c.reset();
            if (o.bits || o.rank || o.c)
                kept.emplace_back(module, o);
        }
        rule.overrides = std::move(kept);
    }
    return r;
}

RecipeMatch matchModule(const Recipe &recipe, const std::string &module)
{
    RecipeMatch m;
    for (std::size_t e = 0; e < recipe.exclude.size(); ++e) {
        if (patternMatches(recipe.exclude[e].dialect, recipe.exclude[e].pattern, module)) {
            m.excluded = true;
            m.excludeIndex = static_cast<int>(e);
            m.why = "excluded by exclude[" + std::to_string(e) + "] " +
                    std::string(toString(recipe.exclude[e].dialect)) + " '" + recipe.exclude[e].pattern + "'";
            break;
        }
    }
    for (std::size_t r = 0; r < recipe.rules.size(); ++r) {
        const RecipeRule &rule = recipe.rules[r];
        int hit = -1;
        for (std::size_t p = 0; p < rule.patterns.size() && hit < 0; ++p)
            if (patternMatches(rule.dialect, rule.patterns[p], module))
                hit = static_cast<int>(p);
        if (hit < 0)
            continue;
        if (m.rule >= 0) {
            m.alsoMatched.push_back(static_cast<int>(r));
            continue;
        }
        m.rule = static_cast<int>(r);
        m.pattern = hit;
    }
    if (m.excluded) {
        if (m.rule >= 0)
            m.why += " (rule " + std::to_string(m.rule) + " would have matched)";
        m.rule = -1;
        m.pattern = -1;
        m.alsoMatched.clear();
        return m;
    }
    if (m.rule < 0) {
        m.why = "no rule matches";
        return m;
    }
    const RecipeRule &rule = recipe.rules[static_cast<std::size_t>(m.rule)];
    m.why = "rule " + std::to_string(m.rule) + (rule.name.empty() ? "" : " '" + rule.name + "'") + " pattern " +
            std::string(toString(rule.dialect)) + " '" + rule.patterns[static_cast<std::size_t>(m.pattern)] +
            "' (first matching rule)";
    const SpecOverride *o = nullptr;
    for (const auto &[name, ov] : rule.overrides)
        if (name == module)
            o = &ov;
    for (const auto &s : rule.specs)
        m.specs.push_back(parseQuantSpec(o ? applyOverride(s, *o) : s));
    if (o)
        m.why += ", with its override";
    return m;
}

} // namespace quantscope
