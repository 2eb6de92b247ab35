// SPDX-License-Identifier: MIT
#include "cuda/cuda_backend.h"

#include <mutex>

#include "host/engine.h"
#include "kv/kv_lab.h"
#include "kernels/kernels_gptq.h"
#include "kernels/kernels_sweep.h"
#include "quant/constopt.h"
#include "quant/data_aware.h"
#include "ggml/ggml_block_math.h"
#include "quant/gguf_quant.h"
#include "quant/milo.h"
#include "util/error.h"

namespace quantscope {

namespace {

#if defined(QUANTSCOPE_HAVE_CUDA)
constexpr bool kDeviceGram = true; // the output-aware error on the device (cuBLAS)
#else
constexpr bool kDeviceGram = false;
#endif

/// A module's Gram on the engine's device (Backend::uploadGram).
class GpuGram final : public DeviceGram {
public:
    GpuGram(const GramMatrix &g, std::shared_ptr<const gpu::GramOnDevice> d) : m_g(&g), m_d(std::move(d)) {}
    const GramMatrix &gram() const override { return *m_g; }
    const gpu::GramOnDevice &device() const { return *m_d; }

private:
    const GramMatrix *m_g;
    std::shared_ptr<const gpu::GramOnDevice> m_d;
};

constexpr const char *kHipMilo = "HIP build: no hipBLAS/rocSOLVER (Debian's ROCm), MiLo runs on the CPU";
constexpr const char *kHipGptq = "HIP build: no rocSOLVER (Debian's ROCm), GPTQ runs on the CPU";
constexpr const char *kHipAwq = "HIP build: no hipBLAS (Debian's ROCm), AWQ's search runs on the CPU";
constexpr const char *kHipGguf = "HIP build: llama.cpp's block quantizers (gguf) run on the CPU";

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
    static bool rotationTooLarge(const QuantSpec &spec)
    {
        const auto *c = std::get_if<ConstOptSpec>(&spec);
        return c && c->rotate > gpu::launch::kMaxHadamard;
    }
    /// constOpt with a rotation: the engine's pipeline runs on the rotated tensor.
    static const ConstOptSpec *rotated(const QuantSpec &spec)
    {
        const auto *c = std::get_if<ConstOptSpec>(&spec);
        return c && c->rotate > 0 ? c : nullptr;
    }
    Capability supports(const QuantSpec &spec) const override
    {
        if (rotated(spec) && !rotationTooLarge(spec))
            return {true, {}};
        if (gpu::engineSupports(spec) || std::holds_alternative<HqqSpec>(spec))
            return {true, {}};
        if (std::holds_alternative<MiloSpec>(spec)) {
            if (m_hip)
                return {false, kHipMilo};
            return {true, {}};
        }
        if (const auto *g = std::get_if<GptqSpec>(&spec)) {
            if (m_hip)
                return {false, kHipGptq};
            if (g->blockSize > gpuGptqMaxBlock())
                return {false, "gptq with block_size > " + std::to_string(gpuGptqMaxBlock()) + " runs on the CPU"};
            if (g->target != GptqTarget::Int) // the device's column kernel casts to INT only
                return {false, "gptq with target " + toString(g->target) +
                                   " runs on the CPU (the GPU kernel "
                                   "quantizes the INT targets)"};
            return {true, {}};
        }
        if (std::holds_alternative<AwqSpec>(spec)) // the row sample is checked by quantize, as the CPU does
            return m_hip ? Capability{false, kHipAwq} : Capability{true, {}};
        if (const auto *gs = std::get_if<GgufQuantSpec>(&spec)) {
            if (m_hip)
                return {false, kHipGguf};
            if (!ggml::blockmath::perBlockType(static_cast<int>(gs->type)))
                return {false, "gguf " + std::string(ggml::typeName(gs->type)) +
                                   " runs on the CPU (the GPU kernels quantize q4_0 … q8_0 and q2_k … q6_k)"};
            return {true, {}};
        }
        if (std::holds_alternative<ProgressiveSpec>(spec))
            return {false, "progressive runs on the GPU with stage 1 FP8 per tensor and stage 2 INT; this "
                           "combination runs on the CPU"};
        if (rotationTooLarge(spec))
            return {false, "constopt with a Hadamard rotation larger than " +
                               std::to_string(gpu::launch::kMaxHadamard) + " runs on the CPU"};
        return {false, "method '" + methodOf(spec) + "' runs on the CPU (no GPU kernel yet)"};
    }
    std::vector<MethodSupport> capabilities() const override
    {
        std::vector<MethodSupport> out;
        for (const auto &m : quantizerMethods()) {
            const QuantSpec defaults = parseQuantSpec(m.defaults);
            const bool on =
                gpu::engineSupports(defaults) || std::holds_alternative<HqqSpec>(defaults) ||
                ((std::holds_alternative<MiloSpec>(defaults) || std::holds_alternative<GptqSpec>(defaults)) && !m_hip);
            std::string options = on ? "all options, metrics fused" : "runs on the CPU (no GPU kernel yet)";
            if (m.method == "progressive")
                options = "stage 1 FP8 per tensor + stage 2 INT (Quark's combination), every option of each; "
                          "metrics fused";
            if (m.method == "hqq")
                options = "both presets, fp16 and fp32 compute, axis 0 and 1, bits 2-8, every group and zero "
                          "rounding; the whole optimisation on the device, codes identical to the CPU; metrics fused";
            if (m.method == "milo")
                options =
                    m_hip ? std::string(kHipMilo)
                          : "both presets, every compensator and inner HQQ option; the loop on the device (HQQ, "
                            "randomized SVD with the CPU's sketch, stop rule), ε within 1e-3 of the CPU; metrics fused";
            if (m.method == "gptq")
                options = m_hip ? std::string(kHipGptq)
                                : "every INT format, act order and dampening, block_size ≤ " +
                                      std::to_string(gpuGptqMaxBlock()) +
                                      "; U by cuSOLVER, the column loop on the device (the CPU's codes given the same "
                                      "U); metrics fused; targets fp8, nvfp4, mxfp4 run on the CPU";
            if (m.method == "awq") { // CUDA builds: the search on the device (Engine::awq)
                out.push_back({m.method, !m_hip,
                               m_hip ? std::string(kHipAwq)
                                     : "every option; the search on the device with the capture's row sample (X·Dᵀ "
                                       "by FP64 DGEMM), codes, scales and s* identical to the CPU; metrics fused"});
                continue;
            }
            if (m.method == "gguf") { // CUDA builds: ggml's per-block code on the device (Engine::gguf)
                out.push_back({m.method, !m_hip,
                               m_hip
                                   ? std::string(kHipGguf)
                                   : "q4_0 … q8_0 and q2_k … q6_k, with and without imatrix: ggml's own per-block code "
                                     "on the device, blocks byte for byte the CPU's, metrics fused; the i-quants, "
                                     "tq1_0, tq2_0 and mxfp4 on the CPU"});
                continue;
            }
            if (m.method == "constopt")
                options = "all options (Hadamard rotations up to " + std::to_string(gpu::launch::kMaxHadamard) +
                          " on the device, larger ones on the CPU), metrics fused";
            out.push_back({m.method, on, options});
        }
        return out;
    }
    std::shared_ptr<const DeviceTensor> upload(const Tensor &t, const std::string &name) const override
    {
        return m_engine->upload(t, name);
    }
    /// constOpt with a Hadamard rotation (quant/constopt.cpp): rotate W on the device, quantize the
    /// rotated tensor (its statistics give the report's kurtosis), rotate Ŵ back on the device
    /// and, with metrics, measure it against W — the CPU's op sequence, bit for bit.
    MeasuredRun rotatedConstOpt(const gpu::GpuTensor &gw, const ConstOptSpec &outer, const QuantizeOptions &qo,
                                const ErrorMetricsOptions *mo, const std::optional<TensorStats> &inputStats) const
    {
        auto xr = m_engine->hadamardRows(gw, outer.rotate);
        ConstOptSpec inner = outer;
        inner.rotate = 0;
        const QuantSpec innerSpec{inner};
        gpu::PipelineOptions p1;
        p1.metrics = true; // the rotated tensor's moments (the report)
        p1.metricsOptions.bins = 1;
        p1.wantDequantized = true;
        p1.keepDequantizedOnDevice = true;
        MeasuredRun r;
        ErrorMetrics rotatedMetrics;
        auto run1 = m_engine->enqueue(*xr, &innerSpec, p1);
        m_engine->collect(*run1, &r.quantized, &rotatedMetrics);
        auto wHat = m_engine->hadamardRows(*m_engine->dequantizedOnDevice(*run1), outer.rotate);
        QuantizedTensor &q = r.quantized;
        q.spec = outer.toJson();
        q.shape = gw.shape();
        q.sourceDtype = gw.dtype();
        q.tensorName = gw.name();
        q.report = nlohmann::json::object();
        q.report["rotate"] = outer.rotate;
        const TensorStats &xs = rotatedMetrics.statsIn;
        q.report["rotated_excess_kurtosis"] =
            xs.excessKurtosis ? nlohmann::json(*xs.excessKurtosis) : nlohmann::json(nullptr);
        q.report["rotated_absmax"] = xs.absmax;
        if (qo.dequantizedOnDevice && kDeviceGram)
            r.deviceDequantized = wHat;
        if (qo.wantDequantized || (qo.dequantizedOnDevice && !kDeviceGram))
            q.dequantized = m_engine->downloadFloats(*wHat);
        if (mo) {
            gpu::PipelineOptions p2;
            p2.metrics = true;
            p2.metricsOptions = *mo;
            p2.inputStats = inputStats;
            auto run2 = m_engine->enqueue(gw, nullptr, p2, wHat.get());
            m_engine->collect(*run2, nullptr, &r.metrics);
        }
        return r;
    }
    QuantizedTensor quantize(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &o,
                             const CancelToken *cancel) const override
    {
        if (cancel)
            cancel->check();
        if (const ConstOptSpec *c = rotated(spec))
            return rotatedConstOpt(gpuOf(w), *c, o, nullptr, std::nullopt).quantized;
        gpu::PipelineOptions po;
        po.metrics = false;
        po.wantDequantized = o.wantDequantized || o.dequantizedOnDevice; // no device Ŵ without metrics
        po.downloadCodes = o.wantCodes;
        po.tensorAmax = o.tensorAmax;
        QuantizedTensor q;
        if (const auto *h = std::get_if<HqqSpec>(&spec)) {
            auto run = m_engine->enqueueHqq(gpuOf(w), *h, po);
            m_engine->collectHqq(*run, &q, nullptr);
            return q;
        }
#if defined(QUANTSCOPE_HAVE_CUDA) // HIP builds: supports() sends MiLo and GPTQ to the CPU
        if (const auto *gs = std::get_if<GptqSpec>(&spec)) {
            gpu::GptqDeviceOptions go;
            go.wantDequantized = o.wantDequantized || o.dequantizedOnDevice;
            go.wantCodes = o.wantCodes;
            return m_engine->gptq(gpuOf(w), *gs, calibrationOf(o, w), go, cancel).quantized;
        }
        if (const auto *ms = std::get_if<MiloSpec>(&spec)) {
            gpu::MiloDeviceOptions md;
            md.wantDequantized = o.wantDequantized || o.dequantizedOnDevice;
            md.wantCodes = o.wantCodes;
            return m_engine->milo(gpuOf(w), *ms, md, cancel).quantized;
        }
        if (const auto *as = std::get_if<AwqSpec>(&spec)) {
            gpu::AwqDeviceOptions ad;
            ad.wantDequantized = o.wantDequantized || o.dequantizedOnDevice;
            ad.wantCodes = o.wantCodes;
            return m_engine->awq(gpuOf(w), *as, awqCalibration(o, w.shape()), ad, cancel).quantized;
        }
        if (const auto *gg = std::get_if<GgufQuantSpec>(&spec)) {
            gpu::GgufDeviceOptions go;
            go.wantDequantized = o.wantDequantized || o.dequantizedOnDevice;
            const std::vector<float> imp = ggufImportance(*gg, o, matrixView(w.shape()).second);
            return m_engine->gguf(gpuOf(w), *gg, imp, go, o.tensorName).quantized;
        }
#endif
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
        const Tensor hostHat =
            Tensor::borrow(DType::F32, gw.shape(), reinterpret_cast<const std::byte *>(wHat.data()), nullptr);
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
        if (const ConstOptSpec *c = rotated(spec))
            return rotatedConstOpt(gpuOf(w), *c, qo, &mo, inputStats);
        // Ŵ for the output error stays on the device (the pipeline's buffer) where gramEnergy runs;
        // HQQ, MiLo and HIP builds download it.
        const bool keep = qo.dequantizedOnDevice && kDeviceGram;
        gpu::PipelineOptions po;
        po.metrics = true;
        po.metricsOptions = mo;
        po.wantDequantized = qo.wantDequantized || qo.dequantizedOnDevice;
        po.keepDequantizedOnDevice = keep && !qo.wantDequantized;
        po.downloadCodes = qo.wantCodes;
        po.inputStats = inputStats;
        po.tensorAmax = qo.tensorAmax;
        MeasuredRun r;
        if (const auto *h = std::get_if<HqqSpec>(&spec)) {
            po.keepDequantizedOnDevice = false;
            auto run = m_engine->enqueueHqq(gpuOf(w), *h, po);
            m_engine->collectHqq(*run, &r.quantized, &r.metrics);
            return r;
        }
#if defined(QUANTSCOPE_HAVE_CUDA)
        if (const auto *gs = std::get_if<GptqSpec>(&spec)) {
            gpu::GptqDeviceOptions go;
            go.wantDequantized = qo.wantDequantized || qo.dequantizedOnDevice;
            go.wantCodes = qo.wantCodes;
            go.metrics = true;
            go.metricsOptions = mo;
            go.inputStats = inputStats;
            gpu::GptqDeviceResult d = m_engine->gptq(gpuOf(w), *gs, calibrationOf(qo, w), go, cancel);
            r.quantized = std::move(d.quantized);
            r.metrics = std::move(d.metrics);
            return r;
        }
        if (const auto *ms = std::get_if<MiloSpec>(&spec)) {
            gpu::MiloDeviceOptions md;
            md.wantDequantized = qo.wantDequantized || qo.dequantizedOnDevice;
            md.wantCodes = qo.wantCodes;
            md.metrics = true;
            md.metricsOptions = mo;
            md.inputStats = inputStats;
            gpu::MiloDeviceResult d = m_engine->milo(gpuOf(w), *ms, md, cancel);
            r.quantized = std::move(d.quantized);
            r.metrics = std::move(d.metrics);
            return r;
        }
        if (const auto *as = std::get_if<AwqSpec>(&spec)) {
            gpu::AwqDeviceOptions ad;
            ad.wantDequantized = qo.wantDequantized || (qo.dequantizedOnDevice && !keep);
            ad.keepDequantizedOnDevice = keep && !qo.wantDequantized;
            ad.wantCodes = qo.wantCodes;
            ad.metrics = true;
            ad.metricsOptions = mo;
            ad.inputStats = inputStats;
            gpu::AwqDeviceResult d = m_engine->awq(gpuOf(w), *as, awqCalibration(qo, w.shape()), ad, cancel);
            r.quantized = std::move(d.quantized);
            r.metrics = std::move(d.metrics);
            r.deviceDequantized = std::move(d.wHat);
            return r;
        }
        if (const auto *gg = std::get_if<GgufQuantSpec>(&spec)) {
            gpu::GgufDeviceOptions go;
            go.wantDequantized = qo.wantDequantized || (qo.dequantizedOnDevice && !keep);
            go.keepDequantizedOnDevice = keep && !qo.wantDequantized;
            go.metrics = true;
            go.metricsOptions = mo;
            go.inputStats = inputStats;
            const std::vector<float> imp = ggufImportance(*gg, qo, matrixView(w.shape()).second);
            gpu::GgufDeviceResult d = m_engine->gguf(gpuOf(w), *gg, imp, go, qo.tensorName);
            r.quantized = std::move(d.quantized);
            r.metrics = std::move(d.metrics);
            r.deviceDequantized = std::move(d.wHat);
            return r;
        }
#endif
        auto run = m_engine->enqueue(gpuOf(w), &spec, po);
        m_engine->collect(*run, &r.quantized, &r.metrics);
        if (keep)
            r.deviceDequantized = m_engine->dequantizedOnDevice(*run);
        return r;
    }

private:
    static constexpr std::int64_t gpuGptqMaxBlock()
    {
        return gpu::launch::kGptqMaxBlock;
    }
    /// The data-aware methods' inputs, or the CPU's refusal naming the tensor and what to run first.
    static const Calibration &calibrationOf(const QuantizeOptions &o, const DeviceTensor &w)
    {
        if (!o.calibration)
            throw UnsupportedError(needsCaptureMessage("gptq", o.tensorName.empty() ? gpuOf(w).name() : o.tensorName));
        return *o.calibration;
    }
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
    /// The c sweep's MSE grid on the device (gpu/host/engine_sweep.cpp).
    std::unique_ptr<CSweepGridEvaluator> sweepGrid(const Tensor &w, const CSweepOptions &o,
                                                   std::string &whyNot) const override
    {
        return gpu::sweepGrid(*m_engine, w, o, whyNot);
    }
    std::optional<QuantizedActivations> quantizeActivations(const Tensor &x, const ActQuantSpec &spec,
                                                            std::string &) const override
    {
        auto dx = m_engine->upload(x, "activations");
        return m_engine->quantizeActivations(*dx, spec);
    }
    std::optional<std::vector<double>> singularValues(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                                      const SpectrumOptions &o, std::string &algorithm,
                                                      std::string &whyNot) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        if (o.top <= 0 && std::min(rows, cols) > kFullSpectrumMaxDim) {
            whyNot = "more than " + std::to_string(kFullSpectrumMaxDim) + " singular values";
            return std::nullopt;
        }
        return m_engine->singularValues(e, rows, cols, o, gpu::SvdMethod::GramF64, algorithm);
#else
        (void)e, (void)rows, (void)cols, (void)o, (void)algorithm;
        whyNot = "HIP build: no hipBLAS/rocSOLVER (Debian's ROCm), spectra run on the CPU";
        return std::nullopt;
#endif
    }
    std::optional<std::vector<GemmPoint>> timeGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                                    std::string &whyNot) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        (void)whyNot;
        return m_engine->timeGemms(request, cancel);
