// SPDX-License-Identifier: MIT
#pragma once
/// \file exporterpanel.h
/// The Export tab (issue 26): a recipe (JSON, editable, or opened from a file), the target
/// format and the activation scheme, and a live preview of the exact text the exporter writes
/// (core/export/config_export.h) — refreshed on every change; what the target cannot express
/// shows its reason instead, and Save is disabled. Save writes the previewed text atomically.
/// Exporting a config is a pure string function of microseconds, so it runs here, not as a job.
#include <QString>
#include <QWidget>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace quantscope {

class ExporterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExporterPanel(QWidget *parent = nullptr);

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

private:
    void refresh();
    void openRecipe();
    void save();

    QComboBox *m_format = nullptr;
    QComboBox *m_activations = nullptr;
    QPlainTextEdit *m_recipe = nullptr;
    QPlainTextEdit *m_preview = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_save = nullptr;
    QString m_text;
};

} // namespace quantscope
