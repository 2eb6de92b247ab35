// SPDX-License-Identifier: MIT
#include "analysiscontroller.h"

#include "engine/gemm_bench_device.h"
#include "engine/registry.h"
#include "engine/sweep_device.h"
#include "gemmtimingview.h"
#include "results/kurtosis_data.h"
#include "results/scale_constant_data.h"
#include "kurtosisview.h"
#include "loadcontroller.h"
#include "quant/quantizer.h"
#include "quantizerpanel.h"
#include "scaleconstantview.h"
#include "tensorbrowser.h"

#include <QStandardPaths>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <algorithm>

namespace quantscope {

namespace {
constexpr int kProgressIntervalMs = 100;
} // namespace

AnalysisController::AnalysisController(QObject *parent, const LoadController *loads, TensorBrowser *browser,
                                       QuantizerPanel *panel, QTabWidget *tabs)
    : QObject(parent), m_loads(loads), m_browser(browser), m_panel(panel)
{
    m_pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount())); // every core, below the UI
    m_pool.setThreadPriority(QThread::LowPriority);
    m_scale = new ScaleConstantView(tabs);
    m_kurtosis = new KurtosisView(tabs);
    // quantscope --view scaleConstant / --view kurtosis
    m_scale->setObjectName(QStringLiteral("scaleConstantView"));
    m_kurtosis->setObjectName(QStringLiteral("kurtosisView"));
    tabs->setTabToolTip(tabs->addTab(m_scale, tr("&Scale constant")),
                        tr("constOpt's MSE for every scale constant c; click to set c"));
    tabs->setTabToolTip(tabs->addTab(m_kurtosis, tr("&Kurtosis")),
                        tr("Per-channel excess kurtosis and the error it brings"));
    // quantscope --view gemmTiming. The CPU's stand-in GEMMs are slow: a shorter default sweep.
    m_gemm = new GemmTimingView(tabs);
    m_gemm->setObjectName(QStringLiteral("gemmTimingView"));
    m_gemm->setMaxM(BackendRegistry::instance().gpu() ? 8192 : 512);
    tabs->setTabToolTip(tabs->addTab(m_gemm, tr("&GEMM timing")),
                        tr("What BF16, FP8 and INT8 GEMMs of the tensor's shape cost against M"));
    m_timer = new QTimer(this);
    m_timer->setInterval(kProgressIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &AnalysisController::poll);

    auto selection = [this](const QStringList &tensors) {
        m_scale->setTensors(tensors);
        m_kurtosis->setTensors(tensors);
        m_gemm->setTensors(tensors);
        previewWeight(tensors.value(0));
    };
    connect(browser, &TensorBrowser::selectionChanged, this, selection);
    selection(browser->selectedTensors());
    m_scale->setConfigurations(panel->configurations());
    connect(panel, &QuantizerPanel::configurationsChanged, this,
            [this] { m_scale->setConfigurations(m_panel->configurations()); });
    connect(m_scale, &ScaleConstantView::sweepRequested, this, &AnalysisController::sweep);
    connect(m_scale, &ScaleConstantView::cancelRequested, this, [this] {
        m_scaleJob.cancel();
        m_scale->setError(tr("Cancelled"));
        emit jobEnded();
    });
    connect(m_scale, &ScaleConstantView::cPicked, this, &AnalysisController::setC);
    connect(m_kurtosis, &KurtosisView::profileRequested, this, &AnalysisController::profileKurtosis);
    connect(m_kurtosis, &KurtosisView::cancelRequested, this, [this] {
        m_kurtosisJob.cancel();
        m_kurtosis->setError(tr("Cancelled"));
        emit jobEnded();
    });
    connect(m_gemm, &GemmTimingView::timingRequested, this, &AnalysisController::timeGemms);
    connect(m_gemm, &GemmTimingView::cancelRequested, this, [this] {
        m_gemmJob.cancel();
        m_gemm->setError(tr("Cancelled"));
        emit jobEnded();
    });
    // The Jobs dock's Cancel does what each view's Cancel does.
    m_scaleJob.setCancelHandler([this] { emit m_scale->cancelRequested(); });
    m_kurtosisJob.setCancelHandler([this] { emit m_kurtosis->cancelRequested(); });
    m_gemmJob.setCancelHandler([this] { emit m_gemm->cancelRequested(); });
}

