// SPDX-License-Identifier: MIT
#include "kvcontroller.h"

#include "engine/kv_device.h"
#include "kv/kv_data.h"
#include "kv/kv_lab.h"
#include "kvview.h"
#include "loadcontroller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <atomic>

namespace quantscope {

/// What the running lab last reported (written by the worker, read by the timer).
struct KvJobProgress {
    std::atomic<double> fraction{0};
    std::atomic<bool> loaded{false};
};

namespace {

constexpr int kPollMs = 100;

QString lastDirKey()
{
    return QStringLiteral("kv/lastDir");
}

} // namespace

KvController::KvController(QObject *parent, LoadController *loads, QTabWidget *tabs)
    : QObject(parent), m_loads(loads), m_tabs(tabs)
{
    m_pool.setMaxThreadCount(1); // the lab parallelises itself
    m_view = new KvView(tabs);
    m_view->setObjectName(QStringLiteral("kvView")); // quantscope --view kv
    tabs->setTabToolTip(
        tabs->addTab(m_view, tr("K&V cache")),
        tr("4-bit KV caches on your keys and values: FP8, codebooks, constOpt FP4, MXFP4, NVFP4, INT4"));
    m_openAction = new QAction(tr("Open &KV Cache…"), this);
    m_openAction->setStatusTip(
        tr("Study the K/V caches of a capture or of .safetensors/.npz/.npy arrays in the KV cache tab"));
    connect(m_openAction, &QAction::triggered, this, &KvController::openDialog);
    m_timer = new QTimer(this);
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &KvController::poll);
    connect(m_view, &KvView::openRequested, this, &KvController::openDialog);
    connect(m_view, &KvView::runRequested, this, &KvController::run);
    connect(m_view, &KvView::cancelRequested, this, &KvController::cancel);
    m_job.setCancelHandler([this] { cancel(); });
    if (m_loads)
        connect(m_loads, &LoadController::captureChanged, this, &KvController::captureChanged);
}

KvController::~KvController()
{
    shutdown();
}

void KvController::shutdown()
{
    m_job.cancel();
    m_pool.waitForDone();
}

void KvController::openDialog()
{
    auto *dialog = new QFileDialog(m_view->window(), tr("Open KV Cache"), QSettings().value(lastDirKey()).toString(),
                                   tr("K/V caches (*.safetensors *.npz *.npy);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        QSettings().setValue(lastDirKey(), QFileInfo(path).absolutePath());
        openKvFile(path);
        m_tabs->setCurrentWidget(m_view);
    });
    dialog->open();
}

void KvController::openKvFile(const QString &path)
{
    m_file = path;
    m_useFile = !path.isEmpty();
    updateSource();
}

void KvController::captureChanged()
{
    const QString path = m_loads->capture() ? m_loads->capturePath() : QString();
    if (path == m_capture)
        return;
    m_capture = path;
    if (!path.isEmpty())
        m_useFile = false; // the capture paired last is what the tab studies
    updateSource();
}

void KvController::updateSource()
{
    const bool file = (m_useFile || m_capture.isEmpty()) && !m_file.isEmpty();
    const QString path = file ? m_file : m_capture;
    if (path != m_view->source()) {
        if (m_job.isRunning())
            cancel();
        m_view->setReport(nullptr); // a report of another file
        m_view->setStatus(QString());
    }
    m_view->setSource(QDir::toNativeSeparators(path), path.isEmpty() ? QString()
                                                      : file         ? tr("opened file")
                                                                     : tr("the paired capture"));
}

void KvController::run()
{
    const QString path = QDir::fromNativeSeparators(m_view->source());
    if (path.isEmpty()) {
        m_view->showError(tr("No K/V cache: pair a capture or open one with File ▸ Open KV Cache…."));
        return;
    }
    KvLabOptions options = m_view->options();
    options.device = kvLabDevice(DeviceChoice::Auto); // the GPU when present, as `kv --device auto`
    auto progress = std::make_shared<KvJobProgress>();
    m_progress = progress;
    m_view->setRunning(true, tr("Reading the K/V cache of %1…").arg(QFileInfo(path).fileName()));
    m_timer->start();
    const std::string file = path.toStdString();
    m_job.start(
        tr("KV lab on %1").arg(QFileInfo(path).fileName()),
        [file, options, progress](const CancelToken &cancel) {
            const KvData data = loadKv(file);
            cancel.check();
            progress->loaded = true;
            auto report = std::make_shared<const KvLabReport>(
                runKvLab(data, options, &cancel, [progress](double f) { progress->fraction = f; }));
            return std::shared_ptr<const KvLabReport>(report);
        },
        [this](std::shared_ptr<const KvLabReport> report) {
            m_view->setReport(report);
            finished(
                tr("Studied %n scheme(s) and the plan in %1 ms.", nullptr, static_cast<int>(report->schemes.size()))
                    .arg(report->timeMs, 0, 'f', 0));
        },
        [this](const QString &error) {
            m_view->showError(error);
            finished(tr("The KV lab failed: check the file, then press Run again."));
        });
}

void KvController::cancel()
{
    if (!m_job.isRunning())
        return;
    m_job.cancel();
    finished(m_view->report() ? tr("Cancelled; the last report stays shown. Press Run to start again.")
                              : tr("Cancelled. Press Run to start again."));
}

void KvController::poll()
{
    if (!m_progress)
        return;
    m_view->setProgress(m_progress->fraction);
    m_job.setProgress(m_progress->fraction);
    if (m_progress->loaded.exchange(false))
        m_view->setStatus(tr("Running every KV scheme on every layer and head…"));
}

void KvController::finished(const QString &message)
{
    m_timer->stop();
    m_progress.reset();
    m_view->setRunning(false);
    m_view->setStatus(message);
    emit jobEnded();
}

} // namespace quantscope
