// SPDX-License-Identifier: MIT
#include "json/report_json.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "json/json_int.h"
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

const nlohmann::json &member(const nlohmann::json &j, const char *key, const char *oldKey, const std::string &context)
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

/// A typed field (the session reader's rule): an integer, or a list of integers, must be
/// integers in range (jsonInteger), any other wrong type is refused as such.
template <typename I> void requireIntegers(const nlohmann::json &v, const char *key, const std::string &context)
{
    if (v.is_array()) {
        for (const auto &e : v)
            requireIntegers<I>(e, key, context);
        return;
    }
    if (!v.is_number())
        return; // any other type: get() refuses it as the wrong type
    try {
        (void)jsonInteger<I>(v, key);
    } catch (const JsonIntegerError &) {
        throw FormatError(context + "'" + key + "' must hold integers in range, got " + v.dump());
    }
}

template <typename T> T typed(const nlohmann::json &j, const char *key, const std::string &context)
{
    const nlohmann::json &v = member(j, key, nullptr, context);
    if constexpr (std::is_same_v<T, std::int64_t>)
        requireIntegers<std::int64_t>(v, key, context);
    if constexpr (std::is_same_v<T, std::vector<std::int64_t>>)
        requireIntegers<std::int64_t>(v, key, context);
    try {
        return v.get<T>();
    } catch (const nlohmann::json::exception &) {
        throw FormatError(context + "'" + key + "' has the wrong type");
    }
}

nlohmann::ordered_json histogramJson(const Histogram &h)
{
    nlohmann::ordered_json j;
    j["lo"] = exactNumber(h.lo);
    j["hi"] = exactNumber(h.hi);
    j["counts"] = h.counts;
    j["below"] = h.below;
    j["above"] = h.above;
    j["symlog"] = h.symlog;
    j["t"] = exactNumber(h.t);
    return j;
}

Histogram histogramFromJson(const nlohmann::json &j, const std::string &context)
{
    Histogram h;
    h.lo = numberFromJson(member(j, "lo", nullptr, context), "lo", context);
    h.hi = numberFromJson(member(j, "hi", nullptr, context), "hi", context);
    h.counts = typed<std::vector<std::int64_t>>(j, "counts", context);
    h.below = typed<std::int64_t>(j, "below", context);
    h.above = typed<std::int64_t>(j, "above", context);
    h.symlog = typed<bool>(j, "symlog", context);
    h.t = numberFromJson(member(j, "t", nullptr, context), "t", context);
    return h;
}

} // namespace

nlohmann::ordered_json outputErrorJson(const OutputError &e)
{
    nlohmann::ordered_json j;
    j["error"] = reportNumber(e.error);
    j["relative"] = reportNumber(e.relative);
    j["reference"] = reportNumber(e.reference);
    j["gram"] = e.diagonal ? "diagonal" : "full";
    j["tokens"] = e.tokens;
    if (!e.note.empty())
        j["note"] = e.note;
    return j;
}

nlohmann::ordered_json metricsJson(const ErrorMetrics &m, MetricsDetail detail, const std::optional<StoredSize> &size)
{
    using ojson = nlohmann::ordered_json;
    ojson j;
    if (detail == MetricsDetail::Full) {
        j["numel"] = m.numel;
        j["counted"] = m.counted;
        j["mse"] = exactNumber(m.mse);
        j["rmse"] = exactNumber(m.rmse);
        j["sqnr_db"] = exactNumber(m.sqnrDb);
        j["rel_frobenius"] = exactNumber(m.relFrobenius);
        j["max_abs_err"] = exactNumber(m.maxAbsErr);
        j["cosine"] = m.cosine ? ojson(exactNumber(*m.cosine)) : ojson(nullptr);
        j["err_p50"] = exactNumber(m.errP50);
        j["err_p90"] = exactNumber(m.errP90);
        j["err_p99"] = exactNumber(m.errP99);
        j["err_p999"] = exactNumber(m.errP999);
        j["overlap"] = exactNumber(m.overlap);
        j["w"] = histogramJson(m.w);
        j["w_hat"] = histogramJson(m.wHat);
        j["err"] = histogramJson(m.err);
        j["stats_in"] = statsJson(m.statsIn, StatsDetail::Full);
        j["stats_out"] = statsJson(m.statsOut, StatsDetail::Full);
    } else {
        j["mse"] = m.mse;
        j["rmse"] = m.rmse;
        j["sqnr_db"] = reportNumber(m.sqnrDb);
        j["rel_frobenius"] = reportNumber(m.relFrobenius);
        j["max_abs_err"] = m.maxAbsErr;
        j["cosine"] = m.cosine ? ojson(*m.cosine) : ojson(nullptr);
        j["err_p50"] = m.errP50;
        j["err_p90"] = m.errP90;
        j["err_p99"] = m.errP99;
        j["err_p999"] = m.errP999;
    }
    if (size) {
        j["bits_per_element"] = size->bitsPerElement;
        j["bytes"] = size->bytes;
    }
    return j;
}

ErrorMetrics metricsFromJson(const nlohmann::json &j, const std::string &context)
{
    ErrorMetrics m;
    auto number = [&](const char *key) { return numberFromJson(member(j, key, nullptr, context), key, context); };
    m.numel = typed<std::int64_t>(j, "numel", context);
    m.counted = typed<std::int64_t>(j, "counted", context);
    m.mse = number("mse");
    m.rmse = number("rmse");
    m.sqnrDb = number("sqnr_db");
    m.relFrobenius = number("rel_frobenius");
    m.maxAbsErr = number("max_abs_err");
    const nlohmann::json &cosine = member(j, "cosine", nullptr, context);
    if (!cosine.is_null())
        m.cosine = numberFromJson(cosine, "cosine", context);
    m.errP50 = number("err_p50");
    m.errP90 = number("err_p90");
    m.errP99 = number("err_p99");
    m.errP999 = number("err_p999");
    m.overlap = number("overlap");
    m.w = histogramFromJson(member(j, "w", nullptr, context), context);
    m.wHat = histogramFromJson(member(j, "w_hat", nullptr, context), context);
    m.err = histogramFromJson(member(j, "err", nullptr, context), context);
    m.statsIn = statsFromJson(member(j, "stats_in", nullptr, context), context);
    m.statsOut = statsFromJson(member(j, "stats_out", nullptr, context), context);
    return m;
}

nlohmann::ordered_json histogramsJson(const ErrorMetrics &m)
{
    nlohmann::ordered_json h;
    h["lo"] = m.w.lo;
    h["hi"] = m.w.hi;
    h["bins"] = m.w.counts.size();
    h["symlog"] = m.w.symlog;
    h["w"] = m.w.counts;
    h["w_hat"] = m.wHat.counts;
    h["err"] = m.err.counts;
    h["err_lo"] = m.err.lo;
    h["err_hi"] = m.err.hi;
    h["w_hat_below"] = m.wHat.below;
    h["w_hat_above"] = m.wHat.above;
    h["overlap"] = m.overlap;
    return h;
}

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
