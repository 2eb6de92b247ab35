// SPDX-License-Identifier: MIT
// The window fixes of issue 23, each where it can fail: legends never cover data (the
// histogram and the outlier strip of the demo's tensor with outliers, every plotted point's
// pixel checked against the legend's rectangle), empty plots show no stale ranges or legends,
// log-axis tick labels read the same under de_DE and zh_CN as under en, a theme switch at run
// time restyles the filter box, a table and the plots, no label is cut off at the default
// window size, the columns of the tensor tree fit their content, the quantizer panel keeps its
// cards and "+ Add" in view and its form where it was scrolled, and the no-GPU wording
// follows the cause.
#include "test_env.h"
#include "channelplot.h"
#include "devicequery.h"
#include "distributionview.h"
#include "elidedlabel.h"
#include "errorhistogramplot.h"
#include "gemmtimingplot.h"
#include "histogramplot.h"
#include "kurtosischannelplot.h"
#include "mainwindow.h"
#include "overviewmodel.h"
#include "palette.h"
#include "paretoplot.h"
#include "plotwidget.h"
#include "overviewview.h"
#include "quant/quantizer.h"
#include "quantizerpanel.h"
#include "rankcurveplot.h"
#include "sigmaplot.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"
#include "theme.h"

#include <QApplication>
#include <QDate>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QSet>
#include <QTest>
#include <QTranslator>
#include <QToolButton>
#include <QTreeView>
#include <algorithm>
#include <array>
#include <cmath>

using namespace quantscope;

namespace {

bool waitIdle(MainWindow &w, int ms = 120000)
{
    return QTest::qWaitFor([&] { return !w.isBusy(); }, ms);
}

/// The demo opened and its quantization (the tensor with planted outlier channels) shown.
bool openDemoAndRun(MainWindow &w)
{
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openDemo();
    if (!loaded.wait(120000) || !loaded.first().first().toBool() || !waitIdle(w))
        return false;
    QSignalSpy finished(&w, &MainWindow::jobFinished);
    w.runDemoQuantization();
    return finished.wait(120000) && finished.first().first().toBool() && waitIdle(w);
}

/// Every finite data point of every graph, as widget pixels (points outside the visible
/// ranges are not drawn and skipped).
QList<QPointF> dataPixels(QCustomPlot *plot)
{
    QList<QPointF> out;
    for (int i = 0; i < plot->graphCount(); ++i) {
        auto *g = plot->graph(i);
        auto *k = g->keyAxis(), *v = g->valueAxis();
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            if (!std::isfinite(it->value) || !k->range().contains(it->key) || !v->range().contains(it->value))
                continue;
            const QPointF tip(k->coordToPixel(it->key), v->coordToPixel(it->value));
            out << tip;
            // An impulse (the channel strip) is its whole line down to the axis.
            if (g->lineStyle() == QCPGraph::lsImpulse) {
                const double base = v->coordToPixel(std::max(v->range().lower, 0.0));
                for (double y = tip.y(); y < base; y += 4)
                    out << QPointF(tip.x(), y);
            }
        }
    }
    return out;
}

/// The legend is shown, names something, and no data pixel lies inside its rectangle.
void checkLegendOffData(QCustomPlot *plot)
{
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot->legend->visible());
    QVERIFY(plot->legend->itemCount() > 0);
    const QRectF legend = plot->legend->outerRect();
    QVERIFY(legend.isValid());
    const auto pixels = dataPixels(plot);
    QVERIFY(pixels.size() > 10);
    for (const auto &p : pixels)
        QVERIFY2(!legend.contains(p), qPrintable(QStringLiteral("data point at (%1, %2) under the "
                                                                "legend")
                                                     .arg(p.x())
                                                     .arg(p.y())));
}

Series ramp(int n, double scale)
{
    Series s;
    for (int i = 0; i < n; ++i) {
        s.x.push_back(i);
        s.y.push_back(scale * (1 + i * i));
    }
    return s;
}

