// SPDX-License-Identifier: MIT
#pragma once
/// \file model_view.h
/// What the window's Model tab draws, prepared here (the widgets compute nothing): from an eval
/// report with per-layer KL (model_jobs.h runEval), each module's output-aware error, weight error
/// and measured KL with the rank agreement of either proxy with KL; and for budget points (the
/// exact optimum at a few byte budgets, each measured by runEval) the predicted error beside the
/// measured KL, with which proxy ranks the points better.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "budget/budget.h"

namespace quantscope {

/// One module of an eval report (NaN where the report has no number).
struct LayerMeasure {
    std::string module;
    std::string scheme;
    double outputError = std::numeric_limits<double>::quiet_NaN();    ///< E‖(W − Ŵ)x‖²
    double outputErrorRel = std::numeric_limits<double>::quiet_NaN(); ///< divided by E‖Wx‖²
    double relFrobenius = std::numeric_limits<double>::quiet_NaN();   ///< ‖W − Ŵ‖ / ‖W‖
    double kl = std::numeric_limits<double>::quiet_NaN();             ///< KL with this module alone quantized
    double top1 = std::numeric_limits<double>::quiet_NaN();
    /// Drawn on the log-log scatter: output-aware error and KL both finite and positive.
    bool plotted() const;
};

/// Spearman's ρ of a proxy against measured KL over the entries with both finite.
struct ProxyAgreement {
    std::optional<double> spearman; ///< none below 2 entries or with constant ranks
    int count = 0;                  ///< entries with both numbers
};

struct LayerMeasures {
    std::vector<LayerMeasure> modules; ///< in the report's order
    ProxyAgreement output;             ///< output-aware error against KL
    ProxyAgreement weight;             ///< relative weight error against KL
    int plotted = 0;                   ///< modules with LayerMeasure::plotted()
};

/// Reads the report's `modules[]` (docs/bridge.md "Eval reports"). Throws FormatError when the
/// report has no `modules` array.
LayerMeasures prepareLayerMeasures(const nlohmann::ordered_json &report);

/// Spearman's ρ of x against y over the indices where both are finite.
ProxyAgreement proxyAgreement(const std::vector<double> &x, const std::vector<double> &y);

/// One budget point: the solver's choice at a budget and, once measured, its eval.
struct BudgetPoint {
    std::uint64_t budgetBytes = 0;
    std::uint64_t bytes = 0;
    double predicted = 0; ///< the solver's objective (BudgetProblem::objective)
    /// Σ mse·numel of the chosen candidates (the weight proxy) and Σ tr(ΔW G ΔWᵀ) (NaN when a
    /// priced module has no output-aware error).
    double weightError = 0;
    double outputError = std::numeric_limits<double>::quiet_NaN();
    bool measured = false;
    double kl = std::numeric_limits<double>::quiet_NaN();
    double klLow = std::numeric_limits<double>::quiet_NaN(), klHigh = std::numeric_limits<double>::quiet_NaN();
    double top1 = std::numeric_limits<double>::quiet_NaN();
    double ppl = std::numeric_limits<double>::quiet_NaN();          ///< perplexity of the quantized model
    double referencePpl = std::numeric_limits<double>::quiet_NaN(); ///< of the original
};

/// Up to `count` (≥ 2) distinct budgets evenly spaced from the problem's least to its most bytes.
std::vector<std::uint64_t> budgetPointBudgets(const BudgetProblem &problem, int count);
/// The point of a solution (not measured yet).
BudgetPoint budgetPoint(const BudgetProblem &problem, const BudgetSolution &solution);
/// Fills the measurement from an eval report (`kl{mean,ci95}`, `top1{mean}`, `quantized{ppl}`,
/// `reference{ppl}`).
void measureBudgetPoint(BudgetPoint &point, const nlohmann::ordered_json &report);

/// Which proxy orders the measured points like their KL.
struct BudgetProxyRanking {
    ProxyAgreement weight, output;
    /// "weight", "output", "tie" or "" (not enough measured points with both proxies).
    std::string better;
};
BudgetProxyRanking rankBudgetProxies(const std::vector<BudgetPoint> &points);

} // namespace quantscope
