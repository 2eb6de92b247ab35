// SPDX-License-Identifier: MIT
// The Scale-constant and Kurtosis tabs in the real window (issue 17 items 2 and 3): the c*
// marker is `sweep-c`'s c_star, a click on the curve sets c in the constOpt configuration, and
// the per-channel kurtosis drawn equals `info --stats --per-channel` for the same tensor.
#include "test_env.h"
#include "analysiscontroller.h"
#include "demo/demo.h"
#include "jobprogresswidget.h"
#include "kurtosischannelplot.h"
#include "kurtosisscatterplot.h"
#include "kurtosisview.h"
#include "mainwindow.h"
#include "quantizerpanel.h"
#include "scaleconstantplot.h"
#include "scaleconstantview.h"
#include "tensorbrowser.h"
#include "theme.h"

#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace quantscope;

namespace {

const QString kTensor = QStringLiteral("model.layers.0.self_attn.k_proj.weight");

bool waitIdle(MainWindow &w, int ms = 120000)
{
    return QTest::qWaitFor([&] { return !w.isBusy(); }, ms);
}

bool openDemo(MainWindow &w)
{
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openDemo();
    return loaded.wait(120000) && loaded.first().first().toBool() && waitIdle(w);
}

/// `quantscope-cli ARGS --json` on the window's demo checkpoint.
nlohmann::json cli(const QString &path, QStringList args)
{
    QProcess p;
    args.insert(1, path);
    args << QStringLiteral("--json");
    p.start(QStringLiteral(QUANTSCOPE_CLI), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        qWarning() << p.readAllStandardError();
        return {};
    }
    return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
}

nlohmann::json spec(std::initializer_list<std::pair<const char *, nlohmann::json>> kv)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[k, v] : kv)
        j[k] = v;
    return j;
}

} // namespace

