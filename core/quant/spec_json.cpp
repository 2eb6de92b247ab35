// SPDX-License-Identifier: MIT
#include "quant/spec_json.h"

#include <set>

#include "util/error.h"

namespace quantscope::specjson {

void refuseUnknownKeys(const nlohmann::json &j, const std::vector<SpecField> &fields,
                       const std::string &method)
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
        throw UnsupportedError("spec method is " + j["method"].dump() + ", expected \"" + method +
                               "\"");
}

std::int64_t parseInt(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_number_integer())
        throw UnsupportedError("spec field '" + key + "' must be an integer");
    return j.get<std::int64_t>();
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

int parseChoice(const nlohmann::json &j, const std::string &key,
                const std::vector<std::string> &choices)
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

} // namespace quantscope::specjson
