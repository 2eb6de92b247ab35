// SPDX-License-Identifier: MIT
#pragma once
/// \file plancontroller.h
/// The jobs behind the Recipe and Budget tabs (issue 27): the recipe editor counts against the
/// opened checkpoint's modules; a finished scan's lines become the budget's candidates and its
/// exact optima at the slider's stops (prepared on a pool thread); the sweep of the selected
/// tensor runs on a pool thread; either tab's Export hands its recipe to the Export tab.
#include "jobtracker.h"

#include <QObject>
#include <QThreadPool>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

class QTabWidget;

namespace quantscope {

class BudgetView;
class ExporterPanel;
class LoadController;
class QuantizerPanel;
class RecipeEditor;
class TensorBrowser;

class PlanController : public QObject {
    Q_OBJECT
public:
    /// Creates the Recipe and Budget tabs in `tabs`.
    PlanController(QObject *parent, const LoadController *loads, TensorBrowser *browser, QuantizerPanel *panel,
                   QTabWidget *tabs, ExporterPanel *exporter);
    ~PlanController() override;

    RecipeEditor *recipeEditor() const { return m_editor; }
    BudgetView *budgetView() const { return m_budget; }
    bool isRunning() const { return m_budgetJob.isRunning() || m_sweepJob.isRunning(); }
    void shutdown();
    /// The budget of a scan's module lines (a job; the view follows when it is done); null or
    /// empty clears it.
    void setScanLines(std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines);
    /// Prices the last scan's lines again (the Budget tab's target changed).
    void repriceBudget();
    /// Sweeps the tensor selected in the browser (none selected: the first 2-D weight).
    void sweep();

signals:
    void jobEnded();

private:
    void documentOpened();
    void exportRecipe(const QString &json);

    const LoadController *m_loads;
    TensorBrowser *m_browser;
    QuantizerPanel *m_panel;
    QTabWidget *m_tabs;
    ExporterPanel *m_exporter;
    RecipeEditor *m_editor = nullptr;
    BudgetView *m_budget = nullptr;
    std::shared_ptr<const std::vector<nlohmann::ordered_json>> m_scanLines;
    QThreadPool m_pool;
    JobTracker m_budgetJob{this, &m_pool};
    JobTracker m_sweepJob{this, &m_pool};
};

} // namespace quantscope
