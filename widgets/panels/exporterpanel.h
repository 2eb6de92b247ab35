// SPDX-License-Identifier: MIT
#pragma once
/// \file exporterpanel.h
/// The Export tab (issue 26): a recipe (JSON, editable, or opened from a file), the target
/// format and the activation scheme, and a live preview of the exact text the exporter writes
/// (core/export/config_export.h) — refreshed on every change; what the target cannot express
/// shows its reason instead, and Save is disabled. Save writes the previewed text atomically.
/// Exporting a config is a pure string function of microseconds, so it runs here, not as a job.
/// "Export checkpoint…" writes the quantized checkpoint itself (every checkpoint target,
/// core/export/checkpoint_writer.h) from the checkpoint path given, as a JobTracker job on the
/// thread pool with a progress bar and Cancel; a cancelled or failed export leaves no output
/// folder.
#include <QString>
#include <QWidget>

#include "jobtracker.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace quantscope {

class ExporterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExporterPanel(QWidget *parent = nullptr);
    ~ExporterPanel() override;

    /// Replaces the recipe text (the preview follows).
    void setRecipeText(const QString &json);
    /// The text Save writes; empty while the recipe is refused.
    QString previewText() const { return m_text; }
    /// Writes previewText() to `path` atomically; false (and the reason in the status line) when
    /// there is nothing to write or the write failed.
    bool saveTo(const QString &path);

    QComboBox *formatBox() const { return m_format; }
    QComboBox *activationsBox() const { return m_activations; }
    QPlainTextEdit *recipeEdit() const { return m_recipe; }
    QPlainTextEdit *preview() const { return m_preview; }
    QLabel *status() const { return m_status; }
    QPushButton *saveButton() const { return m_save; }

    /// Starts writing the checkpoint at `checkpoint` quantized by the recipe into `outDir`, in the
    /// current format, as a background job; false when the format has no checkpoint writer, the
    /// recipe is refused or a job is running.
    bool exportCheckpoint(const QString &checkpoint, const QString &outDir);
    /// Whether a checkpoint export is running.
    bool exporting() const { return m_jobs.isRunning(); }
    QLineEdit *checkpointEdit() const { return m_checkpoint; }
    QPushButton *exportButton() const { return m_exportCk; }
    QPushButton *cancelButton() const { return m_cancelCk; }
    QProgressBar *progressBar() const { return m_progress; }

signals:
    /// A checkpoint export ended: written (ok) or not, with the status line's text.
    void checkpointExportFinished(bool ok, const QString &message);

private:
    void refresh();
    void openRecipe();
    void save();
    void chooseOutDir();
    void finishExport(bool ok, const QString &message);
    void updateButtons();

    QComboBox *m_format = nullptr;
    QComboBox *m_activations = nullptr;
    QPlainTextEdit *m_recipe = nullptr;
    QPlainTextEdit *m_preview = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_save = nullptr;
    QLineEdit *m_checkpoint = nullptr;
    QPushButton *m_exportCk = nullptr;
    QPushButton *m_cancelCk = nullptr;
    QProgressBar *m_progress = nullptr;
    QString m_text;
    JobTracker m_jobs;
};

} // namespace quantscope
