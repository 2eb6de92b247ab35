// SPDX-License-Identifier: MIT
#include "kvplot.h"

#include "theme.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

namespace {

/// The paper's two constants (UltraQuant): the MSE-optimal c on its captured keys and the
/// power-of-two optimum.
constexpr double kPaperC = 0.156;
constexpr double kPow2C = 0.195;

} // namespace

KvPlot::KvPlot(Kind kind, QWidget *parent) : PlotWidget(parent), m_kind(kind)
{
    switch (kind) {
    case Kind::Sweep:
        xAxis->setLabel(tr("scale constant c (rotated keys)"));
        yAxis->setLabel(tr("K MSE"));
        break;
    case Kind::Distortion:
        xAxis->setLabel(tr("scale constant c"));
        yAxis->setLabel(tr("MSE per coordinate"));
        break;
    case Kind::Kurtosis:
        xAxis->setLabel(tr("layer"));
        yAxis->setLabel(tr("excess kurtosis of K"));
        break;
    case Kind::Codebook:
        xAxis->setLabel(tr("level (coordinate of a rotated unit vector)"));
        break;
    }
    if (kind == Kind::Sweep || kind == Kind::Distortion) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(logTicker());
    }
    placeLegendAbove();
    setLegendWanted(kind != Kind::Codebook); // the codebook's rows are named by its y axis
    setMinimumHeight(220);
    setReport(nullptr);
    applyPalette();
}

QString KvPlot::exportName() const
{
    switch (m_kind) {
    case Kind::Sweep:
        return QStringLiteral("kv-c-sweep");
    case Kind::Distortion:
        return QStringLiteral("kv-distortion");
    case Kind::Kurtosis:
        return QStringLiteral("kv-kurtosis");
    case Kind::Codebook:
        break;
    }
    return QStringLiteral("kv-codebook");
}

void KvPlot::setEmptyText(const QString &text)
{
    m_emptyText = text;
    if (m_empty)
        m_empty->setText(text);
    replot(rpQueuedReplot);
}

void KvPlot::setReport(std::shared_ptr<const KvLabReport> report)
{
    m_report = std::move(report);
    clearGraphs();
    clearItems();
    m_graphs.clear();
    m_styles.clear();
    m_markers.clear();
    m_markerColors.clear();
    m_interval = nullptr;
    m_empty = nullptr;
    if (m_kind == Kind::Codebook)
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    if (m_report) {
        switch (m_kind) {
        case Kind::Sweep:
            drawSweep(*m_report);
            break;
        case Kind::Distortion:
            drawDistortion(*m_report);
            break;
        case Kind::Kurtosis:
            drawKurtosis(*m_report);
            break;
        case Kind::Codebook:
            drawCodebook(*m_report);
            break;
        }
    }
    if (!hasData()) {
        m_empty = new QCPItemText(this);
        m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_empty->position->setCoords(0.5, 0.5);
        m_empty->setPositionAlignment(Qt::AlignCenter);
        m_empty->setText(m_emptyText);
        m_empty->setFont(legend->font());
    }
    finishData();
    if (hasData()) {
        rescaleAxes();
        if (m_kind == Kind::Codebook) {
            yAxis->setRange(-0.7, 2.7);
            xAxis->scaleRange(1.08, xAxis->range().center()); // the outer levels off the frame
        } else if (m_kind == Kind::Kurtosis)
            yAxis->scaleRange(1.15, yAxis->range().center());
    }
    recolor();
    replot(rpQueuedReplot);
}

QCPGraph *KvPlot::addSeries(const QString &name, const std::vector<double> &x, const std::vector<double> &y, int color,
                            Qt::PenStyle style, bool markers)
{
    auto *g = addGraph();
    g->setName(name);
    const bool log = yAxis->scaleType() == QCPAxis::stLogarithmic;
    g->setData(toQList(x), log ? toQListForLog(y) : toQList(y), true);
    m_graphs << g;
    m_styles << Style{color, style, markers};
    return g;
}

