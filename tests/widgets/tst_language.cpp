// SPDX-License-Identifier: MIT
// View ▸ Language switches while the window is open (issue 42): with four configurations run
// on the demo and every tab visited, choosing Deutsch, then 中文, then English leaves no text of
// the previous language in any label, button, tab, menu, action, tooltip, combo item, header,
// log line, plot axis or legend, the status bar's device line or a configuration label.
// The texts of each language come from the .ts files; a text that reads the same in both
// languages (a unit, a method name) is no evidence and is skipped.
#include "test_env.h"
#include "coremessages.h"
#include "elidedlabel.h"
#include "jobprogresswidget.h"
#include "languageswitch.h"
#include "logview.h"
#include "mainwindow.h"
#include "plotwidget.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"

#include <algorithm>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QXmlStreamReader>

using namespace quantscope;

namespace {

/// What a text of one language looks like: exact texts and "%1 of %2" patterns.
struct Language {
    QSet<QString> exact;
    QList<QRegularExpression> patterns;
    QStringList phrases; ///< two words or more, found inside composed texts (labels)
};

QString stripped(QString s)
{
    s.remove(QRegularExpression(QStringLiteral("&(?=[^&\\s])")));
    return s;
}

bool meaningful(const QString &s)
{
    // Three letters in a row once placeholders are gone: "%1 s" or "µs" is no evidence.
    QString t = s;
    t.remove(QRegularExpression(QStringLiteral("%L?(\\d+|n)")));
    return t.contains(QRegularExpression(QStringLiteral("\\p{L}{3}")));
}

void addText(Language &lang, const QString &text)
{
    const QString s = stripped(text);
    if (!meaningful(s))
        return;
    if (s.contains(QRegularExpression(QStringLiteral("%L?(\\d+|n)")))) {
        QString pattern = QRegularExpression::escape(s);
        pattern.replace(QRegularExpression(QStringLiteral("%L?(\\d+|n)")), QStringLiteral(".*"));
        QString literal = s;
        literal.remove(QRegularExpression(QStringLiteral("%L?(\\d+|n)")));
        // Short templates ("%1: %2 …") would match any text.
        if (literal.count(QRegularExpression(QStringLiteral("\\p{L}"))) >= 8)
            lang.patterns.append(QRegularExpression(QLatin1Char('^') + pattern + QLatin1Char('$'),
                                                    QRegularExpression::DotMatchesEverythingOption));
    } else {
        lang.exact.insert(s);
        if (s.count(QLatin1Char(' ')) >= 1 && s.size() >= 9 && !s.contains(QLatin1Char('<')))
            lang.phrases.append(s);
    }
}

/// The sources (translation = false) or translations of a .ts whose two sides differ.
Language readTs(const QString &file, bool translation)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    Language lang;
    QXmlStreamReader xml(&f);
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const bool numerus = xml.attributes().value(QStringLiteral("type")) == QLatin1String("unfinished");
            Q_UNUSED(numerus);
            QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (text.isEmpty() || stripped(text) == stripped(source))
                continue;
            addText(lang, translation ? text : source);
        } else if (xml.name() == QLatin1String("numerusform") && translation) {
            addText(lang, xml.readElementText());
        }
    }
    return lang;
}

struct Shown {
    QString where;
    QString text;
};

void collect(QWidget *root, QList<Shown> &out)
{
    auto add = [&out](const QObject *o, const QString &what, const QString &text) {
        if (!text.trimmed().isEmpty())
            out.append(
                {QStringLiteral("%1 \"%2\" %3").arg(QLatin1String(o->metaObject()->className()), o->objectName(), what),
                 text});
    };
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (auto *w : widgets) {
        add(w, QStringLiteral("title"), w->windowTitle());
        add(w, QStringLiteral("tooltip"), w->toolTip());
        if (auto *l = qobject_cast<QLabel *>(w))
            add(w, QStringLiteral("text"), l->text());
        if (auto *b = qobject_cast<QAbstractButton *>(w))
            add(w, QStringLiteral("text"), b->text());
        if (auto *g = qobject_cast<QGroupBox *>(w))
            add(w, QStringLiteral("title"), g->title());
        if (auto *e = qobject_cast<QLineEdit *>(w))
            add(w, QStringLiteral("placeholder"), e->placeholderText());
        if (auto *m = qobject_cast<QMenu *>(w))
            add(w, QStringLiteral("menu"), m->title());
        if (auto *c = qobject_cast<QComboBox *>(w))
            for (int i = 0; i < c->count(); ++i)
                add(w, QStringLiteral("item %1").arg(i), c->itemText(i));
        if (auto *t = qobject_cast<QTabBar *>(w))
            for (int i = 0; i < t->count(); ++i)
                add(w, QStringLiteral("tab %1").arg(i), t->tabText(i));
        if (auto *s = qobject_cast<QStatusBar *>(w))
            add(w, QStringLiteral("message"), s->currentMessage());
        if (auto *v = qobject_cast<QAbstractItemView *>(w); v && v->model() && !qobject_cast<QHeaderView *>(w)) {
            auto *m = v->model();
            for (int c = 0; c < m->columnCount(); ++c)
                add(w, QStringLiteral("header %1").arg(c), m->headerData(c, Qt::Horizontal).toString());
            QModelIndexList stack;
            for (int r = 0; r < std::min(m->rowCount(), 40); ++r)
                for (int c = 0; c < m->columnCount(); ++c) {
                    const auto i = m->index(r, c);
                    add(w, QStringLiteral("cell %1,%2").arg(r).arg(c), i.data().toString());
                    add(w, QStringLiteral("cell tip %1,%2").arg(r).arg(c), i.data(Qt::ToolTipRole).toString());
                }
        }
        if (auto *p = qobject_cast<QCustomPlot *>(w)) {
            for (auto *rect : p->axisRects())
                for (auto *axis : rect->axes())
                    add(w, QStringLiteral("axis"), axis->label());
            for (int i = 0; i < p->plottableCount(); ++i)
                add(w, QStringLiteral("series"), p->plottable(i)->name());
        }
    }
    for (auto *a : root->findChildren<QAction *>()) {
        add(a, QStringLiteral("action"), a->text());
        add(a, QStringLiteral("action tip"), a->toolTip());
    }
}

