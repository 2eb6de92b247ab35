// SPDX-License-Identifier: MIT
// The GEMM timing lab's w3a16-milo points (issue 43; CUDA builds only): MiLo's 3-bit HQQ weights
// (g64 along K, the milo-code op order) and a rank-r compensator through the fused W3A16 kernel
// (kernels_w3lr.h: pre-kernel T = X·V̂ᵀ + the GEMM with Û·T in its epilogue, PDL), timed like the
// lab's other points (device events around each step, rotating weight copies, median), every
// output checked against the FP64 product on the host (w3lr_pack.h reference and bound).
#include "gemmlab_lt.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "device_pool.h"
#include "gemm/kernels_gemmlab.h"
#include "gemm/kernels_w3lr.h"
#include "gemm/w3lr_pack.h"
#include "quant/milo.h"
#include "util/error.h"
#include "w3lr_synthetic.h"

namespace quantscope::gpu::lab2 {

std::vector<GemmPoint> timeW3a16Milo(Engine::Impl &I, const GemmBenchRequest &request,
                                     std::vector<Engine::GemmLabCheck> &checks)
{
    const std::int64_t n = request.n, k = request.k, group = 64;
    const int rank = request.w3Rank;
    const std::string format = toString(GemmFormat::W3a16Milo), what = "the GEMM lab's w3a16-milo operands";
    std::vector<std::int64_t> ms;
    for (auto m : request.m)
        if (m <= launch::kW3lrMaxM)
            ms.push_back(m);
    std::vector<GemmPoint> points;
    if (ms.empty())
        return points;
    const std::string why = launch::w3lrRefusal(1, k, group, rank);
    if (!why.empty())
        throw GpuError("GEMM lab: " + why);
    const auto s = static_cast<cudaStream_t>(I.stream);
    // Synthetic weights (w3lr_synthetic.h, the benchmark's too); factors N(0, 0.01), int8-coded (g64).
    std::mt19937_64 rng(0x3143u);
    const W3SyntheticWeights syn = syntheticW3Weights(n, k, group, rng);
    if (syn.packed.empty())
        throw GpuError("GEMM lab: w3a16-milo could not pack its codes");
    const std::vector<std::uint8_t> &codes = syn.codes;
    const std::vector<float> &scales = syn.scales, &zeros = syn.zeros, &wHat = syn.wHat;
    const std::vector<std::uint32_t> &packed = syn.packed;
    std::normal_distribution<float> fd(0.0f, 0.01f);
    std::vector<float> u(static_cast<std::size_t>(n * rank)), v(static_cast<std::size_t>(rank * k));
    for (auto &e : u)
        e = fd(rng);
    for (auto &e : v)
        e = fd(rng);
    if (rank > 0) {
        u = quantizeCompensator(u, n, rank, CompensatorFormat::Int8, 64).values;
        v = quantizeCompensator(v, rank, k, CompensatorFormat::Int8, 64).values;
    }
    // Rotating copies of the codes, scales and zero points over 2× L2.
    const std::size_t wBytes = 4 * packed.size() + 8 * scales.size();
    const double l2 = static_cast<double>(std::max<std::size_t>(I.props.l2CacheSize, 1u << 20));
    const int copies = static_cast<int>(std::clamp(std::ceil(2.0 * l2 / static_cast<double>(wBytes)), 1.0, 8.0));
    std::vector<std::shared_ptr<void>> dw, dsc, dz;
    for (int c = 0; c < copies; ++c) {
        dw.push_back(upload(I, packed.data(), 4 * packed.size(), what));
        dsc.push_back(upload(I, scales.data(), 4 * scales.size(), what));
        dz.push_back(upload(I, zeros.data(), 4 * zeros.size(), what));
    }
    auto du = upload(I, u.data(), 4 * u.size(), what), dv = upload(I, v.data(), 4 * v.size(), what);
    const std::int64_t maxM = *std::max_element(ms.begin(), ms.end());
    auto X = poolGet(I.pool, 2u * static_cast<std::size_t>(maxM * k), what);
    launch::labFill(launch::kLabBf16, X.get(), maxM * k, 0x5A17ull + static_cast<int>(GemmFormat::W3a16Milo), 1.0f, s);
    std::vector<std::uint16_t> xHost(static_cast<std::size_t>(maxM * k));
    QS_GPU_CHECK(cudaMemcpyAsync(xHost.data(), X.get(), 2 * xHost.size(), cudaMemcpyDeviceToHost, s));
    auto Y = poolGet(I.pool, 2u * static_cast<std::size_t>(maxM * n), what);
    launch::W3lrProblem p;
    p.x = X.get(), p.y = Y.get();
    p.n = n, p.k = k, p.group = group, p.rank = rank;
    p.u = static_cast<const float *>(du.get()), p.v = static_cast<const float *>(dv.get());
    p.m = maxM;
    const std::size_t wsBytes = launch::w3lrWorkspaceBytes(p), cntBytes = launch::w3lrCounterBytes(p);
    auto ws = poolGet(I.pool, wsBytes, what), cnt = poolGet(I.pool, cntBytes, what);
    QS_GPU_CHECK(cudaMemsetAsync(ws.get(), 0, wsBytes, s));
    QS_GPU_CHECK(cudaMemsetAsync(cnt.get(), 0, cntBytes, s));
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    for (const std::int64_t m : ms) {
        p.m = m;
        launch::W3lrLaunch used;
        const Step step = [&](int rep, const std::vector<cudaEvent_t> &mk) {
            const auto c = static_cast<std::size_t>(rep % copies);
            p.packed = static_cast<const std::uint32_t *>(dw[c].get());
            p.scales = static_cast<const float *>(dsc[c].get()), p.zeros = static_cast<const float *>(dz[c].get());
            QS_GPU_CHECK(cudaEventRecord(mk[0], s));
            used = launch::w3lrFused(p, {}, ws.get(), cnt.get(), s);
            QS_GPU_CHECK(cudaEventRecord(mk[1], s));
            return true;
        };
        std::vector<double> runs;
        const auto t = timeStep(step, 1, request.warmup, request.repeats, s, &runs);
        if (!t)
            throw GpuError("GEMM lab: the fused W3A16 kernel was refused");
        {
            Events ev(2);
            step(0, ev.ev);
        }
        std::vector<std::uint16_t> y(static_cast<std::size_t>(m * n));
        QS_GPU_CHECK(cudaMemcpyAsync(y.data(), Y.get(), 2 * y.size(), cudaMemcpyDeviceToHost, s));
        QS_GPU_CHECK(cudaStreamSynchronize(s));
        w3lr::HostOperands o;
        o.m = m, o.n = n, o.k = k, o.group = group, o.rank = rank;
        o.codes = codes.data(), o.scales = scales.data(), o.zeros = zeros.data(), o.wHat = wHat.data();
        o.u = u.data(), o.v = v.data(), o.x = xHost.data();
        const double worst = w3lr::worstOfBound(o, w3lr::reference(o), y.data(), false);

        GemmPoint pt;
        pt.format = format;
        pt.m = m, pt.n = n, pt.k = k;
        setTimeSpread(pt, runs);
        pt.coldUs = t->second;
        pt.repeats = request.repeats;
        pt.device = "cuda:" + std::to_string(I.device);
        pt.paddedM = m;
        pt.launches = rank > 0 ? 2 : 1;
        setGemmRates(pt, group);
        // The factors (4·r·(N + K) bytes) are read too.
        pt.bytes += 4.0 * rank * static_cast<double>(n + k);
        pt.gbps = pt.bytes / (pt.timeUs * 1e3);
        pt.bytesPerToken = pt.bytes / static_cast<double>(m);
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "fused W3A16 (3-bit codes, FP32 scale and float zero point per 64 along K; synthetic codes, "
                      "Ŵ = s·(u − z) by HQQ's milo-code op order) + rank-%d compensator (Û, V̂ int8-coded values%s); "
                      "split-K %d, %d blocks, %d token tile(s); output %s against the FP64 product on every element "
                      "(%lld outputs), worst %.3g of the bound",
                      rank,
                      rank == 0  ? ": none, the W3 GEMM alone"
                      : used.pdl ? "; pre-kernel T = X·V̂ᵀ overlapped by programmatic dependent launch"
                                 : "; pre-kernel T = X·V̂ᵀ, then the GEMM in stream order",
                      used.splitK, used.blocks, used.tokenTiles, worst <= 1.0 ? "checked" : "CHECK FAILED",
                      static_cast<long long>(m * n), worst);
        pt.note = buf;
        if (copies > 1) {
            std::snprintf(buf, sizeof buf, "; %d rotating weight copies", copies);
            pt.note += buf;
        }
        checks.push_back({pt.format, m, static_cast<int>(std::min<std::int64_t>(m * n, 1 << 30)), worst});
        points.push_back(std::move(pt));
    }
    if (ms.size() < request.m.size())
        points.front().note += "; M > 16 not run (the decode-regime kernel)";
    return points;
}

} // namespace quantscope::gpu::lab2
