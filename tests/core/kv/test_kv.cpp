// SPDX-License-Identifier: MIT
// The KV-cache lab (core/kv): the sphere codebook against an independent Lloyd iteration, each KV
// scheme against a scalar reimplementation or the weight quantizer with the same op sequence, the
// attention errors against a direct long-double computation, the rotation, the loaders and every
// way their input can lie.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <random>

#include "kv_attention_direct.h"
#include "io/npy_writer.h"
#include "io/safetensors.h"
#include "kv/kv_attention.h"
#include "kv/kv_codebook.h"
#include "kv/kv_data.h"
#include "kv/kv_lab.h"
#include "kv/kv_math.h"
#include "kv/kv_schemes.h"
#include "quant/constopt.h"
#include "quant/constopt_sweep.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

/// Independent Lloyd–Max for f(t) ∝ (1 − t²)^((d−3)/2): the density tabulated on a uniform grid of
/// 2^22 midpoints, cell integrals from cumulative sums with the partial end bins interpolated.
std::vector<double> independentLloyd(int d)
{
    const std::int64_t N = 1 << 22;
    const double h = 2.0 / N, e = (d - 3) / 2.0;
    std::vector<long double> c0(N + 1, 0), c1(N + 1, 0);
    for (std::int64_t i = 0; i < N; ++i) {
        const double t = -1 + (i + 0.5) * h;
        const long double w = std::pow(1 - t * t, e) * h;
        c0[i + 1] = c0[i] + w;
        c1[i + 1] = c1[i] + w * t;
    }
    auto cum = [&](const std::vector<long double> &c, double x) {
        const double pos = (x + 1) / h;
        const auto i = static_cast<std::int64_t>(std::clamp(std::floor(pos), 0.0, static_cast<double>(N - 1)));
        const long double frac = pos - i;
        return c[i] + (c[i + 1] - c[i]) * frac;
    };
    std::vector<double> lv(16);
    for (int i = 0; i < 16; ++i)
        lv[i] = (-0.9 + 1.8 * i / 15.0) * 3 / std::sqrt(static_cast<double>(d));
    for (int it = 0; it < 200000; ++it) {
        double move = 0;
        std::vector<double> b(17);
        b[0] = -1;
        b[16] = 1;
        for (int i = 1; i < 16; ++i)
            b[i] = (lv[i - 1] + lv[i]) / 2;
        for (int i = 0; i < 16; ++i) {
            const long double m0 = cum(c0, b[i + 1]) - cum(c0, b[i]);
            const long double m1 = cum(c1, b[i + 1]) - cum(c1, b[i]);
            const double nl = static_cast<double>(m1 / m0);
            move = std::max(move, std::fabs(nl - lv[i]));
            lv[i] = nl;
        }
        if (move < 1e-14)
            break;
    }
    return lv;
}

/// Keys with heavy outlier channels (RoPE-like pairs), seeded.
std::vector<float> outlierKeys(std::int64_t H, std::int64_t T, std::int64_t d, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0, 1);
    std::vector<float> x(static_cast<std::size_t>(H * T * d));
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t j = 0; j < d; ++j) {
                const float big = (j % 16 == 3 || j % 16 == 4) ? 12.0f : 1.0f;
                x[static_cast<std::size_t>((h * T + t) * d + j)] = n(rng) * big + (j == 3 ? 4.0f : 0.0f);
            }
    return x;
}

/// Nearest E4M3 value of a finite x (saturating at ±448), ties to the even code, by search.
float e4m3Nearest(float x)
{
    float best = 0;
    int bestCode = 0;
    double bestErr = INFINITY;
    for (int c = 0; c < 256; ++c) {
        const float v = e4m3ToFloat(static_cast<std::uint8_t>(c));
        if (!std::isfinite(v))
            continue;
        const double err = std::fabs(static_cast<double>(std::clamp(x, -448.0f, 448.0f)) - v);
        if (err < bestErr || (err == bestErr && (c & 1) == 0 && (bestCode & 1) == 1)) {
            bestErr = err;
            best = v;
            bestCode = c;
        }
    }
    return best;
}

std::vector<float> dequant(const Quantizer &q, const std::vector<float> &x, std::int64_t rows, std::int64_t d)
{
    const Tensor t = Tensor::fromFloats({rows, d}, x);
    QuantizeOptions o;
    o.threads = 1;
    return q.quantize(t, o).dequantized;
}

KvLayerContext ctxOf(std::int64_t H, std::int64_t T, std::int64_t d)
{
    KvLayerContext c;
    c.heads = H;
    c.tokens = T;
    c.dim = d;
    return c;
}

fs::path tmpPath(const std::string &name)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_kv_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

} // namespace

