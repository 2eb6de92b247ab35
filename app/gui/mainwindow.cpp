// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "checkpointloader.h"
#include "devicequery.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "distributionview.h"
#include "elidedlabel.h"
#include "analysiscontroller.h"
#include "scancontroller.h"
#include "healthcontroller.h"
#include "comparecontroller.h"
#include "exporterpanel.h"
#include "layersview.h"
#include "plancontroller.h"
#include "modelcontroller.h"
#include "jobcontroller.h"
#include "jobprogresswidget.h"
#include "loadcontroller.h"
#include "logview.h"
#include "numbersmodel.h"
#include "numbersview.h"
#include "overviewview.h"
#include "demo/demo.h"
#include "results/overview.h"
#include "results/report_html.h"
#include "util/error.h"
#include "quantizerpanel.h"
#include "jobboard.h"
#include "kvcontroller.h"
#include "recentfilesmenu.h"
#include "sessioncontroller.h"
#include "spectrumview.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"
#include "theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace quantscope {

namespace {
constexpr int kStatusMessageMs = 8000;
/// Bumped when the docks change so that an old saved layout is not applied to new docks.
constexpr int kWindowStateVersion = 2;

bool isSessionFile(const QString &path)
{
    return path.endsWith(QLatin1String(".qscope"), Qt::CaseInsensitive);
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    createActions();
    createViews();
    createDocks();
    createControllers();
    createMenus();
    createStatusBar();
    narrowViewCombos();
    updateTitle();
    fitToScreen();
    m_defaultState = saveState(kWindowStateVersion);
    restoreWindowState();

    m_log->append(
        LogView::Severity::Info,
        tr("Quantscope %1; jobs run on %n thread(s)", nullptr, poolThreads()).arg(QApplication::applicationVersion()));
    queryComputeDevice();
}

MainWindow::~MainWindow()
{
    // Workers may still be inside the engine: stop them while every widget is still there.
    m_jobs->shutdown();
    m_analysis->shutdown();
    m_scan->shutdown();
    m_health->shutdown();
    m_compare->shutdown();
    m_plan->shutdown();
    m_model->shutdown();
    m_kv->shutdown();
}

int MainWindow::tensorCount() const noexcept
{
    return m_browser->model()->tensorCount();
}

bool MainWindow::isBusy() const noexcept
{
    return m_reportsRunning > 0 || m_loads->isLoading() || !m_deviceKnown || m_jobs->isRunning() ||
           m_analysis->isBusy() || m_scan->isRunning() || m_health->isRunning() || m_compare->isRunning() ||
           (m_plan && m_plan->isRunning()) || (m_model && m_model->isRunning()) || (m_kv && m_kv->isRunning());
}

bool MainWindow::isJobRunning() const noexcept
{
    return m_jobs->isRunning();
}

std::shared_ptr<const QuantizeJobResult> MainWindow::results() const
{
    return m_jobs->results();
}

bool MainWindow::waitForWorkers(int msecs)
{
    return m_jobs->waitForWorkers(msecs);
}

int MainWindow::poolThreads() const
{
    return m_jobs->poolThreads();
}

// ---- construction ----------------------------------------------------------------------------

void MainWindow::createActions()
{
    m_openAction = new QAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a .safetensors file, a sharded checkpoint's index, a "
                                  ".npy/.npz file or a session"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFileDialog);

    m_openFolderAction = new QAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Folder…"), this);
    m_openFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openFolderAction->setStatusTip(tr("Open a checkpoint folder"));
    connect(m_openFolderAction, &QAction::triggered, this, &MainWindow::openFolderDialog);

    m_openSessionAction = new QAction(tr("Open &Session…"), this);
    m_openSessionAction->setStatusTip(tr("Restore a saved .qscope session"));
    connect(m_openSessionAction, &QAction::triggered, this, &MainWindow::openSessionDialog);

    m_saveSessionAction = new QAction(QIcon::fromTheme(QStringLiteral("document-save")), tr("&Save Session"), this);
    m_saveSessionAction->setShortcut(QKeySequence::Save);
    m_saveSessionAction->setStatusTip(
        tr("Save the checkpoint, selection, configurations and results as a .qscope file"));
    connect(m_saveSessionAction, &QAction::triggered, this, [this] {
        if (m_sessions->file().isEmpty())
            saveSessionDialog();
        else
            saveSession(m_sessions->file());
    });

