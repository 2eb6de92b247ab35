// SPDX-License-Identifier: MIT
#pragma once
/// \file mainwindow.h
/// The workbench window: docks for the tensor browser, the quantizer panel, the job and the log
/// around the views (Distribution, Numbers), its menus and status bar. The work is done by its
/// controllers: LoadController opens checkpoints and activations in the background,
/// JobController runs the quantization jobs on a thread pool, SessionController saves and
/// restores what the window shows as a .qscope session. The window only wires them to its
/// widgets and actions.
#include "results/results.h"
#include "results/session.h"

#include <QMainWindow>
#include <QStringList>
#include <memory>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QProgressBar;
class QTabWidget;

namespace quantscope {

class AnalysisController;
class JobsView;
class ScanController;
class PlanController;
class ModelController;
class KvController;
class HealthController;
class CompareController;
class ExporterPanel;
class DistributionView;
class ElidedLabel;
class JobController;
class JobProgressWidget;
class LoadController;
class LogView;
class NumbersView;
class OverviewView;
class QuantizerPanel;
class RecentFilesMenu;
class SessionController;
class SpectrumView;
class TensorBrowser;
struct OpenResult;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a file or folder in the background; replaces the document when it succeeds.
    void openPath(const QString &path);
    /// Opens the built-in demo (generating it on first use) in the background.
    void openDemo();
    /// Opens a file (.npy, .safetensors, …) in the background and pairs its first tensor as the
    /// activation.
    void openActivationFile(const QString &path);
    /// Pairs a tensor of the opened checkpoint as the activation ("" unpairs).
    void setActivation(const QString &tensorName);
    /// Opens a calibration capture in the background and pairs it with the checkpoint.
    void openCapture(const QString &path);

    /// Restores a .qscope session: configurations and results at once, then the checkpoint
    /// (in the background) with its selection. False (and the error shown) when unreadable.
    bool openSession(const QString &file);
    /// Writes the session atomically. False with a reason in `error` (also shown).
    bool saveSession(const QString &file, QString *error = nullptr);
    Session currentSession() const;
    /// Writes the session as one self-contained HTML report (results/report_html.h) in the
    /// background; reportExported() says how it went.
    void exportReport(const QString &file);

    /// Quantizes the selected tensors with every configuration on the pool.
    void runQuantization();
    /// Stops the running job: the window is idle at once, the result is dropped.
    void cancelJob();
    /// For the screenshot and the docs: a weight with outlier channels and three configurations.
    void runDemoQuantization();

    /// True while a checkpoint is being opened, the device is being queried or a job runs.
    bool isBusy() const noexcept;
    bool isJobRunning() const noexcept;
    int tensorCount() const noexcept;
    std::shared_ptr<const QuantizeJobResult> results() const;
    /// Waits for the pool's workers (also stale ones) to return; for tests and shutdown.
    bool waitForWorkers(int msecs);
    /// Threads of the job pool: one per core, at low priority (the UI thread preempts them).
    int poolThreads() const;

