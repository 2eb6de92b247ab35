// SPDX-License-Identifier: MIT
#pragma once
/// \file gemmtimingplot.h
/// The GEMM timing lab's curves against M (log-x base 2, log-y): one curve per format of either
/// the time (µs) or the TFLOP/s; a padded point says so in its tooltip. Draws prepared GemmCurves
/// (core/sim/gemm_bench.h); computes nothing.
#include "plotwidget.h"
#include "sim/gemm_bench.h"

namespace quantscope {

class GemmTimingPlot : public PlotWidget {
    Q_OBJECT
public:
    enum class Quantity { TimeUs, Tflops };
    explicit GemmTimingPlot(Quantity quantity, QWidget *parent = nullptr);

    void setCurves(const std::vector<GemmCurve> &curves);
    void clearData();
    Quantity quantity() const { return m_quantity; }
    /// The graph of a format (null when not drawn).
    QCPGraph *curveGraph(const QString &format) const;
    /// Points drawn over all curves.
    int pointCount() const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override;

protected:
    void recolor() override;

private:
    Quantity m_quantity;
    std::vector<GemmCurve> m_curves;
    std::vector<QCPGraph *> m_graphs;
};

} // namespace quantscope
