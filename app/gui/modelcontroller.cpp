// SPDX-License-Identifier: MIT
#include "modelcontroller.h"

#include "bridge/bridge.h"
#include "bridge/model_jobs.h"
#include "budget/budget_view.h"
#include "budgetview.h"
#include "checkpointloader.h"
#include "io/checkpoint.h"
#include "loadcontroller.h"
#include "modelview.h"
#include "plancontroller.h"
#include "qtstring.h"
#include "recipe/recipe.h"
#include "recipeeditor.h"
#include "util/error.h"
#include "coremessages.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QFileDialog>
#include <algorithm>
#include <mutex>

namespace quantscope {

/// What the running job last reported, and the budget points so far (written by the worker,
/// read by the timer; Cancel shows the points already measured).
struct ModelJobProgress {
    std::mutex mutex;
    double fraction = 0;
    std::string what;
    std::vector<BudgetPoint> points;
    std::string objective;
    bool pointsChanged = false;
};

namespace {

constexpr int kPollMs = 100;

QString pythonKey()
{
    return QStringLiteral("bridge/python");
}

/// The interpreter the bridge uses without a setting ($QUANTSCOPE_PYTHON, else python3).
QString defaultPython()
{
    return fromStd(bridgeConfig().python);
}

/// A job's outcome with the bridge's error kind kept (the tracker's error text loses it).
struct EvalOutcome {
    nlohmann::ordered_json report;
    std::vector<BudgetPoint> points;
    std::string objective;
    std::string kind;    ///< a BridgeError's kind ("" for other errors)
    std::string message; ///< "" when it succeeded
};

struct CheckOutcome {
    nlohmann::json versions;
    std::string kind, message;
};

} // namespace

ModelController::ModelController(QObject *parent, LoadController *loads, PlanController *plan, QTabWidget *tabs)
    : QObject(parent), m_loads(loads), m_plan(plan)
{
    m_pool.setMaxThreadCount(2); // the check may run beside a measurement
    m_view = new ModelView(tabs);
    m_view->setObjectName(QStringLiteral("modelView")); // quantscope --view model
    tabs->setTabToolTip(tabs->addTab(m_view, tr("&Model")),
                        tr("What quantization does to the model: KL, top-1 and perplexity through your PyTorch"));
    const QString python = QSettings().value(pythonKey()).toString();
    m_view->setPython(python.isEmpty() ? defaultPython() : python);
    m_timer = new QTimer(this);
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &ModelController::poll);
    connect(m_view, &ModelView::pythonChanged, this, [](const QString &py) {
        // The default is not stored, so that a changed $QUANTSCOPE_PYTHON still applies.
        if (py.isEmpty() || py == defaultPython())
            QSettings().remove(pythonKey());
        else
            QSettings().setValue(pythonKey(), py);
    });
    connect(m_view, &ModelView::checkRequested, this, &ModelController::checkInterpreter);
    connect(m_view, &ModelView::captureRequested, this, &ModelController::captureActivations);
    connect(m_view, &ModelView::measureLayersRequested, this, &ModelController::measureLayers);
    connect(m_view, &ModelView::measurePointsRequested, this, &ModelController::measureBudgetPoints);
    connect(m_view, &ModelView::cancelRequested, this, &ModelController::cancel);
    m_job.setCancelHandler([this] { cancel(); });
    connect(loads, &LoadController::documentOpened, this, &ModelController::documentOpened);
    connect(loads, &LoadController::captureChanged, this, [this] {
        m_view->setCapture(QDir::toNativeSeparators(m_loads->capturePath()), m_loads->captureSummary());
    });
}

ModelController::~ModelController()
{
    shutdown();
}

void ModelController::shutdown()
{
    m_job.cancel();
    m_check.cancel();
    m_pool.waitForDone();
}

void ModelController::documentOpened()
{
    const auto ck = m_loads->checkpoint();
    if (!ck || m_loads->documentRequest().demo)
        return;
    // The checkpoint's folder, unless the user typed another model.
    const QFileInfo opened(pathToQString(ck->path()));
    const QString folder = QDir::toNativeSeparators(opened.isDir() ? opened.absoluteFilePath() : opened.absolutePath());
    if (m_view->modelPath().isEmpty() || m_view->modelPath() == m_defaultModel)
        m_view->setModelPath(folder);
    m_defaultModel = folder;
}

