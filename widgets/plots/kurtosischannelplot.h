// SPDX-License-Identifier: MIT
#pragma once
/// \file kurtosischannelplot.h
/// Per-channel excess kurtosis of one tensor: one impulse per channel, the most kurtotic
/// channels marked and labelled with their index. Draws prepared values; computes nothing.
#include "plotwidget.h"

#include <cstdint>
#include <vector>

namespace quantscope {

class KurtosisChannelPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit KurtosisChannelPlot(QWidget *parent = nullptr);

    /// `axis`: 1 input channels, 0 output channels; `top`: the channels to label.
    void setData(const std::vector<double> &kurtosis, const std::vector<std::int64_t> &top, int axis, bool rotated);
    void clearData() { setData({}, {}, 1, false); }

    QCPGraph *channelGraph() const { return m_channels; }
    /// The channel indices labelled, in drawing order.
    QStringList labels() const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("channel-kurtosis"); }

protected:
    void recolor() override;

private:
    std::vector<double> m_values;
    std::vector<std::int64_t> m_top;
    int m_axis = 1;
    QCPGraph *m_channels = nullptr;
    QCPGraph *m_marked = nullptr;
    QList<QCPItemText *> m_labels;
};

} // namespace quantscope