    m_exportReportAction = new QAction(tr("Export &Report…"), this);
    m_exportReportAction->setObjectName(QStringLiteral("exportReportAction"));
    m_exportReportAction->setStatusTip(tr("Write the session as one self-contained HTML file (plots, tables, "
                                          "configurations, the checkpoint's name and hash) to share"));
    connect(m_exportReportAction, &QAction::triggered, this, &MainWindow::exportReportDialog);

    m_saveSessionAsAction = new QAction(tr("Save Session &As…"), this);
    m_saveSessionAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_saveSessionAsAction, &QAction::triggered, this, &MainWindow::saveSessionDialog);

    m_openActivationAction = new QAction(tr("Pair Activation from &File…"), this);
    m_openActivationAction->setStatusTip(
        tr("Open an activation tensor (.npy, .npz, .safetensors) to compare its channel maxima "
           "with the weights'"));
    connect(m_openActivationAction, &QAction::triggered, this, &MainWindow::openActivationDialog);

    m_openCaptureAction = new QAction(tr("Open &Capture…"), this);
    m_openCaptureAction->setStatusTip(tr("Pair a calibration capture (quantscope-cli capture) with the checkpoint: "
                                         "every run then reports the output-aware error E‖(W − Ŵ)x‖²"));
    connect(m_openCaptureAction, &QAction::triggered, this, &MainWindow::openCaptureDialog);
    m_clearCaptureAction = new QAction(tr("Unpair Capt&ure"), this);
    m_clearCaptureAction->setEnabled(false);
    connect(m_clearCaptureAction, &QAction::triggered, this, [this] { m_loads->clearCapture(); });

    m_quitAction = new QAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_runAction = new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setStatusTip(tr("Quantize the selected tensors with every configuration"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::runQuantization);

    m_cancelAction = new QAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel Job"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setEnabled(false);
    connect(m_cancelAction, &QAction::triggered, this, &MainWindow::cancelJob);

    m_addConfigAction = new QAction(tr("&Add Configuration"), this);
    m_addConfigAction->setStatusTip(tr("Compare one more configuration (up to four)"));

    m_filterAction = new QAction(tr("&Filter Tensors"), this);
    m_filterAction->setShortcut(QKeySequence::Find);

    m_statusBarAction = new QAction(tr("Show &Status Bar"), this);
    m_statusBarAction->setCheckable(true);
    m_statusBarAction->setChecked(true);
    connect(m_statusBarAction, &QAction::toggled, this, [this](bool on) { statusBar()->setVisible(on); });

    m_resetLayoutAction = new QAction(tr("&Reset Layout"), this);
    m_resetLayoutAction->setObjectName(QStringLiteral("resetLayoutAction"));
    connect(m_resetLayoutAction, &QAction::triggered, this, &MainWindow::resetLayout);

    m_demoAction = new QAction(tr("Open &Demo"), this);
    m_demoAction->setStatusTip(tr("Open the built-in demo checkpoint"));
    connect(m_demoAction, &QAction::triggered, this, &MainWindow::openDemo);

    m_userGuideAction = new QAction(QIcon::fromTheme(QStringLiteral("help-contents")), tr("&User Guide"), this);
    m_userGuideAction->setObjectName(QStringLiteral("userGuideAction"));
    m_userGuideAction->setShortcut(QKeySequence::HelpContents);
    m_userGuideAction->setStatusTip(tr("Open the user guide: every view, dock and menu explained"));
    connect(m_userGuideAction, &QAction::triggered, this, &MainWindow::showUserGuide);

    m_aboutAction = new QAction(tr("&About Quantscope"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createViews()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_distribution = new DistributionView(m_tabs);
    m_numbers = new NumbersView(m_tabs);
    m_distribution->setObjectName(QStringLiteral("distributionView")); // quantscope --view distribution
    m_tabs->addTab(m_distribution, tr("&Distribution"));
    m_tabs->setTabToolTip(0, tr("W and Ŵ histograms, the error, and per-channel maxima"));
    m_numbers->setObjectName(QStringLiteral("numbersView")); // quantscope --view numbers
    m_tabs->addTab(m_numbers, tr("&Numbers"));
    m_tabs->setTabToolTip(1, tr("Every metric of every configuration; copy or export them"));
    m_spectrum = new SpectrumView(m_tabs);
    m_spectrum->setObjectName(QStringLiteral("spectrumView")); // quantscope --view spectrum
    m_tabs->addTab(m_spectrum, tr("&Spectrum"));
    m_tabs->setTabToolTip(2, tr("Singular values of W − Ŵ: choose a MiLo rank by its error and size"));
    // Compute and Run MiLo at This Rank run only what the results lack, keeping the rest.
    auto runMissing = [this] {
        m_jobs->setSpectrumOptions(m_spectrum->spectrumOptions());
        m_jobs->runMissing();
    };
    connect(m_spectrum, &SpectrumView::runRequested, this, runMissing);
    connect(m_spectrum, &SpectrumView::runAtRankRequested, this, [this, runMissing](const QString &c, int r) {
        QString why;
        if (!SpectrumView::addMiloAtRank(m_panel, c, r, &why)) {
            showStatus(why);
            m_log->append(LogView::Severity::Warning, why);
            return;
        }
        runMissing();
    });
    // The views in a scroll area: however wide a view's content asks to be (a plot with a long
    // legend in German), the window's minimum size stays that of the docks and the tab bar, so
    // it fits a 1280 × 800 screen; a view wider than the room left scrolls instead (issue 42).
    m_tabs->setUsesScrollButtons(true);
    auto *central = new QScrollArea(this);
    central->setObjectName(QStringLiteral("viewsArea"));
    central->setWidgetResizable(true);
    central->setFrameShape(QFrame::NoFrame);
    central->setWidget(m_tabs);
    setCentralWidget(central);
}

void MainWindow::createDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *content) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState() keys the layout by object name
        d->setWidget(content);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                       QDockWidget::DockWidgetClosable);
        return d;
    };

    m_browser = new TensorBrowser(this);
    m_tensorsDock = dock(tr("Tensors"), QStringLiteral("tensorsDock"), m_browser);
    addDockWidget(Qt::LeftDockWidgetArea, m_tensorsDock);
    connect(m_browser, &TensorBrowser::activationRequested, this, &MainWindow::setActivation);
    connect(m_browser, &TensorBrowser::runRequested, this, &MainWindow::runQuantization);
    connect(m_filterAction, &QAction::triggered, this, [this] {
        m_tensorsDock->show();
        m_tensorsDock->raise();
        m_browser->focusFilter();
    });

    m_panel = new QuantizerPanel(quantizerMethods(), this);
    m_quantizerDock = dock(tr("Quantizer"), QStringLiteral("quantizerDock"), m_panel);
    addDockWidget(Qt::RightDockWidgetArea, m_quantizerDock);
    connect(m_panel, &QuantizerPanel::runRequested, this, &MainWindow::runQuantization);
    connect(m_panel, &QuantizerPanel::cancelRequested, this, &MainWindow::cancelJob);
    connect(m_panel, &QuantizerPanel::activationClearRequested, this, [this] { setActivation(QString()); });
    connect(m_panel, &QuantizerPanel::configurationsChanged, this, &MainWindow::updateStale);
    connect(m_addConfigAction, &QAction::triggered, this, [this] {
        m_quantizerDock->show();
        m_panel->addConfiguration();
    });

    m_job = new JobProgressWidget(this);
    m_jobDock = dock(tr("Job"), QStringLiteral("jobDock"), m_job);
    addDockWidget(Qt::BottomDockWidgetArea, m_jobDock);
    connect(m_job, &JobProgressWidget::cancelRequested, this, &MainWindow::cancelJob);

    m_log = new LogView(this);
    m_logDock = dock(tr("Log"), QStringLiteral("logDock"), m_log);
    // A warning or an error brings the log forward when it sits behind another tabbed dock
    // (a log the user closed stays closed).
    connect(m_log, &LogView::problemLogged, this, [this] {
        if (!m_logDock->isHidden())
            m_logDock->raise();
    });
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    splitDockWidget(m_jobDock, m_logDock, Qt::Horizontal);
    // Every background job (scan, sweep, export, compare, timing, capture, eval), tabbed with
    // the log; each one's end is a log line.
    m_jobsView = new JobsView(this);
    m_jobsDock = dock(tr("Jobs"), QStringLiteral("jobsDock"), m_jobsView);
    tabifyDockWidget(m_logDock, m_jobsDock);
    m_logDock->raise();
    connect(JobBoard::instance(), &JobBoard::ended, m_log, [this](quint64, const QString &line, bool problem) {
        m_log->append(problem ? LogView::Severity::Warning : LogView::Severity::Info, line);
    });
    // Room for the views beside the docks on a 1280 px screen (issue 42).
    resizeDocks({m_tensorsDock, m_quantizerDock}, {270, 310}, Qt::Horizontal);
    resizeDocks({m_jobDock, m_logDock}, {420, 700}, Qt::Horizontal);
    resizeDocks({m_jobDock}, {130}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openFolderAction);
    m_recentMenu = new RecentFilesMenu(tr("Open &Recent"), this);
    connect(m_recentMenu, &RecentFilesMenu::openRequested, this, &MainWindow::openPath);
    file->addMenu(m_recentMenu);
    file->addSeparator();
    file->addAction(m_openSessionAction);
    file->addAction(m_saveSessionAction);
    file->addAction(m_saveSessionAsAction);
    file->addAction(m_exportReportAction);
    file->addSeparator();
    file->addAction(m_openActivationAction);
    file->addAction(m_openCaptureAction);
    file->addAction(m_clearCaptureAction);
    createGgufActions(file);
    file->addAction(m_kv->openAction());
    file->addSeparator();
    file->addAction(m_quitAction);

    auto *quantize = menuBar()->addMenu(tr("&Quantize"));
    quantize->addAction(m_runAction);
    quantize->addAction(m_cancelAction);
    quantize->addSeparator();
    quantize->addAction(m_addConfigAction);

    auto *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_filterAction);
    view->addSeparator();
    for (auto *d : {m_tensorsDock, m_quantizerDock, m_jobDock, m_logDock, m_jobsDock})
        view->addAction(d->toggleViewAction());
    view->addAction(m_resetLayoutAction);
    view->addSeparator();
    auto *themeMenu = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    const auto current = QSettings().value(QStringLiteral("theme")).toString();
    const std::pair<theme::Mode, QString> modes[] = {
        {theme::Mode::System, tr("&System")}, {theme::Mode::Light, tr("&Light")}, {theme::Mode::Dark, tr("&Dark")}};
    for (const auto &[mode, label] : modes) {
        auto *a = themeMenu->addAction(label);
        a->setCheckable(true);
        a->setChecked(theme::toString(mode) == current || (current.isEmpty() && mode == theme::Mode::System));
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, this, [mode = mode] {
            theme::apply(mode);
            QSettings().setValue(QStringLiteral("theme"), theme::toString(mode));
        });
    }
    addLanguageMenu(view);
    view->addSeparator();
    view->addAction(m_statusBarAction);

    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_demoAction);
    help->addSeparator();
    help->addAction(m_userGuideAction);
    help->addAction(m_aboutAction);
}

