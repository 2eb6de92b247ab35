// SPDX-License-Identifier: MIT
#pragma once
/// \file backend.h
/// What the engine asks of a compute device. The CPU backend (cpu_backend.h) always exists; a
/// CUDA or HIP backend is registered into the BackendRegistry (registry.h) by gpu/ when the build
/// has one. A spec crosses this interface typed (QuantSpec), parsed and validated once where the
/// request entered; what a backend runs itself is declared per method and option (supports()).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "results/channel_profile.h"
#include "metrics/error_metrics.h"
#include "metrics/output_error.h"
#include "metrics/spectrum.h"
#include "quant/quant_spec.h"
#include "quant/activation.h"
#include "quant/quantizer.h"
#include "sim/gemm_bench.h"
#include "sim/gemm_sim.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

class CSweepGridEvaluator; // quant/constopt_sweep.h
struct CSweepOptions;

enum class DeviceKind : std::uint8_t { Cpu, Cuda, Hip };

struct DeviceInfo {
    DeviceKind kind = DeviceKind::Cpu;
    std::string id;                ///< "cpu", "cuda:0", "hip:0"
    std::string name;              ///< "AMD EPYC …" / "NVIDIA H100 80GB HBM3"
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
    /// Ŵ (FP32, W's shape) left on the device when QuantizeOptions::dequantizedOnDevice asked for
    /// it and the backend has it there (a GPU's pipeline); null otherwise (then `dequantized`).
    std::shared_ptr<const DeviceTensor> deviceDequantized;
};

/// A module's Gram matrix as a backend holds it (Backend::uploadGram): on a GPU it is uploaded
/// once and stays on the device for every run on the module's weight. Opaque to callers.
class DeviceGram {
public:
    virtual ~DeviceGram() = default;
    virtual const GramMatrix &gram() const = 0;
};

/// Whether a backend runs one spec itself; when not, why (shown as the run's device note).
struct Capability {
    bool supported = false;
    std::string reason; ///< "" when supported
};

/// What a backend runs, per method, in words for `--version` and the window's device menu.
struct MethodSupport {
    std::string method;
    bool supported = false;
    std::string options; ///< which options ("all options", "bits 2–8, …"); or why not
};

