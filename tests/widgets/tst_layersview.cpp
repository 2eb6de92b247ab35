// SPDX-License-Identifier: MIT
// The Layers tab in the real window (issue 24): the scan runs as the window's background job on
// the demo, the heat map has one cell per (layer, projection) the demo holds — counted here from
// `quantscope-cli scan`'s own report — each coloured by that report's value (experts averaged),
// a click on a cell selects its tensor in the browser, and the report travels in the session.
#include "test_env.h"
#include "demo/demo.h"
#include "layerheatmap.h"
#include "layersview.h"
#include "mainwindow.h"
#include "quantizerpanel.h"
#include "scancontroller.h"
#include "tensorbrowser.h"

#include <QFile>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <regex>

using namespace quantscope;

class TestLayersView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_layersview"));
    }

    void heatMapCellsAreTheReportsValuesAndAClickSelects()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        // Empty, the view says what to do next in this state: open a checkpoint first ...
        const auto *summary = w.scans()->view()->summary();
        QVERIFY2(summary->text().contains(QStringLiteral("No checkpoint open")), qPrintable(summary->text()));
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDemo();
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        // ... then, with the demo open, scan it (not "open a checkpoint", issue 42).
        QVERIFY2(!summary->text().contains(QStringLiteral("open"), Qt::CaseSensitive) ||
                     summary->text().contains(QStringLiteral("is open")),
                 qPrintable(summary->text()));
        QVERIFY2(summary->text().contains(w.scans()->view()->scanButton()->text()), qPrintable(summary->text()));
        QVERIFY2(summary->text().contains(QStringLiteral("demo"), Qt::CaseInsensitive), qPrintable(summary->text()));
        const nlohmann::json spec = {{"method", "int"}, {"bits", 3}, {"group", 64}};
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", spec}}).isEmpty());

        auto *view = w.scans()->view();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        tabs->setCurrentWidget(view);
        QFile::remove(w.scans()->reportPath(w.scans()->options())); // a fresh scan, not a resumed one
        view->scanButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return view->lines() != nullptr; }, 300000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));

        // The same scan by the CLI: its report is the reference.
        const QString demo = QString::fromStdString(demo::ensureDemoCheckpoint().string());
        QTemporaryDir tmp;
        const QString specFile = tmp.filePath(QStringLiteral("spec.json"));
        {
            QFile f(specFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(spec.dump()));
        }
        QProcess p;
        p.start(QStringLiteral(QUANTSCOPE_CLI),
                {QStringLiteral("scan"), demo, QStringLiteral("--specs"), specFile, QStringLiteral("--device"),
                 QStringLiteral("cpu"), QStringLiteral("--quiet")});
        QVERIFY(p.waitForFinished(300000) && p.exitCode() == 0);
        std::map<std::pair<int, std::string>, std::vector<std::pair<double, std::string>>> cells;
        const std::regex re(R"(.*layers\.(\d+)\..*\.(q|k|v|o|gate|up|down)_proj)");
        bool header = true;
        for (const auto &raw : p.readAllStandardOutput().split('\n')) {
            if (raw.isEmpty())
                continue;
            const auto j = nlohmann::json::parse(raw.toStdString());
            if (header) {
                header = false;
                continue;
            }
            std::smatch m;
            const std::string module = j["module"];
            if (std::regex_match(module, m, re))
                cells[{std::stoi(m[1]), m[2]}].emplace_back(j["runs"][0]["metrics"]["rel_frobenius"].get<double>(),
                                                            j["tensor"].get<std::string>());
        }
        QVERIFY(!cells.empty());

        auto *map = view->heatMap();
        map->replot();
        const auto grid = map->grid();
        QVERIFY(grid);
        int present = 0;
        for (const auto &row : grid->cells)
            for (const auto &c : row)
                present += c.present;
        QCOMPARE(present, static_cast<int>(cells.size()));
        double lo = 1e300, hi = -1e300;
        std::map<std::pair<int, std::string>, double> mean;
        for (const auto &[key, vs] : cells) {
            double s = 0;
            for (const auto &v : vs)
                s += v.first;
            mean[key] = s / static_cast<double>(vs.size());
            lo = std::min(lo, mean[key]);
            hi = std::max(hi, mean[key]);
        }
        const std::vector<std::string> cols = {"q", "k", "v", "o", "gate", "up", "down"};
        QCPColorGradient gradient =
            map->findChild<QCPColorScale *>() ? map->findChild<QCPColorScale *>()->gradient() : QCPColorGradient();
        for (std::size_t r = 0; r < grid->layers.size(); ++r)
            for (std::size_t c = 0; c < cols.size(); ++c) {
                const auto it = mean.find({grid->layers[r], cols[c]});
                QCOMPARE(grid->cells[r][c].present, it != mean.end());
                if (it == mean.end())
                    continue;
                QVERIFY(std::abs(grid->cells[r][c].value - it->second) <= 1e-12 * it->second);
                QRgb rgb = 0;
                gradient.colorize(&it->second, QCPRange(lo, hi), &rgb, 1);
                QCOMPARE(map->cellColor(static_cast<int>(r), static_cast<int>(c)), QColor::fromRgba(rgb));
            }

        // A click on layer 0's down_proj selects that tensor.
        const int row = static_cast<int>(std::find(grid->layers.begin(), grid->layers.end(), 0) - grid->layers.begin());
        const QString tensor = QString::fromStdString(cells.at({0, "down"}).front().second);
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCenter(row, 6));
        QCOMPARE(w.browser()->selectedTensors(), QStringList{tensor});
        QVERIFY(!map->toolTipAt(map->cellCenter(row, 6)).isEmpty());

        // The report is part of the session: a new window shows the same grid from the file.
        const QString session = tmp.filePath(QStringLiteral("s.qscope"));
        QVERIFY(w.saveSession(session));
        MainWindow w2;
        QVERIFY(w2.openSession(session));
        auto *view2 = w2.scans()->view();
        QVERIFY(view2->lines());
        QCOMPARE(view2->lines()->size(), view->lines()->size());
        const auto grid2 = view2->heatMap()->grid();
        QVERIFY(grid2);
        QCOMPARE(grid2->cells[static_cast<std::size_t>(row)][6].value,
                 grid->cells[static_cast<std::size_t>(row)][6].value);
        QVERIFY(QTest::qWaitFor([&] { return !w2.isBusy(); }, 120000));

        // With residual spectra the scan is another one (its own report), and the residual
        // rank at τ colours the cells.
        view->setSpectra(true);
        QVERIFY(w.scans()->reportPath(w.scans()->options()) != w.scans()->reportPath([&] {
            auto o = w.scans()->options();
            o.spectra = SpectraMode::Off;
            return o;
        }()));
        QFile::remove(w.scans()->reportPath(w.scans()->options()));
        const auto before = view->lines();
        view->scanButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return view->lines() != before; }, 300000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        view->setMetric(LayerMetric::ResidualRank);
        const auto rank = view->heatMap()->grid();
        QVERIFY(rank && std::isfinite(rank->cells[static_cast<std::size_t>(row)][6].value));
        QVERIFY(rank->cells[static_cast<std::size_t>(row)][6].value >= 1);
    }
};

QTEST_MAIN(TestLayersView)
#include "tst_layersview.moc"
