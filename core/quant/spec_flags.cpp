// SPDX-License-Identifier: MIT
#include "quant/spec_flags.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "quant/quantizer.h"

namespace quantscope {

namespace {

std::string optionName(const SpecField &f)
{
    if (!f.flag.empty())
        return f.flag;
    std::string s = "--" + f.key;
    std::replace(s.begin(), s.end(), '_', '-');
    return s;
}

std::string negOptionName(const SpecField &f)
{
    if (f.kind != "bool")
        return {};
    if (!f.negFlag.empty())
        return f.negFlag;
    std::string s = "--no-" + f.key;
    std::replace(s.begin(), s.end(), '_', '-');
    return s;
}

std::string joined(const std::vector<std::string> &v, const char *sep)
{
    std::string out;
    for (const auto &s : v)
        out += (out.empty() ? "" : sep) + s;
    return out;
}

const std::vector<SpecField> &fieldsOf(const std::string &method)
{
    static const std::map<std::string, std::vector<SpecField>> byMethod = [] {
        std::map<std::string, std::vector<SpecField>> m;
        for (const auto &info : quantizerMethods())
            m[info.method] = info.fields;
        return m;
    }();
    static const std::vector<SpecField> none;
    const auto it = byMethod.find(method);
    return it == byMethod.end() ? none : it->second;
}

const SpecField *fieldOf(const std::string &method, const std::string &key)
{
    for (const auto &f : fieldsOf(method))
        if (f.key == key)
            return &f;
    return nullptr;
}

std::string targetLabel(const SpecFlagTarget &t)
{
    return t.nested.empty() ? t.method : t.method + " " + t.nested;
}

bool parseWholeInt(const std::string &text, long long &out)
{
    if (text.empty())
        return false;
    char *end = nullptr;
    errno = 0;
    out = std::strtoll(text.c_str(), &end, 10);
    return errno == 0 && end == text.c_str() + text.size();
}

bool parseWholeReal(const std::string &text, double &out)
{
    if (text.empty())
        return false;
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

/// key=value[,key=value]… typed by `method`'s fields (a key it lacks: JSON or text).
nlohmann::json keyValueItems(const std::string &method, const std::string &text, char sep, const std::string &what)
{
    nlohmann::json j = nlohmann::json::object();
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find(sep, pos), text.size());
        const std::string item = text.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty())
            continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw SpecFlagError(what + ": '" + item + "' is not key=value", true);
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        // A value may be written as JSON ("channel" with its quotes, as scan --specs always took).
        std::string text = value;
        if (text.size() >= 2 && text.front() == '"') {
            try {
                const nlohmann::json v = nlohmann::json::parse(text);
                if (v.is_string())
                    text = v.get<std::string>();
            } catch (const nlohmann::json::exception &) {
            }
        }
        if (key == "method") {
            j[key] = text;
        } else if (const SpecField *f = fieldOf(method, key)) {
            j[key] = specFieldValue(*f, text, what + " " + key);
        } else {
            try {
                j[key] = nlohmann::json::parse(value);
            } catch (const nlohmann::json::exception &) {
                j[key] = value;
            }
        }
    }
    return j;
}

/// The nested method of a spec field's value: the value's own "method", else the one already
/// there, else the field's first choice (its default).
std::string nestedMethod(const SpecField &f, const std::string &text, const nlohmann::json &current)
{
    const std::size_t at = text.find("method=");
    if (at != std::string::npos && (at == 0 || text[at - 1] == ',')) {
        const std::size_t end = text.find(',', at);
        return text.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
    }
    if (current.is_object() && current.contains("method") && current["method"].is_string())
        return current["method"].get<std::string>();
    return f.choices.empty() ? std::string() : f.choices.front();
}

nlohmann::json nestedValue(const SpecField &f, const std::string &text, const nlohmann::json &current,
                           const std::string &what)
{
    if (!text.empty() && text.front() == '{') {
        try {
            nlohmann::json j = nlohmann::json::parse(text);
            if (!j.is_object())
                throw SpecFlagError(what + " must be a JSON object", true);
            return j;
        } catch (const nlohmann::json::exception &e) {
            throw SpecFlagError(what + " is not valid JSON: " + e.what(), true);
        }
    }
    return keyValueItems(nestedMethod(f, text, current), text, ',', what);
}

