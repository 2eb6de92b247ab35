// SPDX-License-Identifier: MIT
// The window's file dialogs (open, save, pair), sharing and fitting (issue 42): File ▸ Export
// Report (results/report_html.h, in the background), Help ▸ User Guide (shipped as a
// resource), the default size for the screen, the views' narrow combo boxes, and the names
// `quantscope --view` takes.
#include "mainwindow.h"

#include "demo/demo.h"
#include "jobcontroller.h"
#include "languageswitch.h"
#include "loadcontroller.h"
#include "logview.h"
#include "results/config_label.h"
#include "results/report_html.h"
#include "distributionview.h"
#include "numbersmodel.h"
#include "numbersview.h"
#include "overviewmodel.h"
#include "overviewview.h"
#include "quantizerpanel.h"
#include "schemewords.h"
#include "spectrumview.h"
#include "sessioncontroller.h"
#include "util/error.h"
#include "coremessages.h"

#include <QActionGroup>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QEvent>
#include <QGuiApplication>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace quantscope {

namespace {

QString lastOpenDirKey()
{
    return QStringLiteral("lastOpenDir");
}

} // namespace

void MainWindow::exportReport(const QString &file)
{
    // Hashing the checkpoint reads every byte of it: in the background, the window stays live.
    const Session session = currentSession();
    ReportInfo info;
    info.checkpointName = m_loads->documentName().toStdString();
    info.generated = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")).toStdString();
    info.version = QUANTSCOPE_VERSION;
    const bool demo = session.checkpoint && session.checkpoint->demo;
    const std::string path = session.checkpoint ? session.checkpoint->path : std::string();
    const QString cannotWrite = tr("Could not write “%1”.").arg(QDir::toNativeSeparators(file));
    ++m_reportsRunning;
    showStatus(tr("Writing the report %1…").arg(QDir::toNativeSeparators(file)));
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, file] {
        watcher->deleteLater();
        --m_reportsRunning;
        const QString error = watcher->result();
        if (error.isEmpty()) {
            m_log->append(LogView::Severity::Info, tr("Wrote the report %1").arg(QDir::toNativeSeparators(file)));
            showStatus(tr("Wrote the report %1").arg(QDir::toNativeSeparators(file)));
        } else {
            m_log->append(LogView::Severity::Error, tr("The report was not written: %1").arg(error));
        }
        emit reportExported(error.isEmpty(), error);
        finishBackgroundTask();
    });
    watcher->setFuture(QtConcurrent::run([session, info, demo, path, file, cannotWrite]() mutable -> QString {
        try {
            const std::filesystem::path checkpoint = demo ? demo::ensureDemoCheckpoint() : std::filesystem::path(path);
            if (!checkpoint.empty()) {
                try {
                    info.checkpointHash = checkpointContentHash(checkpoint);
                } catch (const Error &) {
                    // The report says the checkpoint was not found.
                }
            }
            const std::string html = sessionReportHtml(session, info);
            QSaveFile out(file);
            if (!out.open(QIODevice::WriteOnly) ||
                out.write(html.data(), static_cast<qint64>(html.size())) != static_cast<qint64>(html.size()) ||
                !out.commit())
                return cannotWrite;
            return QString();
        } catch (const std::exception &e) {
            return coremessages::translated(std::string(e.what()));
        }
    }));
}

void MainWindow::updateStale()
{
    QSet<QString> stale;
    if (const auto results = m_jobs ? m_jobs->results() : nullptr)
        for (const auto &name : staleConfigurations(*results, m_panel->configurations()))
            stale.insert(QString::fromStdString(name));
    m_distribution->setStaleConfigs(stale);
    m_numbers->model()->setStaleConfigs(stale);
    m_overview->model()->setStaleConfigs(stale);
    m_spectrum->setStaleConfigs(stale);
}

