// SPDX-License-Identifier: MIT
#include "sigmaplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

SigmaPlot::SigmaPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("index i"));
    yAxis->setLabel(tr("singular value σᵢ of W − Ŵ"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(logTicker());
    placeLegendAbove();
    applyPalette();
}

void SigmaPlot::setData(std::vector<SigmaSeries> series, double tau)
{
    m_series = std::move(series);
    m_tau = tau;
    rebuild();
}

void SigmaPlot::setTau(double tau)
{
    m_tau = tau;
    placeTauLines();
    replot(rpQueuedReplot);
}

void SigmaPlot::rebuild()
{
    clearGraphs();
    clearItems();
    m_graphs.clear();
    m_tauLines.clear();
    for (const auto &s : m_series) {
        auto *g = addGraph();
        g->setName(s.name);
        g->setLineStyle(QCPGraph::lsLine);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));
        g->setData(toQList(s.sigma.x), toQListForLog(s.sigma.y), true);
        m_graphs.append(g);
        auto *line = new QCPItemStraightLine(this);
        line->setClipToAxisRect(true);
        m_tauLines.append(line);
    }
    placeTauLines();
    recolor();
    rescaleAxes();
    if (!m_series.empty()) {
        xAxis->setRange(0, xAxis->range().upper + 1);
        yAxis->setRangeUpper(yAxis->range().upper * 2);
        if (yAxis->range().lower <= 0)
            yAxis->setRangeLower(1e-12);
    }
    finishData();
    replot(rpQueuedReplot);
}

void SigmaPlot::placeTauLines()
{
    for (int i = 0; i < m_tauLines.size(); ++i) {
        const auto &y = m_series[static_cast<std::size_t>(i)].sigma.y;
        const double level = y.empty() ? 0.0 : m_tau * y.front();
        m_tauLines[i]->point1->setCoords(0, level);
        m_tauLines[i]->point2->setCoords(1, level);
        m_tauLines[i]->setVisible(level > 0);
    }
}

void SigmaPlot::recolor()
{
    for (int i = 0; i < m_graphs.size(); ++i) {
        const QColor c = theme::configColor(m_series[static_cast<std::size_t>(i)].colorIndex, palette());
        m_graphs[i]->setPen(QPen(c, 1.4));
        m_graphs[i]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 3));
        m_tauLines[i]->setPen(QPen(c, 1, Qt::DashLine));
    }
}

QString SigmaPlot::csv() const
{
    QString out = QStringLiteral("config,i,sigma,tau_sigma1\n");
    for (const auto &s : m_series) {
        const double level = s.sigma.y.empty() ? 0.0 : m_tau * s.sigma.y.front();
        for (std::size_t i = 0; i < s.sigma.x.size(); ++i)
            out += QLatin1Char('"') + s.name + QStringLiteral("\",") + exact(s.sigma.x[i]) + QLatin1Char(',') +
                   exact(s.sigma.y[i]) + QLatin1Char(',') + exact(level) + QLatin1Char('\n');
    }
    return out;
}

QString SigmaPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos) || m_series.empty())
        return {};
    const auto i = std::llround(xAxis->pixelToCoord(pos.x()));
    if (i < 1)
        return {};
    QStringList lines;
    lines << tr("σ%1").arg(i);
    for (const auto &s : m_series) {
        const auto k = static_cast<std::size_t>(i - 1);
        if (k < s.sigma.y.size())
            lines << tr("%1: %2 (%3 σ₁)")
                         .arg(s.name, number(s.sigma.y[k]),
                              number(s.sigma.y.front() > 0 ? s.sigma.y[k] / s.sigma.y.front() : 0));
    }
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

} // namespace quantscope
