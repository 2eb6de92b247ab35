// SPDX-License-Identifier: MIT
#include "layersview.h"

#include "jobprogresswidget.h"
#include "layerheatmap.h"
#include "qtstring.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace quantscope {

LayersView::LayersView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_metric = new QComboBox(this);
    m_metric->addItem(tr("Relative error"), static_cast<int>(LayerMetric::RelError));
    m_metric->addItem(tr("SQNR (dB)"), static_cast<int>(LayerMetric::SqnrDb));
    m_metric->addItem(tr("Kurtosis"), static_cast<int>(LayerMetric::Kurtosis));
    m_metric->addItem(tr("Residual rank at τ"), static_cast<int>(LayerMetric::ResidualRank));
    m_metric->addItem(tr("Bits per weight"), static_cast<int>(LayerMetric::BitsPerWeight));
    m_metric->setToolTip(tr("The metric the cells are coloured by"));
    m_spec = new QComboBox(this);
    m_spec->setToolTip(tr("The scanned spec whose numbers are shown"));
    m_expand = new QComboBox(this);
    m_expand->addItem(tr("Experts aggregated"), QString());
    for (const char *p : {"gate", "up", "down"})
        m_expand->addItem(tr("Experts of %1").arg(QLatin1String(p)), QLatin1String(p));
    m_spectra = new QCheckBox(tr("Residual spectra"), this);
    m_spectra->setToolTip(tr("Also count the residual’s singular values above τ (slower)"));
    m_scan = new QPushButton(tr("Scan checkpoint"), this);
    m_scan->setToolTip(tr("Quantize every 2-D weight with the panel’s configurations (resumes an interrupted scan)"));
    bar->addWidget(m_metric);
    bar->addWidget(m_spec, 1);
    bar->addWidget(m_expand);
    bar->addWidget(m_spectra);
    bar->addWidget(m_scan);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_map = new LayerHeatMap(this);
    layout->addWidget(m_map, 1);
    m_progress = new JobProgressWidget(this);
    layout->addWidget(m_progress);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &LayersView::redraw);
    connect(m_spec, &QComboBox::currentIndexChanged, this, &LayersView::redraw);
    connect(m_expand, &QComboBox::currentIndexChanged, this, &LayersView::redraw);
    connect(m_scan, &QPushButton::clicked, this, &LayersView::scanRequested);
    connect(m_progress, &JobProgressWidget::cancelRequested, this, &LayersView::cancelRequested);
    connect(m_map, &LayerHeatMap::tensorClicked, this, &LayersView::tensorClicked);
    redraw();
}

void LayersView::setLines(std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines)
{
    m_lines = std::move(lines);
    redraw();
    emit linesChanged();
}

void LayersView::setMetric(LayerMetric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric)));
}

LayerMetric LayersView::metric() const
{
    return static_cast<LayerMetric>(m_metric->currentData().toInt());
}

void LayersView::setSpec(int index)
{
    m_spec->setCurrentIndex(index);
}

void LayersView::setExpand(const QString &projection)
{
    m_expand->setCurrentIndex(std::max(0, m_expand->findData(projection)));
}

bool LayersView::spectra() const
{
    return m_spectra->isChecked();
}

void LayersView::setSpectra(bool on)
{
    m_spectra->setChecked(on);
}

void LayersView::setCheckpointName(const QString &name)
{
    m_checkpoint = name;
    if (!m_lines)
        redraw();
}

QString LayersView::emptyText() const
{
    if (m_scanning)
        return tr("Scanning %1: the map fills in when the scan finishes (Cancel keeps what is done).")
            .arg(m_checkpoint);
    if (m_checkpoint.isEmpty())
        return tr("No checkpoint open: open one (File ▸ Open…, or Help ▸ Open Demo), then press Scan checkpoint.");
    return tr("%1 is open and not scanned yet: press Scan checkpoint to measure every module with the "
              "Quantizer dock's configurations.")
        .arg(m_checkpoint);
}

void LayersView::jobStarted()
{
    m_scanning = true;
    if (!m_lines)
        redraw();
    m_scan->setEnabled(false);
    m_progress->start(tr("Scanning"));
}

void LayersView::setProgress(double fraction, const QString &step, double secondsLeft)
{
    m_progress->setProgress(fraction, step, secondsLeft);
}

void LayersView::jobFinished(const QString &message)
{
    m_scanning = false;
    if (!m_lines)
        redraw();
    m_scan->setEnabled(true);
    m_progress->finish(message, true);
}

void LayersView::redraw()
{
    if (!m_lines) {
        m_summary->setText(emptyText());
        m_map->setGrid(nullptr);
        return;
    }
    const int spec = std::max(0, m_spec->currentIndex());
    auto grid = std::make_shared<LayerGrid>(
        prepareLayerGrid(*m_lines, metric(), spec, m_expand->currentData().toString().toStdString()));
    // The spec list follows the report (without redrawing through the signal).
    if (m_spec->count() != static_cast<int>(grid->specs.size())) {
        const QSignalBlocker block(m_spec);
        m_spec->clear();
        for (const auto &s : grid->specs)
            m_spec->addItem(fromStd(s));
        m_spec->setCurrentIndex(std::min(spec, m_spec->count() - 1));
    }
    m_expand->setEnabled(grid->hasExperts);
    m_summary->setText(tr("%n module(s) scanned", nullptr, static_cast<int>(m_lines->size())));
    m_map->setGrid(std::move(grid), m_metric->currentText());
}

} // namespace quantscope
