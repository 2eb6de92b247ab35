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
#include <string>

#include <nlohmann/json.hpp>

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

} // namespace quantscope
