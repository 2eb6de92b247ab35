// SPDX-License-Identifier: MIT
// The window fits a laptop (issue 42): with four long-labelled configurations run on the demo,
// in English, German and Chinese, the window's minimum size is at most 1280 × 800 in every view
// (it grew to 2064 px wide with four configurations), the window shown at 1280 × 800 stays
// there, every tab can be reached there, and View ▸ Reset Layout gives a layout that fits.
#include "test_env.h"
#include "mainwindow.h"
#include "logview.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"

#include <QAction>
#include <QApplication>
#include <QLayout>
#include <QMenuBar>
#include <QScrollArea>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTranslator>

using namespace quantscope;

namespace {

constexpr int kMaxWidth = 1280;
constexpr int kMaxHeight = 800;

nlohmann::json spec(std::initializer_list<std::pair<const char *, nlohmann::json>> kv)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[k, v] : kv)
        j[k] = v;
    return j;
}

/// The widest visible widgets whose minimum width is over the limit, deepest first, for the
/// failure message (what made the window grow).
QString culprits(QWidget *root)
{
    QStringList out;
    // Every tab counts (the stack asks for its widest page), shown or not.
    if (auto *tabs = root->findChild<QTabWidget *>())
        for (int t = 0; t < tabs->count(); ++t) {
            const QSize m = tabs->widget(t)->minimumSizeHint();
            if (m.width() > kMaxWidth / 2 || m.height() > kMaxHeight / 2) {
                out << QStringLiteral("tab %1: %2 × %3").arg(tabs->tabText(t)).arg(m.width()).arg(m.height());
                // Its widest children: what to make elide, wrap or shrink.
                for (auto *c : tabs->widget(t)->findChildren<QWidget *>())
                    if (c->minimumSizeHint().width() > 260 && !c->isWindow())
                        out << QStringLiteral("  %1 \"%2\" %3")
                                   .arg(QLatin1String(c->metaObject()->className()), c->objectName())
                                   .arg(c->minimumSizeHint().width());
            }
        }
    for (auto *d : root->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
        if (d->isVisible())
            out << QStringLiteral("%1 \"%2\" min %3 × %4")
                       .arg(QLatin1String(d->metaObject()->className()), d->objectName())
                       .arg(d->minimumSizeHint().width())
                       .arg(d->minimumSizeHint().height());
    for (auto *w : root->findChildren<QWidget *>()) {
        if (!w->isVisible() || w->isWindow())
            continue;
        const int min = std::max(w->minimumSizeHint().width(), w->minimumWidth());
        if (min <= kMaxWidth / 2)
            continue;
        bool childToo = false;
        for (auto *c : w->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
            if (c->isVisible() && std::max(c->minimumSizeHint().width(), c->minimumWidth()) >= min - 40)
                childToo = true;
        if (!childToo)
            out << QStringLiteral("%1 \"%2\" %3 px")
                       .arg(QLatin1String(w->metaObject()->className()), w->objectName())
                       .arg(min);
    }
    return out.join(QStringLiteral("; "));
}

void checkFits(MainWindow &w, const QString &where)
{
    QApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= kMaxWidth && min.height() <= kMaxHeight,
             qPrintable(QStringLiteral("%1: the window's minimum size is %2 × %3 (over %4 × %5): %6")
                            .arg(where)
                            .arg(min.width())
                            .arg(min.height())
                            .arg(kMaxWidth)
                            .arg(kMaxHeight)
                            .arg(culprits(&w))));
    QVERIFY2(w.width() <= kMaxWidth && w.height() <= kMaxHeight,
             qPrintable(QStringLiteral("%1: the window grew to %2 × %3").arg(where).arg(w.width()).arg(w.height())));
    // And the views fit the room the docks leave at 1280 px: no view needs a horizontal scroll.
    auto *area = w.findChild<QScrollArea *>(QStringLiteral("viewsArea"));
    QVERIFY(area);
    QVERIFY2(area->horizontalScrollBar()->maximum() == 0,
             qPrintable(QStringLiteral("%1: the views need %2 px more than the %3 px left beside the docks: %4")
                            .arg(where)
                            .arg(area->horizontalScrollBar()->maximum())
                            .arg(area->viewport()->width())
                            .arg(culprits(&w))));
}

} // namespace

