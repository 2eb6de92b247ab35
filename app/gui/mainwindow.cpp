// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "backend.h"
#include "distributionview.h"
#include "io/checkpoint.h"
#include "jobprogresswidget.h"
#include "logview.h"
#include "numbersmodel.h"
#include "numbersview.h"
#include "qtstring.h"
#include "quantizejob.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"
#include "theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <exception>
#include <mutex>

namespace quantscope {

/// What the running job last said about itself; written by the worker, read by the UI timer.
struct JobProgressState {
    std::mutex mutex;
    double begin = 0, end = 0, totalCost = 0;
    std::string what;
    std::chrono::steady_clock::time_point stepStart = std::chrono::steady_clock::now();
};

namespace {
constexpr int kMaxRecentPaths = 10;
constexpr int kStatusMessageMs = 8000;
/// Bumped when the docks change so that an old saved layout is not applied to new docks.
constexpr int kWindowStateVersion = 2;
constexpr int kProgressIntervalMs = 100;

QString recentPathsKey()
{
    return QStringLiteral("recentCheckpoints");
}
QString lastOpenDirKey()
{
    return QStringLiteral("lastOpenDir");
}

/// Device detection may start a GPU runtime: never on the UI thread.
struct DeviceQuery {
    QString description;
    QStringList devices; ///< one line per device: name and memory
    bool gpu = false;
    QString gpuReason;
    QString error;
};

QString gib(std::uint64_t bytes)
{
    return QLocale::c().toString(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 'f', 1);
}

DeviceQuery queryDevice() noexcept
{
    DeviceQuery q;
    try {
        q.description = QString::fromStdString(describeComputeDevice());
        const auto &registry = BackendRegistry::instance();
        for (const auto &d : registry.devices()) {
            const bool isCpu = d.kind == DeviceKind::Cpu;
            q.devices << (isCpu ? QStringLiteral("%1: %2, %3 threads, %4 GiB RAM (%5 GiB free)")
                                      .arg(fromStd(d.id), fromStd(d.name))
                                      .arg(d.threads)
                                      .arg(gib(d.totalMemory), gib(d.freeMemory))
                                : QStringLiteral("%1: %2, %3 GiB memory (%4 GiB free), %5 SMs")
                                      .arg(fromStd(d.id), fromStd(d.name), gib(d.totalMemory),
                                           gib(d.freeMemory))
                                      .arg(d.threads));
        }
        q.gpu = registry.gpu() != nullptr;
        q.gpuReason = fromStd(registry.gpuUnavailableReason());
    } catch (const std::exception &e) {
        q.error = QString::fromUtf8(e.what());
    } catch (...) {
        q.error = QStringLiteral("unknown error");
    }
    return q;
}

/// Menu texts treat '&' as a mnemonic marker; file names may contain it.
QString escapeMnemonic(QString text)
{
    return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

DeviceChoice deviceChoiceOf(const QString &s)
{
    if (s == QLatin1String("cpu"))
        return DeviceChoice::Cpu;
    if (s == QLatin1String("gpu"))
        return DeviceChoice::Gpu;
    return DeviceChoice::Auto;
}

bool isSessionFile(const QString &path)
{
    return path.endsWith(QLatin1String(".qscope"), Qt::CaseInsensitive);
}

int idealPoolThreads()
{
    return std::max(1, QThread::idealThreadCount() - 1);
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    m_pool.setMaxThreadCount(idealPoolThreads());
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    createActions();
    createViews();
    createDocks();
    createMenus();
    createStatusBar();
    updateTitle();
    resize(1480, 900);
    m_defaultState = saveState(kWindowStateVersion);
    restoreWindowState();

    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(kProgressIntervalMs);
    connect(m_progressTimer, &QTimer::timeout, this, &MainWindow::pollProgress);

    m_log->append(LogView::Severity::Info,
                  tr("Quantscope %1; jobs run on %n thread(s)", nullptr, poolThreads())
                      .arg(QApplication::applicationVersion()));
    queryComputeDevice();
}

MainWindow::~MainWindow()
{
    // Workers may still be inside the engine: ask them to stop and wait before members go.
    m_tracker.cancel();
    m_pool.waitForDone();
}

int MainWindow::tensorCount() const noexcept
{
    return m_browser->model()->tensorCount();
}

bool MainWindow::isBusy() const noexcept
{
    return m_loadsRunning > 0 || !m_deviceKnown || m_tracker.isRunning();
}

// ---- construction ----------------------------------------------------------------------------

void MainWindow::createActions()
{
    m_openAction =
        new QAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a .safetensors file, a sharded checkpoint's index, a "
                                  ".npy/.npz file or a session"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFileDialog);

    m_openFolderAction =
        new QAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Folder…"), this);
    m_openFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openFolderAction->setStatusTip(tr("Open a checkpoint folder"));
    connect(m_openFolderAction, &QAction::triggered, this, &MainWindow::openFolderDialog);

    m_openSessionAction = new QAction(tr("Open &Session…"), this);
    m_openSessionAction->setStatusTip(tr("Restore a saved .qscope session"));
    connect(m_openSessionAction, &QAction::triggered, this, &MainWindow::openSessionDialog);

    m_saveSessionAction =
        new QAction(QIcon::fromTheme(QStringLiteral("document-save")), tr("&Save Session"), this);
    m_saveSessionAction->setShortcut(QKeySequence::Save);
    m_saveSessionAction->setStatusTip(
        tr("Save the checkpoint, selection, configurations and results as a .qscope file"));
    connect(m_saveSessionAction, &QAction::triggered, this, [this] {
        if (m_sessionFile.isEmpty())
            saveSessionDialog();
        else
            saveSession(m_sessionFile);
    });

    m_saveSessionAsAction = new QAction(tr("Save Session &As…"), this);
    m_saveSessionAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_saveSessionAsAction, &QAction::triggered, this, &MainWindow::saveSessionDialog);

