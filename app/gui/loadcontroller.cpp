// SPDX-License-Identifier: MIT
#include "loadcontroller.h"

#include "coremessages.h"
#include "export/gguf_export.h"
#include "io/checkpoint.h"
#include "logview.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"

#include <QAbstractButton>
#include <QDir>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPushButton>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>

namespace quantscope {

LoadController::LoadController(QWidget *window, TensorBrowser *browser, QuantizerPanel *panel, LogView *log)
    : QObject(window), m_window(window), m_browser(browser), m_panel(panel), m_log(log)
{
}

TensorSource LoadController::tensorSource() const
{
    TensorSource source;
    source.weight = tensorReader(m_checkpoint, m_quantized);
    if (!m_activation.isEmpty())
        source.activation =
            m_activationCheckpoint ? tensorReader(m_activationCheckpoint, m_activationQuantized) : source.weight;
    return source;
}

void LoadController::open(const OpenRequest &request, std::optional<Restore> restore)
{
    const quint64 id = ++m_currentLoad;
    ++m_loadsRunning;
    emit loadStarted(request.demo ? tr("Opening the demo…")
                                  : tr("Opening %1…").arg(QDir::toNativeSeparators(request.path)));

    auto *watcher = new QFutureWatcher<OpenResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, restore] {
        watcher->deleteLater();
        --m_loadsRunning;
        const OpenResult result = watcher->result();
        if (result.capture) // a capture dropped or chosen as a file: paired, the document stays
            openCapture(result.path);
        else if (id == m_currentLoad) // else a newer request replaced this one: drop it
            apply(result, restore);
        emit loadEnded();
    });
    watcher->setFuture(QtConcurrent::run(&loadCheckpoint, request));
}

void LoadController::apply(const OpenResult &result, const std::optional<Restore> &restore)
{
    if (!result.ok()) {
        emit statusMessage(tr("Opening failed"));
        showError(result);
        emit loadFinished(false);
        return;
    }

    // A job still running reads the previous checkpoint: its result would not belong here.
    emit documentReplacing(restore.has_value());
    m_checkpoint = result.checkpoint;
    m_quantized = result.quantized;
    m_documentRequest = result.request;
    m_hasDocument = true;
    m_documentName = result.request.demo ? tr("Demo") : result.documentName;
    m_browser->setEntries(result.entries);
    // The pairing belongs to the checkpoint it was made on.
    const auto unpair = [this] {
        m_activation.clear();
        m_activationCheckpoint.reset();
        m_activationQuantized.reset();
        m_activationRequest.reset();
        m_browser->setActivation(QString());
        m_panel->setActivation(QString());
    };
    if (!restore) {
        unpair();
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
        // Exactly the session's pairing: its tensor, the file being opened for it, or none.
        if (!restore->activation.isEmpty())
            setActivation(restore->activation);
        else if (!restore->activationFromFile)
            unpair();
    }
    // The capture belongs to the checkpoint it was paired with: a session names its own, else
    // one lying beside the checkpoint pairs itself.
    if (m_capture || !m_capturePath.isEmpty()) {
        m_capture.reset();
        m_capturePath.clear();
        emit captureChanged();
    }
    ++m_currentCaptureLoad; // a capture still being opened was for the previous checkpoint
    ++m_currentImatrixLoad; // so does the importance matrix (one still being read is dropped)
    if (m_imatrix) {
        m_imatrix.reset();
        m_imatrixPath.clear();
        emit imatrixChanged();
    }
    if (restore) {
        if (!restore->capture.isEmpty())
            startCapture(restore->capture, false);
    } else if (!result.request.demo) {
        startCapture(result.path, true);
    }
    emit documentOpened(result);

    const auto warnings = static_cast<int>(result.warnings.size());
    const auto shown = QDir::toNativeSeparators(result.path);
    QString message;
    if (result.request.demo)
        message = warnings == 0 ? tr("Opened the demo") : tr("Opened the demo with %n warning(s)", nullptr, warnings);
    else
        message = warnings == 0 ? tr("Opened %1").arg(shown)
                                : tr("Opened %1 with %n warning(s)", nullptr, warnings).arg(shown);
    emit statusMessage(message);
    m_log->append(LogView::Severity::Info,
                  tr("%1: %n tensor(s)", nullptr, static_cast<int>(result.entries.size())).arg(message));
    for (const auto &w : result.warnings)
        m_log->append(LogView::Severity::Warning, w);
    emit loadFinished(true);
}

