// SPDX-License-Identifier: MIT
// The KV-cache lab on the device (core/kv/kv_lab.h KvLabAccelerator; docs/numerics.md "KV-cache
// lab"): K, V and the queries of every layer uploaded once as [L, Hkv, T, d] / [L, H, Q, d]; the
// reference attention (log P, P, o) computed once; per scheme pair one quantize launch per cache
// over all layers (kv_lab.cu, kv_math.h's functions: the CPU's x̂ bit for bit), the per-head SSE
// and the attention errors; the pow2 c curves by the c sweep's own device evaluator on the caches
// rotated by the device Hadamard kernel (both bit-identical to the CPU).
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "device_pool.h"
#include "kernels_kv.h"
#include "kernels_sweep.h"
#include "kv/kv_lab.h"
#include "kv/kv_math.h"
#include "numeric/fp4math.h"
#include "numeric/hadamard.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

static_assert(static_cast<int>(KvMethod::Bf16) == 0 && static_cast<int>(KvMethod::Fp8) == 1 &&
                  static_cast<int>(KvMethod::Codebook) == 2 && static_cast<int>(KvMethod::ConstOpt) == 3 &&
                  static_cast<int>(KvMethod::MxFp4) == 4 && static_cast<int>(KvMethod::NvFp4) == 5 &&
                  static_cast<int>(KvMethod::Int4) == 6,
              "kv_lab.cu numbers the methods as KvMethod does");