void MainWindow::createStatusBar()
{
    // Both labels elide (whole text in the tooltip): a long checkpoint summary or device line
    // must not widen the window past a laptop's screen (issue 42).
    m_summary = new ElidedLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addPermanentWidget(m_summary, 3);

    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0); // busy indicator: opening has no measurable progress
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    statusBar()->addPermanentWidget(m_busy);

    m_deviceLabel = new ElidedLabel(tr("Compute device: detecting…"), this);
    m_deviceLabel->setObjectName(QStringLiteral("deviceLabel"));
    m_deviceLabel->setExtraToolTip(tr("The device quantizers and metrics run on"));
    statusBar()->addPermanentWidget(m_deviceLabel, 2);
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("windowState")).toByteArray(), kWindowStateVersion);
    theme::apply(theme::modeFromString(settings.value(QStringLiteral("theme")).toString()));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState, kWindowStateVersion);
    for (auto *d : {m_tensorsDock, m_quantizerDock, m_jobDock, m_logDock, m_jobsDock})
        d->show();
    // The default layout on the screen the window is on: no wider or taller than it.
    fitToScreen();
    const int side = std::max(240, width() / 5);
    resizeDocks({m_tensorsDock, m_quantizerDock}, {side, side + side / 8}, Qt::Horizontal);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState(kWindowStateVersion));
    QMainWindow::closeEvent(event);
}