void LoadController::showError(const OpenResult &result)
{
    const auto text = result.request.demo
                          ? tr("Quantscope could not open its demo checkpoint.")
                          : tr("Quantscope could not open “%1”.").arg(QDir::toNativeSeparators(result.request.path));
    m_log->append(LogView::Severity::Error, text + QLatin1Char(' ') + result.error);

    auto *box =
        new QMessageBox(QMessageBox::Warning, tr("Could Not Open Checkpoint"), text, QMessageBox::Close, m_window);
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
            open(lenient);
        });
    }
    box->setDefaultButton(QMessageBox::Close);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, no nested event loop
}

void LoadController::setActivation(const QString &tensorName)
{
    m_activation = tensorName;
    m_activationCheckpoint.reset();
    m_activationQuantized.reset();
    m_activationRequest.reset();
    m_browser->setActivation(tensorName);
    m_panel->setActivation(tensorName);
    if (!tensorName.isEmpty())
        m_log->append(LogView::Severity::Info,
                      tr("Paired %1 as the activation; the next run shows its channel maxima").arg(tensorName));
}

void LoadController::openActivation(const OpenRequest &request, const QString &tensor)
{
    const quint64 id = ++m_currentActivationLoad;
    ++m_loadsRunning;
    emit loadStarted(QString());
    auto *watcher = new QFutureWatcher<OpenResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, tensor] {
        watcher->deleteLater();
        --m_loadsRunning;
        if (id == m_currentActivationLoad)
            applyActivation(watcher->result(), tensor);
        emit loadEnded();
    });
    watcher->setFuture(QtConcurrent::run(&loadCheckpoint, request));
}

void LoadController::applyActivation(const OpenResult &result, const QString &tensor)
{
    if (!result.ok()) {
        const auto text = tr("Could not open the activation file “%1”: %2")
                              .arg(QDir::toNativeSeparators(result.request.path), result.error);
        m_log->append(LogView::Severity::Error, text);
        emit statusMessage(text);
    } else if (result.entries.isEmpty()) {
        m_log->append(LogView::Severity::Warning, tr("“%1” holds no tensor to pair").arg(result.request.path));
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
        m_log->append(LogView::Severity::Info, tr("Paired %1 from %2 as the activation").arg(name, result.path));
    }
}

void LoadController::openCapture(const QString &path)
{
    if (!m_checkpoint) {
        emit statusMessage(tr("Open a checkpoint first, then its capture"));
        return;
    }
    startCapture(path, false);
}

void LoadController::openImatrix(const QString &path)
{
    const quint64 id = ++m_currentImatrixLoad;
    ++m_loadsRunning;
    emit loadStarted(tr("Reading the importance matrix %1…").arg(QDir::toNativeSeparators(path)));
    using Loaded = std::pair<std::shared_ptr<const Imatrix>, QString>; // the matrix, or the error
    auto *watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, path] {
        watcher->deleteLater();
        --m_loadsRunning;
        emit loadEnded();
        if (id != m_currentImatrixLoad) // another file was asked for, or a checkpoint opened
            return;
        const Loaded loaded = watcher->result();
        if (!loaded.first) {
            m_log->append(LogView::Severity::Error, tr("Could not read the importance matrix: %1").arg(loaded.second));
            emit imatrixFailed(path, loaded.second);
            return;
        }
        m_imatrix = loaded.first;
        m_imatrixPath = path;
        m_log->append(LogView::Severity::Info,
                      tr("Importance matrix %1 read (%2 entries): the gguf method's K-quants with imatrix take their "
                         "weights from it")
                          .arg(QDir::toNativeSeparators(path))
                          .arg(m_imatrix->weights.size()));
        emit imatrixChanged();
    });
    watcher->setFuture(QtConcurrent::run([path]() -> Loaded {
        try {
            return {std::make_shared<const Imatrix>(loadImatrix(path.toStdString())), QString()};
        } catch (const std::exception &e) {
            return {nullptr, coremessages::translated(std::string(e.what()))};
        }
    }));
}

