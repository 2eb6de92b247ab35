// SPDX-License-Identifier: MIT
#include "spectrumview.h"

#include "distributionview.h"
#include "results/config_label.h"
#include "qtstring.h"
#include "quantizerpanel.h"
#include "rankcurveplot.h"
#include "sigmaplot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

namespace quantscope {

namespace {

QString labelOf(const QuantizeOutcome &o)
{
    return fromStd(configLabel(o.config, o.spec));
}

Series seriesOf(const std::vector<double> &x, const std::vector<double> &y)
{
    return {x, y};
}

} // namespace

QString SpectrumView::numberText(double v)
{
    return QLocale().toString(v, 'g', 4);
}

SpectrumView::SpectrumView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    m_tensor = new QComboBox(this);
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setMinimumContentsLength(22);
    m_config = new QComboBox(this);
    m_config->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_config->setMinimumContentsLength(16);
    m_config->setToolTip(tr("The configuration the rank slider reads"));
    m_enabled = new QCheckBox(tr("Compute &spectra"), this);
    m_enabled->setToolTip(tr("Each run also takes the singular values of W − Ŵ (in the same "
                             "background job)"));
    m_full = new QCheckBox(tr("&All values"), this);
    m_full->setToolTip(tr("All min(N, K) singular values (up to 4096) instead of the top k"));
    m_top = new QSpinBox(this);
    m_top->setRange(1, 4096);
    m_top->setValue(kDefaultTop);
    m_top->setPrefix(tr("top "));
    m_tau = new QDoubleSpinBox(this);
    m_tau->setRange(0.001, 1.0);
    m_tau->setDecimals(3);
    m_tau->setSingleStep(0.05);
    m_tau->setValue(0.5);
    m_tau->setPrefix(QStringLiteral("τ = "));
    m_tau->setToolTip(tr("Threshold of the counts: σᵢ ≥ τ·σ₁ and σᵢ < τ·σ₁"));
    m_compute = new QPushButton(tr("&Compute"), this);
    m_compute->setObjectName(QStringLiteral("computeButton"));
    m_compute->setToolTip(tr("Run the configurations again with their spectra"));
    // Two rows: what is shown, then how it is computed (one row was 900 px wide).
    bar->addWidget(m_tensor, 1);
    bar->addWidget(m_config, 1);
    layout->addLayout(bar);
    bar = new QHBoxLayout;
    bar->addWidget(m_tau);
    bar->addWidget(m_enabled);
    bar->addWidget(m_top);
    bar->addWidget(m_full);
    bar->addStretch(1);
    bar->addWidget(m_compute);
    layout->addLayout(bar);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_countsLabel = new QLabel(this);
    m_countsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_countsLabel->setWordWrap(true);
    layout->addWidget(m_countsLabel);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_sigma = new SigmaPlot(split);
    auto *curves = new QSplitter(Qt::Horizontal, split);
    m_energy = new RankCurvePlot(tr("rank r"), tr("energy captured by the top r"), QStringLiteral("energy-vs-rank"),
                                 true, curves);
    m_error = new RankCurvePlot(tr("rank r"), tr("relative error after rank r"), QStringLiteral("error-vs-rank"), false,
                                curves);
    m_size =
        new RankCurvePlot(tr("rank r"), tr("MB with FP16 U·V of rank r"), QStringLiteral("mb-vs-rank"), true, curves);
    m_passes = new RankCurvePlot(tr("MiLo pass"), tr("ε = ‖W − Ŵ − U·V‖ (Frobenius)"), QStringLiteral("milo-passes"),
                                 false, curves);
    // The σ plot's legend names the colours of all four.
    for (auto *p : {m_energy, m_error, m_size, m_passes})
        p->setLegendWanted(false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    auto *rankBar = new QHBoxLayout;
    m_rank = new QSlider(Qt::Horizontal, this);
    m_rank->setRange(0, 0);
    m_rank->setToolTip(tr("Rank r of an FP16 compensator U·V fitted to the residual"));
    m_rankLabel = new QLabel(this);
    m_errorLabel = new QLabel(this);
    m_errorLabel->setWordWrap(true); // a long value line wraps rather than widen the window
    m_sizeLabel = new QLabel(this);
    m_sizeLabel->setWordWrap(true);
    m_runMilo = new QPushButton(tr("Run &MiLo at This Rank"), this);
    m_runMilo->setToolTip(tr("Add this configuration as MiLo with rank r (FP16 compensator), a configuration of "
                             "its own, and run only that: the finished results stay"));
    m_rank->setMinimumWidth(160);
    m_rankLabel->setMinimumWidth(m_rankLabel->fontMetrics().horizontalAdvance(QStringLiteral("r = 0000")));
    rankBar->addWidget(m_rankLabel);
    rankBar->addWidget(m_rank, 1);
    rankBar->addWidget(m_runMilo);
    layout->addLayout(rankBar);
    auto *valueBar = new QHBoxLayout;
    valueBar->addWidget(m_errorLabel, 3);
    valueBar->addWidget(m_sizeLabel, 2);
    layout->addLayout(valueBar);

    connect(m_tensor, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating)
            refresh();
    });
    connect(m_config, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating)
            refresh();
    });
    connect(m_tau, &QDoubleSpinBox::valueChanged, this, [this](double t) {
        m_sigma->setTau(t);
        refreshCounts();
    });
    connect(m_full, &QCheckBox::toggled, m_top, &QWidget::setDisabled);
    connect(m_rank, &QSlider::valueChanged, this, [this] { refreshRank(); });
    connect(m_compute, &QPushButton::clicked, this, [this] {
        m_enabled->setChecked(true);
        emit runRequested();
    });
    connect(m_runMilo, &QPushButton::clicked, this, [this] {
        if (!currentConfig().isEmpty())
            emit runAtRankRequested(currentConfig(), rank());
    });
    refresh();
}