void MainWindow::addLanguageMenu(QMenu *view)
{
    auto *languageMenu = view->addMenu(tr("L&anguage"));
    auto *languages = new QActionGroup(languageMenu);
    const auto chosen = language::current();
    for (const auto &[code, name] : language::choices()) {
        auto *a = languageMenu->addAction(name);
        a->setObjectName(QStringLiteral("language_") + (code.isEmpty() ? QStringLiteral("system") : code));
        a->setCheckable(true);
        a->setChecked(code == chosen);
        a->setData(code);
        languages->addAction(a);
        connect(a, &QAction::triggered, this, [this, code = code] {
            QSettings().setValue(QStringLiteral("language"), code);
            if (code == language::current())
                return;
            if (!language::apply(code))
                m_log->append(LogView::Severity::Warning,
                              tr("No translation for %1: the window stays in English.").arg(code));
        });
    }
}

void MainWindow::changeEvent(QEvent *event)
{
    // Qt sends it to every window once the translators changed; the children get it after the
    // window (widgets with texts of their own, such as plots, translate those themselves).
    if (event->type() == QEvent::LanguageChange) {
        language::retranslateTree(this);
        // The views draw configuration labels ("A · INT8 per channel sym") from the results:
        // delivered again, they draw them in the new language.
        if (m_jobs && m_jobs->results())
            showResults(m_jobs->results());
        updateTitle();
        showStatus(tr("Language: %1").arg(QLocale().nativeLanguageName()));
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::showUserGuide()
{
    // The guide ships as a resource (app/gui/CMakeLists.txt): it opens without a network or
    // the source tree. One window, raised when asked again.
    if (auto *open = findChild<QDialog *>(QStringLiteral("userGuide"))) {
        open->show();
        open->raise();
        return;
    }
    QFile file(QStringLiteral(":/help/user-guide"));
    if (!file.open(QIODevice::ReadOnly)) {
        showStatus(tr("The user guide is missing from this build"));
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("userGuide"));
    dialog->setWindowTitle(tr("Quantscope User Guide"));
    auto *layout = new QVBoxLayout(dialog);
    auto *browser = new QTextBrowser(dialog);
    browser->setOpenExternalLinks(false);
    browser->setMarkdown(QString::fromUtf8(file.readAll()));
    layout->addWidget(browser);
    auto *close = new QPushButton(tr("Close"), dialog);
    connect(close, &QPushButton::clicked, dialog, &QDialog::close);
    layout->addWidget(close, 0, Qt::AlignRight);
    // At most the screen's size (a laptop's 1280 × 800).
    const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 900, 700);
    dialog->resize(std::min(900, avail.width()), std::min(700, avail.height()));
    dialog->show();
}

void MainWindow::exportReportDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, tr("Export Report"), settings.value(lastOpenDirKey()).toString(),
                                   tr("HTML reports (*.html)"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("html"));
    const auto &name = m_loads->documentName();
    dialog->selectFile((name.isEmpty() ? tr("report") : name) + QStringLiteral("-report.html"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QSettings().setValue(lastOpenDirKey(), QFileInfo(file).absolutePath());
        exportReport(file);
    });
    dialog->open();
}

void MainWindow::narrowViewCombos()
{
    // A combo box asks for its longest item (a tensor name, a long configuration label): in a
    // view's tool bar that made the window wider than a laptop's screen. Every view's combo asks
    // for eight characters instead and takes what its row gives it; the popup shows the
    // whole items (issue 42).
    for (auto *combo : m_tabs->findChildren<QComboBox *>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }
}

void MainWindow::fitToScreen()
{
    // 1480 × 900 where there is room, else the screen's available area (a 1280 × 800 laptop).
    const QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    const QRect avail = s ? s->availableGeometry() : QRect(0, 0, 1480, 900);
    resize(std::min(1480, avail.width()), std::min(900, avail.height()));
    if (isVisible() && !avail.contains(frameGeometry()))
        move(avail.topLeft());
}

