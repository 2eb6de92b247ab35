// SPDX-License-Identifier: MIT
#include "histogramplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

namespace {

/// Labels a symlog-binned axis with the values themselves.
class SymlogTicker : public QCPAxisTicker {
public:
    explicit SymlogTicker(double t) : m_t(t) {}

protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        return locale.toString(symlogInverse(tick, m_t), 'g', 3);
    }

private:
    double m_t;
};

/// Index of the bin whose centre is nearest to x (series with uniform bins), −1 outside.
int binAt(const Series &s, double x)
{
    if (s.x.size() < 2)
        return s.x.empty() ? -1 : 0;
    const double width = s.x[1] - s.x[0];
    const double first = s.x.front() - width / 2;
    const auto i = static_cast<long long>(std::floor((x - first) / width));
    return i >= 0 && i < static_cast<long long>(s.x.size()) ? static_cast<int>(i) : -1;
}

} // namespace

HistogramPlot::HistogramPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("value"));
    yAxis->setLabel(tr("count"));
    placeLegendAbove(); // never over the largest bins
    setLogY(true);
    applyPalette();
}

void HistogramPlot::setData(const Series &w, std::vector<NamedSeries> quantized, const Series &overlap, int overlapOf,
                            bool symlog, double t)
{
    m_w = w;
    m_quantized = std::move(quantized);
    m_overlap = overlap;
    m_overlapOf = overlapOf >= 0 && overlapOf < static_cast<int>(m_quantized.size()) ? overlapOf : -1;
    m_symlog = symlog;
    m_t = t;
    rebuildGraphs();
}

void HistogramPlot::clearData()
{
    setData({}, {}, {}, -1, false, 0);
}

void HistogramPlot::setLogY(bool on)
{
    m_logY = on;
    if (on) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(logTicker());
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    rebuildGraphs();
}

void HistogramPlot::rebuildGraphs()
{
    clearGraphs();
    m_quantizedGraphs.clear();
    m_wGraph = nullptr;
    m_overlapGraph = nullptr;
    const auto values = [this](const std::vector<double> &y) { return m_logY ? toQListForLog(y) : toQList(y); };

    // The shaded overlap goes first so that the lines are drawn over it.
    if (m_overlapOf >= 0 && !m_overlap.x.empty()) {
        m_overlapGraph = addGraph();
        m_overlapGraph->setName(tr("overlap W ∩ Ŵ %1").arg(m_quantized[static_cast<std::size_t>(m_overlapOf)].name));
        m_overlapGraph->setLineStyle(QCPGraph::lsStepCenter);
        m_overlapGraph->setData(toQList(m_overlap.x), values(m_overlap.y), true);
    }
    if (!m_w.x.empty()) {
        m_wGraph = addGraph();
        m_wGraph->setName(tr("W (original)"));
        m_wGraph->setLineStyle(QCPGraph::lsStepCenter);
        m_wGraph->setData(toQList(m_w.x), values(m_w.y), true);
    }
    for (const auto &q : m_quantized) {
        auto *g = addGraph();
        g->setName(q.stale ? staleName(tr("Ŵ %1").arg(q.name)) : tr("Ŵ %1").arg(q.name));
        g->setLineStyle(QCPGraph::lsStepCenter);
        g->setData(toQList(q.series.x), values(q.series.y), true);
        m_quantizedGraphs.append(g);
    }
    if (m_symlog)
        xAxis->setTicker(QSharedPointer<SymlogTicker>::create(m_t));
    else
        xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    xAxis->setLabel(m_symlog ? tr("value (symlog bins)") : tr("value"));
    recolor();
    rescaleAxes();
    if (m_logY && yAxis->range().lower <= 0)
        yAxis->setRangeLower(0.5);
    // A little room above the peak (the legend is above the plot, not in it).
    if (m_logY)
        yAxis->setRangeUpper(yAxis->range().upper * 2);
    else
        yAxis->setRange(0, yAxis->range().upper * 1.05);
    finishData();
    replot(rpQueuedReplot);
}

void HistogramPlot::recolor()
{
    const auto &p = palette();
    if (m_wGraph)
        m_wGraph->setPen(QPen(theme::weightColor(p), 2));
    for (int i = 0; i < m_quantizedGraphs.size(); ++i) {
        const auto &q = m_quantized[static_cast<std::size_t>(i)];
        styleSeries(m_quantizedGraphs[i], theme::configColor(q.colorIndex, p), 1.4, q.stale);
    }
    if (m_overlapGraph) {
        QColor c = theme::configColor(m_quantized[static_cast<std::size_t>(m_overlapOf)].colorIndex, p);
        c.setAlpha(70);
        m_overlapGraph->setPen(Qt::NoPen);
        m_overlapGraph->setBrush(c);
    }
}

QString HistogramPlot::valueText(double x) const
{
    return number(m_symlog ? symlogInverse(x, m_t) : x);
}

QString HistogramPlot::csv() const
{
    QString out = m_symlog ? QStringLiteral("bin_center_symlog,value,w") : QStringLiteral("value,w");
    for (const auto &q : m_quantized)
        out += QStringLiteral(",w_hat_") + q.name;
    if (m_overlapOf >= 0)
        out += QStringLiteral(",overlap_") + m_quantized[static_cast<std::size_t>(m_overlapOf)].name;
    out += QLatin1Char('\n');
    for (std::size_t i = 0; i < m_w.x.size(); ++i) {
        if (m_symlog)
            out += exact(m_w.x[i]) + QLatin1Char(',') + exact(symlogInverse(m_w.x[i], m_t));
        else
            out += exact(m_w.x[i]);
        out += QLatin1Char(',') + exact(m_w.y[i]);
        for (const auto &q : m_quantized)
            out += QLatin1Char(',') + (i < q.series.y.size() ? exact(q.series.y[i]) : QString());
        if (m_overlapOf >= 0)
            out += QLatin1Char(',') + (i < m_overlap.y.size() ? exact(m_overlap.y[i]) : QString());
        out += QLatin1Char('\n');
    }
    return out;
}

QString HistogramPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos))
        return {};
    const int i = binAt(m_w, xAxis->pixelToCoord(pos.x()));
    if (i < 0)
        return {};
    const double width = m_w.x.size() > 1 ? m_w.x[1] - m_w.x[0] : 0;
    QString text = tr("bin %1: [%2, %3)")
                       .arg(i)
                       .arg(valueText(m_w.x[static_cast<std::size_t>(i)] - width / 2),
                            valueText(m_w.x[static_cast<std::size_t>(i)] + width / 2));
    text += QLatin1Char('\n') + tr("W: %1").arg(number(m_w.y[static_cast<std::size_t>(i)]));
    for (const auto &q : m_quantized)
        if (static_cast<std::size_t>(i) < q.series.y.size())
            text += QLatin1Char('\n') + tr("Ŵ %1: %2").arg(q.name, number(q.series.y[static_cast<std::size_t>(i)]));
    if (m_overlapOf >= 0 && static_cast<std::size_t>(i) < m_overlap.y.size())
        text += QLatin1Char('\n') + tr("shared with %1: %2")
                                        .arg(m_quantized[static_cast<std::size_t>(m_overlapOf)].name,
                                             number(m_overlap.y[static_cast<std::size_t>(i)]));
    return text;
}

} // namespace quantscope
