// SPDX-License-Identifier: MIT
// The GEMM timing lab II's quantized-weight paths (issue 22; CUDA builds only), each timed end to
// end on the engine quantizer's codes (GemmBenchRequest::w4 / w4Channel / w8Fp8):
//   w4a16      INT4 → BF16 dequantize kernel (g128 or per channel) + BF16 GEMM, and beside it
//              the fused kernel's point (w4a16-fused, engine_gemmlab_fused.cpp)
//   w4a8-int8  INT4 → INT8 unpack + Σ_k x per token + INT8 GEMM (INT32) + epilogue
//              y = s_tok·s_ch·(acc − z·Σx); above the fused kernel's M the fused series' route
//              folds z into the INT8 weight instead (q − z + INT8 GEMM + post-scale)
//   w4a8-fp8   INT4 → E4M3 (q − z, exact) + FP8 GEMM with row-wise scales
//   w8a8-fp8   the FP8 per-channel codes as stored + FP8 GEMM with row-wise scales
// and beside w4a8-int8 / w4a8-fp8 their fused points (w4a8-int8-fused, w4a8-fp8-fused: the fused
// kernel for M ≤ 16, above it this route, labelled; engine_gemmlab_w4a8.cpp).
// Row-wise FP8 scales: cuBLASLt's outer-vector mode where present, else FP32 out + part I's
// post-scale kernel. The activations are seeded codes (BF16; INT8 or E4M3 with per-token scales).
#include "gemmlab_lt.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "device_pool.h"
#include "gemm/kernels_gemmlab.h"
#include "gemm/kernels_gemmlab_check.h"
#include "gemm/kernels_w4a8.h"
#include "gemm/kernels_w4a8_cutlass.h"
#include "gemm/w4a8_math.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope::gpu {

using namespace lab2;

namespace {

/// Two codes a byte (kernels_gemmlab.h), from the quantizer's one signed code per element.
std::vector<std::uint8_t> packInt4(const QuantizedTensor &q, std::int64_t n, std::int64_t k)
{
    if (static_cast<std::int64_t>(q.codes.size()) != n * k)
        throw GpuError("GEMM lab: the INT4 codes hold " + std::to_string(q.codes.size()) +
                       " values, not N·K = " + std::to_string(n * k));
    std::vector<std::uint8_t> p(static_cast<std::size_t>(n * k / 2));
    for (std::size_t i = 0; i < p.size(); ++i)
        p[i] = static_cast<std::uint8_t>((q.codes[2 * i] & 0xF) | ((q.codes[2 * i + 1] & 0xF) << 4));
    return p;
}

} // namespace