class TestAnalysisViews : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_analysisviews"));
    }

    void scaleConstantMarksSweepCsCStarAndAClickSetsC()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openDemo(w));
        auto *panel = w.quantizerPanel();
        QVERIFY(panel
                    ->setConfigurations(
                        {{"A", spec({{"method", "int"}, {"bits", 4}})}, {"B", spec({{"method", "constopt"}})}})
                    .isEmpty());
        w.browser()->setSelectedTensors({kTensor});
        auto *view = w.analysis()->scaleConstantView();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        tabs->setCurrentWidget(view);
        QCOMPARE(view->currentTensor(), kTensor);
        QCOMPARE(view->targetConfiguration(), 1); // B, the constOpt one

        // Cancel stops the job at once; nothing is drawn.
        w.analysis()->sweep(kTensor, 32, 64);
        view->progress()->cancelRequested();
        QVERIFY(!w.analysis()->isRunning());

        w.analysis()->sweep(kTensor, 32, 64);
        QVERIFY(QTest::qWaitFor([&] { return view->data() != nullptr; }, 120000));
        QVERIFY(waitIdle(w));
        QCOMPARE(view->progress()->progressBar()->value(), view->progress()->progressBar()->maximum());

        const QString demo = QString::fromStdString(demo::ensureDemoCheckpoint().string());
        auto *plot = view->plot();
        for (const bool rotated : {false, true}) {
            view->setRotation(rotated);
            for (const auto &[enc, name] :
                 {std::pair{ConstOptEncoder::Pow2, "pow2"}, std::pair{ConstOptEncoder::Unrounded, "unrounded"}}) {
                QStringList args = {QStringLiteral("sweep-c"),   QStringLiteral("--tensor"), kTensor,
                                    QStringLiteral("--encoder"), QString::fromLatin1(name),  QStringLiteral("--quiet")};
                if (rotated)
                    args << QStringLiteral("--rotate") << QStringLiteral("64");
                const auto j = cli(demo, args);
                QVERIFY(j.is_object());
                QCOMPARE(plot->markedCStar(enc), j["c_star"].get<double>());
                QCOMPARE(plot->curveGraph(enc)->dataCount(), static_cast<int>(j["c"].size()));
                if (enc == ConstOptEncoder::Pow2) {
                    QCOMPARE(plot->markedInterval().first, j["c_star_interval"][0].get<double>());
                    QCOMPARE(plot->markedInterval().second, j["c_star_interval"][1].get<double>());
                }
            }
        }

        // Every plot exports PNG, SVG, PDF and its data as CSV (the curve as drawn).
        view->setRotation(false);
        QTemporaryDir out;
        for (const char *ext : {"png", "svg", "pdf", "csv"}) {
            const QString file = out.filePath(QStringLiteral("sc.") + QLatin1String(ext));
            QVERIFY(plot->exportTo(file, PlotWidget::formatForFile(file)));
            QVERIFY(QFileInfo(file).size() > 0);
        }
        const QStringList rows = plot->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), plot->curveGraph(ConstOptEncoder::Pow2)->dataCount() + 1);
        QCOMPARE(rows[1].split(QLatin1Char(','))[1].toDouble(), view->data()->plain.pow2.mse[0]);
        QVERIFY(!plot->toolTipAt(QPoint(plot->pixelOf(0.2), plot->axisRect()->rect().center().y())).isEmpty());

        // The plot follows the palette (the dark theme recolours curves, markers and axes).
        QPalette dark = view->palette();
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        view->setPalette(dark);
        QCOMPARE(plot->xAxis->tickLabelColor(), dark.color(QPalette::WindowText));
        QCOMPARE(plot->curveGraph(ConstOptEncoder::Pow2)->pen().color(), theme::configColor(0, plot->palette()));
        QCOMPARE(plot->curveGraph(ConstOptEncoder::Unrounded)->pen().color(), theme::configColor(1, plot->palette()));
        QVERIFY(theme::isDark(plot->palette()));

        // A click at c ≈ 0.25 sets B's c to the grid point under the mouse.
        view->setRotation(false);
        plot->replot();
        QVERIFY(panel->configurations()[1].spec.value("c", 0.0) != 0.25);
        const QPoint at(plot->pixelOf(0.25), plot->axisRect()->rect().center().y());
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        const double c = panel->configurations()[1].spec["c"].get<double>();
        QCOMPARE(c, snapToGrid(plot->xAxis->pixelToCoord(at.x()), 0.05, 0.40, 0.0005));
        QVERIFY(std::fabs(c - 0.25) < 0.002);
        QCOMPARE(plot->currentC(), c);                                    // the line follows the configuration
        QCOMPARE(panel->configurations()[0].spec.value("c", -1.0), -1.0); // A untouched

        // Without a constOpt configuration a click adds one.
        QVERIFY(panel->setConfigurations({{"A", spec({{"method", "int"}, {"bits", 4}})}}).isEmpty());
        QCOMPARE(view->targetConfiguration(), -1);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(panel->configurationCount(), 2);
        QCOMPARE(panel->configurations()[1].spec["method"], "constopt");
        QCOMPARE(panel->configurations()[1].spec["c"].get<double>(), c);

        // Selecting another tensor while the tab is shown sweeps that one.
        const QString other = QStringLiteral("model.layers.0.self_attn.v_proj.weight");
        w.browser()->setSelectedTensors({other});
        QVERIFY(QTest::qWaitFor([&] { return view->data() && view->data()->tensor == other.toStdString(); }, 120000));
        QVERIFY(waitIdle(w));
    }

    void kurtosisEqualsInfoPerChannelAndTheScatterTheResults()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openDemo(w));
        const QString q = QStringLiteral("model.layers.0.self_attn.q_proj.weight");
        w.browser()->setSelectedTensors({kTensor, q});
        QVERIFY(w.quantizerPanel()
                    ->setConfigurations(
                        {{"A", spec({{"method", "int"}, {"bits", 4}})}, {"B", spec({{"method", "constopt"}})}})
                    .isEmpty());
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(120000));
        QVERIFY(waitIdle(w));

        auto *view = w.analysis()->kurtosisView();
        view->requestProfile();
        QVERIFY(QTest::qWaitFor([&] { return view->data() != nullptr; }, 120000));
        QVERIFY(waitIdle(w));
        view->setCurrentTensor(kTensor);

        const QString demo = QString::fromStdString(demo::ensureDemoCheckpoint().string());
        const auto j = cli(demo, {QStringLiteral("info"), QStringLiteral("--tensor"), kTensor,
                                  QStringLiteral("--stats"), QStringLiteral("--per-channel")});
        QVERIFY(j.is_object());
        const auto &pc = j["tensors"][0]["per_channel"];
        for (const auto &[axis, key] : {std::pair{1, "input_channels"}, std::pair{0, "output_channels"}}) {
            view->setChannelAxis(axis);
            const auto &want = pc[key]["excess_kurtosis"];
            auto *g = view->channelPlot()->channelGraph();
            QCOMPARE(g->dataCount(), static_cast<int>(want.size()));
            for (int i = 0; i < g->dataCount(); ++i) {
                const double drawn = g->data()->at(i)->value;
                if (want[static_cast<std::size_t>(i)].is_null())
                    QVERIFY(std::isnan(drawn));
                else
                    QCOMPARE(drawn, want[static_cast<std::size_t>(i)].get<double>());
            }
            QCOMPARE(view->channelPlot()->labels().size(), 8);
        }
        QCOMPARE(view->summary()->text().contains(
                     QString::number(j["tensors"][0]["stats"]["excess_kurtosis"].get<double>(), 'g', 5)),
                 true);

        // One point per tensor × configuration; y is the run's relative error.
        auto *scatter = view->scatterPlot();
        QCOMPARE(scatter->configurationCount(), 2);
        int points = 0;
        for (int i = 0; i < scatter->configurationCount(); ++i)
            points += scatter->configurationGraph(i)->dataCount();
        QCOMPARE(points, 4);
        const auto *o = w.results()->outcome(kTensor.toStdString(), "A");
        QVERIFY(o);
        bool found = false;
        for (const auto &p : view->data()->points)
            found = found || (p.tensor == o->tensor && p.relError == o->metrics.relFrobenius &&
                              p.label.rfind("A · INT4", 0) == 0);
        QVERIFY(found);
        QTemporaryDir out;
        for (PlotWidget *p :
             {static_cast<PlotWidget *>(view->channelPlot()), static_cast<PlotWidget *>(view->scatterPlot())})
            for (const char *ext : {"png", "svg", "pdf", "csv"}) {
                const QString file = out.filePath(p->exportName() + QLatin1Char('.') + QLatin1String(ext));
                QVERIFY(p->exportTo(file, PlotWidget::formatForFile(file)));
                QVERIFY(QFileInfo(file).size() > 0);
            }
        QCOMPARE(view->scatterPlot()->csv().count(QLatin1Char('\n')), 5); // header + 4 points
        // After the rotation the channels change, the tensor's kurtosis drops (heavy tails spread).
        view->setRotation(true);
        QVERIFY(view->data()->tensors[0].rotated);
        QVERIFY(view->data()->tensors[0].rotated->kurtosis < view->data()->tensors[0].plain.kurtosis);
        QVERIFY(view->summary()->text().contains(QStringLiteral("64")));
    }

    void kurtosisScatterLabelsNeverOverlap()
    {
        // 35 tensors × 2 configurations: the labels overlapped into one block (issue 42).
        std::vector<KurtosisPoint> points;
        for (int t = 0; t < 35; ++t)
            for (int c = 0; c < 2; ++c) {
                KurtosisPoint p;
                p.tensor = "model.layers." + std::to_string(t / 7) + ".mlp.proj_" + std::to_string(t % 7) + ".weight";
                p.label = c == 0 ? "A · INT4 g128 sym" : "B · INT8 per channel sym";
                p.colorIndex = c;
                // Twenty in one dense block (as the demo's projections are), fifteen spread out.
                p.kurtosis = t < 20 ? 0.5 + 0.002 * t : 0.5 + 0.55 * ((t - 20) % 3);
                p.rotatedKurtosis = p.kurtosis;
                p.relError = (c == 0 ? 0.1 : 0.02) + (t < 20 ? 0.0002 * t : 0.03 * ((t - 20) / 3));
                points.push_back(p);
            }
        KurtosisScatterPlot plot;
        plot.resize(700, 420);
        plot.setData(points, false);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replot();
        QCOMPARE(plot.labelCount(), 70);
        const auto rects = plot.shownLabelRects();
        // The spread points get their names, the block only a few.
        QVERIFY2(rects.size() >= 10, qPrintable(QString::number(rects.size())));
        QVERIFY(rects.size() < 70);
        for (int i = 0; i < rects.size(); ++i) {
            QVERIFY(QRectF(plot.axisRect()->rect()).contains(rects[i]));
            for (int k = i + 1; k < rects.size(); ++k)
                QVERIFY2(!rects[i].intersects(rects[k]),
                         qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(i).arg(k)));
        }
        // A hidden label's tensor is named by the point's tooltip, in full.
        const auto &last = points.back();
        const QPoint at(static_cast<int>(plot.xAxis->coordToPixel(last.kurtosis)),
                        static_cast<int>(plot.yAxis->coordToPixel(last.relError)));
        QVERIFY2(plot.toolTipAt(at).contains(QString::fromStdString(last.tensor)), qPrintable(plot.toolTipAt(at)));
        // Resized smaller: still none overlaps.
        plot.resize(420, 300);
        plot.replot();
        const auto smaller = plot.shownLabelRects();
        for (int i = 0; i < smaller.size(); ++i)
            for (int k = i + 1; k < smaller.size(); ++k)
                QVERIFY(!smaller[i].intersects(smaller[k]));
    }
};

QTEST_MAIN(TestAnalysisViews)
#include "tst_analysisviews.moc"