void MainWindow::queryComputeDevice()
{
    auto *watcher = new QFutureWatcher<DeviceQuery>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const auto q = watcher->result();
        if (q.error.isEmpty()) {
            m_deviceDescription = q.description;
            m_deviceLabel->setFullText(q.description);
            for (const auto &d : q.devices)
                m_log->append(LogView::Severity::Info, tr("Compute device %1").arg(d));
            const auto noGpu = noGpuText(q.gpuCause, q.gpuVendor, q.gpuReason);
            if (!q.gpu)
                m_log->append(LogView::Severity::Info, noGpu);
            m_panel->setGpuAvailable(q.gpu, q.gpu ? q.gpuMethods.join(QLatin1Char('\n')) : noGpu);
        } else {
            m_deviceDescription = tr("unknown (%1)").arg(q.error);
            m_deviceLabel->setFullText(tr("Compute device: unknown"));
            m_deviceLabel->setExtraToolTip(q.error);
            m_log->append(LogView::Severity::Error, tr("Could not detect the compute devices: %1").arg(q.error));
            m_panel->setGpuAvailable(false, q.error);
        }
        m_deviceKnown = true;
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&queryDevice));
}

// ---- controllers -----------------------------------------------------------------------------

void MainWindow::createControllers()
{
    m_loads = new LoadController(this, m_browser, m_panel, m_log);
    connect(m_loads, &LoadController::loadStarted, this, [this](const QString &message) {
        m_busy->show();
        if (!message.isEmpty())
            statusBar()->showMessage(message);
    });
    connect(m_loads, &LoadController::loadEnded, this, [this] {
        if (!m_loads->isLoading())
            m_busy->hide();
        finishBackgroundTask();
    });
    connect(m_loads, &LoadController::statusMessage, this, &MainWindow::showStatus);
    connect(m_loads, &LoadController::documentReplacing, this, [this](bool restoring) {
        // A job still running reads the previous checkpoint: its result would not belong here.
        m_jobs->cancel();
        // Results belong to the checkpoint they were made on; a session brings its own.
        if (!restoring)
            m_jobs->setResults(nullptr);
    });
    connect(m_loads, &LoadController::documentOpened, this, [this](const OpenResult &result) {
        updateTitle();
        updateSummary(result);
        if (!result.request.demo)
            m_recentMenu->add(result.request.path);
    });
    connect(m_loads, &LoadController::loadFinished, this, &MainWindow::loadFinished);
    connect(m_loads, &LoadController::captureOpened, this, [this](const QString &path) { m_recentMenu->add(path); });
    connect(m_loads, &LoadController::captureChanged, this,
            [this] { m_clearCaptureAction->setEnabled(m_loads->capture() != nullptr); });

    m_jobs = new JobController(this, m_loads, m_browser, m_panel, m_job, m_log);
    connect(m_jobs, &JobController::statusMessage, this, &MainWindow::showStatus);
    connect(m_jobs, &JobController::runningChanged, m_cancelAction, &QAction::setEnabled);
    connect(m_jobs, &JobController::resultsChanged, this, &MainWindow::showResults);
    connect(m_jobs, &JobController::errorOccurred, this, &MainWindow::showError);
    connect(m_jobs, &JobController::jobFinished, this, &MainWindow::jobFinished);
    connect(m_jobs, &JobController::jobEnded, this, &MainWindow::finishBackgroundTask);
    // The Scale-constant and Kurtosis tabs (after Numbers) with their own background jobs.
    m_analysis = new AnalysisController(this, m_loads, m_browser, m_panel, m_tabs);
    connect(m_jobs, &JobController::resultsChanged, m_analysis, &AnalysisController::setResults);
    connect(m_analysis, &AnalysisController::jobEnded, this, &MainWindow::finishBackgroundTask);
    connect(m_analysis, &AnalysisController::weightPreviewReady, m_distribution, &DistributionView::setPreview);
    m_scan = new ScanController(this, m_loads, m_browser, m_panel, m_tabs); // the Layers tab
    connect(m_scan, &ScanController::jobEnded, this, &MainWindow::finishBackgroundTask);
    m_health = new HealthController(this, m_loads, m_browser, m_tabs); // the Health tab (the doctor)
    connect(m_health, &HealthController::jobEnded, this, &MainWindow::finishBackgroundTask);
    // The Overview tab (after the others, so that saved tab indices keep their meaning): one row per tensor ×
    // configuration; a click shows that tensor in the other views, a double click goes there.
    m_overview = new OverviewView(m_tabs);
    m_overview->setObjectName(QStringLiteral("overviewView")); // quantscope --view overview
    m_tabs->setTabToolTip(m_tabs->addTab(m_overview, tr("&Overview")),
                          tr("One sortable row per tensor and configuration; export it as CSV"));
    connect(m_overview, &OverviewView::tensorActivated, this, [this](const QString &tensor, const QString &config) {
        m_distribution->setCurrentTensor(tensor);
        m_spectrum->setCurrentTensor(tensor);
        m_spectrum->setCurrentConfig(config);
    });
    connect(m_overview->table(), &QAbstractItemView::doubleClicked, this,
            [this] { m_tabs->setCurrentWidget(m_distribution); });
    m_exporter = new ExporterPanel(m_tabs);                  // the Export tab: a recipe as a toolkit's config
    m_exporter->setObjectName(QStringLiteral("exportView")); // --view export
    m_tabs->setTabToolTip(m_tabs->addTab(m_exporter, tr("E&xport")),
                          tr("A recipe as a Quark, compressed-tensors, llm-compressor or Quantscope config"));
    createCompareAndPlanTabs(); // mainwindow_tabs.cpp (the export row's checkpoint follows the document)

    m_sessions = new SessionController(
        this, {m_loads, m_jobs, m_browser, m_panel, m_distribution, m_tabs, m_log, m_scan->view()});
    connect(m_sessions, &SessionController::fileChanged, this, &MainWindow::updateTitle);
    connect(m_sessions, &SessionController::opened, this, [this](const QString &file) { m_recentMenu->add(file); });
    connect(m_sessions, &SessionController::statusMessage, this, &MainWindow::showStatus);
    connect(m_sessions, &SessionController::errorOccurred, this, &MainWindow::showError);
}

