// SPDX-License-Identifier: MIT
#include "results/metric_rows.h"

#include "json/report_json.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace quantscope {

namespace {

MetricValue optional(const std::optional<double> &v)
{
    return v ? MetricValue::of(*v) : MetricValue::null();
}

/// Moments exist only when there was a finite element (as the CLI's statsJson decides).
MetricValue statsValue(const TensorStats &s, const std::string &field)
{
    const bool any = s.finiteCount > 0;
    if (field == "min")
        return any ? MetricValue::of(s.min) : MetricValue::null();
    if (field == "max")
        return any ? MetricValue::of(s.max) : MetricValue::null();
    if (field == "mean")
        return any ? MetricValue::of(s.mean) : MetricValue::null();
    if (field == "std")
        return any ? MetricValue::of(s.std) : MetricValue::null();
    if (field == "skewness")
        return optional(s.skewness);
    if (field == "excess_kurtosis")
        return optional(s.excessKurtosis);
    if (field == "nan_count")
        return MetricValue::ofInt(s.nanCount);
    if (field == "inf_count")
        return MetricValue::ofInt(s.infCount);
    return MetricValue::null();
}

} // namespace

const std::vector<MetricRow> &metricRows()
{
    static const std::vector<MetricRow> rows = [] {
        std::vector<MetricRow> r = {
            {"metrics.rel_frobenius", "error"}, {"metrics.sqnr_db", "error"},
            {"metrics.mse", "error"},           {"metrics.rmse", "error"},
            {"metrics.max_abs_err", "error"},   {"metrics.cosine", "error"},
            {"metrics.err_p50", "error"},       {"metrics.err_p90", "error"},
            {"metrics.err_p99", "error"},       {"metrics.err_p999", "error"},
            {"histogram.overlap", "error"},     {"metrics.bits_per_element", "size"},
            {"metrics.bytes", "size"},          {"ragged", "size"},
            {"nonfinite_groups", "size"},
        };
        for (const char *side : {"stats_in", "stats_out"})
            for (const char *f : {"min", "max", "mean", "std", "skewness", "excess_kurtosis", "nan_count", "inf_count"})
                r.push_back({std::string(side) + "." + f, side});
        r.push_back({"device", "run"});
        r.push_back({"time_ms", "run"});
        return r;
    }();
    return rows;
}

std::vector<MetricRow> metricRowsFor(const QuantizeJobResult &results)
{
    std::vector<MetricRow> rows = metricRows();
    const bool output = std::any_of(results.outcomes.begin(), results.outcomes.end(),
                                    [](const QuantizeOutcome &o) { return o.ok() && o.outputError.has_value(); });
    if (output) {
        const auto at =
            std::find_if(rows.begin(), rows.end(), [](const MetricRow &r) { return r.key == "metrics.rel_frobenius"; });
        rows.insert(at == rows.end() ? rows.end() : at + 1,
                    {{"metrics.output_error.error", "error"}, {"metrics.output_error.relative", "error"}});
    }
    return rows;
}

MetricValue metricValue(const QuantizeOutcome &o, const std::string &key)
{
    if (key == "device")
        return MetricValue::ofText(o.device);
    if (!o.ok())
        return MetricValue::null();
    const ErrorMetrics &m = o.metrics;
    if (key == "metrics.mse")
        return MetricValue::of(m.mse);
    if (key == "metrics.rmse")
        return MetricValue::of(m.rmse);
    if (key == "metrics.sqnr_db")
        return std::isnan(m.sqnrDb) ? MetricValue::null() : MetricValue::of(m.sqnrDb);
    if (key == "metrics.rel_frobenius")
        return std::isnan(m.relFrobenius) ? MetricValue::null() : MetricValue::of(m.relFrobenius);
    if (key == "metrics.max_abs_err")
        return MetricValue::of(m.maxAbsErr);
    if (key == "metrics.cosine")
        return optional(m.cosine);
    if (key == "metrics.err_p50")
        return MetricValue::of(m.errP50);
    if (key == "metrics.err_p90")
        return MetricValue::of(m.errP90);
    if (key == "metrics.err_p99")
        return MetricValue::of(m.errP99);
    if (key == "metrics.err_p999")
        return MetricValue::of(m.errP999);
    if (key == "metrics.bits_per_element")
        return MetricValue::of(o.bitsPerElement);
    if (key == "metrics.bytes")
        return MetricValue::ofInt(static_cast<std::int64_t>(o.storedBytes));
    if (key == "histogram.overlap")
        return MetricValue::of(m.overlap);
    if (key == "metrics.output_error.error")
        return o.outputError ? MetricValue::of(o.outputError->error) : MetricValue::null();
    if (key == "metrics.output_error.relative")
        return o.outputError ? MetricValue::of(o.outputError->relative) : MetricValue::null();
    if (key == "ragged")
        return MetricValue::ofFlag(o.ragged);
    if (key == "nonfinite_groups")
        return MetricValue::ofInt(o.nonFiniteGroups);
    if (key == "time_ms")
        return MetricValue::of(o.timeMs);
    if (key.rfind("stats_in.", 0) == 0)
        return statsValue(m.statsIn, key.substr(9));
    if (key.rfind("stats_out.", 0) == 0)
        return statsValue(m.statsOut, key.substr(10));
    return MetricValue::null();
}

nlohmann::ordered_json toCliJson(const MetricValue &v)
{
    switch (v.type) {
    case MetricValue::Type::Null:
        return nullptr;
    case MetricValue::Type::Real:
        return reportNumber(v.real);
    case MetricValue::Type::Integer:
        return v.integer;
    case MetricValue::Type::Text:
        return v.text;
    case MetricValue::Type::Flag:
        return v.flag;
    }
    return nullptr;
}

nlohmann::ordered_json outcomeSummaryJson(const QuantizeOutcome &o)
{
    nlohmann::ordered_json j;
    j["tensor"] = o.tensor;
    j["config"] = o.config;
    j["method"] = o.method;
    j["spec"] = o.spec;
    if (!o.error.empty())
        j["error"] = o.error;
    if (!o.deviceNote.empty())
        j["device_note"] = o.deviceNote;
    for (const auto &row : metricRows()) {
        const auto dot = row.key.find('.');
        const auto value = toCliJson(metricValue(o, row.key));
        if (dot == std::string::npos)
            j[row.key] = value;
        else
            j[row.key.substr(0, dot)][row.key.substr(dot + 1)] = value;
    }
    if (o.ok() && o.outputError)
        j["metrics"]["output_error"] = outputErrorJson(*o.outputError);
    return j;
}

} // namespace quantscope
