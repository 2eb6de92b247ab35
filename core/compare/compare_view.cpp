// SPDX-License-Identifier: MIT
// The Compare view's data (compare_view.h).
#include "compare/compare_view.h"

#include <cmath>
#include <limits>
#include <span>

#include "results/channel_profile.h"
#include "results/plot_data.h"
#include "metrics/error_metrics.h"

namespace quantscope {

std::string toString(CompareMetric m)
{
    switch (m) {
    case CompareMetric::Difference:
        return "difference";
    case CompareMetric::Delta:
        return "delta error (A - B)";
    case CompareMetric::ErrorA:
        return "error A";
    case CompareMetric::ErrorB:
        return "error B";
    case CompareMetric::CodeDiff:
        return "codes differing";
    }
    return "";
}

double compareValue(const ModuleComparison &c, CompareMetric m)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (m) {
    case CompareMetric::Difference: {
        const double d = c.difference();
        return d < 0 ? nan : d;
    }
    case CompareMetric::Delta:
        return c.errorA && c.errorB ? *c.errorA - *c.errorB : nan;
    case CompareMetric::ErrorA:
        return c.errorA.value_or(nan);
    case CompareMetric::ErrorB:
        return c.errorB.value_or(nan);
    case CompareMetric::CodeDiff:
        return c.codeDiff.value_or(nan);
    }
    return nan;
}

LayerGrid prepareCompareGrid(const CompareReport &report, CompareMetric metric)
{
    // The Layers view's layout, fed with one run per module whose value is the chosen number.
    std::vector<nlohmann::ordered_json> lines;
    lines.reserve(report.modules.size());
    for (const ModuleComparison &c : report.modules) {
        const double v = compareValue(c, metric);
        nlohmann::ordered_json value = std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
        lines.push_back({{"module", c.module},
                         {"tensor", c.tensor},
                         {"runs", nlohmann::ordered_json::array({{{"metrics", {{"rel_frobenius", value}}}}})}});
    }
    LayerGrid g = prepareLayerGrid(lines, LayerMetric::RelError, 0);
    g.metric = toString(metric);
    g.specs.clear();
    return g;
}

QuantizeJobResult compareOverlay(const ModuleReconstructions &r, const std::string &tensor, const CancelToken *cancel)
{
    const Tensor &w = r.reference.numel() == 0 ? r.b : r.reference;
    QuantizeJobResult out;
    TensorProfile p;
    p.tensor = tensor;
    p.shape = w.shape();
    p.dtype = "F32";
    if (w.rank() == 2) {
        try {
            p.channels = computeChannelProfiles(w, 8, cancel);
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &) {
            // The histograms still come; the channel strip stays empty.
        }
    }
    out.tensors.push_back(std::move(p));
    if (r.reference.numel() == 0)
        out.warnings.push_back("no reference: W is B's reconstruction");
    for (const auto &[name, wHat, scheme] : {std::tuple{"A", &r.a, &r.schemeA}, std::tuple{"B", &r.b, &r.schemeB}}) {
        QuantizeOutcome o;
        o.tensor = tensor;
        o.config = name;
        o.method = *scheme;
        o.spec = {{"method", *scheme}};
        o.device = "cpu";
        std::span<const float> values(reinterpret_cast<const float *>(wHat->data()),
                                      static_cast<std::size_t>(wHat->numel()));
        o.metrics = computeErrorMetrics(w, values, {}, cancel);
        o.metrics.absErrBins = {};
        o.plot = prepareDistribution(o.metrics);
        out.outcomes.push_back(std::move(o));
    }
    return out;
}

} // namespace quantscope
