// SPDX-License-Identifier: MIT
#include "scancontroller.h"

#include "layersview.h"
#include "loadcontroller.h"
#include "quantizerpanel.h"
#include "tensorbrowser.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>

namespace quantscope {

namespace {
constexpr int kProgressIntervalMs = 200;
} // namespace

ScanController::ScanController(QObject *parent, const LoadController *loads, TensorBrowser *browser,
                               QuantizerPanel *panel, QTabWidget *tabs)
    : QObject(parent), m_loads(loads), m_browser(browser), m_panel(panel), m_tabs(tabs)
{
    m_pool.setMaxThreadCount(1);
    m_view = new LayersView(tabs);
    m_view->setObjectName(QStringLiteral("layersView")); // quantscope --view layers
    tabs->setTabToolTip(tabs->addTab(m_view, tr("&Layers")),
                        tr("Every layer's error at a glance: scan the whole checkpoint"));
    m_timer = new QTimer(this);
    m_timer->setInterval(kProgressIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &ScanController::poll);
    connect(m_view, &LayersView::scanRequested, this, &ScanController::scan);
    connect(loads, &LoadController::documentOpened, m_view,
            [this](const OpenResult &) { m_view->setCheckpointName(m_loads->documentName()); });
    connect(m_view, &LayersView::cancelRequested, this, [this] {
        m_job.cancel();
        m_timer->stop();
        m_view->jobFinished(tr("Cancelled; the next scan resumes here"));
        emit jobEnded();
    });
    connect(m_view, &LayersView::tensorClicked, this, [this](const QString &tensor) {
        m_browser->setSelectedTensors({tensor});
        m_tabs->setCurrentIndex(0); // the Distribution view of that tensor
    });
    m_job.setCancelHandler([this] { emit m_view->cancelRequested(); });
}

ScanController::~ScanController()
{
    shutdown();
}

void ScanController::shutdown()
{
    m_job.cancel();
    m_pool.waitForDone();
}

QString ScanController::reportPath(const ScanOptions &o) const
{
    const auto ck = m_loads->checkpoint();
    // A report records its capture and resumes only with the same one: the capture is part of the key.
    const std::string key = (ck ? ck->path().string() : std::string()) + '\n' + o.recipe.hash() + '\n' +
                            toString(o.spectra) + '\n' + std::to_string(static_cast<int>(o.device)) +
                            (o.capture ? '\n' + o.capture->path().string() : std::string());
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/scans");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') +
           QString::fromLatin1(
               QCryptographicHash::hash(QByteArray::fromStdString(key), QCryptographicHash::Sha1).toHex().left(16)) +
           QStringLiteral(".jsonl");
}

ScanOptions ScanController::options() const
{
    ScanOptions o;
    std::vector<QuantSpec> specs;
    for (const auto &c : m_panel->configurations()) {
        try {
            specs.push_back(parseQuantSpec(c.spec));
        } catch (const std::exception &) {
            // A configuration that does not parse is left out (the quantize job reports it).
        }
    }
    if (!specs.empty())
        o.recipe = Recipe::defaults().withSpecs(specs);
    try {
        o.device = parseDeviceChoice(m_panel->device().toStdString());
    } catch (const std::exception &) {
    }
    o.spectra = m_view->spectra() ? SpectraMode::Counts : SpectraMode::Off;
    o.capture = m_loads->capture();
    o.reportPath = reportPath(o).toStdString();
    return o;
}

void ScanController::scan()
{
    const auto ck = m_loads->checkpoint();
    if (!ck)
        return;
    const ScanOptions o = options();
    const double start = steadySeconds();
    auto progress = std::make_shared<StepMailbox>(start);
    m_progress = progress;
    m_estimator.start(start);
    m_view->jobStarted();
    m_timer->start();
    m_job.start(
        tr("Scan of %1").arg(m_loads->documentName()),
        [ck, o, progress](const CancelToken &cancel) {
            // The scan reports elements: working on [b, e) of `total`.
            ScanResult r =
                runScan(*ck, o, cancel, [progress](double b, double e, double total, const std::string &what) {
                    progress->report(total > 0 ? b / total : 0, total > 0 ? e / total : 0, total, what);
                });
            return std::make_shared<const std::vector<nlohmann::ordered_json>>(std::move(r.lines));
        },
        [this](std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines) {
            m_timer->stop();
            finishEstimate();
            m_view->setLines(std::move(lines));
            m_view->jobFinished(tr("Scan finished"));
            emit jobEnded();
        },
        [this](const QString &error) {
            m_timer->stop();
            m_view->jobFinished(tr("The scan failed: %1").arg(error));
            emit jobEnded();
        });
}

void ScanController::finishEstimate()
{
    if (!m_progress)
        return;
    // The last step may have come after the last poll: the whole cost is in it.
    m_progress->feed(m_estimator);
    m_estimator.finish(steadySeconds());
}

void ScanController::poll()
{
    if (!m_progress)
        return;
    m_progress->feed(m_estimator);
    // Inside a step the scan reports nothing: the estimator interpolates by the measured speed.
    const auto estimate = m_estimator.at(steadySeconds());
    m_view->setProgress(estimate.fraction, QString::fromStdString(estimate.what), estimate.secondsLeft);
    m_job.setProgress(estimate.fraction);
}

} // namespace quantscope