TEST(KvCodebook, SphereLawEqualsAnIndependentLloydIteration)
{
    for (const int d : {64, 128, 256}) {
        const KvCodebookFit fit = lloydMaxSphere(d);
        ASSERT_EQ(fit.levels.size(), 16u);
        EXPECT_LE(fit.maxMove, 1e-9) << "d " << d << " did not converge";
        const auto ref = independentLloyd(d);
        for (int i = 0; i < 16; ++i)
            EXPECT_NEAR(fit.levels[i], ref[i], 1e-9) << "d " << d << " level " << i;
        // Symmetric, ascending, inside the Gaussian limit (the exact law has lighter tails).
        for (int i = 0; i < 8; ++i)
            EXPECT_DOUBLE_EQ(fit.levels[i], -fit.levels[15 - i]);
        EXPECT_LT(fit.levels.back(), gaussianLloydMax16().back() / std::sqrt(static_cast<double>(d)));
    }
}

TEST(KvCodebook, SphereDistortionMatchesSampledUnitVectors)
{
    const int d = 64;
    const KvCodebookFit fit = lloydMaxSphere(d);
    std::mt19937 rng(7);
    std::normal_distribution<double> n(0, 1);
    double sse = 0;
    std::int64_t count = 0;
    for (int v = 0; v < 20000; ++v) {
        std::vector<double> g(d);
        double n2 = 0;
        for (double &x : g) {
            x = n(rng);
            n2 += x * x;
        }
        for (double x : g) {
            const double t = x / std::sqrt(n2);
            double best = INFINITY;
            for (double l : fit.levels)
                best = std::min(best, (t - l) * (t - l));
            sse += best;
            ++count;
        }
    }
    EXPECT_NEAR(sse / count, fit.mse, 0.02 * fit.mse);
}

TEST(KvCodebook, HistogramLloydRecoversTwoClusters)
{
    std::vector<float> s;
    for (int i = 0; i < 1000; ++i) {
        s.push_back(-0.5f + 0.001f * (i % 7));
        s.push_back(0.5f - 0.001f * (i % 5));
    }
    std::vector<double> init(16);
    for (int i = 0; i < 16; ++i)
        init[i] = -0.75 + 0.1 * i;
    const auto fit = lloydMaxSamples(s, init);
    double lo = INFINITY, hi = -INFINITY;
    for (double l : fit.levels) {
        lo = std::min(lo, std::fabs(l + 0.497));
        hi = std::min(hi, std::fabs(l - 0.498));
    }
    EXPECT_LT(lo, 0.01);
    EXPECT_LT(hi, 0.01);
    EXPECT_LT(fit.mse, 1e-5);
}

TEST(KvSchemes, NamesRoundTripAndBadTextIsRefused)
{
    for (const auto &s : defaultKvSchemes())
        EXPECT_EQ(KvScheme::parse(s.name()), s) << s.name();
    EXPECT_EQ(KvScheme::parse("constopt:c=fit,unrounded").name(), "constopt:c=fit,unrounded");
    EXPECT_THROW(KvScheme::parse("int3"), UnsupportedError);
    EXPECT_THROW(KvScheme::parse("fp8:c=2"), UnsupportedError);
    EXPECT_THROW(KvScheme::parse("constopt:c=-1"), UnsupportedError);
    EXPECT_THROW(KvScheme::parse("constopt:c=abc"), UnsupportedError);
    try {
        KvScheme::parse("int3");
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("int3"), std::string::npos);
    }
}

TEST(KvSchemes, Fp8RulesEqualAScalarE4m3Search)
{
    const std::int64_t H = 2, T = 40, d = 64;
    const auto x = outlierKeys(H, T, d, 1);
    float amax = 0, amax0 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        amax = std::max(amax, std::fabs(x[i]));
        if (static_cast<std::int64_t>(i) < T * d)
            amax0 = std::max(amax0, std::fabs(x[i]));
    }
    struct Case {
        const char *name;
        KvRole role;
        float s0, s1;
    };
    const float a448 = amax / 448.0f;
    float amax1 = 0;
    for (std::int64_t i = T * d; i < 2 * T * d; ++i)
        amax1 = std::max(amax1, std::fabs(x[static_cast<std::size_t>(i)]));
    for (const Case c :
         {Case{"fp8", KvRole::K, a448, a448}, Case{"fp8-head", KvRole::K, amax0 / 448.0f, amax1 / 448.0f},
          Case{"fp8-vllm", KvRole::K, amax / 200.0f, amax / 200.0f},
          Case{"fp8-vllm", KvRole::V, amax / 100.0f, amax / 100.0f}, Case{"fp8-unit", KvRole::V, 1, 1}}) {
        const auto y = kvQuantize(KvScheme::parse(c.name), c.role, x, ctxOf(H, T, d));
        for (std::size_t i = 0; i < x.size(); ++i) {
            const float s = static_cast<std::int64_t>(i) < T * d ? c.s0 : c.s1;
            ASSERT_EQ(y[i], e4m3Nearest(x[i] / s) * s) << c.name << " element " << i;
        }
    }
}

