// SPDX-License-Identifier: MIT
// The Spectrum view in the real window draws what the job computed: the demo's q_proj run with
// spectra on has one σ point per singular value of the job, the τ counts shown equal
// `quantscope-cli spectrum --json` for the same tensor and spec (at two τ), the rank slider's
// error / bits / MB labels equal the values the spectrum and the storage formula imply, and
// "Run MiLo at this rank" adds the configuration as MiLo at that rank, runs only it (the
// finished results stay) and shows its passes; Compute runs only what lacks its spectrum.
#include "test_env.h"
#include "demo/demo.h"
#include "results/spectrum_plot.h"
#include "mainwindow.h"
#include "quantizerpanel.h"
#include "rankcurveplot.h"
#include "sigmaplot.h"
#include "spectrumview.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"
#include "theme.h"

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace quantscope;

namespace {

const char *const kTensor = "model.layers.0.self_attn.q_proj.weight";

bool waitIdle(MainWindow &w, int ms = 180000)
{
    return QTest::qWaitFor([&] { return !w.isBusy(); }, ms);
}

bool runAndWait(MainWindow &w)
{
    QSignalSpy finished(&w, &MainWindow::jobFinished);
    w.runQuantization();
    return finished.wait(180000) && finished.first().first().toBool() && waitIdle(w);
}

QString demoPath()
{
    return QString::fromStdString(demo::ensureDemoCheckpoint().string());
}

} // namespace

