// SPDX-License-Identifier: MIT
#pragma once
/// \file paretoplot.h
/// Error against size, one curve per series with a marked point: the format sweep (mse against
/// bits per weight, one curve per format family, the current configuration marked) and the
/// budget (total error against MB, the chosen budget marked). Log y. Draws prepared
/// ParetoCurves (core/budget/budget_view.h); computes nothing.
#include "budget/budget_view.h"
#include "plotwidget.h"

namespace quantscope {

class ParetoPlot : public PlotWidget {
    Q_OBJECT
public:
    enum class Kind { Sweep, Budget };
    explicit ParetoPlot(Kind kind, QWidget *parent = nullptr);

    void setCurves(const std::vector<ParetoCurve> &curves);
    /// The marked point (an invalid mark hides it).
    void setMark(const ParetoMark &mark);
    void clearData();
    const std::vector<ParetoCurve> &curves() const { return m_curves; }
    const ParetoMark &mark() const { return m_mark; }
    QCPGraph *markGraph() const { return m_markGraph; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override;

protected:
    void recolor() override;

private:
    Kind m_kind;
    std::vector<ParetoCurve> m_curves;
    std::vector<QCPGraph *> m_graphs;
    ParetoMark m_mark;
    QCPGraph *m_markGraph = nullptr;
};

} // namespace quantscope
