// SPDX-License-Identifier: MIT
#pragma once
/// \file backend.h
/// What the engine asks of a compute device, and the registry that picks one at run time:
/// the CPU backend always exists; a CUDA (or HIP) backend when the build has it and a device is
/// present. A failed GPU start falls back to the CPU with the reason kept for the UI/CLI.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/error_metrics.h"
#include "quant/quantizer.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

enum class DeviceKind : std::uint8_t { Cpu, Cuda, Hip };

struct DeviceInfo {
    DeviceKind kind = DeviceKind::Cpu;
    std::string id;   ///< "cpu", "cuda:0", "hip:0"
    std::string name; ///< "AMD EPYC …" / "NVIDIA H100 80GB HBM3"
    std::uint64_t totalMemory = 0; ///< bytes (host RAM for the CPU)
    std::uint64_t freeMemory = 0;  ///< bytes at the time of the query
    int threads = 1;               ///< CPU worker threads; SM count for GPUs
};

/// A tensor resident on a device (for the CPU: a view of host memory). Opaque to callers.
class DeviceTensor {
public:
    virtual ~DeviceTensor() = default;
    virtual const Shape &shape() const = 0;
    virtual DType dtype() const = 0;
};

/// Quantization and its metrics in one call (what a GPU backend fuses).
struct MeasuredRun {
    QuantizedTensor quantized;
    ErrorMetrics metrics;
};

/// One compute device: what the engine asks of it. Every backend gives the same codes and
/// scales as the CPU reference for the one-shot quantizers (docs/numerics.md "Numerical contract").
class Backend {
public:
    virtual ~Backend() = default;
    virtual DeviceInfo info() const = 0;
    /// True when this backend implements the method itself (else the engine uses the CPU).
    virtual bool supports(const std::string &method) const = 0;
    /// Copies (GPU) or wraps (CPU) a host tensor. Throws GpuError naming the tensor on OOM.
    virtual std::shared_ptr<const DeviceTensor> upload(const Tensor &t, const std::string &name) const = 0;
    /// Quantizes with a spec JSON (codes + scales + zero points, and Ŵ when asked).
    virtual QuantizedTensor quantize(const DeviceTensor &w, const nlohmann::json &spec,
                                     const QuantizeOptions &options,
                                     const CancelToken *cancel = nullptr) const = 0;
    /// Ŵ (FP32, row-major) from stored codes, scales and zero points.
    virtual std::vector<float> dequantize(const QuantizedTensor &q) const = 0;
    /// Error metrics, moments and histograms of Ŵ against W.
    virtual ErrorMetrics metrics(const DeviceTensor &w, std::span<const float> wHat,
                                 const ErrorMetricsOptions &options,
                                 const CancelToken *cancel = nullptr) const = 0;
    /// Quantizes and measures. `inputStats`: W's statistics as computed when it was opened (a
    /// GPU backend then skips its range pass and W's moments). Default: quantize (Ŵ kept), then
    /// metrics; GPU backends fuse the two and keep Ŵ on the device unless asked for it.
    virtual MeasuredRun quantizeMeasured(const DeviceTensor &w, const nlohmann::json &spec,
                                         const QuantizeOptions &quantize, const ErrorMetricsOptions &metrics,
                                         const std::optional<TensorStats> &inputStats,
                                         const CancelToken *cancel = nullptr) const;
};

/// Which device a request asks for.
enum class DeviceChoice : std::uint8_t { Auto, Cpu, Gpu };

/// One quantization run: the result, its metrics and where/how long it ran.
struct QuantizeRun {
    QuantizedTensor quantized;
    std::optional<ErrorMetrics> metrics;
    std::string device;      ///< DeviceInfo::id of the backend that ran it
    std::string deviceNote;  ///< why another device than asked was used ("" when as asked)
    double timeMs = 0;       ///< quantize + metrics, wall clock
};

struct RunOptions {
    DeviceChoice device = DeviceChoice::Auto;
    bool metrics = true;
    ErrorMetricsOptions metricsOptions;
    QuantizeOptions quantize;
    /// W's statistics from when the tensor was opened (computeStats with metricsOptions.miloStd):
    /// lets a GPU skip the range pass. Optional.
    std::optional<TensorStats> inputStats;
};

/// Quantizes `w` with `spec` on the chosen device (falls back to the CPU, saying why, when
/// the GPU is absent, lacks the method or fails — out of memory included) and computes the metrics.
QuantizeRun runQuantize(const Tensor &w, const nlohmann::json &spec, const RunOptions &options,
                        const CancelToken *cancel = nullptr);

/// Run-time registry of the devices this build can use.
class BackendRegistry {
public:
    static BackendRegistry &instance();

    const Backend &cpu() const { return *m_cpu; }
    /// The GPU backend, or nullptr when the build has none or no device could be started.
    const Backend *gpu() const { return m_gpu.get(); }
    /// Why there is no GPU backend ("built without CUDA", "no CUDA device: …").
    const std::string &gpuUnavailableReason() const { return m_gpuReason; }
    /// CPU first, then the GPU when present.
    std::vector<DeviceInfo> devices() const;
    /// The device "Auto" picks: the GPU when present, else the CPU.
    const Backend &preferred() const { return m_gpu ? *m_gpu : *m_cpu; }

private:
    BackendRegistry();
    std::unique_ptr<Backend> m_cpu;
    std::unique_ptr<Backend> m_gpu;
    std::string m_gpuReason;
};

/// One line for status bars and `--version`: "GPU: NVIDIA H100 (CUDA, 79.1 GiB free of 79.6)"
/// or "CPU: 2 threads (no GPU: built without CUDA)".
std::string describeComputeDevice();

/// Which GPU backends this build contains ("CUDA", "HIP" or "none").
std::string builtGpuBackends();

} // namespace quantscope
