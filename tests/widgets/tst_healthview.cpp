// SPDX-License-Identifier: MIT
// The Health tab in the real window (issue 28): the doctor runs as the window's background job on
// the opened checkpoint; the table has one row per finding of the doctor's own report on the same
// path (severity, check, tensor, message), and a click on a row naming a tensor selects it.
#include "test_env.h"
#include "healthcontroller.h"
#include "healthview.h"
#include "io/safetensors.h"
#include "mainwindow.h"
#include "tensorbrowser.h"
#include "tensor/tensor.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QLabel>
#include <random>
#include <set>

using namespace quantscope;

class TestHealthView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_healthview"));
    }

    void rowsAreTheDoctorsFindingsAndAClickSelects()
    {
        // A checkpoint the readers open but the doctor has things to say about: a zero KV scale
        // (error), a duplicated weight (info).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::mt19937 rng(3);
        std::normal_distribution<float> nd(0.0f, 0.02f);
        std::vector<float> w(64 * 128);
        for (auto &x : w)
            x = nd(rng);
        const auto file = std::filesystem::path(dir.path().toStdString()) / "model.safetensors";
        writeSafetensors(file,
                         {{"model.layers.0.mlp.up_proj.weight", Tensor::fromFloats({64, 128}, w)},
                          {"model.layers.0.mlp.gate_proj.weight", Tensor::fromFloats({64, 128}, w)},
                          {"model.layers.0.self_attn.k_scale", Tensor::fromFloats({}, std::vector<float>{0.0f})}});
        const DoctorReport expected = runDoctor(file);
        QVERIFY(expected.count(Severity::Error) >= 1);

        MainWindow w2;
        w2.resize(1400, 900);
        w2.show();
        QSignalSpy loaded(&w2, &MainWindow::loadFinished);
        w2.openPath(QString::fromStdString(file.string()));
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
        QVERIFY(QTest::qWaitFor([&] { return !w2.isBusy(); }, 120000));
        HealthView *view = w2.health()->view();
        auto *tabs = w2.findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        tabs->setCurrentWidget(view);
        view->checkButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return !w2.isBusy() && view->report().tensors > 0; }, 120000));

        QTableWidget *t = view->table();
        QCOMPARE(t->rowCount(), static_cast<int>(expected.findings.size()));
        t->sortItems(0, Qt::AscendingOrder); // sorting must keep each row whole
        std::multiset<std::string> want, got;
        for (const auto &f : expected.findings)
            want.insert(f.check + "|" + f.tensor + "|" + f.message);
        int tensorRow = -1;
        for (int r = 0; r < t->rowCount(); ++r) {
            got.insert(t->item(r, 1)->text().toStdString() + "|" +
                       t->item(r, 2)->data(Qt::UserRole).toString().toStdString() + "|" +
                       t->item(r, 4)->text().toStdString());
            if (t->item(r, 2)->data(Qt::UserRole).toString().endsWith(QLatin1String("_proj.weight")))
                tensorRow = r;
        }
        QVERIFY(want == got);
        QVERIFY(view->summary()->text().contains(QString::number(expected.count(Severity::Error))));
        QVERIFY(tensorRow >= 0); // the duplicate (info) names one copy
        const QString tensor = t->item(tensorRow, 2)->data(Qt::UserRole).toString();
        const QRect cell = t->visualItemRect(t->item(tensorRow, 2));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(w2.browser()->selectedTensors(), QStringList{tensor});
    }
};

QTEST_MAIN(TestHealthView)
#include "tst_healthview.moc"
