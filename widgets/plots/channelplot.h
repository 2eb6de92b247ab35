// SPDX-License-Identifier: MIT
#pragma once
/// \file channelplot.h
/// The per-channel absmax strip: one impulse per channel, the top outlier channels marked, and
/// the paired activation's channel maxima on the right axis when there is one.
#include "plotwidget.h"

#include <optional>

namespace quantscope {

class ChannelPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit ChannelPlot(QWidget *parent = nullptr);

    /// `axis`: 1 input channels (columns), 0 output channels (rows).
    void setData(const Series &channels, const Series &outliers, double median, int axis,
                 std::optional<Series> activation, const QString &activationName);
    void clearData() { setData({}, {}, 0, 1, std::nullopt, {}); }

    QCPGraph *channelGraph() const { return m_channels; }
    QCPGraph *outlierGraph() const { return m_outliers; }
    QCPGraph *activationGraph() const { return m_activation; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("channel-absmax"); }

protected:
    void recolor() override;

private:
    Series m_channelData, m_outlierData;
    std::optional<Series> m_activationData;
    QString m_activationName;
    double m_median = 0;
    int m_axis = 1;
    QCPGraph *m_channels = nullptr;
    QCPGraph *m_outliers = nullptr;
    QCPGraph *m_activation = nullptr;
};

} // namespace quantscope
