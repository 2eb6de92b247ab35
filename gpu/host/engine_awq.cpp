// SPDX-License-Identifier: MIT
// AWQ's scale search on the device (engine.h Engine::awq; docs/numerics.md "AWQ on the GPU").
// CUDA builds only (cuBLAS). W and the sample X are uploaded once; x̄ and w̄ are computed on the
// device in the CPU's order and downloaded; s of every grid point is computed on the host by the
// CPU's own awqPointScales (glibc's pow: a device pow may differ by an ulp), with their reciprocals
// RN(1/s) (the rows pass's Ŵ without a division), into pinned memory and copied up at once; per
// point one kernel writes D = W − Ŵ(s) in FP64, cuBLAS's DGEMM forms E = X·Dᵀ (R × N) and a fixed-order FP64 reduction
// gives Σ E² / (R·N). The losses are downloaded once; the first minimum's s*, rounded to FP32,
// gives the stored codes, scales and zero points (the rows kernel again) and Ŵ, whose metrics are
// the pipeline's "given Ŵ" run.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device_pool.h"
#include "kernels_awq.h"
#include "linalg_common.h"
#include "qs_gpu_compat.h"
#include "quant/data_aware.h"
#include "quant/uniform.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope::gpu {

namespace {

/// Pinned host memory, freed on every path.
struct PinnedDoubles {
    double *p = nullptr;
    explicit PinnedDoubles(std::size_t n)
    {
        void *v = nullptr;
        QS_GPU_CHECK(qsMallocHost(&v, std::max<std::size_t>(n, 1) * sizeof(double)));
        p = static_cast<double *>(v);
    }
    ~PinnedDoubles()
    {
        if (p)
            qsFreeHost(p);
    }
    PinnedDoubles(const PinnedDoubles &) = delete;
    PinnedDoubles &operator=(const PinnedDoubles &) = delete;
};

/// Events of the run's three phases, destroyed on every path.
struct PhaseEvents {
    qsEvent_t e[6] = {};
    PhaseEvents()
    {
        for (auto &x : e)
            QS_GPU_CHECK(qsEventCreate(&x));
    }
    ~PhaseEvents()
    {
        for (auto x : e)
            if (x)
                qsEventDestroy(x);
    }
    PhaseEvents(const PhaseEvents &) = delete;
    PhaseEvents &operator=(const PhaseEvents &) = delete;
    float ms(int a, int b) const
    {
        float t = 0;
        QS_GPU_CHECK(qsEventElapsedTime(&t, e[a], e[b]));
        return t;
    }
};

/// s_j / RN(1/s_j) of every column into y; true when every s_j is finite and positive and every
/// reciprocal normal, which the rows pass's Ŵ by the reciprocal needs (kernels_awq.h AwqRowArgs::y).
bool reciprocals(const double *s, double *y, std::int64_t k)
{
    bool ok = true;
    for (std::int64_t j = 0; j < k; ++j) {
        y[j] = 1.0 / s[j];
        ok = ok && s[j] > 0 && std::isfinite(s[j]) && y[j] >= std::numeric_limits<double>::min() && std::isfinite(y[j]);
    }
    return ok;
}

} // namespace

