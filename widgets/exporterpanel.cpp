// SPDX-License-Identifier: MIT
#include "exporterpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "export/config_export.h"
#include "recipe/recipe.h"

namespace quantscope {

ExporterPanel::ExporterPanel(QWidget *parent) : QWidget(parent)
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

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExporterPanel::refresh);
    connect(m_activations, &QComboBox::currentIndexChanged, this, &ExporterPanel::refresh);
    connect(m_recipe, &QPlainTextEdit::textChanged, this, &ExporterPanel::refresh);
    connect(m_open, &QPushButton::clicked, this, &ExporterPanel::openRecipe);
    connect(m_save, &QPushButton::clicked, this, &ExporterPanel::save);
    setRecipeText(QString::fromStdString(Recipe::defaults().text()));
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
        m_status->setText(QString::fromStdString(e.what()));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
    }
    m_preview->setPlainText(m_text);
    m_save->setEnabled(!m_text.isEmpty());
}

void ExporterPanel::openRecipe()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open recipe…"), QString(), QStringLiteral("*.json"));
    if (path.isEmpty())
        return;
    try {
        setRecipeText(QString::fromStdString(Recipe::load(path.toStdString()).text()));
    } catch (const std::exception &e) {
        m_status->setText(QString::fromStdString(e.what()));
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
        m_status->setText(QString::fromStdString(e.what()));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
        return false;
    }
}

void ExporterPanel::save()
{
    const QString name = QString::fromStdString(
        defaultExportFileName(*parseExportFormat(m_format->currentText().toStdString())));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save…"), name);
    if (!path.isEmpty())
        saveTo(path);
}

} // namespace quantscope
