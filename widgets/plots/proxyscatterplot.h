// SPDX-License-Identifier: MIT
#pragma once
/// \file proxyscatterplot.h
/// The Model tab's per-layer plot: each module's output-aware error E‖(W − Ŵ)x‖² (x, log)
/// against the KL divergence measured with that module alone quantized (y, log); hovering names
/// the module. Draws prepared LayerMeasures (core/bridge/model_view.h); computes nothing.
#include "bridge/model_view.h"
#include "plotwidget.h"

namespace quantscope {

class ProxyScatterPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit ProxyScatterPlot(QWidget *parent = nullptr);

    void setData(const LayerMeasures &measures);
    void clearData() { setData({}); }
    /// Points drawn (modules with both numbers positive).
    int pointCount() const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("output-error-vs-kl"); }

protected:
    void recolor() override;

private:
    std::vector<LayerMeasure> m_points; ///< the plotted ones
};

} // namespace quantscope
