// SPDX-License-Identifier: MIT
#pragma once
/// \file layerheatmap.h
/// The Layers view's heat map: one cell per (layer, projection) — or (layer, expert) — of a
/// prepared LayerGrid, coloured by its value on a gradient with a colour scale beside the plot,
/// the value under the mouse as a tooltip, a click on a cell emits its tensor.
#include "results/layer_grid.h"
#include "plotwidget.h"

#include <memory>

namespace quantscope {

class LayerHeatMap : public PlotWidget {
    Q_OBJECT
public:
    explicit LayerHeatMap(QWidget *parent = nullptr);

    /// Draws `grid`; `metricLabel` (translated) names the colour scale and the tooltips' value.
    void setGrid(std::shared_ptr<const LayerGrid> grid, const QString &metricLabel = {});
    std::shared_ptr<const LayerGrid> grid() const { return m_grid; }
    /// The colour a cell is drawn with (invalid when the cell is empty or has no value).
    QColor cellColor(int row, int column) const;
    /// Widget position of a cell's centre (for tests and tooltips).
    QPoint cellCenter(int row, int column) const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override { return QStringLiteral("layers"); }

signals:
    void tensorClicked(const QString &tensor);

protected:
    void recolor() override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    /// Row and column under a widget position, or false.
    bool cellAt(const QPoint &pos, int &row, int &column) const;

    std::shared_ptr<const LayerGrid> m_grid;
    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
};

} // namespace quantscope