AwqDeviceResult Engine::awq(const GpuTensor &w, const AwqSpec &spec, const Calibration &cal,
                            const AwqDeviceOptions &options, const CancelToken *cancel)
{
    spec.validate();
    const auto [rows, cols] = matrixView(w.shape());
    const std::int64_t N = rows, K = cols, R = cal.sampleRows;
    if (w.shape().size() != 2 || K != cal.k || R <= 0 || static_cast<std::int64_t>(cal.sample.size()) != R * K)
        throw UnsupportedError("awq on the GPU: " + w.name() + " (" + shapeToString(w.shape()) +
                               ") needs the capture's row sample of K = " + std::to_string(K) + " inputs");
    const IntSpec &qs = spec.quant;
    // The int method's layout of W·diag(s) (throws for a strict ragged group, as IntQuantizer does).
    const GroupLayout layout = makeLayout({N, K}, qs.granularity, qs.group, qs.block, qs.axis, qs.strict, w.name());
    const bool tensor = qs.granularity == Granularity::Tensor;
    const std::int64_t group = qs.granularity == Granularity::Group ? qs.group : K;
    const std::int64_t G = layout.groupCount();
    const std::int64_t chunk = awqChunk(qs, N, K), chunks = (K + chunk - 1) / chunk;
    std::vector<AwqPoint> points = awqGrid(spec);
    const auto P = static_cast<std::int64_t>(points.size());
    const auto nk = static_cast<std::size_t>(N * K), uk = static_cast<std::size_t>(K);

    AwqDeviceResult out;
    std::shared_ptr<void> wHatMem;
    {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::string what = "AWQ of '" + w.name() + "'";
        auto pool = [&](std::size_t bytes) { return poolGet(I.pool, std::max<std::size_t>(bytes, 64), what); };
        auto words = pool(sizeof(launch::AwqWords));
        auto xf = pool(static_cast<std::size_t>(R * K) * 4), x64 = pool(static_cast<std::size_t>(R * K) * 8);
        auto xMeanD = pool(uk * 4), wMeanD = pool(uk * 8);
        auto chunkMax = pool(static_cast<std::size_t>(N * chunks) * 4);
        auto segmentSums = pool(static_cast<std::size_t>((N + kAwqSegmentRows - 1) / kAwqSegmentRows) * uk * 8);
        auto sD = pool(static_cast<std::size_t>(P + 1) * uk * 16); // every point's s, then its 1/s
        auto d = pool(nk * 8), e = pool(static_cast<std::size_t>(N * R) * 8);
        auto partials = pool(launch::kLossBlocks * 8), losses = pool(static_cast<std::size_t>(P) * 8);
        auto *wordsP = static_cast<launch::AwqWords *>(words.get());
        auto *sAll = static_cast<double *>(sD.get()), *yAll = sAll + (P + 1) * K;
        PhaseEvents ev;
        PinnedDoubles hs(static_cast<std::size_t>(P + 1) * uk * 2);
        double *hy = hs.p + (P + 1) * K;
        std::vector<char> yOk(static_cast<std::size_t>(P + 1), 0);

        // x̄, X in FP64, w̄, and W's first non-finite element.
        QS_GPU_CHECK(qsMemcpyAsync(xf.get(), cal.sample.data(), static_cast<std::size_t>(R * K) * 4,
                                   qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsEventRecord(ev.e[0], I.stream));
        launch::awqResetWords(wordsP, I.S());
        launch::awqActivationMeans(static_cast<const float *>(xf.get()), R, K, static_cast<float *>(xMeanD.get()),
                                   static_cast<double *>(x64.get()), I.S());
        launch::awqWeightMeans(inTypeOf(w.storage()), w.data(), N, K, chunk, tensor,
                               static_cast<float *>(chunkMax.get()), static_cast<double *>(segmentSums.get()),
                               static_cast<double *>(wMeanD.get()), wordsP, I.S());
        QS_GPU_CHECK(qsEventRecord(ev.e[1], I.stream));
        std::vector<float> xMean(uk);
        std::vector<double> wMean(uk);
        launch::AwqWords hw{};
        QS_GPU_CHECK(qsMemcpyAsync(xMean.data(), xMeanD.get(), uk * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(wMean.data(), wMeanD.get(), uk * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(&hw, wordsP, sizeof hw, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        if (hw.firstBadW != ~0ull)
            throw UnsupportedError(awqNonFiniteMessage(w.name(), static_cast<std::int64_t>(hw.firstBadW)));

        // The grid: every point's s on the host (the threads of this process, each point independent:
        // the same bits as one thread), one upload, then the device's work back to back.
        parallelSlices(P, resolveThreads(0), cancel, [&](int, std::int64_t p0, std::int64_t p1) {
            std::vector<double> s;
            for (std::int64_t p = p0; p < p1; ++p) {
                awqPointScales(xMean, wMean, points[static_cast<std::size_t>(p)], s);
                std::memcpy(hs.p + p * K, s.data(), uk * 8);
                yOk[static_cast<std::size_t>(p)] = reciprocals(hs.p + p * K, hy + p * K, K) ? 1 : 0;
            }
        });
        QS_GPU_CHECK(qsEventRecord(ev.e[2], I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(sAll, hs.p, static_cast<std::size_t>(P) * uk * 8, qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(yAll, hy, static_cast<std::size_t>(P) * uk * 8, qsMemcpyHostToDevice, I.stream));
        launch::AwqRowArgs a;
        a.in = inTypeOf(w.storage());
        a.w = w.data();
        a.n = N;
        a.k = K;
        a.group = group;
        a.tensor = tensor;
        a.ip = intParams(qs, DType::F32); // the int method runs on the FP32 tensor W·diag(s)
        a.words = wordsP;
        a.d = static_cast<double *>(d.get());
        LinalgHandles &H = linalgHandles(I.stream);
        const double one = 1.0, zero = 0.0;
        for (std::int64_t p = 0; p < P; ++p) {
            if (cancel)
                cancel->check();
            a.s = sAll + p * K;
            a.y = yOk[static_cast<std::size_t>(p)] && !options.genericRows ? yAll + p * K : nullptr;
            if (tensor) {
                launch::awqResetWords(wordsP, I.S());
                launch::awqTensorRange(a, I.S());
            }
            launch::awqRows(a, I.S());
            // E (N × R, column-major) = D · Xᵀ: D row-major N × K is Dᵀ column-major, X likewise.
            checkBlas(cublasDgemm(H.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(R),
                                  static_cast<int>(K), &one, static_cast<const double *>(d.get()), static_cast<int>(K),
                                  static_cast<const double *>(x64.get()), static_cast<int>(K), &zero,
                                  static_cast<double *>(e.get()), static_cast<int>(N)),
                      "AWQ X·Dᵀ (DGEMM)");
            launch::awqLoss(static_cast<const double *>(e.get()), N * R, static_cast<double>(R * N),
                            static_cast<double *>(partials.get()), static_cast<double *>(losses.get()) + p, I.S());
        }
        QS_GPU_CHECK(qsEventRecord(ev.e[3], I.stream));
        std::vector<double> loss(static_cast<std::size_t>(P));
        QS_GPU_CHECK(qsMemcpyAsync(loss.data(), losses.get(), loss.size() * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));

        // The first strict minimum, as awqSearch.
        AwqSearch search;
        search.points = std::move(points);
        double best = std::numeric_limits<double>::infinity();
        for (std::int64_t p = 0; p < P; ++p) {
            search.points[static_cast<std::size_t>(p)].loss = loss[static_cast<std::size_t>(p)];
            if (loss[static_cast<std::size_t>(p)] < best) {
                best = loss[static_cast<std::size_t>(p)];
                search.best = static_cast<int>(p);
            }
        }
        if (search.best < 0)
            throw UnsupportedError("awq: no grid point gave a finite loss (NaN/Inf in the weight or the sample)");
        const double *sBest = hs.p + static_cast<std::int64_t>(search.best) * K;
        search.scales.resize(uk);
        double *slot = hs.p + P * K;
        for (std::size_t j = 0; j < uk; ++j) {
            search.scales[j] = static_cast<float>(sBest[j]);
            slot[j] = static_cast<double>(search.scales[j]); // the stored s*, as AwqQuantizer::quantize
        }
        const bool slotOk = reciprocals(slot, hy + P * K, K);

        // The stored result: the int method on W·diag(s*) and Ŵ = inner / s*.
        const bool needHat = options.metrics || options.wantDequantized || options.keepDequantizedOnDevice;
        auto codes = pool(nk);
        auto scales = pool(static_cast<std::size_t>(G) * 4), zeros = pool(static_cast<std::size_t>(G));
        if (needHat)
            wHatMem = poolGet(I.pool, nk * 4, "Ŵ of " + what);
        QS_GPU_CHECK(qsMemcpyAsync(sAll + P * K, slot, uk * 8, qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(yAll + P * K, hy + P * K, uk * 8, qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsEventRecord(ev.e[4], I.stream));
        a.s = sAll + P * K;
        a.y = slotOk && !options.genericRows ? yAll + P * K : nullptr;
        a.d = nullptr;
        a.codes = static_cast<unsigned char *>(codes.get());
        a.scales = static_cast<float *>(scales.get());
        a.zeros = qs.symmetric ? nullptr : static_cast<signed char *>(zeros.get());
        a.wHat = needHat ? static_cast<float *>(wHatMem.get()) : nullptr;
        launch::awqResetWords(wordsP, I.S());
        if (tensor)
            launch::awqTensorRange(a, I.S());
        launch::awqRows(a, I.S());
        QS_GPU_CHECK(qsEventRecord(ev.e[5], I.stream));

        QuantizedTensor &q = out.quantized;
        q.layout = layout;
        q.codeDtype = DType::I8;
        q.codeBits = qs.bits;
        q.scaleDtype = storedDType(qs.scaleDtype);
        q.scales.resize(static_cast<std::size_t>(G));
        QS_GPU_CHECK(qsMemcpyAsync(q.scales.data(), scales.get(), q.scales.size() * 4, qsMemcpyDeviceToHost, I.stream));
        if (!qs.symmetric) {
            q.zeros.resize(static_cast<std::size_t>(G));
            QS_GPU_CHECK(qsMemcpyAsync(q.zeros.data(), zeros.get(), q.zeros.size(), qsMemcpyDeviceToHost, I.stream));
        }
        if (options.wantCodes) {
            q.codes.resize(nk);
            QS_GPU_CHECK(qsMemcpyAsync(q.codes.data(), codes.get(), nk, qsMemcpyDeviceToHost, I.stream));
        }
        std::vector<float> hat;
        if (options.wantDequantized) {
            hat.resize(nk);
            QS_GPU_CHECK(qsMemcpyAsync(hat.data(), wHatMem.get(), nk * 4, qsMemcpyDeviceToHost, I.stream));
        }
        QS_GPU_CHECK(qsMemcpyAsync(&hw, wordsP, sizeof hw, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        q.nonFiniteGroups = static_cast<std::int64_t>(hw.badGroups);
        q.firstNonFinite = hw.firstBadWs == ~0ull ? -1 : static_cast<std::int64_t>(hw.firstBadWs);
        awqFinish(q, spec, search, cal, w.name(), w.shape(), w.dtype());
        q.dequantized = std::move(hat);
        out.meansMs = ev.ms(0, 1);
        out.gridMs = ev.ms(2, 3);
        out.finalMs = ev.ms(4, 5);
    }
    finishDequantized(*this, w, std::move(wHatMem), options, out);
    return out;
}

} // namespace quantscope::gpu
