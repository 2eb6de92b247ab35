// SPDX-License-Identifier: MIT
#include "kurtosischannelplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

KurtosisChannelPlot::KurtosisChannelPlot(QWidget *parent) : PlotWidget(parent)
{
    yAxis->setLabel(tr("excess kurtosis"));
    placeLegendAbove();
    clearData();
    applyPalette();
}

void KurtosisChannelPlot::setData(const std::vector<double> &kurtosis, const std::vector<std::int64_t> &top, int axis,
                                  bool rotated)
{
    m_values = kurtosis;
    m_top = top;
    m_axis = axis;
    clearGraphs();
    clearItems();
    m_labels.clear();
    xAxis->setLabel(axis == 1 ? tr("input channel (column)") : tr("output channel (row)"));
    QList<double> x, y, mx, my;
    for (std::size_t i = 0; i < kurtosis.size(); ++i) {
        x.append(static_cast<double>(i));
        y.append(kurtosis[i]); // NaN (undefined) is a gap
    }
    m_channels = addGraph();
    m_channels->setName(rotated ? tr("channel excess kurtosis, rotated") : tr("channel excess kurtosis"));
    m_channels->setLineStyle(QCPGraph::lsImpulse);
    m_channels->setData(x, y, true);
    for (const auto c : top) {
        const double v = kurtosis[static_cast<std::size_t>(c)];
        mx.append(static_cast<double>(c));
        my.append(v);
        auto *label = new QCPItemText(this);
        label->position->setCoords(static_cast<double>(c), v);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setText(QString::number(c));
        label->setFont(legend->font());
        label->setPadding(QMargins(0, 0, 0, 6));
        m_labels.append(label);
    }
    m_marked = addGraph();
    m_marked->setName(tr("most kurtotic channels"));
    m_marked->setLineStyle(QCPGraph::lsNone);
    // Sorted by key for QCustomPlot; the labels keep the ranking.
    m_marked->setData(mx, my, false);
    recolor();
    rescaleAxes();
    // Room above the tallest channel for the channel labels (the legend is above the plot).
    const auto r = yAxis->range();
    yAxis->setRange(std::min(r.lower, 0.0), r.upper + 0.15 * std::max(r.size(), 1.0));
    finishData();
    replot(rpQueuedReplot);
}

QStringList KurtosisChannelPlot::labels() const
{
    QStringList out;
    for (const auto *l : m_labels)
        out << l->text();
    return out;
}

void KurtosisChannelPlot::recolor()
{
    const auto &p = palette();
    if (m_channels)
        m_channels->setPen(QPen(theme::weightColor(p), 1));
    if (m_marked) {
        m_marked->setPen(QPen(theme::accentColor(p)));
        m_marked->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme::accentColor(p), 7));
    }
    for (auto *l : m_labels)
        l->setColor(theme::accentColor(p));
}

QString KurtosisChannelPlot::csv() const
{
    QString out = QStringLiteral("channel,excess_kurtosis\n");
    for (std::size_t i = 0; i < m_values.size(); ++i)
        out += QString::number(i) + QLatin1Char(',') + (std::isnan(m_values[i]) ? QString() : exact(m_values[i])) +
               QLatin1Char('\n');
    return out;
}

QString KurtosisChannelPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos) || m_values.empty())
        return {};
    const auto c = static_cast<long long>(std::llround(xAxis->pixelToCoord(pos.x())));
    if (c < 0 || c >= static_cast<long long>(m_values.size()))
        return {};
    return tr("channel %1: excess kurtosis %2").arg(c).arg(number(m_values[static_cast<std::size_t>(c)]));
}

} // namespace quantscope
