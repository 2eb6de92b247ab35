// SPDX-License-Identifier: MIT
// quantscope: the desktop GUI. `quantscope [PATH]` opens PATH, or the built-in demo without one.
// `--screenshot FILE` saves the window once opening has finished, then quits (docs, CI);
// with `--run-demo-quantization` it first quantizes a demo weight with three configurations.
#include "register.h"
#include "results/results.h"
#include "mainwindow.h"
#include "plancontroller.h"
#include "recipeeditor.h"
#include "scancontroller.h"
#include "spectrumview.h"
#include "healthcontroller.h"
#include "languageswitch.h"
#include "comparecontroller.h"
#include "compareview.h"

#include <QApplication>
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QIcon>
#include <QLocale>
#include <QPixmap>
#include <QTabWidget>
#include <QTimer>
#include <QSettings>
#include <cstdio>
#include <cstring>
#include <memory>

using quantscope::MainWindow;

namespace {

void installTranslators()
{
    // The Language menu's choice ("" = the system's); the menu switches it while running.
    quantscope::language::apply(QSettings().value(QStringLiteral("language")).toString());
}

/// Saves the window once everything it started in the background has finished; the exit code
/// says whether the file was written. The outcome of opening goes to stdout for scripts.
void scheduleScreenshot(MainWindow &window, const QString &file)
{
    auto loadOk = std::make_shared<bool>(false);
    QObject::connect(&window, &MainWindow::loadFinished, &window, [loadOk](bool ok) { *loadOk = ok; });
    QObject::connect(
        &window, &MainWindow::becameIdle, &window,
        [&window, file, loadOk] {
            // Let the model reset's relayout and the status bar settle before grabbing.
            QTimer::singleShot(250, &window, [&window, file, loadOk] {
                const bool saved = window.grab().save(file, "PNG");
                if (!saved) {
                    std::fprintf(stderr, "quantscope: could not write the screenshot %s\n", qPrintable(file));
                    QCoreApplication::exit(1);
                    return;
                }
                const auto results = window.results();
                std::printf("quantscope: screenshot %s: %s\n", qPrintable(file),
                            *loadOk ? qPrintable(QStringLiteral("opened, %1 tensors, %2 results")
                                                     .arg(window.tensorCount())
                                                     .arg(results ? results->outcomes.size() : 0))
                                    : "opening failed");
                std::fflush(stdout);
                QCoreApplication::exit(0);
            });
        },
        Qt::SingleShotConnection);
}

/// The values of --view: each names a tab's widget "<name>View" (MainWindow::viewNames()).
QString viewNamesText()
{
    return MainWindow::viewNames().join(QStringLiteral(", "));
}

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Quantscope"));
    QCoreApplication::setApplicationName(QStringLiteral("Quantscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QUANTSCOPE_VERSION));
}

/// The command line; parsing it needs only a QCoreApplication.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption screenshot{
        QStringList{QStringLiteral("screenshot")},
        QCoreApplication::translate("main", "Once the checkpoint has been opened (or has failed to open), save the "
                                            "window as a PNG to <file> and quit."),
        QCoreApplication::translate("main", "file")};
    QCommandLineOption runDemo{QStringList{QStringLiteral("run-demo-quantization")},
                               QCoreApplication::translate("main", "Once the checkpoint is open, quantize a weight of "
                                                                   "it with three configurations (for screenshots and "
                                                                   "first looks).")};
    QCommandLineOption view{
        QStringList{QStringLiteral("view")},
        QCoreApplication::translate("main", "Show the view <name> (spectrum: with the residual spectra computed). "
                                            "Views: %1.")
            .arg(viewNamesText()),
        QCoreApplication::translate("main", "name")};
    QCommandLineOption compare{
        QStringList{QStringLiteral("compare")},
        QCoreApplication::translate(
            "main", "Once the checkpoint is open, compare <paths> (A,B or A,B,REFERENCE) in the Compare view."),
        QCoreApplication::translate("main", "paths")};

