// SPDX-License-Identifier: MIT
#include "budgetbarsplot.h"

#include "qtstring.h"
#include "theme.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

BudgetBarsPlot::BudgetBarsPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("module (checkpoint order)"));
    yAxis->setLabel(tr("bits per weight"));
    m_bars = new QCPBars(xAxis, yAxis);
    m_bars->setWidth(0.8);
    legend->setVisible(false);
    setMinimumHeight(140);
    clearData();
    applyPalette();
}

void BudgetBarsPlot::clearData()
{
    m_modules.clear();
    m_labels.clear();
    m_bits.clear();
    m_bars->data()->clear();
    replot(rpQueuedReplot);
}

void BudgetBarsPlot::setChoices(const std::vector<std::string> &modules, const std::vector<std::string> &labels,
                                const std::vector<double> &bitsPerWeight)
{
    m_modules = modules;
    m_labels = labels;
    m_bits = bitsPerWeight;
    QList<double> x, y;
    for (std::size_t i = 0; i < m_bits.size(); ++i) {
        x.push_back(static_cast<double>(i));
        y.push_back(m_bits[i]);
    }
    m_bars->setData(x, y, true);
    xAxis->setRange(-1, static_cast<double>(std::max<std::size_t>(m_bits.size(), 1)));
    const double top = m_bits.empty() ? 8.0 : *std::max_element(m_bits.begin(), m_bits.end());
    yAxis->setRange(0, std::ceil(top) + 1);
    replot(rpQueuedReplot);
}

void BudgetBarsPlot::recolor()
{
    const QColor c = theme::configColor(0, palette());
    m_bars->setPen(QPen(c.darker(120)));
    m_bars->setBrush(c);
}

QString BudgetBarsPlot::csv() const
{
    QString out = QStringLiteral("module,choice,bits_per_weight\n");
    for (std::size_t i = 0; i < m_bits.size(); ++i)
        out += fromStd(m_modules[i]) + QLatin1Char(',') + fromStd(m_labels[i]) + QLatin1Char(',') + exact(m_bits[i]) +
               QLatin1Char('\n');
    return out;
}

QString BudgetBarsPlot::toolTipAt(const QPoint &pos) const
{
    if (m_bits.empty() || !axisRect()->rect().contains(pos))
        return {};
    const long i = std::lround(xAxis->pixelToCoord(pos.x()));
    if (i < 0 || i >= static_cast<long>(m_bits.size()))
        return {};
    const auto k = static_cast<std::size_t>(i);
    return tr("%1: %2, %3 bits per weight").arg(fromStd(m_modules[k]), fromStd(m_labels[k]), number(m_bits[k]));
}

} // namespace quantscope
