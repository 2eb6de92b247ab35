// SPDX-License-Identifier: MIT
#pragma once
/// \file kurtosisview.h
/// The Kurtosis tab: per-channel excess kurtosis of one tensor (input or output channels, the
/// most kurtotic labelled) and, across the selected tensors, each configuration's relative error
/// against the tensor's kurtosis — before or after the Hadamard rotation. The numbers come from
/// a job in app/ (computeKurtosisData); the view only draws them.
#include "results/kurtosis_data.h"

#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace quantscope {

class JobProgressWidget;
class KurtosisChannelPlot;
class KurtosisScatterPlot;

class KurtosisView : public QWidget {
    Q_OBJECT
public:
    explicit KurtosisView(QWidget *parent = nullptr);

    /// The tensors the job profiles (the browser's selection).
    void setTensors(const QStringList &tensors);
    QStringList tensors() const { return m_tensors; }
    /// The tensor whose channels are drawn.
    QString currentTensor() const;
    void setCurrentTensor(const QString &tensor);
    /// 1 input channels, 0 output channels.
    void setChannelAxis(int axis);
    int channelAxis() const;
    bool rotation() const;
    void setRotation(bool on);
    int rotateBlock() const;

    void jobStarted();
    void setProgress(double fraction);
    void setData(std::shared_ptr<const KurtosisData> data);
    void setError(const QString &error);
    std::shared_ptr<const KurtosisData> data() const { return m_data; }

    KurtosisChannelPlot *channelPlot() const { return m_channels; }
    KurtosisScatterPlot *scatterPlot() const { return m_scatter; }
    QLabel *summary() const { return m_summary; }

    /// Asks for the job on the current tensors.
    void requestProfile();

signals:
    void profileRequested(const QStringList &tensors, qint64 rotate);
    void cancelRequested();

protected:
    /// The first look at the tab computes what it shows (the job runs in the background).
    void showEvent(QShowEvent *event) override;

private:
    void redraw();

    std::shared_ptr<const KurtosisData> m_data;
    QStringList m_tensors;
    QComboBox *m_tensor = nullptr;
    QComboBox *m_axis = nullptr;
    QCheckBox *m_rotate = nullptr;
    QSpinBox *m_block = nullptr;
    QPushButton *m_compute = nullptr;
    QLabel *m_summary = nullptr;
    KurtosisChannelPlot *m_channels = nullptr;
    KurtosisScatterPlot *m_scatter = nullptr;
    JobProgressWidget *m_progress = nullptr;
};

} // namespace quantscope
