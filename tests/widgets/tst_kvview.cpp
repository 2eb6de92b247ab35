// SPDX-License-Identifier: MIT
// The KV cache tab in the real window (issue 41): the lab runs in the background on the committed
// stories260K capture and the table holds a row per scheme and the plan's, each value equal to
// runKvLab's report on the same file with the tab's options (computed here); the controls reach
// the plan; the c sweep marks c*, 0.156 and 0.195 with the flat interval shaded; Cancel makes the
// window idle at once and drops the run's result; a file without queries says that attention
// errors need queries instead of showing zeros; before anything is open every view says what to
// do; a capture paired with the checkpoint becomes the tab's source.
#include "test_env.h"
#include "io/safetensors.h"
#include "kv/kv_data.h"
#include "kv/kv_lab.h"
#include "kvcontroller.h"
#include "kvplot.h"
#include "kvview.h"
#include "loadcontroller.h"
#include "mainwindow.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>

using namespace quantscope;

namespace {

const QString kCapture = QStringLiteral(QUANTSCOPE_SOURCE_DIR "/tests/data/capture/stories260K.capture.safetensors");

double cellValue(const QTableWidget *t, int row, int column)
{
    const auto *item = t->item(row, column);
    return item && item->data(KvView::ValueRole).isValid() ? item->data(KvView::ValueRole).toDouble() : qQNaN();
}

bool waitForRun(MainWindow &w)
{
    return QTest::qWaitFor([&] { return !w.kv()->isRunning(); }, 120000);
}

} // namespace

