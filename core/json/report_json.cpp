// SPDX-License-Identifier: MIT
#include "json/report_json.h"

#include <cmath>
#include <limits>

#include "util/error.h"

namespace quantscope {

nlohmann::ordered_json reportNumber(double v)
{
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (std::isnan(v))
        return nullptr;
    return v;
}

nlohmann::json exactNumber(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

double numberFromJson(const nlohmann::json &j, const std::string &what, const std::string &context)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_null())
        return std::numeric_limits<double>::quiet_NaN();
    if (j.is_string()) {
        const auto s = j.get<std::string>();
        if (s == "inf")
            return std::numeric_limits<double>::infinity();
        if (s == "-inf")
            return -std::numeric_limits<double>::infinity();
        if (s == "nan")
            return std::numeric_limits<double>::quiet_NaN();
    }
    throw FormatError(context + "'" + what + "' is not a number");
}

nlohmann::ordered_json statsJson(const TensorStats &s, StatsDetail detail)
{
    nlohmann::ordered_json j;
    if (detail == StatsDetail::Full) {
        // Lossless: every field as held, whatever the finite count.
        auto opt = [](const std::optional<double> &v) {
            return v ? nlohmann::ordered_json(exactNumber(*v)) : nlohmann::ordered_json(nullptr);
        };
        j["numel"] = s.numel;
        j["finite_count"] = s.finiteCount;
        j["min"] = exactNumber(s.min);
        j["max"] = exactNumber(s.max);
        j["absmax"] = exactNumber(s.absmax);
        j["mean"] = exactNumber(s.mean);
        j["std"] = exactNumber(s.std);
        j["skewness"] = opt(s.skewness);
        j["excess_kurtosis"] = opt(s.excessKurtosis);
        j["nan_count"] = s.nanCount;
        j["inf_count"] = s.infCount;
        return j;
    }
    const bool any = s.finiteCount > 0;
    auto opt = [](const std::optional<double> &v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    j["min"] = any ? nlohmann::ordered_json(s.min) : nullptr;
    j["max"] = any ? nlohmann::ordered_json(s.max) : nullptr;
    j["mean"] = any ? nlohmann::ordered_json(s.mean) : nullptr;
    j["std"] = any ? nlohmann::ordered_json(s.std) : nullptr;
    j["skewness"] = opt(s.skewness);
    j["excess_kurtosis"] = opt(s.excessKurtosis);
    j["nan_count"] = s.nanCount;
    j["inf_count"] = s.infCount;
    return j;
}

namespace {

const nlohmann::json &member(const nlohmann::json &j, const char *key, const char *oldKey,
                             const std::string &context)
{
    if (j.is_object() && j.contains(key))
        return j.at(key);
    if (oldKey && j.is_object() && j.contains(oldKey))
        return j.at(oldKey);
    throw FormatError(context + "missing '" + key + "'");
}

std::int64_t count(const nlohmann::json &j, const char *key, const char *oldKey, const std::string &context)
{
    const auto &v = member(j, key, oldKey, context);
    if (!v.is_number_integer())
        throw FormatError(context + "'" + key + "' has the wrong type");
    return v.get<std::int64_t>();
}

} // namespace

TensorStats statsFromJson(const nlohmann::json &j, const std::string &context)
{
    TensorStats s;
    auto number = [&](const char *key) { return numberFromJson(member(j, key, nullptr, context), key, context); };
    auto optional = [&](const char *key) -> std::optional<double> {
        const auto &v = member(j, key, nullptr, context);
        if (v.is_null())
            return std::nullopt;
        return numberFromJson(v, key, context);
    };
    s.numel = count(j, "numel", nullptr, context);
    s.finiteCount = count(j, "finite_count", "finite", context);
    s.nanCount = count(j, "nan_count", "nan", context);
    s.infCount = count(j, "inf_count", "inf", context);
    s.min = number("min");
    s.max = number("max");
    s.absmax = number("absmax");
    s.mean = number("mean");
    s.std = number("std");
    s.skewness = optional("skewness");
    s.excessKurtosis = optional("excess_kurtosis");
    return s;
}

} // namespace quantscope