void MainWindow::finishBackgroundTask()
{
    if (!isBusy())
        emit becameIdle();
}

void MainWindow::showStatus(const QString &text)
{
    statusBar()->showMessage(text, kStatusMessageMs);
}

void MainWindow::showResults(const std::shared_ptr<const QuantizeJobResult> &results)
{
    m_distribution->setResults(results);
    m_numbers->model()->setResults(results);
    m_overview->setResults(results);
    // Many tensors make the Numbers table too wide to read: the Overview takes its place.
    if (results && overviewPreferred(*results) && m_tabs->currentWidget() == m_numbers)
        m_tabs->setCurrentWidget(m_overview);
    m_spectrum->setResults(results);
    updateStale();
}

void MainWindow::showError(const QString &title, const QString &text, const QString &details)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Close, this);
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(QStringLiteral("<p>%1</p>").arg(details.toHtmlEscaped()));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

// ---- opening ---------------------------------------------------------------------------------

void MainWindow::openPath(const QString &path)
{
    if (isSessionFile(path)) {
        openSession(path);
        return;
    }
    OpenRequest request;
    request.path = path;
    m_loads->open(request);
}

void MainWindow::openDemo()
{
    OpenRequest request;
    request.demo = true;
    m_loads->open(request);
}

void MainWindow::setActivation(const QString &tensorName)
{
    m_loads->setActivation(tensorName);
}

