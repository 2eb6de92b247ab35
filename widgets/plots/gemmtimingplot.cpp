// SPDX-License-Identifier: MIT
#include "gemmtimingplot.h"

#include "qtstring.h"
#include "theme.h"

#include <cmath>

namespace quantscope {

GemmTimingPlot::GemmTimingPlot(Quantity quantity, QWidget *parent) : PlotWidget(parent), m_quantity(quantity)
{
    xAxis->setLabel(tr("batch size M (tokens)"));
    yAxis->setLabel(quantity == Quantity::TimeUs ? tr("time (µs)") : tr("TFLOP/s"));
    for (auto *axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(logTicker(axis == xAxis ? 2 : 10, axis));
    }
    xAxis->setNumberFormat(QStringLiteral("f"));
    xAxis->setNumberPrecision(0);
    // The legend beside the plot, never over the curves.
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(6, 4, 6, 4));
    setMinimumHeight(220);
    clearData();
    applyPalette();
}

QString GemmTimingPlot::exportName() const
{
    return m_quantity == Quantity::TimeUs ? QStringLiteral("gemm-time") : QStringLiteral("gemm-tflops");
}

void GemmTimingPlot::clearData()
{
    m_curves.clear();
    m_graphs.clear();
    clearGraphs();
    finishData();
    replot(rpQueuedReplot);
}

void GemmTimingPlot::setCurves(const std::vector<GemmCurve> &curves)
{
    clearData();
    m_curves = curves;
    for (const auto &c : curves) {
        auto *g = addGraph();
        g->setName(fromStd(c.format));
        g->setData(toQList(c.m), toQList(m_quantity == Quantity::TimeUs ? c.timeUs : c.tflops), true);
        m_graphs.push_back(g);
    }
    rescaleAxes();
    // Some room around the points on both log axes.
    xAxis->setRange(xAxis->range().lower / 1.5, xAxis->range().upper * 1.5);
    yAxis->setRange(yAxis->range().lower / 1.5, yAxis->range().upper * 1.5);
    finishData();
    recolor();
    replot(rpQueuedReplot);
}

QCPGraph *GemmTimingPlot::curveGraph(const QString &format) const
{
    for (std::size_t i = 0; i < m_curves.size(); ++i)
        if (fromStd(m_curves[i].format) == format)
            return m_graphs[i];
    return nullptr;
}

int GemmTimingPlot::pointCount() const
{
    int n = 0;
    for (const auto *g : m_graphs)
        n += g->data()->size();
    return n;
}

void GemmTimingPlot::recolor()
{
    const auto &p = palette();
    for (std::size_t i = 0; i < m_graphs.size(); ++i) {
        const QColor c = theme::configColor(static_cast<int>(i), p);
        m_graphs[i]->setPen(QPen(c, 1.6));
        m_graphs[i]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 6));
    }
}

QString GemmTimingPlot::csv() const
{
    QString out = QStringLiteral("format,m,padded_m,%1\n")
                      .arg(m_quantity == Quantity::TimeUs ? QStringLiteral("time_us") : QStringLiteral("tflops"));
    for (const auto &c : m_curves)
        for (std::size_t i = 0; i < c.m.size(); ++i)
            out += fromStd(c.format) + QLatin1Char(',') + exact(c.m[i]) + QLatin1Char(',') +
                   QString::number(c.paddedM[i]) + QLatin1Char(',') +
                   exact(m_quantity == Quantity::TimeUs ? c.timeUs[i] : c.tflops[i]) + QLatin1Char('\n');
    return out;
}

QString GemmTimingPlot::toolTipAt(const QPoint &pos) const
{
    if (m_curves.empty() || !axisRect()->rect().contains(pos))
        return {};
    // The nearest drawn point (in pixels) over all curves.
    double best = 1e30;
    std::size_t bc = 0, bi = 0;
    for (std::size_t c = 0; c < m_curves.size(); ++c)
        for (std::size_t i = 0; i < m_curves[c].m.size(); ++i) {
            const double y = m_quantity == Quantity::TimeUs ? m_curves[c].timeUs[i] : m_curves[c].tflops[i];
            const double dx = xAxis->coordToPixel(m_curves[c].m[i]) - pos.x(), dy = yAxis->coordToPixel(y) - pos.y();
            if (dx * dx + dy * dy < best)
                best = dx * dx + dy * dy, bc = c, bi = i;
        }
    if (best > 30.0 * 30.0)
        return {};
    const GemmCurve &c = m_curves[bc];
    QString text = tr("%1, M %2: %3 µs, %4 TFLOP/s")
                       .arg(fromStd(c.format), number(c.m[bi]), number(c.timeUs[bi]), number(c.tflops[bi]));
    if (c.paddedM[bi] != static_cast<std::int64_t>(c.m[bi]))
        text += QLatin1Char('\n') + tr("ran padded to M = %1").arg(c.paddedM[bi]);
    return text;
}

} // namespace quantscope
