// SPDX-License-Identifier: MIT
// The Compare tab in the real window (issue 29): two compressed-tensors exports of one small
// checkpoint that round differently, compared against the original as the window's background job;
// the table and the heat map hold core's comparison of the same paths; a click on a cell opens the
// module in the Distribution view with both reconstructions (configurations A and B), whose errors
// — computed there by the error metrics — equal the comparison's; Cancel drops the job's result.
#include "test_env.h"
#include "compare/compare_view.h"
#include "comparecontroller.h"
#include "compareview.h"
#include "distributionview.h"
#include "export/ct_writer.h"
#include "export/checkpoint_writer.h"
#include "histogramplot.h"
#include "io/safetensors.h"
#include "jobprogresswidget.h"
#include "layerheatmap.h"
#include "mainwindow.h"
#include "recipe/recipe.h"
#include "tensor/tensor.h"

#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <random>

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

/// Two layers of a Llama-shaped model, 32 × 64 weights, and two INT4 g16 exports of it: divide
/// (A) and reciprocal (B) rounding of the scaled values.
struct Fixture {
    std::string original, a, b;
};

Fixture writeFixture(const QTemporaryDir &dir)
{
    const fs::path root = dir.path().toStdString();
    std::mt19937 rng(11);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (int layer = 0; layer < 2; ++layer)
        for (const char *p : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                              "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
            std::vector<float> w(32 * 64);
            for (auto &x : w)
                x = nd(rng);
            tensors.emplace_back("model.layers." + std::to_string(layer) + "." + p + ".weight",
                                 Tensor::fromFloats({32, 64}, w));
        }
    fs::create_directories(root / "orig");
    writeSafetensors(root / "orig" / "model.safetensors", tensors);
    Fixture f{(root / "orig" / "model.safetensors").string(), (root / "a").string(), (root / "b").string()};
    for (const auto &[out, apply] : {std::pair{f.a, "divide"}, std::pair{f.b, "reciprocal"}}) {
        const Recipe r = Recipe::fromJson(nlohmann::ordered_json{
            {"quantscope_recipe", 1},
            {"rules", nlohmann::ordered_json::array(
                          {{{"patterns", {"*"}},
                            {"specs", nlohmann::ordered_json::array(
                                          {{{"method", "int"}, {"group", 16}, {"scale_apply", apply}}})}}})}});
        exportCheckpoint(f.original, r, ExportFormat::CompressedTensors, out);
    }
    return f;
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_compareview"));
    }

    void compareShowsCoresComparisonAndAClickOverlaysBoth()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Fixture f = writeFixture(dir);
        CompareOptions o;
        o.reference = f.original;
        const CompareReport expected = runCompare(f.a, f.b, o);
        QCOMPARE(expected.modules.size(), std::size_t{14});

        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPath(QString::fromStdString(f.original));
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        CompareView *view = w.comparisons()->view();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        tabs->setCurrentWidget(view);
        view->setPaths(QString::fromStdString(f.a), QString::fromStdString(f.b), QString::fromStdString(f.original));
        view->compareButton()->click();
        QVERIFY(view->progress()->isRunning() || view->report());
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy() && view->report(); }, 120000));

        // The table: one row per module, each row core's numbers for that module.
        QTableWidget *t = view->table();
        QCOMPARE(t->rowCount(), static_cast<int>(expected.modules.size()));
        for (int r = 0; r < t->rowCount(); ++r) {
            const QString tensor = t->item(r, 0)->data(Qt::UserRole).toString();
            const ModuleComparison *m = nullptr;
            for (const auto &c : expected.modules)
                if (QString::fromStdString(c.tensor) == tensor)
                    m = &c;
            QVERIFY2(m, qPrintable(tensor));
            QCOMPARE(t->item(r, 1)->text(), QString::number(*m->codeDiff, 'g', 4));
            QCOMPARE(t->item(r, 2)->text(), QString::number(*m->relDiff, 'g', 4));
            QCOMPARE(t->item(r, 3)->text(), QString::number(*m->errorA, 'g', 4));
        }
        QVERIFY(view->summary()->text().contains(QStringLiteral("14")));

        // The heat map: 2 layers × 7 projections, every cell coloured; the metric switch recolours
        // by that number.
        LayerHeatMap *map = view->heatMap();
        QVERIFY(map->grid());
        QCOMPARE(map->grid()->layers.size(), std::size_t{2});
        QCOMPARE(map->grid()->columns.size(), std::size_t{7});
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 7; ++c)
                QVERIFY(map->cellColor(r, c).isValid());
        view->setMetric(CompareMetric::ErrorA);
        const LayerCell &cell = map->grid()->cells[1][6]; // layer 1, down
        double want = NAN;
        for (const auto &c : expected.modules)
            if (c.module == "model.layers.1.mlp.down_proj")
                want = *c.errorA;
        QCOMPARE(cell.value, want);

        // A click on a cell: the Distribution view shows A and B of that module.
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCenter(0, 0));
        QVERIFY(
            QTest::qWaitFor([&] { return !w.isBusy() && w.results() && w.results()->outcomes.size() == 2; }, 120000));
        const auto results = w.results();
        QCOMPARE(QString::fromStdString(results->tensors.front().tensor),
                 QStringLiteral("model.layers.0.self_attn.q_proj.weight"));
        const ModuleComparison *q = nullptr;
        for (const auto &c : expected.modules)
            if (c.module == "model.layers.0.self_attn.q_proj")
                q = &c;
        QVERIFY(q);
        QCOMPARE(results->outcomes[0].config, std::string("A"));
        QCOMPARE(results->outcomes[1].config, std::string("B"));
        // Two implementations of ‖Ŵ − W‖ / ‖W‖ agree (the error metrics' SIMD sums and compare's).
        QVERIFY(std::abs(results->outcomes[0].metrics.relFrobenius - *q->errorA) <= 1e-9 * *q->errorA);
        QVERIFY(std::abs(results->outcomes[1].metrics.relFrobenius - *q->errorB) <= 1e-9 * *q->errorB);
        auto *dist = w.findChild<DistributionView *>();
        QVERIFY(dist);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(dist));
        QCOMPARE(dist->histogramPlot()->quantizedGraphs().size(), 2);
    }

    // A, B and the reference each have a file picker (issue 42: they were bare text fields):
    // choosing a file fills the field.
    void eachPathHasAFilePicker()
    {
        CompareView view;
        view.show();
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("scan.jsonl"));
        QFile(file).open(QIODevice::WriteOnly);
        const QStringList names{QStringLiteral("browseA"), QStringLiteral("browseB"),
                                QStringLiteral("browseReference")};
        for (int i = 0; i < names.size(); ++i) {
            auto *button = view.findChild<QToolButton *>(names[i]);
            QVERIFY2(button && button->isVisible(), qPrintable(names[i]));
            button->click();
            auto *dialog = view.findChild<QFileDialog *>(QStringLiteral("compareFileDialog"));
            QVERIFY(dialog);
            emit dialog->fileSelected(file);
            dialog->close();
            QTRY_VERIFY(!view.findChild<QFileDialog *>(QStringLiteral("compareFileDialog")));
            const auto edits = view.findChildren<QLineEdit *>();
            int filled = 0;
            for (auto *e : edits)
                filled += e->text() == file;
            QCOMPARE(filled, i + 1);
        }
    }

    void cancelDropsTheResult()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Fixture f = writeFixture(dir);
        MainWindow w;
        w.show();
        CompareView *view = w.comparisons()->view();
        view->setPaths(QString::fromStdString(f.a), QString::fromStdString(f.b));
        view->compareButton()->click();
        QVERIFY(view->progress()->isRunning());
        emit view->cancelRequested();
        QVERIFY(!view->progress()->isRunning());
        QVERIFY(view->compareButton()->isEnabled());
        QVERIFY(QTest::qWaitFor([&] { return !w.comparisons()->isRunning(); }, 60000));
        QTest::qWait(200);
        QVERIFY(!view->report()); // whatever the job had done is dropped
        // Bad input: the failure is said in the job area, no report, no crash.
        view->setPaths(QString::fromStdString(f.a), dir.filePath(QStringLiteral("missing")));
        view->compareButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !w.comparisons()->isRunning(); }, 60000));
        QVERIFY(!view->report());
        QVERIFY(view->progress()->statusText().contains(QStringLiteral("missing")));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