    m_openActivationAction = new QAction(tr("Pair Activation from &File…"), this);
    m_openActivationAction->setStatusTip(
        tr("Open an activation tensor (.npy, .npz, .safetensors) to compare its channel maxima "
           "with the weights'"));
    connect(m_openActivationAction, &QAction::triggered, this, &MainWindow::openActivationDialog);

    m_quitAction =
        new QAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_runAction =
        new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setStatusTip(tr("Quantize the selected tensors with every configuration"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::runQuantization);

    m_cancelAction =
        new QAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel Job"), this);
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
    connect(m_statusBarAction, &QAction::toggled, this,
            [this](bool on) { statusBar()->setVisible(on); });

    m_resetLayoutAction = new QAction(tr("&Reset Layout"), this);
    connect(m_resetLayoutAction, &QAction::triggered, this, &MainWindow::resetLayout);

    m_demoAction = new QAction(tr("Open &Demo"), this);
    m_demoAction->setStatusTip(tr("Open the built-in demo checkpoint"));
    connect(m_demoAction, &QAction::triggered, this, &MainWindow::openDemo);

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
    m_tabs->addTab(m_distribution, tr("&Distribution"));
    m_tabs->setTabToolTip(0, tr("W and Ŵ histograms, the error, and per-channel maxima"));
    m_tabs->addTab(m_numbers, tr("&Numbers"));
    m_tabs->setTabToolTip(1, tr("Every metric of every configuration; copy or export them"));
    setCentralWidget(m_tabs);
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
    connect(m_panel, &QuantizerPanel::activationClearRequested, this,
            [this] { setActivation(QString()); });
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
    resizeDocks({m_tensorsDock, m_quantizerDock}, {380, 470}, Qt::Horizontal);
    resizeDocks({m_jobDock, m_logDock}, {420, 700}, Qt::Horizontal);
    resizeDocks({m_jobDock}, {130}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openFolderAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    fillRecentMenu();
    file->addSeparator();
    file->addAction(m_openSessionAction);
    file->addAction(m_saveSessionAction);
    file->addAction(m_saveSessionAsAction);
    file->addSeparator();
    file->addAction(m_openActivationAction);
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
    for (auto *d : {m_tensorsDock, m_quantizerDock, m_jobDock, m_logDock})
        view->addAction(d->toggleViewAction());
    view->addAction(m_resetLayoutAction);
    view->addSeparator();
    auto *themeMenu = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    const auto current = QSettings().value(QStringLiteral("theme")).toString();
    const std::pair<theme::Mode, QString> modes[] = {{theme::Mode::System, tr("&System")},
                                                     {theme::Mode::Light, tr("&Light")},
                                                     {theme::Mode::Dark, tr("&Dark")}};
    for (const auto &[mode, label] : modes) {
        auto *a = themeMenu->addAction(label);
        a->setCheckable(true);
        a->setChecked(theme::toString(mode) == current ||
                      (current.isEmpty() && mode == theme::Mode::System));
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, this, [mode = mode] {
            theme::apply(mode);
            QSettings().setValue(QStringLiteral("theme"), theme::toString(mode));
        });
    }
    view->addSeparator();
    view->addAction(m_statusBarAction);

    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_demoAction);
    help->addSeparator();
    help->addAction(m_aboutAction);
}

void MainWindow::createStatusBar()
{
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addPermanentWidget(m_summary);

    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0); // busy indicator: opening has no measurable progress
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    statusBar()->addPermanentWidget(m_busy);