TEST(KvSchemes, Int4KiviEqualsAScalarReimplementation)
{
    const std::int64_t H = 2, T = 70, d = 64; // 70 tokens: a ragged last token group for K
    const auto x = outlierKeys(H, T, d, 2);
    for (const KvRole role : {KvRole::K, KvRole::V}) {
        const auto y = kvQuantize(KvScheme::parse("int4"), role, x, ctxOf(H, T, d));
        for (std::int64_t h = 0; h < H; ++h) {
            // groups: K = (channel j, tokens t0..t0+31), V = (token t, channels j0..j0+31)
            const std::int64_t outer = role == KvRole::K ? d : T, inner = role == KvRole::K ? T : d;
            for (std::int64_t o = 0; o < outer; ++o)
                for (std::int64_t g0 = 0; g0 < inner; g0 += 32) {
                    auto idx = [&](std::int64_t i) {
                        return role == KvRole::K ? (h * T + i) * d + o : (h * T + o) * d + i;
                    };
                    const std::int64_t g1 = std::min(inner, g0 + 32);
                    float mn = INFINITY, mx = -INFINITY;
                    for (std::int64_t i = g0; i < g1; ++i) {
                        mn = std::min(mn, x[static_cast<std::size_t>(idx(i))]);
                        mx = std::max(mx, x[static_cast<std::size_t>(idx(i))]);
                    }
                    const float s = f16ToFloat(floatToF16((mx - mn) / 15.0f));
                    const float z = f16ToFloat(floatToF16(mn));
                    for (std::int64_t i = g0; i < g1; ++i) {
                        const float v = x[static_cast<std::size_t>(idx(i))];
                        const float q = std::clamp(std::nearbyint((v - z) / s), 0.0f, 15.0f);
                        ASSERT_EQ(y[static_cast<std::size_t>(idx(i))], q * s + z);
                    }
                }
        }
    }
}

TEST(KvSchemes, Fp4SchemesEqualTheWeightQuantizersOnTheSameRows)
{
    const std::int64_t H = 3, T = 50, d = 64;
    const auto x = outlierKeys(H, T, d, 3);
    const auto ctx = ctxOf(H, T, d);
    MxFp4Spec mx;
    EXPECT_EQ(kvQuantize(KvScheme::parse("mxfp4"), KvRole::K, x, ctx), dequant(MxFp4Quantizer(mx), x, H * T, d));
    NvFp4Spec nv;
    EXPECT_EQ(kvQuantize(KvScheme::parse("nvfp4"), KvRole::V, x, ctx), dequant(NvFp4Quantizer(nv), x, H * T, d));
    for (const double c : {0.156, 0.195}) {
        for (const bool unrounded : {false, true}) {
            ConstOptSpec co;
            co.c = c;
            co.rotate = d;
            co.encoder = unrounded ? ConstOptEncoder::Unrounded : ConstOptEncoder::Pow2;
            KvScheme s = KvScheme::parse("constopt");
            s.c = c;
            s.unrounded = unrounded;
            auto cc = ctx;
            cc.c = c;
            EXPECT_EQ(kvQuantize(s, KvRole::K, x, cc), dequant(ConstOptQuantizer(co), x, H * T, d))
                << "c " << c << (unrounded ? " unrounded" : " pow2");
        }
    }
}

TEST(KvSchemes, CodebookEqualsABruteForceNearestLevel)
{
    const std::int64_t H = 2, T = 30, d = 64;
    const auto x = outlierKeys(H, T, d, 4);
    auto ctx = ctxOf(H, T, d);
    ctx.levels = lloydMaxSphere(d).levels;
    for (const char *name : {"codebook", "codebook-norot"}) {
        const bool rot = std::string(name) == "codebook";
        const auto y = kvQuantize(KvScheme::parse(name), KvRole::K, x, ctx);
        for (std::int64_t r = 0; r < H * T; ++r) {
            std::vector<float> row(x.begin() + r * d, x.begin() + (r + 1) * d);
            double n2 = 0;
            for (float v : row)
                n2 += static_cast<double>(v) * v;
            const float nf = static_cast<float>(std::sqrt(n2));
            for (float &v : row)
                v /= nf;
            if (rot)
                kvRotateRows(row, d, d);
            for (float &v : row) {
                // nearest level (the boundaries are the FP32 midpoints; no value of this data is a tie)
                double best = INFINITY;
                float pick = 0;
                for (double l : ctx.levels)
                    if (std::fabs(v - l) < best) {
                        best = std::fabs(v - l);
                        pick = static_cast<float>(l);
                    }
                v = pick;
            }
            if (rot)
                kvRotateRows(row, d, d);
            const float n16 = f16ToFloat(floatToF16(nf));
            for (std::int64_t j = 0; j < d; ++j)
                ASSERT_EQ(y[static_cast<std::size_t>(r * d + j)], n16 * row[static_cast<std::size_t>(j)])
                    << name << " row " << r << " channel " << j;
        }
    }
}

