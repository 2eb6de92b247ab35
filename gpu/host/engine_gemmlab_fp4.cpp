// SPDX-License-Identifier: MIT
// The GEMM timing lab's FP4-weight formats (issue 43; CUDA builds only): mxfp4 and nvfp4 weights
// (the engine quantizer's codes and scales, GemmBenchRequest::mxfp4 / nvfp4) × BF16 activations.
// At M ≤ 16 the fused kernel (gemm/kernels_fp4gemm.h) is the format's point and the unfused route
// (FP4 → BF16 dequantize kernel + cuBLASLt BF16 GEMM) is timed beside it as "<format>-unfused";
// above 16 the format's point is the unfused route and its note says so. Timed like the other
// quantized paths (device events, rotating weight copies, median) and every output of every
// checked row compared on the device with the FP64 product of the exact Ŵ (all rows up to M = 256).
#include "gemmlab_lt.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "device_pool.h"
#include "gemm/kernels_fp4gemm.h"
#include "gemm/kernels_gemmlab.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope::gpu::lab2 {

namespace {

/// The kernel's layout from the quantizer's result: two codes a byte (low nibble first), one scale
/// byte a group (MXFP4: the E8M0 byte of 2^(byte − 127); NVFP4: the E4M3 byte), the global scale.
struct PackedFp4 {
    std::vector<std::uint8_t> codes, scales;
    float global = 1.0f;
};

PackedFp4 packFp4(const QuantizedTensor &q, bool nv, std::int64_t n, std::int64_t k)
{
    const std::int64_t g = nv ? 16 : 32;
    if (static_cast<std::int64_t>(q.codes.size()) != n * k || static_cast<std::int64_t>(q.scales.size()) != n * (k / g))
        throw GpuError("GEMM lab: the " + std::string(nv ? "NVFP4" : "MXFP4") + " codes / scales hold " +
                       std::to_string(q.codes.size()) + " / " + std::to_string(q.scales.size()) + " values for " +
                       std::to_string(n) + "×" + std::to_string(k));
    PackedFp4 p;
    p.codes.resize(static_cast<std::size_t>(n * k / 2));
    for (std::size_t i = 0; i < p.codes.size(); ++i)
        p.codes[i] = static_cast<std::uint8_t>((q.codes[2 * i] & 0xF) | ((q.codes[2 * i + 1] & 0xF) << 4));
    p.scales.resize(q.scales.size());
    for (std::size_t i = 0; i < q.scales.size(); ++i) {
        if (nv) {
            p.scales[i] = floatToE4m3(q.scales[i]);
        } else {
            std::uint32_t b;
            std::memcpy(&b, &q.scales[i], 4);
            p.scales[i] = static_cast<std::uint8_t>(b >> 23); // 2^(byte − 127); 2^-127 (subnormal) → 0
        }
    }
    if (nv)
        p.global = q.outerScales.empty() ? 1.0f : q.outerScales[0];
    return p;
}

} // namespace