std::optional<SpectrumOptions> SpectrumView::spectrumOptions() const
{
    if (!m_enabled->isChecked())
        return std::nullopt;
    SpectrumOptions o;
    o.top = m_full->isChecked() ? 0 : m_top->value();
    o.tau = m_tau->value();
    return o;
}

void SpectrumView::setSpectrumEnabled(bool on)
{
    m_enabled->setChecked(on);
}

bool SpectrumView::spectrumEnabled() const
{
    return m_enabled->isChecked();
}

void SpectrumView::setFullSpectrum(bool on)
{
    m_full->setChecked(on);
}

void SpectrumView::setTau(double tau)
{
    m_tau->setValue(tau);
}

double SpectrumView::tau() const
{
    return m_tau->value();
}

void SpectrumView::setRank(int rank)
{
    m_rank->setValue(rank);
}

int SpectrumView::rank() const
{
    return m_rank->value();
}

void SpectrumView::setResults(std::shared_ptr<const QuantizeJobResult> results)
{
    const auto keepTensor = currentTensor();
    const auto keepConfig = currentConfig();
    m_results = std::move(results);
    m_updating = true;
    m_tensor->clear();
    if (m_results)
        for (const auto &p : m_results->tensors)
            m_tensor->addItem(fromStd(p.tensor), fromStd(p.tensor));
    const int t = m_tensor->findData(keepTensor);
    m_tensor->setCurrentIndex(t >= 0 ? t : 0);
    m_updating = false;
    refresh();
    setCurrentConfig(keepConfig);
}

void SpectrumView::setCurrentTensor(const QString &tensor)
{
    const int i = m_tensor->findData(tensor);
    if (i >= 0)
        m_tensor->setCurrentIndex(i);
}

QString SpectrumView::currentTensor() const
{
    return m_tensor->currentData().toString();
}

void SpectrumView::setCurrentConfig(const QString &config)
{
    const int i = m_config->findData(config);
    if (i >= 0)
        m_config->setCurrentIndex(i);
}

QString SpectrumView::currentConfig() const
{
    return m_config->currentData().toString();
}

const SpectrumPlotData *SpectrumView::currentData() const
{
    const auto it = m_data.find(currentConfig());
    return it == m_data.end() ? nullptr : &it->second;
}

const QuantizeOutcome *SpectrumView::outcomeOf(const QString &config) const
{
    return m_results ? m_results->outcome(currentTensor().toStdString(), config.toStdString()) : nullptr;
}

void SpectrumView::setStaleConfigs(const QSet<QString> &configs)
{
    if (configs == m_stale)
        return;
    m_stale = configs;
    refresh();
}

void SpectrumView::refresh()
{
    const auto tensor = currentTensor().toStdString();
    const TensorProfile *profile = m_results ? m_results->profile(tensor) : nullptr;
    const auto keepConfig = currentConfig();
    m_data.clear();
    std::vector<SigmaSeries> sigma;
    std::vector<NamedSeries> energy, error, size, passes;
    m_updating = true;
    m_config->clear();
    int withoutSpectrum = 0;
    if (profile) {
        const auto [rows, cols] = matrixView(profile->shape);
        for (const auto &o : m_results->outcomes) {
            if (o.tensor != tensor || !o.ok())
                continue;
            const auto name = fromStd(o.config);
            const bool stale = m_stale.contains(name);
            const auto label = stale ? PlotWidget::staleName(labelOf(o)) : labelOf(o);
            const int color = DistributionView::colorIndexOf(name);
            if (!o.history.empty() && o.method == "milo") {
                Series s;
                for (const auto &h : o.history) {
                    s.x.push_back(h.pass);
                    s.y.push_back(h.eps);
                }
                passes.push_back({label, color, s, stale});
            }
            if (!o.spectrum) {
                ++withoutSpectrum;
                continue;
            }
            const auto &d = m_data[name] =
                prepareSpectrumPlot(*o.spectrum, rows, cols, o.bitsPerElement, o.storedBytes, o.metrics.relFrobenius);
            m_config->addItem(label, name);
            sigma.push_back({label, color, seriesOf(d.index, d.sigma)});
            energy.push_back({label, color, seriesOf(d.rank, d.energy), stale});
            error.push_back({label, color, seriesOf(d.rank, d.relErrAfterRank), stale});
            size.push_back({label, color, seriesOf(d.rank, d.megabytes), stale});
        }
    }
    const int c = m_config->findData(keepConfig);
    m_config->setCurrentIndex(c >= 0 ? c : 0);
    m_updating = false;

    m_sigma->setData(std::move(sigma), tau());
    m_energy->setData(std::move(energy));
    m_error->setData(std::move(error));
    m_size->setData(std::move(size));
    m_passes->setVisible(!passes.empty());
    m_passes->setData(std::move(passes));

    if (!profile)
        m_summary->setText(tr("Select tensors and press Run with “Compute spectra” on to see "
                              "the singular values of each configuration's error W − Ŵ."));
    else if (m_data.empty())
        m_summary->setText(tr("These results have no spectra: press Compute."));
    else
        m_summary->setText(withoutSpectrum > 0
                               ? tr("%n configuration(s) without a spectrum: press Compute.", nullptr, withoutSpectrum)
                               : QString());
    m_summary->setVisible(!m_summary->text().isEmpty());
    m_runMilo->setEnabled(!m_data.empty());
    refreshCounts();
    refreshRank();
}

