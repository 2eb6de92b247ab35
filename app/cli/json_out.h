// SPDX-License-Identifier: MIT
#pragma once
/// \file json_out.h
/// JSON renderings shared by the CLI commands (the formats documented in docs/cli.md).
#include <nlohmann/json.hpp>

#include "metrics/error_metrics.h"
#include "numeric/moments.h"

namespace quantscope::cli {

/// {"min","max","mean","std","skewness","excess_kurtosis","nan_count","inf_count"}; undefined → null.
nlohmann::ordered_json statsJson(const TensorStats &s);
/// A double that may be ±inf: JSON has no infinity, so ±inf is written as the string "inf"/"-inf".
nlohmann::ordered_json number(double v);

} // namespace quantscope::cli
