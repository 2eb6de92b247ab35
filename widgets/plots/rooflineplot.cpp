// SPDX-License-Identifier: MIT
#include "rooflineplot.h"

#include "qtstring.h"
#include "theme.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace quantscope {

RooflinePlot::RooflinePlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("arithmetic intensity (FLOP/byte)"));
    yAxis->setLabel(tr("TFLOP/s"));
    for (auto *axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(logTicker());
    }
    // The legend beside the plot, never over the points.
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
    // Bound labels where they fit, the compute-bound points' first (the top of the roofline
    // crowds: issue 42, labels never overlap).
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        std::vector<int> order(m_labels.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
            return m_view.points[static_cast<std::size_t>(a)].tflops >
                   m_view.points[static_cast<std::size_t>(b)].tflops;
        });
        m_shownLabels = placeLabels(QList<QCPItemText *>(m_labels.begin(), m_labels.end()), order, axisRect()->rect());
    });
}

QString RooflinePlot::labelFor(const std::string &bound, double fraction, const std::string &level)
{
    const QString b = bound == "memory" ? tr("memory") : tr("compute");
    if (!level.empty()) // cache-resident: the fraction is of that level's ceiling
        return QStringLiteral("%1 (%2) %3 %").arg(b, QString::fromStdString(level)).arg(std::lround(100 * fraction));
    return QStringLiteral("%1 %2 %").arg(b).arg(std::lround(100 * fraction));
}

void RooflinePlot::clearData()
{
    m_view = {};
    m_ceilings.clear();
    m_series.clear();
    m_seriesNames.clear();
    m_labels.clear();
    m_shownLabels.clear();
    for (auto *bars : m_spread)
        removePlottable(bars);
    m_spread.clear();
    clearGraphs();
    clearItems();
    finishData();
    replot(rpQueuedReplot);
}

void RooflinePlot::setView(const RooflineView &view)
{
    clearData();
    m_view = view;
    for (const auto &c : view.ceilings) {
        auto *g = addGraph();
        g->setName(tr("%1 ceiling").arg(fromStd(c.dtype)));
        g->setData(toQList(c.intensity), toQList(c.tflops), true);
        m_ceilings.push_back(g);
    }
    // Per series its points by intensity, and the run-to-run spread as error bars in the same
    // order (the slowest and the fastest timed run around the median).
    std::vector<std::vector<const RooflineView::Point *>> bySeries;
    for (const auto &p : view.points) {
        auto it = std::find(m_seriesNames.begin(), m_seriesNames.end(), p.series);
        if (it == m_seriesNames.end()) {
            auto *g = addGraph();
            g->setName(fromStd(p.series));
            g->setLineStyle(QCPGraph::lsNone);
            m_seriesNames.push_back(p.series);
            m_series.push_back(g);
            bySeries.emplace_back();
            it = m_seriesNames.end() - 1;
        }
        bySeries[static_cast<std::size_t>(it - m_seriesNames.begin())].push_back(&p);
    }
    for (std::size_t s = 0; s < m_series.size(); ++s) {
        auto &pts = bySeries[s];
        std::stable_sort(pts.begin(), pts.end(),
                         [](const auto *a, const auto *b) { return a->intensity < b->intensity; });
        QList<double> x, y, minus, plus;
        bool spread = false;
        for (const auto *p : pts) {
            x << p->intensity;
            y << p->tflops;
            minus << (p->tflopsLow > 0 ? p->tflops - p->tflopsLow : 0.0);
            plus << (p->tflopsHigh > 0 ? p->tflopsHigh - p->tflops : 0.0);
            spread = spread || p->tflopsHigh > 0;
        }
        m_series[s]->setData(x, y, true);
        if (spread) {
            auto *bars = new QCPErrorBars(xAxis, yAxis);
            bars->removeFromLegend();
            bars->setDataPlottable(m_series[s]);
            bars->setData(minus, plus);
            bars->setWhiskerWidth(6);
            m_spread.push_back(bars);
        }
    }
    for (const auto &p : view.points) {
        auto *label = new QCPItemText(this);
        label->position->setCoords(p.intensity, p.tflops);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(5, 0, 0, 2));
        label->setText(labelFor(p.bound, p.fraction, p.level));
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.75);
        label->setFont(f);
        label->setSelectable(false);
        m_labels.push_back(label);
    }
    rescaleAxes();
    if (!view.points.empty()) {
        xAxis->setRange(xAxis->range().lower / 1.2, xAxis->range().upper * 1.2);
        yAxis->setRange(yAxis->range().lower / 2, yAxis->range().upper * 2);
    }
    finishData();
    recolor();
    replot(rpQueuedReplot);
}

QString RooflinePlot::boundLabel(std::size_t i) const
{
    return i < m_labels.size() ? m_labels[i]->text() : QString();
}

QPointF RooflinePlot::boundLabelAnchor(std::size_t i) const
{
    return i < m_labels.size() ? m_labels[i]->position->coords() : QPointF();
}

void RooflinePlot::recolor()
{
    const auto &p = palette();
    for (std::size_t i = 0; i < m_ceilings.size(); ++i) {
        QPen pen(theme::configColor(static_cast<int>(i) + 4, p), 1.4, Qt::DashLine);
        m_ceilings[i]->setPen(pen);
    }
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        const QColor c = theme::configColor(static_cast<int>(i), p);
        m_series[i]->setPen(QPen(c));
        m_series[i]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 7));
    }
    for (auto *bars : m_spread)
        if (auto *g = qobject_cast<QCPGraph *>(bars->dataPlottable()))
            bars->setPen(QPen(g->pen().color(), 1.2));
    for (auto *l : m_labels)
        l->setColor(p.color(QPalette::WindowText));
}

QString RooflinePlot::csv() const
{
    QString out = QStringLiteral("series,m,intensity_flop_per_byte,tflops,bound,fraction_of_ceiling\n");
    for (const auto &p : m_view.points)
        out += fromStd(p.series) + QLatin1Char(',') + QString::number(p.m) + QLatin1Char(',') + exact(p.intensity) +
               QLatin1Char(',') + exact(p.tflops) + QLatin1Char(',') + fromStd(p.bound) + QLatin1Char(',') +
               exact(p.fraction) + QLatin1Char('\n');
    return out;
}

QString RooflinePlot::toolTipAt(const QPoint &pos) const
{
    if (m_view.points.empty() || !axisRect()->rect().contains(pos))
        return {};
    double best = 1e30;
    std::size_t bi = 0;
    for (std::size_t i = 0; i < m_view.points.size(); ++i) {
        const auto &p = m_view.points[i];
        const double dx = xAxis->coordToPixel(p.intensity) - pos.x(), dy = yAxis->coordToPixel(p.tflops) - pos.y();
        if (dx * dx + dy * dy < best)
            best = dx * dx + dy * dy, bi = i;
    }
    if (best > 30.0 * 30.0)
        return {};
    const auto &p = m_view.points[bi];
    QString text = tr("%1, M %2: %3 FLOP/byte, %4 TFLOP/s (%5 of the ceiling)")
                       .arg(fromStd(p.series), QString::number(p.m), number(p.intensity), number(p.tflops),
                            labelFor(p.bound, p.fraction, p.level));
    if (p.tflopsHigh > 0)
        text += QLatin1Char('\n') + tr("run to run: %1 to %2 TFLOP/s (the slowest and the fastest timed run)")
                                        .arg(number(p.tflopsLow), number(p.tflopsHigh));
    return text;
}

} // namespace quantscope
