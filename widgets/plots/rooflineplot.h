// SPDX-License-Identifier: MIT
#pragma once
/// \file rooflineplot.h
/// The GEMM timing lab's roofline (issue 22): log-log TFLOP/s against arithmetic intensity
/// (FLOP/byte), one dashed ceiling per dtype (the device copy's slope, then the dtype's best GEMM),
/// one marker series per format, and beside each point its bound label ("memory 62 %" /
/// "compute 81 %"), and each point's run-to-run spread (slowest to fastest timed run) as an
/// error bar. Draws a prepared RooflineView (core/sim/gemm_roofline.h); computes nothing.
#include "plotwidget.h"
#include "sim/gemm_roofline.h"

namespace quantscope {

class RooflinePlot : public PlotWidget {
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget *parent = nullptr);

    void setView(const RooflineView &view);
    void clearData();
    const RooflineView &view() const { return m_view; }
    /// The label drawn beside point i of view().points (empty when none).
    QString boundLabel(std::size_t i) const;
    /// Its anchor (plot coordinates: intensity, TFLOP/s).
    QPointF boundLabelAnchor(std::size_t i) const;
    /// The bound label's text for a point (the plot's own wording, also used by the tests):
    /// "memory 80 %", or with a cache level below DRAM (the CPU) "memory (L2) 80 %".
    static QString labelFor(const std::string &bound, double fraction, const std::string &level = {});
    /// The run-to-run spread's error bars, one per series that measured one.
    const std::vector<QCPErrorBars *> &spreadBars() const { return m_spread; }
    /// The bound labels drawn at the last layout (widget pixels): none overlaps another or a
    /// point (the others are hidden; a point's tooltip gives its bound).
    const QList<QRectF> &shownLabelRects() const noexcept { return m_shownLabels; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("gemm-roofline"); }

protected:
    void recolor() override;

private:
    RooflineView m_view;
    std::vector<QCPGraph *> m_ceilings, m_series;
    std::vector<std::string> m_seriesNames;
    std::vector<QCPItemText *> m_labels;
    std::vector<QCPErrorBars *> m_spread; ///< per series with a measured spread
    QList<QRectF> m_shownLabels;
};

} // namespace quantscope