void ModelController::checkInterpreter()
{
    const std::string python = m_view->python().toStdString();
    m_view->setCheckResult(tr("Checking %1…").arg(m_view->python()), true);
    m_check.start(
        tr("Checking %1").arg(m_view->python()),
        [python](const CancelToken &) {
            CheckOutcome out;
            try {
                out.versions = checkBridge(bridgeConfig(python), {"torch", "transformers", "safetensors", "numpy"});
            } catch (const BridgeError &e) {
                out.kind = e.kind();
                out.message = e.what();
            }
            return out;
        },
        [this](CheckOutcome out) {
            if (!out.kind.empty()) {
                m_view->setCheckResult(tr("%1: %2").arg(fromStd(out.kind), coremessages::translated(out.message)),
                                       false);
            } else {
                QStringList parts;
                for (const char *k : {"python", "torch", "transformers", "safetensors", "numpy"})
                    if (out.versions.contains(k) && out.versions[k].is_string())
                        parts << QStringLiteral("%1 %2").arg(QString::fromLatin1(k),
                                                             fromStd(out.versions[k].get<std::string>()));
                parts << (out.versions.value("cuda", false)
                              ? tr("CUDA: %1").arg(fromStd(out.versions.value("cuda_device", std::string("yes"))))
                              : tr("no CUDA: the model runs on the CPU"));
                m_view->setCheckResult(parts.join(QStringLiteral(" · ")), true);
            }
            emit jobEnded();
        },
        [this](const QString &error) {
            m_view->setCheckResult(error, false);
            emit jobEnded();
        });
}

namespace {

/// The request's model and data from the view; "" with a reason when something is missing.
QString fillInput(const ModelView *view, const LoadController *loads, EvalRequest &request)
{
    if (view->modelPath().isEmpty())
        return ModelController::tr("Choose the model folder.");
    if (view->dataPath().isEmpty())
        return ModelController::tr("Choose the calibration data: a text file, or token ids as .npy.");
    request.input.model = QDir::fromNativeSeparators(view->modelPath()).toStdString();
    const QString data = QDir::fromNativeSeparators(view->dataPath());
    (data.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive) ? request.input.tokens : request.input.text) =
        data.toStdString();
    request.input.samples = view->samples();
    request.input.seq = view->seq();
    if (loads->capture())
        request.capture = loads->capturePath().toStdString();
    return {};
}

} // namespace

void ModelController::captureActivations()
{
    EvalRequest input;
    if (const QString why = fillInput(m_view, m_loads, input); !why.isEmpty()) {
        m_view->showError(QString(), why);
        return;
    }
    const QFileInfo model(QString::fromStdString(input.input.model));
    const QString folder = model.isDir() ? model.absoluteFilePath() : model.absolutePath();
    QString out = QDir(folder).filePath(QStringLiteral("model.capture.safetensors"));
    if (!QFileInfo(folder).isWritable()) {
        out = QFileDialog::getSaveFileName(m_view, tr("Save the Capture"),
                                           QDir::home().filePath(QFileInfo(out).fileName()),
                                           tr("Captures (*.safetensors)"));
        if (out.isEmpty())
            return;
    }
    CaptureRequest request;
    request.input = input.input;
    request.out = QDir::fromNativeSeparators(out).toStdString();
    const std::string python = m_view->python().toStdString();
    auto progress = std::make_shared<ModelJobProgress>();
    m_progress = progress;
    m_view->setRunning(true, tr("Capturing the model's activations…"));
    m_timer->start();
    m_job.start(
        tr("Capture of %1").arg(QFileInfo(folder).fileName()),
        [request, python, progress](const CancelToken &cancel) {
            EvalOutcome out;
            try {
                out.report = nlohmann::ordered_json::parse(
                    runCapture(bridgeConfig(python), request, &cancel, [progress](double f, const std::string &w) {
                        std::lock_guard lock(progress->mutex);
                        progress->fraction = f;
                        progress->what = w;
                    }).dump());
            } catch (const BridgeError &e) {
                out.kind = e.kind();
                out.message = e.what();
            }
            return out;
        },
        [this, out](EvalOutcome result) {
            if (!result.message.empty()) {
                m_view->showError(fromStd(result.kind), coremessages::translated(result.message));
                finished(tr("The capture failed."));
                return;
            }
            m_loads->openCapture(out); // pairs it (in the background) and says so in the log
            finished(tr("Captured %1 token(s) into %2.")
                         .arg(result.report.value("tokens", 0))
                         .arg(QDir::toNativeSeparators(out)));
        },
        [this](const QString &e) {
            m_view->showError(QString(), e);
            finished(tr("The capture failed."));
        });
}

