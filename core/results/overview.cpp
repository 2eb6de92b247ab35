// SPDX-License-Identifier: MIT
#include "results/overview.h"

#include "results/config_label.h"
#include "results/metric_rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace quantscope {

namespace {

std::optional<double> real(const MetricValue &v)
{
    if (v.type == MetricValue::Type::Real)
        return v.real;
    return std::nullopt;
}

std::string number(const std::optional<double> &v)
{
    if (!v || std::isnan(*v))
        return {};
    if (std::isinf(*v))
        return *v > 0 ? "inf" : "-inf";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, *v); // shortest round-trip form
    return std::string(buf, r.ptr);
}

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

} // namespace

OverviewData prepareOverview(const QuantizeJobResult &results)
{
    OverviewData data;
    std::set<std::string> tensors, configs;
    bool haveRange = false;
    for (const auto &o : results.outcomes) {
        OverviewRow row;
        row.tensor = o.tensor;
        row.config = o.config;
        row.configLabel = configLabel(o.config, o.spec);
        row.timeMs = o.timeMs;
        row.device = o.device;
        row.error = o.error;
        tensors.insert(o.tensor);
        configs.insert(o.config);
        if (const auto *profile = results.profile(o.tensor); profile && o.ok())
            row.note = tooSmallNote(o, profile->shape);
        if (o.ok()) {
            row.relError = real(metricValue(o, "metrics.rel_frobenius"));
            if (o.outputError) {
                row.outputError = o.outputError->error;
                row.outputErrorRel = o.outputError->relative;
                row.outputTokens = o.outputError->tokens;
                data.outputError = true;
            }
            row.sqnrDb = real(metricValue(o, "metrics.sqnr_db"));
            row.kurtosis = real(metricValue(o, "stats_in.excess_kurtosis"));
            row.bitsPerElement = real(metricValue(o, "metrics.bits_per_element"));
            if (row.relError && std::isfinite(*row.relError) && *row.relError > 0) {
                data.minRelError = haveRange ? std::min(data.minRelError, *row.relError) : *row.relError;
                data.maxRelError = haveRange ? std::max(data.maxRelError, *row.relError) : *row.relError;
                haveRange = true;
            }
        }
        data.rows.push_back(std::move(row));
    }
    data.tensorCount = static_cast<int>(tensors.size());
    data.configCount = static_cast<int>(configs.size());
    data.partial = results.partial;
    return data;
}

std::string tooSmallNote(const QuantizeOutcome &outcome, const Shape &shape)
{
    const auto &spec = outcome.spec;
    if (shape.empty() || !spec.is_object())
        return {};
    const auto k = static_cast<std::int64_t>(shape.back());
    const std::string granularity = spec.value("granularity", std::string("group"));
    const char *key = granularity == "group" ? "group" : granularity == "block" ? "block" : nullptr;
    if (!key || !spec.contains(key) || !spec[key].is_number_integer())
        return {};
    const auto size = spec[key].get<std::int64_t>();
    if (size <= k)
        return {};
    return std::string(key) + " " + std::to_string(size) + " is longer than a row (" + std::to_string(k) +
           " elements): each row is one short group, so this is not the " + std::string(key) + " size it says";
}

std::optional<double> overviewErrorRank(const OverviewData &data, double relError)
{
    if (!std::isfinite(relError) || relError <= 0 || data.minRelError <= 0 || data.maxRelError <= data.minRelError)
        return std::nullopt;
    const double t =
        (std::log(relError) - std::log(data.minRelError)) / (std::log(data.maxRelError) - std::log(data.minRelError));
    return std::clamp(t, 0.0, 1.0);
}

bool overviewPreferred(const QuantizeJobResult &results)
{
    std::set<std::string> tensors;
    for (const auto &o : results.outcomes)
        tensors.insert(o.tensor);
    return tensors.size() > 3;
}

std::string overviewCsv(const OverviewData &data)
{
    std::string out = "tensor,config,config_label,rel_frobenius,output_error,output_error_rel,sqnr_db,excess_kurtosis,"
                      "bits_per_element,time_ms,device,error,note\n";
    for (const auto &r : data.rows) {
        out += csvField(r.tensor) + ',' + csvField(r.config) + ',' + csvField(r.configLabel) + ',' +
               number(r.relError) + ',' + number(r.outputError) + ',' + number(r.outputErrorRel) + ',' +
               number(r.sqnrDb) + ',' + number(r.kurtosis) + ',' + number(r.bitsPerElement) + ',' + number(r.timeMs) +
               ',' + csvField(r.device) + ',' + csvField(r.error) + ',' + csvField(r.note) + '\n';
    }
    return out;
}

} // namespace quantscope