    m_deviceLabel = new QLabel(tr("Compute device: detecting…"), this);
    m_deviceLabel->setToolTip(tr("The device quantizers and metrics run on"));
    statusBar()->addPermanentWidget(m_deviceLabel);
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
    for (auto *d : {m_tensorsDock, m_quantizerDock, m_jobDock, m_logDock})
        d->show();
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
            m_deviceLabel->setText(q.description);
            for (const auto &d : q.devices)
                m_log->append(LogView::Severity::Info, tr("Compute device %1").arg(d));
            if (!q.gpu)
                m_log->append(LogView::Severity::Info, tr("No GPU: %1").arg(q.gpuReason));
            m_panel->setGpuAvailable(q.gpu, tr("No GPU: %1").arg(q.gpuReason));
        } else {
            m_deviceDescription = tr("unknown (%1)").arg(q.error);
            m_deviceLabel->setText(tr("Compute device: unknown"));
            m_deviceLabel->setToolTip(q.error);
            m_log->append(LogView::Severity::Error,
                          tr("Could not detect the compute devices: %1").arg(q.error));
            m_panel->setGpuAvailable(false, q.error);
        }
        m_deviceKnown = true;
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&queryDevice));
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
    startLoad(request);
}

void MainWindow::openDemo()
{
    OpenRequest request;
    request.demo = true;
    startLoad(request);
}

void MainWindow::startLoad(const OpenRequest &request, std::optional<PendingRestore> restore)
{
    const quint64 id = ++m_currentLoad;
    ++m_loadsRunning;
    m_busy->show();
    statusBar()->showMessage(request.demo
                                 ? tr("Opening the demo…")
                                 : tr("Opening %1…").arg(QDir::toNativeSeparators(request.path)));

    auto *watcher = new QFutureWatcher<OpenResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, restore] {
        watcher->deleteLater();
        if (--m_loadsRunning == 0)
            m_busy->hide();
        if (id == m_currentLoad) // else a newer request replaced this one: drop it
            applyLoad(watcher->result(), restore);
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&loadCheckpoint, request));
}

