// SPDX-License-Identifier: MIT
#include "paretoplot.h"

#include "qtstring.h"
#include "palette.h"
#include "theme.h"

#include <algorithm>

namespace quantscope {

ParetoPlot::ParetoPlot(Kind kind, QWidget *parent) : PlotWidget(parent), m_kind(kind)
{
    xAxis->setLabel(kind == Kind::Sweep ? tr("bits per weight") : tr("size (MB)"));
    yAxis->setLabel(kind == Kind::Sweep ? tr("mean squared error") : tr("total squared error"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    // The legend beside the plot, never over the curves.
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(6, 4, 6, 4));
    setMinimumHeight(200);
    clearData();
    applyPalette();
}

QString ParetoPlot::exportName() const
{
    return m_kind == Kind::Sweep ? QStringLiteral("format-sweep") : QStringLiteral("budget");
}

void ParetoPlot::clearData()
{
    m_curves.clear();
    m_graphs.clear();
    m_mark = {};
    clearGraphs();
    m_markGraph = addGraph();
    m_markGraph->setName(m_kind == Kind::Sweep ? tr("current configuration") : tr("chosen budget"));
    m_markGraph->setLineStyle(QCPGraph::lsNone);
    legend->setVisible(false);
    recolor();
    replot(rpQueuedReplot);
}

void ParetoPlot::setCurves(const std::vector<ParetoCurve> &curves)
{
    const ParetoMark mark = m_mark;
    clearData();
    m_curves = curves;
    for (const auto &c : curves) {
        auto *g = addGraph();
        g->setName(fromStd(c.name));
        g->setData(toQList(c.x), toQList(c.y), true);
        m_graphs.push_back(g);
    }
    legend->setVisible(!curves.empty());
    rescaleAxes();
    if (!curves.empty()) {
        const double span = std::max(xAxis->range().size(), 1e-9);
        xAxis->setRange(xAxis->range().lower - span * 0.05, xAxis->range().upper + span * 0.05);
        yAxis->setRange(yAxis->range().lower / 1.5, yAxis->range().upper * 1.5);
    }
    setMark(mark);
}

void ParetoPlot::setMark(const ParetoMark &mark)
{
    m_mark = mark;
    m_markGraph->data()->clear();
    if (mark.valid())
        m_markGraph->addData(mark.x, mark.y);
    m_markGraph->removeFromLegend();
    if (mark.valid())
        m_markGraph->addToLegend();
    recolor();
    replot(rpQueuedReplot);
}

void ParetoPlot::recolor()
{
    const auto &p = palette();
    // A rotated family (" + H") takes its base family's colour, dashed.
    const std::string rotated = " + H";
    std::vector<std::string> bases;
    for (std::size_t i = 0; i < m_graphs.size(); ++i) {
        std::string base = m_curves[i].name;
        const bool dashed = base.size() > rotated.size() && base.ends_with(rotated);
        if (dashed)
            base.resize(base.size() - rotated.size());
        auto it = std::find(bases.begin(), bases.end(), base);
        if (it == bases.end())
            it = bases.insert(bases.end(), base);
        // Each family its own colour and marker (eight families: eight of each); the rotated
        // variant has its family's, hollow and dashed.
        const int family = static_cast<int>(it - bases.begin());
        const QColor c = theme::configColor(family, p);
        m_graphs[i]->setPen(QPen(c, 1.4, dashed ? Qt::DashLine : Qt::SolidLine));
        m_graphs[i]->setScatterStyle(
            QCPScatterStyle(theme::configMarker(family), c, dashed ? QColor(Qt::transparent) : c, 7));
    }
    if (m_markGraph) {
        const QColor a = theme::accentColor(p);
        m_markGraph->setPen(QPen(a, 2));
        m_markGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(a, 2), Qt::NoBrush, 14));
    }
}

QString ParetoPlot::csv() const
{
    QString out = m_kind == Kind::Sweep ? QStringLiteral("family,point,bits_per_weight,mse\n")
                                        : QStringLiteral("curve,method,mb,total_error\n");
    for (const auto &c : m_curves)
        for (std::size_t i = 0; i < c.x.size(); ++i)
            out += fromStd(c.name) + QLatin1Char(',') + fromStd(i < c.labels.size() ? c.labels[i] : std::string()) +
                   QLatin1Char(',') + exact(c.x[i]) + QLatin1Char(',') + exact(c.y[i]) + QLatin1Char('\n');
    return out;
}

QString ParetoPlot::toolTipAt(const QPoint &pos) const
{
    if (m_curves.empty() || !axisRect()->rect().contains(pos))
        return {};
    double best = 1e30;
    std::size_t bc = 0, bi = 0;
    for (std::size_t c = 0; c < m_curves.size(); ++c)
        for (std::size_t i = 0; i < m_curves[c].x.size(); ++i) {
            const double dx = xAxis->coordToPixel(m_curves[c].x[i]) - pos.x();
            const double dy = yAxis->coordToPixel(m_curves[c].y[i]) - pos.y();
            if (dx * dx + dy * dy < best)
                best = dx * dx + dy * dy, bc = c, bi = i;
        }
    if (best > 30.0 * 30.0)
        return {};
    const ParetoCurve &c = m_curves[bc];
    const QString label = fromStd(bi < c.labels.size() ? c.labels[bi] : c.name);
    return m_kind == Kind::Sweep ? tr("%1: %2 bits per weight, mse %3").arg(label, number(c.x[bi]), number(c.y[bi]))
                                 : tr("%1 MB: total error %2").arg(number(c.x[bi]), number(c.y[bi]));
}

} // namespace quantscope
