// SPDX-License-Identifier: MIT
#include "layerheatmap.h"

#include "qtstring.h"

#include <QMouseEvent>
#include <cmath>

namespace quantscope {

LayerHeatMap::LayerHeatMap(QWidget *parent) : PlotWidget(parent)
{
    m_map = new QCPColorMap(xAxis, yAxis);
    m_scale = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, m_scale); // the scale beside the cells, never over them
    m_map->setColorScale(m_scale);
    // Viridis stops (perceptually uniform, readable in both palettes and in grey); NaN cells (no
    // module, no value) stay transparent.
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    g.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(g);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false); // cells centred on their layer and column, full size
    yAxis->setRangeReversed(true);  // layer 0 at the top
    xAxis->setLabel(tr("projection"));
    yAxis->setLabel(tr("layer"));
    legend->setVisible(false);
    applyPalette();
}

void LayerHeatMap::setGrid(std::shared_ptr<const LayerGrid> grid, const QString &metricLabel)
{
    m_grid = std::move(grid);
    const int rows = m_grid ? static_cast<int>(m_grid->layers.size()) : 0;
    const int cols = m_grid ? static_cast<int>(m_grid->columns.size()) : 0;
    m_map->data()->setSize(std::max(cols, 1), std::max(rows, 1));
    m_map->data()->setRange(QCPRange(0, std::max(cols - 1, 0)), QCPRange(0, std::max(rows - 1, 0)));
    m_map->data()->fill(std::nan(""));
    auto xt = QSharedPointer<QCPAxisTickerText>::create();
    auto yt = QSharedPointer<QCPAxisTickerText>::create();
    for (int c = 0; c < cols; ++c)
        xt->addTick(c, fromStd(m_grid->columns[static_cast<std::size_t>(c)]));
    for (int r = 0; r < rows; ++r) {
        yt->addTick(r, QString::number(m_grid->layers[static_cast<std::size_t>(r)]));
        for (int c = 0; c < cols; ++c) {
            const LayerCell &cell = m_grid->cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
            if (cell.present)
                m_map->data()->setCell(c, r, cell.value);
        }
    }
    xAxis->setTicker(xt);
    yAxis->setTicker(yt);
    xAxis->setRange(-0.5, std::max(cols, 1) - 0.5);
    yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
    const double lo = m_grid ? m_grid->lo : 0, hi = m_grid ? m_grid->hi : 1;
    m_map->setDataRange(QCPRange(lo, hi > lo ? hi : lo + 1));
    m_scale->axis()->setLabel(metricLabel);
    replot();
}

QColor LayerHeatMap::cellColor(int row, int column) const
{
    if (!m_grid || row < 0 || column < 0 || row >= static_cast<int>(m_grid->layers.size()) ||
        column >= static_cast<int>(m_grid->columns.size()))
        return {};
    const LayerCell &cell = m_grid->cells[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
    if (!cell.present || !std::isfinite(cell.value))
        return {};
    QRgb rgb = 0;
    const double v = cell.value;
    m_map->gradient().colorize(&v, m_map->dataRange(), &rgb, 1);
    return QColor::fromRgba(rgb);
}

QPoint LayerHeatMap::cellCenter(int row, int column) const
{
    return {static_cast<int>(std::lround(xAxis->coordToPixel(column))),
            static_cast<int>(std::lround(yAxis->coordToPixel(row)))};
}

bool LayerHeatMap::cellAt(const QPoint &pos, int &row, int &column) const
{
    if (!m_grid || !axisRect()->rect().contains(pos))
        return false;
    column = static_cast<int>(std::lround(xAxis->pixelToCoord(pos.x())));
    row = static_cast<int>(std::lround(yAxis->pixelToCoord(pos.y())));
    return row >= 0 && column >= 0 && row < static_cast<int>(m_grid->layers.size()) &&
           column < static_cast<int>(m_grid->columns.size()) &&
           m_grid->cells[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)].present;
}

QString LayerHeatMap::toolTipAt(const QPoint &pos) const
{
    int r = 0, c = 0;
    if (!cellAt(pos, r, c))
        return {};
    const LayerCell &cell = m_grid->cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    return QStringLiteral("%1\n%2: %3")
        .arg(fromStd(cell.module), m_scale->axis()->label(),
             std::isfinite(cell.value) ? number(cell.value) : QStringLiteral("—"));
}

void LayerHeatMap::mouseReleaseEvent(QMouseEvent *event)
{
    PlotWidget::mouseReleaseEvent(event);
    int r = 0, c = 0;
    if (event->button() == Qt::LeftButton && cellAt(event->pos(), r, c))
        emit tensorClicked(fromStd(m_grid->cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].tensor));
}

QString LayerHeatMap::csv() const
{
    QString out = QStringLiteral("layer,column,module,tensor,value\n");
    if (!m_grid)
        return out;
    for (std::size_t r = 0; r < m_grid->layers.size(); ++r)
        for (std::size_t c = 0; c < m_grid->columns.size(); ++c) {
            const LayerCell &cell = m_grid->cells[r][c];
            if (!cell.present)
                continue;
            out += QStringLiteral("%1,%2,%3,%4,%5\n")
                       .arg(m_grid->layers[r])
                       .arg(fromStd(m_grid->columns[c]), fromStd(cell.module), fromStd(cell.tensor),
                            std::isfinite(cell.value) ? exact(cell.value) : QString());
        }
    return out;
}

void LayerHeatMap::recolor()
{
    // The gradient is perceptual (viridis) in both palettes; axes follow applyPalette.
    if (m_scale) {
        m_scale->axis()->setBasePen(xAxis->basePen());
        m_scale->axis()->setTickLabelColor(xAxis->tickLabelColor());
        m_scale->axis()->setLabelColor(xAxis->labelColor());
    }
}

} // namespace quantscope