void MainWindow::applyLoad(const OpenResult &result, const std::optional<PendingRestore> &restore)
{
    if (!result.ok()) {
        statusBar()->showMessage(tr("Opening failed"), kStatusMessageMs);
        showLoadError(result);
        emit loadFinished(false);
        return;
    }

    // A job still running reads the previous checkpoint: its result would not belong here.
    if (m_tracker.isRunning())
        cancelJob();
    m_checkpoint = result.checkpoint;
    m_quantized = result.quantized;
    m_documentRequest = result.request;
    m_hasDocument = true;
    m_documentPath = result.path;
    m_documentName = result.request.demo ? tr("Demo") : result.documentName;
    m_browser->setEntries(result.entries);
    if (!restore) {
        // Results and the pairing belong to the checkpoint they were made on.
        applyResults(nullptr);
        m_activation.clear();
        m_activationCheckpoint.reset();
        m_activationQuantized.reset();
        m_activationRequest.reset();
        m_browser->setActivation(QString());
        m_panel->setActivation(QString());
        // The demo's activation (with outlier channels) pairs itself, so that the channel view
        // shows weights and activations together before anything was chosen.
        if (result.activationCheckpoint) {
            m_activation = result.activationTensor;
            m_activationCheckpoint = result.activationCheckpoint;
            m_activationRequest = OpenRequest{result.activationPath, false, false};
            m_panel->setActivation(m_activation, result.activationPath);
            m_log->append(LogView::Severity::Info,
                          tr("Paired the demo's activation %1 (%2)")
                              .arg(m_activation, QDir::toNativeSeparators(result.activationPath)));
        }
    } else {
        m_browser->setSelectedTensors(restore->selected);
        if (!restore->activation.isEmpty())
            setActivation(restore->activation);
    }
    updateTitle();
    updateSummary(result);
    if (!result.request.demo)
        addRecentPath(result.request.path);

    const auto warnings = static_cast<int>(result.warnings.size());
    const auto shown = QDir::toNativeSeparators(result.path);
    QString message;
    if (result.request.demo)
        message = warnings == 0 ? tr("Opened the demo")
                                : tr("Opened the demo with %n warning(s)", nullptr, warnings);
    else
        message = warnings == 0 ? tr("Opened %1").arg(shown)
                                : tr("Opened %1 with %n warning(s)", nullptr, warnings).arg(shown);
    statusBar()->showMessage(message, kStatusMessageMs);
    m_log->append(
        LogView::Severity::Info,
        tr("%1: %n tensor(s)", nullptr, static_cast<int>(result.entries.size())).arg(message));
    for (const auto &w : result.warnings)
        m_log->append(LogView::Severity::Warning, w);
    emit loadFinished(true);
}

void MainWindow::showLoadError(const OpenResult &result)
{
    const auto text = result.request.demo ? tr("Quantscope could not open its demo checkpoint.")
                                          : tr("Quantscope could not open “%1”.")
                                                .arg(QDir::toNativeSeparators(result.request.path));
    m_log->append(LogView::Severity::Error, text + QLatin1Char(' ') + result.error);

    auto *box = new QMessageBox(QMessageBox::Warning, tr("Could Not Open Checkpoint"), text,
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("openErrorBox"));
    box->setTextFormat(Qt::PlainText);
    // Rich text so that the core's message is shown literally, whatever it contains.
    box->setInformativeText(QStringLiteral("<p>%1</p>").arg(result.error.toHtmlEscaped()));
    if (result.lenientWouldOpen) {
        auto *retry = box->addButton(tr("Open Leniently"), QMessageBox::AcceptRole);
        retry->setToolTip(tr("Accept gaps and trailing bytes between tensors, as some writers "
                             "leave them. Overlapping or out-of-range tensors stay errors."));
        connect(retry, &QAbstractButton::clicked, this, [this, request = result.request] {
            auto lenient = request;
            lenient.lenient = true;
            startLoad(lenient);
        });
    }
    box->setDefaultButton(QMessageBox::Close);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, no nested event loop
}

void MainWindow::setActivation(const QString &tensorName)
{
    m_activation = tensorName;
    m_activationCheckpoint.reset();
    m_activationQuantized.reset();
    m_activationRequest.reset();
    m_browser->setActivation(tensorName);
    m_panel->setActivation(tensorName);
    if (!tensorName.isEmpty())
        m_log->append(LogView::Severity::Info,
                      tr("Paired %1 as the activation; the next run shows its channel maxima")
                          .arg(tensorName));
}

void MainWindow::openActivationFile(const QString &path)
{
    OpenRequest request;
    request.path = path;
    startActivationLoad(request, QString());
}

void MainWindow::startActivationLoad(const OpenRequest &request, const QString &tensor)
{
    const quint64 id = ++m_currentActivationLoad;
    ++m_loadsRunning;
    m_busy->show();
    auto *watcher = new QFutureWatcher<OpenResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, tensor] {
        watcher->deleteLater();
        if (--m_loadsRunning == 0)
            m_busy->hide();
        if (id == m_currentActivationLoad) {
            const auto result = watcher->result();
            if (!result.ok()) {
                const auto text =
                    tr("Could not open the activation file “%1”: %2")
                        .arg(QDir::toNativeSeparators(result.request.path), result.error);
                m_log->append(LogView::Severity::Error, text);
                statusBar()->showMessage(text, kStatusMessageMs);
            } else if (result.entries.isEmpty()) {
                m_log->append(LogView::Severity::Warning,
                              tr("“%1” holds no tensor to pair").arg(result.request.path));
            } else {
                // The named tensor when restoring a session, else the first one.
                QString name = result.entries.first().name;
                for (const auto &e : result.entries)
                    if (e.name == tensor)
                        name = e.name;
                m_activation = name;
                m_activationCheckpoint = result.checkpoint;
                m_activationQuantized = result.quantized;
                m_activationRequest = result.request;
                m_browser->setActivation(QString());
                m_panel->setActivation(name, result.path);
                m_log->append(LogView::Severity::Info,
                              tr("Paired %1 from %2 as the activation").arg(name, result.path));
            }
        }
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&loadCheckpoint, request));
}

