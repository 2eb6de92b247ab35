// SPDX-License-Identifier: MIT
#include "engine/registry.h"

#include <cstdio>
#include <mutex>

#include "engine/cpu_backend.h"
#include "quant/constopt_sweep.h"

namespace quantscope {

namespace {

struct GpuRegistration {
    std::mutex mutex;
    std::string api = "none";
    BackendRegistry::GpuFactory factory;
};

GpuRegistration &registration()
{
    static GpuRegistration r;
    return r;
}

} // namespace

void BackendRegistry::setGpuFactory(std::string builtApi, GpuFactory factory)
{
    auto &r = registration();
    std::lock_guard lock(r.mutex);
    if (r.factory)
        return;
    r.api = std::move(builtApi);
    r.factory = std::move(factory);
}

BackendRegistry &BackendRegistry::instance()
{
    static BackendRegistry registry; // thread-safe initialisation (C++11 magic statics)
    return registry;
}

BackendRegistry::BackendRegistry() : m_cpu(std::make_unique<CpuBackend>())
{
    GpuFactory factory;
    {
        auto &r = registration();
        std::lock_guard lock(r.mutex);
        factory = r.factory;
    }
    if (factory) {
        m_gpu = factory(m_gpuReason, m_gpuCause);
        if (!m_gpu && m_gpuCause == GpuCause::Available)
            m_gpuCause = GpuCause::StartFailed; // a factory that gave no cause
    } else {
        m_gpuCause = GpuCause::BuiltWithout;
        m_gpuReason = gpuUnavailableText(m_gpuCause, "", "");
    }
}

std::vector<DeviceInfo> BackendRegistry::devices() const
{
    std::vector<DeviceInfo> list{m_cpu->info()};
    if (m_gpu)
        list.push_back(m_gpu->info());
    return list;
}

std::unique_ptr<CSweepGridEvaluator> Backend::sweepGrid(const Tensor &, const CSweepOptions &,
                                                        std::string &whyNot) const
{
    whyNot.clear();
    return nullptr;
}

std::optional<QuantizedActivations> Backend::quantizeActivations(const Tensor &, const ActQuantSpec &,
                                                                 std::string &whyNot) const
{
    whyNot = "no device kernel";
    return std::nullopt;
}

bool Backend::simulateGemm(const GemmOperands &, bool, GemmSums &, std::string &whyNot) const
{
    whyNot = "no device kernel";
    return false;
}

bool Backend::simulateGemmPlanned(const DeviceTensor &, const DeviceTensor &, const DeviceTensor *,
                                  const QuantizedTensor &, const GemmPlan &, const GemmSimOptions &, GemmDeviceRun &,
                                  std::string &whyNot) const
{
    whyNot = "no device kernel";
    return false;
}

std::optional<std::vector<double>> Backend::singularValues(std::span<const float>, std::int64_t, std::int64_t,
                                                           const SpectrumOptions &, std::string &,
                                                           std::string &whyNot) const
{
    whyNot = "no device linear algebra";
    return std::nullopt;
}

std::optional<std::vector<GemmPoint>> Backend::timeGemms(const GemmBenchRequest &, const CancelToken *,
                                                         std::string &whyNot) const
{
    whyNot = "no GEMM lab on this backend";
    return std::nullopt;
}

std::optional<std::string> Backend::gemmDeviceKey(std::string &whyNot) const
{
    whyNot = "no GEMM lab on this backend";
    return std::nullopt;
}

std::optional<GemmPeaks> Backend::measureGemmPeaks(const CancelToken *, std::string &whyNot) const
{
    whyNot = "no GEMM lab on this backend";
    return std::nullopt;
}

bool Backend::channelMoments(const DeviceTensor &, ChannelMomentSums &, std::string &whyNot) const
{
    whyNot = "no device channel moments";
    return false;
}

std::shared_ptr<const DeviceGram> Backend::uploadGram(const GramMatrix &, std::string &whyNot) const
{
    whyNot = "no output-aware error on this backend";
    return nullptr;
}

std::optional<double> Backend::gramEnergy(const DeviceTensor &, const DeviceTensor *, std::span<const float>,
                                          const DeviceGram &, std::string &whyNot, const CancelToken *) const
{
    whyNot = "no output-aware error on this backend";
    return std::nullopt;
}

MeasuredRun Backend::quantizeMeasured(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &quantize,
                                      const ErrorMetricsOptions &metrics, const std::optional<TensorStats> &,
                                      const CancelToken *cancel) const
{
    QuantizeOptions qo = quantize;
    qo.wantDequantized = true;
    MeasuredRun r;
    r.quantized = this->quantize(w, spec, qo, cancel);
    r.metrics = this->metrics(w, r.quantized.dequantized, metrics, cancel);
    return r;
}

std::string builtGpuBackends()
{
    auto &r = registration();
    std::lock_guard lock(r.mutex);
    return r.api;
}

std::string describeComputeDevice()
{
    const auto &reg = BackendRegistry::instance();
    char buf[512];
    if (const Backend *gpu = reg.gpu()) {
        const DeviceInfo i = gpu->info();
        std::snprintf(buf, sizeof buf, "GPU: %s (%s, %.1f GiB free of %.1f)", i.name.c_str(),
                      i.kind == DeviceKind::Hip ? "HIP" : "CUDA", static_cast<double>(i.freeMemory) / (1u << 30),
                      static_cast<double>(i.totalMemory) / (1u << 30));
        return buf;
    }
    const DeviceInfo c = reg.cpu().info();
    // The reason names the cause itself ("no NVIDIA GPU found", "built without a GPU backend").
    std::snprintf(buf, sizeof buf, "CPU: %d threads (%s)", c.threads, reg.gpuUnavailableReason().c_str());
    return buf;
}

} // namespace quantscope
