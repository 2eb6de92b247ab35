// SPDX-License-Identifier: MIT
#include "engine/run.h"

#include <chrono>

#include "engine/registry.h"
#include "util/error.h"

namespace quantscope {

DeviceChoice parseDeviceChoice(const std::string &text)
{
    if (text == "auto")
        return DeviceChoice::Auto;
    if (text == "cpu")
        return DeviceChoice::Cpu;
    if (text == "gpu")
        return DeviceChoice::Gpu;
    throw UnsupportedError("device must be auto, cpu or gpu, not '" + text + "'");
}

namespace {

QuantizeRun runOn(const Backend &backend, const Tensor &w, const QuantSpec &spec, const RunOptions &options,
                  const CancelToken *cancel)
{
    QuantizeRun run;
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<const DeviceTensor> dev;
    if (options.uploads && options.uploads->backend == &backend && options.uploads->tensor) {
        dev = options.uploads->tensor;
    } else {
        dev = backend.upload(w, options.quantize.tensorName);
        if (options.uploads) {
            options.uploads->backend = &backend;
            options.uploads->tensor = dev;
        }
    }
    QuantizeOptions qo = options.quantize;
    if (options.metrics) {
        MeasuredRun r = backend.quantizeMeasured(*dev, spec, qo, options.metricsOptions, options.inputStats, cancel);
        run.quantized = std::move(r.quantized);
        run.metrics = std::move(r.metrics);
        run.deviceDequantized = std::move(r.deviceDequantized);
    } else {
        run.quantized = backend.quantize(*dev, spec, qo, cancel);
    }
    run.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.device = backend.info().id;
    return run;
}

} // namespace

QuantizeRun runQuantize(const Tensor &w, const QuantSpec &spec, const RunOptions &options, const CancelToken *cancel)
{
    const auto &reg = BackendRegistry::instance();
    const Backend *backend = &reg.cpu();
    std::string note;
    if (options.device != DeviceChoice::Cpu) {
        if (const Backend *gpu = reg.gpu()) {
            const Capability cap = gpu->supports(spec);
            if (!cap.supported)
                note = cap.reason;
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

} // namespace quantscope
