// SPDX-License-Identifier: MIT
// The GEMM timing tab (issue 21 item 6): each plot draws exactly one point per point of the
// result (the values of the struct, per format), exports PNG/SVG/PDF/CSV, has value tooltips and
// follows the palette; in the real window the job times the selected tensor's N×K in the
// background (Cancel stops it) with the N, K and points `quantscope-cli gemm-bench` gives.
#include "test_env.h"
#include "analysiscontroller.h"
#include "demo/demo.h"
#include "gemmtimingplot.h"
#include "gemmtimingview.h"
#include "jobprogresswidget.h"
#include "mainwindow.h"
#include "moebarsplot.h"
#include "rooflineplot.h"
#include "sim/gemm_roofline.h"
#include "tensorbrowser.h"
#include "theme.h"
#include "coremessages.h"

#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace quantscope;

namespace {

const QString kTensor = QStringLiteral("model.layers.0.mlp.down_proj.weight"); // [1024, 2816]

/// A result as the GPU gives it: four formats, INT8 padded at M = 1.
GemmBenchResult sample()
{
    const char *text = R"({"device": "cuda:0", "points": [
      {"format": "bf16", "m": 1, "n": 4096, "k": 14336, "time_us": 56.1, "cold_us": 900, "tflops": 2.09, "gbps": 2100, "padded": false},
      {"format": "bf16", "m": 64, "n": 4096, "k": 14336, "time_us": 58.0, "cold_us": 800, "tflops": 129.6, "gbps": 2050, "padded": false},
      {"format": "bf16", "m": 8192, "n": 4096, "k": 14336, "time_us": 1375, "cold_us": 1600, "tflops": 699.8, "gbps": 300, "padded": false},
      {"format": "fp8", "m": 1, "n": 4096, "k": 14336, "time_us": 35.0, "cold_us": 700, "tflops": 3.35, "gbps": 1700, "padded": false},
      {"format": "fp8", "m": 8192, "n": 4096, "k": 14336, "time_us": 782, "cold_us": 990, "tflops": 1230, "gbps": 280, "padded": false},
      {"format": "fp8-rowwise", "m": 64, "n": 4096, "k": 14336, "time_us": 47.0, "cold_us": 650, "tflops": 160, "gbps": 1300, "padded": false},
      {"format": "int8", "m": 1, "n": 4096, "k": 14336, "time_us": 40.0, "cold_us": 500, "tflops": 2.9, "gbps": 1500, "padded": true, "padded_m": 4}
    ]})";
    return gemmBenchFromJson(nlohmann::json::parse(text));
}

/// Every point of `r` is drawn once in `plot`, at (m, time or TFLOP/s).
void expectDrawsEveryPoint(const GemmTimingPlot *plot, const GemmBenchResult &r)
{
    QCOMPARE(plot->pointCount(), static_cast<int>(r.points.size()));
    for (const auto &p : r.points) {
        const QCPGraph *g = plot->curveGraph(QString::fromStdString(p.format));
        QVERIFY(g);
        const double y = plot->quantity() == GemmTimingPlot::Quantity::TimeUs ? p.timeUs : p.tflops;
        int found = 0;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            found += it->key == static_cast<double>(p.m) && it->value == y;
        QCOMPARE(found, 1);
    }
}

bool waitIdle(MainWindow &w, int ms = 180000)
{
    return QTest::qWaitFor([&] { return !w.isBusy(); }, ms);
}

} // namespace