void ModelController::measureLayers()
{
    EvalRequest request;
    if (const QString why = fillInput(m_view, m_loads, request); !why.isEmpty()) {
        m_view->showError(QString(), why);
        return;
    }
    request.perLayer = true;
    // The recipe as a file the bridge job reads; a temporary one for the tabs' recipes.
    auto dir = std::make_shared<QTemporaryDir>();
    QString error;
    try {
        switch (m_view->recipeSource()) {
        case ModelView::RecipeSource::RecipeTab:
            request.recipe = dir->filePath(QStringLiteral("recipe.json")).toStdString();
            m_plan->recipeEditor()->recipe().save(request.recipe);
            break;
        case ModelView::RecipeSource::BudgetTab: {
            const QString json = m_plan->budgetView()->recipeJson();
            if (json.isEmpty()) {
                error = tr("The Budget tab has no chosen recipe: scan in the Layers tab first.");
                break;
            }
            request.recipe = dir->filePath(QStringLiteral("recipe.json")).toStdString();
            Recipe::fromJson(nlohmann::ordered_json::parse(json.toStdString())).save(request.recipe);
            break;
        }
        case ModelView::RecipeSource::File:
            if (m_view->recipeFile().isEmpty())
                error = tr("Choose the recipe file.");
            request.recipe = QDir::fromNativeSeparators(m_view->recipeFile()).toStdString();
            break;
        }
    } catch (const std::exception &e) {
        error = tr("Could not write the recipe: %1").arg(coremessages::translated(std::string(e.what())));
    }
    if (!error.isEmpty()) {
        m_view->showError(QString(), error);
        return;
    }
    const std::string python = m_view->python().toStdString();
    auto progress = std::make_shared<ModelJobProgress>();
    m_progress = progress;
    m_view->setLayerMeasures({});
    m_view->setRunning(true, tr("Measuring each layer's KL…"));
    m_timer->start();
    m_job.start(
        tr("Evaluation: each layer's KL"),
        [request, python, progress, dir](const CancelToken &cancel) {
            EvalOutcome out;
            try {
                out.report =
                    runEval(bridgeConfig(python), request, &cancel, [progress](double f, const std::string &w) {
                        std::lock_guard lock(progress->mutex);
                        progress->fraction = f;
                        progress->what = w;
                    });
            } catch (const BridgeError &e) {
                out.kind = e.kind();
                out.message = e.what();
            }
            return out;
        },
        [this](EvalOutcome out) {
            if (!out.message.empty()) {
                m_view->showError(fromStd(out.kind), coremessages::translated(out.message));
                finished(tr("The eval failed."));
                return;
            }
            try {
                m_view->setLayerMeasures(prepareLayerMeasures(out.report));
                finished(tr("Measured %n module(s).", nullptr, static_cast<int>(out.report["modules"].size())));
            } catch (const std::exception &e) {
                m_view->showError(QString(), coremessages::translated(std::string(e.what())));
                finished(tr("The eval report could not be read."));
            }
        },
        [this](const QString &e) {
            m_view->showError(QString(), e);
            finished(tr("The eval failed."));
        });
}