std::vector<GemmPoint> Engine::timeQuantizedGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                                  std::vector<GemmLabCheck> &checks)
{
    request.validate();
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(cudaSetDevice(I.device));
    std::lock_guard ltLock(lt().mutex);
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::int64_t n = request.n, k = request.k;
    const std::string id = "cuda:" + std::to_string(I.device);
    const double l2 = static_cast<double>(std::max<std::size_t>(I.props.l2CacheSize, 1u << 20));
    const std::int64_t maxM = *std::max_element(request.m.begin(), request.m.end());
    const std::int64_t maxMp = (maxM + 15) / 16 * 16;
    const bool outerVec = haveOuterVec();
    double total = 0, done = 0;
    for (auto m : request.m)
        total += static_cast<double>(request.formats.size()) * (gemmFlops(m, n, k) + 1e9);
    if (k % 16 != 0)
        throw GpuError("cuBLASLt's 8-bit GEMMs need K a multiple of 16 (K = " + std::to_string(k) + ")");
    std::vector<GemmPoint> points;
    for (const GemmFormat f : request.formats) {
        if (!isQuantizedWeightFormat(f))
            continue;
        if (f == GemmFormat::Mxfp4 || f == GemmFormat::Nvfp4) { // engine_gemmlab_fp4.cpp
            if (cancel)
                cancel->stepProgress(done / total);
            auto fp4 = lab2::timeFp4Gemms(I, request, f, cancel, checks);
            points.insert(points.end(), fp4.begin(), fp4.end());
            for (auto m : request.m)
                done += gemmFlops(m, n, k) + 1e9;
            continue;
        }
        if (f == GemmFormat::W3a16Milo) { // the fused W3A16 + compensator (engine_gemmlab_w3lr.cpp)
            auto w3 = lab2::timeW3a16Milo(I, request, checks);
            points.insert(points.end(), w3.begin(), w3.end());
            continue;
        }
        const std::string name = toString(f), what = "the GEMM lab's " + name + " operands";
        const QuantizedTensor *q = f == GemmFormat::W4a16     ? request.w4.get()
                                   : f == GemmFormat::W8a8Fp8 ? request.w8Fp8.get()
                                                              : request.w4Channel.get();
        if (!q)
            throw GpuError("GEMM lab: no quantized weights for " + name + " (runGemmBench quantizes them)");
        const bool w8 = f == GemmFormat::W8a8Fp8, perChannel = f != GemmFormat::W4a16;
        const std::int64_t groups = static_cast<std::int64_t>(q->scales.size()) / n;
        if (groups < 1 || groups * n != static_cast<std::int64_t>(q->scales.size()) || k % groups != 0 ||
            (perChannel && groups != 1) || (!w8 && q->zeros.size() != q->scales.size()))
            throw GpuError("GEMM lab: " + name + " got scales of an unexpected layout (" +
                           std::to_string(q->scales.size()) + " for " + std::to_string(n) + " rows)");
        const std::int64_t group = k / groups;
        // The weights as stored, rotated through copies so that they exceed 2× L2 together.
        std::vector<std::uint8_t> stored = w8 ? q->codes : packInt4(*q, n, k);
        const int copies =
            static_cast<int>(std::clamp(std::ceil(2.0 * l2 / static_cast<double>(stored.size())), 1.0, 8.0));
        std::vector<std::shared_ptr<void>> Wst;
        for (int c = 0; c < copies; ++c)
            Wst.push_back(lab2::upload(I, stored.data(), stored.size(), what));
        auto sCh = lab2::upload(I, q->scales.data(), q->scales.size() * sizeof(float), what);
        std::shared_ptr<void> zeros;
        if (!w8)
            zeros = lab2::upload(I, q->zeros.data(), q->zeros.size(), what);
        const auto tokHost = tokenScales(maxMp);
        auto sTok = lab2::upload(I, tokHost.data(), tokHost.size() * sizeof(float), what);
        // Activations: BF16 for w4a16, else INT8 / E4M3 codes (per-token scales sTok).
        const bool xBf16 = f == GemmFormat::W4a16, xInt8 = f == GemmFormat::W4a8Int8;
        const int xKind = xBf16 ? launch::kLabBf16 : xInt8 ? launch::kLabInt8 : launch::kLabE4m3;
        const std::size_t eX = xBf16 ? 2 : 1;
        auto X = poolGet(I.pool, eX * static_cast<std::size_t>(maxMp * k), what);
        launch::labFill(xKind, X.get(), maxMp * k, 0x5A17ull + static_cast<int>(f),
                        xBf16   ? 1.0f
                        : xInt8 ? 32.0f
                                : 64.0f,
                        s);
        // The converted weights (BF16, INT8 or E4M3 [N, K]); none for w8a8-fp8.
        std::shared_ptr<void> Wc;
        if (!w8)
            Wc = poolGet(I.pool, (xBf16 ? 2u : 1u) * static_cast<std::size_t>(n * k), what);
        auto D = poolGet(I.pool, 4u * static_cast<std::size_t>(maxMp * n), what);
        auto out = poolGet(I.pool, 2u * static_cast<std::size_t>(maxMp * n), what);
        auto rowSum = poolGet(I.pool, 4u * static_cast<std::size_t>(maxMp), what);
        const auto *chScale = static_cast<const float *>(sCh.get());
        const auto *tokScale = static_cast<const float *>(sTok.get());
        const auto *z8 = static_cast<const std::int8_t *>(zeros.get());
        // w4a8-int8's large-M route folds the per-channel zero point into the INT8 weight where
        // every q − z stays exact in INT8 (engine_gemmlab_w4a8.cpp's routed point).
        const bool foldable = xInt8 && std::all_of(q->zeros.begin(), q->zeros.end(), [](std::int8_t z) {
                                  return z >= gpumath::kW4a8FoldZeroMin && z <= gpumath::kW4a8FoldZeroMax;
                              });

        for (const std::int64_t m : request.m) {
            if (cancel)
                cancel->stepProgress(done / total);
            if (cancel)
                cancel->check();
            std::unique_ptr<Gemm> g;
            std::string why;
            std::int64_t mp = m;
            bool vec = false, post = false;
            for (const std::int64_t t : mTries(m)) {
                mp = t;
                if (xBf16) {
                    g = makeGemm(CUDA_R_16BF, CUDA_R_16BF, Scale::None, nullptr, nullptr, t, n, k, 1, why);
                } else if (xInt8) {
                    g = makeGemm(CUDA_R_8I, CUDA_R_32I, Scale::None, nullptr, nullptr, t, n, k, 1, why);
                    post = true;
                } else {
                    vec = outerVec;
                    if (vec)
                        g = makeGemm(CUDA_R_8F_E4M3, CUDA_R_16BF, Scale::Outer, chScale, tokScale, t, n, k, 1, why);
                    if (!g) {
                        vec = false;
                        g = makeGemm(CUDA_R_8F_E4M3, CUDA_R_32F, Scale::None, nullptr, nullptr, t, n, k, 1, why);
                    }
                    post = !vec;
                }
                if (g)
                    break;
            }
            if (!g)
                throw GpuError("cuBLASLt runs no " + name + " GEMM of M = " + std::to_string(m) + " (" + why + ")");
            const int stages = w8 ? 2 : 3; // [convert,] GEMM, epilogue (an empty stage when none)
            auto gemmOnce = [&](const void *W) { return g->run(W, X.get(), D.get(), s); };
            const Step step = [&](int rep, const std::vector<cudaEvent_t> &mk) {
                const void *Wstored = Wst[static_cast<std::size_t>(rep % copies)].get();
                std::size_t e = 0;
                QS_GPU_CHECK(cudaEventRecord(mk[e++], s));
                const void *Wg = Wstored;
                if (f == GemmFormat::W4a16)
                    launch::labW4Dequant(static_cast<const std::uint8_t *>(Wstored), chScale, z8, n, k, group, Wc.get(),
                                         s);
                else if (xInt8) {
                    launch::labW4Unpack(static_cast<const std::uint8_t *>(Wstored), n, k,
                                        static_cast<std::int8_t *>(Wc.get()), s);
                    launch::labRowSumInt8(static_cast<const std::int8_t *>(X.get()), mp, k,
                                          static_cast<std::int32_t *>(rowSum.get()), s);
                } else if (!w8)
                    launch::labW4ToE4m3(static_cast<const std::uint8_t *>(Wstored), z8, n, k,
                                        static_cast<std::uint8_t *>(Wc.get()), s);
                if (!w8) {
                    Wg = Wc.get();
                    QS_GPU_CHECK(cudaEventRecord(mk[e++], s));
                }
                if (gemmOnce(Wg) != CUBLAS_STATUS_SUCCESS)
                    return false;
                QS_GPU_CHECK(cudaEventRecord(mk[e++], s));
                if (xInt8)
                    launch::labW4a8Epilogue(static_cast<const std::int32_t *>(D.get()),
                                            static_cast<const std::int32_t *>(rowSum.get()), z8, tokScale, chScale, mp,
                                            n, out.get(), s);
                else if (post)
                    launch::labPostScale(D.get(), false, tokScale, chScale, mp, n, out.get(), s);
                QS_GPU_CHECK(cudaEventRecord(mk[e], s));
                return true;
            };
            tune(
                *g, [&] { return gemmOnce(w8 ? Wst[0].get() : Wc.get()); }, s);
            std::vector<double> runs;
            const auto t = timeStep(step, stages, request.warmup, request.repeats, s, &runs);
            if (!t)
                throw GpuError("cuBLASLt refused the " + name + " GEMM of M = " + std::to_string(mp));
            const auto &[stageUs, coldUs] = *t;
            // The output check: one more step on copy 0, every output of the M rows against the
            // FP64 product of the engine's Ŵ = s·(q − z) and the activations as quantized, on the
            // device (kernels_gemmlab_check.h).
            {
                Events ev(static_cast<std::size_t>(stages) + 1);
                step(0, ev.ev);
            }
            const auto checkOutput = [&] {
                launch::LabCheckProblem cp;
                cp.w.data = Wst[0].get();
                cp.w.kind = w8 ? launch::kLabE4m3 : launch::kLabCheckInt4;
                cp.w.scale = chScale;
                cp.w.zeros = w8 ? nullptr : z8;
                cp.w.group = group;
                cp.x.data = X.get();
                cp.x.kind = xKind;
                cp.x.scale = xBf16 ? nullptr : tokScale;
                cp.y = (xInt8 || post) ? out.get() : D.get();
                cp.m = mp, cp.n = n, cp.k = k;
                // BF16 output rounding (unit roundoff 2^-8 of |ref|); w4a16 also rounds Ŵ to BF16 (2^-8
                // of each |x·ŵ|) and accumulates in FP32 (2^-12 of Σ|x·ŵ|); FP8 accumulates in FP32
                // (2^-12); INT8 exactly, its epilogue's FP32 products cost 2^-20 of |ref| (and 2^-22 of
                // Σ|x·ŵ| is left for the FP32 scale products).
                cp.relRef = std::ldexp(1.001, -8) + (xInt8 ? std::ldexp(1.0, -20) : 0.0);
                cp.relMag = xInt8   ? std::ldexp(1.0, -22)
                            : xBf16 ? std::ldexp(1.0, -8) + std::ldexp(1.0, -12)
                                    : std::ldexp(1.0, -12);
                auto scratch = poolGet(I.pool, 64, what);
                return launch::labCheckFp64(cp, scratch.get(), s);
            };
            const launch::LabCheckResult ck = checkOutput();
            // The large-M route's CUTLASS candidate (engine_gemmlab_w4a8_cutlass.cpp) beside the fold
            // route's point `folded` (checked, its output in `out`): timed, every output checked like
            // the fold's and compared with the fold's bits; the faster becomes the point, the note
            // naming the route that ran and both medians.
            const auto cutlassCandidate = [&](std::optional<GemmPoint> &folded, std::int64_t rows) {
                const std::size_t outs = static_cast<std::size_t>(rows * n);
                std::vector<std::uint16_t> foldBits(folded ? outs : 0), bits(outs);
                if (folded)
                    QS_GPU_CHECK(cudaMemcpyAsync(foldBits.data(), out.get(), 2 * outs, cudaMemcpyDeviceToHost, s));
                std::string whyNot;
                const auto c = timeW4a8Cutlass(I, request, Wst, chScale, z8, static_cast<const std::int8_t *>(X.get()),
                                               tokScale, rows, out.get(), whyNot);
                if (!c) {
                    if (folded)
                        folded->note += "; no CUTLASS route: " + whyNot;
                    return;
                }
                const launch::LabCheckResult cck = checkOutput();
                QS_GPU_CHECK(cudaMemcpyAsync(bits.data(), out.get(), 2 * outs, cudaMemcpyDeviceToHost, s));
                QS_GPU_CHECK(cudaStreamSynchronize(s));
                const std::size_t differ = folded ? static_cast<std::size_t>(std::inner_product(
                                                        bits.begin(), bits.end(), foldBits.begin(), std::size_t(0),
                                                        std::plus<>(), std::not_equal_to<>()))
                                                  : 0;
                const bool ok = cck.checked > 0 && cck.failed == 0 && cck.worst <= 1.0 && differ == 0;
                const double cutUs = c->stageUs.back();
                char cbuf[600];
                std::snprintf(cbuf, sizeof cbuf,
                              "CUTLASS mixed-input GEMM on the INT4 codes as stored (%s; q → INT8 in registers, "
                              "wgmma s8·s8 → s32, epilogue (float(acc − z·Σx̂)·s_tok)·s_ch in one pass) + Σx̂ per "
                              "token (%.1f µs): %.1f µs; output %s against the FP64 Ŵ·X̂ on every element (%llu), "
                              "worst %.3g of the bound, %s",
                              launch::w4a8CutlassTileName(c->tile).c_str(), c->stageUs[0], cutUs,
                              ok ? "checked" : "CHECK FAILED", cck.checked, cck.worst,
                              !folded ? "no fold route to compare bits with"
                              : differ
                                  ? ("DIFFERS from the fold route's in " + std::to_string(differ) + " outputs").c_str()
                                  : "bit-identical to the fold route's");
                std::string cnote = cbuf + c->tuned;
                if (c->reorderUs >= 0) {
                    std::snprintf(cbuf, sizeof cbuf, "; tiles 3, 4 read W reordered once per weight (%.1f µs, untimed)",
                                  c->reorderUs);
                    cnote += cbuf;
                }
                // The point's check covers both outputs; a bit difference from the fold route fails it.
                const double cworst = cck.failed > 0 || differ > 0 ? std::max(cck.worst, 1.0 + 1e-9) : cck.worst;
                if (folded && cutUs >= folded->timeUs) {
                    std::snprintf(cbuf, sizeof cbuf, "route: the fold (%.1f µs) beat ", folded->timeUs);
                    folded->note = cbuf + cnote + "; the fold: " + folded->note;
                } else {
                    GemmPoint cp = folded ? *folded : points.back();
                    cp.format = kW4a8Int8FusedFormat;
                    cp.timeUs = cutUs;
                    setTimeSpread(cp, c->runs);
                    cp.coldUs = c->coldUs;
                    cp.epilogueUs = 0; // fused into the GEMM
                    setGemmRates(cp, 0);
                    std::snprintf(cbuf, sizeof cbuf, "route: CUTLASS (%.1f µs) ran, ", cutUs);
                    cp.note = cbuf + cnote;
                    if (folded) {
                        std::snprintf(cbuf, sizeof cbuf, "; it beat the fold (%.1f µs): ", folded->timeUs);
                        cp.note += cbuf + folded->note;
                    }
                    folded = std::move(cp);
                }
                for (auto &e : checks)
                    if (e.format == kW4a8Int8FusedFormat && e.m == m)
                        e.worst = std::max(e.worst, cworst);
                if (std::none_of(checks.begin(), checks.end(),
                                 [&](const GemmLabCheck &e) { return e.format == kW4a8Int8FusedFormat && e.m == m; }))
                    checks.push_back({kW4a8Int8FusedFormat, m,
                                      static_cast<int>(std::min<unsigned long long>(cck.checked, 1u << 30)), cworst});
            };
            const bool passed = ck.checked > 0 && ck.failed == 0 && ck.worst <= 1.0;
            GemmPoint p;
            p.format = name;
            p.m = m, p.n = n, p.k = k;
            p.timeUs = stageUs.back();
            setTimeSpread(p, runs);
            p.algoIndex = g->algoIndex;
            p.algosTried = g->algosTried;
            p.coldUs = coldUs;
            p.padded = mp != m;
            p.paddedM = mp;
            p.repeats = request.repeats;
            p.device = id;
            setGemmRates(p, f == GemmFormat::W4a16 ? (groups == 1 ? 0 : group) : 0);
            const double convUs = w8 ? 0.0 : stageUs[0];
            p.epilogueUs = (xInt8 || post) ? stageUs[stages - 1] : 0.0;
            char buf[200];
            if (f == GemmFormat::W4a16)
                std::snprintf(buf, sizeof buf,
                              "unfused: INT4→BF16 dequantize kernel (%s scales, %.1f µs) + cuBLASLt BF16 GEMM",
                              groups == 1 ? "per-channel" : ("g" + std::to_string(group)).c_str(), convUs);
            else if (xInt8)
                std::snprintf(
                    buf, sizeof buf,
                    "INT4→INT8 unpack + Σx per token (%.1f µs) + INT8 GEMM + epilogue s_tok·s_ch·(acc − z·Σx) "
                    "(%.1f µs)",
                    convUs, p.epilogueUs);
            else
                std::snprintf(buf, sizeof buf, "%sFP8 GEMM, row-wise scales: %s",
                              w8 ? "FP8 per-channel codes as stored + " : "",
                              vec ? "cuBLASLt outer-vector scale mode" : "FP32 out + post-scale kernel");
            p.note = buf;
            if (f == GemmFormat::W4a8Fp8) {
                std::snprintf(buf, sizeof buf, "INT4→E4M3 (q − z) kernel (%.1f µs) + ", convUs);
                p.note = buf + p.note;
            }
            if (post && !xInt8) {
                std::snprintf(buf, sizeof buf, " (%.1f µs of it)", p.epilogueUs);
                p.note += buf;
            }
            std::snprintf(buf, sizeof buf,
                          "; output %s against the FP64 Ŵ·X̂ on every element (%llu), worst %.3g of the bound",
                          passed ? "checked" : "CHECK FAILED", ck.checked, ck.worst);
            p.note += buf;
            std::snprintf(buf, sizeof buf, "; cuBLASLt algorithm %d of %zu (%d timed)", g->algoIndex, g->algos.size(),
                          g->algosTried);
            p.note += buf;
            if (copies > 1) {
                std::snprintf(buf, sizeof buf, "; %d rotating weight copies", copies);
                p.note += buf;
            }
            checks.push_back({p.format, m, static_cast<int>(std::min<unsigned long long>(ck.checked, 1u << 30)),
                              ck.failed > 0 ? std::max(ck.worst, 1.0 + 1e-9) : ck.worst});
            points.push_back(std::move(p));
            if (f == GemmFormat::W4a16) { // the fused kernel on the same operands (engine_gemmlab_fused.cpp)
                std::string whyNot;
                // The BF16 GEMM of this shape alone (the unfused route's tuned cuBLASLt plan on its
                // dequantized W): the fused kernel's pair at compute-bound M.
                const Step bf16 = [&](int, const std::vector<cudaEvent_t> &mk) {
                    QS_GPU_CHECK(cudaEventRecord(mk[0], s));
                    if (gemmOnce(Wc.get()) != CUBLAS_STATUS_SUCCESS)
                        return false;
                    QS_GPU_CHECK(cudaEventRecord(mk[1], s));
                    return true;
                };
                if (auto fused = timeFusedW4a16(I, request, *q, Wst, chScale, z8, X.get(), m, group, points.back(),
                                                mp == m ? &bf16 : nullptr, checks, whyNot))
                    points.push_back(std::move(*fused));
                else
                    points.back().note += "; no fused point: " + whyNot;
            }
            if (f == GemmFormat::W4a8Int8 || f == GemmFormat::W4a8Fp8) { // engine_gemmlab_w4a8.cpp
                // Above the fused kernel's M: INT4 → INT8 with z folded in (q − z, exact), the
                // same INT8 GEMM, the post-scale alone — no Σx, no zero-point term; the same
                // integers, so the same outputs. Timed and checked like the unfused route.
                std::optional<GemmPoint> folded;
                if (foldable && m > launch::kW4a8FusedMaxM) {
                    const Step foldStep = [&](int rep, const std::vector<cudaEvent_t> &mk) {
                        const void *Wstored = Wst[static_cast<std::size_t>(rep % copies)].get();
                        QS_GPU_CHECK(cudaEventRecord(mk[0], s));
                        if (!launch::labW4FoldInt8(static_cast<const std::uint8_t *>(Wstored), z8, n, k,
                                                   static_cast<std::int8_t *>(Wc.get()), s))
                            return false;
                        QS_GPU_CHECK(cudaEventRecord(mk[1], s));
                        if (gemmOnce(Wc.get()) != CUBLAS_STATUS_SUCCESS)
                            return false;
                        QS_GPU_CHECK(cudaEventRecord(mk[2], s));
                        launch::labPostScale(D.get(), true, tokScale, chScale, mp, n, out.get(), s);
                        QS_GPU_CHECK(cudaEventRecord(mk[3], s));
                        return true;
                    };
                    std::vector<double> foldRuns;
                    if (const auto ft = timeStep(foldStep, 3, request.warmup, request.repeats, s, &foldRuns)) {
                        {
                            Events ev(4);
                            foldStep(0, ev.ev);
                        }
                        const launch::LabCheckResult fck = checkOutput();
                        const bool ok = fck.checked > 0 && fck.failed == 0 && fck.worst <= 1.0;
                        GemmPoint fp = points.back();
                        fp.format = kW4a8Int8FusedFormat;
                        setTimeSpread(fp, foldRuns);
                        fp.coldUs = ft->second;
                        fp.epilogueUs = ft->first[2];
                        setGemmRates(fp, 0);
                        char fbuf[400];
                        std::snprintf(fbuf, sizeof fbuf,
                                      "INT4→INT8 with the zero point folded in (q − z, exact; %.1f µs) + cuBLASLt INT8 "
                                      "GEMM + post-scale s_tok·s_ch (%.1f µs), no Σx or zero-point term; output %s "
                                      "against the FP64 Ŵ·X̂ on every element (%llu), worst %.3g of the bound",
                                      ft->first[0], fp.epilogueUs, ok ? "checked" : "CHECK FAILED", fck.checked,
                                      fck.worst);
                        fp.note = fbuf;
                        checks.push_back({kW4a8Int8FusedFormat, m,
                                          static_cast<int>(std::min<unsigned long long>(fck.checked, 1u << 30)),
                                          fck.failed > 0 ? std::max(fck.worst, 1.0 + 1e-9) : fck.worst});
                        folded = std::move(fp);
                    }
                }
                if (foldable && m > launch::kW4a8FusedMaxM && launch::w4a8CutlassBuilt())
                    cutlassCandidate(folded, mp);
                std::string whyNot;
                if (auto fused = timeFusedW4a8(I, request, *q, !xInt8, Wst, chScale, z8, X.get(), tokScale, m, group,
                                               folded ? *folded : points.back(), checks, whyNot))
                    points.push_back(std::move(*fused));
                else
                    points.back().note += "; no fused point: " + whyNot;
            }
            done += gemmFlops(m, n, k) + 1e9;
        }
    }
    if (cancel)
        cancel->stepProgress(1.0);
    return points;
}

} // namespace quantscope::gpu
