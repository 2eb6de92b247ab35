// SPDX-License-Identifier: MIT
#include "channelplot.h"

#include "theme.h"

#include <cmath>

namespace quantscope {

ChannelPlot::ChannelPlot(QWidget *parent) : PlotWidget(parent)
{
    yAxis->setLabel(tr("max |w|"));
    yAxis2->setLabel(tr("max |x|"));
    placeLegendAbove(); // never over the top channels
    clearData();
    applyPalette();
}

void ChannelPlot::setData(const Series &channels, const Series &outliers, double median, int axis,
                          std::optional<Series> activation, const QString &activationName)
{
    m_channelData = channels;
    m_outlierData = outliers;
    m_median = median;
    m_axis = axis;
    m_activationData = std::move(activation);
    m_activationName = activationName;

    clearGraphs();
    m_activation = nullptr;
    xAxis->setLabel(axis == 1 ? tr("input channel (column)") : tr("output channel (row)"));
    m_channels = addGraph();
    m_channels->setName(tr("channel max |w|"));
    m_channels->setLineStyle(QCPGraph::lsImpulse);
    m_channels->setData(toQList(channels.x), toQList(channels.y), true);
    m_outliers = addGraph();
    m_outliers->setName(tr("top outlier channels"));
    m_outliers->setLineStyle(QCPGraph::lsNone);
    m_outliers->setData(toQList(outliers.x), toQList(outliers.y), true);
    if (m_activationData) {
        m_activation = addGraph(xAxis, yAxis2);
        m_activation->setName(tr("activation max |x|"));
        m_activation->setLineStyle(QCPGraph::lsLine);
        m_activation->setData(toQList(m_activationData->x), toQList(m_activationData->y), true);
    }
    yAxis2->setVisible(m_activationData.has_value());
    recolor();
    rescaleAxes();
    yAxis->setRangeLower(0);
    // A little room above the tallest channel (the legend is above the plot, not in it).
    yAxis->setRangeUpper(yAxis->range().upper * 1.05);
    if (m_activation) {
        yAxis2->setRangeLower(0);
        yAxis2->setRangeUpper(yAxis2->range().upper * 1.05);
    }
    finishData();
    replot(rpQueuedReplot);
}

void ChannelPlot::recolor()
{
    const auto &p = palette();
    if (m_channels)
        m_channels->setPen(QPen(theme::weightColor(p), 1));
    if (m_outliers) {
        m_outliers->setPen(QPen(theme::accentColor(p)));
        m_outliers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme::accentColor(p), 7));
    }
    if (m_activation) {
        QColor c = theme::activationColor(p);
        c.setAlpha(200);
        m_activation->setPen(QPen(c, 1));
    }
}

QString ChannelPlot::csv() const
{
    QString out =
        m_activationData ? QStringLiteral("channel,absmax,activation_absmax\n") : QStringLiteral("channel,absmax\n");
    for (std::size_t i = 0; i < m_channelData.x.size(); ++i) {
        out += exact(m_channelData.x[i]) + QLatin1Char(',') + exact(m_channelData.y[i]);
        if (m_activationData)
            out += QLatin1Char(',') + (i < m_activationData->y.size() ? exact(m_activationData->y[i]) : QString());
        out += QLatin1Char('\n');
    }
    return out;
}

QString ChannelPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos) || m_channelData.x.empty())
        return {};
    const auto c = static_cast<long long>(std::llround(xAxis->pixelToCoord(pos.x())));
    if (c < 0 || c >= static_cast<long long>(m_channelData.x.size()))
        return {};
    const double v = m_channelData.y[static_cast<std::size_t>(c)];
    QString text = tr("channel %1: max |w| %2").arg(c).arg(number(v));
    if (m_median > 0)
        text += tr(" (%1× the median channel)").arg(number(v / m_median));
    if (m_activationData && static_cast<std::size_t>(c) < m_activationData->y.size())
        text += QLatin1Char('\n') +
                tr("activation: max |x| %1").arg(number(m_activationData->y[static_cast<std::size_t>(c)]));
    return text;
}

} // namespace quantscope