void ModelController::measureBudgetPoints()
{
    const auto data = m_plan->budgetView()->data();
    if (!data || data->steps.empty()) {
        m_view->showError(QString(), tr("The Budget tab has no budget yet: scan in the Layers tab with several "
                                        "configurations first."));
        return;
    }
    EvalRequest base;
    if (const QString why = fillInput(m_view, m_loads, base); !why.isEmpty()) {
        m_view->showError(QString(), why);
        return;
    }
    const int count = m_view->pointCount();
    const std::string python = m_view->python().toStdString();
    auto progress = std::make_shared<ModelJobProgress>();
    progress->objective = data->problem.objective;
    m_progress = progress;
    m_view->setBudgetPoints({}, fromStd(data->problem.objective));
    m_view->setRunning(true, tr("Solving the budget at %n point(s)…", nullptr, count));
    m_timer->start();
    m_job.start(
        tr("Evaluation: the budget at %n point(s)", nullptr, count),
        [data, base, count, python, progress](const CancelToken &cancel) {
            EvalOutcome out;
            out.objective = data->problem.objective;
            // Every point predicted first (the plot's line), then measured one after another.
            for (const std::uint64_t b : budgetPointBudgets(data->problem, count)) {
                cancel.check();
                out.points.push_back(budgetPoint(data->problem, solveBudget(data->problem, b)));
            }
            {
                std::lock_guard lock(progress->mutex);
                progress->points = out.points;
                progress->pointsChanged = true;
            }
            QTemporaryDir dir;
            const auto n = out.points.size();
            for (std::size_t i = 0; i < n; ++i) {
                EvalRequest request = base;
                request.recipe = dir.filePath(QStringLiteral("point-%1.json").arg(i + 1)).toStdString();
                Recipe::fromJson(budgetRecipeJson(data->problem, solveBudget(data->problem, out.points[i].budgetBytes)))
                    .save(request.recipe);
                const std::string label = "point " + std::to_string(i + 1) + "/" + std::to_string(n);
                try {
                    const auto report = runEval(bridgeConfig(python), request, &cancel,
                                                [progress, i, n, label](double f, const std::string &w) {
                                                    std::lock_guard lock(progress->mutex);
                                                    progress->fraction =
                                                        (static_cast<double>(i) + f) / static_cast<double>(n);
                                                    progress->what = label + ": " + w;
                                                });
                    measureBudgetPoint(out.points[i], report);
                } catch (const BridgeError &e) {
                    out.kind = e.kind();
                    out.message = label + ": " + e.what();
                    return out; // the points measured so far are kept
                } catch (const Cancelled &) {
                    throw;
                } catch (const Error &e) {
                    out.message = label + ": " + e.what();
                    return out;
                }
                std::lock_guard lock(progress->mutex);
                progress->points = out.points;
                progress->pointsChanged = true;
            }
            return out;
        },
        [this](EvalOutcome out) {
            m_view->setBudgetPoints(out.points, fromStd(out.objective));
            const int measured = static_cast<int>(
                std::count_if(out.points.begin(), out.points.end(), [](const BudgetPoint &p) { return p.measured; }));
            if (!out.message.empty())
                m_view->showError(fromStd(out.kind), coremessages::translated(out.message));
            finished(
                tr("Measured %1 of %n budget point(s).", nullptr, static_cast<int>(out.points.size())).arg(measured));
        },
        [this](const QString &e) {
            m_view->showError(QString(), e);
            finished(tr("Measuring the budget points failed."));
        });
}

void ModelController::cancel()
{
    if (!m_job.isRunning())
        return;
    m_job.cancel();
    // The points measured before Cancel stay shown.
    if (m_progress) {
        std::lock_guard lock(m_progress->mutex);
        if (!m_progress->points.empty())
            m_view->setBudgetPoints(m_progress->points, fromStd(m_progress->objective));
    }
    finished(tr("Cancelled; the points measured before stay shown."));
}

void ModelController::poll()
{
    if (!m_progress)
        return;
    std::lock_guard lock(m_progress->mutex);
    m_view->setProgress(m_progress->fraction, coremessages::translated(m_progress->what));
    m_job.setProgress(m_progress->fraction);
    if (m_progress->pointsChanged) {
        m_progress->pointsChanged = false;
        m_view->setBudgetPoints(m_progress->points, fromStd(m_progress->objective));
    }
}

void ModelController::finished(const QString &message)
{
    m_timer->stop();
    m_progress.reset();
    m_view->setRunning(false);
    m_view->setStatus(message);
    emit jobEnded();
}

} // namespace quantscope
