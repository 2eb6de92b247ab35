// SPDX-License-Identifier: MIT
#include "kv/kv_lab.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>

#include "numeric/fp4math.h"
#include "quant/constopt_sweep.h"
#include "quant/hadamard.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/philox.h"

namespace quantscope {

namespace {

std::vector<double> grid(double lo, double hi, double step)
{
    std::vector<double> c;
    const auto n = static_cast<std::int64_t>(std::llround((hi - lo) / step));
    for (std::int64_t i = 0; i <= n; ++i)
        c.push_back(lo + static_cast<double>(i) * step);
    return c;
}

std::size_t argmin(const std::vector<double> &v)
{
    return static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

/// Rows of x (FP32 [rows, d]) normalised to unit length (FP64 norm, FP32 division), then rotated.
std::vector<float> unitRotated(const std::vector<float> &x, std::int64_t d, std::int64_t b)
{
    std::vector<float> u(x.size());
    const std::int64_t rows = static_cast<std::int64_t>(x.size()) / d;
    for (std::int64_t i = 0; i < rows; ++i) {
        double n2 = 0;
        for (std::int64_t j = 0; j < d; ++j)
            n2 += static_cast<double>(x[static_cast<std::size_t>(i * d + j)]) * x[static_cast<std::size_t>(i * d + j)];
        const float n = static_cast<float>(std::sqrt(n2));
        for (std::int64_t j = 0; j < d; ++j)
            u[static_cast<std::size_t>(i * d + j)] = n > 0 ? x[static_cast<std::size_t>(i * d + j)] / n : 0.0f;
    }
    if (b >= 2)
        kvRotateRows(u, d, b);
    return u;
}

double excessKurtosis(const std::vector<float> &x)
{
    double mean = 0;
    for (float v : x)
        mean += v;
    mean /= static_cast<double>(x.size());
    double m2 = 0, m4 = 0;
    for (float v : x) {
        const double e = v - mean, e2 = e * e;
        m2 += e2;
        m4 += e2 * e2;
    }
    m2 /= static_cast<double>(x.size());
    m4 /= static_cast<double>(x.size());
    return m2 > 0 ? m4 / (m2 * m2) - 3 : 0;
}

/// MSE over the grid of constOpt on a rotated [rows, d] matrix.
std::vector<double> sweepMse(const std::vector<float> &x, std::int64_t d, const std::vector<double> &cs, bool pow2,
                             int threads)
{
    const auto ev = makeCpuSweepEvaluator(x, static_cast<std::int64_t>(x.size()) / d, d, 32,
                                          pow2 ? ConstOptEncoder::Pow2 : ConstOptEncoder::Unrounded,
                                          static_cast<float>(cs.front()), static_cast<float>(cs.back()), threads);
    return ev->mse(cs, nullptr);
}

double mseOf(const float *a, const float *b, std::int64_t n)
{
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double e = static_cast<double>(a[i]) - b[i];
        s += e * e;
    }
    return n ? s / static_cast<double>(n) : 0;
}

void accumulate(KvAttentionError &sum, const KvAttentionError &e, double &oRef, double &oErr, std::int64_t d)
{
    // kl is a mean over queries: re-weight by queries; outRel from the underlying sums.
    sum.kl += e.kl * static_cast<double>(e.queries);
    sum.scoreMaxErr = std::max(sum.scoreMaxErr, e.scoreMaxErr);
    const double err = e.outMse * static_cast<double>(e.queries * d);
    oErr += err;
    oRef += e.outRel > 0 ? err / e.outRel : 0;
    sum.queries += e.queries;
}

struct LayerPrep {
    std::vector<float> rotK;      ///< rotated keys [Hkv·T, d]
    KvUnitHistogram kHist, vHist; ///< unit rotated coordinates
    double kurtBefore = 0, kurtAfter = 0, normErr = 0;
};

} // namespace

KvAttentionError kvAttentionError(const float *q, const float *k, const float *v, const float *kq, const float *vq,
                                  std::int64_t T, std::int64_t d, std::int64_t segment,
                                  const std::vector<std::int64_t> &rows)
{
    KvAttentionError r;
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    std::vector<double> z, zq, o(static_cast<std::size_t>(d)), oq(static_cast<std::size_t>(d));
    double klSum = 0, errSum = 0, refSum = 0;
    for (const std::int64_t i : rows) {
        const std::int64_t start = segment > 0 ? i / segment * segment : 0;
        const std::int64_t n = std::min(i, T - 1) - start + 1;
        if (n <= 0)
            continue;
        z.assign(static_cast<std::size_t>(n), 0);
        zq.assign(static_cast<std::size_t>(n), 0);
        const float *qi = q + i * d;
        double zmax = -INFINITY, zqmax = -INFINITY;
        for (std::int64_t j = 0; j < n; ++j) {
            const float *kj = k + (start + j) * d, *kqj = kq + (start + j) * d;
            double a = 0, b = 0;
            for (std::int64_t c = 0; c < d; ++c) {
                a += static_cast<double>(qi[c]) * kj[c];
                b += static_cast<double>(qi[c]) * kqj[c];
            }
            z[static_cast<std::size_t>(j)] = a * scale;
            zq[static_cast<std::size_t>(j)] = b * scale;
            zmax = std::max(zmax, a * scale);
            zqmax = std::max(zqmax, b * scale);
        }
        double se = 0, seq = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            se += std::exp(z[static_cast<std::size_t>(j)] - zmax);
            seq += std::exp(zq[static_cast<std::size_t>(j)] - zqmax);
        }
        const double lse = zmax + std::log(se), lseq = zqmax + std::log(seq);
        std::fill(o.begin(), o.end(), 0.0);
        std::fill(oq.begin(), oq.end(), 0.0);
        double kl = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            const double lp = z[static_cast<std::size_t>(j)] - lse, lpq = zq[static_cast<std::size_t>(j)] - lseq;
            const double p = std::exp(lp), pq = std::exp(lpq);
            kl += p * (lp - lpq);
            r.scoreMaxErr = std::max(r.scoreMaxErr, std::fabs(p - pq));
            const float *vj = v + (start + j) * d, *vqj = vq + (start + j) * d;
            for (std::int64_t c = 0; c < d; ++c) {
                o[static_cast<std::size_t>(c)] += p * vj[c];
                oq[static_cast<std::size_t>(c)] += pq * vqj[c];
            }
        }
        klSum += std::max(0.0, kl);
        for (std::int64_t c = 0; c < d; ++c) {
            const double e = o[static_cast<std::size_t>(c)] - oq[static_cast<std::size_t>(c)];
            errSum += e * e;
            refSum += o[static_cast<std::size_t>(c)] * o[static_cast<std::size_t>(c)];
        }
        ++r.queries;
    }
    if (r.queries > 0) {
        r.kl = klSum / static_cast<double>(r.queries);
        r.outMse = errSum / static_cast<double>(r.queries * d);
        r.outRel = refSum > 0 ? errSum / refSum : 0;
    }
    return r;
}

