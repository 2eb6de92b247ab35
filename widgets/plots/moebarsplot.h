// SPDX-License-Identifier: MIT
#pragma once
/// \file moebarsplot.h
/// The GEMM timing lab's MoE comparison (issue 22): grouped bars per (format, M), the time per
/// step of one launch per expert (loop) beside one strided-batched launch. Draws prepared MoeBars
/// (core/sim/gemm_roofline.h); computes nothing.
#include "plotwidget.h"
#include "sim/gemm_roofline.h"

namespace quantscope {

class MoeBarsPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit MoeBarsPlot(QWidget *parent = nullptr);

    void setBars(const MoeBars &bars);
    void clearData();
    const MoeBars &bars() const { return m_bars; }
    QCPBars *loopBars() const { return m_loop; }
    QCPBars *batchedBars() const { return m_batched; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("gemm-moe"); }

protected:
    void recolor() override;

private:
    MoeBars m_bars;
    QCPBars *m_loop = nullptr, *m_batched = nullptr;
};

} // namespace quantscope