    TensorBrowser *browser() const { return m_browser; }
    QuantizerPanel *quantizerPanel() const { return m_panel; }
    DistributionView *distributionView() const { return m_distribution; }
    NumbersView *numbersView() const { return m_numbers; }
    OverviewView *overviewView() const { return m_overview; }
    SpectrumView *spectrumView() const { return m_spectrum; }
    /// The Scale-constant and Kurtosis tabs and their jobs.
    AnalysisController *analysis() const { return m_analysis; }
    ScanController *scans() const { return m_scan; }
    HealthController *health() const { return m_health; }
    CompareController *comparisons() const { return m_compare; }
    ExporterPanel *exporter() const { return m_exporter; }
    /// The Recipe and Budget tabs and their jobs.
    PlanController *plan() const { return m_plan; }
    /// The Model tab and its bridge jobs.
    ModelController *model() const { return m_model; }
    /// The KV cache tab and its lab job.
    KvController *kv() const { return m_kv; }
    /// The capture paired with the checkpoint and its loads.
    LoadController *loads() const { return m_loads; }
    JobProgressWidget *jobProgress() const { return m_job; }
    LogView *logView() const { return m_log; }
    QTabWidget *viewTabs() const { return m_tabs; }
    /// The names `quantscope --view NAME` accepts: each names a tab whose widget is "<name>View".
    static QStringList viewNames();

signals:
    /// A load finished (`ok` false: it failed and the error is being shown). Only the newest
    /// load reports; loads it replaced are dropped silently.
    void loadFinished(bool ok);
    /// A quantization job delivered its result (true) or failed (false). Cancelled and stale
    /// jobs report nothing.
    void jobFinished(bool ok);
    /// All background work the window started has finished.
    void becameIdle();
    /// exportReport() finished: `error` is empty when the file was written.
    void reportExported(bool ok, const QString &error);

protected:
    void closeEvent(QCloseEvent *event) override;
    /// QEvent::LanguageChange: every text of the window in the new language (View ▸ Language).
    void changeEvent(QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    /// View ▸ Language: each language by its own name, applied at once (languageswitch.h).
    void addLanguageMenu(QMenu *view);
    void createCompareAndPlanTabs();
    void createViews();
    void createDocks();
    void createStatusBar();
    void queryComputeDevice();
    void restoreWindowState();
    void resetLayout();
    /// The default size where the screen has room for it, else the screen's available area.
    void fitToScreen();
    /// Every view's combo boxes ask for eight characters, not their longest item.
    void narrowViewCombos();

    void createControllers();
    void finishBackgroundTask();
    void updateTitle();
    void updateSummary(const OpenResult &result);
    void showStatus(const QString &text);
    void showResults(const std::shared_ptr<const QuantizeJobResult> &results);
    /// Marks the results whose configuration was edited since they ran (stale until re-run).
    void updateStale();
    void showError(const QString &title, const QString &text, const QString &details);

    void openFileDialog();
    void openFolderDialog();
    void openSessionDialog();
    void saveSessionDialog();
    void exportReportDialog();
    void showUserGuide();
    void openActivationDialog();
    void openCaptureDialog();
    /// File ▸ Open llama.cpp Imatrix… / Unpair Imatrix, and the stored GGUF schemes in words for
    /// the Distribution and Numbers views (mainwindow_share.cpp).
    void createGgufActions(QMenu *file);
    void showAbout();

    // Views and docks.
    QTabWidget *m_tabs = nullptr;
    DistributionView *m_distribution = nullptr;
    NumbersView *m_numbers = nullptr;
    OverviewView *m_overview = nullptr;
    SpectrumView *m_spectrum = nullptr;
    AnalysisController *m_analysis = nullptr;
    ScanController *m_scan = nullptr;
    HealthController *m_health = nullptr;
    CompareController *m_compare = nullptr;
    ExporterPanel *m_exporter = nullptr;
    PlanController *m_plan = nullptr;
    ModelController *m_model = nullptr;
    KvController *m_kv = nullptr;
    TensorBrowser *m_browser = nullptr;
    QuantizerPanel *m_panel = nullptr;
    JobProgressWidget *m_job = nullptr;
    LogView *m_log = nullptr;
    QDockWidget *m_tensorsDock = nullptr;
    QDockWidget *m_quantizerDock = nullptr;
    QDockWidget *m_jobDock = nullptr;
    QDockWidget *m_logDock = nullptr;
    QDockWidget *m_jobsDock = nullptr;
    JobsView *m_jobsView = nullptr;
    ElidedLabel *m_summary = nullptr;
    ElidedLabel *m_deviceLabel = nullptr;
    QProgressBar *m_busy = nullptr;
    RecentFilesMenu *m_recentMenu = nullptr;
    QByteArray m_defaultState;

    QAction *m_openAction = nullptr;
    QAction *m_openFolderAction = nullptr;
    QAction *m_openSessionAction = nullptr;
    QAction *m_saveSessionAction = nullptr;
    QAction *m_saveSessionAsAction = nullptr;
    QAction *m_exportReportAction = nullptr;
    QAction *m_userGuideAction = nullptr;
    QAction *m_openActivationAction = nullptr;
    QAction *m_openCaptureAction = nullptr;
    QAction *m_clearCaptureAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_runAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_addConfigAction = nullptr;
    QAction *m_demoAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_filterAction = nullptr;
    QAction *m_statusBarAction = nullptr;
    QAction *m_resetLayoutAction = nullptr;
    QActionGroup *m_themeGroup = nullptr;

    LoadController *m_loads = nullptr;
    JobController *m_jobs = nullptr;
    SessionController *m_sessions = nullptr;

    QString m_deviceDescription;
    bool m_deviceKnown = false;
    int m_reportsRunning = 0;
};

} // namespace quantscope
