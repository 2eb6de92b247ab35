// SPDX-License-Identifier: MIT
// The KV-cache lab on the device against the CPU reference (docs/numerics.md "KV-cache lab", "On
// the GPU"): every scheme's K̂ and V̂ bit for bit (kv_math.h's functions on both sides), the pow2 c
// curves and c* bit for bit (the sweep's exact sums), the per-head MSE and the attention errors
// within the stated bound (FP64 sums in another order, the device's exp/log), and the whole lab
// through the engine's device hook. Realistic seeded caches (Student-t, outlier channels, a zero
// token; d = 64 and 128, T not a multiple of 32) and examples/stories260K-kv.safetensors. Skipped,
// with the reason, when no device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <random>

#include "engine/kv_device.h"
#include "engine/registry.h"
#include "kv/kv_codebook.h"
#include "kv/kv_data.h"
#include "kv/kv_lab.h"
#include "kv/kv_math.h"
#include "kv/kv_schemes.h"
#include "quant/constopt_sweep.h"
#include "register.h"

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

// The GPU backend (and the KV lab's factory) register before any test asks the registry.
const bool kGpuRegistered = (registerGpuBackends(), true);

#define REQUIRE_GPU()                                                                                                  \
    (void)kGpuRegistered;                                                                                              \
    if (!BackendRegistry::instance().gpu())                                                                            \
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();

/// The stated bound of a device sum against the CPU's: 1e-9 relative plus 1e-13 absolute.
bool withinBound(double gpu, double cpu)
{
    return std::fabs(gpu - cpu) <= 1e-9 * std::max(std::fabs(gpu), std::fabs(cpu)) + 1e-13;
}

/// K/V [L, Hkv, T, d] and Q [L, H, T, d]: Student-t (ν = 3) with two outlier channels per 16 and a
/// mean offset on channel 3 (post-RoPE keys look like this), token 5 all zero.
KvData syntheticKv(std::int64_t L, std::int64_t Hkv, std::int64_t H, std::int64_t T, std::int64_t d, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    auto make = [&](std::int64_t heads, bool outliers) {
        std::vector<float> p(static_cast<std::size_t>(L * heads * T * d));
        for (std::int64_t i = 0; i < L * heads * T; ++i)
            for (std::int64_t j = 0; j < d; ++j) {
                const float big = outliers && (j % 16 == 3 || j % 16 == 4) ? 12.0f : 1.0f;
                const float v = 0.5f * t(rng) * big + (outliers && j == 3 ? 4.0f : 0.0f);
                p[static_cast<std::size_t>(i * d + j)] = i % T == 5 ? 0.0f : v;
            }
        return Tensor::fromFloats({L, heads, T, d}, p);
    };
    const Tensor k = make(Hkv, true), v = make(Hkv, false), q = make(H, true);
    KvLoadOptions o;
    o.segment = T / 2;
    return kvFromArrays("synthetic", k, v, q, o);
}

std::vector<KvScheme> everyScheme()
{
    auto s = defaultKvSchemes();
    for (const char *n : {"fp8-unit", "constopt:unrounded", "constopt:c=0.195,unrounded"})
        s.push_back(KvScheme::parse(n));
    return s;
}

