// SPDX-License-Identifier: MIT
#include "results/plot_data.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

Series histogramSeries(const Histogram &h)
{
    Series s;
    const auto n = h.counts.size();
    s.x.resize(n);
    s.y.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const int b = static_cast<int>(i);
        s.x[i] = 0.5 * (h.edge(b) + h.edge(b + 1));
        s.y[i] = static_cast<double>(h.counts[i]);
    }
    return s;
}

Series overlapSeries(const Histogram &w, const Histogram &wHat)
{
    Series s = histogramSeries(w);
    const auto n = std::min(w.counts.size(), wHat.counts.size());
    s.x.resize(n);
    s.y.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        s.y[i] = static_cast<double>(std::min(w.counts[i], wHat.counts[i]));
    return s;
}

DistributionData prepareDistribution(const ErrorMetrics &m)
{
    DistributionData d;
    d.w = histogramSeries(m.w);
    d.wHat = histogramSeries(m.wHat);
    d.overlap = overlapSeries(m.w, m.wHat);
    d.err = histogramSeries(m.err);
    if (!m.w.counts.empty())
        d.binWidth = (m.w.hi - m.w.lo) / static_cast<double>(m.w.counts.size());
    if (!m.err.counts.empty())
        d.errBinWidth = (m.err.hi - m.err.lo) / static_cast<double>(m.err.counts.size());
    d.symlog = m.w.symlog;
    d.t = m.w.t;
    d.wHatBelow = m.wHat.below;
    d.wHatAbove = m.wHat.above;
    d.overlapFraction = m.overlap;
    return d;
}

Series channelSeries(const ChannelProfile &p)
{
    Series s;
    s.x.resize(p.absmax.size());
    s.y.resize(p.absmax.size());
    for (std::size_t i = 0; i < p.absmax.size(); ++i) {
        s.x[i] = static_cast<double>(i);
        s.y[i] = p.absmax[i];
    }
    return s;
}

Series outlierSeries(const ChannelProfile &p)
{
    std::vector<OutlierChannel> top(p.top);
    std::sort(top.begin(), top.end(),
              [](const OutlierChannel &a, const OutlierChannel &b) { return a.index < b.index; });
    Series s;
    for (const auto &o : top) {
        s.x.push_back(static_cast<double>(o.index));
        s.y.push_back(o.absmax);
    }
    return s;
}

double symlogForward(double x, double t)
{
    if (!(t > 0))
        return x;
    return std::copysign(std::log10(1.0 + std::fabs(x) / t), x);
}

double symlogInverse(double y, double t)
{
    if (!(t > 0))
        return y;
    return std::copysign(t * (std::pow(10.0, std::fabs(y)) - 1.0), y);
}

} // namespace quantscope
