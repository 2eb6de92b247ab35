// SPDX-License-Identifier: MIT
#include "bridge/model_view.h"

#include <algorithm>
#include <cmath>

#include "compare/compare.h"
#include "util/error.h"

namespace quantscope {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double numberOr(const nlohmann::ordered_json &j, const char *key, double fallback = kNaN)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

} // namespace

bool LayerMeasure::plotted() const
{
    return std::isfinite(outputError) && outputError > 0 && std::isfinite(kl) && kl > 0;
}

ProxyAgreement proxyAgreement(const std::vector<double> &x, const std::vector<double> &y)
{
    std::vector<double> a, b;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            a.push_back(x[i]);
            b.push_back(y[i]);
        }
    ProxyAgreement r;
    r.count = static_cast<int>(a.size());
    if (a.size() >= 2) {
        const double rho = spearmanRank(a, b);
        if (std::isfinite(rho))
            r.spearman = rho;
    }
    return r;
}

LayerMeasures prepareLayerMeasures(const nlohmann::ordered_json &report)
{
    const auto it = report.find("modules");
    if (it == report.end() || !it->is_array())
        throw FormatError("the eval report has no \"modules\" array");
    LayerMeasures r;
    std::vector<double> output, weight, kl;
    for (const auto &m : *it) {
        if (!m.is_object())
            continue;
        LayerMeasure l;
        l.module = m.value("module", std::string());
        l.scheme = m.contains("scheme") && m["scheme"].is_string() ? m["scheme"].get<std::string>() : std::string();
        l.outputError = numberOr(m, "output_error");
        l.outputErrorRel = numberOr(m, "output_error_rel");
        l.relFrobenius = numberOr(m, "rel_frobenius");
        l.kl = numberOr(m, "kl");
        l.top1 = numberOr(m, "top1");
        r.plotted += l.plotted() ? 1 : 0;
        output.push_back(l.outputError);
        weight.push_back(l.relFrobenius);
        kl.push_back(l.kl);
        r.modules.push_back(std::move(l));
    }
    r.output = proxyAgreement(output, kl);
    r.weight = proxyAgreement(weight, kl);
    return r;
}

std::vector<std::uint64_t> budgetPointBudgets(const BudgetProblem &problem, int count)
{
    const std::uint64_t lo = problem.minBytes(), hi = problem.maxBytes();
    const int n = std::max(count, 2);
    std::vector<std::uint64_t> out;
    for (int i = 0; i < n; ++i) {
        const auto b = lo + static_cast<std::uint64_t>(static_cast<long double>(hi - lo) * i / (n - 1));
        if (out.empty() || out.back() != b)
            out.push_back(b);
    }
    return out;
}

BudgetPoint budgetPoint(const BudgetProblem &problem, const BudgetSolution &solution)
{
    BudgetPoint p;
    p.budgetBytes = solution.budgetBytes;
    p.bytes = solution.bytes;
    p.predicted = solution.error;
    double output = 0;
    bool outputKnown = true;
    for (std::size_t i = 0; i < problem.modules.size() && i < solution.choice.size(); ++i) {
        const BudgetModule &m = problem.modules[i];
        if (!m.denseReason.empty() || solution.choice[i] < 0)
            continue;
        const BudgetCandidate &c = m.candidates[static_cast<std::size_t>(solution.choice[i])];
        p.weightError += c.mse * static_cast<double>(m.numel);
        if (std::isfinite(c.outputError))
            output += c.outputError;
        else
            outputKnown = false;
    }
    if (outputKnown)
        p.outputError = output;
    return p;
}

void measureBudgetPoint(BudgetPoint &point, const nlohmann::ordered_json &report)
{
    point.measured = true;
    if (const auto kl = report.find("kl"); kl != report.end() && kl->is_object()) {
        point.kl = numberOr(*kl, "mean");
        if (const auto ci = kl->find("ci95");
            ci != kl->end() && ci->is_array() && ci->size() == 2 && (*ci)[0].is_number() && (*ci)[1].is_number()) {
            point.klLow = (*ci)[0].get<double>();
            point.klHigh = (*ci)[1].get<double>();
        }
    }
    if (const auto t = report.find("top1"); t != report.end() && t->is_object())
        point.top1 = numberOr(*t, "mean");
    if (const auto q = report.find("quantized"); q != report.end() && q->is_object())
        point.ppl = numberOr(*q, "ppl");
    if (const auto ref = report.find("reference"); ref != report.end() && ref->is_object())
        point.referencePpl = numberOr(*ref, "ppl");
}

BudgetProxyRanking rankBudgetProxies(const std::vector<BudgetPoint> &points)
{
    std::vector<double> weight, output, kl;
    for (const BudgetPoint &p : points) {
        if (!p.measured)
            continue;
        weight.push_back(p.weightError);
        output.push_back(p.outputError);
        kl.push_back(p.kl);
    }
    BudgetProxyRanking r;
    r.weight = proxyAgreement(weight, kl);
    r.output = proxyAgreement(output, kl);
    if (r.weight.spearman && r.output.spearman) {
        const double w = *r.weight.spearman, o = *r.output.spearman;
        r.better = w == o ? "tie" : (o > w ? "output" : "weight");
    }
    return r;
}

} // namespace quantscope