void SpectrumView::refreshCounts()
{
    m_counts.clear();
    QStringList parts;
    const auto tensor = currentTensor().toStdString();
    if (m_results)
        for (const auto &o : m_results->outcomes) {
            if (o.tensor != tensor || !o.ok() || !o.spectrum)
                continue;
            const auto c = tauCounts(*o.spectrum, tau());
            m_counts[fromStd(o.config)] = c;
            parts << tr("%1: %2%3 σ ≥ τ·σ₁, %4%5 below (of %6)")
                         .arg(labelOf(o), c.geExact ? QString() : QStringLiteral("≥ "))
                         .arg(c.geTau)
                         .arg(c.derived ? QStringLiteral("≤ ") : QString())
                         .arg(c.ltTau)
                         .arg(o.spectrum->minDim);
        }
    m_countsLabel->setText(parts.join(QLatin1Char('\n')));
}

void SpectrumView::refreshRank()
{
    const SpectrumPlotData *d = currentData();
    const int maxRank = d ? d->maxRank() : 0;
    if (m_rank->maximum() != maxRank) {
        const QSignalBlocker block(m_rank);
        const bool first = m_rank->maximum() == 0;
        m_rank->setRange(0, maxRank);
        // First data: start at MiLo's default rank.
        if (first)
            m_rank->setValue(std::min(kStartRank, maxRank));
    }
    const int r = m_rank->value();
    m_rankLabel->setText(tr("r = %1").arg(r));
    for (auto *p : {m_energy, m_error, m_size})
        p->setMarker(d ? r : -1);
    if (!d) {
        m_errorLabel->clear();
        m_sizeLabel->clear();
        return;
    }
    const auto i = static_cast<std::size_t>(r);
    m_errorLabel->setText(tr("error ‖E − Eᵣ‖ %1 (relative %2), %3 of ‖E‖² captured (Frobenius norms)")
                              .arg(numberText(d->errAfterRank[i]), numberText(d->relErrAfterRank[i]),
                                   QLocale().toString(100.0 * d->energy[i], 'f', 1) + QLatin1Char('%')));
    m_sizeLabel->setText(
        tr("%1 bits/element, %2 MB").arg(numberText(d->bitsPerElement[i]), numberText(d->megabytes[i])));
    const auto *o = outcomeOf(currentConfig());
    m_passes->setMarker(o && o->method == "milo" ? o->chosenPass : -1);
}

bool SpectrumView::addMiloAtRank(QuantizerPanel *panel, const QString &config, int rank, QString *why)
{
    auto configs = panel->configurations();
    const auto from = std::find_if(configs.begin(), configs.end(),
                                   [&config](const JobConfig &c) { return fromStd(c.name) == config; });
    if (from == configs.end()) {
        if (why)
            *why = tr("Configuration %1 is no longer in the quantizer panel.").arg(config);
        return false;
    }
    const nlohmann::json spec = miloSpecAtRank(from->spec, rank);
    // Already there (run again at the same rank): nothing to add, the run fills what is missing.
    for (const auto &c : configs)
        if (c.spec == spec)
            return true;
    if (static_cast<int>(configs.size()) >= QuantizerPanel::kMaxConfigurations) {
        if (why)
            *why = tr("The quantizer panel holds %1 configurations already: remove one to add MiLo at rank %2.")
                       .arg(QuantizerPanel::kMaxConfigurations)
                       .arg(rank);
        return false;
    }
    // The next free letter: the finished configurations keep their names, colours and results.
    std::string name;
    for (char c = 'A'; name.empty() && c < 'A' + QuantizerPanel::kMaxConfigurations; ++c)
        if (std::none_of(configs.begin(), configs.end(),
                         [c](const JobConfig &x) { return x.name == std::string(1, c); }))
            name = std::string(1, c);
    configs.push_back({name, spec});
    return panel->setConfigurations(configs).isEmpty();
}

} // namespace quantscope