#else
        (void)request, (void)cancel;
        whyNot = "no hipBLASLt in Debian's ROCm: the GEMM lab is unavailable on this build";
        return std::nullopt;
#endif
    }
    std::optional<std::string> gemmDeviceKey(std::string &whyNot) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        (void)whyNot;
        return m_engine->gemmDeviceKey();
#else
        whyNot = "no hipBLASLt in Debian's ROCm: no roofline on this build";
        return std::nullopt;
#endif
    }
    std::optional<GemmPeaks> measureGemmPeaks(const CancelToken *cancel, std::string &whyNot) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        (void)whyNot;
        return m_engine->measureGemmPeaks(cancel);
#else
        (void)cancel;
        whyNot = "no hipBLASLt in Debian's ROCm: no roofline on this build";
        return std::nullopt;
#endif
    }
    bool channelMoments(const DeviceTensor &w, ChannelMomentSums &out, std::string &) const override
    {
        out = m_engine->channelMoments(gpuOf(w));
        return true;
    }
    std::shared_ptr<const DeviceGram> uploadGram(const GramMatrix &g, std::string &whyNot) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        (void)whyNot;
        return std::make_shared<GpuGram>(g, m_engine->uploadGram(g));
#else
        (void)g;
        whyNot = "HIP build: no hipBLAS (Debian's ROCm), the output-aware error runs on the CPU";
        return nullptr;