std::vector<SpecFlag> buildFlags()
{
    // One SpecFlag per spelling: a field's option and each of its aliases. A spelling may set
    // different fields for different methods (--hqq-preset: HQQ's preset, MiLo's hqq_preset), but
    // never two fields of one method.
    std::vector<SpecFlag> flags;
    auto addSpelling = [&](const std::string &name, const std::string &method, const std::string &nested,
                           const SpecField &f) {
        auto it = std::find_if(flags.begin(), flags.end(), [&](const SpecFlag &x) { return x.name == name; });
        if (it == flags.end()) {
            flags.push_back({name, negOptionName(f), f.kind, {}});
            it = flags.end() - 1;
        } else if (it->kind != f.kind) {
            throw std::logic_error("spec option " + name + " is " + it->kind + " for " +
                                   targetLabel(it->targets.front()) + " but " + f.kind + " for " + method);
        } else if (it->negName != negOptionName(f)) {
            throw std::logic_error("spec option " + name + " has two negations");
        } else if (it->targetFor(method)) {
            throw std::logic_error("spec option " + name + " sets two fields of " + method);
        }
        it->targets.push_back({method, nested, f});
    };
    auto add = [&](const std::string &method, const std::string &nested, const SpecField &f) {
        addSpelling(optionName(f), method, nested, f);
        for (const auto &a : f.aliases)
            addSpelling(a, method, nested, f);
    };
    for (const auto &info : quantizerMethods()) {
        for (const auto &f : info.fields) {
            add(info.method, "", f);
            if (f.kind == "spec" && !f.flattenMethod.empty())
                for (const auto &inner : fieldsOf(f.flattenMethod))
                    add(info.method, f.key, inner);
        }
    }
    return flags;
}

} // namespace

std::string SpecFlag::help() const
{
    bool same = true;
    for (const auto &t : targets)
        same = same && t.field.help == targets.front().field.help;
    std::vector<std::string> labels, parts;
    for (const auto &t : targets) {
        labels.push_back(targetLabel(t));
        parts.push_back(targetLabel(t) + ": " + t.field.help);
    }
    if (same)
        return "[" + joined(labels, ", ") + "] " + targets.front().field.help;
    return joined(parts, "; ");
}

std::vector<std::string> SpecFlag::choices() const
{
    std::vector<std::string> out;
    if (kind != "enum")
        return out;
    for (const auto &t : targets)
        for (const auto &c : t.field.choices)
            if (std::find(out.begin(), out.end(), c) == out.end())
                out.push_back(c);
    return out;
}

std::string SpecFlag::valueName() const
{
    if (kind == "int")
        return "N";
    if (kind == "number")
        return "X";
    if (kind == "enum")
        return joined(choices(), "|");
    if (kind == "spec")
        return "SPEC";
    return {};
}

const SpecFlagTarget *SpecFlag::targetFor(const std::string &method) const
{
    for (const auto &t : targets)
        if (t.method == method)
            return &t;
    return nullptr;
}

const std::vector<SpecFlag> &specFlags()
{
    static const std::vector<SpecFlag> flags = buildFlags();
    return flags;
}

std::string methodChoices()
{
    std::vector<std::string> names;
    for (const auto &m : quantizerMethods())
        names.push_back(m.method);
    return joined(names, "|");
}

nlohmann::json specFieldValue(const SpecField &field, const std::string &text, const std::string &what)
{
    if (field.kind == "int") {
        long long v = 0;
        if (!parseWholeInt(text, v))
            throw SpecFlagError(what + " needs an integer, got '" + text + "'", true);
        return v;
    }
    if (field.kind == "number") {
        double v = 0;
        if (!parseWholeReal(text, v))
            throw SpecFlagError(what + " needs a number, got '" + text + "'", true);
        return v;
    }
    if (field.kind == "bool") {
        if (text == "true" || text == "false")
            return text == "true";
        throw SpecFlagError(what + " is true or false, got '" + text + "'", true);
    }
    if (field.kind == "enum") {
        if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end())
            throw SpecFlagError(what + " is '" + text + "', expected " + joined(field.choices, "|"), false);
        return text;
    }
    if (field.kind == "spec")
        return nestedValue(field, text, nlohmann::json(), what);
    return text;
}