KvLabReport runKvLab(const KvData &data, const KvLabOptions &opt, const CancelToken *cancel,
                     const std::function<void(double)> &progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t L = static_cast<std::int64_t>(data.layers.size());
    const std::int64_t Hkv = data.kvHeads, T = data.tokens, d = data.headDim, H = data.heads, Q = data.queries;
    if (L == 0)
        throw UnsupportedError("no layers to study");
    const std::int64_t b = kvRotationBlock(d);
    KvLabReport rep;
    rep.source = data.source.string();
    rep.kind = data.kind;
    rep.rope = data.rope;
    rep.layers = L;
    rep.kvHeads = Hkv;
    rep.heads = H;
    rep.tokens = T;
    rep.queries = Q;
    rep.headDim = d;
    rep.segment = data.segment;
    rep.rotationBlock = b;
    rep.notes = data.notes;
    for (const auto &l : data.layers) {
        rep.layerIndex.push_back(l.layer);
        rep.layerNames.push_back(l.name);
    }
    if (b < 2)
        throw UnsupportedError("head_dim " + std::to_string(d) +
                               " is odd: no Walsh–Hadamard rotation exists for it, so the rotated schemes, the c "
                               "sweep and the codebooks cannot run");
    if (b != d)
        rep.notes.push_back("head_dim " + std::to_string(d) +
                            " is not a power of two: the rotation works in blocks of " + std::to_string(b) +
                            " (the theoretical codebook assumes a rotation over all " + std::to_string(d) +
                            " channels)");
    const int threads = resolveThreads(opt.threads);
    std::atomic<int> done{0};
    const double totalSteps = static_cast<double>(2 * L + 2);
    auto tick = [&] {
        const int n = ++done;
        if (progress)
            progress(std::min(1.0, n / totalSteps));
        if (cancel)
            cancel->check();
    };

    // ---- phase 1: rotation, kurtosis, unit-vector histograms ----
    std::vector<LayerPrep> prep(static_cast<std::size_t>(L));
    parallelForEach(L, threads, [&](std::int64_t li) {
        const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
        LayerPrep &p = prep[static_cast<std::size_t>(li)];
        p.rotK = l.k;
        kvRotateRows(p.rotK, d, b);
        p.kurtBefore = excessKurtosis(l.k);
        p.kurtAfter = excessKurtosis(p.rotK);
        for (std::int64_t i = 0; i < Hkv * T; ++i) {
            double a = 0, r = 0;
            for (std::int64_t j = 0; j < d; ++j) {
                a += static_cast<double>(l.k[static_cast<std::size_t>(i * d + j)]) *
                     l.k[static_cast<std::size_t>(i * d + j)];
                r += static_cast<double>(p.rotK[static_cast<std::size_t>(i * d + j)]) *
                     p.rotK[static_cast<std::size_t>(i * d + j)];
            }
            if (a > 0)
                p.normErr = std::max(p.normErr, std::fabs(std::sqrt(r) - std::sqrt(a)) / std::sqrt(a));
        }
        for (float y : unitRotated(l.k, d, b))
            p.kHist.add(y);
        for (float y : unitRotated(l.v, d, b))
            p.vHist.add(y);
        tick();
    });

    // ---- codebooks ----
    rep.theory = lloydMaxSphere(d);
    rep.gaussianLargest = gaussianLloydMax16().back() / std::sqrt(static_cast<double>(d));
    KvUnitHistogram kAll, vAll;
    for (auto &p : prep) {
        kAll.merge(p.kHist);
        vAll.merge(p.vHist);
    }
    rep.kShared = lloydMaxHistogram(kAll, rep.theory.levels);
    rep.vShared = lloydMaxHistogram(vAll, rep.theory.levels);
    rep.kLayer.resize(static_cast<std::size_t>(L));
    rep.vLayer.resize(static_cast<std::size_t>(L));
    parallelForEach(L, threads, [&](std::int64_t li) {
        rep.kLayer[static_cast<std::size_t>(li)] =
            lloydMaxHistogram(prep[static_cast<std::size_t>(li)].kHist, rep.theory.levels);
        rep.vLayer[static_cast<std::size_t>(li)] =
            lloydMaxHistogram(prep[static_cast<std::size_t>(li)].vHist, rep.theory.levels);
    });
    for (auto &p : prep) {
        rep.kurtosisBefore.push_back(p.kurtBefore);
        rep.kurtosisAfter.push_back(p.kurtAfter);
        rep.rotationNormError = std::max(rep.rotationNormError, p.normErr);
    }

    // ---- c sweep on the rotated keys (all layers, then per layer; V per layer for c=fit) ----
    const std::vector<double> cs = grid(opt.cLo, opt.cHi, opt.cStep);
    if (cs.size() < 2 || !(opt.cLo > 0))
        throw UnsupportedError("the c grid needs lo > 0 and at least two points");
    {
        std::vector<float> all;
        all.reserve(static_cast<std::size_t>(L * Hkv * T * d));
        for (auto &p : prep)
            all.insert(all.end(), p.rotK.begin(), p.rotK.end());
        rep.sweep.c = cs;
        rep.sweep.msePow2 = sweepMse(all, d, cs, true, threads);
        rep.sweep.mseUnrounded = sweepMse(all, d, cs, false, threads);
        const std::size_t i = argmin(rep.sweep.msePow2);
        rep.sweep.cStar = cs[i];
        rep.sweep.cStarMse = rep.sweep.msePow2[i];
        rep.sweep.cStarUnrounded = cs[argmin(rep.sweep.mseUnrounded)];
        double lo = INFINITY, hi = -INFINITY;
        for (std::size_t j = 0; j < cs.size(); ++j)
            if (rep.sweep.msePow2[j] <= (1 + 1e-3) * rep.sweep.cStarMse) {
                lo = std::min(lo, cs[j]);
                hi = std::max(hi, cs[j]);
            }
        rep.sweep.intervalLo = lo;
        rep.sweep.intervalHi = hi;
        const auto ev = makeCpuSweepEvaluator(all, L * Hkv * T, d, 32, ConstOptEncoder::Pow2, 0.1f, 0.2f, threads);
        rep.sweep.mseAt0156 = ev->mse(static_cast<float>(0.156));
        rep.sweep.mseAt0195 = ev->mse(static_cast<float>(0.195));
    }
    tick();
    bool needFitV = false;
    for (const auto &s : opt.schemes)
        needFitV |= s.method == KvMethod::ConstOpt && s.cFit;
    needFitV |= opt.vPlan.method == KvMethod::ConstOpt && opt.vPlan.cFit;
    std::vector<double> vCStar(static_cast<std::size_t>(L), 0.156);
    rep.sweep.layerCStar.assign(static_cast<std::size_t>(L), 0);
    parallelForEach(L, threads, [&](std::int64_t li) {
        const auto m = sweepMse(prep[static_cast<std::size_t>(li)].rotK, d, cs, true, 1);
        rep.sweep.layerCStar[static_cast<std::size_t>(li)] = cs[argmin(m)];
        if (needFitV) {
            std::vector<float> rv = data.layers[static_cast<std::size_t>(li)].v;
            kvRotateRows(rv, d, b);
            vCStar[static_cast<std::size_t>(li)] = cs[argmin(sweepMse(rv, d, cs, true, 1))];
        }
    });
    tick();

    // ---- schemes on every layer ----
    const bool withQ = data.hasQueries();
    std::vector<std::int64_t> rows;
    if (withQ) {
        const std::int64_t n = opt.scoreQueries > 0 ? std::min(opt.scoreQueries, Q) : Q;
        for (std::int64_t i = 0; i < n; ++i)
            rows.push_back(n == Q ? i : (i * (Q - 1)) / std::max<std::int64_t>(1, n - 1));
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        if (n < Q)
            rep.notes.push_back("attention errors use " + std::to_string(rows.size()) + " of the " + std::to_string(Q) +
                                " captured queries per head, evenly spaced (--score-queries)");
    }
    const auto isBoundary = [&](std::int64_t li) {
        return opt.boundary > 0 && (li < opt.boundary || li >= L - opt.boundary);
    };
    const KvScheme bf16 = KvScheme::parse("bf16");
    // Every (scheme, layer) job: schemes in order, then the plan.
    const std::size_t S = opt.schemes.size();
    rep.schemes.resize(S);
    for (std::size_t s = 0; s < S; ++s) {
        rep.schemes[s].name = opt.schemes[s].name();
        rep.schemes[s].layers.resize(static_cast<std::size_t>(L));
    }
    rep.plan.name = "K:" + opt.kPlan.name() + " V:" + opt.vPlan.name() + " boundary " + std::to_string(opt.boundary);
    rep.plan.layers.resize(static_cast<std::size_t>(L));
    auto levelsFor = [&](const KvScheme &s, KvRole role, std::int64_t li) -> const std::vector<double> & {
        if (s.codebook == KvCodebook::Layer)
            return (role == KvRole::K ? rep.kLayer : rep.vLayer)[static_cast<std::size_t>(li)].levels;
        if (s.codebook == KvCodebook::Shared)
            return (role == KvRole::K ? rep.kShared : rep.vShared).levels;
        return rep.theory.levels;
    };
    auto cFor = [&](const KvScheme &s, KvRole role, std::int64_t li) {
        if (!s.cFit)
            return s.c;
        return role == KvRole::K ? rep.sweep.layerCStar[static_cast<std::size_t>(li)]
                                 : vCStar[static_cast<std::size_t>(li)];
    };
    parallelForEach(L, threads, [&](std::int64_t li) {
        const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
        const double kMean2 =
            mseOf(l.k.data(), std::vector<float>(l.k.size(), 0.0f).data(), static_cast<std::int64_t>(l.k.size()));
        const double vMean2 =
            mseOf(l.v.data(), std::vector<float>(l.v.size(), 0.0f).data(), static_cast<std::int64_t>(l.v.size()));
        for (std::size_t s = 0; s <= S; ++s) {
            const bool plan = s == S;
            const KvScheme &ks = plan ? (isBoundary(li) ? bf16 : opt.kPlan) : opt.schemes[s];
            const KvScheme &vs = plan ? (isBoundary(li) ? bf16 : opt.vPlan) : opt.schemes[s];
            KvLayerContext kc{Hkv, T, d, levelsFor(ks, KvRole::K, li), cFor(ks, KvRole::K, li)};
            KvLayerContext vc{Hkv, T, d, levelsFor(vs, KvRole::V, li), cFor(vs, KvRole::V, li)};
            const std::vector<float> kq = kvQuantize(ks, KvRole::K, l.k, kc, 1);
            const std::vector<float> vq = kvQuantize(vs, KvRole::V, l.v, vc, 1);
            KvSchemeLayer out;
            out.kMean2 = kMean2;
            out.vMean2 = vMean2;
            out.c = ks.method == KvMethod::ConstOpt ? kc.c : 0;
            for (std::int64_t h = 0; h < Hkv; ++h) {
                out.kMse.push_back(mseOf(l.k.data() + h * T * d, kq.data() + h * T * d, T * d));
                out.vMse.push_back(mseOf(l.v.data() + h * T * d, vq.data() + h * T * d, T * d));
            }
            if (withQ)
                for (std::int64_t h = 0; h < H; ++h) {
                    const std::int64_t g = h / (H / Hkv);
                    out.attention.push_back(kvAttentionError(l.q.data() + h * Q * d, l.k.data() + g * T * d,
                                                             l.v.data() + g * T * d, kq.data() + g * T * d,
                                                             vq.data() + g * T * d, T, d, data.segment, rows));
                }
            (plan ? rep.plan : rep.schemes[s]).layers[static_cast<std::size_t>(li)] = std::move(out);
        }
        tick();
    });

    // ---- summaries and storage ----
    const double memBytes = opt.memoryGiB * 1024.0 * 1024.0 * 1024.0;
    auto summarise = [&](KvSchemeSummary &sum, const KvScheme &ks, const KvScheme &vs) {
        double k = 0, v = 0, k2 = 0, v2 = 0, oRef = 0, oErr = 0;
        KvAttentionError a;
        for (std::int64_t li = 0; li < L; ++li) {
            const KvSchemeLayer &l = sum.layers[static_cast<std::size_t>(li)];
            for (double x : l.kMse)
                k += x;
            for (double x : l.vMse)
                v += x;
            k2 += l.kMean2;
            v2 += l.vMean2;
            for (const auto &e : l.attention)
                accumulate(a, e, oRef, oErr, d);
            const bool bnd = isBoundary(li);
            sum.bytesPerToken += static_cast<double>(Hkv) * ((bnd ? bf16 : ks).bytesPerToken(KvRole::K, d) +
                                                             (bnd ? bf16 : vs).bytesPerToken(KvRole::V, d));
        }
        sum.kMse = k / static_cast<double>(L * Hkv);
        sum.vMse = v / static_cast<double>(L * Hkv);
        sum.kRel = k2 > 0 ? sum.kMse / (k2 / static_cast<double>(L)) : 0;
        sum.vRel = v2 > 0 ? sum.vMse / (v2 / static_cast<double>(L)) : 0;
        if (a.queries > 0) {
            a.kl /= static_cast<double>(a.queries);
            a.outMse = oErr / static_cast<double>(a.queries * d);
            a.outRel = oRef > 0 ? oErr / oRef : 0;
            sum.attention = a;
        }
        sum.contextTokens = sum.bytesPerToken > 0 ? static_cast<std::int64_t>(memBytes / sum.bytesPerToken) : 0;
    };
    for (std::size_t s = 0; s < S; ++s)
        summarise(rep.schemes[s], opt.schemes[s], opt.schemes[s]);
    summarise(rep.plan, opt.kPlan, opt.vPlan);

    // ---- rotation and calibration findings (computed on K when the list lacks the schemes) ----
    auto kMseOf = [&](const std::string &name) -> double {
        for (const auto &s : rep.schemes)
            if (s.name == name)
                return s.kMse;
        const KvScheme sc = KvScheme::parse(name);
        double sum = 0;
        for (std::int64_t li = 0; li < L; ++li) {
            const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
            KvLayerContext kc{Hkv, T, d, levelsFor(sc, KvRole::K, li), 0.156};
            const auto kq = kvQuantize(sc, KvRole::K, l.k, kc, threads);
            sum += mseOf(l.k.data(), kq.data(), static_cast<std::int64_t>(l.k.size()));
        }
        return sum / static_cast<double>(L);
    };
    const double rot = kMseOf("codebook"), norot = kMseOf("codebook-norot"), cal = kMseOf("codebook-layer");
    rep.unrotatedOverRotated = rot > 0 ? norot / rot : 0;
    rep.calibratedGain = rot > 0 ? 1 - cal / rot : 0;

    // ---- distortion of unit-vector coordinates ----
    if (opt.distortion) {
        const std::vector<double> coarse = grid(opt.cLo, opt.cHi, 0.005);
        auto measure = [&](const std::string &source, std::int64_t dd, const std::vector<float> &u, double floor) {
            KvDistortion r;
            r.source = source;
            r.d = dd;
            const auto ev =
                makeCpuSweepEvaluator(u, static_cast<std::int64_t>(u.size()) / dd, dd, 32, ConstOptEncoder::Pow2,
                                      static_cast<float>(cs.front()), static_cast<float>(cs.back()), threads);
            const auto plain = makeCpuSweepEvaluator(u, static_cast<std::int64_t>(u.size()) / dd, dd, 32,
                                                     ConstOptEncoder::Unrounded, 0.1f, 0.2f, threads);
            r.fp4Plain = plain->mse(1.0f / 6.0f);
            r.constOpt0156 = ev->mse(static_cast<float>(0.156));
            r.constOpt0195 = ev->mse(static_cast<float>(0.195));
            const auto m = ev->mse(cs, nullptr);
            const std::size_t i = argmin(m);
            r.cStar = cs[i];
            r.constOptStar = m[i];
            r.c = coarse;
            r.curve = ev->mse(coarse, nullptr);
            r.lloydMax = floor;
            rep.distortion.push_back(std::move(r));
        };
        for (const std::int64_t dd : {64, 128, 256}) {
            const std::int64_t n = std::max<std::int64_t>(1, opt.distortionVectors);
            std::vector<float> u(static_cast<std::size_t>(n * dd));
            for (std::int64_t i = 0; i < n; ++i) {
                double n2 = 0;
                std::vector<double> g(static_cast<std::size_t>(dd));
                for (std::int64_t j = 0; j < dd; ++j) {
                    g[static_cast<std::size_t>(j)] = philox::normalAt(opt.seed, static_cast<std::uint32_t>(dd),
                                                                      static_cast<std::uint64_t>(i * dd + j));
                    n2 += g[static_cast<std::size_t>(j)] * g[static_cast<std::size_t>(j)];
                }
                for (std::int64_t j = 0; j < dd; ++j)
                    u[static_cast<std::size_t>(i * dd + j)] =
                        static_cast<float>(g[static_cast<std::size_t>(j)] / std::sqrt(n2));
            }
            measure("theory", dd, u, lloydMaxSphere(dd).mse);
        }
        std::vector<float> keys;
        for (const auto &l : data.layers) {
            const auto u = unitRotated(l.k, d, b);
            keys.insert(keys.end(), u.begin(), u.end());
        }
        measure("keys", d, keys, rep.kShared.mse);
    }
    tick();
    rep.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

namespace {

nlohmann::ordered_json attnJson(const KvAttentionError &a)
{
    nlohmann::ordered_json j;
    j["kl"] = a.kl;
    j["score_max_err"] = a.scoreMaxErr;
    j["out_rel"] = a.outRel;
    j["out_mse"] = a.outMse;
    j["queries"] = a.queries;
    return j;
}

nlohmann::ordered_json fitJson(const KvCodebookFit &f)
{
    nlohmann::ordered_json j;
    j["levels"] = f.levels;
    j["mse"] = f.mse;
    j["iterations"] = f.iterations;
    j["max_move"] = f.maxMove;
    return j;
}

nlohmann::ordered_json summaryJson(const KvSchemeSummary &s, const KvLabReport &rep)
{
    nlohmann::ordered_json j;
    j["name"] = s.name;
    j["k_mse"] = s.kMse;
    j["v_mse"] = s.vMse;
    j["k_rel"] = s.kRel;
    j["v_rel"] = s.vRel;
    if (s.attention)
        j["attention"] = attnJson(*s.attention);
    j["bytes_per_token"] = s.bytesPerToken;
    j["context_tokens"] = s.contextTokens;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        const auto &l = s.layers[i];
        nlohmann::ordered_json lj;
        lj["layer"] = rep.layerIndex[i];
        lj["k_mse"] = l.kMse;
        lj["v_mse"] = l.vMse;
        if (l.c > 0)
            lj["c"] = l.c;
        if (!l.attention.empty()) {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (const auto &e : l.attention)
                a.push_back(attnJson(e));
            lj["attention"] = a;
        }
        layers.push_back(lj);
    }
    j["layers"] = layers;
    return j;
}

} // namespace

