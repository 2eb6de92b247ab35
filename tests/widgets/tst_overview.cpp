// SPDX-License-Identifier: MIT
// The Overview: one row per (tensor, configuration), numeric sorting (not text order), failed
// runs last, a CSV that round-trips every number, an export that fails cleanly, and in the real
// window: it takes the Numbers table's place when many tensors ran, a click shows that tensor
// in the Distribution view, and Cancel keeps the runs that had finished as a partial batch.
#include "test_env.h"
#include "distributionview.h"
#include "jobprogresswidget.h"
#include "logview.h"
#include "mainwindow.h"
#include "numbersview.h"
#include "overviewmodel.h"
#include "overviewview.h"
#include "quantizerpanel.h"
#include "results/config_label.h"
#include "quant/quantizer.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>

using namespace quantscope;

namespace {

/// Three tensors × two configurations with chosen numbers; one run failed.
std::shared_ptr<QuantizeJobResult> handMade()
{
    auto r = std::make_shared<QuantizeJobResult>();
    const double rel[6] = {0.5, 10.0, 2.0, 0.0, 1e-7, 0.03125};
    int i = 0;
    for (const char *t : {"model.a.weight", "model.b.weight", "model.c.weight"})
        for (const char *c : {"A", "B"}) {
            QuantizeOutcome o;
            o.tensor = t;
            o.config = c;
            o.spec = {{"method", "int"}, {"bits", 4}};
            o.device = "cpu";
            o.timeMs = 1.5 * (i + 1);
            o.metrics.relFrobenius = rel[i];
            o.metrics.sqnrDb = -20.0 * std::log10(rel[i] > 0 ? rel[i] : 1e-30);
            o.metrics.statsIn.finiteCount = 10;
            o.metrics.statsIn.excessKurtosis = 0.25 * i;
            o.bitsPerElement = 4.125;
            if (i == 5)
                o.error = "group size 128 does not divide 100";
            r->outcomes.push_back(o);
            ++i;
        }
    return r;
}

QStringList csvFields(const QString &line)
{
    return line.split(QLatin1Char(',')); // the hand-made names carry no comma
}

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

QStringList allTensors(MainWindow &w)
{
    QStringList all;
    for (const auto &e : w.browser()->model()->entries())
        all << e.name;
    return all;
}

} // namespace

