// SPDX-License-Identifier: MIT
// HQQ on the device (engine.h enqueueHqq / collectHqq): the kernels of hqq.cu on the engine's
// stream — init, the iterations (one launch each, or for groups of 64 with ≤ 4 bits fused chunks
// of hqqChunkSize() iterations; the stop rule is decided on the device either way), the final
// codes — then the engine's fused metrics of the resulting Ŵ (enqueue's "given Ŵ" run), so no
// second copy of the metric code. One download at the end.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_pool.h"
#include "hqq_device.h"
#include "kernels_hqq.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "quant/hqq.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

struct HqqRun final : PipelineRun {
    HqqSpec spec;
    PipelineOptions opts;
    const GpuTensor *w = nullptr;
    long long numel = 0, groups = 0;
    std::shared_ptr<void> block, codes, wHat;
    std::shared_ptr<GpuTensor> wHatTensor; ///< Ŵ as the metrics run's input
    std::unique_ptr<PipelineRun> metricsRun;
    std::size_t offState = 0, offHist = 0, offScales = 0, offZeros = 0;
    char *base() const { return static_cast<char *>(block.get()); }
};

std::size_t align256(std::size_t b)
{
    return (b + 255) / 256 * 256;
}

} // namespace

HqqBlockLayout::HqqBlockLayout(const HqqSpec &spec, long long groups)
{
    auto reserve = [&](std::size_t b) {
        const std::size_t off = bytes;
        bytes += align256(std::max<std::size_t>(b, 1));
        return off;
    };
    const auto G = static_cast<std::size_t>(groups);
    state = reserve(sizeof(launch::HqqState));
    hist = reserve(static_cast<std::size_t>(spec.iters) * 4);
    sigma = reserve(G * 4);
    zero = reserve(G * 4);
    bad = reserve(G);
    scales = reserve(G * 4);
    zeros = reserve(G * 4);
    kept = bytes;
    // The fused iterations' z slots (group kHqqFusedGroup only), last: a copy of the block's
    // result needs only the first `kept` bytes.
    if (spec.group == launch::kHqqFusedGroup && hqqChunkSize() > 0)
        zHist = reserve(G * 4 * static_cast<std::size_t>(hqqChunkSize())); // one slot per iteration of a chunk
}

int hqqChunkSize()
{
    // Iterations per fused launch: W is read once per chunk, and after the stop rule fires at most
    // chunk − 1 iterations were computed for nothing. QS_HQQ_CHUNK (0 … kHqqMaxChunk; 0: the
    // per-iteration kernels) is a measurement switch, read once.
    static const int chunk = [] {
        const char *e = std::getenv("QS_HQQ_CHUNK");
        const int v = e && *e ? std::atoi(e) : kHqqDefaultChunk;
        return std::clamp(v, 0, launch::kHqqMaxChunk);
    }();
    return chunk;
}

launch::HqqArgs hqqArgs(const HqqSpec &spec, const void *w, int in, long long numel, char *b, const HqqBlockLayout &L,
                        unsigned char *codes, float *wHat)
{
    const long long g = spec.group, G = numel / g;
    launch::HqqArgs a;
    a.w = w;
    a.in = in;
    a.numel = numel;
    a.groups = G;
    a.group = g;
    a.axis1 = spec.axis == 1;
    a.fp16 = spec.compute == HqqCompute::Fp16;
    a.libRange = spec.preset == HqqPreset::HqqLib;
    a.roundZero = spec.roundsZero();
    a.qmax = static_cast<float>((1 << spec.bits) - 1);
    a.powExp = hqqPowExponent(a.fp16);
    a.zfactor = static_cast<float>(G) / static_cast<float>(numel);
    a.sigma = reinterpret_cast<float *>(b + L.sigma);
    a.zero = reinterpret_cast<float *>(b + L.zero);
    a.bad = reinterpret_cast<unsigned char *>(b + L.bad);
    a.st = reinterpret_cast<launch::HqqState *>(b + L.state);
    a.errHist = reinterpret_cast<float *>(b + L.hist);
    a.codes = codes;
    a.scales = reinterpret_cast<float *>(b + L.scales);
    a.zeros = reinterpret_cast<float *>(b + L.zeros);
    a.wHat = wHat;
    a.zHist = L.zHist ? reinterpret_cast<float *>(b + L.zHist) : nullptr;
    return a;
}

void queueHqq(Engine::Impl &I, const HqqSpec &spec, const launch::HqqArgs &a, char *base, const HqqBlockLayout &L)
{
    QS_GPU_CHECK(qsMemsetAsync(base + L.state, 0, sizeof(launch::HqqState), I.stream));
    launch::hqqInit(a, I.S());
    I.mark("HQQ init (ranges, σ, z)");
    if (launch::hqqChunked(a)) {
        const int chunk = hqqChunkSize();
        for (int it = 1; it <= spec.iters; it += chunk)
            launch::hqqIterateChunk(a, it, std::min(chunk, spec.iters - it + 1), I.S());
    } else {
        for (int it = 1; it <= spec.iters; ++it)
            launch::hqqIterate(a, it, I.S());
    }
    I.mark("HQQ iterations");
    launch::hqqFinal(a, I.S());
    I.mark("HQQ codes, Ŵ");
}

