// SPDX-License-Identifier: MIT
#include "plotwidget.h"

#include <QFontMetrics>
#include <QPointer>

#include "languageswitch.h"

#include "palette.h"
#include "theme.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLocale>
#include <QMenu>
#include <QSaveFile>
#include <QSettings>
#include <QDate>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <memory>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace quantscope {

QList<double> toQList(const std::vector<double> &v)
{
    return QList<double>(v.begin(), v.end());
}

QList<double> toQListForLog(const std::vector<double> &v)
{
    QList<double> out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const double y : v)
        out.append(y > 0 ? y : qQNaN());
    return out;
}

namespace {

/// QCPAxisTickerLog whose labels use no locale (decimal commas, digit grouping) and one
/// notation: powers of ten as 10ⁿ.
class LocaleFreeLogTicker : public QCPAxisTickerLog {
public:
    /// With an axis: labels that would not fit its length side by side are thinned (every k-th
    /// kept, the ticks stay) — a base-2 batch axis 1 … 16384 on a laptop-width window.
    QPointer<QCPAxis> axis;
    /// The axis length the labels were last thinned for: QCustomPlot makes the ticks before a
    /// replot lays the plot out, so a changed layout needs one more (queued) replot.
    mutable double lastLength = -1;

    bool stale() const
    {
        if (!axis || !axis->axisRect())
            return false;
        const double now =
            axis->orientation() == Qt::Horizontal ? axis->axisRect()->width() : axis->axisRect()->height();
        return now != lastLength;
    }

    void generate(const QCPRange &range, const QLocale &locale, QChar formatChar, int precision, QVector<double> &ticks,
                  QVector<double> *subTicks, QVector<QString> *tickLabels) override
    {
        QCPAxisTickerLog::generate(range, locale, formatChar, precision, ticks, subTicks, tickLabels);
        // Less than a decade shown: QCustomPlot places linear ticks (0.05, 0.075, 0.1…). Then
        // every label is a plain number, so that one axis never mixes 10ⁿ with decimals.
        if (!tickLabels ||
            std::all_of(ticks.begin(), ticks.end(), [this](double t) { return PlotWidget::isPowerOf(t, logBase()); })) {
            thinToFit(ticks, tickLabels);
            return;
        }
        // The 64 ticks asked for (a label per decade) would be 64 linear labels over one another
        // here: every k-th, at most six.
        const qsizetype stride = std::max<qsizetype>(1, (ticks.size() + 5) / 6);
        QVector<double> kept;
        QVector<QString> labels;
        for (qsizetype i = 0; i < ticks.size() && i < tickLabels->size(); i += stride) {
            kept.push_back(ticks[i]);
            labels.push_back(QString::number(ticks[i], 'g', 3));
        }
        ticks = kept;
        *tickLabels = labels;
    }

protected:
    QString getTickLabel(double tick, const QLocale &, QChar, int) override
    {
        return PlotWidget::logTickLabel(tick, logBase());
    }

private:
    /// Blanks labels (not ticks) until the kept ones fit the axis length with a gap between them.
    void thinToFit(const QVector<double> &ticks, QVector<QString> *labels) const
    {
        if (!axis || !axis->axisRect() || !labels || labels->size() < 3)
            return;
        const bool horizontal = axis->orientation() == Qt::Horizontal;
        const double length = horizontal ? axis->axisRect()->width() : axis->axisRect()->height();
        lastLength = length;
        if (length <= 0)
            return;
        const QFontMetrics fm(axis->tickLabelFont());
        int widest = 0;
        for (const QString &l : *labels)
            widest = std::max(widest, horizontal ? fm.horizontalAdvance(l) : fm.height());
        const double need = widest + fm.horizontalAdvance(QLatin1Char('0')); // a digit's gap
        const double per = length / std::max<qsizetype>(1, ticks.size() - 1);
        const auto stride = static_cast<qsizetype>(std::ceil(need / std::max(per, 1.0)));
        if (stride <= 1)
            return;
        for (qsizetype i = 0; i < labels->size(); ++i)
            if (i % stride != 0)
                (*labels)[i].clear();
    }
};

QString superscript(long long n)
{
    static const QChar digits[] = {u'⁰', u'¹', u'²', u'³', u'⁴', u'⁵', u'⁶', u'⁷', u'⁸', u'⁹'};
    QString out = n < 0 ? QString(u'⁻') : QString();
    const QString plain = QString::number(n < 0 ? -n : n);
    for (const QChar c : plain)
        out += digits[c.digitValue()];
    return out;
}

} // namespace

