// SPDX-License-Identifier: MIT
#include "jobcontroller.h"

#include "jobprogresswidget.h"
#include "loadcontroller.h"
#include "logview.h"
#include "qtstring.h"
#include "engine/job.h"
#include "results/config_label.h"
#include "results/overview.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"
#include "tensortreemodel.h"
#include "coremessages.h"

#include <QLocale>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <mutex>
#include <utility>

namespace quantscope {

/// The runs of the running job that have finished, collected on the worker: Cancel shows them
/// as a partial batch instead of discarding them.
struct FinishedRuns {
    std::mutex mutex;
    QuantizeJobResult result;
};

namespace {

constexpr int kProgressIntervalMs = 100;
/// Element-weighted cost units per second assumed before the first job was measured.
constexpr double kInitialCostPerSecond = 2.0e7;

/// The panel's device ("auto", "cpu", "gpu") through the engine's one parser; anything else
/// (a session from a newer version) is Auto.
DeviceChoice deviceChoiceOf(const QString &s)
{
    try {
        return parseDeviceChoice(s.toStdString());
    } catch (const std::exception &) {
        return DeviceChoice::Auto;
    }
}

int idealPoolThreads()
{
    // Every core: a 2-core laptop ran jobs on 1 thread with "cores − 1". The UI thread sleeps
    // in its event loop; the workers at low priority yield to it when it wakes.
    return std::max(1, QThread::idealThreadCount());
}

} // namespace

JobController::JobController(QObject *parent, const LoadController *loads, TensorBrowser *browser,
                             QuantizerPanel *panel, JobProgressWidget *job, LogView *log)
    : QObject(parent), m_loads(loads), m_browser(browser), m_panel(panel), m_job(job), m_log(log),
      // Before the first job is measured, interpolate with an assumed speed.
      m_estimator(kInitialCostPerSecond)
{
    m_pool.setMaxThreadCount(idealPoolThreads());
    m_pool.setThreadPriority(QThread::LowPriority);
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(kProgressIntervalMs);
    connect(m_progressTimer, &QTimer::timeout, this, &JobController::poll);
    // The Jobs dock's Cancel keeps the finished runs as the panel's Cancel does.
    m_tracker.setCancelHandler([this] { cancel(); });
}

JobController::~JobController()
{
    shutdown();
}

void JobController::shutdown()
{
    // Workers may still be inside the engine: ask them to stop and wait for them.
    m_tracker.cancel();
    m_pool.waitForDone();
}

void JobController::setResults(std::shared_ptr<const QuantizeJobResult> results)
{
    m_results = std::move(results);
    emit resultsChanged(m_results);
}

bool JobController::start(bool onlyMissing)
{
    if (!m_loads->hasCheckpoint()) {
        emit statusMessage(tr("Open a checkpoint first"));
        return false;
    }
    auto tensors = m_browser->selectedTensors();
    // 1-D tensors (norms, biases) are not what a weight quantizer is for: skipped, with a note,
    // unless they are all that is selected.
    QStringList oneD;
    for (const auto &e : m_browser->model()->entries())
        if (e.shape.size() <= 1 && tensors.contains(e.name))
            oneD << e.name;
    if (!oneD.isEmpty() && oneD.size() < tensors.size()) {
        for (const auto &t : oneD)
            tensors.removeAll(t);
        const auto note = tr("Skipped %n 1-D tensor(s) (norms, biases); select only them to "
                             "quantize them.",
                             nullptr, static_cast<int>(oneD.size()));
        m_log->append(LogView::Severity::Info, note);
        emit statusMessage(note);
    }
    if (tensors.isEmpty()) {
        emit statusMessage(tr("Select one or more tensors to quantize"));
        m_job->finish(tr("Select one or more tensors in the Tensors dock, then Run."));
        return false;
    }

    QuantizeJobRequest request;
    for (const auto &t : tensors)
        request.tensors.push_back(t.toStdString());
    request.configs = m_panel->configurations();
    m_mergeBase = nullptr;
    if (onlyMissing && m_results) {
        const auto stale = staleConfigurations(*m_results, request.configs);
        std::vector<JobConfig> missing;
        for (const auto &c : request.configs) {
            bool needed = stale.count(c.name) > 0;
            for (const auto &t : request.tensors) {
                if (needed)
                    break;
                const QuantizeOutcome *o = m_results->outcome(t, c.name);
                needed = !o || !o->ok() ||
                         (m_spectrum &&
                          (!o->spectrum || (m_spectrum->top == 0 && !o->spectrum->complete) ||
                           (!o->spectrum->complete && static_cast<int>(o->spectrum->sigma.size()) < m_spectrum->top)));
            }
            if (needed)
                missing.push_back(c);
        }
        if (missing.empty()) {
            const auto note = tr("Nothing to run: every configuration has its results for the selected tensors.");
            emit statusMessage(note);
            m_log->append(LogView::Severity::Info, note);
            return false;
        }
        request.configs = std::move(missing);
        m_mergeBase = m_results;
    }
    request.device = deviceChoiceOf(m_panel->device());
    request.bins = m_panel->bins();
    request.symlog = m_panel->symlog();
    request.threads = poolThreads();
    request.activation = m_loads->activation().toStdString();
    request.capture = m_loads->capture();       // each paired module's output-aware error
    request.importance = m_loads->importance(); // llama.cpp's imatrix for the gguf method
    request.spectrum = m_spectrum;
    TensorSource source = m_loads->tensorSource();

    const double start = steadySeconds();
    auto progress = std::make_shared<StepMailbox>(start);
    m_progress = progress;
    StepCallback step = [progress](double begin, double end, double total, const std::string &what) {
        progress->report(begin, end, total, what);
    };

    auto finishedRuns = std::make_shared<FinishedRuns>();
    m_finished = finishedRuns;
    OutcomeCallback finished = [finishedRuns](const TensorProfile &profile, const QuantizeOutcome &outcome) {
        std::lock_guard lock(finishedRuns->mutex);
        auto &r = finishedRuns->result;
        if (!r.profile(profile.tensor))
            r.tensors.push_back(profile);
        r.outcomes.push_back(outcome);
    };

    const auto configCount = static_cast<int>(request.configs.size());
    // One sentence, so that the language switch finds it again.
    const QString title = tr("Quantizing %1 × %2")
                              .arg(tr("%n tensor(s)", nullptr, static_cast<int>(tensors.size())),
                                   tr("%n configuration(s)", nullptr, configCount));
    m_job->start(title);
    m_jobStart = start;
    m_estimator.start(start);
    m_progressTimer->start();
    m_panel->setRunning(true);
    emit runningChanged(true);

    m_tracker.start(
        title,
        [request = std::move(request), source = std::move(source), step = std::move(step),
         finished = std::move(finished)](const CancelToken &cancel) {
            return runQuantizeJob(request, source, cancel, step, finished);
        },
        [this](QuantizeJobResult result) { deliver(std::move(result)); },
        [this](const QString &error) { fail(error); });
    return true;
}

QuantizeJobResult JobController::merged(QuantizeJobResult fresh) const
{
    if (!m_mergeBase)
        return fresh;
    QuantizeJobResult out = *m_mergeBase;
    out.partial = fresh.partial;
    for (auto &p : fresh.tensors)
        if (!out.profile(p.tensor))
            out.tensors.push_back(std::move(p));
    for (auto &o : fresh.outcomes) {
        auto same = std::find_if(out.outcomes.begin(), out.outcomes.end(), [&o](const QuantizeOutcome &x) {
            return x.tensor == o.tensor && x.config == o.config;
        });
        if (same != out.outcomes.end())
            *same = std::move(o);
        else
            out.outcomes.push_back(std::move(o));
    }
    for (auto &w : fresh.warnings)
        out.warnings.push_back(std::move(w));
    return out;
}

void JobController::deliver(QuantizeJobResult result)
{
    m_finished.reset();
    const double now = steadySeconds();
    const double seconds = now - m_jobStart;
    m_progress->feed(m_estimator); // the last step may have come after the last poll
    m_estimator.finish(now);
    for (const auto &w : result.warnings)
        m_log->append(LogView::Severity::Warning, coremessages::translated(w));
    int failed = 0;
    QStringList notes;
    for (const auto &o : result.outcomes) {
        if (!o.ok()) {
            ++failed;
            m_log->append(LogView::Severity::Error, tr("%1 on %2 failed: %3")
                                                        .arg(fromStd(configLabel(o.config, o.spec)), fromStd(o.tensor),
                                                             coremessages::translated(o.error)));
        } else if (!o.deviceNote.empty() && !notes.contains(fromStd(o.deviceNote))) {
            notes << fromStd(o.deviceNote);
            m_log->append(LogView::Severity::Warning, coremessages::translated(o.deviceNote));
        }
        // Where a spectrum could not run on the device asked for (core says why, in its words).
        if (o.ok() && o.spectrum && !o.spectrum->deviceNote.empty() &&
            !notes.contains(fromStd(o.spectrum->deviceNote))) {
            notes << fromStd(o.spectrum->deviceNote);
            m_log->append(LogView::Severity::Warning, coremessages::translated(o.spectrum->deviceNote));
        }
    }
    // Runs on tensors too small for their group (or block): their numbers describe no real
    // grouping, so the first is named here and the Overview marks them all (⚠).
    {
        const auto overview = prepareOverview(result);
        const auto noted = std::count_if(overview.rows.begin(), overview.rows.end(),
                                         [](const OverviewRow &r) { return !r.note.empty(); });
        const auto first = std::find_if(overview.rows.begin(), overview.rows.end(),
                                        [](const OverviewRow &r) { return !r.note.empty(); });
        if (first != overview.rows.end())
            m_log->append(LogView::Severity::Warning, tr("%1 on tensor %2: %3")
                                                          .arg(fromStd(first->configLabel), fromStd(first->tensor),
                                                               coremessages::translated(first->note)));
        if (noted > 1)
            m_log->append(LogView::Severity::Warning,
                          tr("%n more run(s) like it: marked ⚠ in the Overview", nullptr, static_cast<int>(noted - 1)));
    }
    for (const auto &p : result.tensors)
        if (!p.activationNote.empty())
            m_log->append(LogView::Severity::Warning,
                          tr("%1: %2").arg(fromStd(p.tensor), coremessages::translated(p.activationNote)));
    for (const auto &p : result.tensors)
        if (!p.captureNote.empty())
            m_log->append(LogView::Severity::Info,
                          tr("%1: %2").arg(fromStd(p.tensor), coremessages::translated(p.captureNote)));
    const auto n = static_cast<int>(result.outcomes.size());
    QString message =
        seconds < 1 ? tr("Finished %1 in %2 ms").arg(tr("%n run(s)", nullptr, n)).arg(qRound(seconds * 1000))
                    : tr("Finished %1 in %2 s").arg(tr("%n run(s)", nullptr, n), QLocale().toString(seconds, 'f', 1));
    if (failed > 0)
        message = tr("%1; %2").arg(message, tr("%n failed (see the log)", nullptr, failed));
    m_log->append(failed ? LogView::Severity::Warning : LogView::Severity::Info, message);
    setResults(std::make_shared<const QuantizeJobResult>(merged(std::move(result))));
    m_mergeBase = nullptr;
    m_job->finish(message, true);
    stopped();
    emit jobFinished(true);
    emit jobEnded();
}

void JobController::fail(const QString &error)
{
    m_mergeBase = nullptr;
    m_finished.reset();
    const auto text = tr("The quantization job failed: %1").arg(error);
    m_log->append(LogView::Severity::Error, text);
    m_job->finish(text);
    stopped();
    emit errorOccurred(tr("Quantization Failed"), tr("The quantization job failed."), error);
    emit jobFinished(false);
    emit jobEnded();
}

void JobController::cancel()
{
    if (!m_tracker.isRunning())
        return;
    // The worker stops at its next checkpoint; whatever it delivers is stale from now on.
    m_tracker.cancel();
    // Keep the runs that had finished, marked as a partial batch.
    QuantizeJobResult kept;
    if (const auto finished = std::exchange(m_finished, nullptr)) {
        std::lock_guard lock(finished->mutex);
        kept = std::move(finished->result);
    }
    const auto n = static_cast<int>(kept.outcomes.size());
    const QString message = n > 0 ? tr("Cancelled; %n finished run(s) are shown as a partial batch.", nullptr, n)
                                  : tr("Cancelled before any run finished.");
    m_job->finish(message);
    m_log->append(LogView::Severity::Info, message);
    stopped();
    if (n > 0) {
        kept.partial = true;
        setResults(std::make_shared<const QuantizeJobResult>(merged(std::move(kept))));
    }
    m_mergeBase = nullptr;
    emit jobEnded();
}

void JobController::stopped()
{
    m_progressTimer->stop();
    m_panel->setRunning(false);
    emit runningChanged(false);
}

void JobController::poll()
{
    if (!m_tracker.isRunning() || !m_progress)
        return;
    m_progress->feed(m_estimator);
    // Inside a step the engine reports nothing: the estimator interpolates by the measured
    // speed, never past 95 % of the step.
    const auto estimate = m_estimator.at(steadySeconds());
    m_job->setProgress(estimate.fraction, coremessages::translated(estimate.what), estimate.secondsLeft);
    m_tracker.setProgress(estimate.fraction);
}

} // namespace quantscope