TEST(KvSchemes, RotationKeepsNormsAndLowersOutlierKurtosis)
{
    const std::int64_t d = 128;
    auto x = outlierKeys(1, 200, d, 5);
    const auto before = x;
    kvRotateRows(x, d, d);
    for (std::int64_t r = 0; r < 200; ++r) {
        double a = 0, b = 0;
        for (std::int64_t j = 0; j < d; ++j) {
            a += static_cast<double>(before[static_cast<std::size_t>(r * d + j)]) *
                 before[static_cast<std::size_t>(r * d + j)];
            b += static_cast<double>(x[static_cast<std::size_t>(r * d + j)]) * x[static_cast<std::size_t>(r * d + j)];
        }
        EXPECT_NEAR(std::sqrt(b), std::sqrt(a), 1e-6 * std::sqrt(a));
    }
    auto kurt = [](const std::vector<float> &v) {
        double m = 0, m2 = 0, m4 = 0;
        for (float e : v)
            m += e;
        m /= v.size();
        for (float e : v) {
            m2 += (e - m) * (e - m);
            m4 += std::pow(e - m, 4);
        }
        m2 /= v.size();
        m4 /= v.size();
        return m4 / (m2 * m2) - 3;
    };
    EXPECT_LT(kurt(x), 0.5 * kurt(before));
    EXPECT_EQ(kvRotationBlock(64), 64);
    EXPECT_EQ(kvRotationBlock(80), 16);
    EXPECT_EQ(kvRotationBlock(96), 32);
    EXPECT_EQ(kvRotationBlock(7), 1);
    EXPECT_THROW(kvQuantize(KvScheme::parse("constopt"), KvRole::K, std::vector<float>(7, 1.0f), ctxOf(1, 1, 7)),
                 UnsupportedError);
}

TEST(KvLab, AttentionErrorEqualsADirectComputation)
{
    const std::int64_t T = 48, d = 16, seg = 24;
    std::mt19937 rng(9);
    std::normal_distribution<float> n(0, 1);
    std::vector<float> q(T * d), k(T * d), v(T * d), kq(T * d), vq(T * d);
    for (std::int64_t i = 0; i < T * d; ++i) {
        q[i] = n(rng);
        k[i] = n(rng);
        v[i] = n(rng);
        kq[i] = k[i] + 0.1f * n(rng);
        vq[i] = v[i] + 0.1f * n(rng);
    }
    std::vector<std::int64_t> rows;
    for (std::int64_t i = 0; i < T; i += 3)
        rows.push_back(i);
    const auto e = kvAttentionError(q.data(), k.data(), v.data(), kq.data(), vq.data(), T, d, seg, rows);
    test::expectEqualsDirect(e, q, k, v, kq, vq, d, seg, rows, false);
}