AnalysisController::~AnalysisController()
{
    shutdown();
}

void AnalysisController::shutdown()
{
    m_scaleJob.cancel();
    m_kurtosisJob.cancel();
    m_gemmJob.cancel();
    m_previewJob.cancel();
    m_pool.waitForDone();
}

void AnalysisController::setResults(std::shared_ptr<const QuantizeJobResult> results)
{
    m_results = std::move(results);
    // The scatter's points come from the results: refresh a profile already shown.
    if (m_kurtosis->data() && !m_kurtosisJob.isRunning())
        m_kurtosis->requestProfile();
}

void AnalysisController::sweep(const QString &tensor, qint64 group, qint64 rotate)
{
    if (!m_loads->hasCheckpoint())
        return;
    ScaleConstantOptions o;
    o.group = group;
    o.rotate = rotate;
    o.threads = m_pool.maxThreadCount();
    // The quantize job's device (the panel's): the MSE grids on the GPU when asked and present.
    DeviceChoice device = DeviceChoice::Auto;
    try {
        device = parseDeviceChoice(m_panel->device().toStdString());
    } catch (const std::exception &) {
    }
    o.device = sweepDevice(device);
    auto progress = std::make_shared<std::atomic<double>>(0.0);
    m_scaleProgress = progress;
    m_scale->jobStarted();
    m_timer->start();
    m_scaleJob.start(
        tr("Scale-constant sweep of %1").arg(tensor),
        [source = m_loads->tensorSource(), name = tensor.toStdString(), o, progress](const CancelToken &cancel) {
            const Tensor w = source.weight(name);
            return std::make_shared<const ScaleConstantData>(
                computeScaleConstantData(w, name, o, &cancel, [progress](double f) { progress->store(f); }));
        },
        [this](std::shared_ptr<const ScaleConstantData> data) {
            m_scale->setData(std::move(data));
            emit jobEnded();
        },
        [this](const QString &error) {
            m_scale->setError(tr("The sweep failed: %1").arg(error));
            emit jobEnded();
        });
}

void AnalysisController::profileKurtosis(const QStringList &tensors, qint64 rotate)
{
    if (!m_loads->hasCheckpoint())
        return;
    std::vector<std::string> names;
    for (const auto &t : tensors)
        names.push_back(t.toStdString());
    auto progress = std::make_shared<std::atomic<double>>(0.0);
    m_kurtosisProgress = progress;
    m_kurtosis->jobStarted();
    m_timer->start();
    m_kurtosisJob.start(
        tr("Kurtosis of %n tensor(s)", nullptr, static_cast<int>(names.size())),
        [source = m_loads->tensorSource(), names, results = m_results, rotate, progress](const CancelToken &cancel) {
            return std::make_shared<const KurtosisData>(computeKurtosisData(
                source.weight, names, results.get(), rotate, 8, &cancel, [progress](double f) { progress->store(f); }));
        },
        [this](std::shared_ptr<const KurtosisData> data) {
            m_kurtosis->setData(std::move(data));
            emit jobEnded();
        },
        [this](const QString &error) {
            m_kurtosis->setError(tr("Computing the kurtosis failed: %1").arg(error));
            emit jobEnded();
        });
}