std::vector<std::int64_t> queryRows(std::int64_t Q, std::int64_t n)
{
    std::vector<std::int64_t> rows;
    for (std::int64_t i = 0; i < n; ++i)
        rows.push_back((i * (Q - 1)) / std::max<std::int64_t>(1, n - 1));
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

std::unique_ptr<KvLabAccelerator> acceleratorOrNull(const KvData &data, const std::vector<std::int64_t> &rows)
{
    const auto dev = kvLabDevice(DeviceChoice::Gpu);
    if (!dev || !dev->make)
        return nullptr;
    std::string why;
    auto acc = dev->make(data, rows, why);
    EXPECT_TRUE(acc) << why;
    return acc;
}

double mseOf(const std::vector<float> &a, const std::vector<float> &b, std::int64_t off, std::int64_t n)
{
    double s = 0;
    for (std::int64_t i = off; i < off + n; ++i) {
        const double e = static_cast<double>(a[static_cast<std::size_t>(i)]) - b[static_cast<std::size_t>(i)];
        s += e * e;
    }
    return s / static_cast<double>(n);
}

/// Every scheme (and a mixed-per-layer plan) on every layer: x̂ bit for bit, MSE and attention
/// within the bound, against kvQuantize and kvAttentionError.
void expectSchemesMatch(const KvData &data, std::int64_t scoreQueries)
{
    const std::int64_t L = static_cast<std::int64_t>(data.layers.size()), Hkv = data.kvHeads, T = data.tokens,
                       d = data.headDim, H = data.heads, Q = data.queries;
    // scoreQueries as the lab's --score-queries: 0 = every captured query.
    const auto rows =
        Q > 0 ? queryRows(Q, scoreQueries > 0 ? std::min(scoreQueries, Q) : Q) : std::vector<std::int64_t>{};
    auto acc = acceleratorOrNull(data, rows);
    ASSERT_TRUE(acc);
    const auto theory = lloydMaxSphere(d).levels;
    auto scaled = [&](std::int64_t li) { // a different codebook per layer, as codebook-layer has
        std::vector<double> l = theory;
        for (double &x : l)
            x *= 0.93 + 0.01 * static_cast<double>(li);
        return l;
    };
    auto schemes = everyScheme();
    std::vector<std::vector<KvLayerJob>> allJobs;
    std::vector<std::vector<KvSchemeLayer>> each;
    for (std::size_t s = 0; s <= schemes.size(); ++s) {
        const bool plan = s == schemes.size(); // per layer a different pair: the plan's shape
        std::vector<KvLayerJob> jobs;
        for (std::int64_t li = 0; li < L; ++li) {
            KvScheme ks = plan ? KvScheme::parse(li == 0 ? "bf16" : (li % 2 ? "int4" : "constopt:c=0.19")) : schemes[s];
            KvScheme vs =
                plan ? KvScheme::parse(li == 0 ? "bf16" : (li % 2 ? "codebook-layer" : "fp8-vllm")) : schemes[s];
            auto ctx = [&](const KvScheme &sc) {
                KvLayerContext c{Hkv, T, d, sc.codebook == KvCodebook::Theory ? theory : scaled(li), sc.c};
                if (sc.cFit)
                    c.c = 0.18 + 0.005 * static_cast<double>(li);
                return c;
            };
            jobs.push_back({ks, vs, ctx(ks), ctx(vs)});
        }
        const auto got = acc->runScheme(jobs);
        ASSERT_EQ(got.size(), static_cast<std::size_t>(L));
        allJobs.push_back(jobs);
        each.push_back(got);
        for (std::int64_t li = 0; li < L; ++li) {
            const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
            const KvLayerJob &j = jobs[static_cast<std::size_t>(li)];
            const std::string what = (plan ? std::string("plan") : schemes[s].name()) + " layer " + std::to_string(li);
            const auto kq = kvQuantize(j.k, KvRole::K, l.k, j.kc), vq = kvQuantize(j.v, KvRole::V, l.v, j.vc);
            const auto gk = acc->dequantized(KvRole::K, li), gv = acc->dequantized(KvRole::V, li);
            ASSERT_EQ(gk.size(), kq.size());
            std::size_t diffK = 0, diffV = 0, firstK = kq.size();
            for (std::size_t i = 0; i < kq.size(); ++i) {
                if (std::bit_cast<std::uint32_t>(gk[i]) != std::bit_cast<std::uint32_t>(kq[i]) && ++diffK == 1)
                    firstK = i;
                diffV += std::bit_cast<std::uint32_t>(gv[i]) != std::bit_cast<std::uint32_t>(vq[i]);
            }
            EXPECT_EQ(diffK, 0u) << what << " K̂, first at " << firstK << ": gpu "
                                 << (firstK < kq.size() ? gk[firstK] : 0) << " cpu "
                                 << (firstK < kq.size() ? kq[firstK] : 0);
            EXPECT_EQ(diffV, 0u) << what << " V̂";
            const KvSchemeLayer &g = got[static_cast<std::size_t>(li)];
            ASSERT_EQ(g.kMse.size(), static_cast<std::size_t>(Hkv));
            for (std::int64_t h = 0; h < Hkv; ++h) {
                const double ck = mseOf(l.k, kq, h * T * d, T * d), cv = mseOf(l.v, vq, h * T * d, T * d);
                EXPECT_TRUE(withinBound(g.kMse[static_cast<std::size_t>(h)], ck))
                    << what << " head " << h << " K MSE " << g.kMse[static_cast<std::size_t>(h)] << " vs " << ck;
                EXPECT_TRUE(withinBound(g.vMse[static_cast<std::size_t>(h)], cv)) << what << " head " << h;
            }
            if (Q == 0)
                continue;
            ASSERT_EQ(g.attention.size(), static_cast<std::size_t>(H)) << what;
            for (std::int64_t h = 0; h < H; ++h) {
                const std::int64_t kvh = h / (H / Hkv);
                const KvAttentionError c =
                    kvAttentionError(l.q.data() + h * Q * d, l.k.data() + kvh * T * d, l.v.data() + kvh * T * d,
                                     kq.data() + kvh * T * d, vq.data() + kvh * T * d, T, d, data.segment, rows);
                const KvAttentionError &e = g.attention[static_cast<std::size_t>(h)];
                EXPECT_EQ(e.queries, c.queries) << what;
                EXPECT_TRUE(withinBound(e.kl, c.kl)) << what << " head " << h << " KL " << e.kl << " vs " << c.kl;
                EXPECT_TRUE(withinBound(e.scoreMaxErr, c.scoreMaxErr))
                    << what << " head " << h << " max|ΔP| " << e.scoreMaxErr << " vs " << c.scoreMaxErr;
                EXPECT_TRUE(withinBound(e.outRel, c.outRel)) << what << " out_rel " << e.outRel << " vs " << c.outRel;
                EXPECT_TRUE(withinBound(e.outMse, c.outMse)) << what << " out_mse " << e.outMse << " vs " << c.outMse;
            }
        }
    }
    // All pairs queued at once (runSchemes): each pair's results equal its own run's, and x̂ is the
    // last pair's.
    const auto batched = acc->runSchemes(allJobs);
    ASSERT_EQ(batched.size(), each.size());
    for (std::size_t p = 0; p < each.size(); ++p)
        for (std::int64_t li = 0; li < L; ++li) {
            const KvSchemeLayer &a = batched[p][static_cast<std::size_t>(li)],
                                &b = each[p][static_cast<std::size_t>(li)];
            EXPECT_EQ(a.kMse, b.kMse) << "pair " << p << " layer " << li;
            EXPECT_EQ(a.vMse, b.vMse) << "pair " << p << " layer " << li;
            ASSERT_EQ(a.attention.size(), b.attention.size());
            for (std::size_t h = 0; h < a.attention.size(); ++h) {
                EXPECT_EQ(a.attention[h].kl, b.attention[h].kl) << "pair " << p << " layer " << li << " head " << h;
                EXPECT_EQ(a.attention[h].scoreMaxErr, b.attention[h].scoreMaxErr);
                EXPECT_EQ(a.attention[h].outMse, b.attention[h].outMse);
                EXPECT_EQ(a.attention[h].outRel, b.attention[h].outRel);
                EXPECT_EQ(a.attention[h].queries, b.attention[h].queries);
            }
        }
    {
        const KvLayerJob &j = allJobs.back().back();
        const auto kq = kvQuantize(j.k, KvRole::K, data.layers.back().k, j.kc);
        const auto gk = acc->dequantized(KvRole::K, L - 1);
        ASSERT_EQ(gk.size(), kq.size());
        for (std::size_t i = 0; i < kq.size(); ++i)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(gk[i]), std::bit_cast<std::uint32_t>(kq[i])) << "after runSchemes";
    }
    // The pow2 curves on the rotated caches: the CPU evaluator's bits, per layer and over all.
    std::vector<double> cs;
    for (int i = 0; i <= 700; ++i)
        cs.push_back(0.05 + 0.0005 * i);
    const std::int64_t b = kvRotationBlock(d);
    std::vector<float> all;
    const auto layerK = acc->layerCurves(KvRole::K, L, cs), layerV = acc->layerCurves(KvRole::V, L, cs);
    for (std::int64_t li = 0; li < L; ++li) {
        for (const KvRole role : {KvRole::K, KvRole::V}) {
            std::vector<float> r = role == KvRole::K ? data.layers[static_cast<std::size_t>(li)].k
                                                     : data.layers[static_cast<std::size_t>(li)].v;
            kvRotateRows(r, d, b);
            const auto cpu = makeCpuSweepEvaluator(r, static_cast<std::int64_t>(r.size()) / d, d, 32,
                                                   ConstOptEncoder::Pow2, 0.05f, 0.40f, 1)
                                 ->mse(cs, nullptr);
            const auto gpu = acc->rotatedCurve(role, li, cs);
            ASSERT_EQ(gpu.size(), cpu.size());
            const auto &batch = (role == KvRole::K ? layerK : layerV).at(static_cast<std::size_t>(li));
            ASSERT_EQ(batch.size(), cpu.size());
            for (std::size_t i = 0; i < cpu.size(); ++i) // layerCurves: the same bits, all layers at once
                ASSERT_EQ(std::bit_cast<std::uint64_t>(batch[i]), std::bit_cast<std::uint64_t>(cpu[i]))
                    << "layerCurves, layer " << li << " c " << cs[i];
            for (std::size_t i = 0; i < cpu.size(); ++i)
                ASSERT_EQ(std::bit_cast<std::uint64_t>(gpu[i]), std::bit_cast<std::uint64_t>(cpu[i]))
                    << "layer " << li << " c " << cs[i];
            if (role == KvRole::K)
                all.insert(all.end(), r.begin(), r.end());
        }
    }
    const auto cpu = makeCpuSweepEvaluator(all, static_cast<std::int64_t>(all.size()) / d, d, 32, ConstOptEncoder::Pow2,
                                           0.05f, 0.40f, 0)
                         ->mse(cs, nullptr);
    const auto gpu = acc->rotatedCurve(KvRole::K, -1, cs);
    for (std::size_t i = 0; i < cpu.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(gpu[i]), std::bit_cast<std::uint64_t>(cpu[i])) << "all, c " << cs[i];
    // The unit keys (scaled per token, rotated): both encoders.
    std::vector<float> unit;
    for (const auto &l : data.layers) {
        std::vector<float> u(l.k.size());
        for (std::int64_t r = 0; r < static_cast<std::int64_t>(l.k.size()) / d; ++r)
            kvmath::unitRow(l.k.data() + r * d, u.data() + r * d, d);
        kvRotateRows(u, d, b);
        unit.insert(unit.end(), u.begin(), u.end());
    }
    for (const bool pow2 : {true, false}) {
        const auto ev =
            makeCpuSweepEvaluator(unit, static_cast<std::int64_t>(unit.size()) / d, d, 32,
                                  pow2 ? ConstOptEncoder::Pow2 : ConstOptEncoder::Unrounded, 0.05f, 0.40f, 0);
        const std::vector<double> grid = pow2 ? cs : std::vector<double>{static_cast<double>(1.0f / 6.0f), 0.156};
        const auto c = ev->mse(grid, nullptr), g = acc->unitKeysCurve(grid, pow2);
        for (std::size_t i = 0; i < c.size(); ++i)
            ASSERT_EQ(std::bit_cast<std::uint64_t>(g[i]), std::bit_cast<std::uint64_t>(c[i]))
                << "unit keys " << (pow2 ? "pow2" : "unrounded") << " c " << grid[i];
        if (!pow2) { // the lab asks the CPU evaluator for one fc at a time
            EXPECT_EQ(std::bit_cast<std::uint64_t>(ev->mse(1.0f / 6.0f)), std::bit_cast<std::uint64_t>(c[0]));
        }
    }
}

