// SPDX-License-Identifier: MIT
#include "moebarsplot.h"

#include "qtstring.h"
#include "theme.h"

#include <algorithm>

namespace quantscope {

namespace {
constexpr double kOffset = 0.18, kWidth = 0.34;
}

MoeBarsPlot::MoeBarsPlot(QWidget *parent) : PlotWidget(parent)
{
    yAxis->setLabel(tr("time per step (µs)"));
    m_loop = new QCPBars(xAxis, yAxis);
    m_loop->setName(tr("one launch per expert"));
    m_loop->setWidth(kWidth);
    m_batched = new QCPBars(xAxis, yAxis);
    m_batched->setName(tr("one strided-batched launch"));
    m_batched->setWidth(kWidth);
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

void MoeBarsPlot::clearData()
{
    m_bars = {};
    m_loop->data()->clear();
    m_batched->data()->clear();
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    finishData();
    replot(rpQueuedReplot);
}

void MoeBarsPlot::setBars(const MoeBars &bars)
{
    clearData();
    m_bars = bars;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (std::size_t i = 0; i < bars.groups.size(); ++i) {
        const double x = static_cast<double>(i + 1);
        ticker->addTick(x, tr("%1\n%2 experts").arg(fromStd(bars.groups[i])).arg(bars.experts[i]));
        if (bars.loopUs[i] > 0)
            m_loop->addData(x - kOffset, bars.loopUs[i]);
        if (bars.batchedUs[i] > 0)
            m_batched->addData(x + kOffset, bars.batchedUs[i]);
        top = std::max({top, bars.loopUs[i], bars.batchedUs[i]});
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(0.4, static_cast<double>(bars.groups.size()) + 0.6);
    yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
    finishData();
    recolor();
    replot(rpQueuedReplot);
}

void MoeBarsPlot::recolor()
{
    const auto &p = palette();
    const QColor a = theme::configColor(0, p), b = theme::configColor(1, p);
    m_loop->setPen(QPen(a));
    m_loop->setBrush(a);
    m_batched->setPen(QPen(b));
    m_batched->setBrush(b);
}

QString MoeBarsPlot::csv() const
{
    QString out = QStringLiteral("group,experts,loop_us_per_step,strided_batched_us_per_step\n");
    for (std::size_t i = 0; i < m_bars.groups.size(); ++i)
        out += fromStd(m_bars.groups[i]) + QLatin1Char(',') + QString::number(m_bars.experts[i]) + QLatin1Char(',') +
               exact(m_bars.loopUs[i]) + QLatin1Char(',') + exact(m_bars.batchedUs[i]) + QLatin1Char('\n');
    return out;
}

QString MoeBarsPlot::toolTipAt(const QPoint &pos) const
{
    if (m_bars.groups.empty() || !axisRect()->rect().contains(pos))
        return {};
    const double x = xAxis->pixelToCoord(pos.x());
    const long i = std::lround(x) - 1;
    if (i < 0 || i >= static_cast<long>(m_bars.groups.size()))
        return {};
    const auto u = static_cast<std::size_t>(i);
    const bool batched = x >= static_cast<double>(i + 1);
    const double v = batched ? m_bars.batchedUs[u] : m_bars.loopUs[u];
    if (!(v > 0))
        return {};
    return tr("%1, %2: %3 µs per step")
        .arg(fromStd(m_bars.groups[u]), batched ? m_batched->name() : m_loop->name(), number(v));
}

} // namespace quantscope