// The query heads of one KV head are scored together, and two queries of one causal segment share
// each tile of K̂ and V̂: every number must equal scoring each head and query alone, bit for bit,
// and the direct computation. The rows mix pairs of one segment (different key counts, a tail of
// keys only the second reads), a query alone in its segment, a descending pair (not paired) and an
// odd count; d = 20 leaves channels past the last block of eight.
TEST(KvLab, GroupedHeadsAndPairedQueriesEqualOneByOne)
{
    const std::int64_t T = 96, d = 20, seg = 32;
    std::mt19937 rng(12);
    std::normal_distribution<float> n(0, 1);
    auto draw = [&](std::int64_t count, float noise, const std::vector<float> *base) {
        std::vector<float> x(static_cast<std::size_t>(count));
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = base ? (*base)[i] + noise * n(rng) : n(rng);
        return x;
    };
    const auto k = draw(T * d, 0, nullptr), v = draw(T * d, 0, nullptr);
    const auto kq = draw(T * d, 0.1f, &k), vq = draw(T * d, 0.1f, &v);
    const std::vector<std::int64_t> rows{1, 9, 10, 30, 40, 70, 64, 65, 66, 95};
    const std::int64_t end = kvKeyEnd(T, seg, rows);
    KvKeyTiles kt, kqt;
    kt.build(k.data(), end, d);
    kt.buildValues(v.data());
    kqt.build(kq.data(), end, d);
    kqt.buildValues(vq.data());
    for (std::int64_t heads = 1; heads <= 4; ++heads) {
        std::vector<std::vector<float>> qs;
        std::vector<KvAttnRef> refs;
        for (std::int64_t h = 0; h < heads; ++h) {
            qs.push_back(draw(T * d, 0, nullptr));
            refs.push_back(kvAttnRef(qs.back().data(), kt, T, seg, rows));
        }
        // The reference side grouped (three heads a load, paired queries): the same bits.
        std::vector<const float *> qp;
        for (const auto &q : qs)
            qp.push_back(q.data());
        const std::vector<KvAttnRef> groupRefs = kvAttnRefGroup(qp.data(), heads, kt, T, seg, rows);
        ASSERT_EQ(groupRefs.size(), refs.size());
        for (std::size_t h = 0; h < refs.size(); ++h) {
            EXPECT_EQ(groupRefs[h].start, refs[h].start);
            EXPECT_EQ(groupRefs[h].count, refs[h].count);
            for (const auto &[a, b] : {std::pair{&groupRefs[h].p, &refs[h].p}, std::pair{&groupRefs[h].lp, &refs[h].lp},
                                       std::pair{&groupRefs[h].o, &refs[h].o}}) {
                ASSERT_EQ(a->size(), b->size());
                for (std::size_t i = 0; i < a->size(); ++i)
                    ASSERT_EQ(std::bit_cast<std::uint64_t>((*a)[i]), std::bit_cast<std::uint64_t>((*b)[i])) << i;
            }
        }
        std::vector<const KvAttnRef *> ptrs;
        for (const auto &r : refs)
            ptrs.push_back(&r);
        KvAttnScratch sc;
        std::vector<KvAttentionError> grouped(static_cast<std::size_t>(heads));
        kvAttnAgainstGroup(ptrs.data(), heads, kqt, sc, grouped.data());
        // A second V̂ beside (the plan's): its errors from the same scores equal a call of their own.
        {
            const auto vq2 = draw(T * d, 0.2f, &v);
            KvKeyTiles kqt2;
            kqt2.build(kq.data(), end, d);
            kqt2.buildValues(vq2.data());
            std::vector<KvAttentionError> first(static_cast<std::size_t>(heads)), beside(first), own(first);
            kvAttnAgainstGroup(ptrs.data(), heads, kqt, sc, first.data(), &kqt2.values, beside.data());
            kvAttnAgainstGroup(ptrs.data(), heads, kqt2, sc, own.data());
            for (std::int64_t h = 0; h < heads; ++h) {
                const auto &b = beside[static_cast<std::size_t>(h)], &o = own[static_cast<std::size_t>(h)];
                for (const auto [x, y] : {std::pair{b.kl, o.kl}, std::pair{b.scoreMaxErr, o.scoreMaxErr},
                                          std::pair{b.outMse, o.outMse}, std::pair{b.outRel, o.outRel}})
                    EXPECT_EQ(std::bit_cast<std::uint64_t>(x), std::bit_cast<std::uint64_t>(y)) << "head " << h;
                EXPECT_EQ(b.queries, o.queries);
                EXPECT_EQ(std::bit_cast<std::uint64_t>(first[static_cast<std::size_t>(h)].outMse),
                          std::bit_cast<std::uint64_t>(grouped[static_cast<std::size_t>(h)].outMse));
                EXPECT_NE(b.outMse, first[static_cast<std::size_t>(h)].outMse); // the second V̂ differs
            }
        }
        for (std::int64_t h = 0; h < heads; ++h) {
            SCOPED_TRACE("heads " + std::to_string(heads) + ", head " + std::to_string(h));
            // One query at a time: a reference per row, their sums in row order.
            double kl = 0, err = 0, ref = 0, maxErr = 0;
            for (const std::int64_t row : rows) {
                const KvAttnRef one = kvAttnRef(qs[static_cast<std::size_t>(h)].data(), kt, T, seg, {row});
                const KvAttentionError e = kvAttnAgainst(one, kqt, sc);
                kl += e.kl;
                err += e.outMse * static_cast<double>(d);
                ref += e.outRel > 0 ? e.outMse * static_cast<double>(d) / e.outRel : 0;
                maxErr = std::max(maxErr, e.scoreMaxErr);
            }
            const KvAttentionError &g = grouped[static_cast<std::size_t>(h)];
            EXPECT_EQ(g.queries, static_cast<std::int64_t>(rows.size()));
            EXPECT_EQ(g.scoreMaxErr, maxErr); // a maximum: exact in any grouping
            EXPECT_EQ(g.kl, kl / static_cast<double>(rows.size())) << "KL summed in row order";
            EXPECT_NEAR(g.outMse * static_cast<double>(rows.size() * d), err, 1e-12 * err);
            test::expectEqualsDirect(g, qs[static_cast<std::size_t>(h)], k, v, kq, vq, d, seg, rows, false);
            // The same head alone (no grouping) gives the same bits.
            const KvAttentionError alone = kvAttnAgainst(refs[static_cast<std::size_t>(h)], kqt, sc);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(alone.kl), std::bit_cast<std::uint64_t>(g.kl));
            EXPECT_EQ(std::bit_cast<std::uint64_t>(alone.outMse), std::bit_cast<std::uint64_t>(g.outMse));
            EXPECT_EQ(std::bit_cast<std::uint64_t>(alone.outRel), std::bit_cast<std::uint64_t>(g.outRel));
            EXPECT_EQ(std::bit_cast<std::uint64_t>(alone.scoreMaxErr), std::bit_cast<std::uint64_t>(g.scoreMaxErr));
        }
    }
}

