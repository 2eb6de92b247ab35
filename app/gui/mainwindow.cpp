// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "backend.h"
#include "io/checkpoint.h"
#include "tensorlistmodel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace quantscope {

namespace {
constexpr int kMaxRecentPaths = 10;
constexpr int kStatusMessageMs = 8000;

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
    QString error;
};

DeviceQuery queryDevice() noexcept
{
    DeviceQuery q;
    try {
        q.description = QString::fromStdString(describeComputeDevice());
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
} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    createActions();
    createMenus();
    createCentralWidget();
    createStatusBar();
    updateTitle();
    resize(1100, 700);
    queryComputeDevice();
}

MainWindow::~MainWindow() = default;

int MainWindow::tensorCount() const noexcept
{
    return m_model->rowCount();
}

// ---- construction ----------------------------------------------------------------------------

void MainWindow::createActions()
{
    m_openAction =
        new QAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a .safetensors file or a sharded checkpoint's index"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFileDialog);

    m_openFolderAction =
        new QAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Folder…"), this);
    m_openFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openFolderAction->setStatusTip(tr("Open a checkpoint folder"));
    connect(m_openFolderAction, &QAction::triggered, this, &MainWindow::openFolderDialog);

    m_quitAction =
        new QAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_filterAction = new QAction(tr("&Filter Tensors"), this);
    m_filterAction->setShortcut(QKeySequence::Find);
    connect(m_filterAction, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });

    m_statusBarAction = new QAction(tr("Show &Status Bar"), this);
    m_statusBarAction->setCheckable(true);
    m_statusBarAction->setChecked(true);
    connect(m_statusBarAction, &QAction::toggled, this,
            [this](bool on) { statusBar()->setVisible(on); });

    m_demoAction = new QAction(tr("Open &Demo"), this);
    m_demoAction->setStatusTip(tr("Open the built-in demo checkpoint"));
    connect(m_demoAction, &QAction::triggered, this, &MainWindow::openDemo);

    m_aboutAction = new QAction(tr("&About Quantscope"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openFolderAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    fillRecentMenu();
    file->addSeparator();
    file->addAction(m_quitAction);

    auto *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_filterAction);
    view->addSeparator();
    view->addAction(m_statusBarAction);

    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_demoAction);
    help->addSeparator();
    help->addAction(m_aboutAction);
}

void MainWindow::createCentralWidget()
{
    m_model = new TensorListModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TensorListModel::SortRole);
    m_proxy->setFilterKeyColumn(TensorListModel::NameColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);

    auto *top = new QHBoxLayout;
    m_filter = new QLineEdit(central);
    m_filter->setPlaceholderText(tr("Filter tensors by name (wildcards: * ?)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterWildcard);
    m_summary = new QLabel(central);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_filter, 1);
    top->addSpacing(12);
    top->addWidget(m_summary);
    layout->addLayout(top);

    m_view = new QTableView(central);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle); // the end of a tensor name says the most
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    auto *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TensorListModel::NameColumn, QHeaderView::Stretch);
    header->setResizeContentsPrecision(500); // sample rows: checkpoints have 10⁴–10⁵ tensors
    header->setHighlightSections(false);
    // File order (layer order for most writers) until the user picks a column; a third click
    // on a header returns to it.
    header->setSortIndicatorClearable(true);
    header->setSortIndicator(-1, Qt::AscendingOrder);
    m_view->setSortingEnabled(true);
    layout->addWidget(m_view, 1);

    setCentralWidget(central);
}

void MainWindow::createStatusBar()
{
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

void MainWindow::queryComputeDevice()
{
    auto *watcher = new QFutureWatcher<DeviceQuery>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const auto q = watcher->result();
        if (q.error.isEmpty()) {
            m_deviceDescription = q.description;
            m_deviceLabel->setText(q.description);
        } else {
            m_deviceDescription = tr("unknown (%1)").arg(q.error);
            m_deviceLabel->setText(tr("Compute device: unknown"));
            m_deviceLabel->setToolTip(q.error);
        }
        m_deviceKnown = true;
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&queryDevice));
}

// ---- opening ---------------------------------------------------------------------------------

void MainWindow::openPath(const QString &path)
{
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

void MainWindow::startLoad(const OpenRequest &request)
{
    const quint64 id = ++m_currentLoad;
    ++m_loadsRunning;
    m_busy->show();
    statusBar()->showMessage(request.demo
                                 ? tr("Opening the demo…")
                                 : tr("Opening %1…").arg(QDir::toNativeSeparators(request.path)));

    auto *watcher = new QFutureWatcher<OpenResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        if (--m_loadsRunning == 0)
            m_busy->hide();
        if (id == m_currentLoad) // else a newer request replaced this one: drop it
            applyLoad(watcher->result());
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run(&loadCheckpoint, request));
}

void MainWindow::applyLoad(const OpenResult &result)
{
    if (!result.ok()) {
        statusBar()->showMessage(tr("Opening failed"), kStatusMessageMs);
        showLoadError(result);
        emit loadFinished(false);
        return;
    }

    m_checkpoint = result.checkpoint;
    m_documentPath = result.path;
    m_documentName = result.request.demo ? tr("Demo") : result.documentName;
    m_model->setEntries(result.entries);
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
    emit loadFinished(true);
}

void MainWindow::showLoadError(const OpenResult &result)
{
    qWarning().noquote() << "could not open"
                         << (result.request.demo ? QStringLiteral("the demo") : result.request.path)
                         << ":" << result.error;

    const auto text = result.request.demo ? tr("Quantscope could not open its demo checkpoint.")
                                          : tr("Quantscope could not open “%1”.")
                                                .arg(QDir::toNativeSeparators(result.request.path));
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Could Not Open Checkpoint"), text,
                                QMessageBox::Close, this);
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

void MainWindow::finishBackgroundTask()
{
    if (!isBusy())
        emit becameIdle();
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_documentName.isEmpty() ? tr("Quantscope")
                                            : tr("Quantscope — %1").arg(m_documentName));
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

// ---- dialogs and menus -----------------------------------------------------------------------

void MainWindow::openFileDialog()
{
    QSettings settings;
    const auto file = QFileDialog::getOpenFileName(
        this, tr("Open Checkpoint"), settings.value(lastOpenDirKey()).toString(),
        tr("Checkpoints (*.safetensors *.safetensors.index.json);;All files (*)"));
    if (file.isEmpty())
        return;
    settings.setValue(lastOpenDirKey(), QFileInfo(file).absolutePath());
    openPath(file);
}

void MainWindow::openFolderDialog()
{
    QSettings settings;
    const auto dir = QFileDialog::getExistingDirectory(this, tr("Open Checkpoint Folder"),
                                                       settings.value(lastOpenDirKey()).toString());
    if (dir.isEmpty())
        return;
    settings.setValue(lastOpenDirKey(), dir);
    openPath(dir);
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    const auto paths = QSettings().value(recentPathsKey()).toStringList();
    for (const auto &path : paths) {
        auto *action = m_recentMenu->addAction(escapeMnemonic(QDir::toNativeSeparators(path)));
        connect(action, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    if (paths.isEmpty()) {
        m_recentMenu->addAction(tr("No Recent Checkpoints"))->setEnabled(false);
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
           "<b>Qt:</b> %4</p>")
            .arg(QApplication::applicationVersion().toHtmlEscaped(), device.toHtmlEscaped(),
                 QString::fromStdString(builtGpuBackends()).toHtmlEscaped(),
                 QString::fromLatin1(qVersion()));
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Quantscope"), text,
                                QMessageBox::Close, this);
    box->setTextFormat(Qt::RichText);
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace quantscope
