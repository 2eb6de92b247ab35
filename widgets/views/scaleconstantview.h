// SPDX-License-Identifier: MIT
#pragma once
/// \file scaleconstantview.h
/// The Scale-constant tab (FP4 constOpt): MSE(c) of one tensor for both encoders against the
/// INT4, MXFP4 and Lloyd–Max references, without or with the Hadamard rotation; clicking the
/// curve sets c in the chosen constOpt configuration. The sweep runs as a job in app/ (this
/// view asks for it and shows its progress); the view only draws the ScaleConstantData it gets.
#include "results/results.h"
#include "results/scale_constant_data.h"

#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace quantscope {

class JobProgressWidget;
class ScaleConstantPlot;

class ScaleConstantView : public QWidget {
    Q_OBJECT
public:
    explicit ScaleConstantView(QWidget *parent = nullptr);

    /// The tensors to choose from (the browser's selection); keeps the current one if present.
    void setTensors(const QStringList &tensors);
    QString currentTensor() const;
    void setCurrentTensor(const QString &tensor);
    /// The panel's configurations; the constOpt ones can receive a clicked c.
    void setConfigurations(const std::vector<JobConfig> &configs);
    /// Index in the panel's list of the configuration a click sets (-1: none yet).
    int targetConfiguration() const;
    /// Draw the rotated sweep (computed with block d = rotateBlock()).
    bool rotation() const;
    void setRotation(bool on);
    int rotateBlock() const;

    /// The job side: started, progress in [0, 1], result or failure.
    void jobStarted();
    void setProgress(double fraction);
    void setData(std::shared_ptr<const ScaleConstantData> data);
    void setError(const QString &error);
    std::shared_ptr<const ScaleConstantData> data() const { return m_data; }

    ScaleConstantPlot *plot() const { return m_plot; }
    JobProgressWidget *progress() const { return m_progress; }
    QLabel *summary() const { return m_summary; }

signals:
    /// Sweep `tensor` with groups of `group`, and also rotated in blocks of `rotate` (0: not).
    void sweepRequested(const QString &tensor, qint64 group, qint64 rotate);
    void cancelRequested();
    /// A c clicked on the curve, snapped to the sweep's grid, for configuration `index` of the
    /// panel (-1: there is no constOpt configuration yet).
    void cPicked(int index, double c);

protected:
    /// The first look at the tab computes what it shows (the job runs in the background).
    void showEvent(QShowEvent *event) override;

private:
    void requestSweep();
    void redraw();
    void clicked(double c);
    void showCurrentC();

    std::shared_ptr<const ScaleConstantData> m_data;
    std::vector<JobConfig> m_configs;
    QComboBox *m_tensor = nullptr;
    QComboBox *m_target = nullptr;
    QCheckBox *m_rotate = nullptr;
    QSpinBox *m_block = nullptr;
    QPushButton *m_sweep = nullptr;
    QLabel *m_summary = nullptr;
    ScaleConstantPlot *m_plot = nullptr;
    JobProgressWidget *m_progress = nullptr;
};

} // namespace quantscope