std::vector<GemmPoint> timeFp4Gemms(Engine::Impl &I, const GemmBenchRequest &request, GemmFormat f,
                                    const CancelToken *cancel, std::vector<Engine::GemmLabCheck> &checks)
{
    const bool nv = f == GemmFormat::Nvfp4;
    const std::string name = toString(f), what = "the GEMM lab's " + name + " operands";
    const QuantizedTensor *q = nv ? request.nvfp4.get() : request.mxfp4.get();
    if (!q)
        throw GpuError("GEMM lab: no quantized weights for " + name + " (runGemmBench quantizes them)");
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::int64_t n = request.n, k = request.k;
    const std::string id = "cuda:" + std::to_string(I.device);
    const PackedFp4 host = packFp4(*q, nv, n, k);
    const auto fmt = nv ? launch::Fp4GemmFormat::Nvfp4 : launch::Fp4GemmFormat::Mxfp4;
    const std::string dataWhy =
        launch::fp4GemmDataRefusal(fmt, host.codes.data(), host.scales.data(), host.global, n, k);
    // The weights as stored (codes and scales), rotated through copies that exceed 2× L2 together.
    const double l2 = static_cast<double>(std::max<std::size_t>(I.props.l2CacheSize, 1u << 20));
    const double stored = static_cast<double>(host.codes.size() + host.scales.size());
    const int copies = static_cast<int>(std::clamp(std::ceil(2.0 * l2 / stored), 1.0, 8.0));
    std::vector<std::shared_ptr<void>> Wst, Sst;
    for (int c = 0; c < copies; ++c) {
        Wst.push_back(upload(I, host.codes.data(), host.codes.size(), what));
        Sst.push_back(upload(I, host.scales.data(), host.scales.size(), what));
    }
    const std::int64_t maxM = *std::max_element(request.m.begin(), request.m.end());
    const std::int64_t maxMp = (maxM + 15) / 16 * 16;
    auto X = poolGet(I.pool, 2u * static_cast<std::size_t>(maxMp * k), what);
    launch::labFill(launch::kLabBf16, X.get(), maxMp * k, 0x5A17ull + static_cast<int>(f), 1.0f, s);
    auto Wc = poolGet(I.pool, 2u * static_cast<std::size_t>(n * k), what);
    auto Y = poolGet(I.pool, 2u * static_cast<std::size_t>(maxMp * n), what);
    launch::Fp4GemmProblem p;
    p.format = fmt;
    p.globalScale = host.global;
    p.x = X.get();
    p.y = Y.get();
    p.n = n, p.k = k, p.m = std::min<std::int64_t>(maxM, launch::kFp4GemmMaxM);
    const std::size_t wsBytes = launch::fp4GemmWorkspaceBytes(p), cntBytes = launch::fp4GemmCounterBytes(p);
    auto ws = poolGet(I.pool, wsBytes, what), cnt = poolGet(I.pool, cntBytes, what);
    QS_GPU_CHECK(cudaMemsetAsync(ws.get(), 0, wsBytes, s));
    QS_GPU_CHECK(cudaMemsetAsync(cnt.get(), 0, cntBytes, s));
    auto res = poolGet(I.pool, 16, what);
    auto *worstDev = static_cast<double *>(res.get());
    auto *countDev = reinterpret_cast<unsigned long long *>(static_cast<char *>(res.get()) + 8);
    auto setCopy = [&](int rep) {
        p.packed = static_cast<const std::uint8_t *>(Wst[static_cast<std::size_t>(rep % copies)].get());
        p.scales = static_cast<const std::uint8_t *>(Sst[static_cast<std::size_t>(rep % copies)].get());
    };

    std::vector<GemmPoint> points;
    for (const std::int64_t m : request.m) {
        if (cancel)
            cancel->check();
        p.m = m;
        const std::string fusedWhy = dataWhy.empty() ? launch::fp4GemmRefusal(m, k) : dataWhy;
        const bool fused = fusedWhy.empty();
        // The unfused route: dequantize to BF16, cuBLASLt's BF16 GEMM (M padded where it refuses M).
        std::unique_ptr<Gemm> g;
        std::string why;
        std::int64_t mp = m;
        for (const std::int64_t t : mTries(m)) {
            mp = t;
            g = makeGemm(CUDA_R_16BF, CUDA_R_16BF, Scale::None, nullptr, nullptr, t, n, k, 1, why);
            if (g)
                break;
        }
        if (!g)
            throw GpuError("cuBLASLt runs no BF16 GEMM of M = " + std::to_string(m) + " (" + why + ")");
        setCopy(0);
        launch::fp4GemmDequantBf16(p, Wc.get(), s); // the candidates are tuned on the real Ŵ
        tune(
            *g, [&] { return g->run(Wc.get(), X.get(), Y.get(), s); }, s);
        const Step unfusedStep = [&](int rep, const std::vector<cudaEvent_t> &mk) {
            setCopy(rep);
            QS_GPU_CHECK(cudaEventRecord(mk[0], s));
            launch::fp4GemmDequantBf16(p, Wc.get(), s);
            QS_GPU_CHECK(cudaEventRecord(mk[1], s));
            if (g->run(Wc.get(), X.get(), Y.get(), s) != CUBLAS_STATUS_SUCCESS)
                return false;
            QS_GPU_CHECK(cudaEventRecord(mk[2], s));
            return true;
        };
        launch::Fp4GemmLaunch used;
        const Step fusedStep = [&](int rep, const std::vector<cudaEvent_t> &mk) {
            setCopy(rep);
            QS_GPU_CHECK(cudaEventRecord(mk[0], s));
            used = launch::fp4GemmFused(p, {}, ws.get(), cnt.get(), s);
            QS_GPU_CHECK(cudaEventRecord(mk[1], s));
            return true;
        };
        // One point: time the step, run it once more on copy 0, check every output of the checked rows.
        auto point = [&](bool isFused, const std::string &format) {
            const Step &step = isFused ? fusedStep : unfusedStep;
            const int stages = isFused ? 1 : 2;
            std::vector<double> runs;
            const auto t = timeStep(step, stages, request.warmup, request.repeats, s, &runs);
            if (!t)
                throw GpuError("the " + format + " GEMM of M = " + std::to_string(m) + " was refused");
            {
                Events ev(static_cast<std::size_t>(stages) + 1);
                step(0, ev.ev);
            }
            const std::int64_t rowStride = m <= 256 ? 1 : (m + 127) / 128;
            // Ŵ exact in the mma (MXFP4; NVFP4 up to the one division by the global scale); the
            // unfused route rounds NVFP4's Ŵ to BF16 (MXFP4's is exact there too).
            const double wRel = !nv ? 0.0 : isFused ? std::ldexp(1.0, -23) : std::ldexp(1.0, -8) + std::ldexp(1.0, -22);
            launch::fp4GemmCheckFp64(p, rowStride, wRel, worstDev, countDev, s);
            double worst = 0;
            unsigned long long count = 0;
            QS_GPU_CHECK(cudaMemcpyAsync(&worst, worstDev, 8, cudaMemcpyDeviceToHost, s));
            QS_GPU_CHECK(cudaMemcpyAsync(&count, countDev, 8, cudaMemcpyDeviceToHost, s));
            QS_GPU_CHECK(cudaStreamSynchronize(s));
            GemmPoint pt;
            pt.format = format;
            pt.m = m, pt.n = n, pt.k = k;
            setTimeSpread(pt, runs);
            pt.coldUs = t->second;
            pt.padded = !isFused && mp != m;
            pt.paddedM = isFused ? m : mp;
            pt.repeats = request.repeats;
            pt.device = id;
            setGemmRates(pt);
            char buf[400];
            if (isFused)
                std::snprintf(buf, sizeof buf,
                              "fused: one kernel, mma.sync BF16, swapped (Yᵀ = Ŵ·Xᵀ: 16 rows of W a warp as the mma's "
                              "M, %d token tile(s) of 8, %d chunk(s) of W ahead, split-K %d, %d blocks; E2M1 × %s "
                              "exact in BF16%s)",
                              used.mTile, used.chunksAhead, used.splitK, used.blocks,
                              nv ? "E4M3 block scale" : "UE8M0 scale", nv ? ", the global scale on the FP32 sum" : "");
            else
                std::snprintf(buf, sizeof buf, "unfused%s: FP4→BF16 dequantize kernel (%.1f µs) + cuBLASLt BF16 GEMM",
                              m > launch::kFp4GemmMaxM ? " (M > 16 routes here)" : "", t->first[0]);
            pt.note = buf;
            if (!isFused && !fused && (m <= launch::kFp4GemmMaxM || !dataWhy.empty()))
                pt.note += "; no fused point: " + fusedWhy;
            std::snprintf(buf, sizeof buf,
                          "; output %s against the FP64 Ŵ·X on %s (%llu outputs), worst %.3g of the bound",
                          worst <= 1.0 && count > 0 ? "checked" : "CHECK FAILED",
                          rowStride == 1 ? "every element" : "every column of sampled rows", count, worst);
            pt.note += buf;
            if (copies > 1) {
                std::snprintf(buf, sizeof buf, "; %d rotating weight copies", copies);
                pt.note += buf;
            }
            checks.push_back({pt.format, m, static_cast<int>(std::min<unsigned long long>(count, 1u << 30)), worst});
            points.push_back(std::move(pt));
        };
        if (fused) {
            point(true, name);
            point(false, name + kFp4UnfusedSuffix);
        } else {
            point(false, name);
        }
    }
    return points;
}

} // namespace quantscope::gpu::lab2