class TestGemmTimingView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_gemmtimingview"));
    }

    void drawsOnePointPerResultPoint()
    {
        GemmTimingView view;
        view.resize(1200, 600);
        view.show();
        const auto r = std::make_shared<const GemmBenchResult>(sample());
        view.setResult(r, QStringLiteral("w"));
        for (const GemmTimingPlot *plot : {view.timePlot(), view.tflopsPlot()})
            expectDrawsEveryPoint(plot, *r);
        QVERIFY(view.timePlot()->xAxis->scaleType() == QCPAxis::stLogarithmic);
        QVERIFY(view.summary()->text().contains(QStringLiteral("4096")));
        // CSV: a header and one row per point; the padded point says its M.
        const QStringList rows = view.timePlot()->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), static_cast<int>(r->points.size()) + 1);
        QVERIFY(rows.contains(QStringLiteral("int8,1,4,40")));
        QTemporaryDir out;
        for (GemmTimingPlot *plot : {view.timePlot(), view.tflopsPlot()})
            for (const char *ext : {"png", "svg", "pdf", "csv"}) {
                const QString file = out.filePath(plot->exportName() + QLatin1Char('.') + QLatin1String(ext));
                QVERIFY(plot->exportTo(file, PlotWidget::formatForFile(file)));
                QVERIFY(QFileInfo(file).size() > 0);
            }
        // A tooltip at a drawn point names its values; far from every point, none.
        auto *tp = view.timePlot();
        tp->replot();
        const QPoint at(static_cast<int>(tp->xAxis->coordToPixel(8192)),
                        static_cast<int>(tp->yAxis->coordToPixel(1375)));
        QVERIFY(tp->toolTipAt(at).contains(QStringLiteral("bf16")));
        QVERIFY(tp->toolTipAt(at).contains(QStringLiteral("8192")));
        const QPoint padded(static_cast<int>(tp->xAxis->coordToPixel(1)),
                            static_cast<int>(tp->yAxis->coordToPixel(40)));
        QVERIFY(tp->toolTipAt(padded).contains(QStringLiteral("M = 4")));
        // A new result replaces the old one (no stale curves).
        GemmBenchResult one;
        one.device = "cpu";
        one.points = {r->points.front()};
        one.points[0].format = kCpuGemmFormat;
        view.setResult(std::make_shared<const GemmBenchResult>(one), QString());
        expectDrawsEveryPoint(view.tflopsPlot(), one);
        QVERIFY(!view.tflopsPlot()->curveGraph(QStringLiteral("bf16")));
        // The palette recolours the curves.
        QPalette dark = view.palette();
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        view.setPalette(dark);
        QCOMPARE(view.timePlot()->curveGraph(QString::fromLatin1(kCpuGemmFormat))->pen().color(),
                 theme::configColor(0, view.timePlot()->palette()));
    }

    // Issue 42: the base-2 M axis (1 … 8192 here) labels every power of two when there is room and
    // thins its labels (never its ticks) when there is not: no two drawn labels overlap.
    void batchAxisLabelsNeverOverlap()
    {
        const auto r = std::make_shared<const GemmBenchResult>(sample());
        for (const int width : {1600, 520, 300}) {
            GemmTimingView view;
            view.resize(width, 500);
            view.show();
            view.setResult(r, QStringLiteral("w"));
            GemmTimingPlot *plot = view.timePlot();
            plot->replot(); // the layout settles, then the labels are thinned for it
            plot->replot();
            const QVector<double> ticks = plot->xAxis->tickVector();
            const QVector<QString> labels = plot->xAxis->tickVectorLabels();
            QCOMPARE(labels.size(), ticks.size());
            const QFontMetrics fm(plot->xAxis->tickLabelFont());
            double lastRight = -1e9;
            int drawn = 0;
            for (qsizetype i = 0; i < ticks.size(); ++i) {
                const double x = plot->xAxis->coordToPixel(ticks[i]);
                if (labels[i].isEmpty() || x < plot->axisRect()->left() - 1 || x > plot->axisRect()->right() + 1)
                    continue;
                const double half = fm.horizontalAdvance(labels[i]) / 2.0;
                QVERIFY2(
                    x - half > lastRight,
                    qPrintable(QStringLiteral("width %1: label %2 overlaps the one before").arg(width).arg(labels[i])));
                lastRight = x + half;
                ++drawn;
            }
            QVERIFY2(drawn >= 3, qPrintable(QStringLiteral("width %1: %2 labels").arg(width).arg(drawn)));
            if (width == 1600) // room for every power of two from 1 to 8192
                QVERIFY2(drawn >= 14, qPrintable(QStringLiteral("%1 labels at 1600 px").arg(drawn)));
        }
    }

    // Issue 22: every point of the result that has a bound sits on the roofline at (intensity,
    // TFLOP/s) with its bound label; the MoE bars show each mode's time per step; both export.
    void rooflineLabelsEveryPointWithItsBound()
    {
        GemmBenchResult r = sample();
        r.peaks = GemmPeaks{"H100 | test", 3000, {{"bf16", 700}, {"fp8", 1400}, {"int8", 1300}}, "measured", ""};
        for (auto &p : r.points) {
            setGemmRates(p);
            // The timed runs' spread: the fastest 10 % below the median, the slowest 20 % above.
            p.timeMinUs = 0.9 * p.timeUs;
            p.timeMaxUs = 1.2 * p.timeUs;
        }
        placeOnRoofline(r);
        GemmTimingView view;
        view.resize(1200, 900);
        view.show();
        view.setResult(std::make_shared<const GemmBenchResult>(r), QStringLiteral("w"));
        const RooflinePlot *plot = view.rooflinePlot();
        QCOMPARE(plot->view().points.size(), r.points.size());
        int memory = 0, compute = 0;
        for (std::size_t i = 0; i < plot->view().points.size(); ++i) {
            const auto &v = plot->view().points[i];
            const auto it = std::find_if(r.points.begin(), r.points.end(),
                                         [&](const GemmPoint &p) { return p.series() == v.series && p.m == v.m; });
            QVERIFY(it != r.points.end());
            QVERIFY(it->bound == "memory" || it->bound == "compute");
            (it->bound == "memory" ? memory : compute)++;
            const QString label = plot->boundLabel(i);
            QVERIFY2(label.startsWith(it->bound == "memory" ? RooflinePlot::tr("memory") : RooflinePlot::tr("compute")),
                     qPrintable(label));
            QCOMPARE(label, RooflinePlot::labelFor(it->bound, it->fractionOfCeiling));
            QCOMPARE(plot->boundLabelAnchor(i), QPointF(it->intensity, it->tflops));
        }
        QVERIFY(memory > 0 && compute > 0); // M = 1 streams the weights; M = 8192 is compute bound
        // Issue 42: no point above its ceiling, and each point's run-to-run spread as an error bar.
        for (const auto &v : plot->view().points) {
            QVERIFY2(v.fraction <= 1.0 + 1e-9, qPrintable(QString::fromStdString(v.series)));
            QVERIFY(std::abs(v.tflopsHigh - v.tflops / 0.9) < 1e-9 * v.tflops);
            QVERIFY(std::abs(v.tflopsLow - v.tflops / 1.2) < 1e-9 * v.tflops);
        }
        QVERIFY(!plot->spreadBars().empty());
        int bars = 0;
        for (const auto *b : plot->spreadBars()) {
            bars += b->dataCount();
            for (int i = 0; i < b->dataCount(); ++i) {
                const double value = b->dataPlottable()->interface1D()->dataMainValue(i);
                QVERIFY(std::abs(b->data()->at(i).errorPlus - (value / 0.9 - value)) < 1e-9 * value);
                QVERIFY(std::abs(b->data()->at(i).errorMinus - (value - value / 1.2)) < 1e-9 * value);
            }
        }
        QCOMPARE(bars, static_cast<int>(plot->view().points.size()));
        // The bound labels never overlap one another (the top of the roofline crowds).
        const_cast<RooflinePlot *>(plot)->replot();
        const auto rects = plot->shownLabelRects();
        QVERIFY(!rects.isEmpty());
        for (int i = 0; i < rects.size(); ++i)
            for (int k = i + 1; k < rects.size(); ++k)
                QVERIFY2(!rects[i].intersects(rects[k]), qPrintable(QStringLiteral("labels %1 and %2").arg(i).arg(k)));
        QVERIFY(plot->xAxis->scaleType() == QCPAxis::stLogarithmic);
        QVERIFY(!view.moePlot()->isVisible());
        // MoE: grouped bars, loop beside strided-batched.
        GemmBenchResult moe;
        moe.device = "cuda:0";
        for (int launches : {16, 1}) {
            GemmPoint p;
            p.format = "bf16", p.m = 16, p.n = 2048, p.k = 7168, p.experts = 16, p.launches = launches;
            p.timeUs = launches == 16 ? 260 : 170;
            setGemmRates(p);
            moe.points.push_back(p);
        }
        view.setResult(std::make_shared<const GemmBenchResult>(moe), QStringLiteral("w"));
        QVERIFY(view.moePlot()->isVisible());
        QCOMPARE(view.moePlot()->loopBars()->data()->size(), 1);
        QCOMPARE(view.moePlot()->loopBars()->data()->at(0)->value, 260.0);
        QCOMPARE(view.moePlot()->batchedBars()->data()->at(0)->value, 170.0);
        QTemporaryDir out;
        for (PlotWidget *p :
             {static_cast<PlotWidget *>(view.rooflinePlot()), static_cast<PlotWidget *>(view.moePlot())})
            for (const char *ext : {"png", "svg", "pdf", "csv"}) {
                const QString file = out.filePath(p->exportName() + QLatin1Char('.') + QLatin1String(ext));
                QVERIFY(p->exportTo(file, PlotWidget::formatForFile(file)));
                QVERIFY(QFileInfo(file).size() > 0);
            }
        // On the CPU the quantized paths are GPU only: the summary says so.
        GemmBenchResult cpu;
        cpu.device = "cpu";
        cpu.points = {r.points.front()};
        cpu.points[0].format = kCpuGemmFormat;
        cpu.points[0].note = "Eigen FP32 GEMM standing in for the requested formats; w4a16: GPU only";
        view.setResult(std::make_shared<const GemmBenchResult>(cpu), QString());
        QVERIFY(view.summary()->text().contains(GemmTimingView::tr("The quantized-weight paths run on a GPU only.")));
        QCOMPARE(GemmTimingView::expertsFor(GemmTimingView::Mode::Moe), 16);
        QCOMPARE(GemmTimingView::formatsFor(GemmTimingView::Mode::Plain), plainGemmFormats());
    }

    // Issue 43: Quantized mode times MXFP4, NVFP4 and W3A16 + MiLo too; the compensator's rank
    // comes from a spin box shown in that mode only and goes into the request; the formats the
    // shape could not run are named in the summary with their reason (not a blank series).
    void quantizedModeTimesFp4AndW3WithTheRankAndNamesSkippedFormats()
    {
        const auto q = GemmTimingView::formatsFor(GemmTimingView::Mode::Quantized);
        for (auto f : {GemmFormat::W4a16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8, GemmFormat::W8a8Fp8,
                       GemmFormat::Mxfp4, GemmFormat::Nvfp4, GemmFormat::W3a16Milo})
            QVERIFY2(std::count(q.begin(), q.end(), f) == 1, toString(f).c_str());
        QCOMPARE(q.size(), std::size_t{7});
        GemmTimingView view;
        view.resize(1200, 600);
        view.show();
        QSpinBox *rank = view.w3RankBox();
        QVERIFY(rank);
        QCOMPARE(rank->value(), GemmBenchRequest{}.w3Rank); // the CLI's --w3-rank default
        QCOMPARE(rank->minimum(), 0);
        QCOMPARE(rank->maximum(), 256);
        view.setMode(GemmTimingView::Mode::Plain);
        QVERIFY(!rank->isVisible());
        view.setMode(GemmTimingView::Mode::Quantized);
        QVERIFY(rank->isVisible());
        // Typed by the user: the request carries it with the mode's formats and the sweep.
        rank->setFocus();
        rank->selectAll();
        QTest::keyClicks(rank, QStringLiteral("8"));
        QTest::keyClick(rank, Qt::Key_Enter);
        QCOMPARE(view.w3Rank(), 8);
        const GemmBenchRequest r = view.timingRequest(16);
        QCOMPARE(r.w3Rank, 8);
        QVERIFY(r.formats == q);
        QCOMPARE(r.experts, 1);
        QVERIFY((r.m == std::vector<std::int64_t>{1, 2, 4, 8, 16}));
        view.setW3Rank(300); // clamped to the kernel's range
        QCOMPARE(view.timingRequest(1).w3Rank, 256);
        view.setMode(GemmTimingView::Mode::Moe);
        QVERIFY(!rank->isVisible());
        QCOMPARE(view.timingRequest(1).experts, 16);
        // The skipped formats and their reasons in the summary, the reason translated as a core message.
        GemmBenchResult res = sample();
        res.skipped = {{"mxfp4", "GEMM bench: mxfp4 needs K a multiple of its block (32), K = 14336"},
                       {"w3a16-milo", "GEMM bench: w3a16-milo needs K a multiple of 256 and a rank in [0, 256], got "
                                      "K = 14336, rank 300"}};
        view.setResult(std::make_shared<const GemmBenchResult>(res), QStringLiteral("w"));
        for (const auto &s : res.skipped)
            QVERIFY2(view.summary()->text().contains(
                         GemmTimingView::tr("%1 not timed: %2")
                             .arg(QString::fromStdString(s.format), coremessages::translated(s.reason))),
                     qPrintable(view.summary()->text()));
        QVERIFY(!view.timePlot()->curveGraph(QStringLiteral("mxfp4")));
    }

    void windowTimesTheSelectedTensorInTheBackground()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDemo();
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool() && waitIdle(w));
        w.browser()->setSelectedTensors({kTensor});
        auto *view = w.analysis()->gemmTimingView();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        QCOMPARE(view->currentTensor(), kTensor);
        // Cancel stops the job at once; nothing is drawn.
        w.analysis()->timeGemms(kTensor, 8192);
        view->progress()->cancelRequested();
        QVERIFY(!w.analysis()->isRunning());
        QVERIFY(!view->result());

        w.analysis()->timeGemms(kTensor, 4);
        QVERIFY(QTest::qWaitFor([&] { return view->result() != nullptr; }, 180000));
        QVERIFY(waitIdle(w));
        const auto r = view->result();
        QVERIFY(!r->points.empty());
        for (const auto &p : r->points) {
            QCOMPARE(p.n, 1024);
            QCOMPARE(p.k, 2816);
            QVERIFY(p.m == 1 || p.m == 2 || p.m == 4);
        }
        expectDrawsEveryPoint(view->timePlot(), *r);
        expectDrawsEveryPoint(view->tflopsPlot(), *r);

        // The CLI gives the same N, K and points per format for the same tensor and sweep.
        QProcess p;
        p.start(QStringLiteral(QUANTSCOPE_CLI),
                {QStringLiteral("gemm-bench"), QStringLiteral("--tensor"), kTensor,
                 QString::fromStdString(demo::ensureDemoCheckpoint().string()), QStringLiteral("--m-sweep"),
                 QStringLiteral("1,2,4"), QStringLiteral("--device"),
                 QString::fromStdString(r->device == "cpu" ? "cpu" : "gpu"), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(180000));
        QCOMPARE(p.exitCode(), 0);
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        QCOMPARE(j["points"].size(), r->points.size());
        for (std::size_t i = 0; i < r->points.size(); ++i) {
            QCOMPARE(j["points"][i]["format"].get<std::string>(), r->points[i].format);
            QCOMPARE(j["points"][i]["m"].get<std::int64_t>(), r->points[i].m);
            QCOMPARE(j["points"][i]["n"].get<std::int64_t>(), r->points[i].n);
            QCOMPARE(j["points"][i]["k"].get<std::int64_t>(), r->points[i].k);
        }

        // Quantized mode through the window's job: the request holds the view's formats (the CPU
        // stands in and names them) and its W3 rank.
        view->setMode(GemmTimingView::Mode::Quantized);
        view->setW3Rank(16);
        QCOMPARE(view->timingRequest(2).w3Rank, 16);
        w.analysis()->timeGemms(kTensor, 2);
        QVERIFY(QTest::qWaitFor([&] { return view->result() && view->result() != r; }, 180000));
        QVERIFY(waitIdle(w));
        const auto quant = view->result();
        QVERIFY(quant->skipped.empty()); // K = 2816: a multiple of every block (32, 16, 256)
        if (quant->device == "cpu") {
            QVERIFY(!quant->points.empty());
            QVERIFY2(quant->points.front().note.find("w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8, mxfp4, nvfp4, "
                                                     "w3a16-milo: GPU only") != std::string::npos,
                     quant->points.front().note.c_str());
        } else {
            for (const char *f : {"mxfp4", "nvfp4", "w3a16-milo"})
                QVERIFY2(std::any_of(quant->points.begin(), quant->points.end(),
                                     [&](const GemmPoint &p) { return p.format == f; }),
                         f);
        }
    }
};

QTEST_MAIN(TestGemmTimingView)
#include "tst_gemmtimingview.moc"