/// One compute device: what the engine asks of it. Every backend gives the same codes and
/// scales as the CPU reference for the one-shot quantizers (docs/numerics.md "Numerical contract").
class Backend {
public:
    virtual ~Backend() = default;
    virtual DeviceInfo info() const = 0;
    /// Whether this backend runs `spec` (method and options) itself; else the engine uses the CPU.
    virtual Capability supports(const QuantSpec &spec) const = 0;
    /// Every method with what this backend supports of it.
    virtual std::vector<MethodSupport> capabilities() const = 0;
    /// Copies (GPU) or wraps (CPU) a host tensor. Throws GpuError naming the tensor on OOM.
    virtual std::shared_ptr<const DeviceTensor> upload(const Tensor &t, const std::string &name) const = 0;
    /// Quantizes (codes + scales + zero points, and Ŵ when asked).
    virtual QuantizedTensor quantize(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &options,
                                     const CancelToken *cancel = nullptr) const = 0;
    /// Ŵ (FP32, row-major) from stored codes, scales and zero points.
    virtual std::vector<float> dequantize(const QuantizedTensor &q) const = 0;
    /// Error metrics, moments and histograms of Ŵ against W.
    virtual ErrorMetrics metrics(const DeviceTensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options,
                                 const CancelToken *cancel = nullptr) const = 0;
    /// Quantizes and measures. `inputStats`: W's statistics as computed when it was opened (a
    /// GPU backend then skips its range pass and W's moments). Default: quantize (Ŵ kept), then
    /// metrics; GPU backends fuse the two and keep Ŵ on the device unless asked for it.
    virtual MeasuredRun quantizeMeasured(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &quantize,
                                         const ErrorMetricsOptions &metrics,
                                         const std::optional<TensorStats> &inputStats,
                                         const CancelToken *cancel = nullptr) const;
    /// The constOpt c sweep's MSE grid evaluator for `w` (decoded and, with options.rotate, rotated
    /// as sweepC does; group and encoder from `options`), giving the CPU's bits
    /// (quant/constopt_sweep.h). Default: nullptr (the CPU evaluates); `whyNot` says why when a
    /// backend declines. Throws GpuError.
    virtual std::unique_ptr<CSweepGridEvaluator> sweepGrid(const Tensor &w, const CSweepOptions &options,
                                                           std::string &whyNot) const;
    /// An activation quantizer (quant/activation.h) with the CPU's codes, scales and X̂. Default:
    /// nullopt (the CPU computes); `whyNot` says why when a backend declines. Throws GpuError.
    virtual std::optional<QuantizedActivations> quantizeActivations(const Tensor &x, const ActQuantSpec &spec,
                                                                    std::string &whyNot) const;
    /// The paired GEMM simulation's loops (sim/gemm_sim.h): per-token sums and Ŷ. Default: false
    /// (the CPU computes). Throws GpuError.
    virtual bool simulateGemm(const GemmOperands &ops, bool keepOutput, GemmSums &out, std::string &whyNot) const;
    /// The whole paired simulation on this device from tensors it holds (sim/gemm_sim.h planGemm):
    /// X and W as uploaded, Ŵ from `wHat` (this backend's FP32 tensor of W's shape, e.g.
    /// MeasuredRun::deviceDequantized) or else decoded from qw's codes (plan.intDequant) or
    /// uploaded from the host's; the activation quantizer (options.act), the operands' decode and
    /// the products on the device; one download at the end. Default: false with `whyNot` (the
    /// caller prepares operands on the host). Throws GpuError.
    virtual bool simulateGemmPlanned(const DeviceTensor &x, const DeviceTensor &w, const DeviceTensor *wHat,
                                     const QuantizedTensor &qw, const GemmPlan &plan, const GemmSimOptions &options,
                                     GemmDeviceRun &out, std::string &whyNot) const;
    /// Singular values of a row-major FP32 matrix (metrics/spectrum.h: all with options.top = 0,
    /// else the top k by the CPU's randomized sketch), descending, naming the algorithm. Default:
    /// nullopt with `whyNot` (the CPU computes). Throws GpuError.
    virtual std::optional<std::vector<double>> singularValues(std::span<const float> e, std::int64_t rows,
                                                              std::int64_t cols, const SpectrumOptions &options,
                                                              std::string &algorithm, std::string &whyNot) const;
    /// The GEMM timing lab (sim/gemm_bench.h): the request's formats × M on this device, each
    /// output checked once against an FP64 reference; progress and cancellation through
    /// `cancel`'s step progress. Default: nullopt with `whyNot` (the CPU's Eigen FP32 table is
    /// used). Throws GpuError, Cancelled.
    virtual std::optional<std::vector<GemmPoint>> timeGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                                            std::string &whyNot) const;
    /// The roofline's cache key of this device (its name + driver/CUDA versions). Default: nullopt.
    virtual std::optional<std::string> gemmDeviceKey(std::string &whyNot) const;
    /// The roofline's ceilings measured on this device (sim/gemm_roofline.h; deviceKey set).
    /// Default: nullopt with `whyNot`. Throws GpuError, Cancelled.
    virtual std::optional<GemmPeaks> measureGemmPeaks(const CancelToken *cancel, std::string &whyNot) const;
    /// Per-channel moment sums of an uploaded matrix (results/channel_profile.h: the scan's
    /// per-channel kurtosis where the tensor already is). Default: false with `whyNot` (the CPU
    /// computes). Throws GpuError.
    virtual bool channelMoments(const DeviceTensor &w, ChannelMomentSums &out, std::string &whyNot) const;
    /// A module's Gram (metrics/output_error.h) held by this backend for gramEnergy; `g` must
    /// outlive the handle. Null with `whyNot` when the backend has no output-aware error (the
    /// caller uses the CPU). Throws GpuError.
    virtual std::shared_ptr<const DeviceGram> uploadGram(const GramMatrix &g, std::string &whyNot) const;
    /// Σ_r v_r G v_rᵀ over the rows of v = W − Ŵ (docs/numerics.md "Output-aware error"): Ŵ from
    /// `wHatOnDevice` (this backend's FP32 tensor of W's shape, e.g. MeasuredRun::deviceDequantized)
    /// or else from the host `wHat`; both absent: v = W, tr(W G Wᵀ). `g` from this backend's
    /// uploadGram. nullopt with `whyNot` when this backend declines (the caller uses the CPU).
    /// Throws GpuError, Cancelled.
    virtual std::optional<double> gramEnergy(const DeviceTensor &w, const DeviceTensor *wHatOnDevice,
                                             std::span<const float> wHat, const DeviceGram &g, std::string &whyNot,
                                             const CancelToken *cancel = nullptr) const;
    /// A tensor of this backend as FP32 on the host (a kept Ŵ when the device declined the output
    /// error). Throws GpuError.
    virtual std::vector<float> downloadFloats(const DeviceTensor &t) const = 0;
};

} // namespace quantscope
