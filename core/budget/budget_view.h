// SPDX-License-Identifier: MIT
#pragma once
/// \file budget_view.h
/// What the window's budget and sweep plots draw, prepared here (the widgets compute nothing):
/// the exact optimum at evenly spaced budgets (the budget slider's stops and its error-vs-MB
/// curve), each module's bits per weight under a choice (the bars), and the format sweep as one
/// curve per format family with the current configuration marked.
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "budget/budget.h"
#include "budget/format_sweep.h"
#include "util/cancel.h"

namespace quantscope {

struct ParetoCurve {
    std::string name;
    std::vector<double> x, y;
    std::vector<std::string> labels; ///< one per point (tooltips)
};

struct ParetoMark {
    double x = std::numeric_limits<double>::quiet_NaN();
    double y = std::numeric_limits<double>::quiet_NaN();
    std::string label;
    bool valid() const { return x == x && y == y; }
};

/// One curve per family (in the sweep's order), points sorted by bits per weight; x = bits per
/// weight, y = mse. Failed points are left out.
std::vector<ParetoCurve> sweepCurves(const FormatSweep &sweep);
/// The point whose (filled-in) spec equals `spec`, unrotated ("" label, invalid when none).
ParetoMark sweepMark(const FormatSweep &sweep, const nlohmann::json &spec);

struct BudgetViewData {
    BudgetProblem problem;
    std::vector<BudgetSolution> steps; ///< the optimum at `steps` budgets from the least to the most bytes
    ParetoCurve curve;                 ///< total error against MB of the steps (labels: the method)
    /// Per step, per checkpoint target: whether it can store the step's choice (filled by the
    /// caller, which knows the targets: checkBudgetTargets).
    std::vector<std::vector<BudgetTargetCheck>> targets;
};
/// Solves the problem exactly at `steps` (≥ 2) evenly spaced budgets. Cancelled propagates.
BudgetViewData prepareBudgetView(BudgetProblem problem, int steps, const CancelToken &cancel = {});
/// Bits per weight of each module's chosen candidate.
std::vector<double> choiceBitsPerWeight(const BudgetProblem &problem, const BudgetSolution &solution);

} // namespace quantscope
