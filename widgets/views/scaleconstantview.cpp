// SPDX-License-Identifier: MIT
#include "scaleconstantview.h"

#include "jobprogresswidget.h"
#include "results/config_label.h"
#include "qtstring.h"
#include "scaleconstantplot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

namespace quantscope {

namespace {

std::int64_t specInt(const nlohmann::json &spec, const char *key, std::int64_t fallback)
{
    return spec.contains(key) && spec[key].is_number_integer() ? spec[key].get<std::int64_t>() : fallback;
}

} // namespace

ScaleConstantView::ScaleConstantView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_tensor = new QComboBox(this);
    m_tensor->setMinimumContentsLength(24);
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setToolTip(tr("The tensor whose MSE(c) is swept (one of the selected tensors)"));
    m_target = new QComboBox(this);
    m_target->setToolTip(tr("The constOpt configuration a click on the curve sets c in"));
    m_rotate = new QCheckBox(tr("Hadamard rotation, block"), this);
    m_rotate->setToolTip(tr("Show MSE(c) of the rotated tensor (both are computed)"));
    m_block = new QSpinBox(this);
    m_block->setRange(2, 4096);
    m_block->setValue(64);
    m_sweep = new QPushButton(tr("Sweep c"), this);
    bar->addWidget(m_tensor, 1);
    bar->addWidget(m_target, 1);
    bar->addWidget(m_rotate);
    bar->addWidget(m_block);
    bar->addWidget(m_sweep);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_plot = new ScaleConstantPlot(this);
    layout->addWidget(m_plot, 1);
    m_progress = new JobProgressWidget(this);
    layout->addWidget(m_progress);

    connect(m_sweep, &QPushButton::clicked, this, &ScaleConstantView::requestSweep);
    connect(m_tensor, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_tensor->currentText().isEmpty() && isVisible())
            requestSweep();
    });
    connect(m_rotate, &QCheckBox::toggled, this, &ScaleConstantView::redraw);
    connect(m_block, &QSpinBox::editingFinished, this, [this] {
        if (m_data && m_data->rotated && m_data->rotated->rotate != m_block->value())
            requestSweep();
    });
    connect(m_target, &QComboBox::currentIndexChanged, this, &ScaleConstantView::showCurrentC);
    connect(m_plot, &ScaleConstantPlot::cClicked, this, &ScaleConstantView::clicked);
    connect(m_progress, &JobProgressWidget::cancelRequested, this, &ScaleConstantView::cancelRequested);
    redraw();
}

void ScaleConstantView::setTensors(const QStringList &tensors)
{
    const QString current = m_tensor->currentText();
    const QSignalBlocker block(m_tensor);
    m_tensor->clear();
    m_tensor->addItems(tensors);
    if (tensors.contains(current))
        m_tensor->setCurrentText(current);
    // A new selection while the tab is shown: sweep what is shown now.
    if (isVisible() && m_tensor->currentText() != current && !m_tensor->currentText().isEmpty())
        requestSweep();
}

QString ScaleConstantView::currentTensor() const
{
    return m_tensor->currentText();
}

void ScaleConstantView::setCurrentTensor(const QString &tensor)
{
    const QSignalBlocker block(m_tensor);
    if (m_tensor->findText(tensor) < 0)
        m_tensor->addItem(tensor);
    m_tensor->setCurrentText(tensor);
}

void ScaleConstantView::setConfigurations(const std::vector<JobConfig> &configs)
{
    m_configs = configs;
    const int old = targetConfiguration();
    const QSignalBlocker block(m_target);
    m_target->clear();
    for (std::size_t i = 0; i < configs.size(); ++i)
        if (configs[i].spec.value("method", std::string()) == "constopt")
            m_target->addItem(fromStd(configLabel(configs[i].name, configs[i].spec)), static_cast<int>(i));
    if (m_target->count() == 0)
        m_target->addItem(tr("(a click adds a constOpt configuration)"), -1);
    const int keep = m_target->findData(old);
    m_target->setCurrentIndex(keep >= 0 ? keep : 0);
    showCurrentC();
}

int ScaleConstantView::targetConfiguration() const
{
    return m_target->count() ? m_target->currentData().toInt() : -1;
}

bool ScaleConstantView::rotation() const
{
    return m_rotate->isChecked();
}

