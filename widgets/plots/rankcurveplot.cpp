// SPDX-License-Identifier: MIT
#include "rankcurveplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

RankCurvePlot::RankCurvePlot(const QString &xLabel, const QString &yLabel, const QString &exportName, bool ascending,
                             QWidget *parent)
    : PlotWidget(parent), m_exportName(exportName), m_xLabel(xLabel)
{
    xAxis->setLabel(xLabel);
    yAxis->setLabel(yLabel);
    Q_UNUSED(ascending) // the legend is above the plot whichever way the curves run
    placeLegendAbove();
    m_markerLine = new QCPItemStraightLine(this);
    m_markerLine->setVisible(false);
    applyPalette();
}

void RankCurvePlot::setData(std::vector<NamedSeries> curves)
{
    m_curves = std::move(curves);
    rebuild();
}

void RankCurvePlot::setMarker(double x)
{
    m_marker = x;
    m_markerLine->point1->setCoords(x, 0);
    m_markerLine->point2->setCoords(x, 1);
    m_markerLine->setVisible(x >= 0 && !m_curves.empty());
    replot(rpQueuedReplot);
}

void RankCurvePlot::rebuild()
{
    clearGraphs();
    m_graphs.clear();
    for (const auto &c : m_curves) {
        auto *g = addGraph();
        g->setName(c.name);
        g->setLineStyle(QCPGraph::lsLine);
        g->setData(toQList(c.series.x), toQList(c.series.y), true);
        m_graphs.append(g);
    }
    recolor();
    rescaleAxes();
    if (!m_curves.empty()) {
        const auto r = yAxis->range();
        const double span = r.size() > 0 ? r.size() : std::max(std::abs(r.upper), 1.0);
        yAxis->setRange(std::min(0.0, r.lower), r.upper + 0.08 * span);
    }
    finishData();
    setMarker(m_marker);
}

void RankCurvePlot::recolor()
{
    for (int i = 0; i < m_graphs.size(); ++i) {
        const auto &c = m_curves[static_cast<std::size_t>(i)];
        styleSeries(m_graphs[i], theme::configColor(c.colorIndex, palette()), 1.4, c.stale);
        m_graphs[i]->setBrush(Qt::NoBrush); // curves, not areas: the dashes say stale
    }
    QColor c = palette().color(QPalette::WindowText);
    c.setAlpha(150);
    m_markerLine->setPen(QPen(c, 1, Qt::DashLine));
}

QString RankCurvePlot::csv() const
{
    QString out = QStringLiteral("config,x,y\n");
    for (const auto &c : m_curves)
        for (std::size_t i = 0; i < c.series.x.size(); ++i)
            out += QLatin1Char('"') + c.name + QStringLiteral("\",") + exact(c.series.x[i]) + QLatin1Char(',') +
                   exact(c.series.y[i]) + QLatin1Char('\n');
    return out;
}

QString RankCurvePlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos) || m_curves.empty())
        return {};
    const double x = std::round(xAxis->pixelToCoord(pos.x()));
    QStringList lines;
    lines << QStringLiteral("%1 %2").arg(m_xLabel, number(x));
    for (const auto &c : m_curves)
        for (std::size_t i = 0; i < c.series.x.size(); ++i)
            if (c.series.x[i] == x)
                lines << tr("%1: %2").arg(c.name, number(c.series.y[i]));
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

} // namespace quantscope
