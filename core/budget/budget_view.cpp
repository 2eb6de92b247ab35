// SPDX-License-Identifier: MIT
// Plot data of the budget and sweep views (budget_view.h).
#include "budget/budget_view.h"

#include <algorithm>
#include <numeric>

#include "quant/quant_spec.h"

namespace quantscope {

std::vector<ParetoCurve> sweepCurves(const FormatSweep &sweep)
{
    std::vector<ParetoCurve> out;
    for (const auto &p : sweep.points) {
        if (!p.error.empty())
            continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const ParetoCurve &c) { return c.name == p.family; });
        if (it == out.end()) {
            out.push_back({p.family, {}, {}, {}});
            it = out.end() - 1;
        }
        std::string label = p.family;
        if (p.group > 0)
            label += " g" + std::to_string(p.group);
        if (p.axis >= 0)
            label += " axis " + std::to_string(p.axis);
        it->x.push_back(p.bitsPerWeight);
        it->y.push_back(p.mse);
        it->labels.push_back(label);
    }
    for (auto &c : out) {
        std::vector<std::size_t> idx(c.x.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return c.x[a] < c.x[b]; });
        ParetoCurve s{c.name, {}, {}, {}};
        for (auto i : idx) {
            s.x.push_back(c.x[i]);
            s.y.push_back(c.y[i]);
            s.labels.push_back(c.labels[i]);
        }
        c = std::move(s);
    }
    return out;
}

ParetoMark sweepMark(const FormatSweep &sweep, const nlohmann::json &spec)
{
    nlohmann::json full;
    try {
        full = toJson(parseQuantSpec(spec));
    } catch (const std::exception &) {
        return {};
    }
    for (const auto &p : sweep.points)
        if (p.error.empty() && !p.hadamard && p.spec == full)
            return {p.bitsPerWeight, p.mse, p.family};
    return {};
}

BudgetViewData prepareBudgetView(BudgetProblem problem, int steps, const CancelToken &cancel)
{
    BudgetViewData d;
    d.problem = std::move(problem);
    d.curve.name = "optimum";
    if (d.problem.modules.empty())
        return d;
    steps = std::max(steps, 2);
    const std::uint64_t lo = d.problem.minBytes(), hi = d.problem.maxBytes();
    for (int k = 0; k < steps; ++k) {
        cancel.check();
        const std::uint64_t budget = lo + static_cast<std::uint64_t>(static_cast<double>(hi - lo) * k / (steps - 1));
        BudgetSolution s = solveBudget(d.problem, budget);
        d.curve.x.push_back(static_cast<double>(budget) / 1e6);
        d.curve.y.push_back(s.error);
        d.curve.labels.push_back(s.method);
        d.steps.push_back(std::move(s));
    }
    return d;
}

std::vector<double> choiceBitsPerWeight(const BudgetProblem &problem, const BudgetSolution &solution)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < problem.modules.size() && i < solution.choice.size(); ++i) {
        const auto &m = problem.modules[i];
        out.push_back(8.0 * static_cast<double>(m.candidates[static_cast<std::size_t>(solution.choice[i])].bytes) /
                      static_cast<double>(m.numel));
    }
    return out;
}

} // namespace quantscope
