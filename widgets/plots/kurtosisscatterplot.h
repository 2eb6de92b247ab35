// SPDX-License-Identifier: MIT
#pragma once
/// \file kurtosisscatterplot.h
/// Across tensors: each configuration's relative error against the tensor's excess kurtosis
/// (before or after the rotation), one colour per configuration, each point labelled with its
/// tensor. Draws prepared KurtosisPoints; computes nothing.
#include "results/kurtosis_data.h"
#include "plotwidget.h"

namespace quantscope {

class KurtosisScatterPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit KurtosisScatterPlot(QWidget *parent = nullptr);

    void setData(const std::vector<KurtosisPoint> &points, bool rotated);
    void clearData() { setData({}, false); }

    /// One graph per configuration label.
    int configurationCount() const { return graphCount(); }
    QCPGraph *configurationGraph(int i) const { return graph(i); }

    /// The tensor labels drawn at the last layout, in widget pixels: none overlaps another
    /// or leaves the plot area (the others are hidden; a point's tooltip names its tensor).
    const QList<QRectF> &shownLabelRects() const noexcept { return m_shownLabels; }
    int labelCount() const { return static_cast<int>(m_labels.size()); }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("kurtosis-vs-error"); }

protected:
    void recolor() override;
    /// The configuration labels drawn again in the current language (LabelWords), not looked up
    /// as translated texts.
    void retranslate() override;

private:
    double xOf(const KurtosisPoint &p) const;
    /// Shows the labels that fit, worst point first (the Kurtosis scatter of 35 tensors drew
    /// its labels into one unreadable block, issue 42).
    void thinLabels();

    std::vector<KurtosisPoint> m_points;
    bool m_rotated = false;
    std::vector<int> m_graphColor;
    QList<QCPItemText *> m_labels;
    std::vector<double> m_labelError; ///< the labelled point's relative error
    QList<QRectF> m_shownLabels;
};

} // namespace quantscope