void checkEmpty(QCustomPlot *plot, const char *name)
{
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(!plot->legend->visible(), name);
    for (auto *axis : plot->axisRect()->axes()) {
        const QCPRange expected = axis->scaleType() == QCPAxis::stLogarithmic ? QCPRange(1, 10) : QCPRange(0, 1);
        QVERIFY2(axis->range() == expected, qPrintable(QStringLiteral("%1: axis range [%2, %3] kept after clearing")
                                                           .arg(QLatin1String(name))
                                                           .arg(axis->range().lower)
                                                           .arg(axis->range().upper)));
    }
}

/// The y axis tick labels of a log-scaled histogram and the x labels of the GEMM time plot
/// (base 2) made under `locale`.
QStringList logTickLabels(const QLocale &locale)
{
    QLocale::setDefault(locale);
    QStringList out;
    HistogramPlot h;
    h.setLocale(locale);
    h.resize(640, 420);
    Series w;
    for (int i = 0; i < 64; ++i) {
        w.x.push_back(-0.5 + i / 64.0);
        w.y.push_back(std::pow(10.0, 6.0 * std::exp(-std::pow((i - 32) / 8.0, 2))));
    }
    h.setData(w, {}, {}, -1, false, 0);
    h.replot(QCustomPlot::rpImmediateRefresh);
    for (const auto &s : h.yAxis->tickVectorLabels())
        out << s;
    GemmTimingPlot g(GemmTimingPlot::Quantity::TimeUs);
    g.setLocale(locale);
    g.resize(640, 420);
    GemmCurve c;
    c.format = "bf16";
    c.m = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    for (double m : c.m) {
        c.timeUs.push_back(0.003 * m + 0.0005);
        c.tflops.push_back(m);
    }
    g.setCurves({c});
    g.replot(QCustomPlot::rpImmediateRefresh);
    out << QStringLiteral("|");
    for (const auto &s : g.xAxis->tickVectorLabels())
        out << s;
    out << QStringLiteral("|");
    for (const auto &s : g.yAxis->tickVectorLabels())
        out << s;
    // Less than a decade (QCustomPlot then ticks linearly: 0.05, 0.075, 0.1, …).
    GemmTimingPlot narrow(GemmTimingPlot::Quantity::Tflops);
    narrow.setLocale(locale);
    narrow.resize(640, 420);
    GemmCurve n = c;
    for (std::size_t i = 0; i < n.m.size(); ++i)
        n.tflops[i] = 0.02 + 0.012 * static_cast<double>(i);
    narrow.setCurves({n});
    narrow.replot(QCustomPlot::rpImmediateRefresh);
    out << QStringLiteral("|");
    for (const auto &s : narrow.yAxis->tickVectorLabels())
        out << s;
    QLocale::setDefault(QLocale::c());
    return out;
}

/// Every shown label either wraps, elides with its whole text in the tooltip, or is as wide as its text; every line edit's placeholder
/// fits inside its text area (frame, margins and side buttons taken off).
void checkNothingCutOff(QWidget *window, const QString &where)
{
    for (auto *label : window->findChildren<QLabel *>()) {
        if (!label->isVisible() || label->text().isEmpty() || label->wordWrap() || !label->pixmap().isNull())
            continue;
        // An elided label (issue 42: it must not widen the window) shows its whole text in the tooltip.
        if (auto *elided = qobject_cast<ElidedLabel *>(label)) {
            QVERIFY2(!elided->isElided() || elided->toolTip().contains(elided->fullText()),
                     qPrintable(QStringLiteral("%1: “%2” is elided without its text in the tooltip")
                                    .arg(where, elided->fullText())));
            continue;
        }
        QVERIFY2(label->width() >= label->sizeHint().width(),
                 qPrintable(QStringLiteral("%1: “%2” is cut off: %3 px shown of %4")
                                .arg(where, label->text())
                                .arg(label->width())
                                .arg(label->sizeHint().width())));
    }
    for (auto *edit : window->findChildren<QLineEdit *>()) {
        if (!edit->isVisible() || edit->placeholderText().isEmpty())
            continue;
        QStyleOptionFrame opt;
        opt.initFrom(edit);
        opt.lineWidth = edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &opt, edit);
        int room = edit->style()->subElementRect(QStyle::SE_LineEditContents, &opt, edit).width() -
                   4; // QLineEdit's own horizontal margins
        for (auto *button : edit->findChildren<QToolButton *>())
            room -= button->width();
        const int need = edit->fontMetrics().horizontalAdvance(edit->placeholderText());
        QVERIFY2(room >= need, qPrintable(QStringLiteral("%1: placeholder “%2” is cut off: %3 px "
                                                         "for %4")
                                              .arg(where, edit->placeholderText())
                                              .arg(room)
                                              .arg(need)));
    }
}