void MainWindow::finishBackgroundTask()
{
    if (!isBusy())
        emit becameIdle();
}

void MainWindow::updateTitle()
{
    QString title =
        m_documentName.isEmpty() ? tr("Quantscope") : tr("Quantscope — %1").arg(m_documentName);
    if (!m_sessionFile.isEmpty())
        title += tr(" (%1)").arg(QFileInfo(m_sessionFile).fileName());
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
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_summary->setToolTip(result.warnings.isEmpty()
                              ? QDir::toNativeSeparators(result.path)
                              : QDir::toNativeSeparators(result.path) + QLatin1Char('\n') +
                                    result.warnings.join(QLatin1Char('\n')));
}

// ---- quantization jobs -----------------------------------------------------------------------

void MainWindow::runQuantization()
{
    if (!m_checkpoint) {
        statusBar()->showMessage(tr("Open a checkpoint first"), kStatusMessageMs);
        return;
    }
    const auto tensors = m_browser->selectedTensors();
    if (tensors.isEmpty()) {
        statusBar()->showMessage(tr("Select one or more tensors to quantize"), kStatusMessageMs);
        m_job->finish(tr("Select one or more tensors in the Tensors dock, then Run."));
        return;
    }

    QuantizeJobRequest request;
    for (const auto &t : tensors)
        request.tensors.push_back(t.toStdString());
    request.configs = m_panel->configurations();
    request.device = deviceChoiceOf(m_panel->device());
    request.bins = m_panel->bins();
    request.symlog = m_panel->symlog();
    request.threads = poolThreads();
    request.activation = m_activation.toStdString();

    TensorSource source;
    source.weight = tensorReader(m_checkpoint, m_quantized);
    if (!m_activation.isEmpty())
        source.activation = m_activationCheckpoint
                                ? tensorReader(m_activationCheckpoint, m_activationQuantized)
                                : source.weight;

    auto progress = std::make_shared<JobProgressState>();
    m_progress = progress;
    StepCallback step = [progress](double begin, double end, double total,
                                   const std::string &what) {
        std::lock_guard lock(progress->mutex);
        progress->begin = begin;
        progress->end = end;
        progress->totalCost = total;
        progress->what = what;
        progress->stepStart = std::chrono::steady_clock::now();
    };

    const auto configCount = static_cast<int>(request.configs.size());
    m_job->start(tr("Quantizing %n tensor(s)", nullptr, static_cast<int>(tensors.size())) +
                 tr(" × %n configuration(s)", nullptr, configCount));
    m_jobClock.start();
    m_progressTimer->start();
    m_panel->setRunning(true);
    m_cancelAction->setEnabled(true);

    m_tracker.start(
        [request = std::move(request), source = std::move(source), step = std::move(step)](
            const CancelToken &cancel) { return runQuantizeJob(request, source, cancel, step); },
        [this](QuantizeJobResult result) {
            const double seconds = m_jobClock.elapsed() / 1000.0;
            {
                std::lock_guard lock(m_progress->mutex);
                if (seconds > 0.05 && m_progress->totalCost > 0)
                    m_costPerSecond = m_progress->totalCost / seconds;
            }
            for (const auto &w : result.warnings)
                m_log->append(LogView::Severity::Warning, fromStd(w));
            int failed = 0;
            QStringList notes;
            for (const auto &o : result.outcomes) {
                if (!o.ok()) {
                    ++failed;
                    m_log->append(LogView::Severity::Error,
                                  tr("%1 on %2 failed: %3")
                                      .arg(fromStd(o.config), fromStd(o.tensor), fromStd(o.error)));
                } else if (!o.deviceNote.empty() && !notes.contains(fromStd(o.deviceNote))) {
                    notes << fromStd(o.deviceNote);
                    m_log->append(LogView::Severity::Warning, fromStd(o.deviceNote));
                }
            }
            for (const auto &p : result.tensors)
                if (!p.activationNote.empty())
                    m_log->append(LogView::Severity::Warning,
                                  tr("%1: %2").arg(fromStd(p.tensor), fromStd(p.activationNote)));
            const auto n = static_cast<int>(result.outcomes.size());
            QString message =
                tr("Finished %n run(s)", nullptr, n) +
                (seconds < 1 ? tr(" in %1 ms").arg(qRound(seconds * 1000))
                             : tr(" in %1 s").arg(QLocale().toString(seconds, 'f', 1)));
            if (failed > 0)
                message += tr("; %n failed (see the log)", nullptr, failed);
            m_log->append(failed ? LogView::Severity::Warning : LogView::Severity::Info, message);
            applyResults(std::make_shared<const QuantizeJobResult>(std::move(result)));
            m_job->finish(message, true);
            jobEnded();
            emit jobFinished(true);
            finishBackgroundTask();
        },
        [this](const QString &error) {
            const auto text = tr("The quantization job failed: %1").arg(error);
            m_log->append(LogView::Severity::Error, text);
            m_job->finish(text);
            jobEnded();
            showError(tr("Quantization Failed"), tr("The quantization job failed."), error);
            emit jobFinished(false);
            finishBackgroundTask();
        });
}

