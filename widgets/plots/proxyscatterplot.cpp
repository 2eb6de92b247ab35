// SPDX-License-Identifier: MIT
#include "proxyscatterplot.h"

#include "qtstring.h"
#include "theme.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

ProxyScatterPlot::ProxyScatterPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("output-aware error E‖(W − Ŵ)x‖²"));
    yAxis->setLabel(tr("KL with the module alone quantized (nats/token)"));
    for (auto *axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(logTicker());
    }
    setLegendWanted(false);
    clearData();
    applyPalette();
}

void ProxyScatterPlot::setData(const LayerMeasures &measures)
{
    m_points.clear();
    for (const auto &m : measures.modules)
        if (m.plotted())
            m_points.push_back(m);
    clearGraphs();
    if (!m_points.empty()) {
        auto *g = addGraph();
        g->setName(tr("modules"));
        g->setLineStyle(QCPGraph::lsNone);
        QList<double> x, y;
        double x0 = qInf(), x1 = 0, y0 = qInf(), y1 = 0;
        for (const auto &p : m_points) {
            x << p.outputError;
            y << p.kl;
            x0 = std::min(x0, p.outputError);
            x1 = std::max(x1, p.outputError);
            y0 = std::min(y0, p.kl);
            y1 = std::max(y1, p.kl);
        }
        g->setData(x, y);
        // A factor of two of room either side on the log axes.
        xAxis->setRange(x0 / 2, x1 * 2);
        yAxis->setRange(y0 / 2, y1 * 2);
    }
    recolor();
    finishData();
    replot(rpQueuedReplot);
}

int ProxyScatterPlot::pointCount() const
{
    return graphCount() > 0 ? graph(0)->dataCount() : 0;
}

void ProxyScatterPlot::recolor()
{
    if (graphCount() == 0)
        return;
    const QColor c = theme::accentColor(palette());
    graph(0)->setPen(QPen(c));
    graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 7));
}

QString ProxyScatterPlot::csv() const
{
    QString out = QStringLiteral("module,scheme,output_error,output_error_rel,rel_frobenius,kl,top1\n");
    auto quoted = [](const std::string &s) {
        QString q = fromStd(s);
        q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    };
    auto num = [](double v) { return std::isnan(v) ? QString() : exact(v); };
    for (const auto &p : m_points)
        out += quoted(p.module) + QLatin1Char(',') + quoted(p.scheme) + QLatin1Char(',') + num(p.outputError) +
               QLatin1Char(',') + num(p.outputErrorRel) + QLatin1Char(',') + num(p.relFrobenius) + QLatin1Char(',') +
               num(p.kl) + QLatin1Char(',') + num(p.top1) + QLatin1Char('\n');
    return out;
}

QString ProxyScatterPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos))
        return {};
    const LayerMeasure *best = nullptr;
    double bestD = 12 * 12; // within 12 pixels
    for (const auto &p : m_points) {
        const double dx = xAxis->coordToPixel(p.outputError) - pos.x();
        const double dy = yAxis->coordToPixel(p.kl) - pos.y();
        if (dx * dx + dy * dy < bestD) {
            bestD = dx * dx + dy * dy;
            best = &p;
        }
    }
    if (!best)
        return {};
    return tr("%1 (%2)\noutput-aware error %3 (relative %4)\nweight error ‖W − Ŵ‖/‖W‖ %5\nKL %6, top-1 %7")
        .arg(fromStd(best->module), fromStd(best->scheme), number(best->outputError), number(best->outputErrorRel),
             number(best->relFrobenius), number(best->kl), number(best->top1));
}

} // namespace quantscope
