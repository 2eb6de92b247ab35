// SPDX-License-Identifier: MIT
#pragma once
/// \file histogramplot.h
/// W and Ŵ histograms on one shared value axis (one step line per configuration), the shared
/// area of W and one chosen Ŵ shaded, linear or logarithmic counts.
#include "plotwidget.h"

#include <vector>

namespace quantscope {

class HistogramPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit HistogramPlot(QWidget *parent = nullptr);

    /// `w`: W's bins; `quantized`: Ŵ per configuration over the same bins; `overlap`: min(W, Ŵ)
    /// of configuration `overlapOf` (index into `quantized`, −1 for none).
    void setData(const Series &w, std::vector<NamedSeries> quantized, const Series &overlap, int overlapOf, bool symlog,
                 double t);
    void clearData();
    void setLogY(bool on);
    bool logY() const noexcept { return m_logY; }

    QCPGraph *weightGraph() const { return m_wGraph; }
    const QList<QCPGraph *> &quantizedGraphs() const { return m_quantizedGraphs; }
    QCPGraph *overlapGraph() const { return m_overlapGraph; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("distribution"); }

protected:
    void recolor() override;

private:
    void rebuildGraphs();
    /// The x label: the value, un-mapped when binned on symlog.
    QString valueText(double x) const;

    Series m_w, m_overlap;
    std::vector<NamedSeries> m_quantized;
    int m_overlapOf = -1;
    bool m_symlog = false;
    double m_t = 0;
    bool m_logY = true;
    QCPGraph *m_wGraph = nullptr;
    QList<QCPGraph *> m_quantizedGraphs;
    QCPGraph *m_overlapGraph = nullptr;
};

} // namespace quantscope