QStringList MainWindow::viewNames()
{
    return {QStringLiteral("distribution"),  QStringLiteral("numbers"),  QStringLiteral("spectrum"),
            QStringLiteral("scaleConstant"), QStringLiteral("kurtosis"), QStringLiteral("gemmTiming"),
            QStringLiteral("layers"),        QStringLiteral("budget"),   QStringLiteral("recipe"),
            QStringLiteral("export"),        QStringLiteral("compare"),  QStringLiteral("health"),
            QStringLiteral("model"),         QStringLiteral("kv"),       QStringLiteral("overview")};
}

void MainWindow::openFileDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, tr("Open Checkpoint"), settings.value(lastOpenDirKey()).toString(),
                                   tr("Checkpoints and sessions (*.safetensors *.safetensors.index.json *.npy *.npz "
                                      "*.gguf *.qscope);;All files (*)"));
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
    auto *dialog = new QFileDialog(this, tr("Open Checkpoint Folder"), settings.value(lastOpenDirKey()).toString());
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
    auto *dialog = new QFileDialog(this, tr("Open Session"), settings.value(lastOpenDirKey()).toString(),
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
    auto *dialog = new QFileDialog(this, tr("Save Session"), settings.value(lastOpenDirKey()).toString(),
                                   tr("Quantscope sessions (*.qscope)"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("qscope"));
    const auto &session = m_sessions->file();
    const auto &name = m_loads->documentName();
    dialog->selectFile(session.isEmpty() ? (name.isEmpty() ? tr("session") : name) + QStringLiteral(".qscope")
                                         : session);
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
    auto *dialog = new QFileDialog(this, tr("Pair Activation from File"), settings.value(lastOpenDirKey()).toString(),
                                   tr("Tensors (*.npy *.npz *.safetensors);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openActivationFile);
    dialog->open();
}

void MainWindow::openCaptureDialog()
{
    QSettings settings;
    auto *dialog = new QFileDialog(this, tr("Open Capture"), settings.value(lastOpenDirKey()).toString(),
                                   tr("Captures (*.safetensors);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openCapture);
    dialog->open();
}

void MainWindow::createGgufActions(QMenu *file)
{
    auto *open = file->addAction(tr("Open llama.cpp &Imatrix…"));
    open->setStatusTip(tr("Read llama.cpp's importance matrix (imatrix.dat or imatrix GGUF): the gguf method's "
                          "K-quants with imatrix then take their weights from it instead of a capture"));
    auto *clear = file->addAction(tr("Unpair Imatri&x"));
    clear->setEnabled(false);
    connect(clear, &QAction::triggered, m_loads, &LoadController::clearImatrix);
    connect(m_loads, &LoadController::imatrixChanged, this,
            [this, clear] { clear->setEnabled(!m_loads->imatrixPath().isEmpty()); });
    connect(open, &QAction::triggered, this, [this] {
        QSettings settings;
        auto *dialog = new QFileDialog(this, tr("Open llama.cpp Imatrix"), settings.value(lastOpenDirKey()).toString(),
                                       tr("Importance matrices (*.dat *.gguf);;All files (*)"));
        dialog->setFileMode(QFileDialog::ExistingFile);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, m_loads, &LoadController::openImatrix);
        dialog->open();
    });
    connect(m_loads, &LoadController::imatrixFailed, this, [this](const QString &, const QString &error) {
        showError(tr("Open llama.cpp Imatrix"), tr("Could not read the importance matrix."), error);
    });
    connect(m_loads, &LoadController::imatrixChanged, this, [this] {
        if (!m_loads->imatrixPath().isEmpty())
            showStatus(tr("Importance matrix: %1").arg(QDir::toNativeSeparators(m_loads->imatrixPath())));
    });
    // A GGUF tensor's stored type in words under its name in Distribution and Numbers.
    connect(m_loads, &LoadController::documentOpened, this, [this] {
        const auto schemes = schemewords::storedSchemes(m_loads->checkpoint());
        m_distribution->setStoredSchemes(schemes);
        m_numbers->setStoredSchemes(schemes);
    });
}

} // namespace quantscope