QCPGraph *KvPlot::addHLine(const QString &name, double lo, double hi, double y, int color, Qt::PenStyle style)
{
    return addSeries(name, {lo, hi}, {y, y}, color, style);
}

void KvPlot::addMarker(double x, const QString &label, int color, double textY)
{
    auto *line = new QCPItemStraightLine(this);
    line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    m_markers << line;
    m_markerColors << color;
    auto *text = new QCPItemText(this);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(x, textY);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setText(label);
    text->setFont(legend->font());
}

void KvPlot::drawSweep(const KvLabReport &r)
{
    const auto &s = r.sweep;
    if (s.c.empty())
        return;
    addSeries(tr("constOpt pow2 (UE8M0 scale)"), s.c, s.msePow2, 0);
    addSeries(tr("constOpt unrounded (FP32 scale)"), s.c, s.mseUnrounded, 1);
    m_interval = new QCPItemRect(this);
    for (auto *p : {m_interval->topLeft, m_interval->bottomRight}) {
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    m_interval->topLeft->setCoords(s.intervalLo, 0);
    m_interval->bottomRight->setCoords(s.intervalHi, 1);
    m_interval->setLayer(QStringLiteral("background"));
    addMarker(s.cStar, tr(" c* %1").arg(number(s.cStar)), 0, 0.02);
    addMarker(kPaperC, tr(" 0.156 (paper)"), -1, 0.14);
    addMarker(kPow2C, tr(" 0.195 (pow2)"), -2, 0.26);
}

void KvPlot::drawDistortion(const KvLabReport &r)
{
    int color = 0;
    for (const auto &d : r.distortion) {
        if (d.c.empty())
            continue;
        const QString what = d.source == "keys" ? tr("your keys, d = %1").arg(d.d) : tr("theory, d = %1").arg(d.d);
        addSeries(what, d.c, d.curve, color);
        // The reference lines share their curve's colour; the note below names their styles.
        addHLine(tr("FP4 /6, %1").arg(what), d.c.front(), d.c.back(), d.fp4Plain, color, Qt::DashLine)
            ->removeFromLegend();
        addHLine(tr("Lloyd–Max floor, %1").arg(what), d.c.front(), d.c.back(), d.lloydMax, color, Qt::DotLine)
            ->removeFromLegend();
        ++color;
    }
    if (m_graphs.isEmpty())
        return;
    auto *note = new QCPItemText(this);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.98, 0.02);
    note->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    note->setText(tr("solid: constOpt pow2 · dashed: FP4 /6 · dotted: Lloyd–Max floor"));
    note->setFont(legend->font());
}

void KvPlot::drawKurtosis(const KvLabReport &r)
{
    if (r.kurtosisBefore.empty())
        return;
    std::vector<double> x;
    for (std::size_t i = 0; i < r.kurtosisBefore.size(); ++i)
        x.push_back(i < r.layerIndex.size() ? r.layerIndex[i] : static_cast<double>(i));
    addSeries(tr("before the rotation"), x, r.kurtosisBefore, 0, Qt::SolidLine, true);
    addSeries(tr("after the rotation"), x, r.kurtosisAfter, 1, Qt::SolidLine, true);
}

void KvPlot::drawCodebook(const KvLabReport &r)
{
    auto row = [](const std::vector<double> &levels, double y) { return std::vector<double>(levels.size(), y); };
    if (r.theory.levels.empty())
        return;
    addSeries(tr("theory (exact law at d = %1)").arg(r.headDim), r.theory.levels, row(r.theory.levels, 2), 0, Qt::NoPen,
              true);
    if (!r.kShared.levels.empty())
        addSeries(tr("refit on K, shared"), r.kShared.levels, row(r.kShared.levels, 1), 1, Qt::NoPen, true);
    if (!r.vShared.levels.empty())
        addSeries(tr("refit on V, shared"), r.vShared.levels, row(r.vShared.levels, 0), 2, Qt::NoPen, true);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(2, tr("theory, d = %1").arg(r.headDim));
    ticker->addTick(1, tr("K refit"));
    ticker->addTick(0, tr("V refit"));
    yAxis->setTicker(ticker);
}

