// SPDX-License-Identifier: MIT
#include "scaleconstantplot.h"

#include "theme.h"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>

namespace quantscope {

ScaleConstantPlot::ScaleConstantPlot(QWidget *parent) : PlotWidget(parent)
{
    xAxis->setLabel(tr("scale constant c"));
    yAxis->setLabel(tr("MSE"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(logTicker());
    // The legend beside the plot, never over the curves.
    // A column of its own: the legend at the top, an empty element below takes the height.
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(0, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(6, 4, 6, 4));
    setMinimumHeight(260);
    clearData();
    applyPalette();
}

QCPGraph *ScaleConstantPlot::addLine(const QString &name, double y)
{
    auto *g = addGraph();
    g->setName(name);
    const auto &c = m_set.pow2.c;
    if (!c.empty())
        g->setData(QList<double>{c.front(), c.back()}, QList<double>{y, y}, true);
    return g;
}

void ScaleConstantPlot::clearData()
{
    m_hasData = false;
    m_set = {};
    clearGraphs();
    clearItems();
    m_pow2 = m_unrounded = m_starPow2 = m_starUnrounded = m_int4 = m_mxfp4 = m_lloyd = nullptr;
    m_interval = nullptr;
    m_default = m_current = nullptr;
    m_currentText = nullptr;
    finishData();
    replot(rpQueuedReplot);
}

void ScaleConstantPlot::setData(const ScaleConstantSet &set, double defaultC)
{
    const double currentC = m_currentC;
    const QString currentLabel = m_currentText ? m_currentText->text() : QString();
    clearData();
    m_set = set;
    m_defaultC = defaultC;
    m_hasData = !set.pow2.c.empty();
    if (!m_hasData)
        return;
    m_pow2 = addGraph();
    m_pow2->setName(tr("constOpt pow2 (UE8M0 scale)"));
    m_pow2->setData(toQList(set.pow2.c), toQListForLog(set.pow2.mse), true);
    m_unrounded = addGraph();
    m_unrounded->setName(tr("constOpt unrounded (FP32 scale)"));
    m_unrounded->setData(toQList(set.unrounded.c), toQListForLog(set.unrounded.mse), true);
    m_starPow2 = addGraph();
    m_starPow2->setName(tr("c* pow2 %1").arg(number(set.pow2.cStar)));
    m_starPow2->setLineStyle(QCPGraph::lsNone);
    m_starPow2->setData(QList<double>{set.pow2.cStar}, QList<double>{set.pow2.cStarMse}, true);
    m_starUnrounded = addGraph();
    m_starUnrounded->setName(tr("c* unrounded %1").arg(number(set.unrounded.cStar)));
    m_starUnrounded->setLineStyle(QCPGraph::lsNone);
    m_starUnrounded->setData(QList<double>{set.unrounded.cStar}, QList<double>{set.unrounded.cStarMse}, true);
    m_int4 = addLine(tr("INT4 sym, same groups"), set.int4Mse);
    m_mxfp4 = addLine(tr("MXFP4"), set.mxfp4Mse);
    m_lloyd = addLine(tr("Lloyd–Max 16 levels"), set.lloydMaxMse);

    m_interval = new QCPItemRect(this);
    m_interval->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
    m_interval->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_interval->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
    m_interval->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_interval->topLeft->setCoords(set.pow2.intervalLo, 0);
    m_interval->bottomRight->setCoords(set.pow2.intervalHi, 1);
    m_interval->setLayer(QStringLiteral("background"));
    m_default = new QCPItemStraightLine(this);
    m_default->point1->setCoords(defaultC, 1);
    m_default->point2->setCoords(defaultC, 2);
    auto *defaultText = new QCPItemText(this);
    defaultText->position->setTypeX(QCPItemPosition::ptPlotCoords);
    defaultText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    defaultText->position->setCoords(defaultC, 0.02);
    defaultText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    defaultText->setText(tr(" default %1").arg(number(defaultC)));
    defaultText->setFont(legend->font());

    rescaleAxes();
    double lo = set.lloydMaxMse, hi = 0;
    for (const auto *c : {&set.pow2, &set.unrounded})
        for (double v : c->mse)
            if (v > 0)
                lo = std::min(lo, v);
    // The interesting part is near the minimum: cap the top at a few times the references.
    hi = 3 * std::max({set.int4Mse, set.mxfp4Mse, set.pow2.mseAtDefault, set.unrounded.mseAtDefault});
    if (lo > 0 && hi > lo)
        yAxis->setRange(lo * 0.8, hi);
    finishData();
    setCurrentC(currentC, currentLabel);
    recolor();
    replot(rpQueuedReplot);
}

void ScaleConstantPlot::setCurrentC(double c, const QString &label)
{
    m_currentC = c;
    if (m_current) {
        removeItem(m_current);
        removeItem(m_currentText);
        m_current = nullptr;
        m_currentText = nullptr;
    }
    if (m_hasData && std::isfinite(c)) {
        m_current = new QCPItemStraightLine(this);
        m_current->point1->setCoords(c, 1);
        m_current->point2->setCoords(c, 2);
        m_currentText = new QCPItemText(this);
        m_currentText->position->setTypeX(QCPItemPosition::ptPlotCoords);
        m_currentText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m_currentText->position->setCoords(c, 0.10);
        m_currentText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m_currentText->setText(label);
        m_currentText->setFont(legend->font());
        recolor();
    }
    replot(rpQueuedReplot);
}

double ScaleConstantPlot::markedCStar(ConstOptEncoder encoder) const
{
    const QCPGraph *g = encoder == ConstOptEncoder::Pow2 ? m_starPow2 : m_starUnrounded;
    return g && g->data()->size() == 1 ? g->data()->begin()->key : qQNaN();
}

QCPGraph *ScaleConstantPlot::curveGraph(ConstOptEncoder encoder) const
{
    return encoder == ConstOptEncoder::Pow2 ? m_pow2 : m_unrounded;
}

std::pair<double, double> ScaleConstantPlot::markedInterval() const
{
    if (!m_interval)
        return {qQNaN(), qQNaN()};
    return {m_interval->topLeft->coords().x(), m_interval->bottomRight->coords().x()};
}

int ScaleConstantPlot::pixelOf(double c) const
{
    return static_cast<int>(std::lround(xAxis->coordToPixel(c)));
}

void ScaleConstantPlot::recolor()
{
    const auto &p = palette();
    auto pen = [](QColor c, double w, Qt::PenStyle s = Qt::SolidLine) {
        QPen pen(c, w);
        pen.setStyle(s);
        return pen;
    };
    const QColor fg = p.color(QPalette::WindowText);
    if (m_pow2)
        m_pow2->setPen(pen(theme::configColor(0, p), 1.6));
    if (m_unrounded)
        m_unrounded->setPen(pen(theme::configColor(1, p), 1.6));
    for (auto [g, i] : {std::pair{m_starPow2, 0}, std::pair{m_starUnrounded, 1}})
        if (g) {
            g->setPen(pen(theme::configColor(i, p), 1));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, fg, theme::configColor(i, p), 11));
        }
    if (m_int4)
        m_int4->setPen(pen(theme::configColor(2, p), 1.2, Qt::DashLine));
    if (m_mxfp4)
        m_mxfp4->setPen(pen(theme::configColor(3, p), 1.2, Qt::DashLine));
    if (m_lloyd)
        m_lloyd->setPen(pen(theme::weightColor(p), 1.2, Qt::DotLine));
    if (m_interval) {
        QColor c = theme::configColor(0, p);
        c.setAlpha(45);
        m_interval->setPen(Qt::NoPen);
        m_interval->setBrush(c);
    }
    if (m_default)
        m_default->setPen(pen(fg, 1, Qt::DotLine));
    if (m_current) {
        m_current->setPen(pen(theme::accentColor(p), 1.5, Qt::DashLine));
        m_currentText->setColor(theme::accentColor(p));
    }
    for (int i = 0; i < itemCount(); ++i)
        if (auto *t = qobject_cast<QCPItemText *>(item(i)); t && t != m_currentText)
            t->setColor(fg);
}

void ScaleConstantPlot::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->pos();
    PlotWidget::mousePressEvent(event);
}

