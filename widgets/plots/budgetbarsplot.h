// SPDX-License-Identifier: MIT
#pragma once
/// \file budgetbarsplot.h
/// The budget's per-layer choices: one bar per module (checkpoint order), its chosen bits per
/// weight; the tooltip names the module and the chosen spec. Draws prepared numbers
/// (core/budget/budget_view.h choiceBitsPerWeight); computes nothing.
#include "plotwidget.h"

#include <string>
#include <vector>

namespace quantscope {

class BudgetBarsPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit BudgetBarsPlot(QWidget *parent = nullptr);

    /// Module names, their chosen spec labels and bits per weight (equal lengths).
    void setChoices(const std::vector<std::string> &modules, const std::vector<std::string> &labels,
                    const std::vector<double> &bitsPerWeight);
    void clearData();
    QCPBars *bars() const { return m_bars; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("budget-choices"); }

protected:
    void recolor() override;

private:
    std::vector<std::string> m_modules, m_labels;
    std::vector<double> m_bits;
    QCPBars *m_bars = nullptr;
};

} // namespace quantscope