QSharedPointer<QCPAxisTicker> PlotWidget::logTicker(double base, QCPAxis *axis)
{
    auto ticker = QSharedPointer<LocaleFreeLogTicker>::create();
    ticker->axis = axis;
    ticker->setLogBase(base);
    // A tick (and a label) at every power of the base: with QCustomPlot's default of 5 ticks an
    // axis over eight decades labelled every second one, and a short one stopped at 0.2 (issue 42).
    ticker->setTickCount(64);
    ticker->setSubTickCount(base == 10 ? 8 : 1);
    return ticker;
}

bool PlotWidget::isPowerOf(double tick, double base)
{
    if (!(tick > 0) || !(base > 1))
        return false;
    const double e = std::log(tick) / std::log(base);
    return std::abs(e - std::round(e)) < 1e-6;
}

QString PlotWidget::logTickLabel(double tick, double base)
{
    if (isPowerOf(tick, base)) {
        const double n = std::round(std::log(tick) / std::log(base));
        {
            // Powers of two from 1 up read as the integers they are (batch sizes).
            if (base == 2 && n >= 0 && n < 53)
                return QString::number(static_cast<long long>(std::llround(tick)));
            return QString::number(static_cast<long long>(std::llround(base))) + superscript(static_cast<long long>(n));
        }
    }
    return QString::number(tick, 'g', 3); // C notation whatever the locale
}

void PlotWidget::setLegendWanted(bool on)
{
    m_legendWanted = on;
    legend->setVisible(on && hasData());
    replot(rpQueuedReplot);
}

bool PlotWidget::hasData() const
{
    for (int i = 0; i < plottableCount(); ++i) {
        auto *p = const_cast<PlotWidget *>(this)->plottable(i); // QCustomPlot has no const getter
        if (auto *map = qobject_cast<QCPColorMap *>(p)) {
            if (!map->data()->isEmpty())
                return true;
        } else if (auto *d = p->interface1D()) {
            if (d->dataCount() > 0)
                return true;
        } else {
            return true;
        }
    }
    return false;
}

void PlotWidget::finishData()
{
    // A legend entry is at most kLegendTextPx wide: a long configuration label elides in its
    // middle (where labels that share a prefix differ at the end), so the legend, and with it
    // the window, does not grow with label length (issue 42). The whole name stays in the
    // plottable's "fullName" property (and in the hover tooltips).
    constexpr int kLegendTextPx = 120;
    const QFontMetrics fm(legend->font());
    for (int i = 0; i < plottableCount(); ++i) {
        auto *p = plottable(i);
        const QString name = p->name();
        const QString full = p->property("fullName").toString();
        if (!full.isEmpty() && name == fm.elidedText(full, Qt::ElideMiddle, kLegendTextPx))
            continue; // elided before
        if (fm.horizontalAdvance(name) <= kLegendTextPx) {
            p->setProperty("fullName", QVariant()); // a new name that fits
            continue;
        }
        p->setProperty("fullName", name);
        p->setName(fm.elidedText(name, Qt::ElideMiddle, kLegendTextPx));
    }
    const bool any = hasData();
    legend->setVisible(any && m_legendWanted && legend->itemCount() > 0);
    if (!any)
        for (auto *axis : axisRect()->axes())
            axis->setRange(axis->scaleType() == QCPAxis::stLogarithmic ? QCPRange(1, 10) : QCPRange(0, 1));
}