/// The first old text, in sorted order, that a window still showing it would show as itself: one
/// line, no spaces at its ends, and not also a text of the new language.
QString probeOf(const Language &old, const Language &now)
{
    QStringList texts(old.exact.begin(), old.exact.end());
    texts.sort();
    for (const auto &t : texts)
        if (!t.contains(QLatin1Char('\n')) && t == t.trimmed() && !now.exact.contains(t))
            return t;
    qFatal("no old text to probe with");
    return {};
}

/// The shown texts that are `old`'s and not the current language's.
QStringList leftovers(const QList<Shown> &shown, const Language &old, const Language &now)
{
    QStringList out;
    for (const auto &s : shown) {
        for (const QString &line : s.text.split(QLatin1Char('\n'))) {
            const QString t = stripped(line).trimmed();
            if (t.isEmpty() || now.exact.contains(t))
                continue;
            bool bad = old.exact.contains(t);
            for (int i = 0; !bad && i < old.patterns.size(); ++i)
                bad = old.patterns[i].match(t).hasMatch();
            for (int i = 0; !bad && i < old.phrases.size(); ++i)
                bad = t.contains(old.phrases[i]) && t != old.phrases[i] &&
                      !std::any_of(now.phrases.begin(), now.phrases.end(),
                                   [&](const QString &p) { return p.contains(old.phrases[i]); });
            if (bad)
                out << QStringLiteral("%1: %2").arg(s.where, t);
        }
    }
    out.removeDuplicates();
    return out;
}

/// The window shown at 1280×800 on its demo and idle (false: it did not get there).
bool showDemo(MainWindow &w)
{
    w.resize(1280, 800);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return false;
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openDemo();
    if (!loaded.wait(120000) || !loaded.first().first().toBool())
        return false;
    return QTest::qWaitFor([&] { return !w.isBusy(); }, 120000);
}

QAction *languageAction(MainWindow &w, const QString &code)
{
    for (auto *a : w.findChildren<QAction *>())
        if (a->objectName() == QStringLiteral("language_") + code)
            return a;
    return nullptr;
}

nlohmann::json spec(std::initializer_list<std::pair<const char *, nlohmann::json>> kv)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[k, v] : kv)
        j[k] = v;
    return j;
}

} // namespace