void MainWindow::cancelJob()
{
    if (!m_tracker.isRunning())
        return;
    // The worker stops at its next checkpoint; whatever it delivers is stale from now on.
    m_tracker.cancel();
    m_job->finish(tr("Cancelled; the partial result was discarded."));
    m_log->append(LogView::Severity::Info, tr("Job cancelled"));
    jobEnded();
    finishBackgroundTask();
}

void MainWindow::jobEnded()
{
    m_progressTimer->stop();
    m_panel->setRunning(false);
    m_cancelAction->setEnabled(false);
}

void MainWindow::pollProgress()
{
    if (!m_tracker.isRunning() || !m_progress)
        return;
    double begin, end, total;
    std::string what;
    std::chrono::steady_clock::time_point stepStart;
    {
        std::lock_guard lock(m_progress->mutex);
        begin = m_progress->begin;
        end = m_progress->end;
        total = m_progress->totalCost;
        what = m_progress->what;
        stepStart = m_progress->stepStart;
    }
    // Inside a step the engine reports nothing: interpolate by the measured speed, never past
    // 95 % of the step.
    const double elapsedJob = m_jobClock.elapsed() / 1000.0;
    if (begin > 0.02 && elapsedJob > 0.2)
        m_costPerSecond = begin * total / elapsedJob;
    const double inStep =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stepStart).count();
    double fraction = begin;
    if (total > 0 && end > begin) {
        const double stepCost = (end - begin) * total;
        fraction += (end - begin) * std::min(0.95, inStep * m_costPerSecond / stepCost);
    }
    double left = -1;
    if (total > 0 && m_costPerSecond > 0 && elapsedJob > 0.3)
        left = (1.0 - fraction) * total / m_costPerSecond;
    m_job->setProgress(fraction, fromStd(what), left);
}

void MainWindow::applyResults(std::shared_ptr<const QuantizeJobResult> results)
{
    m_results = std::move(results);
    m_distribution->setResults(m_results);
    m_numbers->model()->setResults(m_results);
}

