// SPDX-License-Identifier: MIT
#include "comparecontroller.h"

#include "compare/compare_view.h"
#include "compareview.h"
#include "io/checkpoint.h"
#include "loadcontroller.h"
#include "coremessages.h"

#include <QTabWidget>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>

namespace quantscope {

namespace {

constexpr int kProgressIntervalMs = 100;

} // namespace

CompareController::CompareController(QObject *parent, const LoadController *loads, QTabWidget *tabs)
    : QObject(parent), m_loads(loads)
{
    m_pool.setMaxThreadCount(1);
    m_view = new CompareView(tabs);
    m_view->setObjectName(QStringLiteral("compareView")); // quantscope --view compare
    tabs->setTabToolTip(tabs->addTab(m_view, tr("Co&mpare")),
                        tr("How two quantized checkpoints, or two scan reports, differ module by module"));
    m_timer = new QTimer(this);
    m_timer->setInterval(kProgressIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &CompareController::poll);
    connect(m_view, &CompareView::compareRequested, this, &CompareController::compare);
    connect(m_view, &CompareView::cancelRequested, this, [this] {
        m_job.cancel();
        m_overlay.cancel();
        m_timer->stop();
        m_view->jobFinished(tr("Cancelled"));
        emit jobEnded();
    });
    connect(m_view, &CompareView::moduleClicked, this, &CompareController::showModule);
    m_job.setCancelHandler([this] { emit m_view->cancelRequested(); });
    m_overlay.setCancelHandler([this] { emit m_view->cancelRequested(); });
}

CompareController::~CompareController()
{
    shutdown();
}

void CompareController::shutdown()
{
    m_job.cancel();
    m_overlay.cancel();
    m_pool.waitForDone();
}

void CompareController::compare()
{
    if (m_view->pathA().isEmpty())
        if (const auto ck = m_loads->checkpoint())
            m_view->setPaths(QString::fromStdString(ck->path().string()), m_view->pathB(), m_view->reference());
    const std::string a = m_view->pathA().toStdString(), b = m_view->pathB().toStdString();
    if (a.empty() || b.empty())
        return;
    CompareOptions o;
    o.reference = m_view->reference().toStdString();
    const double start = steadySeconds();
    auto progress = std::make_shared<StepMailbox>(start);
    m_progress = progress;
    m_estimator.start(start);
    m_view->jobStarted(tr("Comparing"));
    m_timer->start();
    m_job.start(
        tr("Comparing %1 with %2").arg(QFileInfo(m_view->pathA()).fileName(), QFileInfo(m_view->pathB()).fileName()),
        [a, b, o, progress](const CancelToken &cancel) {
            return std::make_shared<const CompareReport>(runCompare(
                a, b, o, &cancel, [progress](std::int64_t done, std::int64_t total, const std::string &what) {
                    // `done` modules finished, working on the next: the step [done, done + 1).
                    const double n = static_cast<double>(total);
                    progress->report(total > 0 ? static_cast<double>(done) / n : 0,
                                     total > 0 ? std::min(1.0, static_cast<double>(done + 1) / n) : 0, n, what);
                }));
        },
        [this](std::shared_ptr<const CompareReport> report) {
            m_timer->stop();
            finishEstimate();
            m_view->setReport(std::move(report));
            m_view->jobFinished(tr("Comparison finished"), true);
            emit jobEnded();
        },
        [this](const QString &error) {
            m_timer->stop();
            m_view->jobFinished(tr("The comparison failed: %1").arg(error));
            emit jobEnded();
        });
}

void CompareController::showModule(const QString &tensor)
{
    const auto report = m_view->report();
    if (!report || report->kind != "checkpoints" || tensor.isEmpty())
        return; // a scan report carries no weights to overlay
    CompareOptions o;
    o.reference = report->reference;
    const std::string a = report->a, b = report->b, name = tensor.toStdString();
    std::string module = name;
    for (const ModuleComparison &c : report->modules)
        if (c.tensor == name)
            module = c.module;
    m_view->jobStarted(tr("Loading %1").arg(tensor));
    m_overlay.start(
        tr("Loading %1").arg(tensor),
        [a, b, o, name, module](const CancelToken &cancel) {
            const ModuleReconstructions r = loadReconstructions(a, b, module, o);
            cancel.check();
            return std::make_shared<const QuantizeJobResult>(compareOverlay(r, name, &cancel));
        },
        [this, tensor](std::shared_ptr<const QuantizeJobResult> result) {
            m_view->jobFinished({}, true);
            emit overlayReady(std::move(result), tensor);
            emit jobEnded();
        },
        [this](const QString &error) {
            m_view->jobFinished(tr("The comparison failed: %1").arg(error));
            emit jobEnded();
        });
}

void CompareController::finishEstimate()
{
    if (!m_progress)
        return;
    // The last step may have come after the last poll: the whole cost is in it.
    m_progress->feed(m_estimator);
    m_estimator.finish(steadySeconds());
}

void CompareController::poll()
{
    if (!m_progress)
        return;
    m_progress->feed(m_estimator);
    // Inside a step the comparison reports nothing: the estimator interpolates by the measured speed.
    const auto estimate = m_estimator.at(steadySeconds());
    m_view->setProgress(estimate.fraction, coremessages::translated(estimate.what), estimate.secondsLeft);
    m_job.setProgress(estimate.fraction);
}

} // namespace quantscope
