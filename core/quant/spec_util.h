// SPDX-License-Identifier: MIT
#pragma once
/// \file spec_util.h
/// Small JSON helpers for spec structs that live outside spec.cpp (HQQ, MiLo): the same
/// refusals by name as spec.cpp (unknown keys, wrong types, values outside the choices).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/spec.h"
#include "util/error.h"

namespace quantscope::specutil {

inline std::int64_t getInt(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_number_integer())
        throw UnsupportedError("spec field '" + key + "' must be an integer");
    return j.get<std::int64_t>();
}

inline bool getBool(const nlohmann::json &j, const std::string &key)
{
    if (!j.is_boolean())
        throw UnsupportedError("spec field '" + key + "' must be true or false");
    return j.get<bool>();
}

/// The index of the string value in `choices`; refuses other values, listing the choices.
inline int getChoice(const nlohmann::json &j, const std::string &key, const std::vector<std::string> &choices)
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

inline void refuseUnknownKeys(const nlohmann::json &j, const std::vector<SpecField> &fields,
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
        throw UnsupportedError("spec method is " + j["method"].dump() + ", expected \"" + method + "\"");
}

} // namespace quantscope::specutil