class TestLanguage : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_language"));
        qputenv("QUANTSCOPE_QM_DIR", QUANTSCOPE_QM_DIR);
        QVERIFY(language::apply(QStringLiteral("en")));
    }

    void switchesEveryTextAtOnce()
    {
        const auto english = readTs(QStringLiteral(QUANTSCOPE_TS_DIR "/quantscope_de.ts"), false);
        const auto german = readTs(QStringLiteral(QUANTSCOPE_TS_DIR "/quantscope_de.ts"), true);
        const auto chinese = readTs(QStringLiteral(QUANTSCOPE_TS_DIR "/quantscope_zh_CN.ts"), true);
        QVERIFY2(english.exact.size() > 300 && german.exact.size() > 300 && chinese.exact.size() > 300 &&
                     english.patterns.size() > 100,
                 qPrintable(QStringLiteral("%1 %2 %3")
                                .arg(english.exact.size())
                                .arg(german.exact.size())
                                .arg(chinese.exact.size())));

        MainWindow w;
        QVERIFY(showDemo(w));
        // Four configurations named by the product (no label of the user's: that stays as typed).
        QVERIFY(w.quantizerPanel()
                    ->setConfigurations(
                        {{"A", spec({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}})},
                         {"B", spec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}})},
                         {"C", spec({{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "tensor"}})},
                         {"D", spec({{"method", "hqq"}, {"bits", 4}, {"group", 64}})}})
                    .isEmpty());
        QString weight;
        for (const auto &e : w.browser()->model()->entries())
            if (e.name.endsWith(QLatin1String("layers.0.self_attn.q_proj.weight")))
                weight = e.name;
        QVERIFY(!weight.isEmpty());
        w.browser()->setSelectedTensors({weight});
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY2(finished.wait(120000) && finished.first().first().toBool(),
                 qPrintable(w.logView()->messages().join(QLatin1Char('\n'))));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        auto *tabs = w.viewTabs();
        for (int t = 0; t < tabs->count(); ++t) {
            tabs->setCurrentIndex(t);
            QTest::qWait(20);
        }
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        tabs->setCurrentIndex(0);

        const struct {
            QString code;
            const Language *old;
            const Language *now;
        } steps[] = {{QStringLiteral("de"), &english, &german},
                     {QStringLiteral("zh_CN"), &german, &chinese},
                     {QStringLiteral("en"), &chinese, &english}};
        for (const auto &step : steps) {
            auto *action = languageAction(w, step.code);
            QVERIFY2(action, qPrintable(step.code));
            const int logLines = w.logView()->count();
            action->trigger();
            QTest::qWait(50);
            QApplication::processEvents();
            QCOMPARE(language::current(), step.code);
            QVERIFY(action->isChecked());
            QList<Shown> shown;
            collect(&w, shown);
            // Every log line, the earlier ones too.
            for (const auto &m : w.logView()->messages())
                shown.append({QStringLiteral("log"), m});
            QVERIFY2(shown.size() > 500, qPrintable(QString::number(shown.size())));
            // The check itself finds an old text (it would catch a window that did not switch). The
            // probe is chosen in a fixed order, not the set's hash order (which changes from run to
            // run), and is a one-line old text that the new language does not also use ("Module"
            // is German and English alike).
            QVERIFY(
                !leftovers({{QStringLiteral("probe"), probeOf(*step.old, *step.now)}}, *step.old, *step.now).isEmpty());
            // And the switch happened: the menus, the tabs and the device line are the new
            // language's.
            const QString file = QCoreApplication::translate("quantscope::MainWindow", "&File");
            QCOMPARE(w.menuBar()->actions().first()->text(), file);
            QCOMPARE(w.viewTabs()->tabText(0), QCoreApplication::translate("quantscope::MainWindow", "&Distribution"));
            if (step.code != QLatin1String("en"))
                QVERIFY(file != QLatin1String("&File"));
            auto *device = w.findChild<ElidedLabel *>(QStringLiteral("deviceLabel"));
            QVERIFY(device);
            QVERIFY2(
                device->fullText().startsWith(
                    QCoreApplication::translate("DeviceQuery", "CPU: %1 threads (%2)").section(QLatin1Char('%'), 0, 0)),
                qPrintable(device->fullText()));
            const auto left = leftovers(shown, *step.old, *step.now);
            for (const auto &l : left)
                qInfo("%s left: %s", qPrintable(step.code), qPrintable(l));
            QVERIFY2(left.isEmpty(), qPrintable(QStringLiteral("%1: %2 texts of the previous language:\n%3")
                                                    .arg(step.code)
                                                    .arg(left.size())
                                                    .arg(left.join(QLatin1Char('\n')))));
            // Plural counts survive the switch, also inside another sentence ("Quantizing %1 × %2").
            const QString fourConfigs =
                QCoreApplication::translate("quantscope::JobController", "%n configuration(s)", nullptr, 4);
            const auto logNow = w.logView()->messages();
            QVERIFY2(
                std::any_of(logNow.begin(), logNow.end(), [&](const QString &m) { return m.contains(fourConfigs); }),
                qPrintable(fourConfigs + QStringLiteral(" in none of:\n") + logNow.join(QLatin1Char('\n'))));
            // Nothing asks for a restart.
            QVERIFY(w.logView()->count() >= logLines);
            QVERIFY(!w.statusBar()->currentMessage().contains(QLatin1String("starts again")));
        }
        // A run in the new language writes its log lines in it.
        QVERIFY(languageAction(w, QStringLiteral("de")));
        languageAction(w, QStringLiteral("de"))->trigger();
        QTest::qWait(50);
        const int before = w.logView()->count();
        QSignalSpy again(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(again.wait(120000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        QList<Shown> fresh;
        for (const auto &m : w.logView()->messages().mid(before))
            fresh.append({QStringLiteral("log"), m});
        const auto left = leftovers(fresh, english, german);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char('\n'))));
    }
    // Messages that core writes (a refusal, a device note, a note on a result, job steps) come
    // out in the window's language: a GPTQ run without a capture (refused), a group longer than
    // the row (the Overview's note), the GPU asked for on a machine without one (device note).
    void coreMessagesInTheWindowsLanguage_data()
    {
        QTest::addColumn<QString>("code");
        QTest::newRow("de") << QStringLiteral("de");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }

    void coreMessagesInTheWindowsLanguage()
    {
        QFETCH(QString, code);
        QVERIFY(language::apply(code));
        // Every English sentence of core's table (runs of fixed text with a word in them).
        QStringList english;
        for (const auto &p : coremessages::patterns())
            for (auto part : p.split(QRegularExpression(QStringLiteral("%\\d")))) {
                part = part.trimmed();
                if (part.size() >= 8 && part.contains(QLatin1Char(' ')) &&
                    part.contains(QRegularExpression(QStringLiteral("[A-Za-z]{4}"))))
                    english << part;
            }
        QVERIFY(english.size() > 100);

        MainWindow w;
        QVERIFY(showDemo(w));
        QVERIFY(w.quantizerPanel()
                    ->setConfigurations({{"A", spec({{"method", "gptq"}, {"bits", 4}, {"group", 128}})},
                                         {"B", spec({{"method", "int"}, {"bits", 4}, {"group", 4096}})}})
                    .isEmpty());
        w.quantizerPanel()->setDevice(QStringLiteral("gpu"));
        // Every 2-D weight: a job long enough for its step line to show.
        QStringList weights;
        for (const auto &e : w.browser()->model()->entries())
            if (e.name.endsWith(QLatin1String(".weight")) && e.shape.size() == 2)
                weights << e.name;
        QVERIFY(weights.size() > 4);
        w.browser()->setSelectedTensors(weights);
        // The job's step line, as it shows while the job runs.
        QStringList shown;
        QTimer sampler;
        QObject::connect(&sampler, &QTimer::timeout, &w, [&] {
            for (auto *job : w.findChildren<JobProgressWidget *>())
                for (auto *label : job->findChildren<QLabel *>())
                    if (label->isVisible() && !label->text().isEmpty())
                        shown << label->text();
            shown << w.statusBar()->currentMessage();
        });
        sampler.start(5);
        const int before = w.logView()->count();
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.runQuantization();
        QVERIFY(finished.wait(120000));
        QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
        sampler.stop();
        const auto log = w.logView()->messages().mid(before);
        shown << log << w.statusBar()->currentMessage();
        const QString all = log.join(QLatin1Char('\n'));
        // The three messages are there, in the language (so the check below means something).
        const auto piece = [](const char *source) {
            const QString t = QCoreApplication::translate("quantscope::CoreMessages", source);
            return t.section(QLatin1Char('%'), 1, 1).mid(1).left(10); // fixed text after %1
        };
        QVERIFY2(all.contains(piece("%1 needs the module's inputs and none were paired with %2: capture them first "
                                    "(quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and "
                                    "pass --capture CAP.safetensors")),
                 qPrintable(all));
        QVERIFY2(all.contains(piece("group %1 is longer than a row (%2 elements): each row is one short group, so "
                                    "this is not the group size it says")),
                 qPrintable(all));
        QVERIFY2(all.contains(piece("GPU requested but unavailable (%1): computed on the CPU")), qPrintable(all));
        QVERIFY(w.logView()->count(LogView::Severity::Error) >= 1);
        // The step line was seen while the job ran (its steps name the tensors; which step the
        // sampler catches depends on the machine's speed, so the English check covers them all).
        QVERIFY2(std::any_of(shown.begin(), shown.end(),
                             [](const QString &t) { return t.contains(QLatin1String(".weight")); }),
                 qPrintable(shown.join(QStringLiteral(" / "))));
        QStringList left;
        for (const auto &text : shown)
            for (const auto &e : english)
                if (text.contains(e))
                    left << QStringLiteral("%1  [%2]").arg(text, e);
        left.removeDuplicates();
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char('\n'))));
        // Switching the language turns the log's core messages too (here back to English).
        auto *toEnglish = languageAction(w, QStringLiteral("en"));
        QVERIFY(toEnglish);
        toEnglish->trigger();
        QTest::qWait(50);
        QApplication::processEvents();
        const QString again = w.logView()->messages().mid(before).join(QLatin1Char('\n'));
        for (const char *sentence : {"needs the module's inputs and none were paired with", "is longer than a row",
                                     "GPU requested but unavailable (", "): computed on the CPU"})
            QVERIFY2(
                again.contains(QLatin1String(sentence)),
                qPrintable(QLatin1String(sentence) + QStringLiteral(" not in:\n") +
                           w.logView()->messages().mid(before).filter(QStringLiteral("4096")).join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"