TEST(KvLab, StudyOnOutlierKeysShowsThePapersFindings)
{
    const std::int64_t L = 4, Hkv = 2, T = 256, d = 64, H = 4, Q = 64;
    std::vector<float> k, v, q;
    for (std::int64_t l = 0; l < L; ++l) {
        const auto kl = outlierKeys(Hkv, T, d, 10 + l), vl = outlierKeys(Hkv, T, d, 20 + l);
        k.insert(k.end(), kl.begin(), kl.end());
        v.insert(v.end(), vl.begin(), vl.end());
        const auto ql = outlierKeys(H, Q, d, 30 + l);
        q.insert(q.end(), ql.begin(), ql.end());
    }
    for (float &x : q)
        x *= 0.05f;
    const KvData data = kvFromArrays("synthetic", Tensor::fromFloats({L, Hkv, T, d}, k),
                                     Tensor::fromFloats({L, Hkv, T, d}, v), Tensor::fromFloats({L, H, Q, d}, q));
    KvLabOptions o;
    o.distortionVectors = 512;
    o.boundary = 1;
    const KvLabReport r = runKvLab(data, o);
    ASSERT_EQ(r.schemes.size(), defaultKvSchemes().size());
    for (const auto &s : r.schemes) {
        ASSERT_TRUE(s.attention) << s.name;
        EXPECT_EQ(s.attention->queries, L * H * 64);
        EXPECT_GE(s.kMse, 0);
        if (s.name == "bf16") {
            EXPECT_LT(s.kRel, 1e-5);
            EXPECT_DOUBLE_EQ(s.bytesPerToken, L * Hkv * 2.0 * (2 * d));
        }
    }
    // Rotation helps the codebook on outlier-channel keys; the refit does not hurt.
    EXPECT_GT(r.unrotatedOverRotated, 1.0);
    EXPECT_GT(r.calibratedGain, -1e-3);
    for (std::int64_t l = 0; l < L; ++l)
        EXPECT_LT(r.kurtosisAfter[l], r.kurtosisBefore[l]);
    EXPECT_LT(r.rotationNormError, 1e-6);
    // c* is the grid minimum and inside its own flat interval.
    for (double m : r.sweep.msePow2)
        EXPECT_GE(m, r.sweep.cStarMse);
    EXPECT_LE(r.sweep.intervalLo, r.sweep.cStar);
    EXPECT_GE(r.sweep.intervalHi, r.sweep.cStar);
    EXPECT_EQ(r.sweep.c.size(), 701u);
    // The lab's fast curves: pow2 bit-identical to the sweep's own evaluator on the same rotated
    // keys, unrounded (histogram form) within 1e-6 relative.
    {
        std::vector<float> rot = k;
        kvRotateRows(rot, d, d);
        const auto pow2 = makeCpuSweepEvaluator(rot, L * Hkv * T, d, 32, ConstOptEncoder::Pow2, 0.05f, 0.4f, 1);
        const auto unr = makeCpuSweepEvaluator(rot, L * Hkv * T, d, 32, ConstOptEncoder::Unrounded, 0.05f, 0.4f, 1);
        const auto a = pow2->mse(r.sweep.c, nullptr), b = unr->mse(r.sweep.c, nullptr);
        for (std::size_t i = 0; i < a.size(); i += 7) {
            ASSERT_EQ(r.sweep.msePow2[i], a[i]) << "c " << r.sweep.c[i];
            // the one-pass curve has the bits of the per-point sum
            ASSERT_EQ(a[i], pow2->mse(static_cast<float>(r.sweep.c[i]))) << "c " << r.sweep.c[i];
            ASSERT_NEAR(r.sweep.mseUnrounded[i], b[i], 1e-6 * b[i]) << "c " << r.sweep.c[i];
        }
    }
    // The plan: boundary layers are BF16 in storage.
    const double per = Hkv * (KvScheme::parse("constopt").bytesPerToken(KvRole::K, d) +
                              KvScheme::parse("fp8").bytesPerToken(KvRole::V, d));
    EXPECT_DOUBLE_EQ(r.plan.bytesPerToken, 2 * Hkv * 4.0 * d + (L - 2) * per);
    EXPECT_EQ(r.plan.contextTokens, static_cast<std::int64_t>(80.0 * 1024 * 1024 * 1024 / r.plan.bytesPerToken));
    // The Lloyd–Max floor is below every FP4 scheme on the theoretical law.
    for (const auto &x : r.distortion) {
        EXPECT_LT(x.lloydMax, x.constOptStar) << x.source << " d " << x.d;
        EXPECT_LE(x.constOptStar, x.constOpt0156);
    }
    const auto j = r.toJson();
    EXPECT_EQ(j["codebooks"]["theory"]["levels"].size(), 16u);
    EXPECT_EQ(j["codebooks"]["k_layer"].size(), static_cast<std::size_t>(L));
}

