// SPDX-License-Identifier: MIT
#include "engine/gemm_bench_device.h"

#include <random>

#include "engine/registry.h"
#include "sim/gemm_roofline.h"
#include "util/error.h"

namespace quantscope {

namespace {

/// The weights the quantized paths time: the request's tensor, else a seeded N(0, 0.02) [N, K].
Tensor sourceWeight(const GemmBenchRequest &request)
{
    if (request.weight)
        return *request.weight;
    std::vector<float> v(static_cast<std::size_t>(request.n * request.k));
    std::mt19937_64 rng(0x5158u);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (auto &x : v)
        x = normal(rng);
    return Tensor::fromFloats({request.n, request.k}, v);
}

/// Runs the engine's quantizer (on `device`, by runQuantize's rule) for the formats that need it.
void quantizeWeights(GemmBenchRequest &request, DeviceChoice device, const CancelToken *cancel)
{
    bool w4 = false, w4ch = false, w8 = false, mx = false, nv = false;
    for (auto f : request.formats) {
        w4 = w4 || f == GemmFormat::W4a16;
        w4ch = w4ch || f == GemmFormat::W4a8Int8 || f == GemmFormat::W4a8Fp8;
        w8 = w8 || f == GemmFormat::W8a8Fp8;
        mx = mx || f == GemmFormat::Mxfp4;
        nv = nv || f == GemmFormat::Nvfp4;
    }
    if (!(w4 || w4ch || w8 || mx || nv))
        return;
    const Tensor w = sourceWeight(request);
    RunOptions o;
    o.device = device;
    o.metrics = false;
    auto run = [&](const QuantSpec &spec) {
        return std::make_shared<const QuantizedTensor>(runQuantize(w, spec, o, cancel).quantized);
    };
    IntSpec group;
    group.bits = 4;
    group.symmetric = false;
    group.granularity = request.w4Group > 0 ? Granularity::Group : Granularity::Channel;
    group.group = request.w4Group > 0 ? request.w4Group : 128;
    IntSpec channel = group;
    channel.granularity = Granularity::Channel;
    if (w4)
        request.w4 = run(group);
    if (w4ch)
        request.w4Channel = request.w4Group == 0 && request.w4 ? request.w4 : run(channel);
    if (w8) {
        Fp8Spec f8;
        f8.granularity = Granularity::Channel;
        request.w8Fp8 = run(f8);
    }
    if (mx)
        request.mxfp4 = run(MxFp4Spec{}); // OCP: groups of 32, `even` scales
    if (nv)
        request.nvfp4 = run(NvFp4Spec{}); // groups of 16, the global scale from W's amax
}

/// The ceilings: the cache's entry for the device, else measured (and stored).
std::optional<GemmPeaks> peaksFor(const GemmBenchRequest &request, const Backend *gpu, const CancelToken *cancel,
                                  std::string &note)
{
    const std::string path = request.peaksCache.empty() ? defaultPeaksCachePath() : request.peaksCache;
    std::string whyNot;
    std::optional<std::string> key;
    if (gpu)
        key = gpu->gemmDeviceKey(whyNot);
    else
        key = cpuDeviceKey();
    if (!key)
        return std::nullopt;
    if (!request.remeasurePeaks)
        if (auto cached = loadCachedPeaks(path, *key))
            return cached;
    std::optional<GemmPeaks> p = gpu ? gpu->measureGemmPeaks(cancel, whyNot) : measureCpuPeaks(cancel);
    if (!p) {
        note = "roofline: " + whyNot;
        return std::nullopt;
    }
    p->source = "measured";
    try {
        if (!path.empty())
            storePeaks(path, *p);
    } catch (const IoError &e) {
        note = std::string("roofline not cached: ") + e.what();
    }
    return p;
}

} // namespace

GemmBenchResult runGemmBench(const GemmBenchRequest &requestAsked, DeviceChoice device, const CancelToken *cancel)
{
    GemmBenchResult r;
    // The formats the shape cannot run are skipped (with their reason); the rest are timed.
    const GemmBenchRequest requestIn = runnableGemmRequest(requestAsked, r.skipped);
    requestIn.validate();
    const auto &reg = BackendRegistry::instance();
    auto finish = [&](const Backend *gpu) {
        if (requestIn.roofline) {
            std::string note;
            r.peaks = peaksFor(requestIn, gpu, cancel, note);
            if (!note.empty())
                r.deviceNote += (r.deviceNote.empty() ? "" : "; ") + note;
            placeOnRoofline(r);
        }
        setSpeedupsVsBf16(r);
        return r;
    };
    if (device != DeviceChoice::Cpu) {
        if (const Backend *gpu = reg.gpu()) {
            std::string whyNot;
            try {
                // The GPU's own limit (K % 16): those formats are skipped there while another runs;
                // with none left the GPU refuses and the CPU times them all, as before.
                GemmBenchRequest request = requestIn;
                std::vector<GemmSkippedFormat> gpuSkipped;
                request.formats.clear();
                for (auto f : requestIn.formats)
                    if (std::string why = gpuGemmFormatRefusal(requestIn, f); why.empty())
                        request.formats.push_back(f);
                    else
                        gpuSkipped.push_back({toString(f), std::move(why)});
                if (request.formats.empty()) {
                    request.formats = requestIn.formats;
                    gpuSkipped.clear();
                }
                quantizeWeights(request, device, cancel);
                if (auto pts = gpu->timeGemms(request, cancel, whyNot)) {
                    r.device = gpu->info().id;
                    r.points = std::move(*pts);
                    r.skipped.insert(r.skipped.end(), gpuSkipped.begin(), gpuSkipped.end());
                    return finish(gpu);
                }
            } catch (const GpuError &e) {
                whyNot = e.what();
            }
            r.deviceNote = "GEMM lab not run on " + gpu->info().id + " (" + whyNot + ")";
        } else if (device == DeviceChoice::Gpu) {
            r.deviceNote = "GPU requested but unavailable (" + reg.gpuUnavailableReason() + ")";
        }
    }
    r.device = "cpu";
    r.points = timeGemmsCpu(requestIn, cancel);
    return finish(nullptr);
}

} // namespace quantscope
