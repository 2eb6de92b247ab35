// SPDX-License-Identifier: MIT
#pragma once
/// \file errorhistogramplot.h
/// The error W − Ŵ of each configuration as a histogram (one step line each).
#include "plotwidget.h"

#include <vector>

namespace quantscope {

class ErrorHistogramPlot : public PlotWidget {
    Q_OBJECT
public:
    explicit ErrorHistogramPlot(QWidget *parent = nullptr);

    void setData(std::vector<NamedSeries> errors);
    void clearData() { setData({}); }
    void setLogY(bool on);
    bool logY() const noexcept { return m_logY; }
    const QList<QCPGraph *> &errorGraphs() const { return m_graphs; }

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("error-histogram"); }

protected:
    void recolor() override;

private:
    void rebuildGraphs();

    std::vector<NamedSeries> m_errors;
    QList<QCPGraph *> m_graphs;
    bool m_logY = true;
};

} // namespace quantscope
