// SPDX-License-Identifier: MIT
// The Recipe and Budget tabs in the real window (issue 27): the recipe editor counts against the
// opened demo's modules; a scan with two configurations gives the budget two candidates per
// module and its slider's stops, and a report given back to the Layers view (as a session
// restores it) feeds it the same way; the Budget tab's Export hands the chosen recipe to the
// Export tab; the sweep of the selected tensor runs in the background, one curve per family.
#include "test_env.h"
#include "budgetview.h"
#include "exporterpanel.h"
#include "layersview.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "plancontroller.h"
#include "quantizerpanel.h"
#include "recipeeditor.h"
#include "scancontroller.h"
#include "tensorbrowser.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace quantscope;

class TestPlanWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_planwindow"));
    }

    void scanFeedsTheBudgetAndExportGoesToTheExportTab()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDemo();
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        // The editor counts the demo's 2-D weights (the default rule wins them all).
        RecipeEditor *editor = w.plan()->recipeEditor();
        const int modules = static_cast<int>(editor->check().modules.size());
        QVERIFY(modules > 10);
        QCOMPARE(editor->wins(0), modules);

        QVERIFY(w.quantizerPanel()
                    ->setConfigurations({{"A", {{"method", "int"}, {"bits", 3}, {"group", 64}}},
                                         {"B", {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}}}})
                    .isEmpty());
        auto *layers = w.scans()->view();
        QFile::remove(w.scans()->reportPath(w.scans()->options()));
        layers->scanButton()->click();
        BudgetView *budget = w.plan()->budgetView();
        QVERIFY(QTest::qWaitFor([&] { return budget->slider()->isEnabled(); }, 300000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        const BudgetSolution *s = budget->currentSolution();
        QVERIFY(s);
        QCOMPARE(static_cast<int>(s->choice.size()), modules);
        QVERIFY(s->bytes <= s->budgetBytes);
        // The smallest budget takes the 3-bit spec everywhere, the largest the 8-bit one; lm_head,
        // the embeddings and the router stay dense (their one candidate).
        budget->setStep(0);
        for (int c : budget->currentSolution()->choice)
            QCOMPARE(c, 0);
        budget->setStep(budget->slider()->maximum());
        const auto &budgetModules = budget->currentSolution()->choice;
        int dense = 0;
        for (std::size_t i = 0; i < budgetModules.size(); ++i) {
            const bool kept = !budget->data()->problem.modules[i].denseReason.empty();
            dense += kept ? 1 : 0;
            QCOMPARE(budgetModules[i], kept ? 0 : 1);
        }
        QVERIFY(dense >= 2);

        // The Layers view's lines are the budget's source: cleared, it clears; given back (as a
        // session restores them), it comes back.
        const auto lines = layers->lines();
        layers->setLines(nullptr);
        QVERIFY(!budget->slider()->isEnabled());
        layers->setLines(lines);
        QVERIFY(QTest::qWaitFor([&] { return budget->slider()->isEnabled(); }, 120000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));

        budget->setStep(budget->slider()->maximum() / 2);
        budget->exportButton()->click();
        auto *tabs = w.viewTabs();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(w.exporter()));
        QCOMPARE(w.exporter()->recipeEdit()->toPlainText(), budget->recipeJson());
        // compressed-tensors takes INT3 and INT8 (Quark, the first target, has no INT3 dtype).
        w.exporter()->formatBox()->setCurrentText(QStringLiteral("compressed-tensors"));
        QVERIFY2(!w.exporter()->previewText().isEmpty(), qPrintable(w.exporter()->status()->text()));

        // The sweep of the selected tensor.
        w.browser()->setSelectedTensors({QStringLiteral("model.layers.0.self_attn.k_proj.weight")});
        budget->sweepButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !budget->sweepPlot()->curves().empty(); }, 300000));
        QVERIFY(budget->sweepPlot()->curves().size() >= 8);
        QVERIFY(budget->sweepPlot()->mark().valid()); // configuration A is on the grid (INT3 g64)
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
    }
};

QTEST_MAIN(TestPlanWindow)
#include "tst_planwindow.moc"