TEST(KvData, SafetensorsLayoutsAndEveryLie)
{
    const std::int64_t L = 2, H = 2, T = 8, d = 16;
    std::vector<float> k(L * H * T * d), v(k.size()), q(L * 4 * T * d);
    for (std::size_t i = 0; i < k.size(); ++i) {
        k[i] = std::sin(0.1f * i);
        v[i] = std::cos(0.1f * i);
    }
    for (std::size_t i = 0; i < q.size(); ++i)
        q[i] = std::sin(0.3f * i);
    const fs::path all = tmpPath("all.safetensors");
    writeSafetensors(all, {{"k", Tensor::fromFloats({L, H, T, d}, k)},
                           {"v", Tensor::fromFloats({L, H, T, d}, v)},
                           {"q", Tensor::fromFloats({L, 4, T, d}, q)}});
    const KvData a = loadKv(all);
    EXPECT_EQ(a.layers.size(), 2u);
    EXPECT_EQ(a.heads, 4);
    EXPECT_EQ(a.kvHeads, H);
    EXPECT_EQ(a.segment, T);
    EXPECT_EQ(a.layers[1].k[0], k[H * T * d]);

    // Per-layer tensors, numeric order (layers.10 after layers.2).
    const fs::path per = tmpPath("per.safetensors");
    std::vector<std::pair<std::string, Tensor>> ts;
    for (const int li : {10, 2})
        for (const char *w : {"k", "v"})
            ts.push_back({"model.layers." + std::to_string(li) + ".self_attn." + w,
                          Tensor::fromFloats({H, T, d}, std::span<const float>(k.data(), H * T * d))});
    writeSafetensors(per, ts);
    const KvData p = loadKv(per);
    ASSERT_EQ(p.layers.size(), 2u);
    EXPECT_EQ(p.layers[0].layer, 2);
    EXPECT_EQ(p.layers[1].layer, 10);
    EXPECT_FALSE(p.hasQueries());
    EXPECT_FALSE(p.notes.empty());

    auto refused = [](const fs::path &f, const std::string &needle) {
        try {
            loadKv(f);
            ADD_FAILURE() << f << " was accepted";
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(f.filename().string()), std::string::npos) << e.what();
        }
    };
    const fs::path disagree = tmpPath("disagree.safetensors");
    writeSafetensors(disagree,
                     {{"k", Tensor::fromFloats({L, H, T, d}, k)},
                      {"v", Tensor::fromFloats({L, H, T / 2, d}, std::span<const float>(v.data(), v.size() / 2))}});
    refused(disagree, "disagree");
    auto kn = k;
    kn[(1 * H + 1) * T * d + 5 * d + 2] = NAN;
    const fs::path nan = tmpPath("nan.safetensors");
    writeSafetensors(nan, {{"k", Tensor::fromFloats({L, H, T, d}, kn)}, {"v", Tensor::fromFloats({L, H, T, d}, v)}});
    refused(nan, "layer 1 head 1 holds NaN at token 5");
    const fs::path gqa = tmpPath("gqa.safetensors");
    writeSafetensors(gqa, {{"k", Tensor::fromFloats({L, H, T, d}, k)},
                           {"v", Tensor::fromFloats({L, H, T, d}, v)},
                           {"q", Tensor::fromFloats({L, 3, T, d}, std::span<const float>(q.data(), L * 3 * T * d))}});
    refused(gqa, "multiple of the KV heads");
    const fs::path none = tmpPath("none.safetensors");
    writeSafetensors(none, {{"w", Tensor::fromFloats({2, 2}, std::vector<float>{1, 2, 3, 4})}});
    refused(none, "no K/V arrays");
    const fs::path rank = tmpPath("rank.safetensors");
    writeSafetensors(rank, {{"k", Tensor::fromFloats({H * T, d}, std::span<const float>(k.data(), H * T * d))},
                            {"v", Tensor::fromFloats({H * T, d}, std::span<const float>(v.data(), H * T * d))}});
    refused(rank, "expected [layers, heads, tokens, head_dim]");
    const fs::path txt = tmpPath("kv.txt");
    refused(txt, "not a K/V file");
}

