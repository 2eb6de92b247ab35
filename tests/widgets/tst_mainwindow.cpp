// SPDX-License-Identifier: MIT
// The real window on the offscreen platform: bad input gives an error message and no crash, a
// cancelled job keeps only the runs that finished (and the window is idle at once), a newer run makes an older
// one stale, failing specs are reported readably, and a session round-trips.
#include "test_env.h"
#include "distributionview.h"
#include "histogramplot.h"
#include "jobboard.h"
#include "jobprogresswidget.h"
#include "scancontroller.h"
#include "plancontroller.h"
#include "logview.h"
#include "mainwindow.h"
#include "results/config_label.h"
#include "numbersmodel.h"
#include "overviewmodel.h"
#include "overviewview.h"
#include "numbersview.h"
#include "quantizerpanel.h"
#include "specform.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QDialog>
#include <QThread>

using namespace quantscope;

namespace {

nlohmann::json spec(std::initializer_list<std::pair<const char *, nlohmann::json>> kv)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[k, v] : kv)
        j[k] = v;
    return j;
}

/// Waits for the window to finish everything it started (loads, device query, jobs).
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

QMessageBox *visibleBox(QWidget &w, const QString &name)
{
    for (auto *box : w.findChildren<QMessageBox *>())
        if (box->isVisible() && (name.isEmpty() || box->objectName() == name))
            return box;
    return nullptr;
}