class TestWindowSize : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        quantscope::test::isolate(m_home, QStringLiteral("tst_windowsize"));
    }

    void fitsALaptopWithFourLongLabelledConfigurations_data()
    {
        QTest::addColumn<QString>("lang");
        QTest::newRow("en") << QString();
        QTest::newRow("de") << QStringLiteral("de");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }

    void fitsALaptopWithFourLongLabelledConfigurations()
    {
        QFETCH(QString, lang);
        QTranslator translator;
        if (!lang.isEmpty()) {
            QVERIFY(translator.load(QStringLiteral(QUANTSCOPE_QM_DIR "/quantscope_%1.qm").arg(lang)));
            QCoreApplication::installTranslator(&translator);
        }
        {
            MainWindow w;
            w.resize(kMaxWidth, kMaxHeight);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QSignalSpy loaded(&w, &MainWindow::loadFinished);
            w.openDemo();
            QVERIFY(loaded.wait(120000) && loaded.first().first().toBool());
            QVERIFY(QTest::qWaitFor([&] { return !w.isBusy(); }, 120000));
            checkFits(w, lang + QStringLiteral(" opened"));

            // Four configurations with long labels (the minimum grew with label length).
            const QString longLabel = QStringLiteral("A rather long configuration label, to see whether it widens "
                                                     "the window: ");
            QVERIFY(w.quantizerPanel()
                        ->setConfigurations(
                            {{(longLabel + QStringLiteral("INT4 g128")).toStdString(),
                              spec({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}})},
                             {(longLabel + QStringLiteral("INT8 channel")).toStdString(),
                              spec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}})},
                             {(longLabel + QStringLiteral("FP8 tensor")).toStdString(),
                              spec({{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "tensor"}})},
                             {(longLabel + QStringLiteral("INT3 g32")).toStdString(),
                              spec({{"method", "int"}, {"bits", 3}, {"granularity", "group"}, {"group", 32}})}})
                        .isEmpty());
            checkFits(w, lang + QStringLiteral(" four configurations"));
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
                QTest::qWait(30);
                const QString where = lang + QLatin1Char(' ') + tabs->tabText(t);
                checkFits(w, where);
                // Reachable: the current tab's button is within the tab bar (scroll buttons
                // bring it there) and the view is shown inside the window.
                auto *bar = tabs->tabBar();
                QVERIFY2(bar->rect().intersects(bar->tabRect(t)), qPrintable(where));
                QVERIFY2(tabs->currentWidget()->isVisible(), qPrintable(where));
            }

            // View ▸ Reset Layout: the docks come back and the window still fits.
            QAction *reset = nullptr;
            for (auto *a : w.findChildren<QAction *>())
                if (a->objectName() == QLatin1String("resetLayoutAction"))
                    reset = a;
            QVERIFY(reset);
            reset->trigger();
            QTest::qWait(30);
            // Sized to the screen the window is on (the offscreen platform's is 800 × 600) ...
            const QRect screen = w.screen()->availableGeometry();
            QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
                     qPrintable(QStringLiteral("%1 × %2 on a %3 × %4 screen")
                                    .arg(w.width())
                                    .arg(w.height())
                                    .arg(screen.width())
                                    .arg(screen.height())));
            // ... and with its docks, the views still fit at 1280 × 800.
            w.resize(kMaxWidth, kMaxHeight);
            QTest::qWait(30);
            checkFits(w, lang + QStringLiteral(" after Reset Layout"));
        }
        if (!lang.isEmpty())
            QCoreApplication::removeTranslator(&translator);
    }
};

QTEST_MAIN(TestWindowSize)
#include "tst_windowsize.moc"
