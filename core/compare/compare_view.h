// SPDX-License-Identifier: MIT
#pragma once
/// \file compare_view.h
/// The Compare view's data (widgets/views/compareview.h draws it, computing nothing): a comparison as
/// the Layers view's layer × projection grid coloured by one of its per-module numbers, and one
/// module's two reconstructions as a job result the Distribution view overlays (configurations
/// "A" and "B" against the reference W, or against Ŵ_B when there is no reference).
#include <string>

#include "compare/compare.h"
#include "results/layer_grid.h"
#include "results/results.h"

namespace quantscope {

enum class CompareMetric : std::uint8_t {
    Difference, ///< rel_diff (checkpoints) or |Δ error| (scan reports)
    Delta,      ///< error_A − error_B
    ErrorA,
    ErrorB,
    CodeDiff, ///< fraction of codes that differ
};
/// "difference", "Δ error (A − B)", "error A", "error B", "codes differing" (English; the window
/// translates its own labels).
std::string toString(CompareMetric m);
/// A module's value of `m` (NaN when it has none).
double compareValue(const ModuleComparison &c, CompareMetric m);

/// The grid of the modules with a layer index and a known projection (MoE experts aggregated by
/// the mean, as in the Layers view); the others are in the report's table only.
LayerGrid prepareCompareGrid(const CompareReport &report, CompareMetric metric);

/// Ŵ_A and Ŵ_B as two outcomes ("A", "B") of one tensor, metrics and histograms against the
/// reference (Ŵ_B when `r.reference` is empty), for the Distribution view. Throws Cancelled.
QuantizeJobResult compareOverlay(const ModuleReconstructions &r, const std::string &tensor,
                                 const CancelToken *cancel = nullptr);

} // namespace quantscope