class GpuKvLab final : public KvLabAccelerator {
public:
    GpuKvLab(Engine &engine, Engine::Impl &impl, const KvData &data, const std::vector<std::int64_t> &rows)
        : m_engine(engine), m_impl(impl)
    {
        Engine::Impl &I = m_impl;
        L = static_cast<std::int64_t>(data.layers.size());
        Hkv = data.kvHeads;
        T = data.tokens;
        d = data.headDim;
        H = data.heads;
        Q = data.queries;
        m_block = kvRotationBlock(d);
        m_r = hadamardNorm(m_block);
        if (d > launch::kKvMaxDim)
            throw GpuError("head_dim " + std::to_string(d) + " exceeds the device KV kernels' " +
                           std::to_string(launch::kKvMaxDim));
        if (m_block > launch::kMaxHadamard)
            throw GpuError("the rotation block " + std::to_string(m_block) + " exceeds the device's " +
                           std::to_string(launch::kMaxHadamard));
        const std::size_t per = static_cast<std::size_t>(Hkv * T * d), n = per * static_cast<std::size_t>(L);
        m_k = alloc(n * 4);
        m_v = alloc(n * 4);
        m_kq = alloc(n * 4);
        m_vq = alloc(n * 4);
        m_kRot = alloc(n * 4);
        m_vRot = alloc(n * 4);
        m_unitRot = alloc(n * 4);
        m_unitRotV = alloc(n * 4);
        const std::int64_t segs = L * Hkv;
        auto amax = alloc(static_cast<std::size_t>(2 * segs) * 4);
        m_prep = alloc(static_cast<std::size_t>(1 + 4 * prepParts() + 2 * L) * 8);
        m_hist = alloc(static_cast<std::size_t>((2 * L + 2) * 3 * launch::kKvBins) * 8);
        QS_GPU_CHECK(qsMemsetAsync(m_prep.get(), 0, 8, I.stream)); // the norm change's max
        QS_GPU_CHECK(
            qsMemsetAsync(m_hist.get(), 0, static_cast<std::size_t>(2 * L * 3 * launch::kKvBins) * 8, I.stream));
        // The capture travels a few layers at a time; the preparation of those layers (absmax,
        // rotations, unit rows, norm change, moments, histograms) is queued behind them, so the
        // device works while the host copies the next layers into the staging buffers.
        const std::int64_t step = std::max<std::int64_t>(1, (L + 5) / 6);
        auto scratch = alloc(static_cast<std::size_t>(step) * per * 4);
        for (std::int64_t l0 = 0; l0 < L; l0 += step) {
            const std::int64_t l1 = std::min(L, l0 + step);
            for (std::int64_t li = l0; li < l1; ++li) {
                const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
                I.copyToDevice(fk(m_k) + li * static_cast<std::int64_t>(per), l.k.data(), per * 4);
                I.copyToDevice(fk(m_v) + li * static_cast<std::int64_t>(per), l.v.data(), per * 4);
            }
            prepareLayers(l0, l1, static_cast<float *>(amax.get()), fk(scratch));
        }

        // The evaluated queries: their causal ranges (kv_lab.cpp attnRef's rule).
        if (Q > 0 && H > 0 && !rows.empty()) {
            std::vector<long long> qIdx, start, count, offset, qRow;
            for (const std::int64_t i : rows) {
                const std::int64_t s0 = data.segment > 0 ? i / data.segment * data.segment : 0;
                const std::int64_t cnt = std::min(i, T - 1) - s0 + 1;
                if (cnt <= 0)
                    continue;
                qRow.push_back(static_cast<long long>(qIdx.size()));
                qIdx.push_back(i);
                start.push_back(s0);
                count.push_back(cnt);
                offset.push_back(m_perHead);
                m_perHead += cnt;
            }
            m_nq = static_cast<int>(qIdx.size());
            if (m_nq > 0) {
                // Only the evaluated queries travel: [L, H, nq, d], gathered on the host.
                const std::size_t nqd = static_cast<std::size_t>(m_nq * d);
                std::vector<float> qs(static_cast<std::size_t>(L * H) * nqd);
                for (std::int64_t li = 0; li < L; ++li)
                    for (std::int64_t h = 0; h < H; ++h)
                        for (int i = 0; i < m_nq; ++i) {
                            const float *src = data.layers[static_cast<std::size_t>(li)].q.data() +
                                               (h * Q + qIdx[static_cast<std::size_t>(i)]) * d;
                            std::copy(src, src + d,
                                      qs.begin() +
                                          static_cast<std::ptrdiff_t>(static_cast<std::size_t>(li * H + h) * nqd +
                                                                      static_cast<std::size_t>(i * d)));
                        }
                m_q = alloc(qs.size() * 4);
                I.copyToDevice(m_q.get(), qs.data(), qs.size() * 4);
                m_idx = alloc(static_cast<std::size_t>(5 * m_nq) * 8);
                auto *ip = static_cast<long long *>(m_idx.get());
                std::vector<long long> idx;
                for (const auto *v : {&qIdx, &start, &count, &offset, &qRow})
                    idx.insert(idx.end(), v->begin(), v->end());
                I.copyToDevice(ip, idx.data(), idx.size() * 8);
                const std::size_t scores = static_cast<std::size_t>(L * H * m_perHead) * 8;
                m_lp = alloc(scores);
                m_p = alloc(scores);
                m_lq = alloc(scores);
                m_o = alloc(static_cast<std::size_t>(L * H * m_nq * d) * 8);
                m_perQuery = alloc(static_cast<std::size_t>(L * H * m_nq * 4) * 8);
                launch::KvAttnArgs a = attnArgs(fk(m_k), fk(m_v));
                launch::kvAttentionRef(a, I.S());
            }
        }
        // Per-head absmax of K and V (exact), for the FP8 and NVFP4 scales; the one wait.
        std::vector<float> am(static_cast<std::size_t>(2 * segs));
        QS_GPU_CHECK(qsMemcpyAsync(am.data(), amax.get(), am.size() * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        m_kAmax.assign(am.begin(), am.begin() + segs);
        m_vAmax.assign(am.begin() + segs, am.end());
    }

    std::vector<double> rotatedCurve(KvRole role, std::int64_t layer, const std::vector<double> &cs) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        std::shared_ptr<void> &rot = rotated(role);
        if (layer >= 0)
            return I.sweepCurves({{fk(rot) + layer * Hkv * T * d, Hkv * T, d}}, kvmath::kGroup, true, cs).at(0);
        std::unique_ptr<CSweepGridEvaluator> &ev = m_allEv[role == KvRole::K ? 0 : 1];
        if (!ev) // one evaluator per cache for every grid (exact sums: the same bits as one per grid)
            ev = m_engine.sweepEvaluator(
                std::make_shared<GpuTensor>(Shape{L * Hkv * T, d}, DType::F32, DType::F32, rot.get(),
                                            std::string(role == KvRole::K ? "rotated keys" : "rotated values"), rot),
                kvmath::kGroup, true);
        return ev->mse(cs, nullptr);
    }

    std::vector<std::vector<double>> layerCurves(KvRole role, std::int64_t layers,
                                                 const std::vector<double> &cs) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        if (layers != L)
            throw UnsupportedError("the KV lab's device curves cover every layer");
        const float *rot = fk(rotated(role));
        std::vector<Engine::Impl::SweepRows> xs;
        for (std::int64_t li = 0; li < L; ++li)
            xs.push_back({rot + li * Hkv * T * d, Hkv * T, d});
        return I.sweepCurves(xs, kvmath::kGroup, true, cs);
    }

