// SPDX-License-Identifier: MIT
#pragma once
/// \file report_json.h
/// The one JSON rendering of numbers and tensor statistics that the CLI, session files and
/// (later) exports share, and its reader. Two number conventions, each for a reason:
/// - report numbers (CLI output): ±inf as "inf"/"-inf", NaN and "undefined" as null, which is
///   what scripts reading a report expect;
/// - exact numbers (sessions): ±inf as "inf"/"-inf" and NaN as "nan", so a value read back is
///   the value written.
/// Statistics use one key set in both: min, max, mean, std, skewness, excess_kurtosis,
/// nan_count, inf_count; the full form (sessions) adds numel, finite_count and absmax.
/// Error metrics likewise: metricsJson is the one writer of the "metrics" object of
/// `quantize --json`, scan report lines and session files (metricsFromJson reads the session's).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "metrics/error_metrics.h"
#include "metrics/output_error.h"
#include "numeric/moments.h"

namespace quantscope {

/// Report convention: ±inf → "inf"/"-inf", NaN → null.
nlohmann::ordered_json reportNumber(double v);
/// Lossless convention: ±inf → "inf"/"-inf", NaN → "nan".
nlohmann::json exactNumber(double v);
/// Reads a number written in either convention (null → NaN). Throws FormatError
/// "<context>'<what>' is not a number".
double numberFromJson(const nlohmann::json &j, const std::string &what, const std::string &context = {});

enum class StatsDetail {
    Summary, ///< the CLI's keys; min/max/mean/std null when there is no finite value
    Full     ///< every field, lossless (sessions)
};

nlohmann::ordered_json statsJson(const TensorStats &s, StatsDetail detail = StatsDetail::Summary);
/// Reads the full form; also the keys of version-1 session files ("finite", "nan", "inf").
/// Throws FormatError prefixed with `context` naming the missing or malformed key.
TensorStats statsFromJson(const nlohmann::json &j, const std::string &context = {});

enum class MetricsDetail {
    /// `quantize --json` and scan report lines: mse, rmse, sqnr_db, rel_frobenius, max_abs_err,
    /// cosine, err_p50, err_p90, err_p99, err_p999 in this order (sqnr_db and rel_frobenius as
    /// report numbers, the others as held: nlohmann writes a non-finite double as null; cosine
    /// null when unset), then the stored size's bits_per_element and bytes when given.
    Report,
    /// Session files: numel, counted, the Report keys and overlap, the w / w_hat / err histograms
    /// and the full stats_in / stats_out, every number lossless; no stored size (the session
    /// keeps it beside the metrics).
    Full
};

/// The stored size of the quantized tensor, which the report's metrics end with.
struct StoredSize {
    double bitsPerElement = 0;
    std::uint64_t bytes = 0;
};

/// The one writer of the "metrics" object.
nlohmann::ordered_json metricsJson(const ErrorMetrics &m, MetricsDetail detail,
                                   const std::optional<StoredSize> &size = std::nullopt);
/// The "output_error" object of a run with a paired capture: error = tr(ΔW G ΔWᵀ), relative,
/// reference = tr(W G Wᵀ), gram ("full" or "diagonal"), tokens (docs/formats.md "Scan reports").
nlohmann::ordered_json outputErrorJson(const OutputError &e);
/// Reads the Full form (every session version writes it). Throws FormatError prefixed with
/// `context` naming the missing or malformed key, as the session reader's other fields do.
ErrorMetrics metricsFromJson(const nlohmann::json &j, const std::string &context = {});

/// The "histogram" object of `quantize --json`: the W / Ŵ / error histograms' counts, ranges,
/// Ŵ's out-of-range counts and the overlap.
nlohmann::ordered_json histogramsJson(const ErrorMetrics &m);

} // namespace quantscope