class TestSpectrumView : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

    /// `quantscope-cli spectrum` on the demo's q_proj with `spec` and `tau`, top 64.
    nlohmann::json cliSpectrum(const nlohmann::json &spec, double tau)
    {
        const auto specFile = m_home.filePath(QStringLiteral("spec.json"));
        QFile f(specFile);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QByteArray::fromStdString(spec.dump()));
        f.close();
        QProcess cli;
        cli.start(QStringLiteral(QUANTSCOPE_CLI),
                  {QStringLiteral("spectrum"), demoPath(), QStringLiteral("--tensor"), QString::fromUtf8(kTensor),
                   QStringLiteral("--spec"), specFile, QStringLiteral("--top"),
                   QString::number(SpectrumView::kDefaultTop), QStringLiteral("--tau"), QString::number(tau),
                   QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--quiet"),
                   QStringLiteral("--json")});
        if (!cli.waitForFinished(120000) || cli.exitCode() != 0) {
            qWarning() << cli.readAllStandardError();
            return {};
        }
        return nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_spectrumview"));
    }

    void spectrumEqualsJobAndCli()
    {
        MainWindow w;
        w.resize(1400, 900);
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDemo();
        QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
        QVERIFY(waitIdle(w));
        auto *view = w.spectrumView();
        QVERIFY(view);
        QCOMPARE(w.viewTabs()->indexOf(view), 2);
        QVERIFY(!view->spectrumOptions()); // off until asked for

        QStringList names;
        for (const auto &e : w.browser()->model()->entries())
            if (e.name.endsWith(QString::fromUtf8(kTensor)))
                names << e.name;
        QCOMPARE(names.size(), 1);
        w.quantizerPanel()->setConfigurations(
            {{"A", {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}}}});
        w.browser()->setSelectedTensors(names);
        view->setSpectrumEnabled(true);
        QCOMPARE(view->spectrumOptions()->top, SpectrumView::kDefaultTop);
        QVERIFY(runAndWait(w));

        const auto results = w.results();
        QVERIFY(results);
        const auto *o = results->outcome(names.first().toStdString(), "A");
        QVERIFY(o && o->ok());
        QVERIFY(o->spectrum);
        const Spectrum &s = *o->spectrum;
        QCOMPARE(static_cast<int>(s.sigma.size()), SpectrumView::kDefaultTop);

        // One σ point per singular value of the job, drawn as the job computed them.
        auto *sigma = view->sigmaPlot();
        QCOMPARE(sigma->sigmaGraphs().size(), 1);
        auto *g = sigma->sigmaGraphs().first();
        QCOMPARE(g->data()->size(), static_cast<int>(s.sigma.size()));
        for (int i = 0; i < g->data()->size(); ++i)
            QCOMPARE(g->data()->at(i)->value, s.sigma[static_cast<std::size_t>(i)]);
        QCOMPARE(g->name(), QStringLiteral("A · INT4 g128 sym"));
        QCOMPARE(sigma->tauLines().first()->point1->coords().y(), 0.5 * s.sigma.front());
        const auto [rows0, cols0] = matrixView(results->profile(o->tensor)->shape);

        // The τ counts equal the CLI's for the same tensor and spec, at τ = 0.5 and 0.3.
        for (const double tau : {0.5, 0.3}) {
            view->setTau(tau);
            const auto json = cliSpectrum(o->spec, tau);
            QVERIFY(json.is_object());
            QCOMPARE(json["sigma"].size(), s.sigma.size());
            for (std::size_t i = 0; i < s.sigma.size(); ++i)
                QVERIFY(std::abs(json["sigma"][i].get<double>() - s.sigma[i]) <= 1e-9 * s.sigma[0]);
            const auto &c = view->shownCounts().at(QStringLiteral("A"));
            QCOMPARE(c.geTau, json["n_sigma_ge_tau"].get<std::int64_t>());
            QCOMPARE(c.ltTau, json["n_sigma_lt_tau"].get<std::int64_t>());
            QCOMPARE(c.geExact, json["n_sigma_ge_tau_exact"].get<bool>());
            QCOMPARE(c.derived, json["derived"].get<bool>());
            QVERIFY(view->countsLabel()->text().contains(QStringLiteral("%1 σ ≥ τ·σ₁").arg(c.geTau)));
            QCOMPARE(sigma->tauLines().first()->point1->coords().y(), tau * s.sigma.front());

            // The rank slider: error, bits per element and MB the spectrum and storage imply.
            const auto [rows, cols] = matrixView(results->profile(o->tensor)->shape);
            for (const int r : {0, 1, 10, SpectrumView::kDefaultTop}) {
                view->rankSlider()->setValue(r);
                const double err =
                    r == 0 ? json["fro_norm"].get<double>() : json["err_after_rank"][r - 1].get<double>();
                const double bits =
                    o->bitsPerElement + static_cast<double>((rows + cols) * r * 16) / static_cast<double>(rows * cols);
                const double mb =
                    (static_cast<double>(o->storedBytes) + static_cast<double>((rows + cols) * r * 2)) / 1e6;
                const auto errorText = view->errorLabel()->text();
                const auto sizeText = view->sizeLabel()->text();
                QVERIFY2(errorText.contains(SpectrumView::numberText(err)), qPrintable(errorText));
                QVERIFY2(sizeText.contains(SpectrumView::numberText(bits) + QStringLiteral(" bits/element")),
                         qPrintable(sizeText));
                QVERIFY2(sizeText.contains(SpectrumView::numberText(mb) + QStringLiteral(" MB")), qPrintable(sizeText));
                QCOMPARE(view->errorPlot()->marker(), static_cast<double>(r));
                QCOMPARE(view->sizePlot()->marker(), static_cast<double>(r));
            }
        }
        QCOMPARE(view->rankSlider()->maximum(), SpectrumView::kDefaultTop);
        for (auto *p : {view->energyPlot(), view->errorPlot(), view->sizePlot()})
            QCOMPARE(p->curveGraphs().first()->data()->size(), SpectrumView::kDefaultTop + 1);
        QVERIFY(!view->passPlot()->isVisibleTo(view));

        // Exports of the σ plot: CSV with one row per σ, and the pictures.
        QTemporaryDir out;
        QVERIFY(sigma->exportTo(out.filePath(QStringLiteral("s.csv")), PlotWidget::Format::Csv));
        QFile csv(out.filePath(QStringLiteral("s.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll().count('\n'), static_cast<int>(s.sigma.size()) + 1);
        for (PlotWidget *p : std::initializer_list<PlotWidget *>{sigma, view->errorPlot(), view->sizePlot()})
            for (const char *suffix : {".png", ".svg", ".pdf"}) {
                const auto file = out.filePath(p->exportName() + QString::fromUtf8(suffix));
                QVERIFY(p->exportTo(file, PlotWidget::formatForFile(file)));
                QVERIFY(QFileInfo(file).size() > 100);
            }
        // Tooltips carry the values under the mouse.
        const QPoint first(qRound(sigma->xAxis->coordToPixel(1)), qRound(sigma->yAxis->coordToPixel(s.sigma[0])));
        QVERIFY2(sigma->toolTipAt(first).contains(QLocale().toString(s.sigma[0], 'g', 5)),
                 qPrintable(sigma->toolTipAt(first)));
        const QPoint rank10(qRound(view->sizePlot()->xAxis->coordToPixel(10)),
                            view->sizePlot()->axisRect()->rect().center().y());
        QVERIFY(view->sizePlot()->toolTipAt(rank10).contains(QStringLiteral("A · INT4 g128 sym")));

        // The plots follow the palette (the dark theme recolours the curves and axes).
        QPalette dark = view->palette();
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        view->setPalette(dark);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(g->pen().color(), theme::configColor(0, dark));
        QCOMPARE(sigma->xAxis->tickLabelColor(), dark.color(QPalette::WindowText));
        QCOMPARE(view->sizePlot()->curveGraphs().first()->pen().color(), theme::configColor(0, dark));

        // Compute turns spectra on and runs: top 64 again, or every value on request.
        view->setSpectrumEnabled(false);
        view->setFullSpectrum(true);
        QCOMPARE(view->spectrumOptions(), std::nullopt);
        {
            QSignalSpy again(&w, &MainWindow::jobFinished);
            QTest::mouseClick(view->findChild<QPushButton *>(QStringLiteral("computeButton")), Qt::LeftButton);
            QVERIFY(view->spectrumEnabled());
            QCOMPARE(view->spectrumOptions()->top, 0);
            QVERIFY(again.wait(180000));
            QVERIFY(waitIdle(w));
            const auto *full = w.results()->outcome(names.first().toStdString(), "A");
            QVERIFY(full && full->spectrum && full->spectrum->complete);
            QCOMPARE(static_cast<std::int64_t>(full->spectrum->sigma.size()), std::min(rows0, cols0));
            QCOMPARE(sigma->sigmaGraphs().first()->data()->size(), static_cast<int>(full->spectrum->sigma.size()));
        }
        view->setFullSpectrum(false);

        // Compute again with every spectrum there: nothing runs, the results stay as they are.
        const auto before = w.results();
        {
            QSignalSpy again(&w, &MainWindow::jobFinished);
            QTest::mouseClick(view->findChild<QPushButton *>(QStringLiteral("computeButton")), Qt::LeftButton);
            QVERIFY(!again.wait(1000));
            QCOMPARE(w.results(), before);
        }
        const double aError = before->outcome(names.first().toStdString(), "A")->metrics.relFrobenius;
        const auto aSpectrum = before->outcome(names.first().toStdString(), "A")->spectrum->sigma;

        // Run MiLo at this rank: MiLo with that rank is added as B and only B runs; A's result
        // (and its full spectrum) stays.
        view->rankSlider()->setValue(8);
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        QTest::mouseClick(view->runMiloButton(), Qt::LeftButton);
        const auto configs = w.quantizerPanel()->configurations();
        QCOMPARE(configs.size(), std::size_t{2});
        QCOMPARE(configs[0].spec["method"], "int");
        QCOMPARE(configs[1].name, "B");
        QCOMPARE(configs[1].spec["method"], "milo");
        QCOMPARE(configs[1].spec["rank"], 8);
        QCOMPARE(configs[1].spec["bits"], 4);
        QCOMPARE(configs[1].spec["group"], 128);
        QVERIFY(finished.wait(240000) && finished.first().first().toBool());
        QVERIFY(waitIdle(w));
        const auto *kept = w.results()->outcome(names.first().toStdString(), "A");
        QVERIFY(kept && kept->metrics.relFrobenius == aError && kept->spectrum && kept->spectrum->sigma == aSpectrum);
        const auto *milo = w.results()->outcome(names.first().toStdString(), "B");
        QVERIFY(milo && milo->ok() && milo->method == "milo");
        QVERIFY(!milo->history.empty());
        QVERIFY(view->passPlot()->isVisibleTo(view));
        auto *passes = view->passPlot()->curveGraphs().first();
        QCOMPARE(passes->data()->size(), static_cast<int>(milo->history.size()));
        for (int i = 0; i < passes->data()->size(); ++i)
            QCOMPARE(passes->data()->at(i)->value, milo->history[static_cast<std::size_t>(i)].eps);
        view->setCurrentConfig(QStringLiteral("B"));
        QCOMPARE(view->passPlot()->marker(), static_cast<double>(milo->chosenPass));
    }
};

QTEST_MAIN(TestSpectrumView)
#include "tst_spectrumview.moc"
