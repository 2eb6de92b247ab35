// SPDX-License-Identifier: MIT
#include "cuda/cuda_backend.h"

#include <mutex>

#include "kernels/engine.h"
#include "util/error.h"

namespace quantscope {

namespace {

class GpuBackend final : public Backend {
public:
    explicit GpuBackend(std::unique_ptr<gpu::Engine> engine) : m_engine(std::move(engine))
    {
        const gpu::EngineInfo e = m_engine->info();
        m_hip = e.api == "HIP";
        m_info.kind = m_hip ? DeviceKind::Hip : DeviceKind::Cuda;
        m_info.id = m_hip ? "hip:0" : "cuda:0";
        m_info.name = e.name;
        m_info.totalMemory = e.totalMemory;
        m_info.threads = e.multiProcessors;
    }
    DeviceInfo info() const override
    {
        DeviceInfo i = m_info;
        const gpu::EngineInfo e = m_engine->info();
        i.freeMemory = e.freeMemory;
        i.totalMemory = e.totalMemory;
        return i;
    }
    Capability supports(const QuantSpec &spec) const override
    {
        if (gpu::engineSupports(spec))
            return {true, {}};
        if (std::holds_alternative<ProgressiveSpec>(spec))
            return {false, "progressive runs on the GPU with stage 1 FP8 per tensor and stage 2 INT; this "
                           "combination runs on the CPU"};
        if (std::holds_alternative<ConstOptSpec>(spec))
            return {false, "constopt with a Hadamard rotation runs on the CPU (no device transform yet)"};
        return {false, "method '" + methodOf(spec) + "' runs on the CPU (no GPU kernel yet)"};
    }
    std::vector<MethodSupport> capabilities() const override
    {
        std::vector<MethodSupport> out;
        for (const auto &m : quantizerMethods()) {
            const bool on = gpu::engineSupports(parseQuantSpec(m.defaults));
            std::string options = on ? "all options, metrics fused" : "runs on the CPU (no GPU kernel yet)";
            if (m.method == "progressive")
                options = "stage 1 FP8 per tensor + stage 2 INT (Quark's combination), every option of each; "
                          "metrics fused";
            if (m.method == "constopt")
                options = "rotate 0 (a Hadamard rotation runs on the CPU), metrics fused";
            out.push_back({m.method, on, options});
        }
        return out;
    }
    std::shared_ptr<const DeviceTensor> upload(const Tensor &t, const std::string &name) const override
    {
        return m_engine->upload(t, name);
    }
    QuantizedTensor quantize(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &o,
                             const CancelToken *cancel) const override
    {
        if (cancel)
            cancel->check();
        gpu::PipelineOptions po;
        po.metrics = false;
        po.wantDequantized = o.wantDequantized;
        QuantizedTensor q;
        auto run = m_engine->enqueue(gpuOf(w), &spec, po);
        m_engine->collect(*run, &q, nullptr);
        return q;
    }
    /// Ŵ from stored (host) codes: the quantizer's own dequantization, any method. The pipeline
    /// computes Ŵ on the device when it is asked for with the codes (wantDequantized).
    std::vector<float> dequantize(const QuantizedTensor &q) const override
    {
        std::vector<float> out(static_cast<std::size_t>(q.numel()));
        makeQuantizer(q.spec)->dequantize(q, out);
        return out;
    }
    ErrorMetrics metrics(const DeviceTensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options,
                         const CancelToken *cancel) const override
    {
        if (cancel)
            cancel->check();
        const gpu::GpuTensor &gw = gpuOf(w);
        const Tensor hostHat = Tensor::borrow(DType::F32, gw.shape(), reinterpret_cast<const std::byte *>(wHat.data()),
                                              nullptr);
        auto dHat = m_engine->upload(hostHat, gw.name() + " (Ŵ)");
        gpu::PipelineOptions po;
        po.metrics = true;
        po.metricsOptions = options;
        ErrorMetrics m;
        auto run = m_engine->enqueue(gw, nullptr, po, dHat.get());
        m_engine->collect(*run, nullptr, &m);
        return m;
    }
    MeasuredRun quantizeMeasured(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &qo,
                                 const ErrorMetricsOptions &mo, const std::optional<TensorStats> &inputStats,
                                 const CancelToken *cancel) const override
    {
        if (cancel)
            cancel->check();
        gpu::PipelineOptions po;
        po.metrics = true;
        po.metricsOptions = mo;
        po.wantDequantized = qo.wantDequantized;
        po.inputStats = inputStats;
        MeasuredRun r;
        auto run = m_engine->enqueue(gpuOf(w), &spec, po);
        m_engine->collect(*run, &r.quantized, &r.metrics);
        return r;
    }

private:
    static const gpu::GpuTensor &gpuOf(const DeviceTensor &d)
    {
        const auto *g = dynamic_cast<const gpu::GpuTensor *>(&d);
        if (!g)
            throw UnsupportedError("the GPU backend was handed a tensor of another device");
        return *g;
    }
    std::unique_ptr<gpu::Engine> m_engine;
    DeviceInfo m_info;
    bool m_hip = false;

public:
    /// The c sweep's MSE grid on the device (gpu/kernels/engine_sweep.cpp).
    std::unique_ptr<CSweepGridEvaluator> sweepGrid(const Tensor &w, const CSweepOptions &o,
                                                   std::string &whyNot) const override
    {
        return gpu::sweepGrid(*m_engine, w, o, whyNot);
    }
};

} // namespace

std::unique_ptr<Backend> createCudaBackend(std::string &reason)
{
    auto engine = gpu::Engine::create(0, reason);
    if (!engine)
        return nullptr;
    return std::make_unique<GpuBackend>(std::move(engine));
}

} // namespace quantscope
