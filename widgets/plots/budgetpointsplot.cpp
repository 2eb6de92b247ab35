// SPDX-License-Identifier: MIT
#include "budgetpointsplot.h"

#include "theme.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

namespace {
double megabytes(const BudgetPoint &p)
{
    return static_cast<double>(p.bytes) / 1e6;
}
} // namespace

BudgetPointsPlot::BudgetPointsPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("MB"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("measured KL (nats/token)"));
    m_predicted = addGraph(xAxis, yAxis);
    m_predicted->setName(tr("predicted"));
    m_predicted->setLineStyle(QCPGraph::lsLine);
    m_measured = addGraph(xAxis, yAxis2);
    m_measured->setName(tr("measured KL"));
    m_measured->setLineStyle(QCPGraph::lsNone);
    m_interval = new QCPErrorBars(xAxis, yAxis2);
    m_interval->setName(tr("KL 95 % interval"));
    m_interval->setDataPlottable(m_measured);
    m_interval->removeFromLegend();
    placeLegendAbove();
    clearData();
    applyPalette();
}

void BudgetPointsPlot::setData(const std::vector<BudgetPoint> &points, const QString &objective)
{
    m_points = points;
    yAxis->setLabel(objective == QLatin1String("output") ? tr("predicted output-aware error")
                                                         : tr("predicted weight error ‖W − Ŵ‖²"));
    QList<double> x, y, mx, my;
    QList<double> low, high;
    double x0 = qInf(), x1 = -qInf(), y0 = qInf(), y1 = -qInf(), k0 = qInf(), k1 = -qInf();
    for (const auto &p : points) {
        x << megabytes(p);
        y << p.predicted;
        x0 = std::min(x0, megabytes(p));
        x1 = std::max(x1, megabytes(p));
        y0 = std::min(y0, p.predicted);
        y1 = std::max(y1, p.predicted);
        if (p.measured && std::isfinite(p.kl)) {
            mx << megabytes(p);
            my << p.kl;
            const bool ci = std::isfinite(p.klLow) && std::isfinite(p.klHigh);
            low << (ci ? p.kl - p.klLow : 0);
            high << (ci ? p.klHigh - p.kl : 0);
            k0 = std::min(k0, ci ? p.klLow : p.kl);
            k1 = std::max(k1, ci ? p.klHigh : p.kl);
        }
    }
    m_predicted->setData(x, y, true);
    m_measured->setData(mx, my, true);
    m_interval->setData(low, high);
    if (!points.empty()) {
        const double span = std::max(x1 - x0, 1e-6);
        xAxis->setRange(x0 - 0.05 * span, x1 + 0.05 * span);
        const double ySpan = std::max(y1 - y0, std::abs(y1) * 0.1 + 1e-12);
        yAxis->setRange(y0 - 0.1 * ySpan, y1 + 0.1 * ySpan);
    }
    if (!mx.isEmpty()) {
        const double kSpan = std::max(k1 - k0, std::abs(k1) * 0.1 + 1e-12);
        yAxis2->setRange(k0 - 0.1 * kSpan, k1 + 0.1 * kSpan);
    }
    recolor();
    finishData();
    yAxis2->setVisible(true);
    replot(rpQueuedReplot);
}

int BudgetPointsPlot::predictedCount() const
{
    return m_predicted->dataCount();
}

int BudgetPointsPlot::measuredCount() const
{
    return m_measured->dataCount();
}

void BudgetPointsPlot::recolor()
{
    const auto &p = palette();
    const QColor predicted = theme::configColor(0, p);
    const QColor measured = theme::configColor(1, p);
    m_predicted->setPen(QPen(predicted, 2));
    m_predicted->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, predicted, 6));
    m_measured->setPen(QPen(measured));
    m_measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, measured, 8));
    m_interval->setPen(QPen(measured));
    yAxis2->setLabelColor(measured);
}

QString BudgetPointsPlot::csv() const
{
    QString out = QStringLiteral("budget_bytes,bytes,predicted,weight_error,output_error,kl,kl_low,kl_high,top1,ppl\n");
    auto num = [](double v) { return std::isnan(v) ? QString() : exact(v); };
    for (const auto &p : m_points)
        out += QString::number(p.budgetBytes) + QLatin1Char(',') + QString::number(p.bytes) + QLatin1Char(',') +
               num(p.predicted) + QLatin1Char(',') + num(p.weightError) + QLatin1Char(',') + num(p.outputError) +
               QLatin1Char(',') + num(p.kl) + QLatin1Char(',') + num(p.klLow) + QLatin1Char(',') + num(p.klHigh) +
               QLatin1Char(',') + num(p.top1) + QLatin1Char(',') + num(p.ppl) + QLatin1Char('\n');
    return out;
}

QString BudgetPointsPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos))
        return {};
    const BudgetPoint *best = nullptr;
    double bestD = 12;
    for (const auto &p : m_points) {
        const double dx = std::abs(xAxis->coordToPixel(megabytes(p)) - pos.x());
        if (dx < bestD) {
            bestD = dx;
            best = &p;
        }
    }
    if (!best)
        return {};
    QString text = tr("%1 MB: predicted %2").arg(number(megabytes(*best)), number(best->predicted));
    if (best->measured)
        text += QLatin1Char('\n') + tr("KL %1 (95 % interval %2 … %3), top-1 %4, perplexity %5")
                                        .arg(number(best->kl), number(best->klLow), number(best->klHigh),
                                             number(best->top1), number(best->ppl));
    return text;
}

} // namespace quantscope
