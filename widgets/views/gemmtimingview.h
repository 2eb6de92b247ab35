// SPDX-License-Identifier: MIT
#pragma once
/// \file gemmtimingview.h
/// The GEMM timing tab (issue 21): what BF16, FP8 (tensor-wise and row-wise scales) and INT8
/// GEMMs of the selected tensor's N×K cost for M = 1 … the chosen maximum on the panel's device
/// — time (µs) and TFLOP/s against M, one curve per format. The timing runs as a job in app/
/// (this view asks for it and shows its progress); the view only draws the GemmBenchResult.
#include "sim/gemm_bench.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace quantscope {

class GemmTimingPlot;
class JobProgressWidget;
class MoeBarsPlot;
class RooflinePlot;

class GemmTimingView : public QWidget {
    Q_OBJECT
public:
    explicit GemmTimingView(QWidget *parent = nullptr);

    /// The tensors to choose from (the browser's selection); keeps the current one if present.
    void setTensors(const QStringList &tensors);
    QString currentTensor() const;
    /// The largest M of the sweep (a power of two, 1 … 8192).
    qint64 maxM() const;
    void setMaxM(qint64 m);
    /// What to time: the formats and the experts of the chosen mode.
    enum class Mode { Plain, Quantized, Moe };
    Mode mode() const;
    void setMode(Mode mode);
    /// The request's formats and experts for a mode (MoE: 16 experts). Quantized: the W4A16,
    /// W4A8, W8A8-FP8, MXFP4, NVFP4 and W3A16 + MiLo compensator paths (a format the tensor's K
    /// cannot run is skipped by runGemmBench and named in the summary).
    static std::vector<GemmFormat> formatsFor(Mode mode);
    static int expertsFor(Mode mode);
    /// The rank of w3a16-milo's compensator (the spin box shown in Quantized mode only; 0 … 256,
    /// default the CLI's --w3-rank default).
    int w3Rank() const;
    void setW3Rank(int rank);
    QSpinBox *w3RankBox() const { return m_w3Rank; }
    /// What the job times: the mode's formats and experts, the W3 rank and M = 1, 2, 4, … ≤
    /// `maxM`; the job fills N, K, the weight and the peaks cache.
    GemmBenchRequest timingRequest(qint64 maxM) const;

    void jobStarted();
    void setProgress(double fraction);
    /// The result and the weight it was timed for ("" when not from a tensor).
    void setResult(std::shared_ptr<const GemmBenchResult> result, const QString &tensor);
    void setError(const QString &error);
    std::shared_ptr<const GemmBenchResult> result() const { return m_result; }

    GemmTimingPlot *timePlot() const { return m_time; }
    GemmTimingPlot *tflopsPlot() const { return m_tflops; }
    JobProgressWidget *progress() const { return m_progress; }
    RooflinePlot *rooflinePlot() const { return m_roofline; }
    MoeBarsPlot *moePlot() const { return m_moe; }
    QLabel *summary() const { return m_summary; }

signals:
    /// Time the GEMMs of `tensor`'s shape for M = 1, 2, 4, … ≤ maxM.
    void timingRequested(const QString &tensor, qint64 maxM);
    void cancelRequested();

protected:
    /// The first look at the tab computes what it shows (the job runs in the background).
    void showEvent(QShowEvent *event) override;

private:
    void request();

    std::shared_ptr<const GemmBenchResult> m_result;
    QComboBox *m_tensor = nullptr;
    QComboBox *m_maxM = nullptr;
    QComboBox *m_mode = nullptr;
    QSpinBox *m_w3Rank = nullptr;
    QPushButton *m_run = nullptr;
    QLabel *m_summary = nullptr;
    GemmTimingPlot *m_time = nullptr, *m_tflops = nullptr;
    RooflinePlot *m_roofline = nullptr;
    MoeBarsPlot *m_moe = nullptr;
    JobProgressWidget *m_progress = nullptr;
};

} // namespace quantscope