/// sRGB → CIELAB (D65) after simulating a colour-vision deficiency (Machado et al. 2009,
/// severity 1; `m` null: normal vision).
std::array<double, 3> labSeen(const QColor &c, const double (*m)[3])
{
    auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    double l[3] = {lin(c.redF()), lin(c.greenF()), lin(c.blueF())};
    if (m) {
        double o[3];
        for (int i = 0; i < 3; ++i)
            o[i] = std::clamp(m[i][0] * l[0] + m[i][1] * l[1] + m[i][2] * l[2], 0.0, 1.0);
        std::copy(o, o + 3, l);
    }
    const double X = 0.4124 * l[0] + 0.3576 * l[1] + 0.1805 * l[2];
    const double Y = 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
    const double Z = 0.0193 * l[0] + 0.1192 * l[1] + 0.9505 * l[2];
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    const double fx = f(X / 0.95047), fy = f(Y), fz = f(Z / 1.08883);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

QColor pixelOf(QCustomPlot *plot)
{
    return plot->toPixmap(80, 60).toImage().pixelColor(2, 2);
}

} // namespace

class TestWindowLegibility : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_windowlegibility"));
    }

    void legendsNeverCoverData()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openDemoAndRun(w));
        auto *view = w.distributionView();
        w.viewTabs()->setCurrentWidget(view);
        QTest::qWait(50);
        for (bool logY : {true, false}) {
            view->histogramPlot()->setLogY(logY);
            checkLegendOffData(view->histogramPlot());
        }
        auto *strip = view->channelPlot();
        checkLegendOffData(strip);
        // The top channels (the planted outliers) in particular: each marker fully clear of
        // the legend, not just its centre.
        const QRectF legend = strip->legend->outerRect();
        QCPGraph *top = nullptr;
        for (int i = 0; i < strip->graphCount(); ++i)
            if (strip->graph(i)->lineStyle() == QCPGraph::lsNone)
                top = strip->graph(i);
        QVERIFY(top && !top->data()->isEmpty());
        for (auto it = top->data()->constBegin(); it != top->data()->constEnd(); ++it) {
            const QPointF p(strip->xAxis->coordToPixel(it->key), strip->yAxis->coordToPixel(it->value));
            QVERIFY(!legend.intersects(QRectF(p - QPointF(5, 5), QSizeF(10, 10))));
        }
    }

    void emptyPlotsShowNoStaleRangesOrLegends()
    {
        HistogramPlot h;
        h.setData(ramp(50, 3), {{QStringLiteral("A"), 0, ramp(50, 2)}}, {}, -1, false, 0);
        QVERIFY(h.legend->visible());
        h.clearData();
        checkEmpty(&h, "histogram");

        ErrorHistogramPlot e;
        e.setData({{QStringLiteral("A"), 0, ramp(40, 5)}});
        QVERIFY(e.legend->visible());
        e.clearData();
        checkEmpty(&e, "error histogram");

        ChannelPlot c;
        c.setData(ramp(30, 1), ramp(3, 50), 2.0, 1, std::nullopt, {});
        QVERIFY(c.legend->visible());
        c.clearData();
        checkEmpty(&c, "channel strip");

        KurtosisChannelPlot k;
        k.setData({1, 2, 30, 4}, {2}, 1, false);
        QVERIFY(k.legend->visible());
        k.clearData();
        checkEmpty(&k, "kurtosis strip");

        RankCurvePlot r(QStringLiteral("r"), QStringLiteral("y"), QStringLiteral("rank"), true);
        r.setData({{QStringLiteral("A"), 0, ramp(20, 1)}});
        QVERIFY(r.legend->visible());
        r.clearData();
        checkEmpty(&r, "rank curve");

        SigmaPlot s;
        s.setData({{QStringLiteral("A"), 0, ramp(20, 1)}}, 0.1);
        QVERIFY(s.legend->visible());
        s.clearData();
        checkEmpty(&s, "sigma");

        GemmTimingPlot g(GemmTimingPlot::Quantity::Tflops);
        GemmCurve curve;
        curve.format = "fp8";
        curve.m = {1, 16, 256};
        curve.timeUs = {5, 6, 40};
        curve.tflops = {1, 15, 200};
        g.setCurves({curve});
        QVERIFY(g.legend->visible());
        g.clearData();
        checkEmpty(&g, "GEMM timing");

        // A view that hides a legend keeps it hidden with data too.
        RankCurvePlot hidden(QStringLiteral("r"), QStringLiteral("y"), QStringLiteral("rank"), true);
        hidden.setLegendWanted(false);
        hidden.setData({{QStringLiteral("A"), 0, ramp(20, 1)}});
        QVERIFY(!hidden.legend->visible());
    }

    void logTickLabelsReadTheSameInEveryLocale()
    {
        // The notation itself, worked out by hand.
        QCOMPARE(PlotWidget::logTickLabel(1e-3, 10), QStringLiteral("10⁻³"));
        QCOMPARE(PlotWidget::logTickLabel(1e6, 10), QStringLiteral("10⁶"));
        QCOMPARE(PlotWidget::logTickLabel(1, 10), QStringLiteral("10⁰"));
        QCOMPARE(PlotWidget::logTickLabel(256, 2), QStringLiteral("256"));
        QCOMPARE(PlotWidget::logTickLabel(0.25, 2), QStringLiteral("2⁻²"));

        const auto en = logTickLabels(QLocale(QLocale::English, QLocale::UnitedStates));
        QVERIFY(en.size() > 6);
        QVERIFY(en.contains(QStringLiteral("10³")));
        QVERIFY(en.contains(QStringLiteral("1024")) || en.contains(QStringLiteral("512")));
        // No axis mixes 10ⁿ with decimals.
        for (const auto &axis : en.join(QLatin1Char(' ')).split(QLatin1Char('|'))) {
            const bool powers = axis.contains(QRegularExpression(QStringLiteral("[⁰¹²³⁴⁵⁶⁷⁸⁹]")));
            QVERIFY2(!(powers && axis.contains(QLatin1Char('.'))), qPrintable(axis));
        }
        QCOMPARE(logTickLabels(QLocale(QLocale::German, QLocale::Germany)), en);
        QCOMPARE(logTickLabels(QLocale(QLocale::Chinese, QLocale::China)), en);

        // An axis over 1.5 decades (0.004 to 0.12 TFLOP/s, as the CPU's GEMMs give): QCustomPlot
        // falls back to linear ticks there, which with a tick per decade asked for became dozens
        // of labels over one another; at most six, plain numbers.
        HistogramPlot narrow;
        narrow.resize(640, 420);
        narrow.yAxis->setScaleType(QCPAxis::stLogarithmic);
        narrow.yAxis->setTicker(PlotWidget::logTicker());
        narrow.yAxis->setRange(0.004, 0.12);
        narrow.replot(QCustomPlot::rpImmediateRefresh);
        const auto labels = narrow.yAxis->tickVectorLabels();
        QVERIFY2(!labels.isEmpty() && labels.size() <= 8,
                 qPrintable(QStringList(labels.begin(), labels.end()).join(QLatin1Char(' '))));
    }

    void themeSwitchRestylesEveryWidget()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        theme::apply(theme::Mode::Light);
        QApplication::processEvents();
        auto *filter = w.browser()->findChild<QLineEdit *>();
        QVERIFY(filter);
        // An invalid, then a valid pattern: the path that used to freeze the box's colours.
        w.browser()->setFilter(QStringLiteral("(("), true);
        w.browser()->setFilter(QString(), false);
        auto *plot = w.distributionView()->histogramPlot();
        auto *table = w.overviewView()->table();
        const QColor filterBase = filter->palette().color(QPalette::Base);
        const QColor filterText = filter->palette().color(QPalette::Text);
        const QColor tableBase = table->palette().color(QPalette::Base);
        const QColor plotBackground = pixelOf(plot);
        const QColor axisColour = plot->xAxis->basePen().color();

        theme::apply(theme::Mode::Dark);
        QApplication::processEvents();
        QApplication::processEvents();
        const QPalette dark = QApplication::palette();
        QVERIFY(theme::isDark(dark));
        QCOMPARE(filter->palette().color(QPalette::Base), dark.color(QPalette::Base));
        QCOMPARE(filter->palette().color(QPalette::Text), dark.color(QPalette::Text));
        QVERIFY(filter->palette().color(QPalette::Base) != filterBase);
        QVERIFY(filter->palette().color(QPalette::Text) != filterText);
        QVERIFY(table->palette().color(QPalette::Base) != tableBase);
        QVERIFY(pixelOf(plot) != plotBackground);
        QCOMPARE(pixelOf(plot), dark.color(QPalette::Base));
        QVERIFY(plot->xAxis->basePen().color() != axisColour);
        QCOMPARE(plot->legend->brush().color(), dark.color(QPalette::Base));

        // An invalid pattern is still shown in red in the dark theme, and clearing it returns
        // to the theme's text colour.
        w.browser()->setFilter(QStringLiteral("(("), true);
        QCOMPARE(filter->palette().color(QPalette::Text), QColor(Qt::red));
        w.browser()->setFilter(QString(), false);
        QCOMPARE(filter->palette().color(QPalette::Text), dark.color(QPalette::Text));
        theme::apply(theme::Mode::Light);
        QApplication::processEvents();
        QCOMPARE(filter->palette().color(QPalette::Base), QApplication::palette().color(QPalette::Base));
    }

    void noLabelIsCutOffAndColumnsFitTheirContent()
    {
        MainWindow w;
        w.show(); // the default size
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openDemoAndRun(w));
        for (int t = 0; t < w.viewTabs()->count(); ++t) {
            w.viewTabs()->setCurrentIndex(t);
            QTest::qWait(20);
            checkNothingCutOff(&w, w.viewTabs()->tabText(t));
        }
        // The tensor tree: every column but the (long, user-sized) name column and the last
        // (stretched) one fits its content.
        auto *tree = w.browser()->findChild<QTreeView *>();
        QVERIFY(tree);
        tree->expandAll();
        QApplication::processEvents();
        auto *header = tree->header();
        for (int c = 1; c < header->count() - 1; ++c) {
            if (header->isSectionHidden(c))
                continue;
            QVERIFY2(header->sectionSize(c) >= static_cast<QAbstractItemView *>(tree)->sizeHintForColumn(c),
                     qPrintable(QStringLiteral("column %1: %2 px for %3 px of content")
                                    .arg(c)
                                    .arg(header->sectionSize(c))
                                    .arg(static_cast<QAbstractItemView *>(tree)->sizeHintForColumn(c))));
        }
    }

    void noHintCutOffInGermanOrChinese()
    {
        for (const char *lang : {"de", "zh_CN"}) {
            QTranslator translator;
            QVERIFY(translator.load(QStringLiteral(QUANTSCOPE_QM_DIR "/quantscope_%1.qm").arg(QLatin1String(lang))));
            QCoreApplication::installTranslator(&translator);
            {
                MainWindow w;
                w.show();
                QVERIFY(QTest::qWaitForWindowExposed(&w));
                QVERIFY(openDemoAndRun(w));
                for (int t = 0; t < w.viewTabs()->count(); ++t) {
                    w.viewTabs()->setCurrentIndex(t);
                    QTest::qWait(20);
                    checkNothingCutOff(&w, QLatin1String(lang) + QLatin1Char(' ') + w.viewTabs()->tabText(t));
                }
                // The longer labels leave room for the configuration's form.
                const int shown = w.quantizerPanel()->formArea()->viewport()->width();
                QVERIFY2(shown >= 110, qPrintable(QStringLiteral("%1: %2 px of the configuration "
                                                                 "form shown")
                                                      .arg(QLatin1String(lang))
                                                      .arg(shown)));
            }
            QCoreApplication::removeTranslator(&translator);
        }
    }

    // The redesigned panel (issue 42): every configuration's card and "+ Add" stay in view in a
    // narrow dock, and rebuilding the form (a granularity change shows other fields) never
    // scrolls it back to the top.
    void quantizerCardsStayInViewAndTheFormNeverScrollsBack()
    {
        QuantizerPanel panel(quantizerMethods());
        panel.setConfigurations({{"A", {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 64}}},
                                 {"B", {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}}},
                                 {"C", {{"method", "int"}, {"bits", 3}, {"granularity", "group"}, {"group", 32}}}});
        panel.resize(300, 520);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QApplication::processEvents();
        QToolButton *add = nullptr;
        for (auto *b : panel.findChildren<QToolButton *>())
            if (b->text() == QObject::tr("+ Add"))
                add = b;
        QVERIFY(add);
        const QRect panelRect = panel.rect();
        for (QWidget *w : {static_cast<QWidget *>(panel.card(0)), static_cast<QWidget *>(panel.card(1)),
                           static_cast<QWidget *>(panel.card(2)), static_cast<QWidget *>(add)}) {
            QVERIFY(w && w->isVisible());
            const QRect r(w->mapTo(&panel, QPoint(0, 0)), w->size());
            QVERIFY2(panelRect.contains(r), qPrintable(QLatin1String(w->metaObject()->className())));
        }
        // The form scrolls (an INT configuration has a dozen fields) and keeps its place.
        auto *bar = panel.formArea()->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "an INT form in 520 px should scroll");
        bar->setValue(bar->maximum());
        const int scrolled = bar->value();
        QVERIFY(scrolled > 0);
        auto *granularity = qobject_cast<QComboBox *>(panel.editor(0, QStringLiteral("granularity")));
        QVERIFY(granularity);
        granularity->setCurrentIndex(granularity->findData(QStringLiteral("channel")));
        QTRY_VERIFY(!panel.editor(0, QStringLiteral("group"))); // the form was rebuilt
        QTest::qWait(50);
        QVERIFY2(bar->value() >= std::min(scrolled, bar->maximum()),
                 qPrintable(QStringLiteral("scrolled back from %1 to %2").arg(scrolled).arg(bar->value())));
        QVERIFY(bar->value() > 0);
        // Only the edited configuration's fields: one editor per field of its method.
        QVERIFY(panel.editor(0, QStringLiteral("bits")));
        QVERIFY(!panel.editor(0, QStringLiteral("rank"))); // MiLo's, not INT's
    }

    // Issue 42: the Budget sweep's eight families had four colours (INT4 and MXFP4 both orange).
    // Eight configuration colours, every pair (and W's grey) apart for normal vision and the
    // three simulated colour-vision deficiencies, in the light and the dark palette; each index
    // its own marker; a sweep of eight families draws eight different colour–marker pairs.
    void paletteGivesEightFamiliesTheirOwnColourAndMarker()
    {
        static const double protan[3][3] = {
            {0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}};
        static const double deutan[3][3] = {
            {0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};
        static const double tritan[3][3] = {
            {1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}};
        for (auto mode : {theme::Mode::Light, theme::Mode::Dark}) {
            theme::apply(mode);
            const QPalette pal = QApplication::palette();
            QList<QColor> colours;
            for (int i = 0; i < theme::kConfigColors; ++i)
                colours << theme::configColor(i, pal);
            QCOMPARE(theme::kConfigColors, 8);
            colours << theme::weightColor(pal);
            for (const double(*m)[3] : {static_cast<const double(*)[3]>(nullptr), protan, deutan, tritan})
                for (int a = 0; a < colours.size(); ++a)
                    for (int b = a + 1; b < colours.size(); ++b) {
                        const auto la = labSeen(colours[a], m), lb = labSeen(colours[b], m);
                        const double d = std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
                        QVERIFY2(
                            d >= 10,
                            qPrintable(
                                QStringLiteral("%1 and %2: ΔE %3").arg(colours[a].name(), colours[b].name()).arg(d)));
                    }
            QSet<int> shapes;
            for (int i = 0; i < theme::kConfigColors; ++i)
                shapes.insert(static_cast<int>(theme::configMarker(i)));
            QCOMPARE(shapes.size(), theme::kConfigColors);
        }
        theme::apply(theme::Mode::Light);
        ParetoPlot plot(ParetoPlot::Kind::Sweep);
        std::vector<ParetoCurve> curves;
        for (const char *family : {"INT4", "INT8", "FP8", "MXFP4", "NVFP4", "HQQ", "MiLo", "constOpt"})
            curves.push_back({family, {4, 5, 6}, {1e-3, 5e-4, 2e-4}, {}});
        plot.setCurves(curves);
        QSet<QString> pairs;
        for (int i = 0; i < plot.graphCount(); ++i)
            if (plot.graph(i) != plot.markGraph())
                pairs.insert(plot.graph(i)->pen().color().name() + QLatin1Char('/') +
                             QString::number(plot.graph(i)->scatterStyle().shape()));
        QCOMPARE(pairs.size(), 8);
        QSet<QString> colourOnly;
        for (const auto &p : pairs)
            colourOnly.insert(p.section(QLatin1Char('/'), 0, 0));
        QCOMPARE(colourOnly.size(), 8);
    }

    // Every decade of a log axis has its label (QCustomPlot's default skipped every second one
    // over eight decades).
    void logAxesLabelEveryDecade()
    {
        QCustomPlot plot;
        plot.resize(640, 900);
        plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.yAxis->setTicker(PlotWidget::logTicker());
        plot.yAxis->setRange(1e-7, 1e2);
        plot.replot(QCustomPlot::rpImmediateRefresh);
        const auto labels = plot.yAxis->tickVectorLabels();
        for (int e = -7; e <= 2; ++e) {
            const QString want = PlotWidget::logTickLabel(std::pow(10.0, e), 10);
            QVERIFY2(labels.contains(want), qPrintable(want + QStringLiteral(" missing from ") +
                                                       QStringList(labels.begin(), labels.end()).join(u' ')));
        }
    }

    // Exported files have a title (what, the configurations, the date) and the light print
    // theme although the window is dark; the window keeps its dark look afterwards.
    void exportsHaveATitleAndThePrintTheme()
    {
        theme::apply(theme::Mode::Dark);
        ParetoPlot plot(ParetoPlot::Kind::Sweep);
        plot.resize(640, 400);
        plot.setProperty("exportTitle", QStringLiteral("model.layers.0.q_proj.weight"));
        plot.setCurves({{"INT4 g128", {4, 5}, {1e-3, 5e-4}, {}}, {"MXFP4", {4.25, 5}, {2e-3, 6e-4}, {}}});
        const QColor darkBase = plot.palette().color(QPalette::Base);
        QVERIFY(theme::isDark(plot.palette()));
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("sweep.svg"));
        QVERIFY(plot.exportTo(svg, PlotWidget::Format::Svg));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        for (const QString &want : {QStringLiteral("model.layers.0.q_proj.weight"), QStringLiteral("INT4 g128"),
                                    QDate::currentDate().toString(Qt::ISODate)})
            QVERIFY2(text.contains(want), qPrintable(want));
        QVERIFY2(text.contains(QStringLiteral("#ffffff")), "no white background");
        QVERIFY2(!text.contains(darkBase.name()), qPrintable(darkBase.name()));
        const QString png = dir.filePath(QStringLiteral("sweep.png"));
        QVERIFY(plot.exportTo(png, PlotWidget::Format::Png));
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY2(image.pixelColor(3, image.height() - 3).lightness() > 240,
                 qPrintable(image.pixelColor(3, image.height() - 3).name()));
        // The window's look is back.
        QCOMPARE(plot.palette().color(QPalette::Base), darkBase);
        theme::apply(theme::Mode::Light);
    }

    void runsOnTooSmallTensorsAreNoWinners()
    {
        auto r = std::make_shared<QuantizeJobResult>();
        TensorProfile p;
        p.tensor = "model.norm_like.weight";
        p.shape = {8, 32};
        r->tensors.push_back(p);
        const double rel[3] = {0.01, 0.1, 0.5};
        const int group[3] = {128, 32, 16};
        for (int i = 0; i < 3; ++i) {
            QuantizeOutcome o;
            o.tensor = p.tensor;
            o.config = std::string(1, static_cast<char>('A' + i));
            o.spec = {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", group[i]}};
            o.device = "cpu";
            o.metrics.relFrobenius = rel[i];
            o.metrics.statsIn.finiteCount = 256;
            r->outcomes.push_back(o);
        }
        OverviewView view;
        view.setResults(r);
        auto *model = view.proxy();
        QCOMPARE(model->rowCount(), 3);
        int noted = 0;
        for (int row = 0; row < 3; ++row) {
            const auto idx = model->index(row, OverviewModel::RelError);
            const bool tooSmall =
                model->index(row, OverviewModel::Config).data().toString().startsWith(QStringLiteral("⚠"));
            noted += tooSmall ? 1 : 0;
            // The group-128 run has the smallest error, yet is not tinted as the best.
            QCOMPARE(idx.data(Qt::BackgroundRole).isValid(), !tooSmall);
        }
        QCOMPARE(noted, 1);
        bool said = false;
        for (auto *l : view.findChildren<QLabel *>())
            said = said || l->text().contains(QStringLiteral("1 run(s) on tensors too small"));
        QVERIFY(said);
    }

    void noGpuWordingFollowsTheCause()
    {
        const QString detail = QStringLiteral("CUDA driver version is insufficient");
        QCOMPARE(noGpuText(GpuCause::NoDevice, QStringLiteral("NVIDIA"), detail),
                 QStringLiteral("No NVIDIA GPU found"));
        const auto mismatch = noGpuText(GpuCause::DriverMismatch, QStringLiteral("NVIDIA"), detail);
        QVERIFY(mismatch.contains(QStringLiteral("present")));
        QVERIFY(mismatch.contains(QStringLiteral("driver")));
        QVERIFY(mismatch.contains(detail));
        for (auto c : {GpuCause::NoDevice, GpuCause::BuiltWithout})
            QVERIFY(!noGpuText(c, QStringLiteral("NVIDIA"), detail).contains(QStringLiteral("driver")));
        QVERIFY(noGpuText(GpuCause::StartFailed, QStringLiteral("NVIDIA"), detail).contains(detail));
        QVERIFY(noGpuText(GpuCause::Available, QStringLiteral("NVIDIA"), detail).isEmpty());
        // The window's tooltip for "GPU" in the device list says the same.
        const auto q = queryDevice();
        QVERIFY(q.error.isEmpty());
        if (!q.gpu)
            QVERIFY(!noGpuText(q.gpuCause, q.gpuVendor, q.gpuReason).isEmpty());
    }
};

QTEST_MAIN(TestWindowLegibility)
#include "tst_windowlegibility.moc"
