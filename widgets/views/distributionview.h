// SPDX-License-Identifier: MIT
#pragma once
/// \file distributionview.h
/// The Distribution tab: for one tensor of the results, W against every configuration's Ŵ
/// (shared axis, overlap shaded), the error histograms, and the per-channel absmax strip with
/// the top outlier channels listed. Draws the series the job prepared; computes nothing.
#include "results/results.h"
#include "results/weight_preview.h"

#include <QHash>
#include <QSet>
#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace quantscope {

class ChannelPlot;
class ErrorHistogramPlot;
class HistogramPlot;

class DistributionView : public QWidget {
    Q_OBJECT
public:
    explicit DistributionView(QWidget *parent = nullptr);

    /// Shows `results` (null clears). Keeps the tensor shown when it is still there.
    void setResults(std::shared_ptr<const QuantizeJobResult> results);
    void setCurrentTensor(const QString &tensor);
    QString currentTensor() const;
    void setLogY(bool on);
    bool logY() const;
    /// 1 input channels, 0 output channels.
    void setChannelAxis(int axis);
    int channelAxis() const;
    /// The configuration whose overlap with W is shaded ("" the first).
    void setOverlapConfig(const QString &config);
    QString overlapConfig() const;
    /// The configurations edited since the results ran: drawn stale until run again.
    void setStaleConfigs(const QSet<QString> &configs);
    /// The selected tensor's W histogram and statistics, shown while there are no results (a
    /// newcomer sees the tensor at once, before any run). Null clears.
    void setPreview(std::shared_ptr<const WeightPreview> preview);
    const WeightPreview *preview() const { return m_preview.get(); }
    /// The stored scheme in words of each tensor of a GGUF file ("Stored as Q4_K: super-blocks
    /// of 256, …", schemewords::storedSchemes), shown under the selected tensor's name.
    void setStoredSchemes(QHash<QString, QString> schemes);
    /// The summary's text (the tensor, its stored scheme, each configuration's numbers).
    QString summaryText() const;

    HistogramPlot *histogramPlot() const { return m_histogram; }
    ErrorHistogramPlot *errorPlot() const { return m_error; }
    ChannelPlot *channelPlot() const { return m_channels; }
    QTableWidget *outlierTable() const { return m_outliers; }

    /// Colour index of a configuration name: "A" → 0, "B" → 1, … (stable when one is removed).
    static int colorIndexOf(const QString &config);

signals:
    void stateChanged();

private:
    void refresh();
    void fillOutliers(const TensorProfile *profile);
    void showPreview(const WeightPreview &preview);

    std::shared_ptr<const QuantizeJobResult> m_results;
    QSet<QString> m_stale;
    std::shared_ptr<const WeightPreview> m_preview;
    QHash<QString, QString> m_schemes;
    QComboBox *m_tensor = nullptr;
    QComboBox *m_overlapOf = nullptr;
    QComboBox *m_axis = nullptr;
    QCheckBox *m_logY = nullptr;
    QLabel *m_summary = nullptr;
    HistogramPlot *m_histogram = nullptr;
    ErrorHistogramPlot *m_error = nullptr;
    ChannelPlot *m_channels = nullptr;
    QTableWidget *m_outliers = nullptr;
    bool m_updating = false;
};

} // namespace quantscope
