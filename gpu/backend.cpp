// SPDX-License-Identifier: MIT
#include "backend.h"

#include <chrono>
#include <cstdio>

#include "cpu/cpu_backend.h"
#ifdef QUANTSCOPE_HAVE_CUDA
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
#ifdef QUANTSCOPE_HAVE_CUDA
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

QuantizeRun runQuantize(const Tensor &w, const nlohmann::json &spec, const RunOptions &options,
                        const CancelToken *cancel)
{
    const auto &reg = BackendRegistry::instance();
    const std::string method = spec.value("method", std::string());
    const Backend *backend = &reg.cpu();
    QuantizeRun run;
    if (options.device != DeviceChoice::Cpu) {
        if (const Backend *gpu = reg.gpu()) {
            if (gpu->supports(method))
                backend = gpu;
            else
                run.deviceNote = "method '" + method + "' runs on the CPU (no GPU kernel yet)";
        } else if (options.device == DeviceChoice::Gpu) {
            run.deviceNote = "GPU requested but unavailable (" + reg.gpuUnavailableReason() +
                             "): computed on the CPU";
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto dev = backend->upload(w, options.quantize.tensorName);
    QuantizeOptions qo = options.quantize;
    qo.wantDequantized = qo.wantDequantized || options.metrics;
    run.quantized = backend->quantize(*dev, spec, qo, cancel);
    if (options.metrics)
        run.metrics = backend->metrics(*dev, run.quantized.dequantized, options.metricsOptions, cancel);
    run.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.device = backend->info().id;
    return run;
}

std::string builtGpuBackends()
{
#ifdef QUANTSCOPE_HAVE_CUDA
    return "CUDA";
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