/// runKvLab through the hook against the CPU: device named, c sweep bit for bit, every summary
/// within the bound.
void expectLabMatches(const KvData &data)
{
    KvLabOptions o;
    o.distortionVectors = 256;
    const KvLabReport cpu = runKvLab(data, o);
    o.device = kvLabDevice(DeviceChoice::Gpu);
    const KvLabReport gpu = runKvLab(data, o);
    EXPECT_EQ(cpu.device, "cpu");
    EXPECT_EQ(gpu.device, BackendRegistry::instance().gpu()->info().id) << gpu.deviceNote;
    EXPECT_TRUE(gpu.deviceNote.empty()) << gpu.deviceNote;
    EXPECT_EQ(gpu.sweep.msePow2, cpu.sweep.msePow2);
    EXPECT_EQ(gpu.sweep.cStar, cpu.sweep.cStar);
    EXPECT_EQ(gpu.sweep.layerCStar, cpu.sweep.layerCStar);
    EXPECT_EQ(gpu.sweep.mseAt0156, cpu.sweep.mseAt0156);
    EXPECT_EQ(gpu.sweep.mseAt0195, cpu.sweep.mseAt0195);
    ASSERT_EQ(gpu.schemes.size(), cpu.schemes.size());
    auto same = [&](const KvSchemeSummary &g, const KvSchemeSummary &c) {
        EXPECT_EQ(g.name, c.name);
        EXPECT_TRUE(withinBound(g.kMse, c.kMse)) << c.name << " " << g.kMse << " vs " << c.kMse;
        EXPECT_TRUE(withinBound(g.vMse, c.vMse)) << c.name;
        EXPECT_TRUE(withinBound(g.kRel, c.kRel)) << c.name;
        EXPECT_EQ(g.bytesPerToken, c.bytesPerToken) << c.name;
        ASSERT_EQ(g.attention.has_value(), c.attention.has_value()) << c.name;
        if (c.attention) {
            EXPECT_TRUE(withinBound(g.attention->kl, c.attention->kl)) << c.name;
            EXPECT_TRUE(withinBound(g.attention->scoreMaxErr, c.attention->scoreMaxErr)) << c.name;
            EXPECT_TRUE(withinBound(g.attention->outRel, c.attention->outRel)) << c.name;
            EXPECT_EQ(g.attention->queries, c.attention->queries) << c.name;
        }
        ASSERT_EQ(g.layers.size(), c.layers.size());
        for (std::size_t l = 0; l < c.layers.size(); ++l)
            EXPECT_EQ(g.layers[l].c, c.layers[l].c) << c.name << " layer " << l;
    };
    for (std::size_t s = 0; s < cpu.schemes.size(); ++s)
        same(gpu.schemes[s], cpu.schemes[s]);
    same(gpu.plan, cpu.plan);
    EXPECT_TRUE(withinBound(gpu.unrotatedOverRotated, cpu.unrotatedOverRotated));
    ASSERT_EQ(gpu.distortion.size(), cpu.distortion.size());
    for (std::size_t i = 0; i < cpu.distortion.size(); ++i) { // the keys' curves on the device: the same bits
        const KvDistortion &g = gpu.distortion[i], &c = cpu.distortion[i];
        EXPECT_EQ(g.source, c.source);
        EXPECT_EQ(g.fp4Plain, c.fp4Plain) << c.source << " " << c.d;
        EXPECT_EQ(g.constOpt0156, c.constOpt0156) << c.source;
        EXPECT_EQ(g.constOpt0195, c.constOpt0195) << c.source;
        EXPECT_EQ(g.cStar, c.cStar) << c.source;
        EXPECT_EQ(g.curve, c.curve) << c.source;
    }
    // The preparation on the device: the norm change bit for bit, kurtosis, the unrounded curve and
    // the refit codebooks (Lloyd on the device's histograms) within the bound.
    EXPECT_EQ(gpu.rotationNormError, cpu.rotationNormError);
    ASSERT_EQ(gpu.kurtosisBefore.size(), cpu.kurtosisBefore.size());
    for (std::size_t l = 0; l < cpu.kurtosisBefore.size(); ++l) {
        EXPECT_TRUE(withinBound(gpu.kurtosisBefore[l], cpu.kurtosisBefore[l])) << "layer " << l;
        EXPECT_TRUE(withinBound(gpu.kurtosisAfter[l], cpu.kurtosisAfter[l])) << "layer " << l;
    }
    ASSERT_EQ(gpu.sweep.mseUnrounded.size(), cpu.sweep.mseUnrounded.size());
    for (std::size_t i = 0; i < cpu.sweep.mseUnrounded.size(); ++i)
        EXPECT_TRUE(withinBound(gpu.sweep.mseUnrounded[i], cpu.sweep.mseUnrounded[i])) << "c " << cpu.sweep.c[i];
    EXPECT_EQ(gpu.sweep.cStarUnrounded, cpu.sweep.cStarUnrounded);
    auto sameFit = [&](const KvCodebookFit &g, const KvCodebookFit &c, const std::string &what) {
        ASSERT_EQ(g.levels.size(), c.levels.size()) << what;
        for (std::size_t i = 0; i < c.levels.size(); ++i) // Lloyd stops at tol 1e-9: the levels agree to it
            EXPECT_NEAR(g.levels[i], c.levels[i], 2e-9) << what << " level " << i;
        EXPECT_TRUE(std::fabs(g.mse - c.mse) <= 1e-6 * c.mse + 1e-13) << what << " " << g.mse << " vs " << c.mse;
    };
    sameFit(gpu.kShared, cpu.kShared, "K shared");
    sameFit(gpu.vShared, cpu.vShared, "V shared");
    ASSERT_EQ(gpu.kLayer.size(), cpu.kLayer.size());
    for (std::size_t l = 0; l < cpu.kLayer.size(); ++l) {
        sameFit(gpu.kLayer[l], cpu.kLayer[l], "K layer " + std::to_string(l));
        sameFit(gpu.vLayer[l], cpu.vLayer[l], "V layer " + std::to_string(l));
    }
    // 1 − a/b of two bounded MSEs: the bound carries over as an absolute one on the gain.
    EXPECT_NEAR(gpu.calibratedGain, cpu.calibratedGain, 1e-8);
}

} // namespace

