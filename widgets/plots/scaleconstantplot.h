// SPDX-License-Identifier: MIT
#pragma once
/// \file scaleconstantplot.h
/// constOpt's MSE(c) (log y) for the pow2 and unrounded encoders with c* marked, the pow2 flat
/// interval shaded, the default c and the configuration's c as vertical lines, and the INT4,
/// MXFP4 and Lloyd–Max MSEs as reference lines. A click (no drag) on the plot emits the c under
/// the mouse. Draws a prepared ScaleConstantSet; computes nothing.
#include "results/scale_constant_data.h"
#include "plotwidget.h"

#include <QPoint>

namespace quantscope {

class ScaleConstantPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit ScaleConstantPlot(QWidget *parent = nullptr);

    void setData(const ScaleConstantSet &set, double defaultC);
    void clearData();
    /// The selected configuration's c as a dashed line (NaN: none) and its label.
    void setCurrentC(double c, const QString &label);
    double currentC() const { return m_currentC; }

    /// c* as drawn for an encoder (NaN when nothing is drawn).
    double markedCStar(ConstOptEncoder encoder) const;
    QCPGraph *curveGraph(ConstOptEncoder encoder) const;
    /// The flat interval as drawn (NaN, NaN when none).
    std::pair<double, double> markedInterval() const;
    /// Widget x of a c (for tests and tooltips).
    int pixelOf(double c) const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("scale-constant"); }

signals:
    /// The user clicked the plot at this c (not snapped).
    void cClicked(double c);

protected:
    void recolor() override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    QCPGraph *addLine(const QString &name, double y);

    ScaleConstantSet m_set;
    bool m_hasData = false;
    double m_defaultC = 0.156;
    double m_currentC = qQNaN();
    QCPGraph *m_pow2 = nullptr, *m_unrounded = nullptr;
    QCPGraph *m_starPow2 = nullptr, *m_starUnrounded = nullptr;
    QCPGraph *m_int4 = nullptr, *m_mxfp4 = nullptr, *m_lloyd = nullptr;
    QCPItemRect *m_interval = nullptr;
    QCPItemStraightLine *m_default = nullptr, *m_current = nullptr;
    QCPItemText *m_currentText = nullptr;
    QPoint m_pressPos;
};

} // namespace quantscope