nlohmann::ordered_json KvLabReport::toJson() const
{
    nlohmann::ordered_json j;
    j["source"] = source;
    j["kind"] = kind;
    if (!rope.empty())
        j["rope"] = rope;
    j["layers"] = layers;
    j["kv_heads"] = kvHeads;
    j["heads"] = heads;
    j["tokens"] = tokens;
    j["queries"] = queries;
    j["head_dim"] = headDim;
    j["segment"] = segment;
    j["rotation_block"] = rotationBlock;
    j["layer_index"] = layerIndex;
    j["layer_names"] = layerNames;
    nlohmann::ordered_json ss = nlohmann::ordered_json::array();
    for (const auto &s : schemes)
        ss.push_back(summaryJson(s, *this));
    j["schemes"] = ss;
    j["plan"] = summaryJson(plan, *this);
    nlohmann::ordered_json sw;
    sw["c"] = sweep.c;
    sw["mse_pow2"] = sweep.msePow2;
    sw["mse_unrounded"] = sweep.mseUnrounded;
    sw["c_star"] = sweep.cStar;
    sw["c_star_mse"] = sweep.cStarMse;
    sw["c_star_interval"] = {sweep.intervalLo, sweep.intervalHi};
    sw["c_star_unrounded"] = sweep.cStarUnrounded;
    sw["mse_at_0.156"] = sweep.mseAt0156;
    sw["mse_at_0.195"] = sweep.mseAt0195;
    sw["layer_c_star"] = sweep.layerCStar;
    j["c_sweep"] = sw;
    nlohmann::ordered_json cb;
    cb["theory"] = fitJson(theory);
    cb["theory"]["d"] = headDim;
    cb["theory"]["largest"] = theory.levels.empty() ? 0.0 : theory.levels.back();
    cb["theory"]["gaussian_limit_largest"] = gaussianLargest;
    cb["theory"]["paper_largest_d64"] = paperLargest;
    cb["k_shared"] = fitJson(kShared);
    cb["v_shared"] = fitJson(vShared);
    nlohmann::ordered_json kl = nlohmann::ordered_json::array(), vl = nlohmann::ordered_json::array();
    for (const auto &f : kLayer)
        kl.push_back(fitJson(f));
    for (const auto &f : vLayer)
        vl.push_back(fitJson(f));
    cb["k_layer"] = kl;
    cb["v_layer"] = vl;
    cb["calibrated_gain_k"] = calibratedGain;
    cb["unrotated_over_rotated_k"] = unrotatedOverRotated;
    j["codebooks"] = cb;
    j["kurtosis_k_before"] = kurtosisBefore;
    j["kurtosis_k_after"] = kurtosisAfter;
    j["rotation_norm_error"] = rotationNormError;
    nlohmann::ordered_json dist = nlohmann::ordered_json::array();
    for (const auto &x : distortion) {
        nlohmann::ordered_json dj;
        dj["source"] = x.source;
        dj["d"] = x.d;
        dj["fp4_per32"] = x.fp4Plain;
        dj["constopt_0.156"] = x.constOpt0156;
        dj["constopt_0.195"] = x.constOpt0195;
        dj["constopt_c_star"] = x.constOptStar;
        dj["c_star"] = x.cStar;
        dj["lloyd_max"] = x.lloydMax;
        dj["c"] = x.c;
        dj["constopt_curve"] = x.curve;
        dist.push_back(dj);
    }
    j["distortion"] = dist;
    j["notes"] = notes;
    j["device"] = device;
    j["time_ms"] = timeMs;
    return j;
}

} // namespace quantscope
