// SPDX-License-Identifier: MIT
#pragma once
/// \file comparecontroller.h
/// The jobs behind the Compare tab: runCompare (core/compare) of the view's two paths on a pool
/// thread with progress and Cancel, and a clicked module's two reconstructions prepared as a job
/// result for the Distribution view (overlayReady). A is the opened checkpoint when left empty.
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "engine/progress_estimator.h"
#include "jobtracker.h"
#include "results/results.h"

class QTabWidget;
class QTimer;

namespace quantscope {

class CompareView;
class LoadController;

class CompareController : public QObject {
    Q_OBJECT
public:
    /// Creates the Compare view and adds it as a tab of `tabs`.
    CompareController(QObject *parent, const LoadController *loads, QTabWidget *tabs);
    ~CompareController() override;

    CompareView *view() const { return m_view; }
    bool isRunning() const { return m_job.isRunning() || m_overlay.isRunning(); }
    void shutdown();
    /// Compares the view's paths (A: the opened checkpoint when empty).
    void compare();
    /// Prepares `tensor`'s two reconstructions of the shown comparison (emits overlayReady).
    void showModule(const QString &tensor);

signals:
    void jobEnded();
    /// A module's Ŵ_A and Ŵ_B as configurations "A" and "B" of one tensor.
    void overlayReady(std::shared_ptr<const QuantizeJobResult> result, const QString &tensor);

private:
    void poll();
    /// The job finished: the estimator keeps its whole speed for the next one.
    void finishEstimate();

    const LoadController *m_loads;
    CompareView *m_view = nullptr;
    QThreadPool m_pool;
    JobTracker m_job{this, &m_pool};
    JobTracker m_overlay{this, &m_pool};
    /// The step the running job last reported (written by the worker, read by the timer).
    std::shared_ptr<StepMailbox> m_progress;
    /// Fraction and time left, as the quantize job's (JobController); remembers the speed.
    ProgressEstimator m_estimator;
    QTimer *m_timer = nullptr;
};

} // namespace quantscope