void MainWindow::showError(const QString &title, const QString &text, const QString &details)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Close, this);
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(QStringLiteral("<p>%1</p>").arg(details.toHtmlEscaped()));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
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
    Session s;
    if (m_hasDocument) {
        SessionSource src;
        src.demo = m_documentRequest.demo;
        src.path = m_documentRequest.demo
                       ? std::string()
                       : QFileInfo(m_documentRequest.path).absoluteFilePath().toStdString();
        src.lenient = m_documentRequest.lenient;
        s.checkpoint = src;
    }
    s.activation = m_activation.toStdString();
    if (m_activationRequest) {
        SessionSource src;
        src.path = QFileInfo(m_activationRequest->path).absoluteFilePath().toStdString();
        src.lenient = m_activationRequest->lenient;
        s.activationSource = src;
    }
    for (const auto &t : m_browser->selectedTensors())
        s.selected.push_back(t.toStdString());
    s.device = m_panel->device().toStdString();
    s.bins = m_panel->bins();
    s.symlog = m_panel->symlog();
    s.configs = m_panel->configurations();
    if (m_results)
        s.results = *m_results;
    s.view = {{"tab", m_tabs->currentIndex()},
              {"tensor", m_distribution->currentTensor().toStdString()},
              {"log_y", m_distribution->logY()},
              {"channel_axis", m_distribution->channelAxis()},
              {"overlap", m_distribution->overlapConfig().toStdString()}};
    return s;
}

bool MainWindow::saveSession(const QString &file, QString *error)
{
    QByteArray bytes;
    try {
        bytes = QByteArray::fromStdString(sessionToJson(currentSession()).dump(1));
    } catch (const std::exception &e) {
        bytes.clear();
        if (error)
            *error = QString::fromUtf8(e.what());
    }
    QSaveFile out(file);
    const bool ok = !bytes.isEmpty() && out.open(QIODevice::WriteOnly) &&
                    out.write(bytes) == bytes.size() && out.commit();
    if (!ok) {
        const auto reason = bytes.isEmpty() && error ? *error : out.errorString();
        if (error)
            *error = reason;
        m_log->append(
            LogView::Severity::Error,
            tr("Could not save the session “%1”: %2").arg(QDir::toNativeSeparators(file), reason));
        showError(tr("Could Not Save Session"),
                  tr("Quantscope could not save “%1”.").arg(QDir::toNativeSeparators(file)),
                  reason);
        return false;
    }
    m_sessionFile = file;
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(file)), kStatusMessageMs);
    m_log->append(LogView::Severity::Info,
                  tr("Saved the session %1").arg(QDir::toNativeSeparators(file)));
    return true;
}

bool MainWindow::openSession(const QString &file)
{
    Session s;
    QString error;
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        error = in.errorString();
    } else {
        try {
            s = sessionFromJson(nlohmann::json::parse(in.readAll().toStdString()));
        } catch (const nlohmann::json::exception &e) {
            error = tr("not valid JSON (%1)").arg(QString::fromUtf8(e.what()));
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        }
    }
    if (!error.isEmpty()) {
        m_log->append(
            LogView::Severity::Error,
            tr("Could not open the session “%1”: %2").arg(QDir::toNativeSeparators(file), error));
        showError(
            tr("Could Not Open Session"),
            tr("Quantscope could not open the session “%1”.").arg(QDir::toNativeSeparators(file)),
            error);
        return false;
    }

    // A newer job would overwrite what the session restores.
    if (m_tracker.isRunning())
        cancelJob();
    for (const auto &problem : m_panel->setConfigurations(s.configs))
        m_log->append(LogView::Severity::Warning, problem);
    m_panel->setDevice(fromStd(s.device));
    m_panel->setBins(s.bins);
    m_panel->setSymlog(s.symlog);
    applyResults(std::make_shared<const QuantizeJobResult>(std::move(s.results)));
    const auto &v = s.view;
    if (v.is_object()) {
        m_distribution->setLogY(v.value("log_y", true));
        m_distribution->setChannelAxis(v.value("channel_axis", 1));
        m_distribution->setOverlapConfig(fromStd(v.value("overlap", std::string())));
        m_distribution->setCurrentTensor(fromStd(v.value("tensor", std::string())));
        m_tabs->setCurrentIndex(v.value("tab", 0));
    }
    m_sessionFile = file;
    updateTitle();
    addRecentPath(file);
    m_log->append(LogView::Severity::Info,
                  tr("Opened the session %1").arg(QDir::toNativeSeparators(file)));

    PendingRestore restore;
    for (const auto &t : s.selected)
        restore.selected << fromStd(t);
    restore.activation = fromStd(s.activation);
    if (s.activationSource) {
        OpenRequest a;
        a.path = fromStd(s.activationSource->path);
        a.lenient = s.activationSource->lenient;
        startActivationLoad(a, restore.activation);
        restore.activation.clear();
    }
    if (s.checkpoint) {
        OpenRequest request;
        request.demo = s.checkpoint->demo;
        request.path = fromStd(s.checkpoint->path);
        request.lenient = s.checkpoint->lenient;
        startLoad(request, restore);
    }
    return true;
}