void PlotWidget::placeLegendAbove()
{
    if (legend->layout() != axisRect()->insetLayout())
        return;
    axisRect()->insetLayout()->take(legend);
    // A row of its own: the legend on the left, an empty element takes the rest of the width.
    auto *row = new QCPLayoutGrid;
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, row);
    plotLayout()->setRowStretchFactor(0, 0.001);
    row->addElement(0, 0, legend);
    row->addElement(0, 1, new QCPLayoutElement(this));
    row->setColumnStretchFactor(0, 0.001);
    row->setMargins(QMargins(0, 2, 0, 0));
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(2); // two entries a row: the legend stays narrower than a laptop's view area
    legend->setMargins(QMargins(6, 2, 6, 2));
}

PlotWidget::PlotWidget(QWidget *parent) : QCustomPlot(parent)
{
    setMinimumHeight(140);
    setNoAntialiasingOnDrag(true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    legend->setVisible(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    legend->setFont(small);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    // Log axes thin their labels to the axis length, which the layout sets after the ticks are
    // made: when it changed, one more replot (queued) thins them for the new length.
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        for (QCPAxis *a : axisRect()->axes())
            if (auto t = a->ticker().dynamicCast<LocaleFreeLogTicker>(); t && t->stale())
                replot(rpQueuedReplot);
    });
    applyAxesPalette(); // recolor() is the subclass's: it calls applyPalette() when built
}

PlotWidget::Format PlotWidget::formatForFile(const QString &file)
{
    const auto suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("svg"))
        return Format::Svg;
    if (suffix == QLatin1String("pdf"))
        return Format::Pdf;
    if (suffix == QLatin1String("csv"))
        return Format::Csv;
    return Format::Png;
}

namespace {

/// An exported file's title: the "exportTitle" property (a view sets the tensor, say) or the
/// plot's export name, the series drawn (whole names) and today's date.
QString exportTitleOf(PlotWidget *plot)
{
    // What the plot shows, the series it draws (the configurations, whole names) and the date.
    QStringList series;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        auto *p = plot->plottable(i);
        const QString full = p->property("fullName").toString();
        const QString name = full.isEmpty() ? p->name() : full;
        if (!name.isEmpty() && !series.contains(name) && p->visible())
            series << name;
    }
    const QString set = plot->property("exportTitle").toString();
    QString title = set.isEmpty() ? plot->exportName() : set;
    if (!series.isEmpty())
        title += QStringLiteral(" · ") + series.join(QStringLiteral(", "));
    return title + QStringLiteral(" · ") + QDate::currentDate().toString(Qt::ISODate);
}

} // namespace

bool PlotWidget::exportTo(const QString &file, Format format, QString *error)
{
    const int w = std::max(width(), 640), h = std::max(height(), 360);
    bool ok = false;
    // A file is printed or pasted into a document: a title and the light theme whatever the
    // window's (issue 42); the window's look comes back afterwards.
    std::unique_ptr<QCPTextElement> title;
    const QPalette shown = palette();
    const bool hadOwnPalette = testAttribute(Qt::WA_SetPalette);
    if (format != Format::Csv) {
        setPalette(theme::printPalette());
        applyPalette();
        plotLayout()->insertRow(0);
        title = std::make_unique<QCPTextElement>(this, exportTitleOf(this), QFont(font().family(), 10, QFont::Bold));
        title->setTextColor(Qt::black);
        plotLayout()->addElement(0, 0, title.get());
    }
    const auto restore = qScopeGuard([&] {
        if (!title)
            return;
        plotLayout()->take(title.get());
        plotLayout()->simplify();
        title.reset();
        if (hadOwnPalette)
            setPalette(shown);
        else {
            setPalette(QPalette());
            setAttribute(Qt::WA_SetPalette, false);
        }
        applyPalette();
        replot(rpQueuedReplot);
    });
    switch (format) {
    case Format::Png:
        ok = savePng(file, w, h, 2.0);
        break;
    case Format::Pdf:
        ok = savePdf(file, w, h, QCP::epNoCosmetic);
        break;
    case Format::Svg: {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(exportName());
        QCPPainter painter;
        if (painter.begin(&svg)) {
            toPainter(&painter, w, h);
            ok = painter.end();
        }
        ok = ok && QFileInfo(file).size() > 0;
        break;
    }
    case Format::Csv: {
        QSaveFile out(file);
        ok = out.open(QIODevice::WriteOnly | QIODevice::Text) && out.write(csv().toUtf8()) >= 0 && out.commit();
        break;
    }
    }
    if (!ok && error)
        *error = tr("Could not write “%1”.").arg(QDir::toNativeSeparators(file));
    return ok;
}

