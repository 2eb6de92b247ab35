// SPDX-License-Identifier: MIT
#pragma once
/// \file budgetpointsplot.h
/// The Model tab's budget points: the solver's predicted error against MB (a line, left axis)
/// beside the KL measured at each point with its 95 % interval (right axis). Draws prepared
/// BudgetPoints (core/bridge/model_view.h); computes nothing.
#include "bridge/model_view.h"
#include "plotwidget.h"

namespace quantscope {

class BudgetPointsPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit BudgetPointsPlot(QWidget *parent = nullptr);

    /// `objective`: "weight" or "output" (what `predicted` is).
    void setData(const std::vector<BudgetPoint> &points, const QString &objective);
    void clearData() { setData({}, QString()); }
    int predictedCount() const;
    int measuredCount() const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("budget-points"); }

protected:
    void recolor() override;

private:
    std::vector<BudgetPoint> m_points;
    QCPGraph *m_predicted = nullptr;
    QCPGraph *m_measured = nullptr;
    QCPErrorBars *m_interval = nullptr;
};

} // namespace quantscope
