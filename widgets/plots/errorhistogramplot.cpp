// SPDX-License-Identifier: MIT
#include "errorhistogramplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

ErrorHistogramPlot::ErrorHistogramPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("error W − Ŵ"));
    yAxis->setLabel(tr("count"));
    placeLegendAbove();
    setLogY(true);
    applyPalette();
}

void ErrorHistogramPlot::setData(std::vector<NamedSeries> errors)
{
    m_errors = std::move(errors);
    rebuildGraphs();
}

void ErrorHistogramPlot::setLogY(bool on)
{
    m_logY = on;
    yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on)
        yAxis->setTicker(logTicker());
    else
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    rebuildGraphs();
}

void ErrorHistogramPlot::rebuildGraphs()
{
    clearGraphs();
    m_graphs.clear();
    for (const auto &e : m_errors) {
        auto *g = addGraph();
        g->setName(e.stale ? staleName(tr("error %1").arg(e.name)) : tr("error %1").arg(e.name));
        g->setLineStyle(QCPGraph::lsStepCenter);
        g->setData(toQList(e.series.x), m_logY ? toQListForLog(e.series.y) : toQList(e.series.y), true);
        m_graphs.append(g);
    }
    recolor();
    rescaleAxes();
    if (m_logY) {
        if (yAxis->range().lower <= 0)
            yAxis->setRangeLower(0.5);
        yAxis->setRangeUpper(yAxis->range().upper * 2);
    } else {
        yAxis->setRange(0, yAxis->range().upper * 1.05);
    }
    finishData();
    replot(rpQueuedReplot);
}

void ErrorHistogramPlot::recolor()
{
    for (int i = 0; i < m_graphs.size(); ++i) {
        const auto &e = m_errors[static_cast<std::size_t>(i)];
        styleSeries(m_graphs[i], theme::configColor(e.colorIndex, palette()), 1.4, e.stale);
    }
}

QString ErrorHistogramPlot::csv() const
{
    QString out = QStringLiteral("config,error,count\n");
    for (const auto &e : m_errors)
        for (std::size_t i = 0; i < e.series.x.size(); ++i)
            out += e.name + QLatin1Char(',') + exact(e.series.x[i]) + QLatin1Char(',') + exact(e.series.y[i]) +
                   QLatin1Char('\n');
    return out;
}

QString ErrorHistogramPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos) || m_errors.empty())
        return {};
    const double x = xAxis->pixelToCoord(pos.x());
    QStringList lines;
    lines << tr("error ≈ %1").arg(number(x));
    for (const auto &e : m_errors) {
        const auto &s = e.series;
        if (s.x.size() < 2)
            continue;
        const double width = s.x[1] - s.x[0];
        const auto i = static_cast<long long>(std::floor((x - (s.x.front() - width / 2)) / width));
        if (i >= 0 && i < static_cast<long long>(s.x.size()))
            lines << tr("%1: %2 in [%3, %4)")
                         .arg(e.name, number(s.y[static_cast<std::size_t>(i)]),
                              number(s.x[static_cast<std::size_t>(i)] - width / 2),
                              number(s.x[static_cast<std::size_t>(i)] + width / 2));
        else
            lines << tr("%1: outside its range").arg(e.name);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace quantscope