bool PlotWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const auto text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QCustomPlot::event(event);
}

void PlotWidget::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        replot(rpQueuedReplot);
    }
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QCustomPlot::changeEvent(event);
}

QList<QRectF> PlotWidget::placeLabels(const QList<QCPItemText *> &labels, const std::vector<int> &order,
                                      const QRectF &area)
{
    // The markers too: a label may not cover another point.
    QList<QPointF> markers;
    for (auto *l : labels)
        markers.append(l->position->pixelPosition());
    constexpr double kMarker = 4.0;
    // Where a label may sit, the first that fits wins: right of its point, left, then above or
    // below on either side (the free side of a rising or falling row of points).
    const Qt::Alignment places[] = {Qt::AlignLeft | Qt::AlignVCenter, Qt::AlignRight | Qt::AlignVCenter,
                                    Qt::AlignRight | Qt::AlignBottom, Qt::AlignLeft | Qt::AlignTop,
                                    Qt::AlignLeft | Qt::AlignBottom,  Qt::AlignRight | Qt::AlignTop};
    QList<QRectF> shown;
    for (int i : order) {
        auto *l = labels[i];
        const QPointF at = markers[i];
        const QFontMetricsF fm(l->font());
        const QMarginsF pad(l->padding());
        const QSizeF box(fm.horizontalAdvance(l->text()) + pad.left() + pad.right(),
                         fm.height() + pad.top() + pad.bottom());
        bool placed = false;
        for (const Qt::Alignment a : places) {
            // The box anchored at the point as QCPItemText anchors it (padding included).
            const double x = (a & Qt::AlignLeft) ? at.x() : at.x() - box.width();
            const double y = (a & Qt::AlignVCenter)  ? at.y() - box.height() / 2
                             : (a & Qt::AlignBottom) ? at.y() - box.height()
                                                     : at.y();
            const QRectF r(QPointF(x, y), box);
            bool fits = area.contains(r);
            for (int k = 0; fits && k < shown.size(); ++k)
                fits = !shown[k].intersects(r);
            for (int k = 0; fits && k < markers.size(); ++k)
                fits = k == i ||
                       !r.intersects(QRectF(markers[k] - QPointF(kMarker, kMarker), QSizeF(2 * kMarker, 2 * kMarker)));
            if (fits) {
                l->setPositionAlignment(a);
                shown.append(r);
                placed = true;
                break;
            }
        }
        l->setVisible(placed);
    }
    return shown;
}

QString PlotWidget::staleName(const QString &name)
{
    return tr("%1 (stale)").arg(name);
}

void PlotWidget::styleSeries(QCPGraph *graph, const QColor &color, double width, bool stale)
{
    QPen pen(color, width);
    if (stale) {
        pen.setStyle(Qt::DashLine);
        QColor fill = color;
        fill.setAlpha(110);
        graph->setBrush(QBrush(fill, Qt::BDiagPattern));
    } else {
        graph->setBrush(Qt::NoBrush);
    }
    graph->setPen(pen);
}

