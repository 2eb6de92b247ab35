// SPDX-License-Identifier: MIT
#pragma once
/// \file sigmaplot.h
/// The singular values σᵢ of the residual E = W − Ŵ per configuration on a logarithmic axis,
/// with each configuration's τ·σ₁ line (dashed, its colour). Draws prepared data only.
#include "plotwidget.h"

#include <vector>

namespace quantscope {

/// One configuration's σᵢ (x = i, 1-based) and its σ₁.
struct SigmaSeries {
    QString name; ///< configLabel
    int colorIndex = 0;
    Series sigma;
};

class SigmaPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit SigmaPlot(QWidget *parent = nullptr);

    void setData(std::vector<SigmaSeries> series, double tau);
    void clearData() { setData({}, m_tau); }
    /// Moves the τ·σ₁ lines (no other change).
    void setTau(double tau);
    double tau() const noexcept { return m_tau; }

    const QList<QCPGraph *> &sigmaGraphs() const { return m_graphs; }
    const QList<QCPItemStraightLine *> &tauLines() const { return m_tauLines; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("residual-spectrum"); }

protected:
    void recolor() override;

private:
    void rebuild();
    void placeTauLines();

    std::vector<SigmaSeries> m_series;
    double m_tau = 0.5;
    QList<QCPGraph *> m_graphs;
    QList<QCPItemStraightLine *> m_tauLines;
};

} // namespace quantscope