std::unique_ptr<PipelineRun> Engine::enqueueHqq(const GpuTensor &w, const HqqSpec &spec, const PipelineOptions &options)
{
    spec.validate();
    const long long n = w.numel(), g = spec.group;
    if (n == 0 || n % g != 0)
        throw UnsupportedError("HQQ needs numel divisible by the group size: numel = " + std::to_string(n) +
                                   ", group = " + std::to_string(g),
                               Location{{}, w.name(), {}});
    auto run = std::make_unique<HqqRun>();
    HqqRun &R = *run;
    R.spec = spec;
    R.opts = options;
    R.w = &w;
    R.numel = n;
    R.groups = n / g;
    const long long G = R.groups;
    {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        I.markNames.clear();
        // One pool block: state, history, σ, z, bad flags, stored scales and zeros.
        const HqqBlockLayout L(spec, G);
        R.offState = L.state;
        R.offHist = L.hist;
        R.offScales = L.scales;
        R.offZeros = L.zeros;
        const std::string what = "tensor '" + w.name() + "'";
        R.block = poolGet(I.pool, L.bytes, "HQQ state of " + what);
        R.codes = poolGet(I.pool, static_cast<std::size_t>(n), "the codes of " + what);
        const bool needHat = options.metrics || options.wantDequantized;
        if (needHat)
            R.wHat = poolGet(I.pool, static_cast<std::size_t>(n) * 4, "Ŵ of " + what);
        const launch::HqqArgs a =
            hqqArgs(spec, w.data(), inTypeOf(w.storage()), n, R.base(), L, static_cast<unsigned char *>(R.codes.get()),
                    needHat ? static_cast<float *>(R.wHat.get()) : nullptr);
        queueHqq(I, spec, a, R.base(), L);
        if (needHat)
            R.wHatTensor =
                std::make_shared<GpuTensor>(w.shape(), DType::F32, DType::F32, R.wHat.get(), w.name() + " (Ŵ)", R.wHat);
    }
    if (options.metrics) {
        PipelineOptions po = options;
        po.wantDequantized = false;
        R.metricsRun = enqueue(w, nullptr, po, R.wHatTensor.get());
    }
    return run;
}

void Engine::collectHqq(PipelineRun &runBase, QuantizedTensor *q, ErrorMetrics *m)
{
    auto &R = dynamic_cast<HqqRun &>(runBase);
    if (q) {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        const auto n = static_cast<std::size_t>(R.numel), G = static_cast<std::size_t>(R.groups);
        const char *b = R.base();
        launch::HqqState st{};
        std::vector<float> hist(static_cast<std::size_t>(R.spec.iters));
        QuantizedTensor out;
        QS_GPU_CHECK(qsMemcpyAsync(&st, b + R.offState, sizeof st, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(hist.data(), b + R.offHist, hist.size() * 4, qsMemcpyDeviceToHost, I.stream));
        out.scales.resize(G);
        out.zeroPoints.resize(G);
        QS_GPU_CHECK(qsMemcpyAsync(out.scales.data(), b + R.offScales, G * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(out.zeroPoints.data(), b + R.offZeros, G * 4, qsMemcpyDeviceToHost, I.stream));
        if (R.opts.downloadCodes) {
            out.codes.resize(n);
            QS_GPU_CHECK(qsMemcpyAsync(out.codes.data(), R.codes.get(), n, qsMemcpyDeviceToHost, I.stream));
        }
        if (R.opts.wantDequantized && R.wHat) {
            out.dequantized.resize(n);
            QS_GPU_CHECK(qsMemcpyAsync(out.dequantized.data(), R.wHat.get(), n * 4, qsMemcpyDeviceToHost, I.stream));
        }
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        // The fields HqqQuantizer::quantize fills (startQuantized, then its own).
        out.method = "hqq";
        out.spec = R.spec.toJson();
        out.tensorName = R.w->name();
        out.shape = R.w->shape();
        out.sourceDtype = R.w->dtype();
        out.layout = hqqLayout(out.shape, R.spec.group, R.spec.axis);
        out.codeDtype = DType::U8;
        out.codeBits = R.spec.bits;
        const DType stored = R.spec.compute == HqqCompute::Fp16 ? DType::F16 : DType::F32;
        out.scaleDtype = stored;
        out.zeroPointDtype = stored;
        out.nonFiniteGroups = static_cast<std::int64_t>(st.badGroups);
        out.firstNonFinite = st.firstBadNeg ? static_cast<std::int64_t>(~st.firstBadNeg) : -1;
        for (int i = 0; i < st.itersRun; ++i) // device time is not split per iteration: 0 ms each
            out.history.push_back({i + 1, static_cast<double>(hist[static_cast<std::size_t>(i)]), 0.0});
        out.chosenPass = static_cast<int>(out.history.size());
        *q = std::move(out);
    }
    if (m && R.metricsRun)
        collect(*R.metricsRun, nullptr, m);
    else
        synchronize();
}

} // namespace quantscope::gpu
