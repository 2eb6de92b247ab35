// SPDX-License-Identifier: MIT
#pragma once
/// \file analysiscontroller.h
/// The jobs behind the Scale-constant, Kurtosis and GEMM timing tabs: each runs its core function
/// (computeScaleConstantData, computeKurtosisData, runGemmBench) on a small pool through its own JobTracker,
/// so a newer request or Cancel makes the older one stale; progress is polled from the worker.
/// A c clicked in the Scale-constant view is written into the panel's configuration.
#include "results/results.h"
#include "results/weight_preview.h"
#include "jobtracker.h"

#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <memory>

class QTabWidget;
class QTimer;

namespace quantscope {

class GemmTimingView;
class KurtosisView;
class LoadController;
class QuantizerPanel;
class ScaleConstantView;
class TensorBrowser;

class AnalysisController : public QObject {
    Q_OBJECT
public:
    /// Creates the views and adds them as tabs of `tabs`.
    AnalysisController(QObject *parent, const LoadController *loads, TensorBrowser *browser, QuantizerPanel *panel,
                       QTabWidget *tabs);
    ~AnalysisController() override;

    ScaleConstantView *scaleConstantView() const { return m_scale; }
    KurtosisView *kurtosisView() const { return m_kurtosis; }
    GemmTimingView *gemmTimingView() const { return m_gemm; }
    /// A job of the three views runs.
    bool isRunning() const { return m_scaleJob.isRunning() || m_kurtosisJob.isRunning() || m_gemmJob.isRunning(); }
    /// That, or the selected tensor's preview is being computed.
    bool isBusy() const { return isRunning() || m_previewJob.isRunning(); }
    /// Stops the jobs and waits for the workers.
    void shutdown();

    /// The results the Kurtosis scatter draws its points from.
    void setResults(std::shared_ptr<const QuantizeJobResult> results);
    void sweep(const QString &tensor, qint64 group, qint64 rotate);
    void profileKurtosis(const QStringList &tensors, qint64 rotate);
    /// Times the GEMMs of `tensor`'s N×K for M = 1, 2, 4, … ≤ maxM on the panel's device.
    void timeGemms(const QString &tensor, qint64 maxM);
    /// W's histogram and statistics of `tensor` on the pool, while there are no results
    /// (weightPreviewReady delivers them; a newer selection makes an older preview stale).
    void previewWeight(const QString &tensor);

signals:
    /// A job delivered, failed or was cancelled.
    void jobEnded();
    /// The selected tensor's preview (null: none, e.g. it could not be read).
    void weightPreviewReady(std::shared_ptr<const WeightPreview> preview);

private:
    void setC(int index, double c);
    void poll();

    const LoadController *m_loads;
    TensorBrowser *m_browser;
    QuantizerPanel *m_panel;
    ScaleConstantView *m_scale = nullptr;
    KurtosisView *m_kurtosis = nullptr;
    GemmTimingView *m_gemm = nullptr;
    QThreadPool m_pool;
    JobTracker m_scaleJob{this, &m_pool};
    JobTracker m_kurtosisJob{this, &m_pool};
    JobTracker m_gemmJob{this, &m_pool};
    JobTracker m_previewJob{this, &m_pool};
    std::shared_ptr<std::atomic<double>> m_scaleProgress, m_kurtosisProgress, m_gemmProgress;
    QTimer *m_timer = nullptr;
    std::shared_ptr<const QuantizeJobResult> m_results;
};

} // namespace quantscope
