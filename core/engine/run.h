// SPDX-License-Identifier: MIT
#pragma once
/// \file run.h
/// One quantization of one tensor on the chosen device, with its metrics: the step every job,
/// CLI command and later feature (scan, sweep, exporters) goes through.
#include <memory>
#include <optional>
#include <string>

#include "engine/backend.h"

namespace quantscope {

/// Which device a request asks for.
enum class DeviceChoice : std::uint8_t { Auto, Cpu, Gpu };

/// "auto", "cpu" or "gpu" (the CLI's --device and the session's "device"); throws
/// UnsupportedError naming the accepted values otherwise.
DeviceChoice parseDeviceChoice(const std::string &text);

/// One quantization run: the result, its metrics and where/how long it ran.
struct QuantizeRun {
    QuantizedTensor quantized;
    std::optional<ErrorMetrics> metrics;
    std::string device;     ///< DeviceInfo::id of the backend that ran it
    std::string deviceNote; ///< why another device than asked was used ("" when as asked)
    double timeMs = 0;      ///< quantize + metrics, wall clock
    /// Ŵ on the device that ran it (QuantizeOptions::dequantizedOnDevice and a backend that keeps
    /// it there; then `quantized.dequantized` may be empty).
    std::shared_ptr<const DeviceTensor> deviceDequantized;
};

/// A tensor's copy on the backend that last ran it, kept between the runs of several specs on that
/// tensor (the job's configurations, the scan's specs) so that each backend uploads it once. One
/// per tensor; not shared between threads.
struct UploadCache {
    const Backend *backend = nullptr;
    std::shared_ptr<const DeviceTensor> tensor;
};

struct RunOptions {
    DeviceChoice device = DeviceChoice::Auto;
    bool metrics = true;
    ErrorMetricsOptions metricsOptions;
    QuantizeOptions quantize;
    /// W's statistics from when the tensor was opened (computeStats with metricsOptions.miloStd):
    /// lets a GPU skip the range pass. Optional.
    std::optional<TensorStats> inputStats;
    /// Reuse (and fill) this tensor's device copy instead of uploading it again. Optional.
    UploadCache *uploads = nullptr;
};

/// Quantizes `w` with `spec` on the chosen device (falls back to the CPU, saying why, when the
/// GPU is absent, does not support the spec or fails — out of memory included) and computes the
/// metrics.
QuantizeRun runQuantize(const Tensor &w, const QuantSpec &spec, const RunOptions &options,
                        const CancelToken *cancel = nullptr);

} // namespace quantscope
