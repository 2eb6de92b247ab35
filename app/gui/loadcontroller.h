// SPDX-License-Identifier: MIT
#pragma once
/// \file loadcontroller.h
/// The window's document: the opened checkpoint and the paired activation. Opening runs in the
/// background (checkpointloader.h); only the newest request of each kind is applied, older
/// ones are dropped when they arrive. The controller fills the tensor browser and the
/// quantizer panel's activation line and logs what happened; the window reacts to its signals
/// (busy indicator, status bar, title, recent files).
#include "captureloader.h"
#include "checkpointloader.h"
#include "engine/job.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

class QWidget;

namespace quantscope {

class Checkpoint;
struct Detection;
struct Imatrix;
class LogView;
class QuantizerPanel;
class TensorBrowser;

class LoadController : public QObject {
    Q_OBJECT
public:
    /// What a session restores once its checkpoint is open: the selection and the pairing.
    struct Restore {
        QStringList selected;
        QString activation;
        /// The pairing comes from a file opened separately (openActivation): keep it for that.
        bool activationFromFile = false;
        /// The session's capture ("" none: nothing is paired, not even a capture beside it).
        QString capture;
    };

    /// `window` owns the controller and parents its message boxes.
    LoadController(QWidget *window, TensorBrowser *browser, QuantizerPanel *panel, LogView *log);

    /// Opens a checkpoint (or the demo) in the background; it replaces the document when it
    /// succeeds. With `restore`, the session's selection and pairing are applied instead of
    /// clearing the results and the pairing.
    void open(const OpenRequest &request, std::optional<Restore> restore = {});
    /// Opens a file in the background and pairs its tensor named `tensor` (its first when
    /// there is no such tensor) as the activation.
    void openActivation(const OpenRequest &request, const QString &tensor);
    /// Pairs a tensor of the opened checkpoint as the activation ("" unpairs).
    void setActivation(const QString &tensorName);
    /// Opens a calibration capture in the background and pairs it with the opened checkpoint by
    /// module name; from then on every quantize job and scan carries it.
    void openCapture(const QString &path);
    /// Unpairs the capture.
    void clearCapture();
    /// Reads llama.cpp's importance matrix (imatrix.dat or imatrix GGUF) in the background for the
    /// gguf method's `imatrix`: once read (imatrixChanged), every quantize job takes a tensor's
    /// weights from it in place of the capture's; a file that does not read gives imatrixFailed
    /// (the error names the file). A checkpoint opened meanwhile drops it.
    void openImatrix(const QString &path);
    void clearImatrix();
    /// The job's reader of the importance matrix (empty when none): QuantizeJobRequest::importance.
    std::function<std::vector<float>(const std::string &, std::int64_t)> importance() const;
    const QString &imatrixPath() const noexcept { return m_imatrixPath; }

    /// True while a checkpoint or an activation file is being opened.
    bool isLoading() const noexcept { return m_loadsRunning > 0; }
    bool hasCheckpoint() const noexcept { return m_checkpoint != nullptr; }
    /// Something was opened (the session names it even if it is gone by now).
    bool hasDocument() const noexcept { return m_hasDocument; }
    const OpenRequest &documentRequest() const noexcept { return m_documentRequest; }
    /// The title bar's name of the document ("" before the first one).
    const QString &documentName() const noexcept { return m_documentName; }
    /// The paired activation tensor ("" none).
    const QString &activation() const noexcept { return m_activation; }
    /// The file the activation came from; empty when it is a tensor of the document.
    const std::optional<OpenRequest> &activationRequest() const noexcept { return m_activationRequest; }
    /// Readers of the document's tensors and of the paired activation, for a job on a worker.
    TensorSource tensorSource() const;
    /// The opened checkpoint (null when none), for a job that reads it whole (the scan).
    std::shared_ptr<const Checkpoint> checkpoint() const { return m_checkpoint; }
    /// The paired capture (null when none) and its file.
    std::shared_ptr<const Capture> capture() const { return m_capture; }
    const QString &capturePath() const noexcept { return m_capturePath; }
    /// "12 of 14 modules, 4096 tokens" for the paired capture ("" none).
    QString captureSummary() const;

signals:
    /// A load started; `message` is for the status bar ("" for activation files).
    void loadStarted(const QString &message);
    /// A load returned (applied, failed or dropped as stale); isLoading() says whether others
    /// still run.
    void loadEnded();
    /// A short message for the status bar.
    void statusMessage(const QString &text);
    /// A new document is about to replace the current one: a running job reads the old one.
    /// `restoring`: a session brings its own results, else the old results go too.
    void documentReplacing(bool restoring);
    /// The document was replaced by `result` (title, summary and recent files follow it).
    void documentOpened(const OpenResult &result);
    /// The newest load finished (`ok` false: it failed and the error is being shown).
    void loadFinished(bool ok);
    /// The paired capture changed (paired, replaced or gone with its checkpoint).
    void captureChanged();
    /// The user opened a capture and it paired (for the recent files).
    void captureOpened(const QString &path);
    /// The importance matrix was read, replaced or dropped (with its checkpoint).
    void imatrixChanged();
    /// openImatrix could not read `path`: `error` names the file and what is wrong.
    void imatrixFailed(const QString &path, const QString &error);

private:
    void apply(const OpenResult &result, const std::optional<Restore> &restore);
    void showError(const OpenResult &result);
    void applyActivation(const OpenResult &result, const QString &tensor);
    /// Opens (or, `automatic`, looks for beside the checkpoint) a capture on a worker.
    void startCapture(const QString &path, bool automatic);
    void applyCapture(const CaptureLoad &load);

    QWidget *m_window;
    TensorBrowser *m_browser;
    QuantizerPanel *m_panel;
    LogView *m_log;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const Detection> m_quantized;
    OpenRequest m_documentRequest;
    bool m_hasDocument = false;
    QString m_documentName;
    /// The paired activation: a tensor of m_activationCheckpoint, or of the document when null.
    QString m_activation;
    std::shared_ptr<const Checkpoint> m_activationCheckpoint;
    std::shared_ptr<const Detection> m_activationQuantized;
    std::optional<OpenRequest> m_activationRequest;
    std::shared_ptr<const Capture> m_capture;
    QString m_capturePath;
    CapturePairing m_capturePairing;
    int m_captureWeights = 0;
    std::shared_ptr<const Imatrix> m_imatrix;
    QString m_imatrixPath;

    /// Id of the newest load of each kind; a finished load with another id is stale.
    quint64 m_currentLoad = 0;
    quint64 m_currentActivationLoad = 0;
    quint64 m_currentCaptureLoad = 0;
    quint64 m_currentImatrixLoad = 0;
    int m_loadsRunning = 0;
};

} // namespace quantscope
