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
        for (std::int64_t li = 0; li < L; ++li) {
            const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
            I.copyToDevice(fk(m_k) + li * static_cast<std::int64_t>(per), l.k.data(), per * 4);
            I.copyToDevice(fk(m_v) + li * static_cast<std::int64_t>(per), l.v.data(), per * 4);
        }
        // Per-head absmax of K and V (exact), for the FP8 and NVFP4 scales.
        const std::int64_t segs = L * Hkv;
        auto amax = alloc(static_cast<std::size_t>(2 * segs) * 4);
        launch::kvAbsmax(fk(m_k), segs, T * d, static_cast<float *>(amax.get()), I.S());
        launch::kvAbsmax(fk(m_v), segs, T * d, static_cast<float *>(amax.get()) + segs, I.S());
        std::vector<float> am(static_cast<std::size_t>(2 * segs));
        QS_GPU_CHECK(qsMemcpyAsync(am.data(), amax.get(), am.size() * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        m_kAmax.assign(am.begin(), am.begin() + segs);
        m_vAmax.assign(am.begin() + segs, am.end());

        // The evaluated queries: their causal ranges (kv_lab.cpp attnRef's rule).
        if (Q > 0 && H > 0 && !rows.empty()) {
            std::vector<long long> qIdx, start, count, offset;
            for (const std::int64_t i : rows) {
                const std::int64_t s0 = data.segment > 0 ? i / data.segment * data.segment : 0;
                const std::int64_t cnt = std::min(i, T - 1) - s0 + 1;
                if (cnt <= 0)
                    continue;
                qIdx.push_back(i);
                start.push_back(s0);
                count.push_back(cnt);
                offset.push_back(m_perHead);
                m_perHead += cnt;
            }
            m_nq = static_cast<int>(qIdx.size());
            if (m_nq > 0) {
                const std::size_t qn = static_cast<std::size_t>(H * Q * d);
                m_q = alloc(qn * static_cast<std::size_t>(L) * 4);
                for (std::int64_t li = 0; li < L; ++li)
                    I.copyToDevice(fk(m_q) + li * static_cast<std::int64_t>(qn),
                                   data.layers[static_cast<std::size_t>(li)].q.data(), qn * 4);
                m_idx = alloc(static_cast<std::size_t>(4 * m_nq) * 8);
                auto *ip = static_cast<long long *>(m_idx.get());
                const std::size_t nb = static_cast<std::size_t>(m_nq) * 8;
                QS_GPU_CHECK(qsMemcpyAsync(ip, qIdx.data(), nb, qsMemcpyHostToDevice, I.stream));
                QS_GPU_CHECK(qsMemcpyAsync(ip + m_nq, start.data(), nb, qsMemcpyHostToDevice, I.stream));
                QS_GPU_CHECK(qsMemcpyAsync(ip + 2 * m_nq, count.data(), nb, qsMemcpyHostToDevice, I.stream));
                QS_GPU_CHECK(qsMemcpyAsync(ip + 3 * m_nq, offset.data(), nb, qsMemcpyHostToDevice, I.stream));
                const std::size_t scores = static_cast<std::size_t>(L * H * m_perHead) * 8;
                m_lp = alloc(scores);
                m_p = alloc(scores);
                m_lq = alloc(scores);
                m_o = alloc(static_cast<std::size_t>(L * H * m_nq * d) * 8);
                m_perQuery = alloc(static_cast<std::size_t>(L * H * m_nq * 4) * 8);
                launch::KvAttnArgs a = attnArgs(fk(m_k), fk(m_v));
                launch::kvAttentionRef(a, I.S());
                QS_GPU_CHECK(qsStreamSynchronize(I.stream));
            }
        }
    }

    std::vector<double> rotatedCurve(KvRole role, std::int64_t layer, const std::vector<double> &cs) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        std::shared_ptr<void> &rot = rotated(role);
        const std::int64_t rowsAll = L * Hkv * T;
        const std::int64_t rows = layer < 0 ? rowsAll : Hkv * T;
        float *base = static_cast<float *>(rot.get()) + (layer < 0 ? 0 : layer * Hkv * T * d);
        auto x = std::make_shared<GpuTensor>(Shape{rows, d}, DType::F32, DType::F32, base,
                                             std::string(role == KvRole::K ? "rotated keys" : "rotated values"), rot);
        return m_engine.sweepEvaluator(std::move(x), kvmath::kGroup, true)->mse(cs, nullptr);
    }

    std::vector<double> unitKeysCurve(const std::vector<double> &cs, bool pow2) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t rowsAll = L * Hkv * T;
        const std::shared_ptr<void> &unitK = unitRotated(KvRole::K);
        auto x = std::make_shared<GpuTensor>(Shape{rowsAll, d}, DType::F32, DType::F32, unitK.get(),
                                             std::string("unit keys"), unitK);
        return m_engine.sweepEvaluator(std::move(x), kvmath::kGroup, pow2)->mse(cs, nullptr);
    }

    KvPrepared prepare(const std::function<std::vector<double>()> &theoryLevels) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t rowsAll = L * Hkv * T, layerLen = Hkv * T * d;
        const float *rotK = fk(rotated(KvRole::K));
        KvPrepared out;
        // The rotation's norm change (exact) and K's moments per layer before/after, two passes.
        constexpr int chunks = 64;
        const std::size_t parts = static_cast<std::size_t>(L * chunks * 2);
        auto work = alloc((1 + 4 * parts + 2 * static_cast<std::size_t>(L)) * 8);
        auto *normErr = static_cast<double *>(work.get());
        double *partK = normErr + 1, *partR = partK + parts, *part2K = partR + parts, *part2R = part2K + parts;
        double *means = part2R + parts;
        QS_GPU_CHECK(qsMemsetAsync(normErr, 0, 8, I.stream));
        launch::kvNormChange(fk(m_k), rotK, rowsAll, d, normErr, I.S());
        launch::kvMoments(fk(m_k), L, layerLen, chunks, nullptr, partK, I.S());
        launch::kvMoments(rotK, L, layerLen, chunks, nullptr, partR, I.S());
        std::vector<double> host(1 + 2 * parts);
        QS_GPU_CHECK(qsMemcpyAsync(host.data(), normErr, host.size() * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        out.rotationNormError = host[0];
        const double n = static_cast<double>(layerLen);
        std::vector<double> mu(static_cast<std::size_t>(2 * L));
        for (std::int64_t li = 0; li < L; ++li)
            for (int w = 0; w < 2; ++w) {
                const double *p = host.data() + 1 + static_cast<std::size_t>(w) * parts;
                double sum = 0;
                for (int c = 0; c < chunks; ++c)
                    sum += p[(li * chunks + c) * 2];
                mu[static_cast<std::size_t>(w * L + li)] = sum / n;
            }
        QS_GPU_CHECK(qsMemcpyAsync(means, mu.data(), mu.size() * 8, qsMemcpyHostToDevice, I.stream));
        launch::kvMoments(fk(m_k), L, layerLen, chunks, means, part2K, I.S());
        launch::kvMoments(rotK, L, layerLen, chunks, means + L, part2R, I.S());

        // The unit rotated K and V: histograms per layer and shared, prefix sums, Lloyd fits.
        constexpr long long B = launch::kKvBins;
        const long long hists = 2 * L + 2;
        auto hist = alloc(static_cast<std::size_t>(hists * 3 * B) * 8);
        auto prefix = alloc(static_cast<std::size_t>(hists * 3 * (B + 1)) * 8);
        auto *h = static_cast<double *>(hist.get());
        QS_GPU_CHECK(qsMemsetAsync(h, 0, static_cast<std::size_t>(hists * 3 * B) * 8, I.stream));
        launch::kvUnitHistogram(fk(unitRotated(KvRole::K)), L, layerLen, h, I.S());
        launch::kvUnitHistogram(fk(unitRotated(KvRole::V)), L, layerLen, h + L * 3 * B, I.S());
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
        QS_GPU_CHECK(qsMemcpyAsync(hf.data(), fits, hf.size() * sizeof(kvlloyd::Fit), qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
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
        QS_GPU_CHECK(qsMemcpyAsync(mem.get(), u.data(), u.size() * 4, qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        auto x = std::make_shared<GpuTensor>(Shape{static_cast<std::int64_t>(u.size()) / dd, dd}, DType::F32,
                                             DType::F32, mem.get(), std::string("unit vectors"), mem);
        return std::make_unique<Rows>(m_engine, std::move(x));
    }

    std::vector<double> meanSquares(KvRole role) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t segs = L * Hkv;
        auto mem = alloc(static_cast<std::size_t>(segs * (1 + launch::kKvSseChunks)) * 8);
        auto *sum = static_cast<double *>(mem.get());
        launch::kvSegmentSse(role == KvRole::K ? fk(m_k) : fk(m_v), nullptr, segs, T * d, sum + segs, sum, I.S());
        std::vector<double> seg(static_cast<std::size_t>(segs));
        QS_GPU_CHECK(qsMemcpyAsync(seg.data(), sum, seg.size() * 8, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        std::vector<double> out;
        for (std::int64_t li = 0; li < L; ++li) {
            double s = 0;
            for (std::int64_t h = 0; h < Hkv; ++h)
                s += seg[static_cast<std::size_t>(li * Hkv + h)];
            out.push_back(Hkv * T * d > 0 ? s / static_cast<double>(Hkv * T * d) : 0);
        }
        return out;
    }

    std::vector<KvSchemeLayer> runScheme(const std::vector<KvLayerJob> &jobs) override
    {
        if (static_cast<std::int64_t>(jobs.size()) != L)
            throw UnsupportedError("the KV lab's device run needs one job per layer");
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t segs = L * Hkv;
        Params pk = params(jobs, KvRole::K), pv = params(jobs, KvRole::V);
        auto dk = upload(pk), dv = upload(pv);
        launch::KvQuantArgs a;
        a.layers = L;
        a.heads = Hkv;
        a.tokens = T;
        a.dim = d;
        a.block = static_cast<int>(m_block);
        a.r = m_r;
        bind(a, dk, fk(m_k), fk(m_kq));
        launch::kvQuantize(a, I.S());
        bind(a, dv, fk(m_v), fk(m_vq));
        launch::kvQuantize(a, I.S());
        auto sse = alloc(static_cast<std::size_t>(2 * segs * (1 + launch::kKvSseChunks)) * 8);
        auto *ds = static_cast<double *>(sse.get());
        double *part = ds + 2 * segs;
        launch::kvSegmentSse(fk(m_k), fk(m_kq), segs, T * d, part, ds, I.S());
        launch::kvSegmentSse(fk(m_v), fk(m_vq), segs, T * d, part + segs * launch::kKvSseChunks, ds + segs, I.S());
        std::vector<double> hs(static_cast<std::size_t>(2 * segs)), pq;
        QS_GPU_CHECK(qsMemcpyAsync(hs.data(), ds, hs.size() * 8, qsMemcpyDeviceToHost, I.stream));
        if (m_nq > 0) {
            launch::kvAttentionErr(attnArgs(fk(m_kq), fk(m_vq)), I.S());
            pq.resize(static_cast<std::size_t>(L * H * m_nq * 4));
            QS_GPU_CHECK(qsMemcpyAsync(pq.data(), m_perQuery.get(), pq.size() * 8, qsMemcpyDeviceToHost, I.stream));
        }
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        const double n = static_cast<double>(T * d);
        std::vector<KvSchemeLayer> out(static_cast<std::size_t>(L));
        for (std::int64_t li = 0; li < L; ++li) {
            KvSchemeLayer &o = out[static_cast<std::size_t>(li)];
            for (std::int64_t h = 0; h < Hkv; ++h) {
                o.kMse.push_back(T * d > 0 ? hs[static_cast<std::size_t>(li * Hkv + h)] / n : 0);
                o.vMse.push_back(T * d > 0 ? hs[static_cast<std::size_t>(segs + li * Hkv + h)] / n : 0);
            }
            if (Q > 0) // the CPU's rule: one entry per query head, empty when no query has keys
                for (std::int64_t h = 0; h < H; ++h)
                    o.attention.push_back(m_nq > 0 ? attention(pq.data() + ((li * H + h) * m_nq) * 4)
                                                   : KvAttentionError{});
        }
        return out;
    }

    std::vector<float> dequantized(KvRole role, std::int64_t layer) override
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::int64_t per = Hkv * T * d;
        std::vector<float> out(static_cast<std::size_t>(per));
        QS_GPU_CHECK(qsMemcpyAsync(out.data(), fk(role == KvRole::K ? m_kq : m_vq) + layer * per, out.size() * 4,
                                   qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        return out;
    }

private:
    struct Params {
        std::vector<int> mode;
        std::vector<float> param, levels, bounds;
    };

    /// The rotated K or V of all layers (made once).
    std::shared_ptr<void> &rotated(KvRole role)
    {
        std::shared_ptr<void> &rot = role == KvRole::K ? m_kRot : m_vRot;
        if (!rot) {
            const std::int64_t rowsAll = L * Hkv * T;
            rot = alloc(static_cast<std::size_t>(rowsAll * d) * 4);
            launch::hadamardRows(kInF32, role == KvRole::K ? fk(m_k) : fk(m_v), rowsAll, d, static_cast<int>(m_block),
                                 m_r, static_cast<float *>(rot.get()), m_impl.S());
        }
        return rot;
    }

    /// K or V scaled to unit length per token, then rotated (made once; kv_lab.cpp unitRotated).
    std::shared_ptr<void> &unitRotated(KvRole role)
    {
        std::shared_ptr<void> &u = role == KvRole::K ? m_unitRot : m_unitRotV;
        if (!u) {
            const std::int64_t rowsAll = L * Hkv * T;
            auto unit = alloc(static_cast<std::size_t>(rowsAll * d) * 4);
            launch::kvUnitRows(role == KvRole::K ? fk(m_k) : fk(m_v), rowsAll, d, static_cast<float *>(unit.get()),
                               m_impl.S());
            u = alloc(static_cast<std::size_t>(rowsAll * d) * 4);
            launch::hadamardRows(kInF32, unit.get(), rowsAll, d, static_cast<int>(m_block), m_r,
                                 static_cast<float *>(u.get()), m_impl.S());
            QS_GPU_CHECK(qsStreamSynchronize(m_impl.stream)); // `unit` returns to the pool
        }
        return u;
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

    /// kv_lab.cpp attnAgainst's accumulation over the queries of one head, from the per-query sums.
    KvAttentionError attention(const double *pq) const
    {
        KvAttentionError e;
        double klSum = 0, errSum = 0, refSum = 0;
        for (int i = 0; i < m_nq; ++i) {
            const double *x = pq + static_cast<std::ptrdiff_t>(i) * 4;
            klSum += std::max(0.0, x[0]);
            e.scoreMaxErr = std::max(e.scoreMaxErr, x[1]);
            errSum += x[2];
            refSum += x[3];
            ++e.queries;
        }
        if (e.queries > 0) {
            e.kl = klSum / static_cast<double>(e.queries);
            e.outMse = errSum / static_cast<double>(e.queries * d);
            e.outRel = refSum > 0 ? errSum / refSum : 0;
        }
        return e;
    }

    launch::KvAttnArgs attnArgs(const float *k, const float *v) const
    {
        launch::KvAttnArgs a;
        a.layers = L;
        a.kvHeads = Hkv;
        a.heads = H;
        a.queries = Q;
        a.tokens = T;
        a.dim = d;
        a.scale = 1 / std::sqrt(static_cast<double>(d));
        a.nq = m_nq;
        const auto *ip = static_cast<const long long *>(m_idx.get());
        a.qIdx = ip;
        a.start = ip + m_nq;
        a.count = ip + 2 * m_nq;
        a.offset = ip + 3 * m_nq;
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
        std::shared_ptr<void> mem;
        int *mode = nullptr;
        float *param = nullptr, *levels = nullptr, *bounds = nullptr;
    };

    DeviceParams upload(const Params &p)
    {
        DeviceParams dp;
        const std::size_t a = p.mode.size() * 4, b = p.param.size() * 4, c = p.levels.size() * 4,
                          e = p.bounds.size() * 4;
        const auto pad = [](std::size_t x) { return (x + 255) & ~std::size_t{255}; };
        dp.mem = alloc(pad(a) + pad(b) + pad(c) + pad(e));
        auto *base = static_cast<char *>(dp.mem.get());
        dp.mode = reinterpret_cast<int *>(base);
        dp.param = reinterpret_cast<float *>(base + pad(a));
        dp.levels = reinterpret_cast<float *>(base + pad(a) + pad(b));
        dp.bounds = reinterpret_cast<float *>(base + pad(a) + pad(b) + pad(c));
        // Pageable sources: each copy has left the host buffer when the call returns.
        QS_GPU_CHECK(qsMemcpyAsync(dp.mode, p.mode.data(), a, qsMemcpyHostToDevice, m_impl.stream));
        QS_GPU_CHECK(qsMemcpyAsync(dp.param, p.param.data(), b, qsMemcpyHostToDevice, m_impl.stream));
        QS_GPU_CHECK(qsMemcpyAsync(dp.levels, p.levels.data(), c, qsMemcpyHostToDevice, m_impl.stream));
        QS_GPU_CHECK(qsMemcpyAsync(dp.bounds, p.bounds.data(), e, qsMemcpyHostToDevice, m_impl.stream));
        return dp;
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
    int m_nq = 0;
    long long m_perHead = 0;
    std::shared_ptr<void> m_idx, m_lp, m_p, m_lq, m_o, m_perQuery;
};

} // namespace

std::unique_ptr<KvLabAccelerator> Engine::kvLab(const KvData &data, const std::vector<std::int64_t> &rows)
{
    std::lock_guard lock(m_impl->mutex);
    QS_GPU_CHECK(qsSetDevice(m_impl->device));
    return std::make_unique<GpuKvLab>(*this, *m_impl, data, rows);
}

} // namespace quantscope::gpu