void AnalysisController::timeGemms(const QString &tensor, qint64 maxM)
{
    if (!m_loads->hasCheckpoint())
        return;
    DeviceChoice device = DeviceChoice::Auto; // the panel's device, as for the quantize job
    try {
        device = parseDeviceChoice(m_panel->device().toStdString());
    } catch (const std::exception &) {
    }
    auto progress = std::make_shared<std::atomic<double>>(0.0);
    m_gemmProgress = progress;
    m_gemm->jobStarted();
    m_timer->start();
    m_gemmJob.start(
        tr("GEMM timing of %1").arg(tensor),
        [source = m_loads->tensorSource(), name = tensor.toStdString(), device, progress, mode = m_gemm->mode(),
         asked = m_gemm->timingRequest(maxM),
         cache = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation).toStdString()](
            const CancelToken &cancel) {
            // N×K of the weight as the quantizers see it ([out, in]); the quantized paths time
            // its own codes (quantized on the device by runGemmBench).
            auto weight = std::make_shared<const Tensor>(source.weight(name));
            const auto [n, k] = matrixView(weight->shape());
            GemmBenchRequest request = asked; // the view's formats, experts, W3 rank and M sweep
            request.n = n;
            request.k = k;
            if (mode == GemmTimingView::Mode::Quantized)
                request.weight = std::move(weight);
            // The roofline's ceilings, cached per device in the app's settings folder.
            if (!cache.empty())
                request.peaksCache = cache + "/gemm_peaks.json";
            cancel.setStepProgress([progress](double f) { progress->store(f); });
            return std::make_shared<const GemmBenchResult>(runGemmBench(request, device, &cancel));
        },
        [this, tensor](std::shared_ptr<const GemmBenchResult> result) {
            m_gemm->setResult(std::move(result), tensor);
            emit jobEnded();
        },
        [this](const QString &error) {
            m_gemm->setError(tr("Timing the GEMMs failed: %1").arg(error));
            emit jobEnded();
        });
}

void AnalysisController::setC(int index, double c)
{
    if (index < 0) {
        // No constOpt configuration yet: add one, then set its c.
        if (!m_panel->addConfiguration(QStringLiteral("constopt")))
            return;
        index = m_panel->configurationCount() - 1;
    }
    m_panel->setSpecValue(index, QStringLiteral("c"), c);
}

void AnalysisController::previewWeight(const QString &tensor)
{
    // Only while nothing ran: with results the Distribution view shows those.
    if (tensor.isEmpty() || (m_results && !m_results->outcomes.empty()) || !m_loads->checkpoint()) {
        m_previewJob.cancel();
        return;
    }
    m_previewJob.start(
        // The bins a run would use, so the preview and the run's W series agree.
        [source = m_loads->tensorSource(), name = tensor.toStdString(), bins = m_panel->bins(),
         symlog = m_panel->symlog()](const CancelToken &cancel) {
            return std::make_shared<const WeightPreview>(
                quantscope::previewWeight(name, source.weight(name), bins, symlog, &cancel));
        },
        [this](std::shared_ptr<const WeightPreview> preview) {
            emit weightPreviewReady(std::move(preview));
            emit jobEnded();
        },
        [this](const QString &) {
            // A tensor that cannot be read as a weight (packed codes, an index): no preview.
            emit weightPreviewReady(nullptr);
            emit jobEnded();
        });
}

void AnalysisController::poll()
{
    if (m_scaleJob.isRunning() && m_scaleProgress) {
        m_scale->setProgress(m_scaleProgress->load());
        m_scaleJob.setProgress(m_scaleProgress->load());
    }
    if (m_kurtosisJob.isRunning() && m_kurtosisProgress) {
        m_kurtosis->setProgress(m_kurtosisProgress->load());
        m_kurtosisJob.setProgress(m_kurtosisProgress->load());
    }
    if (m_gemmJob.isRunning() && m_gemmProgress) {
        m_gemm->setProgress(m_gemmProgress->load());
        m_gemmJob.setProgress(m_gemmProgress->load());
    }
    if (!isRunning())
        m_timer->stop();
}

} // namespace quantscope