void ScaleConstantPlot::mouseReleaseEvent(QMouseEvent *event)
{
    // A click, not the end of a drag that pans the axis.
    const bool click = event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() <= 3;
    PlotWidget::mouseReleaseEvent(event);
    if (click && m_hasData && axisRect()->rect().contains(event->pos()))
        emit cClicked(xAxis->pixelToCoord(event->pos().x()));
}

QString ScaleConstantPlot::csv() const
{
    QString out = QStringLiteral("c,mse_pow2,mse_unrounded,int4_mse,mxfp4_mse,lloyd_max_mse\n");
    const auto &a = m_set.pow2, &b = m_set.unrounded;
    for (std::size_t i = 0; i < a.c.size(); ++i)
        out += exact(a.c[i]) + QLatin1Char(',') + exact(a.mse[i]) + QLatin1Char(',') +
               (i < b.mse.size() ? exact(b.mse[i]) : QString()) + QLatin1Char(',') + exact(m_set.int4Mse) +
               QLatin1Char(',') + exact(m_set.mxfp4Mse) + QLatin1Char(',') + exact(m_set.lloydMaxMse) +
               QLatin1Char('\n');
    return out;
}

QString ScaleConstantPlot::toolTipAt(const QPoint &pos) const
{
    if (!m_hasData || !axisRect()->rect().contains(pos))
        return {};
    const auto &c = m_set.pow2.c;
    const double x = xAxis->pixelToCoord(pos.x());
    const auto it = std::lower_bound(c.begin(), c.end(), x);
    std::size_t i = static_cast<std::size_t>(it - c.begin());
    if (i == c.size() || (i > 0 && x - c[i - 1] < c[i] - x))
        i = i == 0 ? 0 : i - 1;
    QString text = tr("c %1: MSE pow2 %2, unrounded %3")
                       .arg(number(c[i]), number(m_set.pow2.mse[i]),
                            number(i < m_set.unrounded.mse.size() ? m_set.unrounded.mse[i] : qQNaN()));
    text += QLatin1Char('\n') + tr("INT4 %1, MXFP4 %2, Lloyd–Max %3")
                                    .arg(number(m_set.int4Mse), number(m_set.mxfp4Mse), number(m_set.lloydMaxMse));
    text += QLatin1Char('\n') + tr("Click to set c in the configuration");
    return text;
}

} // namespace quantscope