QList<double> KvPlot::markers() const
{
    QList<double> out;
    for (const auto *m : m_markers)
        out << m->point1->coords().x();
    return out;
}

std::pair<double, double> KvPlot::shadedInterval() const
{
    if (!m_interval)
        return {qQNaN(), qQNaN()};
    return {m_interval->topLeft->coords().x(), m_interval->bottomRight->coords().x()};
}

QCPGraph *KvPlot::graphNamed(const QString &name) const
{
    // A long name is elided in the legend (PlotWidget::finishData keeps it whole in "fullName").
    for (auto *g : m_graphs)
        if (g->name() == name || g->property("fullName").toString() == name)
            return g;
    return nullptr;
}

void KvPlot::recolor()
{
    const auto &p = palette();
    const QColor fg = p.color(QPalette::WindowText);
    for (int i = 0; i < m_graphs.size(); ++i) {
        const Style &s = m_styles[i];
        const QColor c = theme::configColor(s.color, p);
        QPen pen(c, s.pen == Qt::SolidLine ? 1.6 : 1.2);
        pen.setStyle(s.pen == Qt::NoPen ? Qt::SolidLine : s.pen);
        m_graphs[i]->setPen(pen);
        m_graphs[i]->setLineStyle(s.pen == Qt::NoPen ? QCPGraph::lsNone : QCPGraph::lsLine);
        m_graphs[i]->setScatterStyle(
            s.markers ? QCPScatterStyle(s.pen == Qt::NoPen ? QCPScatterStyle::ssDiamond : QCPScatterStyle::ssCircle, c,
                                        c, s.pen == Qt::NoPen ? 9 : 5)
                      : QCPScatterStyle());
    }
    for (int i = 0; i < m_markers.size(); ++i) {
        const int c = m_markerColors[i];
        QPen pen(c >= 0 ? theme::configColor(c, p) : fg, 1.2);
        pen.setStyle(c == -1 ? Qt::DotLine : c == -2 ? Qt::DashLine : Qt::SolidLine);
        m_markers[i]->setPen(pen);
    }
    if (m_interval) {
        QColor c = theme::configColor(0, p);
        c.setAlpha(45);
        m_interval->setPen(Qt::NoPen);
        m_interval->setBrush(c);
    }
    for (int i = 0; i < itemCount(); ++i)
        if (auto *t = qobject_cast<QCPItemText *>(item(i)))
            t->setColor(fg);
}

QString KvPlot::csv() const
{
    QString out = QStringLiteral("series,x,y\n");
    for (const auto *g : m_graphs) {
        QString name = g->name();
        name.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            out += QLatin1Char('"') + name + QStringLiteral("\",") + exact(it->key) + QLatin1Char(',') +
                   exact(it->value) + QLatin1Char('\n');
    }
    return out;
}

QString KvPlot::toolTipAt(const QPoint &pos) const
{
    if (!hasData() || !axisRect()->rect().contains(pos))
        return {};
    // The nearest drawn point of any series, within 20 pixels.
    double best = 20 * 20;
    QString text;
    for (const auto *g : m_graphs)
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            if (!std::isfinite(it->value))
                continue;
            const double dx = xAxis->coordToPixel(it->key) - pos.x(), dy = yAxis->coordToPixel(it->value) - pos.y();
            if (const double d2 = dx * dx + dy * dy; d2 < best) {
                best = d2;
                text = m_kind == Kind::Codebook ? tr("%1: %2").arg(g->name(), number(it->key))
                                                : tr("%1: %2, %3").arg(g->name(), number(it->key), number(it->value));
            }
        }
    return text;
}

} // namespace quantscope