class TestOverview : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_overview"));
    }

    void oneRowPerTensorAndConfigSortedNumerically()
    {
        OverviewView view;
        const auto results = handMade();
        view.setResults(results);
        auto *proxy = view.proxy();
        QCOMPARE(proxy->rowCount(), static_cast<int>(results->outcomes.size()));
        QCOMPARE(view.model()->overview().tensorCount, 3);
        QCOMPARE(view.model()->overview().configCount, 2);
        // Every (tensor, configuration) exactly once.
        QSet<QString> pairs;
        for (int r = 0; r < proxy->rowCount(); ++r)
            pairs.insert(proxy->index(r, 0).data(OverviewModel::TensorRole).toString() + QLatin1Char('|') +
                         proxy->index(r, 0).data(OverviewModel::ConfigRole).toString());
        QCOMPARE(pairs.size(), 6);

        // Ascending by relative error: the finite values in numeric order (text order would put
        // "10" before "2"), the failed run last.
        view.table()->sortByColumn(OverviewModel::RelError, Qt::AscendingOrder);
        std::vector<double> expected;
        for (const auto &o : results->outcomes)
            if (o.ok())
                expected.push_back(o.metrics.relFrobenius);
        std::sort(expected.begin(), expected.end());
        for (int r = 0; r < static_cast<int>(expected.size()); ++r)
            QCOMPARE(proxy->index(r, OverviewModel::RelError).data(OverviewModel::ValueRole).toDouble(),
                     expected[static_cast<std::size_t>(r)]);
        QCOMPARE(proxy->index(5, OverviewModel::Tensor).data().toString(), QStringLiteral("model.c.weight"));
        QVERIFY(proxy->index(5, OverviewModel::RelError)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("does not divide")));
        // Descending by time: the job's times in reverse.
        view.table()->sortByColumn(OverviewModel::Time, Qt::DescendingOrder);
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->index(r - 1, OverviewModel::Time).data(OverviewModel::ValueRole).toDouble() >
                    proxy->index(r, OverviewModel::Time).data(OverviewModel::ValueRole).toDouble());
        // The best error is tinted differently from the worst.
        view.table()->sortByColumn(OverviewModel::RelError, Qt::AscendingOrder);
        const auto best = proxy->index(1, OverviewModel::RelError).data(Qt::BackgroundRole);
        const auto worst = proxy->index(4, OverviewModel::RelError).data(Qt::BackgroundRole);
        QVERIFY(best.isValid() && worst.isValid());
        QVERIFY(best.value<QColor>() != worst.value<QColor>());
        // A zero error has no place on the log scale: not tinted.
        QVERIFY(!proxy->index(0, OverviewModel::RelError).data(Qt::BackgroundRole).isValid());
    }

    void csvRoundTripsEveryNumber()
    {
        OverviewView view;
        const auto results = handMade();
        view.setResults(results);
        const auto file = m_home.filePath(QStringLiteral("overview.csv"));
        QString error;
        QVERIFY2(view.exportCsv(file, &error), qPrintable(error));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + static_cast<int>(results->outcomes.size()));
        const auto header = csvFields(lines[0]);
        const int rel = static_cast<int>(header.indexOf(QStringLiteral("rel_frobenius")));
        const int time = static_cast<int>(header.indexOf(QStringLiteral("time_ms")));
        QVERIFY(rel >= 0 && time >= 0);
        for (std::size_t i = 0; i < results->outcomes.size(); ++i) {
            const auto &o = results->outcomes[i];
            const auto fields = csvFields(lines[static_cast<int>(i) + 1]);
            QCOMPARE(fields[0], QString::fromStdString(o.tensor));
            QCOMPARE(fields[time].toDouble(), o.timeMs);
            if (o.ok())
                QCOMPARE(fields[rel].toDouble(), o.metrics.relFrobenius); // exact, not rounded
            else
                QVERIFY(fields[rel].isEmpty());
        }
    }

    void exportToAMissingFolderFailsCleanly()
    {
        OverviewView view;
        view.setResults(handMade());
        const auto file = m_home.filePath(QStringLiteral("missing/dir/overview.csv"));
        QString error;
        QVERIFY(!view.exportCsv(file, &error));
        QVERIFY2(error.contains(QStringLiteral("overview.csv")), qPrintable(error));
        QVERIFY(!QFile::exists(file));
    }

    void quantizerPanelShowsFieldsThatApplyInWords()
    {
        QuantizerPanel panel(quantizerMethods());
        panel.setConfigurations({{"A", {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 64}}}});
        // Granularity group: a group size, no block size, no channel axis.
        QVERIFY(panel.editor(0, QStringLiteral("group")));
        QVERIFY(!panel.editor(0, QStringLiteral("block")));
        QVERIFY(!panel.editor(0, QStringLiteral("axis")));
        // Values in words; the internal name is the item's data and its tooltip.
        auto *rounding = qobject_cast<QComboBox *>(panel.editor(0, QStringLiteral("rounding")));
        QVERIFY(rounding);
        const int even = rounding->findData(QStringLiteral("half_even"));
        QVERIFY(even >= 0);
        QCOMPARE(rounding->itemText(even), QStringLiteral("half to even"));
        QCOMPARE(rounding->itemData(even, Qt::ToolTipRole).toString(), QStringLiteral("half_even"));
        auto *rule = qobject_cast<QComboBox *>(panel.editor(0, QStringLiteral("scale_rule")));
        QCOMPARE(rule->itemText(rule->findData(QStringLiteral("toolkit"))), QStringLiteral("toolkit (amax/7.5)"));
        // Switching to per channel: the group size goes, the channel axis comes (after the
        // queued rebuild), and the spec keeps its values.
        auto *granularity = qobject_cast<QComboBox *>(panel.editor(0, QStringLiteral("granularity")));
        granularity->setCurrentIndex(granularity->findData(QStringLiteral("channel")));
        QTRY_VERIFY(!panel.editor(0, QStringLiteral("group")));
        QVERIFY(panel.editor(0, QStringLiteral("axis")));
        QVERIFY(panel.configurations()[0].spec["granularity"] == "channel");
        QVERIFY(panel.validationError(0).isEmpty());
        QVERIFY(!specFieldApplies(panel.configurations()[0].spec, "group"));
    }

    void windowShowsOverviewForManyTensorsAndClickSelects()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        QStringList chosen, oneD;
        for (const auto &e : w.browser()->model()->entries())
            (e.shape.size() == 1 ? oneD : chosen) << e.name;
        QVERIFY(chosen.size() > 3 && !oneD.isEmpty());
        chosen = chosen.mid(0, 4);
        // A norm's gain in the selection is skipped, with a note in the log.
        w.browser()->setSelectedTensors(chosen + oneD.mid(0, 1));
        w.quantizerPanel()->setConfigurations({{"A", {{"method", "int"}, {"bits", 4}, {"granularity", "channel"}}},
                                               {"B", {{"method", "fp8"}, {"format", "e4m3"}}}});
        w.quantizerPanel()->setDevice(QStringLiteral("cpu"));
        w.viewTabs()->setCurrentWidget(w.numbersView());
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(120000));
        QVERIFY(waitIdle(w));
        QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget *>(w.overviewView()));
        auto *proxy = w.overviewView()->proxy();
        QCOMPARE(proxy->rowCount(), static_cast<int>(w.results()->outcomes.size()));
        QCOMPARE(proxy->rowCount(), 4 * 2);
        QVERIFY(w.logView()->messages().join(QLatin1Char('\n')).contains(QStringLiteral("Skipped 1 1-D tensor")));
        for (const auto &o : w.results()->outcomes)
            QVERIFY(o.tensor != oneD.first().toStdString());
        // Clicking the row of the last chosen tensor shows it in the Distribution view.
        int row = -1;
        for (int r = 0; r < proxy->rowCount(); ++r)
            if (proxy->index(r, 0).data(OverviewModel::TensorRole).toString() == chosen.last())
                row = r;
        QVERIFY(row >= 0);
        auto *table = w.overviewView()->table();
        table->resize(900, 600);
        table->show();
        const auto rect = table->visualRect(proxy->index(row, OverviewModel::RelError));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(w.distributionView()->currentTensor(), chosen.last());
    }

    void sessionRestoresAnEmptyPairing()
    {
        const auto file = m_home.filePath(QStringLiteral("unpaired.qscope"));
        {
            MainWindow w;
            QVERIFY(openDemo(w));
            QVERIFY(!w.currentSession().activation.empty()); // the demo pairs itself
            w.setActivation(QString());
            QVERIFY(w.currentSession().activation.empty());
            QString error;
            QVERIFY2(w.saveSession(file, &error), qPrintable(error));
        }
        // A window whose demo is paired opens the session: the pairing is the session's (none).
        MainWindow restored;
        QVERIFY(openDemo(restored));
        QVERIFY(!restored.currentSession().activation.empty());
        QSignalSpy loaded(&restored, &MainWindow::loadFinished);
        QVERIFY(restored.openSession(file));
        QVERIFY(loaded.wait(120000));
        QVERIFY(waitIdle(restored));
        QVERIFY2(restored.currentSession().activation.empty(), restored.currentSession().activation.c_str());
    }

    void tensorCountFollowsTheFilter()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        int expected = 0;
        for (const auto &e : w.browser()->model()->entries())
            expected += e.name.contains(QStringLiteral("down_proj")) ? 1 : 0;
        QVERIFY(expected > 0 && expected < w.tensorCount());
        w.browser()->setFilter(QStringLiteral("down_proj"), false);
        const auto shown = QStringLiteral("%1 shown").arg(expected);
        bool found = false;
        for (auto *label : w.browser()->findChildren<QLabel *>())
            found = found || label->text().contains(shown);
        QVERIFY2(found, qPrintable(shown));
    }

    void cancelKeepsTheFinishedRuns()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        const auto tensors = allTensors(w);
        w.browser()->setSelectedTensors(tensors);
        while (w.quantizerPanel()->addConfiguration()) {
        }
        const auto total = tensors.size() * w.quantizerPanel()->configurations().size();
        w.runQuantization();
        QVERIFY(w.isJobRunning());
        // Wait until well into the batch, so that some runs have finished.
        auto *bar = w.jobProgress()->progressBar();
        QTest::qWaitFor(
            [&] {
                return !w.isJobRunning() || bar->value() >= bar->minimum() + 6 * (bar->maximum() - bar->minimum()) / 10;
            },
            120000);
        if (!w.isJobRunning())
            QSKIP("The batch finished before it could be cancelled part way (a fast machine)");
        w.cancelJob();
        QVERIFY(!w.isJobRunning());
        const auto results = w.results();
        QVERIFY(results);
        QVERIFY(results->partial);
        QVERIFY(!results->outcomes.empty());
        QVERIFY(results->outcomes.size() < total);
        for (const auto &o : results->outcomes)
            QVERIFY2(o.ok(), o.error.c_str());
        QCOMPARE(w.overviewView()->proxy()->rowCount(), static_cast<int>(results->outcomes.size()));
        QVERIFY(w.overviewView()->summary()->text().contains(QStringLiteral("partial")));
        QVERIFY(w.jobProgress()->statusText().contains(QStringLiteral("partial batch")));
        QVERIFY(w.waitForWorkers(10000));
        // What the stale worker delivers later changes nothing.
        QTest::qWait(100);
        QCOMPARE(w.results(), results);
    }
};

QTEST_MAIN(TestOverview)
#include "tst_overview.moc"