nlohmann::json applySpecFlags(nlohmann::json spec, const std::vector<GivenSpecFlag> &given)
{
    if (given.empty())
        return spec;
    const std::string method =
        spec.contains("method") && spec["method"].is_string() ? spec["method"].get<std::string>() : "";
    if (fieldsOf(method).empty()) // every method has fields: an unknown method
        throw SpecFlagError("--method is '" + method + "', expected " + methodChoices(), false);

    // Resolve each option to its target; both spellings of a bool option exclude each other.
    struct Step {
        const SpecFlag *flag;
        const SpecFlagTarget *target;
        const GivenSpecFlag *given;
    };
    std::vector<Step> steps;
    for (const auto &g : given) {
        const auto &flags = specFlags();
        const auto it = std::find_if(flags.begin(), flags.end(), [&](const SpecFlag &f) { return f.name == g.name; });
        if (it == flags.end())
            throw SpecFlagError("unknown quantizer option " + g.name, true);
        const std::string spelled = g.negated ? it->negName : it->name;
        const SpecFlagTarget *t = it->targetFor(method);
        if (!t) {
            std::vector<std::string> methods;
            for (const auto &x : it->targets)
                if (std::find(methods.begin(), methods.end(), x.method) == methods.end())
                    methods.push_back(x.method);
            throw SpecFlagError(spelled + " does not apply to --method " + method + " (it applies to " +
                                    joined(methods, ", ") + ")",
                                false);
        }
        for (const auto &s : steps)
            if (s.flag == &*it && s.given->negated != g.negated)
                throw SpecFlagError(it->name + " and " + it->negName + " exclude each other", true);
        steps.push_back({&*it, t, &g});
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step &a, const Step &b) { return (a.flag->kind == "spec") > (b.flag->kind == "spec"); });

    auto objectOf = [&spec](const SpecFlagTarget &t) -> nlohmann::json & {
        if (t.nested.empty())
            return spec;
        nlohmann::json &n = spec[t.nested];
        if (!n.is_object())
            n = nlohmann::json::object();
        return n;
    };
    std::vector<const SpecFlagTarget *> implied;
    for (const auto &s : steps) {
        const SpecField &f = s.target->field;
        const std::string spelled = s.given->negated ? s.flag->negName : s.flag->name;
        nlohmann::json &obj = objectOf(*s.target);
        if (f.kind == "bool") {
            obj[f.key] = !s.given->negated;
        } else if (f.kind == "spec") {
            const nlohmann::json value = nestedValue(f, s.given->value, obj.value(f.key, nlohmann::json()), spelled);
            nlohmann::json &dst = obj[f.key];
            if (!dst.is_object())
                dst = nlohmann::json::object();
            for (const auto &[k, v] : value.items())
                dst[k] = v;
        } else if (f.kind == "enum" && !f.presetForKeyValue.empty() && s.given->value.find('=') != std::string::npos) {
            const std::string &text = s.given->value;
            const std::size_t eq = text.find('=');
            const SpecField *other = fieldOf(method, text.substr(0, eq));
            if (!other || other->kind == "spec")
                throw SpecFlagError(spelled + " is '" + text + "', expected " + joined(f.choices, "|") +
                                        " or KEY=VALUE of a " + method + " field",
                                    false);
            obj[other->key] = specFieldValue(*other, text.substr(eq + 1), spelled + " " + other->key);
            obj[f.key] = f.presetForKeyValue;
        } else {
            obj[f.key] = specFieldValue(f, s.given->value, spelled);
        }
        if (!f.impliesKey.empty())
            implied.push_back(s.target);
    }
    for (const SpecFlagTarget *t : implied) {
        nlohmann::json &obj = objectOf(*t);
        if (!obj.contains(t->field.impliesKey))
            obj[t->field.impliesKey] = t->field.impliesValue;
    }
    return spec;
}

nlohmann::json compactSpecJson(const std::string &item)
{
    const std::size_t at = item.find(':');
    const std::string method = item.substr(0, at);
    nlohmann::json spec = at == std::string::npos
                              ? nlohmann::json::object()
                              : keyValueItems(method, item.substr(at + 1), ':', "spec item '" + item + "'");
    spec["method"] = method;
    return spec;
}

} // namespace quantscope