    CommandLine()
    {
        parser.setApplicationDescription(
            QCoreApplication::translate("main", "Quantization workbench for LLM tensors."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOption(screenshot);
        parser.addOption(runDemo);
        parser.addOption(view);
        parser.addOption(compare);
        parser.addPositionalArgument(
            QStringLiteral("path"),
            QCoreApplication::translate("main",
                                        "A .safetensors file, a model.safetensors.index.json, a checkpoint folder, "
                                        "a .npy/.npz file or a .qscope session. Without it, the built-in demo opens."),
            QStringLiteral("[path]"));
    }
};

/// --help and --version print and exit without a window, so they must not need a display.
bool onlyPrints(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i)
        for (const char *flag : {"--help", "-h", "-?", "--help-all", "--version", "-v"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    if (onlyPrints(argc, argv)) {
        // A QCoreApplication: no platform plugin, no display (`quantscope --version` over ssh, in CI).
        QCoreApplication core(argc, argv);
        setApplicationNames();
        installTranslators();
        CommandLine cli;
        cli.parser.process(core); // prints and exits
        return 0;
    }
    quantscope::registerGpuBackends();
    QApplication app(argc, argv);
    setApplicationNames();
    QGuiApplication::setDesktopFileName(QStringLiteral("quantscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/quantscope.svg")));
    installTranslators();

    CommandLine cli;
    auto &parser = cli.parser;
    const auto &screenshotOption = cli.screenshot;
    const auto &runDemoOption = cli.runDemo;
    const auto &viewOption = cli.view;
    const auto &compareOption = cli.compare;
    parser.process(app);

    const auto paths = parser.positionalArguments();
    if (paths.size() > 1) {
        std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "Give at most one path to open.")));
        return 2;
    }

    MainWindow window;
    const auto view = parser.value(viewOption);
    if (view == QLatin1String("spectrum"))
        window.spectrumView()->setSpectrumEnabled(true);
    // The views are named "<name>View"; the demo run shows the Distribution, so again after it.
    auto showView = [&window, view] {
        if (auto *w = window.viewTabs()->findChild<QWidget *>(view + QLatin1String("View")))
            window.viewTabs()->setCurrentWidget(w);
    };
    showView();
    // Connected before the screenshot: the run starts inside the load's delivery, so the
    // window only becomes idle once the run has finished too.
    if (parser.isSet(runDemoOption))
        QObject::connect(
            &window, &MainWindow::loadFinished, &window,
            [&window, showView](bool ok) {
                if (ok)
                    window.runDemoQuantization();
                showView();
            },
            Qt::SingleShotConnection);
    // --view layers: scan the checkpoint once it is open (the screenshot waits for the scan).
    if (view == QLatin1String("layers"))
        QObject::connect(
            &window, &MainWindow::loadFinished, &window,
            [&window](bool ok) {
                if (ok)
                    window.scans()->scan();
            },
            Qt::SingleShotConnection);
    // --view budget: scan (the budget's candidates) and sweep a tensor once the checkpoint is open.
    if (view == QLatin1String("budget"))
        QObject::connect(
            &window, &MainWindow::loadFinished, &window,
            [&window](bool ok) {
                if (!ok)
                    return;
                window.scans()->scan();
                window.plan()->sweep();
            },
            Qt::SingleShotConnection);
    // --view recipe: an example recipe with a regex rule, an overlap, an exclusion and a fusion
    // group whose members differ (q/k at INT8, v at INT4), checked against the opened checkpoint.
    if (view == QLatin1String("recipe"))
        window.plan()->recipeEditor()->setRecipe(quantscope::Recipe::fromJson(nlohmann::ordered_json::parse(R"({
          "quantscope_recipe": 1,
          "rules": [
            {"name": "attention q/k", "dialect": "re", "patterns": ["model\\.layers\\.\\d+\\.self_attn\\.[qk]_proj"],
             "specs": [{"method": "int", "bits": 8, "granularity": "channel"}]},
            {"name": "experts", "patterns": ["*.mlp.experts.*"], "specs": [{"method": "int", "bits": 4, "group": 32}]},
            {"name": "everything else", "patterns": ["*"], "specs": [{"method": "int"}]}],
          "exclude": [{"pattern": "lm_head", "dialect": "exact"}]})")));
    // --view health: run the doctor once the checkpoint is open.
    if (view == QLatin1String("health"))
        QObject::connect(
            &window, &MainWindow::loadFinished, &window,
            [&window](bool ok) {
                if (ok)
                    window.health()->check();
            },
            Qt::SingleShotConnection);
    // --compare A,B[,REFERENCE]: compare them once the checkpoint is open (the screenshot waits).
    if (parser.isSet(compareOption))
        QObject::connect(
            &window, &MainWindow::loadFinished, &window,
            [&window, paths = parser.value(compareOption).split(QLatin1Char(','))](bool) {
                auto *c = window.comparisons();
                c->view()->setPaths(paths.value(0), paths.value(1), paths.value(2));
                c->compare();
            },
            Qt::SingleShotConnection);
    if (parser.isSet(screenshotOption))
        scheduleScreenshot(window, parser.value(screenshotOption));
    window.show();
    if (paths.isEmpty())
        window.openDemo();
    else
        window.openPath(paths.first());

    return QApplication::exec();
}
