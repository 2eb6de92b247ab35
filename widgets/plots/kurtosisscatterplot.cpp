// SPDX-License-Identifier: MIT
#include "kurtosisscatterplot.h"

#include "languageswitch.h"
#include "results/config_label.h"

#include "qtstring.h"
#include "palette.h"
#include "theme.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace quantscope {

KurtosisScatterPlot::KurtosisScatterPlot(QWidget *parent) : PlotWidget(parent)
{
    yAxis->setLabel(tr("relative error ‖W − Ŵ‖ / ‖W‖"));
    // The legend beside the plot, never over the points.
    // A column of its own: the legend at the top, an empty element below takes the height.
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    clearData();
    applyPalette();
    // Pixel positions are known once the layout is done, before drawing.
    connect(this, &QCustomPlot::afterLayout, this, &KurtosisScatterPlot::thinLabels);
}

void KurtosisScatterPlot::retranslate()
{
    const std::vector<KurtosisPoint> points = m_points; // setData takes a reference it replaces
    setData(points, m_rotated);                         // the x axis and the series names
    yAxis->setLabel(language::retranslated(yAxis->label(), this));
    replot(rpQueuedReplot);
}

double KurtosisScatterPlot::xOf(const KurtosisPoint &p) const
{
    return m_rotated ? p.rotatedKurtosis : p.kurtosis;
}

void KurtosisScatterPlot::setData(const std::vector<KurtosisPoint> &points, bool rotated)
{
    m_points = points;
    m_rotated = rotated;
    clearGraphs();
    clearItems();
    m_labels.clear();
    m_labelError.clear();
    m_shownLabels.clear();
    m_graphColor.clear();
    xAxis->setLabel(rotated ? tr("excess kurtosis of W, rotated") : tr("excess kurtosis of W"));
    std::map<std::string, QCPGraph *> byLabel;
    for (const auto &p : points) {
        const double x = xOf(p);
        if (!std::isfinite(x))
            continue;
        const std::string name = p.config.empty() ? p.label : configLabel(p.config, p.spec);
        QCPGraph *&g = byLabel[name];
        if (!g) {
            g = addGraph();
            g->setName(fromStd(name));
            g->setLineStyle(QCPGraph::lsNone);
            m_graphColor.push_back(p.colorIndex);
        }
        g->addData(x, p.relError);
        auto *label = new QCPItemText(this);
        label->position->setCoords(x, p.relError);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(5, 1, 5, 1));
        const auto &t = p.tensor;
        // The short end of a long tensor name ("…layers.0.mlp.down_proj.weight" →
        // "0.mlp.down_proj").
        QString shortName = fromStd(t);
        shortName.remove(QStringLiteral(".weight"));
        const auto parts = shortName.split(QLatin1Char('.'));
        label->setText(parts.size() > 3 ? parts.mid(parts.size() - 3).join(QLatin1Char('.')) : shortName);
        label->setFont(legend->font());
        m_labels.append(label);
        m_labelError.push_back(p.relError);
    }
    recolor();
    // Ranges from the points (one tensor gives a single x: a unit either side), room on the
    // right for the labels.
    double x0 = qInf(), x1 = -qInf(), y1 = 0;
    for (const auto &p : points)
        if (std::isfinite(xOf(p))) {
            x0 = std::min(x0, xOf(p));
            x1 = std::max(x1, xOf(p));
            y1 = std::max(y1, p.relError);
        }
    if (x0 > x1)
        x0 = 0, x1 = 1;
    const double span = std::max(x1 - x0, 1.0);
    xAxis->setRange(x0 - 0.1 * span, x1 + 0.35 * span);
    yAxis->setRange(0, y1 > 0 ? 1.15 * y1 : 1.0);
    finishData();
    replot(rpQueuedReplot);
}

void KurtosisScatterPlot::thinLabels()
{
    std::vector<int> order(static_cast<std::size_t>(m_labels.size()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        return m_labelError[static_cast<std::size_t>(a)] > m_labelError[static_cast<std::size_t>(b)];
    });
    m_shownLabels = placeLabels(m_labels, order, axisRect()->rect());
}

void KurtosisScatterPlot::recolor()
{
    const auto &p = palette();
    for (int i = 0; i < graphCount(); ++i) {
        const int index = m_graphColor[static_cast<std::size_t>(i)];
        const QColor c = theme::configColor(index, p);
        graph(i)->setPen(QPen(c));
        graph(i)->setScatterStyle(QCPScatterStyle(theme::configMarker(index), c, c, 8));
    }
    for (auto *l : m_labels)
        l->setColor(p.color(QPalette::WindowText));
}

QString KurtosisScatterPlot::csv() const
{
    QString out = QStringLiteral("tensor,configuration,excess_kurtosis,excess_kurtosis_rotated,rel_error\n");
    auto quoted = [](const std::string &s) {
        QString q = fromStd(s);
        q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    };
    auto num = [](double v) { return std::isnan(v) ? QString() : exact(v); };
    for (const auto &p : m_points)
        out += quoted(p.tensor) + QLatin1Char(',') + quoted(p.label) + QLatin1Char(',') + num(p.kurtosis) +
               QLatin1Char(',') + num(p.rotatedKurtosis) + QLatin1Char(',') + num(p.relError) + QLatin1Char('\n');
    return out;
}

QString KurtosisScatterPlot::toolTipAt(const QPoint &pos) const
{
    if (!axisRect()->rect().contains(pos))
        return {};
    const KurtosisPoint *best = nullptr;
    double bestD = 12 * 12; // within 12 pixels
    for (const auto &p : m_points) {
        const double x = xOf(p);
        if (!std::isfinite(x))
            continue;
        const double dx = xAxis->coordToPixel(x) - pos.x();
        const double dy = yAxis->coordToPixel(p.relError) - pos.y();
        if (dx * dx + dy * dy < bestD) {
            bestD = dx * dx + dy * dy;
            best = &p;
        }
    }
    if (!best)
        return {};
    return tr("%1\n%2: relative error %3, excess kurtosis %4 (rotated %5)")
        .arg(fromStd(best->tensor), fromStd(best->label), number(best->relError), number(best->kurtosis),
             number(best->rotatedKurtosis));
}

} // namespace quantscope