void MainWindow::openActivationFile(const QString &path)
{
    OpenRequest request;
    request.path = path;
    m_loads->openActivation(request, QString());
}

void MainWindow::openCapture(const QString &path)
{
    m_loads->openCapture(path);
}

void MainWindow::updateTitle()
{
    const auto &name = m_loads->documentName();
    QString title = name.isEmpty() ? tr("Quantscope") : tr("Quantscope — %1").arg(name);
    const auto &session = m_sessions->file();
    if (!session.isEmpty())
        title += tr(" (%1)").arg(QFileInfo(session).fileName());
    setWindowTitle(title);
}

void MainWindow::updateSummary(const OpenResult &result)
{
    QStringList parts;
    parts << tr("%n tensor(s)", nullptr, static_cast<int>(result.entries.size()))
          << QLocale().formattedDataSize(static_cast<qint64>(result.totalBytes))
          << (result.sharded ? tr("%n shard(s)", nullptr, result.fileCount)
                             : tr("%n file(s)", nullptr, result.fileCount));
    if (!result.warnings.isEmpty())
        parts << tr("%n warning(s)", nullptr, static_cast<int>(result.warnings.size()));
    m_summary->setFullText(parts.join(QStringLiteral(" · ")));
    m_summary->setExtraToolTip(result.warnings.isEmpty() ? QDir::toNativeSeparators(result.path)
                                                         : QDir::toNativeSeparators(result.path) + QLatin1Char('\n') +
                                                               result.warnings.join(QLatin1Char('\n')));
}

