// SPDX-License-Identifier: MIT
#pragma once
/// \file spectrumview.h
/// The Spectrum tab: the singular values of each configuration's residual E = W − Ŵ (log axis,
/// the τ·σ₁ line with τ editable and both counts), the energy the top r capture, the error and
/// the size against rank r, a rank slider that reads error, bits per element and MB off the
/// prepared curves (results/spectrum_plot.h, no recomputation), "Run MiLo at this rank", and MiLo's
/// ε per pass when the configuration shown is MiLo.
///
/// The spectra come from the quantization job itself: with "Compute spectra" on, the window's
/// job request carries spectrumOptions() (top 64 by default, all values on request) and every
/// tensor × configuration gets its residual spectrum in the same background job, with the job's
/// progress and Cancel.
#include "results/results.h"
#include "results/spectrum_plot.h"

#include <QSet>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace quantscope {

class QuantizerPanel;
class RankCurvePlot;
class SigmaPlot;

class SpectrumView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDefaultTop = 64;
    /// Where the rank slider starts: MiLo's default rank.
    static constexpr int kStartRank = 16;

    explicit SpectrumView(QWidget *parent = nullptr);

    /// Shows `results` (null clears). Keeps the tensor and configuration shown when still there.
    void setResults(std::shared_ptr<const QuantizeJobResult> results);
    /// Configurations edited since they ran: "(stale)" and dashed until run again.
    void setStaleConfigs(const QSet<QString> &configs);
    void setCurrentTensor(const QString &tensor);
    QString currentTensor() const;
    /// The configuration the rank slider, its labels and the MiLo action refer to.
    void setCurrentConfig(const QString &config);
    QString currentConfig() const;

    /// What the next job should compute: nullopt while "Compute spectra" is off.
    std::optional<SpectrumOptions> spectrumOptions() const;
    void setSpectrumEnabled(bool on);
    bool spectrumEnabled() const;
    void setFullSpectrum(bool on);
    void setTau(double tau);
    double tau() const;
    void setRank(int rank);
    int rank() const;

    /// The prepared data of the configuration shown (null without a spectrum).
    const SpectrumPlotData *currentData() const;
    /// The τ counts shown, per configuration name.
    const std::map<QString, TauCounts> &shownCounts() const { return m_counts; }

    SigmaPlot *sigmaPlot() const { return m_sigma; }
    RankCurvePlot *energyPlot() const { return m_energy; }
    RankCurvePlot *errorPlot() const { return m_error; }
    RankCurvePlot *sizePlot() const { return m_size; }
    RankCurvePlot *passPlot() const { return m_passes; }
    QSlider *rankSlider() const { return m_rank; }
    QLabel *countsLabel() const { return m_countsLabel; }
    QLabel *errorLabel() const { return m_errorLabel; }
    QLabel *sizeLabel() const { return m_sizeLabel; }
    QPushButton *runMiloButton() const { return m_runMilo; }

    /// The number format of the labels ("0.01234").
    static QString numberText(double v);
    /// Adds `config` as MiLo at `rank` (INT/HQQ bits and group kept) as a new configuration of
    /// `panel`, leaving the others and their results as they are; true when it was added or is
    /// there already. False with the reason in `why` when the panel is full.
    static bool addMiloAtRank(QuantizerPanel *panel, const QString &config, int rank, QString *why = nullptr);

signals:
    /// Run the job (again) with spectra.
    void runRequested();
    /// "Run MiLo at this rank" for configuration `config`.
    void runAtRankRequested(const QString &config, int rank);

private:
    void refresh();
    void refreshCounts();
    void refreshRank();
    const QuantizeOutcome *outcomeOf(const QString &config) const;

    std::shared_ptr<const QuantizeJobResult> m_results;
    QSet<QString> m_stale;
    /// Prepared per configuration of the tensor shown.
    std::map<QString, SpectrumPlotData> m_data;
    std::map<QString, TauCounts> m_counts;
    QComboBox *m_tensor = nullptr;
    QComboBox *m_config = nullptr;
    QCheckBox *m_enabled = nullptr;
    QCheckBox *m_full = nullptr;
    QSpinBox *m_top = nullptr;
    QDoubleSpinBox *m_tau = nullptr;
    QPushButton *m_compute = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_countsLabel = nullptr;
    SigmaPlot *m_sigma = nullptr;
    RankCurvePlot *m_energy = nullptr;
    RankCurvePlot *m_error = nullptr;
    RankCurvePlot *m_size = nullptr;
    RankCurvePlot *m_passes = nullptr;
    QSlider *m_rank = nullptr;
    QLabel *m_rankLabel = nullptr;
    QLabel *m_errorLabel = nullptr;
    QLabel *m_sizeLabel = nullptr;
    QPushButton *m_runMilo = nullptr;
    bool m_updating = false;
};

} // namespace quantscope
