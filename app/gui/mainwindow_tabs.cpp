// SPDX-License-Identifier: MIT
// The main window's Compare, Recipe, Budget, Model and KV cache tabs (mainwindow.h): their controllers and how
// they reach the other views — a compared module opens in the Distribution view as A and B; the
// Layers view's lines (a scan's or a session's) feed the budget; Export goes to the Export tab.
#include "mainwindow.h"

#include "comparecontroller.h"
#include "distributionview.h"
#include "exporterpanel.h"
#include "jobcontroller.h"
#include "kvcontroller.h"
#include "layersview.h"
#include "loadcontroller.h"
#include "modelcontroller.h"
#include "plancontroller.h"
#include "scancontroller.h"

#include <QLineEdit>
#include <QTabWidget>

namespace quantscope {

void MainWindow::createCompareAndPlanTabs()
{
    // The Export tab's checkpoint row follows the opened document (still editable there).
    connect(m_loads, &LoadController::loadEnded, m_exporter, [this] {
        if (const auto ck = m_loads->checkpoint(); ck && !m_exporter->exporting())
            m_exporter->checkpointEdit()->setText(QString::fromStdString(ck->path().string()));
    });
    m_compare = new CompareController(this, m_loads, m_tabs); // the Compare tab; a module opens as A and B
    connect(m_compare, &CompareController::jobEnded, this, &MainWindow::finishBackgroundTask);
    connect(m_compare, &CompareController::overlayReady, this, [this](auto result, const QString &tensor) {
        m_jobs->setResults(std::move(result));
        m_distribution->setCurrentTensor(tensor);
        m_tabs->setCurrentWidget(m_distribution);
    });

    // The Recipe and Budget tabs (issue 27): the Layers view's lines (a scan's or a session's) feed
    // the budget; Export goes to the Export tab.
    m_plan = new PlanController(this, m_loads, m_browser, m_panel, m_tabs, m_exporter);
    connect(m_scan->view(), &LayersView::linesChanged, m_plan,
            [this] { m_plan->setScanLines(m_scan->view()->lines()); });
    connect(m_plan, &PlanController::jobEnded, this, &MainWindow::finishBackgroundTask);

    // The Model tab (issue 40): the recipes above measured on the model through the Python bridge.
    m_model = new ModelController(this, m_loads, m_plan, m_tabs);
    connect(m_model, &ModelController::jobEnded, this, &MainWindow::finishBackgroundTask);

    // The KV cache tab (issue 41): the KV-cache lab on the paired capture or a K/V file.
    m_kv = new KvController(this, m_loads, m_tabs);
    connect(m_kv, &KvController::jobEnded, this, &MainWindow::finishBackgroundTask);
}

} // namespace quantscope