void closeBoxes(QWidget &w)
{
    for (auto *box : w.findChildren<QMessageBox *>())
        box->close();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_mainwindow"));
    }

    void docksAndPool()
    {
        MainWindow w;
        QVERIFY(waitIdle(w));
        // Every core (a 2-core machine ran quantize jobs on 1 thread with "cores − 1").
        QCOMPARE(w.poolThreads(), std::max(1, QThread::idealThreadCount()));
        for (const char *name : {"tensorsDock", "quantizerDock", "jobDock", "logDock"})
            QVERIFY2(w.findChild<QDockWidget *>(QString::fromUtf8(name)), name);
        // The log names the compute device and its memory.
        QVERIFY(w.logView()->messages().join(QLatin1Char('\n')).contains(QStringLiteral("GiB")));
        // Every engine method is offered; the form is generated from its fields.
        auto *panel = w.quantizerPanel();
        QCOMPARE(panel->methods().size(), quantizerMethods().size());
        const auto methods = quantizerMethods();
        // Only the fields that apply to the method and its granularity have an editor.
        for (const auto &f : methods.front().fields)
            QVERIFY2(!panel->editor(0, QString::fromStdString(f.key)) ==
                         !specFieldApplies(panel->configurations()[0].spec, f.key),
                     f.key.c_str());
        QVERIFY(qobject_cast<QSpinBox *>(panel->editor(0, QStringLiteral("bits"))));
        QVERIFY(qobject_cast<QComboBox *>(panel->editor(0, QStringLiteral("granularity"))));
        QVERIFY(qobject_cast<QCheckBox *>(panel->editor(0, QStringLiteral("symmetric"))));
        for (int i = 1; i < QuantizerPanel::kMaxConfigurations; ++i)
            QVERIFY(panel->addConfiguration());
        QVERIFY(!panel->addConfiguration());
        QCOMPARE(panel->configurationCount(), 4);
        // An edit lands in the spec; a spec the engine refuses is explained.
        auto *bits = qobject_cast<QSpinBox *>(panel->editor(1, QStringLiteral("bits")));
        bits->setValue(3);
        QVERIFY(panel->configurations()[1].spec["bits"] == 3);
        qobject_cast<QCheckBox *>(panel->editor(1, QStringLiteral("symmetric")))->setChecked(false);
        auto *rule = qobject_cast<QComboBox *>(panel->editor(1, QStringLiteral("scale_rule")));
        rule->setCurrentIndex(rule->findData(QStringLiteral("max")));
        QVERIFY(panel->validationError(1).contains(QStringLiteral("symmetric")));
    }

    // `--help` lists MainWindow::viewNames() for --view: every tab is one of them, and each of
    // them is a tab (a new tab without a name, or a renamed one, fails).
    void everyTabHasAViewName()
    {
        MainWindow w;
        QStringList tabs;
        for (int i = 0; i < w.viewTabs()->count(); ++i) {
            const auto name = w.viewTabs()->widget(i)->objectName();
            QVERIFY2(name.endsWith(QStringLiteral("View")), qPrintable(w.viewTabs()->tabText(i)));
            tabs << name.chopped(4);
        }
        auto names = MainWindow::viewNames();
        tabs.sort();
        names.sort();
        QCOMPARE(tabs, names);
    }

    // File ▸ Export Report (issue 42): one self-contained HTML file with the run's
    // configurations, its tensor, a plot per tensor, the checkpoint's hash; written in the
    // background (the window is busy meanwhile, then idle).
    void exportReportWritesOneSelfContainedFile()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runDemoQuantization();
        QVERIFY(finished.wait(120000) && finished.first().first().toBool());
        QVERIFY(waitIdle(w));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("report.html"));
        QSignalSpy exported(&w, &MainWindow::reportExported);
        w.exportReport(file);
        QVERIFY(exported.wait(120000));
        QVERIFY2(exported.first().first().toBool(), qPrintable(exported.first().at(1).toString()));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        for (const auto &c : w.quantizerPanel()->configurations())
            QVERIFY2(html.contains(QString::fromStdString(c.name)), c.name.c_str());
        for (const auto &o : w.results()->outcomes)
            QVERIFY2(html.contains(QString::fromStdString(o.tensor)), o.tensor.c_str());
        QCOMPARE(html.count(QStringLiteral("<svg")), 2 * static_cast<int>(w.results()->tensors.size()));
        QVERIFY(QRegularExpression(QStringLiteral("fnv1a64:[0-9a-f]{16}")).match(html).hasMatch());
        for (const char *external : {"http://", "https://", "<script", " src="})
            QVERIFY2(!html.contains(QLatin1String(external)), external);
        QVERIFY(waitIdle(w));
    }

    // Help ▸ User Guide opens the guide shipped in the app (not a file of the source tree).
    void helpOpensTheUserGuide()
    {
        MainWindow w;
        QAction *guide = nullptr;
        for (auto *a : w.findChildren<QAction *>())
            if (a->objectName() == QLatin1String("userGuideAction"))
                guide = a;
        QVERIFY(guide);
        guide->trigger();
        auto *dialog = w.findChild<QDialog *>(QStringLiteral("userGuide"));
        QVERIFY(dialog && dialog->isVisible());
        auto *browser = dialog->findChild<QTextBrowser *>();
        QVERIFY(browser);
        QFile source(QStringLiteral(":/help/user-guide"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QVERIFY(source.size() > 10000);
        const QString text = browser->toPlainText();
        for (const char *part : {"Export Report", "Quantizer", "The Model view"})
            QVERIFY2(text.contains(QLatin1String(part)), part);
        guide->trigger(); // again: the same window
        QCOMPARE(w.findChildren<QDialog *>(QStringLiteral("userGuide")).size(), 1);
    }

    void everyEngineMethodHasAFormAndRuns()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        auto *panel = w.quantizerPanel();
        const auto methods = quantizerMethods();
        QCOMPARE(panel->methods().size(), methods.size());
        w.browser()->setSelectedTensors({QStringLiteral("model.layers.0.self_attn.k_proj.weight")});
        // Four configurations at a time: every method with its defaults.
        for (std::size_t first = 0; first < methods.size(); first += QuantizerPanel::kMaxConfigurations) {
            std::vector<JobConfig> configs;
            for (std::size_t i = first; i < std::min(methods.size(), first + QuantizerPanel::kMaxConfigurations); ++i)
                configs.push_back({std::string(1, static_cast<char>('A' + (i - first))), methods[i].defaults});
            QVERIFY(panel->setConfigurations(configs).isEmpty());
            for (std::size_t c = 0; c < configs.size(); ++c) {
                const auto &m = methods[first + c];
                QVERIFY2(panel->validationError(static_cast<int>(c)).isEmpty(), m.method.c_str());
                for (const auto &f : m.fields) {
                    auto *editor = panel->editor(static_cast<int>(c), QString::fromStdString(f.key));
                    if (!specFieldApplies(configs[c].spec, f.key)) {
                        QVERIFY2(!editor, (m.method + "." + f.key + " does not apply").c_str());
                        continue;
                    }
                    // Generated from the field's kind: an enabled editor, never the read-only
                    // fallback for kinds the GUI does not know.
                    QVERIFY2(editor && editor->isEnabled() && !qobject_cast<QLabel *>(editor),
                             (m.method + "." + f.key + " (" + f.kind + ")").c_str());
                }
            }
            QSignalSpy finished(&w, &MainWindow::jobFinished);
            w.runQuantization();
            QVERIFY(finished.wait(120000));
            for (const auto &o : w.results()->outcomes) {
                if (o.method == "gptq" || o.method == "awq") {
                    // Data-aware: without a paired capture they refuse, saying what to run first.
                    QVERIFY2(!o.ok() && o.error.find("capture them first") != std::string::npos,
                             (o.method + ": " + o.error).c_str());
                    continue;
                }
                QVERIFY2(o.ok(), (o.method + ": " + o.error).c_str());
            }
            QCOMPARE(w.results()->outcomes.size(), configs.size());
        }
        // A nested spec (a ProgressiveSpec stage) is edited by the same schema form as a recipe
        // rule's spec: its fields, no JSON to type; an edit lands in the stage.
        int stagesEdited = 0;
        for (std::size_t i = 0; i < methods.size(); ++i)
            for (const auto &f : methods[i].fields)
                if (f.kind == "spec") {
                    QVERIFY(panel->setConfigurations({{"A", methods[i].defaults}}).isEmpty());
                    auto *form = qobject_cast<SpecForm *>(panel->editor(0, QString::fromStdString(f.key)));
                    QVERIFY(form);
                    // No text box to type JSON in (a spin box's own line edit aside).
                    for (auto *edit : form->findChildren<QLineEdit *>())
                        QVERIFY(qobject_cast<QAbstractSpinBox *>(edit->parentWidget()));
                    QCOMPARE(form->spec()["method"], methods[i].defaults[f.key]["method"]);
                    if (auto *bits = qobject_cast<QSpinBox *>(form->editor(QStringLiteral("bits")))) {
                        bits->setValue(bits->value() == 4 ? 3 : 4);
                        QCOMPARE(panel->configurations()[0].spec[f.key]["bits"], bits->value());
                        QVERIFY(panel->validationError(0).isEmpty());
                        ++stagesEdited;
                    }
                }
        QVERIFY(stagesEdited >= 1);
    }

    void recentFilesThatHaveGoneAreGreyed()
    {
        const auto gone = m_home.filePath(QStringLiteral("gone.safetensors"));
        QSettings().setValue(QStringLiteral("recentCheckpoints"), QStringList{gone});
        MainWindow w;
        QMenu *recent = nullptr;
        for (auto *m : w.findChildren<QMenu *>())
            if (m->title() == QStringLiteral("Open &Recent"))
                recent = m;
        QVERIFY(recent);
        QAction *entry = nullptr;
        for (auto *a : recent->actions())
            if (a->text().contains(QStringLiteral("gone.safetensors")))
                entry = a;
        QVERIFY(entry);
        QVERIFY(!entry->isEnabled());
        QVERIFY(entry->text().contains(QStringLiteral("missing")));
        QSettings().remove(QStringLiteral("recentCheckpoints"));
        QVERIFY(waitIdle(w));
    }

    void badFileShowsErrorAndKeepsRunning()
    {
        MainWindow w;
        w.show();
        QVERIFY(waitIdle(w));
        const auto missing = m_home.filePath(QStringLiteral("missing/model.safetensors"));
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPath(missing);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().first().toBool(), false);
        QVERIFY(visibleBox(w, QStringLiteral("openErrorBox")));
        QVERIFY(w.logView()->count(LogView::Severity::Error) >= 1);
        QVERIFY(w.logView()->messages().last().contains(QStringLiteral("missing")));
        closeBoxes(w);

        // Bytes that are not a safetensors file.
        const auto garbage = m_home.filePath(QStringLiteral("garbage.safetensors"));
        QFile g(garbage);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(QByteArray("\xff\xff\xff\xff\xff\xff\xff\x7f{not json", 17));
        g.close();
        loaded.clear();
        w.openPath(garbage);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().first().toBool(), false);
        QVERIFY(visibleBox(w, QStringLiteral("openErrorBox")));
        QVERIFY(w.logView()->messages().last().contains(QStringLiteral("garbage.safetensors")));
        closeBoxes(w);

        // A session file that is not one.
        const auto badSession = m_home.filePath(QStringLiteral("bad.qscope"));
        QFile b(badSession);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write("{\"format\": \"something-else\"}");
        b.close();
        QVERIFY(!w.openSession(badSession));
        QVERIFY(w.logView()->messages().last().contains(QStringLiteral("not a Quantscope session")));
        closeBoxes(w);

        // Still working: the demo opens and nothing runs without a selection.
        QVERIFY(openDemo(w));
        QVERIFY(w.tensorCount() > 0);
        w.runQuantization();
        QVERIFY(!w.isJobRunning());
        QVERIFY(!w.results());

        // A NumPy file opens through the same path as a checkpoint.
        const QDir cache(m_home.filePath(QStringLiteral("cache/quantscope")));
        const auto demos = cache.entryList({QStringLiteral("demo-*")}, QDir::Dirs);
        QVERIFY(!demos.isEmpty());
        loaded.clear();
        w.openPath(cache.filePath(demos.first() + QStringLiteral("/activations.npy")));
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().first().toBool(), true);
        QCOMPARE(w.tensorCount(), 1);
        QVERIFY(waitIdle(w));
    }

    void cancelledJobKeepsOnlyFinishedRuns()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        // Every tensor × four configurations: seconds of work.
        w.browser()->setSelectedTensors([&] {
            QStringList all;
            for (const auto &e : w.browser()->model()->entries())
                all << e.name;
            return all;
        }());
        while (w.quantizerPanel()->addConfiguration()) {
        }
        w.runQuantization();
        QVERIFY(w.isJobRunning());
        QVERIFY(w.jobProgress()->isRunning());
        // Progress and time left arrive while it runs (the UI polls the job every 100 ms).
        QVERIFY(QTest::qWaitFor([&] { return w.jobProgress()->progressBar()->value() > 0; }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return w.jobProgress()->timeLeft().contains(QStringLiteral("left")); }, 5000));
        QVERIFY(w.isJobRunning());
        QElapsedTimer clock;
        clock.start();
        w.cancelJob();
        // Idle at once, not when the worker notices.
        QVERIFY(!w.isJobRunning());
        QVERIFY(!w.jobProgress()->isRunning());
        QVERIFY(!w.isBusy());
        QVERIFY2(clock.elapsed() < 200, qPrintable(QString::number(clock.elapsed())));
        // The worker stops at its next checkpoint; whatever it returns is dropped.
        QVERIFY(w.waitForWorkers(5000));
        qInfo("worker returned %lld ms after Cancel", static_cast<long long>(clock.elapsed()));
        QTest::qWait(100);
        QCOMPARE(finished.size(), 0);
        // What had finished stays, as a partial batch (tst_overview waits for some to finish).
        const auto kept = w.results();
        QCOMPARE(w.numbersView()->model()->columnCount(), kept ? static_cast<int>(kept->outcomes.size()) : 0);
        QVERIFY(!kept || kept->partial);
        QVERIFY(w.jobProgress()->statusText().contains(QStringLiteral("Cancelled")));
    }

    void jobsDockListsEveryJobWithCancelAndALogLine()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        auto *dock = w.findChild<QDockWidget *>(QStringLiteral("jobsDock"));
        QVERIFY(dock);
        auto *view = qobject_cast<JobsView *>(dock->widget());
        QVERIFY(view);
        auto *board = JobBoard::instance();
        auto newest = [board] { return board->entries().empty() ? nullptr : &board->entries().back(); };

        // A long quantization: listed while it runs, with progress; the dock's Cancel stops it
        // as the panel's Cancel does, and the log says so.
        w.browser()->setSelectedTensors([&] {
            QStringList all;
            for (const auto &e : w.browser()->model()->entries())
                all << e.name;
            return all;
        }());
        while (w.quantizerPanel()->addConfiguration()) {
        }
        w.runQuantization();
        QVERIFY(newest() && newest()->state == JobBoard::State::Running);
        const quint64 run = newest()->id;
        QVERIFY(newest()->title.startsWith(QStringLiteral("Quantizing")));
        QVERIFY(QTest::qWaitFor([&] { return board->entry(run)->fraction > 0; }, 5000));
        auto *row = view->row(run);
        QVERIFY(row);
        auto *cancel = qobject_cast<QPushButton *>(view->list()->itemWidget(row, 3));
        QVERIFY(cancel && !cancel->isHidden());
        cancel->click();
        QVERIFY(!w.isJobRunning());
        QCOMPARE(board->entry(run)->state, JobBoard::State::Cancelled);
        QVERIFY(cancel->isHidden());
        bool cancelLogged = false;
        for (const auto &m : w.logView()->messages())
            cancelLogged = cancelLogged || (m.startsWith(QStringLiteral("Quantizing")) &&
                                            m.contains(QStringLiteral("cancelled after")));
        QVERIFY2(cancelLogged, qPrintable(w.logView()->messages().join(QLatin1Char('\n'))));
        QVERIFY(w.waitForWorkers(10000));

        // A scan and a format sweep are listed too; each ends with a log line.
        const auto before = board->entries().size();
        w.scans()->scan();
        QVERIFY(newest() && newest()->title.startsWith(QStringLiteral("Scan of")));
        const quint64 scan = newest()->id;
        w.plan()->sweep();
        QVERIFY(board->entries().size() >= before + 1);
        QVERIFY(waitIdle(w));
        QCOMPARE(board->entry(scan)->state, JobBoard::State::Finished);
        QCOMPARE(board->entry(scan)->fraction, 1.0);
        bool logged = false;
        for (const auto &m : w.logView()->messages())
            logged = logged || (m.startsWith(QStringLiteral("Scan of")) && m.contains(QStringLiteral("finished in")));
        QVERIFY2(logged, qPrintable(w.logView()->messages().join(QLatin1Char('\n'))));
        QCOMPARE(board->runningCount(), 0);
        // Newest first in the dock.
        QCOMPARE(view->list()->topLevelItem(0)->data(0, Qt::UserRole).toULongLong(), board->entries().back().id);
    }

    void selectingATensorShowsItsHistogramBeforeAnyRun()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        QString tensor;
        for (const auto &e : w.browser()->model()->entries())
            if (e.name.endsWith(QLatin1String("layers.0.self_attn.q_proj.weight")))
                tensor = e.name;
        QVERIFY(!tensor.isEmpty());
        w.browser()->setSelectedTensors({tensor});
        // Computed on the pool; the view shows it as soon as it arrives.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.distributionView()->preview() &&
                       w.distributionView()->preview()->tensor == tensor.toStdString();
            },
            30000));
        const auto *preview = w.distributionView()->preview();
        auto *plot = w.distributionView()->histogramPlot();
        QCOMPARE(plot->graphCount(), 1);
        QCOMPARE(plot->graph(0)->dataCount(), w.quantizerPanel()->bins());
        QVERIFY(preview->stats.numel > 0 && preview->stats.std > 0);
        bool said = false;
        for (auto *l : w.distributionView()->findChildren<QLabel *>())
            said = said || l->text().contains(QStringLiteral("before any run"));
        QVERIFY(said);
        // The run's W series is the preview's, bin for bin.
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", spec({{"method", "int"}, {"bits", 4}})}}).isEmpty());
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(120000) && waitIdle(w));
        const auto *o = w.results()->outcome(tensor.toStdString(), "A");
        QVERIFY(o);
        QCOMPARE(o->plot.w.y, preview->histogram.y);
        QCOMPARE(o->plot.w.x, preview->histogram.x);
    }

    void editedConfigurationIsDrawnStaleUntilRunAgain()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        const auto int4 = spec({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}});
        const auto int8 = spec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}});
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", int4}, {"B", int8}}).isEmpty());
        QString tensor;
        for (const auto &e : w.browser()->model()->entries())
            if (e.name.endsWith(QLatin1String("layers.0.self_attn.q_proj.weight")))
                tensor = e.name;
        QVERIFY(!tensor.isEmpty());
        w.browser()->setSelectedTensors({tensor});
        auto run = [&w] {
            QSignalSpy finished(&w, &MainWindow::jobFinished);
            w.runQuantization();
            return finished.wait(120000) && waitIdle(w);
        };
        QVERIFY(run());
        // How each place shows configuration `name`: stale or not.
        auto histogramStale = [&w](const QString &name) {
            auto *plot = w.distributionView()->histogramPlot();
            for (int i = 0; i < plot->graphCount(); ++i)
                if (plot->graph(i)->name().startsWith(QStringLiteral("Ŵ %1 ·").arg(name)))
                    return plot->graph(i)->name().contains(QStringLiteral("(stale)")) &&
                           plot->graph(i)->pen().style() == Qt::DashLine &&
                           plot->graph(i)->brush().style() == Qt::BDiagPattern;
            return false;
        };
        auto numbersStale = [&w](const QString &name) {
            auto *m = w.numbersView()->model();
            for (int c = 0; c < m->columnCount(); ++c) {
                const QString h = m->headerData(c, Qt::Horizontal).toString();
                if (h.startsWith(name + QStringLiteral(" ·")))
                    return h.contains(QStringLiteral("(stale)"));
            }
            return false;
        };
        auto overviewStale = [&w](const QString &name) {
            auto *m = w.overviewView()->model();
            for (int r = 0; r < m->rowCount(); ++r)
                if (m->index(r, 0).data(OverviewModel::ConfigRole).toString() == name)
                    return m->index(r, OverviewModel::Config).data().toString().contains(QStringLiteral("(stale)"));
            return false;
        };
        for (const auto *name : {"A", "B"}) {
            QVERIFY(!histogramStale(QLatin1String(name)));
            QVERIFY(!numbersStale(QLatin1String(name)));
            QVERIFY(!overviewStale(QLatin1String(name)));
        }
        // A edited after its run: A is stale everywhere, B is not.
        auto int3 = int4;
        int3["bits"] = 3;
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", int3}, {"B", int8}}).isEmpty());
        QVERIFY(histogramStale(QStringLiteral("A")));
        QVERIFY(numbersStale(QStringLiteral("A")));
        QVERIFY(overviewStale(QStringLiteral("A")));
        QVERIFY(!histogramStale(QStringLiteral("B")));
        QVERIFY(!numbersStale(QStringLiteral("B")));
        // Edited back: not stale.
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", int4}, {"B", int8}}).isEmpty());
        QVERIFY(!histogramStale(QStringLiteral("A")));
        // Edited again and run again: fresh.
        QVERIFY(w.quantizerPanel()->setConfigurations({{"A", int3}, {"B", int8}}).isEmpty());
        QVERIFY(overviewStale(QStringLiteral("A")));
        QVERIFY(run());
        QVERIFY(!histogramStale(QStringLiteral("A")));
        QVERIFY(!numbersStale(QStringLiteral("A")));
        QVERIFY(!overviewStale(QStringLiteral("A")));
    }

    void newerRunMakesOlderStale()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        QStringList all;
        for (const auto &e : w.browser()->model()->entries())
            all << e.name;
        w.browser()->setSelectedTensors(all);
        w.runQuantization();
        const QString one = QStringLiteral("model.layers.0.self_attn.k_proj.weight");
        w.browser()->setSelectedTensors({one});
        w.runQuantization();
        QVERIFY(finished.wait(120000));
        QVERIFY(w.waitForWorkers(60000));
        QTest::qWait(100);
        QCOMPARE(finished.size(), 1);
        QVERIFY(w.results());
        QCOMPARE(w.results()->tensors.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(w.results()->tensors.front().tensor), one);
    }

    void failingSpecIsReportedReadably()
    {
        MainWindow w;
        QVERIFY(openDemo(w));
        // K = 1024 is not a multiple of 100, and strict refuses a ragged group.
        w.quantizerPanel()->setConfigurations(
            {{"A", spec({{"method", "int"}, {"granularity", "group"}, {"group", 100}, {"strict", true}})},
             {"B", spec({{"method", "int"}, {"bits", 8}})}});
        w.browser()->setSelectedTensors({QStringLiteral("model.layers.0.self_attn.q_proj.weight")});
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toBool(), true);
        const auto results = w.results();
        QVERIFY(results && results->outcomes.size() == 2);
        QVERIFY(!results->outcomes[0].ok());
        QVERIFY(results->outcomes[1].ok());
        const auto logText = w.logView()->messages().join(QLatin1Char('\n'));
        QVERIFY2(logText.contains(QStringLiteral("not divisible")), qPrintable(logText));
        auto *numbers = w.numbersView()->model();
        QVERIFY(numbers->headerData(0, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("not divisible")));
        QCOMPARE(numbers->index(0, 0).data().toString(), QStringLiteral("—"));
        // B is drawn, A is explained.
        QCOMPARE(w.distributionView()->histogramPlot()->quantizedGraphs().size(), 1);
    }

    void sessionRoundTrips()
    {
        const auto file = m_home.filePath(QStringLiteral("round.qscope"));
        nlohmann::json saved;
        {
            MainWindow w;
            QVERIFY(openDemo(w));
            w.quantizerPanel()->setConfigurations(
                {{"A", spec({{"method", "int"}, {"bits", 3}, {"granularity", "channel"}})},
                 {"B", spec({{"method", "fp8"}, {"format", "e5m2"}})}});
            w.quantizerPanel()->setBins(64);
            w.quantizerPanel()->setDevice(QStringLiteral("cpu"));
            const QStringList selected{QStringLiteral("model.layers.0.self_attn.q_proj.weight"),
                                       QStringLiteral("model.layers.1.mlp.experts.2.down_proj.weight")};
            w.browser()->setSelectedTensors(selected);
            w.setActivation(QStringLiteral("model.layers.0.self_attn.k_proj.weight"));
            QSignalSpy finished(&w, &MainWindow::jobFinished);
            w.runQuantization();
            QVERIFY(finished.wait(60000));
            w.distributionView()->setCurrentTensor(selected.last());
            w.distributionView()->setLogY(false);
            w.viewTabs()->setCurrentIndex(1);
            QString error;
            QVERIFY2(w.saveSession(file, &error), qPrintable(error));
            saved = sessionToJson(w.currentSession());
            QCOMPARE(saved["results"]["outcomes"].size(), std::size_t{4});
        }
        // The file is what currentSession() said, versioned.
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto onDisk = nlohmann::json::parse(f.readAll().toStdString());
        QVERIFY(onDisk["version"] == kSessionVersion);
        QVERIFY(onDisk["format"] == kSessionFormat);
        QVERIFY(onDisk == saved);

        MainWindow restored;
        QSignalSpy loaded(&restored, &MainWindow::loadFinished);
        QVERIFY(waitIdle(restored));
        QVERIFY(restored.openSession(file));
        // Results come back without running anything.
        QVERIFY(restored.results());
        QVERIFY(!restored.isJobRunning());
        QVERIFY(loaded.wait(120000));
        QVERIFY(waitIdle(restored));
        QCOMPARE(restored.viewTabs()->currentIndex(), 1);
        QCOMPARE(restored.distributionView()->currentTensor(),
                 QStringLiteral("model.layers.1.mlp.experts.2.down_proj.weight"));
        QCOMPARE(restored.distributionView()->logY(), false);
        QCOMPARE(restored.quantizerPanel()->bins(), 64);
        QCOMPARE(restored.browser()->selectedTensors().size(), 2);
        QCOMPARE(restored.numbersView()->model()->columnCount(), 4);
        QCOMPARE(restored.distributionView()->histogramPlot()->weightGraph()->dataCount(), 64);
        const auto again = sessionToJson(restored.currentSession());
        QVERIFY2(again == saved, (again.dump().substr(0, 400) + " vs " + saved.dump().substr(0, 400)).c_str());
    }

    void aboutNamesVersionAndDevice()
    {
        MainWindow w;
        QVERIFY(waitIdle(w));
        w.show();
        const auto about = w.findChildren<QAction *>();
        QAction *action = nullptr;
        for (auto *a : about)
            if (a->menuRole() == QAction::AboutRole)
                action = a;
        QVERIFY(action);
        action->trigger();
        auto *box = visibleBox(w, QStringLiteral("aboutBox"));
        QVERIFY(box);
        QVERIFY(box->text().contains(QStringLiteral("CPU")) || box->text().contains(QStringLiteral("GPU")));
        QVERIFY(box->text().contains(QStringLiteral("Quantscope")));
        box->close();
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
