// SPDX-License-Identifier: MIT
#pragma once
/// \file jobcontroller.h
/// The window's quantization jobs: the selected tensors of the document × the panel's
/// configurations run on a pool of one thread per core (at low priority) through a JobTracker, so that a
/// newer run or Cancel makes the older job stale at once. While a job runs, the job widget
/// shows the progress the engine reports, interpolated by ProgressEstimator; the finished
/// result becomes the window's results.
#include "engine/progress_estimator.h"
#include "results/results.h"
#include "jobtracker.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <memory>
#include <optional>

class QTimer;

namespace quantscope {

class JobProgressWidget;
class LoadController;
class LogView;
class QuantizerPanel;
class TensorBrowser;
struct FinishedRuns;

class JobController : public QObject {
    Q_OBJECT
public:
    /// Reads the document from `loads`, the selection from `browser`, the configurations from
    /// `panel`; reports in `job` and `log`. `parent` owns the controller.
    JobController(QObject *parent, const LoadController *loads, TensorBrowser *browser, QuantizerPanel *panel,
                  JobProgressWidget *job, LogView *log);
    /// Cancels a running job and waits for the pool's workers.
    ~JobController() override;

    /// Quantizes the selected tensors with every configuration on the pool.
    void run() { start(false); }
    /// Runs only what the results lack (Compute spectra, Run MiLo at This Rank): each
    /// configuration with a selected tensor whose result is missing, failed, stale (edited since
    /// it ran) or without the spectrum now asked for. The other results are kept and the new
    /// ones merged in; with nothing missing it says so and runs nothing. Returns whether a job
    /// started.
    bool runMissing() { return start(true); }
    /// Stops the running job: idle at once; the runs that had finished stay shown as a partial
    /// batch (QuantizeJobResult::partial).
    void cancel();
    /// Cancels a running job and waits for every worker (also stale ones) to return.
    void shutdown();

    bool isRunning() const noexcept { return m_tracker.isRunning(); }
    /// Waits for the pool's workers (also stale ones) to return.
    bool waitForWorkers(int msecs) { return m_pool.waitForDone(msecs); }
    /// Threads of the job pool: one per core. The workers run at low priority, so the UI thread
    /// (idle but for events) still gets a core when it needs one.
    int poolThreads() const { return m_pool.maxThreadCount(); }

    /// The results shown: of the last job, of a restored session, or none.
    std::shared_ptr<const QuantizeJobResult> results() const { return m_results; }
    /// Residual spectra for the next runs (the Spectrum view's options; nullopt: none).
    void setSpectrumOptions(std::optional<SpectrumOptions> options) { m_spectrum = options; }
    /// Replaces the results (nullptr: none); resultsChanged() tells the views.
    void setResults(std::shared_ptr<const QuantizeJobResult> results);

signals:
    /// A short message for the status bar.
    void statusMessage(const QString &text);
    /// A job started (true) or ended, was cancelled or failed (false).
    void runningChanged(bool running);
    void resultsChanged(std::shared_ptr<const QuantizeJobResult> results);
    /// A job delivered its result (true) or failed (false). Cancelled and stale jobs report
    /// nothing.
    void jobFinished(bool ok);
    /// A job ended (delivered, failed or cancelled); the window may have become idle.
    void jobEnded();
    /// A failure to show in a message box.
    void errorOccurred(const QString &title, const QString &text, const QString &details);

private:
    bool start(bool onlyMissing);
    /// `fresh` merged into the results the incremental run kept (m_mergeBase): its outcomes
    /// replace theirs for the same tensor and configuration.
    QuantizeJobResult merged(QuantizeJobResult fresh) const;
    void deliver(QuantizeJobResult result);
    void fail(const QString &error);
    void poll();
    void stopped();

    const LoadController *m_loads;
    TensorBrowser *m_browser;
    QuantizerPanel *m_panel;
    JobProgressWidget *m_job;
    LogView *m_log;

    /// Newer requests make older ones stale.
    QThreadPool m_pool;
    JobTracker m_tracker{this, &m_pool};
    /// What the running job last reported, shared with its worker.
    std::shared_ptr<StepMailbox> m_progress;
    /// The running job's finished runs (kept by Cancel).
    std::shared_ptr<FinishedRuns> m_finished;
    QTimer *m_progressTimer = nullptr;
    /// Steady-clock seconds when the running job started.
    double m_jobStart = 0;
    /// Remembers the measured speed across jobs.
    ProgressEstimator m_estimator;

    std::shared_ptr<const QuantizeJobResult> m_results;
    std::shared_ptr<const QuantizeJobResult> m_mergeBase; ///< kept by an incremental run
    std::optional<SpectrumOptions> m_spectrum;
};

} // namespace quantscope