// ---- dialogs and menus -----------------------------------------------------------------------

void MainWindow::openFileDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(
        this, tr("Open Checkpoint"), settings.value(lastOpenDirKey()).toString(),
        tr("Checkpoints and sessions (*.safetensors *.safetensors.index.json *.npy *.npz "
           "*.qscope);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QSettings().setValue(lastOpenDirKey(), QFileInfo(file).absolutePath());
        openPath(file);
    });
    dialog->open();
}

void MainWindow::openFolderDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, tr("Open Checkpoint Folder"),
                                   settings.value(lastOpenDirKey()).toString());
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &dir) {
        QSettings().setValue(lastOpenDirKey(), dir);
        openPath(dir);
    });
    dialog->open();
}

void MainWindow::openSessionDialog()
{
    QSettings settings;
    auto *dialog =
        new QFileDialog(this, tr("Open Session"), settings.value(lastOpenDirKey()).toString(),
                        tr("Quantscope sessions (*.qscope)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QSettings().setValue(lastOpenDirKey(), QFileInfo(file).absolutePath());
        openSession(file);
    });
    dialog->open();
}

void MainWindow::saveSessionDialog()
{
    QSettings settings;
    auto *dialog =
        new QFileDialog(this, tr("Save Session"), settings.value(lastOpenDirKey()).toString(),
                        tr("Quantscope sessions (*.qscope)"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("qscope"));
    dialog->selectFile(m_sessionFile.isEmpty()
                           ? (m_documentName.isEmpty() ? tr("session") : m_documentName) +
                                 QStringLiteral(".qscope")
                           : m_sessionFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QSettings().setValue(lastOpenDirKey(), QFileInfo(file).absolutePath());
        saveSession(file);
    });
    dialog->open();
}

void MainWindow::openActivationDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, tr("Pair Activation from File"),
                                   settings.value(lastOpenDirKey()).toString(),
                                   tr("Tensors (*.npy *.npz *.safetensors);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openActivationFile);
    dialog->open();
}

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

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    const auto paths = QSettings().value(recentPathsKey()).toStringList();
    for (const auto &path : paths) {
        auto *action = m_recentMenu->addAction(escapeMnemonic(QDir::toNativeSeparators(path)));
        // A file that has gone is shown greyed, not removed: it may be on a drive not mounted.
        if (!QFileInfo::exists(path)) {
            action->setEnabled(false);
            action->setToolTip(tr("Not found"));
            action->setText(tr("%1 (missing)").arg(action->text()));
        }
        connect(action, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    if (paths.isEmpty()) {
        m_recentMenu->addAction(tr("No Recent Files"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    connect(m_recentMenu->addAction(tr("&Clear List")), &QAction::triggered, this, [this] {
        QSettings().remove(recentPathsKey());
        fillRecentMenu();
    });
}

void MainWindow::addRecentPath(const QString &path)
{
    const auto absolute = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    auto paths = settings.value(recentPathsKey()).toStringList();
    paths.removeAll(absolute);
    paths.prepend(absolute);
    while (paths.size() > kMaxRecentPaths)
        paths.removeLast();
    settings.setValue(recentPathsKey(), paths);
    fillRecentMenu();
}

void MainWindow::showAbout()
{
    const auto device = m_deviceKnown ? m_deviceDescription : tr("still being detected");
    const auto text =
        tr("<h3>Quantscope %1</h3>"
           "<p>A workbench for quantizing the tensors of large language models.</p>"
           "<p><b>Compute device:</b> %2<br>"
           "<b>GPU backends in this build:</b> %3<br>"
           "<b>Job threads:</b> %4<br>"
           "<b>Qt:</b> %5</p>")
            .arg(QApplication::applicationVersion().toHtmlEscaped(), device.toHtmlEscaped(),
                 QString::fromStdString(builtGpuBackends()).toHtmlEscaped(),
                 QString::number(poolThreads()), QString::fromLatin1(qVersion()));
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Quantscope"), text,
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setTextFormat(Qt::RichText);
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace quantscope