// ---- quantization jobs -----------------------------------------------------------------------

void MainWindow::runQuantization()
{
    m_jobs->setSpectrumOptions(m_spectrum->spectrumOptions());
    m_jobs->run();
}

void MainWindow::cancelJob()
{
    m_jobs->cancel();
}

void MainWindow::runDemoQuantization()
{
    const auto &entries = m_browser->model()->entries();
    QString weight;
    for (const auto &e : entries)
        if (e.name.endsWith(QLatin1String("layers.0.self_attn.q_proj.weight")))
            weight = e.name;
    for (const auto &e : entries)
        if (weight.isEmpty() && e.shape.size() == 2)
            weight = e.name;
    if (weight.isEmpty())
        return;
    auto spec = [](std::initializer_list<std::pair<const char *, nlohmann::json>> kv) {
        nlohmann::json j = nlohmann::json::object();
        for (const auto &[k, v] : kv)
            j[k] = v;
        return j;
    };
    m_panel->setConfigurations({
        {"A", spec({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}})},
        {"B", spec({{"method", "int"}, {"bits", 4}, {"granularity", "channel"}})},
        {"C", spec({{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "tensor"}})},
    });
    m_browser->setSelectedTensors({weight});
    m_tabs->setCurrentWidget(m_distribution);
    runQuantization();
}

// ---- sessions --------------------------------------------------------------------------------

Session MainWindow::currentSession() const
{
    return m_sessions->current();
}

bool MainWindow::saveSession(const QString &file, QString *error)
{
    return m_sessions->save(file, error);
}

bool MainWindow::openSession(const QString &file)
{
    return m_sessions->open(file);
}

// ---- dialogs and menus -----------------------------------------------------------------------

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openPath(urls.first().toLocalFile());
}

void MainWindow::showAbout()
{
    const auto device = m_deviceKnown ? m_deviceDescription : tr("still being detected");
    const auto text = tr("<h3>Quantscope %1</h3>"
                         "<p>A workbench for quantizing the tensors of large language models.</p>"
                         "<p><b>Compute device:</b> %2<br>"
                         "<b>GPU backends in this build:</b> %3<br>"
                         "<b>Job threads:</b> %4<br>"
                         "<b>Qt:</b> %5</p>")
                          .arg(QApplication::applicationVersion().toHtmlEscaped(), device.toHtmlEscaped(),
                               QString::fromStdString(builtGpuBackends()).toHtmlEscaped(),
                               QString::number(poolThreads()), QString::fromLatin1(qVersion()));
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Quantscope"), text, QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setTextFormat(Qt::RichText);
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace quantscope
