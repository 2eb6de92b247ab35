// SPDX-License-Identifier: MIT
#include "quant/spec_json.h"

#include <limits>
#include <set>

#include "util/error.h"

namespace quantscope::specjson {

namespace {
constexpr int kMaxGroup = 1 << 20;
} // namespace

void refuseUnknownKeys(const nlohmann::json &j, const std::vector<SpecField> &fields, const std::string &method)
{
    if (!j.is_object())
        throw UnsupportedError("a " + method + " spec must be a JSON object");
    std::set<std::string> known{"method"};
    for (const auto &f : fields)
        known.insert(f.key);
    for (const auto &[k, v] : j.items())
        if (!known.count(k))
            throw UnsupportedError("unknown field '" + k + "' in a " + method + " spec");
    if (j.contains("method") && j["method"] != method)
        throw UnsupportedError("spec method is " + j["method"].dump() + ", expected \"" + method + "\"");
}

std::int64_t parseInt(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_number_integer())
        throw UnsupportedError("spec field '" + key + "' must be an integer");
    return j.get<std::int64_t>();
}

int parseInt32(const nlohmann::json &j, const std::string &key)
{
    const std::int64_t v = parseInt(j, key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        throw UnsupportedError("spec field '" + key + "' is " + std::to_string(v) + ", out of range");
    return static_cast<int>(v);
}

bool parseBool(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_boolean())
        throw UnsupportedError("spec field '" + key + "' must be true or false");
    return j.get<bool>();
}

double parseNumber(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_number())
        throw UnsupportedError("spec field '" + key + "' must be a number");
    return j.get<double>();
}

int parseChoice(const nlohmann::json &j, const std::string &key, const std::vector<std::string> &choices)
{
    if (!j.is_string())
        throw UnsupportedError("spec field '" + key + "' must be a string");
    const auto s = j.get<std::string>();
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (s == choices[i])
            return static_cast<int>(i);
    std::string list;
    for (const auto &c : choices)
        list += (list.empty() ? "" : "|") + c;
    throw UnsupportedError("spec field '" + key + "' is '" + s + "', expected " + list);
}

SpecField groupField(const std::string &help)
{
    return {"group", "int", {}, 1, kMaxGroup, help};
}

SpecField &fieldNamed(std::vector<SpecField> &fields, const std::string &key)
{
    for (auto &f : fields)
        if (f.key == key)
            return f;
    throw std::logic_error("no spec field '" + key + "'");
}

SpecField strictField()
{
    return {"strict", "bool", {}, 0, 0, "refuse K not divisible by the group size instead of a ragged last group"};
}

void validateGroup(std::int64_t group)
{
    if (group < 1 || group > kMaxGroup)
        throw UnsupportedError("group size must be in 1.." + std::to_string(kMaxGroup) + ", got " +
                               std::to_string(group));
}

void parseGroupStrict(const nlohmann::json &j, std::int64_t &group, bool &strict)
{
    if (j.contains("group"))
        group = parseInt(j["group"], "group"); // range: the spec's validate() (validateGroup)
    if (j.contains("strict"))
        strict = parseBool(j["strict"], "strict");
}

} // namespace quantscope::specjson
