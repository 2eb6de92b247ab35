// SPDX-License-Identifier: MIT
#pragma once
/// \file scancontroller.h
/// The job behind the Layers tab: the whole-checkpoint scan (core/scan) of the opened checkpoint
/// with the quantizer panel's configurations on its device, on a pool thread with progress and
/// Cancel. The report is written under the cache folder, one per checkpoint, so a cancelled or
/// interrupted scan resumes where it stopped; a clicked cell selects its tensor in the browser.
#include "engine/progress_estimator.h"
#include "jobtracker.h"
#include "scan/scan.h"

#include <QObject>
#include <QThreadPool>
#include <nlohmann/json.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

class QTabWidget;
class QTimer;

namespace quantscope {

class LayersView;
class LoadController;
class QuantizerPanel;
class TensorBrowser;

class ScanController : public QObject {
    Q_OBJECT
public:
    /// Creates the Layers view and adds it as a tab of `tabs`.
    ScanController(QObject *parent, const LoadController *loads, TensorBrowser *browser, QuantizerPanel *panel,
                   QTabWidget *tabs);
    ~ScanController() override;

    LayersView *view() const { return m_view; }
    bool isRunning() const { return m_job.isRunning(); }
    void shutdown();
    /// Starts (or resumes) the scan of the opened checkpoint.
    void scan();
    /// The scan the window would run now: the panel's configurations and device, the view's
    /// spectra choice, the report under the cache folder.
    ScanOptions options() const;
    /// The report file of a scan of the opened checkpoint (under the cache folder): one per
    /// checkpoint and options (recipe hash, spectra, device), so each resumes on its own.
    QString reportPath(const ScanOptions &options) const;

signals:
    void jobEnded();

private:
    void poll();
    /// The job finished: the estimator keeps its whole speed for the next one.
    void finishEstimate();

    const LoadController *m_loads;
    TensorBrowser *m_browser;
    QuantizerPanel *m_panel;
    QTabWidget *m_tabs;
    LayersView *m_view = nullptr;
    QThreadPool m_pool;
    JobTracker m_job{this, &m_pool};
    /// The step the running job last reported (written by the worker, read by the timer).
    std::shared_ptr<StepMailbox> m_progress;
    /// Fraction and time left, as the quantize job's (JobController); remembers the speed.
    ProgressEstimator m_estimator;
    QTimer *m_timer = nullptr;
};

} // namespace quantscope