void PlotWidget::retranslate()
{
    // Axis titles, series names (the legend shows them), text elements and items: each was a
    // tr() text, so the language switch finds its source.
    for (auto *rect : axisRects())
        for (auto *axis : rect->axes())
            axis->setLabel(language::retranslated(axis->label(), this));
    for (int i = 0; i < plottableCount(); ++i)
        plottable(i)->setName(language::retranslated(plottable(i)->name(), this));
    for (int i = 0; i < itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(item(i)))
            text->setText(language::retranslated(text->text(), this));
    for (auto *element : plotLayout()->elements(true))
        if (auto *text = qobject_cast<QCPTextElement *>(element))
            text->setText(language::retranslated(text->text(), this));
    for (auto *element : plotLayout()->elements(true))
        if (auto *scale = qobject_cast<QCPColorScale *>(element); scale && scale->axis())
            scale->axis()->setLabel(language::retranslated(scale->axis()->label(), this));
    replot(rpQueuedReplot);
}

void PlotWidget::contextMenuEvent(QContextMenuEvent *event)
{
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    connect(menu->addAction(tr("Export as &PNG…")), &QAction::triggered, this, [this] { askAndExport(Format::Png); });
    connect(menu->addAction(tr("Export as &SVG…")), &QAction::triggered, this, [this] { askAndExport(Format::Svg); });
    connect(menu->addAction(tr("Export as P&DF…")), &QAction::triggered, this, [this] { askAndExport(Format::Pdf); });
    connect(menu->addAction(tr("Export Data as &CSV…")), &QAction::triggered, this,
            [this] { askAndExport(Format::Csv); });
    menu->addSeparator();
    connect(menu->addAction(tr("&Reset Zoom")), &QAction::triggered, this, [this] {
        rescaleAxes();
        finishData();
        replot();
    });
    menu->popup(event->globalPos());
}

void PlotWidget::askAndExport(Format format)
{
    static const char *const suffixes[] = {"png", "svg", "pdf", "csv"};
    const QString suffix = QLatin1String(suffixes[static_cast<int>(format)]);
    QString filter;
    switch (format) {
    case Format::Png:
        filter = tr("PNG images (*.png)");
        break;
    case Format::Svg:
        filter = tr("SVG drawings (*.svg)");
        break;
    case Format::Pdf:
        filter = tr("PDF documents (*.pdf)");
        break;
    case Format::Csv:
        filter = tr("CSV tables (*.csv)");
        break;
    }
    QSettings settings;
    const auto dir = settings.value(QStringLiteral("lastExportDir")).toString();
    auto *dialog = new QFileDialog(this, tr("Export Plot"), dir, filter);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(suffix);
    dialog->selectFile(exportName() + QLatin1Char('.') + suffix);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this, format](const QString &file) {
        QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(file).absolutePath());
        QString error;
        if (!exportTo(file, format, &error))
            QToolTip::showText(mapToGlobal(rect().center()), error, this);
    });
    dialog->open();
}

void PlotWidget::applyPalette()
{
    applyAxesPalette();
    recolor();
}

void PlotWidget::applyAxesPalette()
{
    const auto &p = palette();
    const QColor fg = p.color(QPalette::WindowText);
    QColor grid = fg;
    grid.setAlpha(40);
    setBackground(p.color(QPalette::Base));
    for (auto *axis : axisRect()->axes()) {
        axis->setBasePen(QPen(fg));
        axis->setTickPen(QPen(fg));
        axis->setSubTickPen(QPen(fg));
        axis->setTickLabelColor(fg);
        axis->setLabelColor(fg);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        axis->grid()->setSubGridVisible(false);
    }
    legend->setBrush(p.color(QPalette::Base));
    legend->setTextColor(fg);
    legend->setBorderPen(QPen(grid));
}

QString PlotWidget::number(double v)
{
    return QLocale().toString(v, 'g', 5);
}

QString PlotWidget::exact(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

} // namespace quantscope