void LoadController::clearImatrix()
{
    ++m_currentImatrixLoad;
    if (!m_imatrix)
        return;
    m_imatrix.reset();
    m_imatrixPath.clear();
    emit imatrixChanged();
}

std::function<std::vector<float>(const std::string &, std::int64_t)> LoadController::importance() const
{
    if (!m_imatrix || !m_checkpoint)
        return {};
    return [im = m_imatrix, ck = m_checkpoint](const std::string &tensor, std::int64_t k) {
        return importanceOf(*im, *ck, tensor, k);
    };
}

void LoadController::clearCapture()
{
    ++m_currentCaptureLoad;
    if (!m_capture)
        return;
    m_log->append(LogView::Severity::Info, tr("Unpaired the capture %1").arg(QDir::toNativeSeparators(m_capturePath)));
    m_capture.reset();
    m_capturePath.clear();
    emit captureChanged();
}

QString LoadController::captureSummary() const
{
    if (!m_capture)
        return {};
    return tr("%1 of %2 modules, %n token(s)", nullptr, static_cast<int>(m_capture->tokens()))
        .arg(m_capturePairing.matched.size())
        .arg(m_captureWeights);
}

void LoadController::startCapture(const QString &path, bool automatic)
{
    const quint64 id = ++m_currentCaptureLoad;
    ++m_loadsRunning;
    emit loadStarted(automatic ? QString() : tr("Opening the capture %1…").arg(QDir::toNativeSeparators(path)));
    auto *watcher = new QFutureWatcher<CaptureLoad>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        --m_loadsRunning;
        if (id == m_currentCaptureLoad)
            applyCapture(watcher->result());
        emit loadEnded();
    });
    watcher->setFuture(QtConcurrent::run([path, automatic, checkpoint = m_checkpoint] {
        if (!automatic)
            return loadCapture(path, checkpoint);
        const QString found = findCaptureBeside(path);
        CaptureLoad none;
        none.automatic = true;
        if (found.isEmpty())
            return none;
        CaptureLoad r = loadCapture(found, checkpoint);
        r.automatic = true;
        return r;
    }));
}

void LoadController::applyCapture(const CaptureLoad &load)
{
    if (load.path.isEmpty()) // looked beside the checkpoint, found none
        return;
    const auto shown = QDir::toNativeSeparators(load.path);
    if (!load.ok()) {
        const auto text = load.automatic ? tr("Found the capture %1 beside the checkpoint but could not pair it: %2")
                                         : tr("Could not pair the capture %1: %2");
        m_log->append(load.automatic ? LogView::Severity::Warning : LogView::Severity::Error,
                      text.arg(shown, load.error));
        emit statusMessage(load.automatic ? tr("The capture beside the checkpoint did not pair (see the log)")
                                          : tr("The capture did not pair (see the log)"));
        return;
    }
    m_capture = load.capture;
    m_capturePath = load.path;
    m_capturePairing = load.pairing;
    m_captureWeights = load.weights;
    const auto message =
        (load.automatic ? tr("Paired the capture beside the checkpoint, %1: %2") : tr("Paired the capture %1: %2"))
            .arg(shown, captureSummary());
    m_log->append(LogView::Severity::Info,
                  message + QLatin1Char(' ') + tr("Quantize jobs and scans now report the output-aware error."));
    // Names in both whose shapes disagree: likely another model or a transposed export.
    constexpr std::size_t kListed = 10;
    const auto &bad = load.pairing.mismatched;
    for (std::size_t i = 0; i < bad.size() && i < kListed; ++i)
        m_log->append(LogView::Severity::Warning, tr("Capture shape mismatch: %1").arg(QString::fromStdString(bad[i])));
    if (bad.size() > kListed)
        m_log->append(LogView::Severity::Warning,
                      tr("%n more capture shape mismatch(es)", nullptr, static_cast<int>(bad.size() - kListed)));
    if (!load.pairing.onlyCheckpoint.empty())
        m_log->append(LogView::Severity::Info,
                      tr("%n weight(s) of the checkpoint are not in the capture (no output-aware error for them)",
                         nullptr, static_cast<int>(load.pairing.onlyCheckpoint.size())));
    emit statusMessage(message);
    emit captureChanged();
    if (!load.automatic)
        emit captureOpened(load.path);
}

} // namespace quantscope
