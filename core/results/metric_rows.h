// SPDX-License-Identifier: MIT
#pragma once
/// \file metric_rows.h
/// The rows of the Numbers view: every number a result has, keyed by its path in
/// `quantscope-cli quantize --json` ("metrics.mse", "stats_in.excess_kurtosis", …), so that the
/// table, its exports and the CLI agree by construction.
#include "results/results.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace quantscope {

struct MetricValue {
    enum class Type : std::uint8_t { Null, Real, Integer, Text, Flag };
    Type type = Type::Null;
    double real = 0; ///< may be ±inf (SQNR of an exact result)
    std::int64_t integer = 0;
    std::string text;
    bool flag = false;

    static MetricValue null() { return {}; }
    static MetricValue of(double v)
    {
        MetricValue m;
        m.type = Type::Real;
        m.real = v;
        return m;
    }
    static MetricValue ofInt(std::int64_t v)
    {
        MetricValue m;
        m.type = Type::Integer;
        m.integer = v;
        return m;
    }
    static MetricValue ofText(std::string v)
    {
        MetricValue m;
        m.type = Type::Text;
        m.text = std::move(v);
        return m;
    }
    static MetricValue ofFlag(bool v)
    {
        MetricValue m;
        m.type = Type::Flag;
        m.flag = v;
        return m;
    }
};

struct MetricRow {
    std::string key;   ///< the CLI JSON path, '.'-separated
    std::string group; ///< "error", "size", "stats_in", "stats_out", "run"
};

/// All rows, in display order.
const std::vector<MetricRow> &metricRows();
/// The rows of a batch: metricRows(), with the output-aware error ("metrics.output_error.error",
/// "metrics.output_error.relative", after "metrics.rel_frobenius") when some run carries one.
std::vector<MetricRow> metricRowsFor(const QuantizeJobResult &results);
/// The value of row `key` for a result (Null for an unknown key or an undefined value).
MetricValue metricValue(const QuantizeOutcome &o, const std::string &key);
/// The value as the CLI writes it into its JSON (±inf as "inf"/"-inf", undefined as null).
nlohmann::ordered_json toCliJson(const MetricValue &v);
/// One result in the CLI's JSON shape: {"tensor","config","spec","device",…,"metrics":{…},
/// "stats_in":{…},"stats_out":{…},"histogram":{"overlap"}} with every row of metricRows(), and
/// "metrics.output_error" (report_json.h outputErrorJson) when the run has one.
nlohmann::ordered_json outcomeSummaryJson(const QuantizeOutcome &o);

} // namespace quantscope
