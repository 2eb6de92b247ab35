// SPDX-License-Identifier: MIT
#pragma once
/// \file budgetview.h
/// The Budget tab: a slider over the budget (its stops are exact optima prepared in core,
/// core/budget/budget_view.h), the total error against MB with the chosen point marked, the
/// per-module choices as bars, Export (hands the chosen recipe to the Export tab); below, the
/// format sweep of the selected tensor as error against bits per weight, one curve per format
/// family, the current configuration marked. The objective (weight error or the output-aware
/// error on the scan's capture) is chosen here. Computes nothing: the app's job prepares the data.
#include <QWidget>
#include <memory>

#include "budget/budget_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;

namespace quantscope {

class BudgetBarsPlot;
class ParetoPlot;

class BudgetView : public QWidget {
    Q_OBJECT
public:
    explicit BudgetView(QWidget *parent = nullptr);

    /// The budget data of a scan (null clears the view).
    void setData(std::shared_ptr<const BudgetViewData> data);
    /// The sweep of one tensor and the mark of the current configuration.
    void setSweep(const FormatSweep &sweep, const ParetoMark &mark);
    /// A line under the sweep (running, failed, …).
    void setSweepStatus(const QString &text);
    /// The checkpoint target the budget is priced for: "" (any), "quark", "compressed-tensors",
    /// "fp8-block" or "quantscope" (export/config_export.h toString).
    QString target() const;
    /// What the solver minimises: "auto", "weight" or "output" (budget.h BudgetObjective).
    QString objective() const;
    /// The slider's stop (0 … steps − 1).
    void setStep(int step);
    int step() const;
    /// The recipe of the chosen stop (canonical JSON), empty without data.
    QString recipeJson() const;
    const BudgetSolution *currentSolution() const;
    /// The data shown (null when none).
    const std::shared_ptr<const BudgetViewData> &data() const { return m_data; }

    QSlider *slider() const { return m_slider; }
    QComboBox *targetBox() const { return m_target; }
    QComboBox *objectiveBox() const { return m_objective; }
    /// Which objective the shown budget minimises and why (BudgetProblem::objectiveNote).
    QLabel *objectiveNote() const { return m_objectiveNote; }
    ParetoPlot *budgetPlot() const { return m_budgetPlot; }
    BudgetBarsPlot *barsPlot() const { return m_bars; }
    ParetoPlot *sweepPlot() const { return m_sweepPlot; }
    QPushButton *exportButton() const { return m_export; }
    QPushButton *sweepButton() const { return m_sweep; }
    QLabel *summary() const { return m_summary; }

signals:
    void exportRequested(const QString &json);
    /// The user chose another target: the budget must be priced again.
    void targetChanged();
    /// The user chose another objective: the budget must be priced again.
    void objectiveChanged();
    void sweepRequested();

private:
    void showStep();

    std::shared_ptr<const BudgetViewData> m_data;
    QSlider *m_slider = nullptr;
    QComboBox *m_target = nullptr;
    QComboBox *m_objective = nullptr;
    QLabel *m_objectiveNote = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_export = nullptr;
    ParetoPlot *m_budgetPlot = nullptr;
    BudgetBarsPlot *m_bars = nullptr;
    QPushButton *m_sweep = nullptr;
    QLabel *m_sweepStatus = nullptr;
    ParetoPlot *m_sweepPlot = nullptr;
};

} // namespace quantscope