TEST(KvData, NpyStackedKv)
{
    const std::int64_t L = 3, H = 1, T = 4, d = 8;
    std::vector<float> kv(2 * L * H * T * d);
    for (std::size_t i = 0; i < kv.size(); ++i)
        kv[i] = static_cast<float>(i);
    const fs::path f = tmpPath("kv.npy");
    writeNpy(f, Tensor::fromFloats({2, L, H, T, d}, kv));
    const KvData data = loadKv(f);
    ASSERT_EQ(data.layers.size(), 3u);
    EXPECT_EQ(data.layers[2].v.back(), kv.back());
    EXPECT_EQ(data.layers[0].k.front(), 0.0f);
    const fs::path bad = tmpPath("bad.npy");
    writeNpy(bad, Tensor::fromFloats({L, H, T, d}, std::span<const float>(kv.data(), L * H * T * d)));
    EXPECT_THROW(loadKv(bad), FormatError);
}

TEST(KvData, CaptureHoldsCachesAndQueries)
{
    const fs::path cap =
        fs::path(QUANTSCOPE_SOURCE_DIR) / "tests" / "data" / "capture" / "stories260K.capture.safetensors";
    if (!fs::exists(cap))
        GTEST_SKIP() << "the committed golden capture is absent: " << cap;
    const KvData data = loadKv(cap);
    EXPECT_EQ(data.kind, "capture");
    EXPECT_EQ(data.layers.size(), 5u);
    EXPECT_TRUE(data.hasQueries());
    EXPECT_EQ(data.heads % data.kvHeads, 0);
    EXPECT_GT(data.segment, 0);
    EXPECT_EQ(data.rope, "post");
}

TEST(KvData, TheExampleFileHoldsTheCapturesCaches)
{
    const fs::path src = QUANTSCOPE_SOURCE_DIR;
    const fs::path cap = src / "tests" / "data" / "capture" / "stories260K.capture.safetensors";
    const fs::path ex = src / "examples" / "stories260K-kv.safetensors";
    if (!fs::exists(cap) || !fs::exists(ex))
        GTEST_SKIP() << "the committed capture or example is absent";
    const KvData a = loadKv(cap), b = loadKv(ex);
    ASSERT_EQ(a.layers.size(), b.layers.size());
    EXPECT_EQ(a.segment, b.segment); // the example's `seq` metadata
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        EXPECT_EQ(a.layers[i].layer, b.layers[i].layer);
        EXPECT_EQ(a.layers[i].k, b.layers[i].k);
        EXPECT_EQ(a.layers[i].v, b.layers[i].v);
        EXPECT_EQ(a.layers[i].q, b.layers[i].q);
    }
}

TEST(KvMath, E4m3CastEqualsTheConverterOnASweepOfPatterns)
{
    // Every pattern near the E4M3 grid (the 2^16 patterns of each top half-word) and a stride over
    // the rest: kv_math.h's cast (shared with the GPU kernels) is tensor/convert.h's.
    for (std::uint64_t u = 0; u < (1ull << 32); u += 4093) {
        const float x = std::bit_cast<float>(static_cast<std::uint32_t>(u));
        ASSERT_EQ(kvmath::e4m3Code(x), floatToE4m3(x)) << std::hex << u;
    }
    for (std::uint32_t hi = 0x3A00; hi <= 0x43F0; ++hi)
        for (std::uint32_t lo = 0; lo < 0x10000; lo += 97)
            for (const std::uint32_t s : {0u, 0x80000000u}) {
                const std::uint32_t u = s | (hi << 16) | lo;
                const float x = std::bit_cast<float>(u);
                ASSERT_EQ(kvmath::e4m3Code(x), floatToE4m3(x)) << std::hex << u;
            }
    for (int b = 0; b < 256; ++b) {
        const float ref = e4m3ToFloat(static_cast<std::uint8_t>(b)),
                    got = kvmath::e4m3Value(static_cast<std::uint8_t>(b));
        if (std::isnan(ref))
            EXPECT_TRUE(std::isnan(got)) << b;
        else
            EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(ref)) << b;
    }
}