void ScaleConstantView::setRotation(bool on)
{
    m_rotate->setChecked(on);
}

int ScaleConstantView::rotateBlock() const
{
    return m_block->value();
}

void ScaleConstantView::requestSweep()
{
    if (m_tensor->currentText().isEmpty()) {
        m_summary->setText(tr("Select a tensor in the Tensors dock."));
        return;
    }
    const int t = targetConfiguration();
    const std::int64_t group = t >= 0 && t < static_cast<int>(m_configs.size())
                                   ? specInt(m_configs[static_cast<std::size_t>(t)].spec, "group", 32)
                                   : 32;
    emit sweepRequested(m_tensor->currentText(), group, m_block->value());
}

void ScaleConstantView::jobStarted()
{
    m_progress->start(tr("Sweeping c on %1").arg(m_tensor->currentText()));
}

void ScaleConstantView::setProgress(double fraction)
{
    m_progress->setProgress(fraction, QString(), -1);
}

void ScaleConstantView::setData(std::shared_ptr<const ScaleConstantData> data)
{
    m_data = std::move(data);
    m_progress->finish(QString(), m_data != nullptr);
    redraw();
}

void ScaleConstantView::setError(const QString &error)
{
    m_progress->finish(error);
    m_summary->setText(error);
}

void ScaleConstantView::redraw()
{
    if (!m_data) {
        m_plot->clearData();
        m_summary->setText(tr("Select a tensor and press Sweep c: constOpt's MSE for every c."));
        return;
    }
    const bool rotated = m_rotate->isChecked() && m_data->rotated;
    const ScaleConstantSet &s = rotated ? *m_data->rotated : m_data->plain;
    m_plot->setData(s, m_data->defaultC);
    QString text = tr("%1, groups of %2%3: c* pow2 %4 (flat %5–%6), unrounded %7; "
                      "MSE at c* %8 / %9, at %10 %11 / %12; INT4 %13, MXFP4 %14, Lloyd–Max %15")
                       .arg(fromStd(m_data->tensor))
                       .arg(m_data->group)
                       .arg(rotated ? tr(", rotated (block %1)").arg(s.rotate) : QString())
                       .arg(s.pow2.cStar, 0, 'g', 6)
                       .arg(s.pow2.intervalLo, 0, 'g', 6)
                       .arg(s.pow2.intervalHi, 0, 'g', 6)
                       .arg(s.unrounded.cStar, 0, 'g', 6)
                       .arg(s.pow2.cStarMse, 0, 'g', 4)
                       .arg(s.unrounded.cStarMse, 0, 'g', 4)
                       .arg(m_data->defaultC, 0, 'g', 6)
                       .arg(s.pow2.mseAtDefault, 0, 'g', 4)
                       .arg(s.unrounded.mseAtDefault, 0, 'g', 4)
                       .arg(s.int4Mse, 0, 'g', 4)
                       .arg(s.mxfp4Mse, 0, 'g', 4)
                       .arg(s.lloydMaxMse, 0, 'g', 4);
    if (m_rotate->isChecked() && !m_data->rotated)
        text += QLatin1Char('\n') + tr("No rotated sweep: %1").arg(fromStd(m_data->rotatedError));
    m_summary->setText(text);
    showCurrentC();
}

void ScaleConstantView::showCurrentC()
{
    const int t = targetConfiguration();
    if (t < 0 || t >= static_cast<int>(m_configs.size())) {
        m_plot->setCurrentC(qQNaN(), {});
        return;
    }
    const auto &cfg = m_configs[static_cast<std::size_t>(t)];
    const double c = cfg.spec.contains("c") && cfg.spec["c"].is_number() ? cfg.spec["c"].get<double>() : 0.156;
    m_plot->setCurrentC(c, QLatin1Char(' ') + fromStd(configLabel(cfg.name, cfg.spec)));
}

void ScaleConstantView::clicked(double c)
{
    if (!m_data)
        return;
    emit cPicked(targetConfiguration(), snapToGrid(c, m_data->lo, m_data->hi, m_data->step));
}

void ScaleConstantView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_data && !m_tensor->currentText().isEmpty() && !m_progress->isRunning())
        requestSweep();
}

} // namespace quantscope
