// SPDX-License-Identifier: MIT
#include "backend.h"

#include <chrono>
#include <cstdio>

#include "util/error.h"

#include "cpu/cpu_backend.h"
#if defined(QUANTSCOPE_HAVE_CUDA) || defined(QUANTSCOPE_HAVE_HIP)
#include "cuda/cuda_backend.h"
#endif

namespace quantscope {

BackendRegistry &BackendRegistry::instance()
{
    static BackendRegistry registry; // thread-safe initialisation (C++11 magic statics)
    return registry;
}

BackendRegistry::BackendRegistry() : m_cpu(std::make_unique<CpuBackend>())
{
#if defined(QUANTSCOPE_HAVE_CUDA) || defined(QUANTSCOPE_HAVE_HIP)
    m_gpu = createCudaBackend(m_gpuReason);
#else
    m_gpuReason = "built without a GPU backend";
#endif
}

std::vector<DeviceInfo> BackendRegistry::devices() const
{
    std::vector<DeviceInfo> list{m_cpu->info()};
    if (m_gpu)
        list.push_back(m_gpu->info());
    return list;
}

MeasuredRun Backend::quantizeMeasured(const DeviceTensor &w, const nlohmann::json &spec,
                                      const QuantizeOptions &quantize, const ErrorMetricsOptions &metrics,
                                      const std::optional<TensorStats> &, const CancelToken *cancel) const
{
    QuantizeOptions qo = quantize;
    qo.wantDequantized = true;
    MeasuredRun r;
    r.quantized = this->quantize(w, spec, qo, cancel);
    r.metrics = this->metrics(w, r.quantized.dequantized, metrics, cancel);
    return r;
}

namespace {

QuantizeRun runOn(const Backend &backend, const Tensor &w, const nlohmann::json &spec, const RunOptions &options,
                  const CancelToken *cancel)
{
    QuantizeRun run;
    const auto t0 = std::chrono::steady_clock::now();
    auto dev = backend.upload(w, options.quantize.tensorName);
    QuantizeOptions qo = options.quantize;
    if (options.metrics) {
        MeasuredRun r = backend.quantizeMeasured(*dev, spec, qo, options.metricsOptions, options.inputStats, cancel);
        run.quantized = std::move(r.quantized);
        run.metrics = std::move(r.metrics);
    } else {
        run.quantized = backend.quantize(*dev, spec, qo, cancel);
    }
    run.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.device = backend.info().id;
    return run;
}

} // namespace

QuantizeRun runQuantize(const Tensor &w, const nlohmann::json &spec, const RunOptions &options,
                        const CancelToken *cancel)
{
    const auto &reg = BackendRegistry::instance();
    const std::string method = spec.value("method", std::string());
    const Backend *backend = &reg.cpu();
    std::string note;
    if (options.device != DeviceChoice::Cpu) {
        if (const Backend *gpu = reg.gpu()) {
            if (!gpu->supports(method))
                note = "method '" + method + "' runs on the CPU (no GPU kernel yet)";
            else if (w.numel() == 0)
                note = "empty tensor: computed on the CPU";
            else
                backend = gpu;
        } else if (options.device == DeviceChoice::Gpu) {
            note = "GPU requested but unavailable (" + reg.gpuUnavailableReason() + "): computed on the CPU";
        }
    }
    QuantizeRun run;
    if (backend != &reg.cpu()) {
        try {
            run = runOn(*backend, w, spec, options, cancel);
            return run;
        } catch (const GpuError &e) {
            // Out of memory or a failed launch: never a crash, the CPU computes it.
            note = std::string("GPU failed (") + e.what() + "): computed on the CPU";
        }
    }
    run = runOn(reg.cpu(), w, spec, options, cancel);
    run.deviceNote = note;
    return run;
}

std::string builtGpuBackends()
{
#if defined(QUANTSCOPE_HAVE_CUDA)
    return "CUDA";
#elif defined(QUANTSCOPE_HAVE_HIP)
    return "HIP";
#else
    return "none";
#endif
}

std::string describeComputeDevice()
{
    const auto &reg = BackendRegistry::instance();
    char buf[512];
    if (const Backend *gpu = reg.gpu()) {
        const DeviceInfo i = gpu->info();
        std::snprintf(buf, sizeof buf, "GPU: %s (%s, %.1f GiB free of %.1f)", i.name.c_str(),
                      i.kind == DeviceKind::Hip ? "HIP" : "CUDA",
                      static_cast<double>(i.freeMemory) / (1u << 30),
                      static_cast<double>(i.totalMemory) / (1u << 30));
        return buf;
    }
    const DeviceInfo c = reg.cpu().info();
    std::snprintf(buf, sizeof buf, "CPU: %d threads (no GPU: %s)", c.threads,
                  reg.gpuUnavailableReason().c_str());
    return buf;
}

} // namespace quantscope
