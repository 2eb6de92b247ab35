// SPDX-License-Identifier: MIT
#pragma once
/// \file overview.h
/// The Overview table: one row per tensor × configuration with the few numbers a user compares
/// across many tensors (relative error, SQNR, kurtosis of W, bits per element, time, device).
/// Prepared here as plain values; the widget (widgets/models/overviewmodel.h) only displays them. The
/// wide Numbers table (one column per tensor × configuration) stays for the full detail.
#include "results/results.h"

#include <optional>
#include <string>
#include <vector>

namespace quantscope {

struct OverviewRow {
    std::string tensor;
    std::string config;             ///< the configuration's name ("A")
    std::string configLabel;        ///< "A · INT4 g128 sym"
    std::optional<double> relError; ///< ‖W−Ŵ‖/‖W‖ (none when the run failed)
    /// E‖(W − Ŵ)x‖² and its relative form on the paired capture (none without one for the tensor)
    std::optional<double> outputError, outputErrorRel;
    std::int64_t outputTokens = 0;  ///< tokens the capture's moments average over
    std::optional<double> sqnrDb;   ///< may be +inf (exact result)
    std::optional<double> kurtosis; ///< excess kurtosis of W
    std::optional<double> bitsPerElement;
    double timeMs = 0;
    std::string device;
    std::string error; ///< non-empty: the run failed
    /// Why the numbers mislead, e.g. a tensor too small for the chosen group ("" none).
    std::string note;
};

struct OverviewData {
    std::vector<OverviewRow> rows; ///< in the job's order: tensor-major, configurations in order
    int tensorCount = 0;
    int configCount = 0;
    /// Range of the finite, positive relative errors (for the cell colouring); both 0 when none.
    double minRelError = 0;
    double maxRelError = 0;
    bool partial = false;     ///< the batch was cancelled: only the runs that finished are here
    bool outputError = false; ///< some row has an output-aware error
};

OverviewData prepareOverview(const QuantizeJobResult &results);

/// "" or why a run's numbers mislead: a group (or block) longer than the tensor's rows, so that
/// every row is one short, ragged group and the configuration does not do what it says.
std::string tooSmallNote(const QuantizeOutcome &outcome, const Shape &shape);

/// Where a relative error lies between the best and the worst of the table on a log scale:
/// 0 = best, 1 = worst; none when it cannot be placed (no range, not finite, not positive).
std::optional<double> overviewErrorRank(const OverviewData &data, double relError);

/// True when the wide Numbers table would be too wide to read: more than a handful of tensors.
bool overviewPreferred(const QuantizeJobResult &results);

/// The table as CSV (header row, full precision, ±inf as "inf"/"-inf", empty when undefined; the
/// output_error and output_error_rel columns empty without a capture).
std::string overviewCsv(const OverviewData &data);

} // namespace quantscope