    std::vector<double> unitKeysCurve(const std::vector<double> &cs, bool pow2) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t rowsAll = L * Hkv * T;
        const std::shared_ptr<void> &unitK = unitRotated(KvRole::K);
        std::unique_ptr<CSweepGridEvaluator> &ev = m_unitEv[pow2 ? 1 : 0];
        if (!ev)
            ev = m_engine.sweepEvaluator(std::make_shared<GpuTensor>(Shape{rowsAll, d}, DType::F32, DType::F32,
                                                                     unitK.get(), std::string("unit keys"), unitK),
                                         kvmath::kGroup, pow2);
        return ev->mse(cs, nullptr);
    }

    KvPrepared prepare(const std::function<std::vector<double>()> &theoryLevels) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t layerLen = Hkv * T * d;
        KvPrepared out;
        // The constructor queued the per-layer parts (prepareLayers); here the shared histograms,
        // the prefix sums and the Lloyd fits, then one read of everything.
        const std::size_t parts = static_cast<std::size_t>(prepParts());
        auto *normErr = static_cast<double *>(m_prep.get());
        double *part2K = normErr + 1 + 2 * parts;
        constexpr long long B = launch::kKvBins;
        constexpr int chunks = kPrepChunks;
        const long long hists = 2 * L + 2;
        auto prefix = alloc(static_cast<std::size_t>(hists * 3 * (B + 1)) * 8);
        auto *h = static_cast<double *>(m_hist.get());
        launch::kvHistogramSum(h, L, h + 2 * L * 3 * B, I.S());
        launch::kvHistogramSum(h + L * 3 * B, L, h + (2 * L + 1) * 3 * B, I.S());
        launch::kvHistogramPrefix(h, hists * 3, static_cast<double *>(prefix.get()), I.S());
        const std::vector<double> theory = theoryLevels(); // the host's part, while the device works
        if (theory.size() != 16)
            throw UnsupportedError("a codebook has 16 levels");
        auto fitMem = alloc(static_cast<std::size_t>(hists) * sizeof(kvlloyd::Fit) + 16 * 8);
        auto *init = reinterpret_cast<double *>(static_cast<char *>(fitMem.get()) + hists * sizeof(kvlloyd::Fit));
        QS_GPU_CHECK(qsMemcpyAsync(init, theory.data(), 16 * 8, qsMemcpyHostToDevice, I.stream));
        auto *fits = static_cast<kvlloyd::Fit *>(fitMem.get());
        launch::kvLloyd(static_cast<double *>(prefix.get()), static_cast<int>(hists), init, 1e-9, 1000, fits, I.S());
        std::vector<kvlloyd::Fit> hf(static_cast<std::size_t>(hists));
        std::vector<double> host2(2 * parts);
        QS_GPU_CHECK(qsMemcpyAsync(host2.data(), part2K, host2.size() * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(&out.rotationNormError, normErr, 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(hf.data(), fits, hf.size() * sizeof(kvlloyd::Fit), qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        const double n = static_cast<double>(layerLen);
        for (int w = 0; w < 2; ++w)
            for (std::int64_t li = 0; li < L; ++li) {
                const double *p = host2.data() + static_cast<std::size_t>(w) * parts;
                double m2 = 0, m4 = 0;
                for (int c = 0; c < chunks; ++c) {
                    m2 += p[(li * chunks + c) * 2];
                    m4 += p[(li * chunks + c) * 2 + 1];
                }
                m2 /= n;
                m4 /= n;
                (w == 0 ? out.kurtosisBefore : out.kurtosisAfter).push_back(m2 > 0 ? m4 / (m2 * m2) - 3 : 0);
            }
        for (std::int64_t li = 0; li < L; ++li) {
            out.kLayer.push_back(toCodebookFit(hf[static_cast<std::size_t>(li)]));
            out.vLayer.push_back(toCodebookFit(hf[static_cast<std::size_t>(L + li)]));
        }
        out.kShared = toCodebookFit(hf[static_cast<std::size_t>(2 * L)]);
        out.vShared = toCodebookFit(hf[static_cast<std::size_t>(2 * L + 1)]);
        return out;
    }

    std::vector<double> unroundedKeysCurve(const std::vector<double> &cs) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t rowsAll = L * Hkv * T;
        constexpr long long B = launch::kKvBins;
        const std::size_t nc = cs.size();
        auto mem = alloc(static_cast<std::size_t>(3 * B) * 8 + nc * 12);
        auto *h = static_cast<double *>(mem.get());
        auto *sse = h + 3 * B;
        auto *fc = reinterpret_cast<float *>(sse + nc);
        std::vector<float> f;
        for (const double c : cs)
            f.push_back(static_cast<float>(c));
        QS_GPU_CHECK(qsMemsetAsync(h, 0, static_cast<std::size_t>(3 * B) * 8, I.stream));
        QS_GPU_CHECK(qsMemcpyAsync(fc, f.data(), nc * 4, qsMemcpyHostToDevice, I.stream));
        launch::kvUnroundedHistogram(fk(rotated(KvRole::K)), rowsAll, d, h, I.S());
        launch::kvUnroundedCurve(h, fc, static_cast<int>(nc), sse, I.S());
        std::vector<double> out(nc);
        QS_GPU_CHECK(qsMemcpyAsync(out.data(), sse, nc * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        for (double &v : out)
            v = std::max(0.0, v) / static_cast<double>(rowsAll * d);
        return out;
    }

    std::unique_ptr<KvRowsEvaluator> rowsEvaluator(const std::vector<float> &u, std::int64_t dd) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        if (dd <= 0 || u.size() % static_cast<std::size_t>(dd) != 0)
            throw UnsupportedError("the rows' length is not a multiple of their dimension");
        auto mem = alloc(u.size() * 4);
        I.copyToDevice(mem.get(), u.data(), u.size() * 4);
        auto x = std::make_shared<GpuTensor>(Shape{static_cast<std::int64_t>(u.size()) / dd, dd}, DType::F32,
                                             DType::F32, mem.get(), std::string("unit vectors"), mem);
        return std::make_unique<Rows>(m_engine, std::move(x));
    }

    std::vector<double> meanSquares(KvRole role) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        if (m_mean2[0].empty()) { // K and V at once, one wait
            const std::int64_t segs = L * Hkv;
            auto mem = alloc(static_cast<std::size_t>(2 * segs * (1 + launch::kKvSseChunks)) * 8);
            auto *sum = static_cast<double *>(mem.get());
            double *part = sum + 2 * segs;
            launch::kvSegmentSse(fk(m_k), nullptr, segs, T * d, part, sum, I.S());
            launch::kvSegmentSse(fk(m_v), nullptr, segs, T * d, part + segs * launch::kKvSseChunks, sum + segs, I.S());
            std::vector<double> seg(static_cast<std::size_t>(2 * segs));
            QS_GPU_CHECK(qsMemcpyAsync(seg.data(), sum, seg.size() * 8, qsMemcpyDeviceToHost, I.stream));
            QS_GPU_CHECK(qsStreamSynchronize(I.stream));
            for (int w = 0; w < 2; ++w)
                for (std::int64_t li = 0; li < L; ++li) {
                    double s = 0;
                    for (std::int64_t h = 0; h < Hkv; ++h)
                        s += seg[static_cast<std::size_t>(w * segs + li * Hkv + h)];
                    m_mean2[w].push_back(Hkv * T * d > 0 ? s / static_cast<double>(Hkv * T * d) : 0);
                }
        }
        return m_mean2[role == KvRole::K ? 0 : 1];
    }

    std::vector<KvSchemeLayer> runScheme(const std::vector<KvLayerJob> &jobs) override
    {
        return runSchemes({jobs}).at(0);
    }

    std::vector<std::vector<KvSchemeLayer>> runSchemes(const std::vector<std::vector<KvLayerJob>> &pairs) override
    {
        for (const auto &jobs : pairs)
            if (static_cast<std::int64_t>(jobs.size()) != L)
                throw UnsupportedError("the KV lab's device run needs one job per layer");
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t segs = L * Hkv, heads = L * H;
        const std::size_t P = pairs.size();
        // Every pair's parameters in one upload; per pair its SSEs and attention sums on the device,
        // all read back at the end (one wait for all pairs).
        std::vector<Params> hp;
        for (const auto &jobs : pairs) {
            hp.push_back(params(jobs, KvRole::K));
            hp.push_back(params(jobs, KvRole::V));
        }
        std::vector<DeviceParams> dp = upload(hp);
        const std::size_t perPair = static_cast<std::size_t>(2 * segs + 4 * heads);
        auto res = alloc(P * perPair * 8);
        const std::size_t partLen = static_cast<std::size_t>(2 * segs * launch::kKvSseChunks);
        auto sse = alloc(2 * partLen * 8);
        auto *dres = static_cast<double *>(res.get());
        // Two sets of x̂ and attention scratch: the pairs alternate between the engine's stream and
        // an auxiliary one, so one pair's small kernels and last wave overlap the other's work.
        // The second set is optional: where the device lacks room for it, one set serves every pair.
        int sets = P > 1 ? 2 : 1;
        if (sets == 2 && !m_kq2) {
            try {
                const std::size_t n = static_cast<std::size_t>(L * Hkv * T * d);
                m_kq2 = alloc(n * 4);
                m_vq2 = alloc(n * 4);
                if (m_nq > 0) {
                    m_lq2 = alloc(static_cast<std::size_t>(L * H * m_perHead) * 8);
                    m_perQuery2 = alloc(static_cast<std::size_t>(L * H * m_nq * 4) * 8);
                }
            } catch (const GpuError &) {
                m_kq2.reset();
                m_vq2.reset();
                m_lq2.reset();
                m_perQuery2.reset();
                sets = 1;
            }
        }
        if (sets == 2)
            I.forkAux(1);
        launch::KvQuantArgs a;
        a.layers = L;
        a.heads = Hkv;
        a.tokens = T;
        a.dim = d;
        a.block = static_cast<int>(m_block);
        a.r = m_r;
        for (std::size_t p = 0; p < P; ++p) {
            const int set = sets == 2 ? static_cast<int>(p % 2) : 0;
            void *st = set ? I.aux[0] : I.S();
            float *kq = fk(set ? m_kq2 : m_kq), *vq = fk(set ? m_vq2 : m_vq);
            double *ds = dres + p * perPair, *part = static_cast<double *>(sse.get()) + set * partLen;
            bind(a, dp[2 * p], fk(m_k), kq);
            launch::kvQuantize(a, st);
            bind(a, dp[2 * p + 1], fk(m_v), vq);
            launch::kvQuantize(a, st);
            launch::kvSegmentSse(fk(m_k), kq, segs, T * d, part, ds, st);
            launch::kvSegmentSse(fk(m_v), vq, segs, T * d, part + segs * launch::kKvSseChunks, ds + segs, st);
            if (m_nq > 0) {
                launch::KvAttnArgs at = attnArgs(kq, vq);
                if (set) {
                    at.lq = static_cast<double *>(m_lq2.get());
                    at.perQuery = static_cast<double *>(m_perQuery2.get());
                }
                launch::kvAttentionErr(at, st);
                launch::kvAttentionSummary(at.perQuery, heads, m_nq, ds + 2 * segs, st);
            }
            m_lastSet = set;
        }
        if (sets == 2)
            I.joinAux(1);
        std::vector<double> hs(P * perPair);
        QS_GPU_CHECK(qsMemcpyAsync(hs.data(), dres, hs.size() * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        const double n = static_cast<double>(T * d);
        std::vector<std::vector<KvSchemeLayer>> all;
        for (std::size_t p = 0; p < P; ++p) {
            const double *h0 = hs.data() + p * perPair;
            std::vector<KvSchemeLayer> out(static_cast<std::size_t>(L));
            for (std::int64_t li = 0; li < L; ++li) {
                KvSchemeLayer &o = out[static_cast<std::size_t>(li)];
                for (std::int64_t h = 0; h < Hkv; ++h) {
                    o.kMse.push_back(T * d > 0 ? h0[li * Hkv + h] / n : 0);
                    o.vMse.push_back(T * d > 0 ? h0[segs + li * Hkv + h] / n : 0);
                }
                if (Q > 0) // the CPU's rule: one entry per query head, empty when no query has keys
                    for (std::int64_t h = 0; h < H; ++h)
                        o.attention.push_back(m_nq > 0 ? attention(h0 + 2 * segs + (li * H + h) * 4)
                                                       : KvAttentionError{});
            }
            all.push_back(std::move(out));
        }
        return all;
    }

    std::vector<float> dequantized(KvRole role, std::int64_t layer) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t per = Hkv * T * d;
        std::vector<float> out(static_cast<std::size_t>(per));
        const std::shared_ptr<void> &x =
            role == KvRole::K ? (m_lastSet ? m_kq2 : m_kq) : (m_lastSet ? m_vq2 : m_vq); // the last pair's set
        QS_GPU_CHECK(qsMemcpyAsync(out.data(), fk(x) + layer * per, out.size() * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        return out;
    }

private:
    struct Params {
        std::vector<int> mode;
        std::vector<float> param, levels, bounds;
    };

    /// The rotated K or V of all layers (made by the constructor).
    std::shared_ptr<void> &rotated(KvRole role) { return role == KvRole::K ? m_kRot : m_vRot; }

    /// K or V scaled to unit length per token, then rotated (kv_lab.cpp unitRotated; made by the
    /// constructor).
    std::shared_ptr<void> &unitRotated(KvRole role) { return role == KvRole::K ? m_unitRot : m_unitRotV; }

    static constexpr int kPrepChunks = 64; ///< kvMoments' chunks per layer
    std::int64_t prepParts() const { return L * kPrepChunks * 2; }

    /// The preparation of layers [l0, l1) once they are on the device (queued, no wait): per-head
    /// absmax of K and V into amax [K: L·Hkv, V: L·Hkv]; the rotated K and V; the unit rotated K
    /// and V (through `scratch`, [l1 − l0] layers); the rotation's norm change; K's moments before
    /// and after the rotation (two passes, the means on the device); the unit histograms per layer.
    void prepareLayers(std::int64_t l0, std::int64_t l1, float *amax, float *scratch)
    {
        Engine::Impl &I = m_impl;
        const std::int64_t nl = l1 - l0, layerLen = Hkv * T * d, off = l0 * layerLen, rows = nl * Hkv * T;
        const std::int64_t segs = L * Hkv, parts = prepParts();
        constexpr long long B = launch::kKvBins;
        constexpr int chunks = kPrepChunks;
        launch::kvAbsmax(fk(m_k) + off, nl * Hkv, T * d, amax + l0 * Hkv, I.S());
        launch::kvAbsmax(fk(m_v) + off, nl * Hkv, T * d, amax + segs + l0 * Hkv, I.S());
        const int blk = static_cast<int>(m_block);
        launch::hadamardRows(kInF32, fk(m_k) + off, rows, d, blk, m_r, fk(m_kRot) + off, I.S());
        launch::hadamardRows(kInF32, fk(m_v) + off, rows, d, blk, m_r, fk(m_vRot) + off, I.S());
        launch::kvUnitRows(fk(m_k) + off, rows, d, scratch, I.S());
        launch::hadamardRows(kInF32, scratch, rows, d, blk, m_r, fk(m_unitRot) + off, I.S());
        launch::kvUnitRows(fk(m_v) + off, rows, d, scratch, I.S());
        launch::hadamardRows(kInF32, scratch, rows, d, blk, m_r, fk(m_unitRotV) + off, I.S());
        auto *normErr = static_cast<double *>(m_prep.get());
        double *partK = normErr + 1, *partR = partK + parts, *part2K = partR + parts, *part2R = part2K + parts;
        double *means = part2R + parts;
        const std::int64_t at = l0 * chunks * 2;
        launch::kvNormChange(fk(m_k) + off, fk(m_kRot) + off, rows, d, normErr, I.S());
        launch::kvMoments(fk(m_k) + off, nl, layerLen, chunks, nullptr, partK + at, I.S());
        launch::kvMoments(fk(m_kRot) + off, nl, layerLen, chunks, nullptr, partR + at, I.S());
        launch::kvSegmentMeans(partK + at, nl, chunks, layerLen, means + l0, I.S());
        launch::kvSegmentMeans(partR + at, nl, chunks, layerLen, means + L + l0, I.S());
        launch::kvMoments(fk(m_k) + off, nl, layerLen, chunks, means + l0, part2K + at, I.S());
        launch::kvMoments(fk(m_kRot) + off, nl, layerLen, chunks, means + L + l0, part2R + at, I.S());
        auto *h = static_cast<double *>(m_hist.get());
        launch::kvUnitHistogram(fk(m_unitRot) + off, nl, layerLen, h + l0 * 3 * B, I.S());
        launch::kvUnitHistogram(fk(m_unitRotV) + off, nl, layerLen, h + (L + l0) * 3 * B, I.S());
    }

    /// rowsEvaluator's result: the pow2 and unrounded evaluators made on first use.
    class Rows final : public KvRowsEvaluator {
    public:
        Rows(Engine &e, std::shared_ptr<GpuTensor> x) : m_e(e), m_x(std::move(x)) {}
        std::vector<double> curve(const std::vector<double> &cs, bool pow2) override
        {
            auto &ev = m_ev[pow2 ? 1 : 0];
            if (!ev)
                ev = m_e.sweepEvaluator(m_x, kvmath::kGroup, pow2);
            return ev->mse(cs, nullptr);
        }

    private:
        Engine &m_e;
        std::shared_ptr<GpuTensor> m_x;
        std::unique_ptr<CSweepGridEvaluator> m_ev[2];
    };

    std::shared_ptr<void> alloc(std::size_t bytes)
    {
        return poolGet(m_impl.pool, std::max<std::size_t>(bytes, 64), "the KV lab");
    }
    static float *fk(const std::shared_ptr<void> &p) { return static_cast<float *>(p.get()); }

    /// kv_lab.cpp attnAgainst's accumulation over the queries of one head, from the sums over its
    /// queries (kvAttentionSummary: Σ max(0, KL), max |ΔP|, Σ err, Σ ref, in query order).
    KvAttentionError attention(const double *sum) const
    {
        KvAttentionError e;
        e.queries = m_nq;
        e.scoreMaxErr = sum[1];
        if (e.queries > 0) {
            e.kl = sum[0] / static_cast<double>(e.queries);
            e.outMse = sum[2] / static_cast<double>(e.queries * d);
            e.outRel = sum[3] > 0 ? sum[2] / sum[3] : 0;
        }
        return e;
    }

    launch::KvAttnArgs attnArgs(const float *k, const float *v) const
    {
        launch::KvAttnArgs a;
        a.layers = L;
        a.kvHeads = Hkv;
        a.heads = H;
        a.queries = m_nq; // the uploaded rows: the evaluated queries only
        a.tokens = T;
        a.dim = d;
        a.scale = 1 / std::sqrt(static_cast<double>(d));
        a.nq = m_nq;
        const auto *ip = static_cast<const long long *>(m_idx.get());
        a.qIdx = ip;
        a.start = ip + m_nq;
        a.count = ip + 2 * m_nq;
        a.offset = ip + 3 * m_nq;
        a.qRow = ip + 4 * m_nq;
        a.perHead = m_perHead;
        a.q = fk(m_q);
        a.k = k;
        a.v = v;
        a.lp = static_cast<double *>(m_lp.get());
        a.p = static_cast<double *>(m_p.get());
        a.o = static_cast<double *>(m_o.get());
        a.lq = static_cast<double *>(m_lq.get());
        a.perQuery = static_cast<double *>(m_perQuery.get());
        return a;
    }

    /// The per-layer mode, scale parameter and codebook of one role (kv_schemes.cpp kvQuantize's
    /// constants, by kv_math.h's functions).
    Params params(const std::vector<KvLayerJob> &jobs, KvRole role) const
    {
        Params p;
        const bool isK = role == KvRole::K;
        const std::vector<float> &amax = isK ? m_kAmax : m_vAmax;
        p.levels.assign(static_cast<std::size_t>(L * 16), 0.0f);
        p.bounds.assign(static_cast<std::size_t>(L * 15), 0.0f);
        for (std::int64_t li = 0; li < L; ++li) {
            const KvLayerJob &j = jobs[static_cast<std::size_t>(li)];
            const KvScheme &s = isK ? j.k : j.v;
            const KvLayerContext &c = isK ? j.kc : j.vc;
            if (s.rotates() && m_block < 2)
                throw UnsupportedError("head_dim " + std::to_string(d) + " is odd: the " + s.name() +
                                       " scheme needs a Walsh–Hadamard rotation over a power-of-two block");
            int mode = static_cast<int>(s.method);
            if (s.method == KvMethod::Codebook && s.codebook != KvCodebook::NoRot)
                mode |= launch::kKvRotate;
            if (s.method == KvMethod::ConstOpt && s.unrounded)
                mode |= launch::kKvUnrounded;
            if (s.method == KvMethod::Int4 && isK)
                mode |= launch::kKvPerChannel;
            p.mode.push_back(mode);
            float layerAmax = 0;
            for (std::int64_t h = 0; h < Hkv; ++h)
                layerAmax = kvmath::maxf(layerAmax, amax[static_cast<std::size_t>(li * Hkv + h)]);
            for (std::int64_t h = 0; h < Hkv; ++h) {
                float v = 0;
                if (s.method == KvMethod::Fp8) {
                    if (s.fp8 == KvFp8Rule::Head)
                        v = kvmath::fdiv(amax[static_cast<std::size_t>(li * Hkv + h)], 448.0f);
                    else if (s.fp8 == KvFp8Rule::Unit)
                        v = 1.0f;
                    else
                        v = kvmath::fdiv(layerAmax, kvmath::fp8Divisor(s.fp8 == KvFp8Rule::Vllm, isK));
                } else if (s.method == KvMethod::NvFp4) {
                    v = fp4::nvGlobalScale(layerAmax);
                } else if (s.method == KvMethod::ConstOpt) {
                    v = static_cast<float>(c.c);
                }
                p.param.push_back(v);
            }
            if (s.method == KvMethod::Codebook) {
                if (c.levels.size() != 16)
                    throw UnsupportedError("the codebook scheme needs 16 levels");
                for (int i = 0; i < 16; ++i)
                    p.levels[static_cast<std::size_t>(li * 16 + i)] =
                        static_cast<float>(c.levels[static_cast<std::size_t>(i)]);
                for (int i = 0; i < 15; ++i)
                    p.bounds[static_cast<std::size_t>(li * 15 + i)] = static_cast<float>(
                        (c.levels[static_cast<std::size_t>(i)] + c.levels[static_cast<std::size_t>(i) + 1]) / 2);
            }
        }
        return p;
    }

    struct DeviceParams {
        int *mode = nullptr;
        float *param = nullptr, *levels = nullptr, *bounds = nullptr;
    };

    /// Every Params in one pageable upload (each array 256-byte aligned).
    std::vector<DeviceParams> upload(const std::vector<Params> &ps)
    {
        const auto pad = [](std::size_t x) { return (x + 255) & ~std::size_t{255}; };
        std::vector<char> blob;
        std::vector<std::size_t> at;
        auto put = [&](const void *src, std::size_t bytes) {
            at.push_back(blob.size());
            blob.resize(blob.size() + pad(bytes), 0);
            if (bytes > 0)
                std::memcpy(blob.data() + at.back(), src, bytes);
        };
        for (const Params &p : ps) {
            put(p.mode.data(), p.mode.size() * 4);
            put(p.param.data(), p.param.size() * 4);
            put(p.levels.data(), p.levels.size() * 4);
            put(p.bounds.data(), p.bounds.size() * 4);
        }
        m_params = alloc(blob.size());
        auto *base = static_cast<char *>(m_params.get());
        QS_GPU_CHECK(qsMemcpyAsync(base, blob.data(), blob.size(), qsMemcpyHostToDevice, m_impl.stream));
        std::vector<DeviceParams> out(ps.size());
        for (std::size_t i = 0; i < ps.size(); ++i) {
            out[i].mode = reinterpret_cast<int *>(base + at[4 * i]);
            out[i].param = reinterpret_cast<float *>(base + at[4 * i + 1]);
            out[i].levels = reinterpret_cast<float *>(base + at[4 * i + 2]);
            out[i].bounds = reinterpret_cast<float *>(base + at[4 * i + 3]);
        }
        return out;
    }

    static void bind(launch::KvQuantArgs &a, const DeviceParams &p, const float *x, float *out)
    {
        a.x = x;
        a.out = out;
        a.mode = p.mode;
        a.param = p.param;
        a.levels = p.levels;
        a.bounds = p.bounds;
    }

    Engine &m_engine;
    Engine::Impl &m_impl;
    std::int64_t L = 0, Hkv = 0, T = 0, d = 0, H = 0, Q = 0;
    std::int64_t m_block = 1;
    float m_r = 1;
    std::shared_ptr<void> m_k, m_v, m_kq, m_vq, m_q, m_kRot, m_vRot, m_unitRot, m_unitRotV;
    std::vector<float> m_kAmax, m_vAmax;
    std::vector<double> m_mean2[2];                   ///< mean x² per layer of K, V (meanSquares)
    std::unique_ptr<CSweepGridEvaluator> m_allEv[2];  ///< rotated K, V of all layers
    std::unique_ptr<CSweepGridEvaluator> m_unitEv[2]; ///< unit keys: unrounded, pow2
    std::shared_ptr<void> m_params;                   ///< the last runSchemes' parameters
    std::shared_ptr<void> m_prep, m_hist;             ///< prepareLayers' sums and the unit histograms (2L + 2)
    int m_nq = 0;
    long long m_perHead = 0;
    std::shared_ptr<void> m_idx, m_lp, m_p, m_lq, m_o, m_perQuery;
    std::shared_ptr<void> m_kq2, m_vq2, m_lq2, m_perQuery2; ///< runSchemes' second set
    int m_lastSet = 0;                                      ///< the set holding the last pair's x̂
};

} // namespace

std::unique_ptr<KvLabAccelerator> Engine::kvLab(const KvData &data, const std::vector<std::int64_t> &rows)
{
    std::lock_guard lock(m_impl->mutex);
    QS_GPU_CHECK(qsSetDevice(m_impl->device));
    return std::make_unique<GpuKvLab>(*this, *m_impl, data, rows);
}

} // namespace quantscope::gpu