#endif
    }
    std::optional<double> gramEnergy(const DeviceTensor &w, const DeviceTensor *wHatOnDevice,
                                     std::span<const float> wHat, const DeviceGram &g, std::string &whyNot,
                                     const CancelToken *cancel) const override
    {
#if defined(QUANTSCOPE_HAVE_CUDA)
        (void)whyNot;
        if (cancel)
            cancel->check();
        const auto *dg = dynamic_cast<const GpuGram *>(&g);
        if (!dg)
            throw UnsupportedError("the GPU backend was handed a Gram of another device");
        const gpu::GpuTensor &gw = gpuOf(w);
        std::shared_ptr<gpu::GpuTensor> uploaded;
        const gpu::GpuTensor *hat = wHatOnDevice ? &gpuOf(*wHatOnDevice) : nullptr;
        if (!hat && !wHat.empty()) {
            if (static_cast<std::int64_t>(wHat.size()) != gw.numel())
                throw UnsupportedError("output-aware error: Ŵ has " + std::to_string(wHat.size()) + " values, W " +
                                       std::to_string(gw.numel()));
            const Tensor host =
                Tensor::borrow(DType::F32, gw.shape(), reinterpret_cast<const std::byte *>(wHat.data()), nullptr);
            uploaded = m_engine->upload(host, gw.name() + " (Ŵ)");
            hat = uploaded.get();
        }
        return m_engine->gramEnergy(gw, hat, dg->device());
#else
        (void)w, (void)wHatOnDevice, (void)wHat, (void)g, (void)cancel;
        whyNot = "HIP build: no hipBLAS (Debian's ROCm), the output-aware error runs on the CPU";
        return std::nullopt;
#endif
    }
    std::vector<float> downloadFloats(const DeviceTensor &t) const override
    {
        return m_engine->downloadFloats(gpuOf(t));
    }
    bool simulateGemm(const GemmOperands &ops, bool keepOutput, GemmSums &out, std::string &) const override
    {
        m_engine->simulateGemm(ops, keepOutput, out);
        return true;
    }
    bool simulateGemmPlanned(const DeviceTensor &x, const DeviceTensor &w, const DeviceTensor *wHat,
                             const QuantizedTensor &qw, const GemmPlan &plan, const GemmSimOptions &o,
                             GemmDeviceRun &out, std::string &whyNot) const override
    {
        return m_engine->simulateGemmPlanned(gpuOf(x), gpuOf(w), wHat ? &gpuOf(*wHat) : nullptr, qw, plan, o, out,
                                             whyNot);
    }
    /// The KV lab's device part (createKvLabAccelerator).
    std::unique_ptr<KvLabAccelerator> kvLab(const KvData &data, const std::vector<std::int64_t> &rows) const
    {
        return m_engine->kvLab(data, rows);
    }
};

} // namespace

std::unique_ptr<KvLabAccelerator> createKvLabAccelerator(const Backend &gpu, const KvData &data,
                                                         const std::vector<std::int64_t> &rows, std::string &whyNot)
{
    const auto *g = dynamic_cast<const GpuBackend *>(&gpu);
    if (!g) {
        whyNot = "not the GPU backend";
        return nullptr;
    }
    return g->kvLab(data, rows);
}

std::unique_ptr<Backend> createCudaBackend(std::string &reason, GpuCause &cause)
{
    auto engine = gpu::Engine::create(0, reason, &cause);
    if (!engine)
        return nullptr;
    return std::make_unique<GpuBackend>(std::move(engine));
}

} // namespace quantscope
