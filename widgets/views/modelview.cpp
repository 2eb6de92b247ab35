// SPDX-License-Identifier: MIT
#include "modelview.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "budgetpointsplot.h"
#include "proxyscatterplot.h"
#include "qtstring.h"

namespace quantscope {

namespace {

/// A line edit with a "…" button that opens a file (or folder) dialog without blocking.
QWidget *withBrowse(QLineEdit *edit, const QString &title, const QString &filter, bool folder, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    auto *browse = new QPushButton(ModelView::tr("…"), box);
    browse->setToolTip(title);
    row->addWidget(edit, 1);
    row->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, title, filter, folder] {
        auto *dialog = new QFileDialog(edit->window(), title, edit->text(), filter);
        dialog->setFileMode(folder ? QFileDialog::Directory : QFileDialog::ExistingFile);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dialog, &QFileDialog::fileSelected, edit, &QLineEdit::setText);
        dialog->open();
    });
    return box;
}

QString rhoText(const ProxyAgreement &a)
{
    return a.spearman ? QString::number(*a.spearman, 'f', 3) : ModelView::tr("undefined");
}

QString numberText(double v, int digits = 4)
{
    return std::isfinite(v) ? QString::number(v, 'g', digits) : QStringLiteral("—");
}

} // namespace

ModelView::ModelView(QWidget *parent) : QWidget(parent)
{
    m_model = new QLineEdit(this);
    m_model->setPlaceholderText(tr("A Hugging Face model folder (or a .gguf)"));
    m_data = new QLineEdit(this);
    m_data->setPlaceholderText(tr("UTF-8 text, or token ids as .npy"));
    m_samples = new QSpinBox(this);
    m_samples->setRange(1, 100000);
    m_samples->setValue(16);
    m_samples->setToolTip(tr("Sequences the model runs on"));
    m_seq = new QSpinBox(this);
    m_seq->setRange(2, 1000000);
    m_seq->setValue(128);
    m_seq->setToolTip(tr("Tokens per sequence"));
    auto *shape = new QHBoxLayout;
    shape->addWidget(m_samples);
    shape->addWidget(new QLabel(tr("×"), this));
    shape->addWidget(m_seq);
    shape->addWidget(new QLabel(tr("tokens"), this));
    shape->addStretch(1);
    m_capture = new QLabel(this);
    m_capture->setWordWrap(true);
    m_capture->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_python = new QLineEdit(this);
    m_python->setToolTip(tr("The interpreter with PyTorch and transformers the bridge runs in"));
    m_check = new QPushButton(tr("Check"), this);
    m_check->setToolTip(tr("Whether the interpreter has what the bridge needs, and their versions"));
    m_checkResult = new QLabel(this);
    m_checkResult->setWordWrap(true);
    m_checkResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *pythonRow = new QHBoxLayout;
    pythonRow->addWidget(m_python, 1);
    pythonRow->addWidget(m_check);
    m_recipe = new QComboBox(this);
    m_recipe->addItem(tr("the Recipe tab's recipe"));
    m_recipe->addItem(tr("the Budget tab's chosen recipe"));
    m_recipe->addItem(tr("a recipe file"));
    m_recipeFile = new QLineEdit(this);
    m_recipeFile->setPlaceholderText(tr("R.json"));
    auto *recipeFile =
        withBrowse(m_recipeFile, tr("Choose a Recipe"), tr("Recipes (*.json);;All files (*)"), false, this);
    recipeFile->setEnabled(false);
    auto *recipeRow = new QHBoxLayout;
    recipeRow->addWidget(m_recipe);
    recipeRow->addWidget(recipeFile, 1);
    connect(m_recipe, &QComboBox::currentIndexChanged, recipeFile,
            [this, recipeFile] { recipeFile->setEnabled(recipeSource() == RecipeSource::File); });

    auto *form = new QFormLayout;
    form->addRow(tr("Model:"), withBrowse(m_model, tr("Choose the Model Folder"), QString(), true, this));
    form->addRow(tr("Calibration data:"),
                 withBrowse(m_data, tr("Choose Calibration Data"), tr("Text or token ids (*.txt *.npy);;All files (*)"),
                            false, this));
    form->addRow(tr("Samples:"), shape);
    form->addRow(tr("Capture:"), m_capture);
    form->addRow(tr("Interpreter:"), pythonRow);
    form->addRow(QString(), m_checkResult);
    form->addRow(tr("Recipe:"), recipeRow);

    m_captureRun = new QPushButton(tr("Capture Activations"), this);
    m_captureRun->setToolTip(tr("Run the model on the calibration data and keep each layer's input Gram, ranges and "
                                "sampled rows, and the K/V cache: a capture, paired with the checkpoint"));
    m_measureLayers = new QPushButton(tr("Measure Layers"), this);
    m_measureLayers->setToolTip(tr("One eval with the recipe, each module also quantized alone: its KL against its "
                                   "output-aware and weight error"));
    m_points = new QSpinBox(this);
    m_points->setRange(5, 8);
    m_points->setValue(6);
    m_points->setSuffix(tr(" points"));
    m_measurePoints = new QPushButton(tr("Measure Budget Points"), this);
    m_measurePoints->setToolTip(tr("The Budget tab's optimum at budgets from its least to its most MB, each measured "
                                   "by an eval"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->hide();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_captureRun);
    buttons->addWidget(m_measureLayers);
    buttons->addWidget(m_points);
    buttons->addWidget(m_measurePoints);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("modelError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->hide();

    m_layerPlot = new ProxyScatterPlot(this);
    m_layerSummary = new QLabel(tr("Measure layers to see which error predicts the model's KL."), this);
    m_layerSummary->setWordWrap(true);
    m_layerSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layerBox = new QWidget(this);
    auto *layerLayout = new QVBoxLayout(layerBox);
    layerLayout->setContentsMargins(0, 0, 0, 0);
    layerLayout->addWidget(m_layerPlot, 1);
    layerLayout->addWidget(m_layerSummary);

    m_pointsPlot = new BudgetPointsPlot(this);
    m_pointsSummary =
        new QLabel(tr("Scan in the Layers tab; the Budget tab's optima can then be measured here."), this);
    m_pointsSummary->setWordWrap(true);
    m_pointsSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget(0, 5, this);
    m_table->setHorizontalHeaderLabels(
        {tr("MB"), tr("Predicted error"), tr("Measured KL ± 95 %"), tr("Top-1 agreement"), tr("Perplexity")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto *pointsBox = new QWidget(this);
    auto *pointsLayout = new QVBoxLayout(pointsBox);
    pointsLayout->setContentsMargins(0, 0, 0, 0);
    pointsLayout->addWidget(m_pointsPlot, 2);
    pointsLayout->addWidget(m_pointsSummary);
    pointsLayout->addWidget(m_table, 1);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(layerBox);
    split->addWidget(pointsBox);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_error);
    layout->addWidget(split, 1);

    connect(m_check, &QPushButton::clicked, this, &ModelView::checkRequested);
    connect(m_captureRun, &QPushButton::clicked, this, &ModelView::captureRequested);
    connect(m_measureLayers, &QPushButton::clicked, this, &ModelView::measureLayersRequested);
    connect(m_measurePoints, &QPushButton::clicked, this, &ModelView::measurePointsRequested);
    connect(m_cancel, &QPushButton::clicked, this, &ModelView::cancelRequested);
    connect(m_python, &QLineEdit::editingFinished, this, [this] { emit pythonChanged(python()); });
    setCapture(QString(), QString());
}

QString ModelView::modelPath() const
{
    return m_model->text().trimmed();
}

void ModelView::setModelPath(const QString &path)
{
    m_model->setText(path);
}

QString ModelView::dataPath() const
{
    return m_data->text().trimmed();
}

void ModelView::setDataPath(const QString &path)
{
    m_data->setText(path);
}

int ModelView::samples() const
{
    return m_samples->value();
}

int ModelView::seq() const
{
    return m_seq->value();
}

QString ModelView::python() const
{
    return m_python->text().trimmed();
}

void ModelView::setPython(const QString &python)
{
    m_python->setText(python);
}

ModelView::RecipeSource ModelView::recipeSource() const
{
    return static_cast<RecipeSource>(m_recipe->currentIndex());
}

QString ModelView::recipeFile() const
{
    return m_recipeFile->text().trimmed();
}

int ModelView::pointCount() const
{
    return m_points->value();
}

void ModelView::setCapture(const QString &path, const QString &summary)
{
    m_capture->setText(path.isEmpty() ? tr("none paired (File ▸ Open Capture…): modules get no output-aware error")
                                      : tr("%1 (%2)").arg(path, summary));
}

void ModelView::setCheckResult(const QString &text, bool ok)
{
    m_checkResult->setText(text);
    m_checkResult->setStyleSheet(ok ? QString() : QStringLiteral("color: #c0392b;"));
}

void ModelView::setRunning(bool running, const QString &what)
{
    m_captureRun->setEnabled(!running);
    m_measureLayers->setEnabled(!running);
    m_measurePoints->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    m_progress->setValue(0);
    if (running) {
        showError(QString(), QString());
        m_status->setText(what);
    }
}

void ModelView::setProgress(double fraction, const QString &what)
{
    m_progress->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
    m_status->setText(what);
}

void ModelView::showError(const QString &kind, const QString &message)
{
    m_error->setVisible(!message.isEmpty());
    m_error->setText(kind.isEmpty() ? message : tr("%1: %2").arg(kind, message));
}

void ModelView::setStatus(const QString &text)
{
    m_status->setText(text);
}

void ModelView::setLayerMeasures(const LayerMeasures &measures)
{
    m_layerPlot->setData(measures);
    if (measures.modules.empty()) {
        m_layerSummary->setText(tr("Measure layers to see which error predicts the model's KL."));
        return;
    }
    QString text =
        tr("Spearman ρ against the measured KL: output-aware error %1 (%n module(s)), ", nullptr, measures.output.count)
            .arg(rhoText(measures.output)) +
        tr("weight error ‖W − Ŵ‖/‖W‖ %1 (%n module(s)).", nullptr, measures.weight.count).arg(rhoText(measures.weight));
    if (measures.output.count == 0)
        text += QLatin1Char(' ') + tr("No module has an output-aware error: pair a capture (File ▸ Open Capture…).");
    m_layerSummary->setText(text);
}

void ModelView::setBudgetPoints(const std::vector<BudgetPoint> &points, const QString &objective)
{
    m_pointsPlot->setData(points, objective);
    m_table->setRowCount(static_cast<int>(points.size()));
    for (int r = 0; r < static_cast<int>(points.size()); ++r) {
        const auto &p = points[static_cast<std::size_t>(r)];
        const QString kl = !p.measured ? tr("not measured")
                           : std::isfinite(p.klLow) && std::isfinite(p.klHigh)
                               ? tr("%1 (%2 … %3)").arg(numberText(p.kl), numberText(p.klLow), numberText(p.klHigh))
                               : numberText(p.kl);
        const QStringList cells{QString::number(static_cast<double>(p.bytes) / 1e6, 'f', 3), numberText(p.predicted, 5),
                                kl, p.measured ? numberText(p.top1) : QString(),
                                p.measured ? numberText(p.ppl, 5) : QString()};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
    }
    if (points.empty()) {
        m_pointsSummary->setText(tr("Scan in the Layers tab; the Budget tab's optima can then be measured here."));
        return;
    }
    const BudgetProxyRanking rank = rankBudgetProxies(points);
    QString text = tr("Spearman ρ against the measured KL over the points: weight error %1, output-aware error %2.")
                       .arg(rhoText(rank.weight), rhoText(rank.output));
    if (rank.better == "output")
        text += QLatin1Char(' ') + tr("The output-aware error ranks the points better.");
    else if (rank.better == "weight")
        text += QLatin1Char(' ') + tr("The weight error ranks the points better.");
    else if (rank.better == "tie")
        text += QLatin1Char(' ') + tr("Both rank the points alike.");
    else if (rank.output.count < 2)
        text += QLatin1Char(' ') + tr("The output-aware error needs a scan with a capture.");
    m_pointsSummary->setText(text);
}

} // namespace quantscope
