// SPDX-License-Identifier: MIT
// Capture pairing in the real window (issue 40): a capture lying beside a checkpoint pairs
// itself when the checkpoint opens (also when the folder is opened: the capture is not one of
// the model's files); a quantize job then carries the output-aware error, the Numbers view
// shows it, a session names the capture; a scan with the capture lets the Budget tab's objective
// combo choose between the weight error and the output-aware error.
#include "test_env.h"
#include "budgetview.h"
#include "io/safetensors.h"
#include "layersview.h"
#include "loadcontroller.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelview.h"
#include "numbersmodel.h"
#include "numbersview.h"
#include "plancontroller.h"
#include "quantizerpanel.h"
#include "scancontroller.h"
#include "tensorbrowser.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace quantscope;

namespace {

constexpr const char *kDown = "model.layers.0.mlp.down_proj";
constexpr const char *kUp = "model.layers.0.mlp.up_proj";

Tensor filled(Shape shape, float scale, int seed)
{
    std::int64_t n = 1;
    for (auto d : shape)
        n *= d;
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = scale * static_cast<float>(std::sin(0.7 * static_cast<double>(i) + seed));
    return Tensor::fromFloats(std::move(shape), v);
}

/// Input statistics of a K-channel input: a diagonal-dominant Gram and its ranges.
void addStats(std::vector<std::pair<std::string, Tensor>> &t, const std::string &prefix, std::int64_t k)
{
    std::vector<float> gram(static_cast<std::size_t>(k * k), 0.01f), diag(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < k; ++i) {
        diag[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i);
        gram[static_cast<std::size_t>(i * k + i)] = diag[static_cast<std::size_t>(i)];
    }
    t.emplace_back(prefix + ".input_gram", Tensor::fromFloats({k, k}, gram));
    t.emplace_back(prefix + ".input_gram_diag", Tensor::fromFloats({k}, diag));
    t.emplace_back(prefix + ".input_absmax", filled({k}, 1.0f, 1));
    t.emplace_back(prefix + ".input_min", filled({k}, -1.0f, 2));
    t.emplace_back(prefix + ".input_max", filled({k}, 1.0f, 3));
}

} // namespace

class TestModelWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_data;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid() && m_data.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_modelwindow"));
        // A tiny checkpoint (two linear layers, K = 64 and 32) and its capture beside it.
        const std::string dir = m_data.path().toStdString();
        writeSafetensors(dir + "/model.safetensors", {{std::string(kDown) + ".weight", filled({32, 64}, 0.1f, 4)},
                                                      {std::string(kUp) + ".weight", filled({64, 32}, 0.1f, 5)}});
        std::vector<std::pair<std::string, Tensor>> stats;
        addStats(stats, kDown, 64);
        addStats(stats, kUp, 32);
        const nlohmann::json modules = {{kDown, {{"in_features", 64}, {"out_features", 32}}},
                                        {kUp, {{"in_features", 32}, {"out_features", 64}}}};
        writeSafetensors(
            dir + "/calib.capture.safetensors", stats,
            {{"format", "quantscope-capture"}, {"version", "1"}, {"tokens", "512"}, {"modules", modules.dump()}});
    }

    void captureBesideTheCheckpointPairsAndJobsCarryIt()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPath(m_data.path()); // the folder: the capture is not taken for a second model file
        QVERIFY(loaded.wait(60000) && loaded.first().first().toBool());
        QCOMPARE(w.tensorCount(), 2);
        QVERIFY(QTest::qWaitFor([&] { return w.loads()->capture() != nullptr; }, 60000));
        QVERIFY(w.loads()->capturePath().endsWith(QLatin1String("calib.capture.safetensors")));
        QVERIFY(w.loads()->captureSummary().startsWith(QStringLiteral("2 of 2 modules")));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 60000));

        QVERIFY(
            w.quantizerPanel()->setConfigurations({{"A", {{"method", "int"}, {"bits", 4}, {"group", 32}}}}).isEmpty());
        w.browser()->setSelectedTensors({QString::fromLatin1(kDown) + QStringLiteral(".weight")});
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(60000) && finished.first().first().toBool());
        const auto results = w.results();
        QVERIFY(results && results->outcomes.size() == 1);
        const auto &o = results->outcomes.front();
        QVERIFY(o.ok());
        QVERIFY(o.outputError.has_value());
        QVERIFY(o.outputError->error > 0);
        QCOMPARE(o.outputError->tokens, std::int64_t{512});
        QVERIFY(o.outputError->relative > 0 && o.outputError->relative < 1);
        // The Numbers view shows it beside the weight error.
        auto *numbers = w.numbersView()->model();
        const int row = numbers->rowOfKey(QStringLiteral("metrics.output_error.error"));
        QCOMPARE(row, numbers->rowOfKey(QStringLiteral("metrics.rel_frobenius")) + 1);
        QCOMPARE(numbers->index(row, 0).data(NumbersModel::ValueRole).toDouble(), o.outputError->error);
        QVERIFY(numbers->index(row, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("512 tokens")));
        // A session names the capture.
        const Session s = w.currentSession();
        QVERIFY(s.capture &&
                QString::fromStdString(s.capture->path).endsWith(QLatin1String("calib.capture.safetensors")));
    }

    void captureWithoutAnInterpreterSaysWhyAndWritesNothing()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ModelView *view = w.model()->view();
        view->setModelPath(m_data.path());
        QTemporaryDir text;
        QFile f(text.filePath(QStringLiteral("calib.txt")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Alice was beginning to get very tired.");
        f.close();
        view->setDataPath(f.fileName());
        view->setPython(QStringLiteral("/nonexistent/python3"));
        view->captureButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !w.model()->isRunning() && view->captureButton()->isEnabled(); }, 60000));
        QVERIFY2(view->errorLabel()->text().contains(QStringLiteral("/nonexistent/python3")),
                 qPrintable(view->errorLabel()->text()));
        QVERIFY(!QFile::exists(QDir(m_data.path()).filePath(QStringLiteral("model.capture.safetensors"))));
    }

    void budgetObjectiveFollowsTheCombo()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPath(m_data.filePath(QStringLiteral("model.safetensors")));
        QVERIFY(loaded.wait(60000) && loaded.first().first().toBool());
        QVERIFY(QTest::qWaitFor([&] { return w.loads()->capture() != nullptr && !w.isBusy(); }, 60000));
        QVERIFY(w.quantizerPanel()
                    ->setConfigurations({{"A", {{"method", "int"}, {"bits", 3}, {"group", 32}}},
                                         {"B", {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}}}})
                    .isEmpty());
        QFile::remove(w.scans()->reportPath(w.scans()->options()));
        w.scans()->view()->scanButton()->click();
        BudgetView *budget = w.plan()->budgetView();
        QVERIFY(QTest::qWaitFor([&] { return budget->slider()->isEnabled(); }, 120000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 60000));
        // Auto: every run has the output-aware error.
        QCOMPARE(QString::fromStdString(budget->data()->problem.objective), QStringLiteral("output"));
        const auto objective = [&](const char *value) {
            budget->objectiveBox()->setCurrentIndex(budget->objectiveBox()->findData(QString::fromLatin1(value)));
            return QTest::qWaitFor([&] { return !w.isBusy() && budget->data(); }, 60000)
                       ? QString::fromStdString(budget->data()->problem.objective)
                       : QString();
        };
        QCOMPARE(objective("weight"), QStringLiteral("weight"));
        QVERIFY(budget->objectiveNote()->text().contains(QStringLiteral("weight error, as asked")));
        QCOMPARE(objective("output"), QStringLiteral("output"));
        QVERIFY(budget->objectiveNote()->text().contains(QStringLiteral("calib.capture.safetensors")));
    }
};

QTEST_MAIN(TestModelWindow)
#include "tst_modelwindow.moc"
