// SPDX-License-Identifier: MIT
#pragma once
/// \file rankcurveplot.h
/// A quantity over an integer x per configuration (rank r: error after rank r, energy captured,
/// MB with the compensator; MiLo pass t: ε_t), with a vertical marker at the chosen x. Draws
/// prepared data only.
#include "plotwidget.h"

#include <vector>

namespace quantscope {

class RankCurvePlot : public PlotWidget {
    Q_OBJECT
public:
    /// `exportName`: base name of exported files; `ascending`: whether the curves rise (no
    /// longer used for placement: the legend sits above the plot either way).
    RankCurvePlot(const QString &xLabel, const QString &yLabel, const QString &exportName, bool ascending,
                  QWidget *parent = nullptr);

    void setData(std::vector<NamedSeries> curves);
    void clearData() { setData({}); }
    /// The vertical marker at x (< 0 hides it).
    void setMarker(double x);
    double marker() const noexcept { return m_marker; }

    const QList<QCPGraph *> &curveGraphs() const { return m_graphs; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return m_exportName; }

protected:
    void recolor() override;

private:
    void rebuild();

    std::vector<NamedSeries> m_curves;
    QString m_exportName;
    QString m_xLabel;
    double m_marker = -1;
    QList<QCPGraph *> m_graphs;
    QCPItemStraightLine *m_markerLine = nullptr;
};

} // namespace quantscope
