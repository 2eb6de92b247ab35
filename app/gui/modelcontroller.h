// SPDX-License-Identifier: MIT
#pragma once
/// \file modelcontroller.h
/// The jobs behind the Model tab (modelview.h), through the Python bridge (core/bridge): the
/// interpreter check, "Measure layers" (one eval of the current recipe with per-layer KL and the
/// paired capture) and "Measure budget points" (the Budget tab's exact optimum at a few budgets,
/// each written as a recipe and measured by an eval, one after another). Every job runs on a
/// pool thread through a JobTracker; progress is polled; Cancel keeps the points already
/// measured. A bridge error is shown in the tab with its kind, never as a crash.
#include "bridge/model_view.h"
#include "jobtracker.h"

#include <QObject>
#include <QThreadPool>
#include <memory>

class QTabWidget;
class QTimer;

namespace quantscope {

class LoadController;
class ModelView;
class PlanController;
struct ModelJobProgress;

class ModelController : public QObject {
    Q_OBJECT
public:
    /// Creates the Model tab in `tabs`; the recipes come from `plan`'s Recipe and Budget tabs.
    ModelController(QObject *parent, LoadController *loads, PlanController *plan, QTabWidget *tabs);
    ~ModelController() override;

    ModelView *view() const { return m_view; }
    bool isRunning() const { return m_job.isRunning() || m_check.isRunning(); }
    void shutdown();

    void checkInterpreter();
    /// Runs `capture` with the tab's model and data, writing `<model folder>/model.capture.safetensors`
    /// (asked for when the folder is not writable); the capture is then paired.
    void captureActivations();
    void measureLayers();
    void measureBudgetPoints();
    void cancel();

signals:
    void jobEnded();

private:
    void documentOpened();
    void poll();
    void finished(const QString &message);

    LoadController *m_loads;
    PlanController *m_plan;
    ModelView *m_view = nullptr;
    QTimer *m_timer = nullptr;
    /// The model folder filled in from the last checkpoint (replaced by the next one unless edited).
    QString m_defaultModel;
    /// What the running job reported and the points it measured (shared with its worker).
    std::shared_ptr<ModelJobProgress> m_progress;
    QThreadPool m_pool;
    JobTracker m_job{this, &m_pool};
    JobTracker m_check{this, &m_pool};
};

} // namespace quantscope