class TestKvView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_kvview"));
        QVERIFY2(QFileInfo::exists(kCapture), qPrintable(kCapture));
    }

    void beforeAnythingIsOpenEveryViewSaysWhatToDo()
    {
        MainWindow w;
        KvView *view = w.kv()->view();
        QVERIFY(view->source().isEmpty());
        QVERIFY(!view->runButton()->isEnabled());
        QVERIFY(view->sourceLabel()->text().contains(QStringLiteral("File ▸ Open KV Cache…")));
        QVERIFY(view->notesLabel()->text().contains(QStringLiteral("then press Run")));
        for (auto *plot : {view->sweepPlot(), view->distortionPlot(), view->kurtosisPlot(), view->codebookPlot()}) {
            QVERIFY(!plot->hasData());
            QVERIFY(plot->emptyText().startsWith(QStringLiteral("Open a K/V cache")));
        }
        QCOMPARE(view->schemeTable()->rowCount(), 0);
        // Open KV Cache… is in the File menu.
        QVERIFY(w.kv()->openAction()->associatedObjects().size() >= 1);
        w.kv()->openKvFile(kCapture);
        QVERIFY(view->runButton()->isEnabled());
        QVERIFY(view->notesLabel()->text().contains(QStringLiteral("Press Run to study stories260K")));
        QVERIFY(view->sweepPlot()->emptyText().contains(QStringLiteral("Press Run")));
    }

    void tableEqualsTheLabOnTheCapture()
    {
        MainWindow w;
        KvView *view = w.kv()->view();
        w.kv()->openKvFile(kCapture);
        // A plan other than the defaults: the controls must reach the lab.
        QVERIFY(view->setKScheme(QStringLiteral("constopt")));
        QVERIFY(view->kCSpin()->isEnabled());
        view->kCSpin()->setValue(0.2);
        QVERIFY(view->setVScheme(QStringLiteral("int4")));
        QVERIFY(!view->vCSpin()->isEnabled());
        view->boundarySpin()->setValue(1);
        view->memorySpin()->setValue(40);
        view->runButton()->click();
        QVERIFY(w.kv()->isRunning());
        QVERIFY(!view->runButton()->isEnabled() && view->cancelButton()->isEnabled());
        QVERIFY(waitForRun(w));
        QVERIFY2(view->report(), qPrintable(view->errorLabel()->text()));
        QVERIFY(view->runButton()->isEnabled() && !view->cancelButton()->isEnabled());
        QCOMPARE(view->kCSpin()->value(), 0.2); // the user's c survives the run
        QVERIFY(view->kCSpin()->isEnabled() && !view->vCSpin()->isEnabled());

        // The same lab here, on the same file with the options the controls give.
        KvLabOptions options;
        options.kPlan = KvScheme::parse("constopt:c=0.2");
        options.vPlan = KvScheme::parse("int4");
        options.boundary = 1;
        options.memoryGiB = 40;
        const KvLabReport expected = runKvLab(loadKv(kCapture.toStdString()), options);
        QVERIFY(expected.queries > 0);
        QCOMPARE(QString::fromStdString(expected.plan.name), QStringLiteral("K:constopt:c=0.2 V:int4 boundary 1"));

        const QTableWidget *t = view->schemeTable();
        QCOMPARE(t->rowCount(), static_cast<int>(defaultKvSchemes().size()) + 1);
        QCOMPARE(static_cast<std::size_t>(t->rowCount()), expected.schemes.size() + 1);
        QCOMPARE(view->planRow(), t->rowCount() - 1);
        auto near = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); };
        for (int row = 0; row < t->rowCount(); ++row) {
            const bool plan = row == view->planRow();
            const KvSchemeSummary &s = plan ? expected.plan : expected.schemes[static_cast<std::size_t>(row)];
            const QString where = QStringLiteral("row %1 (%2)").arg(row).arg(QString::fromStdString(s.name));
            QCOMPARE(t->item(row, KvView::Scheme)->text(), QString::fromStdString(s.name));
            QVERIFY(s.attention.has_value());
            const std::pair<int, double> cells[] = {{KvView::KRel, s.kRel},
                                                    {KvView::VRel, s.vRel},
                                                    {KvView::Kl, s.attention->kl},
                                                    {KvView::MaxDp, s.attention->scoreMaxErr},
                                                    {KvView::OutRel, s.attention->outRel},
                                                    {KvView::BytesPerToken, s.bytesPerToken},
                                                    {KvView::ContextTokens, static_cast<double>(s.contextTokens)}};
            for (const auto &[column, value] : cells)
                QVERIFY2(near(cellValue(t, row, column), value),
                         qPrintable(QStringLiteral("%1, column %2: %3 shown, %4 by runKvLab")
                                        .arg(where)
                                        .arg(column)
                                        .arg(cellValue(t, row, column), 0, 'g', 17)
                                        .arg(value, 0, 'g', 17)));
            QCOMPARE(t->item(row, KvView::Scheme)->font().bold(), plan);
        }
        // Errors differ between schemes (a table of one repeated row would pass the loop above
        // only if runKvLab did the same).
        QVERIFY(cellValue(t, 0, KvView::KRel) < cellValue(t, 8, KvView::KRel));

        // Per layer and head: the plan's by default, then a chosen scheme's.
        const QTableWidget *layers = view->layerTable();
        QCOMPARE(layers->rowCount(), static_cast<int>(expected.layers));
        QCOMPARE(layers->columnCount(), 2 * static_cast<int>(expected.kvHeads));
        QCOMPARE(view->layerSchemeCombo()->currentText(), QString::fromStdString(expected.plan.name));
        QVERIFY(near(cellValue(layers, 0, 0), expected.plan.layers[0].kMse[0]));
        view->layerSchemeCombo()->setCurrentIndex(view->layerSchemeCombo()->findText(QStringLiteral("nvfp4")));
        const auto &nv = expected.schemes[12];
        QCOMPARE(QString::fromStdString(nv.name), QStringLiteral("nvfp4"));
        const int lastLayer = static_cast<int>(expected.layers) - 1, lastHead = static_cast<int>(expected.kvHeads) - 1;
        QVERIFY(near(cellValue(layers, lastLayer, 2 * lastHead + 1), nv.layers.back().vMse.back()));

        // The c sweep: c*, 0.156 and 0.195 marked, the flat interval shaded.
        const auto markers = view->sweepPlot()->markers();
        QCOMPARE(markers.size(), 3);
        QCOMPARE(markers[0], expected.sweep.cStar);
        QCOMPARE(markers[1], 0.156);
        QCOMPARE(markers[2], 0.195);
        QCOMPARE(view->sweepPlot()->shadedInterval(),
                 std::make_pair(expected.sweep.intervalLo, expected.sweep.intervalHi));
        auto *pow2 = view->sweepPlot()->graphNamed(QStringLiteral("constOpt pow2 (UE8M0 scale)"));
        QVERIFY(pow2 && pow2->dataCount() == static_cast<int>(expected.sweep.c.size()));
        // Distortion: a curve, FP4 /6 and the Lloyd–Max floor per source; kurtosis per layer; codebooks.
        QCOMPARE(view->distortionPlot()->graphCount(), 3 * static_cast<int>(expected.distortion.size()));
        QCOMPARE(view->kurtosisPlot()->graphCount(), 2);
        QCOMPARE(view->kurtosisPlot()->graph(1)->dataCount(), static_cast<int>(expected.layers));
        QCOMPARE(view->codebookPlot()->graph(0)->dataCount(), 16);
        QCOMPARE(view->codebookPlot()->graph(1)->data()->at(15)->key, expected.kShared.levels.back());
        QVERIFY(!view->notesLabel()->text().contains(QStringLiteral("No queries")));
    }

    void cancelStopsTheRunAndDropsItsResult()
    {
        MainWindow w;
        KvView *view = w.kv()->view();
        w.kv()->openKvFile(kCapture);
        view->runButton()->click();
        QVERIFY(w.kv()->isRunning());
        view->cancelButton()->click();
        // Idle at once: the UI does not wait for the worker.
        QVERIFY(!w.kv()->isRunning());
        QVERIFY(view->runButton()->isEnabled());
        QVERIFY(!view->cancelButton()->isEnabled());
        QVERIFY(view->statusLabel()->text().startsWith(QStringLiteral("Cancelled")));
        // Whatever the worker returns is dropped.
        w.kv()->shutdown();
        QTest::qWait(200);
        QVERIFY(!view->report());
        QCOMPARE(view->schemeTable()->rowCount(), 0);
        QVERIFY(view->statusLabel()->text().startsWith(QStringLiteral("Cancelled")));
        // And a new run still works.
        view->runButton()->click();
        QVERIFY(waitForRun(w));
        QVERIFY(view->report());
        QCOMPARE(view->schemeTable()->rowCount(), static_cast<int>(defaultKvSchemes().size()) + 1);
    }

    void withoutQueriesAttentionErrorsSayTheyNeedQueries()
    {
        // K and V [layers 2, heads 1, tokens 64, d 32], no q.
        QTemporaryDir dir;
        std::vector<float> k(2 * 64 * 32), v(k.size());
        for (std::size_t i = 0; i < k.size(); ++i) {
            k[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * (i % 32 == 3 ? 8 : 1));
            v[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i)));
        }
        const QString file = dir.filePath(QStringLiteral("kv.safetensors"));
        writeSafetensors(file.toStdString(),
                         {{"k", Tensor::fromFloats({2, 1, 64, 32}, k)}, {"v", Tensor::fromFloats({2, 1, 64, 32}, v)}});
        MainWindow w;
        KvView *view = w.kv()->view();
        w.kv()->openKvFile(file);
        view->runButton()->click();
        QVERIFY(waitForRun(w));
        QVERIFY2(view->report(), qPrintable(view->errorLabel()->text()));
        const QTableWidget *t = view->schemeTable();
        QCOMPARE(t->rowCount(), static_cast<int>(defaultKvSchemes().size()) + 1);
        for (int row = 0; row < t->rowCount(); ++row) {
            QVERIFY(std::isfinite(cellValue(t, row, KvView::KRel)));
            for (int column : {KvView::Kl, KvView::MaxDp, KvView::OutRel}) {
                QCOMPARE(t->item(row, column)->text(), QStringLiteral("—"));
                QVERIFY(std::isnan(cellValue(t, row, column)));
                QVERIFY(t->item(row, column)->toolTip().contains(QStringLiteral("need queries")));
            }
        }
        QVERIFY(view->notesLabel()->text().contains(QStringLiteral("attention errors (KL, max |ΔP|, output error) "
                                                                   "need queries")));
        QVERIFY(view->notesLabel()->text().contains(QStringLiteral("no queries")));
    }

    void aCapturePairedWithTheCheckpointBecomesTheSource()
    {
        const QString model = QStringLiteral(QUANTSCOPE_SHARED_DATA "/stories260K/model.safetensors");
        if (!QFileInfo::exists(model))
            QSKIP("stories260K's checkpoint is not in the shared data");
        MainWindow w;
        KvView *view = w.kv()->view();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPath(model);
        QVERIFY(loaded.wait(60000) && loaded.first().first().toBool());
        w.openCapture(kCapture);
        QVERIFY(QTest::qWaitFor([&] { return w.loads()->capture() != nullptr; }, 60000));
        QCOMPARE(QFileInfo(view->source()).fileName(), QStringLiteral("stories260K.capture.safetensors"));
        QVERIFY(view->sourceLabel()->text().contains(QStringLiteral("the paired capture")));
        QVERIFY(view->runButton()->isEnabled());
        // A file opened afterwards replaces it; unpairing keeps the file.
        QTemporaryDir dir;
        const QString other = dir.filePath(QStringLiteral("other.npz"));
        w.kv()->openKvFile(other);
        QCOMPARE(view->source(), QDir::toNativeSeparators(other));
        w.loads()->clearCapture();
        QCOMPARE(view->source(), QDir::toNativeSeparators(other));
    }
};

QTEST_MAIN(TestKvView)
#include "tst_kvview.moc"
