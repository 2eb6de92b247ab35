// SPDX-License-Identifier: MIT
#include "exporterpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QThreadPool>
#include <QVBoxLayout>

#include "export/config_export.h"
#include "export/checkpoint_writer.h"
#include "recipe/recipe.h"
#include "util/error.h"
#include "coremessages.h"

namespace quantscope {

ExporterPanel::ExporterPanel(QWidget *parent) : QWidget(parent), m_jobs(this, QThreadPool::globalInstance())
{
    m_format = new QComboBox(this);
    for (ExportFormat f : allExportFormats())
        m_format->addItem(QString::fromUtf8(toString(f).data(), static_cast<int>(toString(f).size())));
    m_activations = new QComboBox(this);
    for (ActivationScheme a : {ActivationScheme::None, ActivationScheme::Fp8Dynamic, ActivationScheme::Fp8Static})
        m_activations->addItem(QString::fromUtf8(toString(a).data(), static_cast<int>(toString(a).size())));
    m_open = new QPushButton(tr("Open recipe…"), this);
    m_save = new QPushButton(tr("Save…"), this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Format:"), this));
    top->addWidget(m_format);
    top->addWidget(new QLabel(tr("Activations:"), this));
    top->addWidget(m_activations);
    top->addStretch(1);
    top->addWidget(m_open);
    top->addWidget(m_save);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_recipe = new QPlainTextEdit(this);
    m_recipe->setFont(mono);
    m_preview = new QPlainTextEdit(this);
    m_preview->setFont(mono);
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_recipe);
    split->addWidget(m_preview);
    split->setStretchFactor(1, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The checkpoint export: input path, a background job with progress and Cancel.
    m_checkpoint = new QLineEdit(this);
    m_checkpoint->setPlaceholderText(QStringLiteral("model.safetensors / folder"));
    m_exportCk = new QPushButton(tr("Export checkpoint…"), this);
    m_cancelCk = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    auto *ckRow = new QHBoxLayout;
    ckRow->addWidget(new QLabel(tr("Checkpoint:"), this));
    ckRow->addWidget(m_checkpoint, 1);
    ckRow->addWidget(m_exportCk);
    ckRow->addWidget(m_progress);
    ckRow->addWidget(m_cancelCk);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addLayout(ckRow);
    layout->addWidget(m_status);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExporterPanel::refresh);
    connect(m_activations, &QComboBox::currentIndexChanged, this, &ExporterPanel::refresh);
    connect(m_recipe, &QPlainTextEdit::textChanged, this, &ExporterPanel::refresh);
    connect(m_open, &QPushButton::clicked, this, &ExporterPanel::openRecipe);
    connect(m_save, &QPushButton::clicked, this, &ExporterPanel::save);
    connect(m_exportCk, &QPushButton::clicked, this, &ExporterPanel::chooseOutDir);
    connect(m_cancelCk, &QPushButton::clicked, this, [this] { m_jobs.stop(); });
    // The Jobs dock's Cancel too: the writer removes its partial output, then says how it ended.
    m_jobs.setCancelHandler([this] { m_jobs.stop(); });
    connect(m_checkpoint, &QLineEdit::textChanged, this, &ExporterPanel::updateButtons);
    setRecipeText(QString::fromStdString(Recipe::defaults().text()));
}

ExporterPanel::~ExporterPanel() = default; // the tracker stops a running export (its output is removed)

bool ExporterPanel::exportCheckpoint(const QString &checkpoint, const QString &outDir)
{
    const ExportFormat f = *parseExportFormat(m_format->currentText().toStdString());
    if (m_jobs.isRunning() || m_text.isEmpty() || !writesCheckpoints(f))
        return false;
    Recipe recipe;
    ExportOptions o;
    try {
        recipe = Recipe::fromJson(nlohmann::ordered_json::parse(m_recipe->toPlainText().toStdString()));
        o.activations = *parseActivationScheme(m_activations->currentText().toStdString());
    } catch (const std::exception &) {
        return false; // refresh() already shows why
    }
    m_progress->setValue(0);
    QPointer<ExporterPanel> self(this);
    auto report = [self](double fraction, const std::string &) {
        QMetaObject::invokeMethod(
            self,
            [self, fraction] {
                if (self && self->m_jobs.isRunning()) {
                    self->m_progress->setValue(static_cast<int>(fraction * 1000));
                    self->m_jobs.setProgress(fraction);
                }
            },
            Qt::QueuedConnection);
    };
    struct Outcome {
        bool ok = false;
        QString message;
    };
    const std::string in = checkpoint.toStdString(), out = outDir.toStdString();
    m_jobs.start(
        tr("Export to %1").arg(outDir),
        [=](const CancelToken &cancel) {
            // Cancel (JobTracker::stop) ends the writer at its next check, after it removed its
            // staging folder; the outcome is delivered so the panel says how it ended.
            try {
                CheckpointExportControl control;
                control.cancel = &cancel;
                control.progress = report;
                const CheckpointExportResult r = quantscope::exportCheckpoint(in, recipe, f, out, o, control);
                return Outcome{true, tr("Wrote %1 (%2 modules quantized)").arg(outDir).arg(r.quantized.size())};
            } catch (const Cancelled &) {
                return Outcome{false, tr("Cancelled")};
            }
        },
        [this](Outcome &&r) { finishExport(r.ok, r.message); },
        [this](const QString &error) { finishExport(false, error); });
    updateButtons();
    return true;
}

void ExporterPanel::finishExport(bool ok, const QString &message)
{
    m_progress->setValue(ok ? 1000 : 0);
    m_status->setText(message);
    m_status->setStyleSheet(ok ? QString() : QStringLiteral("color: #d62728;"));
    updateButtons();
    emit checkpointExportFinished(ok, message);
}

void ExporterPanel::chooseOutDir()
{
    const QString dir = QFileDialog::getSaveFileName(this, tr("Export checkpoint…"));
    if (!dir.isEmpty())
        exportCheckpoint(m_checkpoint->text(), dir);
}

void ExporterPanel::updateButtons()
{
    const auto f = parseExportFormat(m_format->currentText().toStdString());
    const bool writable = f && writesCheckpoints(*f);
    m_exportCk->setEnabled(!m_jobs.isRunning() && writable && !m_text.isEmpty() && !m_checkpoint->text().isEmpty());
    m_cancelCk->setEnabled(m_jobs.isRunning());
}

void ExporterPanel::setRecipeText(const QString &json)
{
    m_recipe->setPlainText(json); // textChanged → refresh
}

void ExporterPanel::refresh()
{
    m_text.clear();
    try {
        const Recipe recipe = Recipe::fromJson(nlohmann::ordered_json::parse(m_recipe->toPlainText().toStdString()));
        ExportOptions o;
        o.activations = *parseActivationScheme(m_activations->currentText().toStdString());
        const ExportFormat f = *parseExportFormat(m_format->currentText().toStdString());
        m_text = QString::fromStdString(exportRecipeText(recipe, f, o));
        m_status->setText(QString::fromStdString(defaultExportFileName(f)));
        m_status->setStyleSheet(QString());
    } catch (const std::exception &e) {
        // The exporter's reason, as the engine words it (like the doctor's findings).
        m_status->setText(coremessages::translated(std::string(e.what())));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
    }
    m_preview->setPlainText(m_text);
    m_save->setEnabled(!m_text.isEmpty());
    if (m_exportCk)
        updateButtons();
}

void ExporterPanel::openRecipe()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open recipe…"), QString(), QStringLiteral("*.json"));
    if (path.isEmpty())
        return;
    try {
        setRecipeText(QString::fromStdString(Recipe::load(path.toStdString()).text()));
    } catch (const std::exception &e) {
        m_status->setText(coremessages::translated(std::string(e.what())));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
    }
}

bool ExporterPanel::saveTo(const QString &path)
{
    if (m_text.isEmpty())
        return false;
    try {
        writeTextAtomically(path.toStdString(), m_text.toStdString());
        return true;
    } catch (const std::exception &e) {
        m_status->setText(coremessages::translated(std::string(e.what())));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
        return false;
    }
}

void ExporterPanel::save()
{
    const QString name =
        QString::fromStdString(defaultExportFileName(*parseExportFormat(m_format->currentText().toStdString())));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save…"), name);
    if (!path.isEmpty())
        saveTo(path);
}

} // namespace quantscope