TEST(GpuKv, EverySchemeIsBitIdenticalOnSyntheticCachesD64)
{
    REQUIRE_GPU();
    expectSchemesMatch(syntheticKv(3, 2, 6, 300, 64, 41), 64);
}

TEST(GpuKv, EverySchemeIsBitIdenticalOnSyntheticCachesD128)
{
    REQUIRE_GPU();
    expectSchemesMatch(syntheticKv(2, 2, 4, 200, 128, 42), 0);
}

TEST(GpuKv, EverySchemeIsBitIdenticalOnTheExampleCapture)
{
    REQUIRE_GPU();
    const fs::path ex = fs::path(QUANTSCOPE_SOURCE_DIR) / "examples" / "stories260K-kv.safetensors";
    ASSERT_TRUE(fs::exists(ex)) << ex;
    expectSchemesMatch(loadKv(ex), 128);
}

TEST(GpuKv, TheLabOnTheDeviceMatchesTheCpu)
{
    REQUIRE_GPU();
    expectLabMatches(syntheticKv(3, 2, 6, 300, 64, 43));
    expectLabMatches(loadKv(fs::path(QUANTSCOPE_SOURCE_DIR) / "examples" / "stories260K-kv.safetensors"));
}

TEST(GpuKv, CpuChoiceAndMissingDeviceFallBackToTheCpu)
{
    (void)kGpuRegistered;
    EXPECT_EQ(kvLabDevice(DeviceChoice::Cpu), nullptr);
    const auto dev = kvLabDevice(DeviceChoice::Gpu);
    ASSERT_TRUE(dev);
    if (!BackendRegistry::instance().gpu()) {
        EXPECT_FALSE(dev->make);
        EXPECT_FALSE(dev->note.empty());
        KvLabOptions o;
        o.distortion = false;
        o.device = dev;
        const auto r = runKvLab(syntheticKv(1, 1, 2, 64, 64, 7), o);
        EXPECT_EQ(r.device, "cpu");
        EXPECT_EQ(r.deviceNote, dev->note);
    }
}
