// SPDX-License-Identifier: MIT
#pragma once
/// \file layersview.h
/// The Layers tab: a whole-checkpoint scan (run in the background by app/'s ScanController) as a
/// heat map of layer × projection coloured by a chosen metric of a chosen spec, MoE experts
/// aggregated or expanded for one projection; a click opens that tensor in the other views.
#include "results/layer_grid.h"

#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace quantscope {

class JobProgressWidget;
class LayerHeatMap;

class LayersView : public QWidget {
    Q_OBJECT
public:
    explicit LayersView(QWidget *parent = nullptr);

    /// The report's module lines (the header left out); redraws.
    void setLines(std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines);
    std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines() const { return m_lines; }
    void setMetric(LayerMetric metric);
    LayerMetric metric() const;
    void setSpec(int index);
    /// "" aggregated, else "gate", "up" or "down" expanded.
    void setExpand(const QString &projection);
    /// Whether the next scan also counts the residual's singular values (residual rank at τ).
    bool spectra() const;
    void setSpectra(bool on);

    /// The opened checkpoint's name ("" none): the empty view says what to do next with it.
    void setCheckpointName(const QString &name);

    void jobStarted();
    void setProgress(double fraction, const QString &step, double secondsLeft);
    void jobFinished(const QString &message);

    LayerHeatMap *heatMap() const { return m_map; }
    QLabel *summary() const { return m_summary; }
    QPushButton *scanButton() const { return m_scan; }

signals:
    void scanRequested();
    void cancelRequested();
    void tensorClicked(const QString &tensor);
    /// setLines() was called (a finished scan, a session's report, or none).
    void linesChanged();

private:
    void redraw();
    QString emptyText() const;

    std::shared_ptr<const std::vector<nlohmann::ordered_json>> m_lines;
    QComboBox *m_metric = nullptr;
    QComboBox *m_spec = nullptr;
    QComboBox *m_expand = nullptr;
    QCheckBox *m_spectra = nullptr;
    QPushButton *m_scan = nullptr;
    QLabel *m_summary = nullptr;
    LayerHeatMap *m_map = nullptr;
    JobProgressWidget *m_progress = nullptr;
    QString m_checkpoint;
    bool m_scanning = false;
};

} // namespace quantscope
