// SPDX-License-Identifier: MIT
// The KV lab's CPU fast paths (kv_rows_cpu.h, kv_attention.h) against the scalar kv_math.h
// functions the GPU kernels share: bit for bit, every scheme, d = 64, 128, 96 (and 40: partial
// transposes), on seeded heavy-tailed rows and edge cases; kvExp against std::exp; the attention
// errors against a direct long-double computation on shapes that exercise the partial tiles.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "kv_attention_direct.h"
#include "kv/kv_attention.h"
#include "kv/kv_codebook.h"
#include "kv/kv_math.h"
#include "kv/kv_rows_cpu.h"
#include "kv/kv_schemes.h"
#include "numeric/fp4math.h"
#include "numeric/csweep_math.h"
#include "numeric/hadamard.h"
#include "numeric/lanes.h"

using namespace quantscope;

namespace {

/// rows × d values: heavy-tailed rows (normal × exp(normal), outlier channels), then edge rows:
/// all zeros, one non-zero value, exact E2M1/E4M3 grid points and midpoints (ties) at several
/// powers of two, FP32 subnormals, signed zeros, a constant row. Rows is not a multiple of 16.
std::vector<float> edgeRows(std::int64_t rows, std::int64_t d, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0, 1);
    std::uniform_int_distribution<int> pick(0, 15), pw(-6, 6);
    std::vector<float> x(static_cast<std::size_t>(rows * d));
    const float grid[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f,
                          2.0f, 2.5f,  3.0f, 3.5f,  4.0f, 5.0f,  6.0f, 448.0f};
    for (std::int64_t i = 0; i < rows; ++i) {
        float *r = x.data() + i * d;
        const int kind = static_cast<int>(i % 11);
        for (std::int64_t j = 0; j < d; ++j) {
            float v = n(rng) * std::exp(n(rng));
            if (j % 17 == 3)
                v *= 40.0f; // outlier channel
            switch (kind) {
            case 1:
                v = 0.0f;
                break;
            case 2:
                v = j == (i % d) ? v : 0.0f;
                break;
            case 3:
            case 4:
                v = std::ldexp(grid[pick(rng)], pw(rng)) * (pick(rng) % 2 ? -1.0f : 1.0f);
                break;
            case 5:
                v = std::ldexp(n(rng), -135); // FP32 subnormals
                break;
            case 6:
                v = pick(rng) % 3 == 0 ? -0.0f : (pick(rng) % 2 ? 0.0f : v);
                break;
            case 7:
                v = 0.75f;
                break;
            case 8:
                v = std::ldexp(grid[pick(rng)], -20) + std::ldexp(n(rng), -140);
                break;
            default:
                break;
            }
            r[j] = v;
        }
    }
    return x;
}

void expectSameBits(const std::vector<float> &got, const std::vector<float> &want, const std::string &what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i]) && bad++ == 0)
            first = i;
    EXPECT_EQ(bad, 0u) << what << ": first at " << first << " got " << got[first] << " want " << want[first];
}

constexpr std::int64_t kRows = 16 * 7 + 5;

} // namespace

TEST(KvRowsCpu, EverySchemeEqualsTheScalarRowFunctionsBitForBit)
{
    for (const std::int64_t d : {64, 128, 96, 40}) {
        const std::vector<float> x = edgeRows(kRows, d, static_cast<std::uint32_t>(d));
        const std::int64_t n = kRows * d, b = kvRotationBlock(d);
        const float r = hadamardNorm(b);
        const std::string at = " d=" + std::to_string(d);
        std::vector<float> got(x.size()), want(x.size()), tmp(static_cast<std::size_t>(d));

        kvfast::bf16Values(x.data(), got.data(), n);
        for (std::int64_t i = 0; i < n; ++i)
            want[i] = qmath::roundBf16(x[i]);
        expectSameBits(got, want, "bf16" + at);

        const float amax = kvmath::absmax(x.data(), n);
        for (const std::int64_t len : {n, n - 7, std::int64_t{5}, d * 13})
            EXPECT_EQ(std::bit_cast<std::uint32_t>(kvfast::absmax(x.data() + (n - len), len)),
                      std::bit_cast<std::uint32_t>(kvmath::absmax(x.data() + (n - len), len)))
                << "absmax of " << len << at;
        for (const float s : {amax / 448.0f, amax / 200.0f, amax / 100.0f, 1.0f, 1e-30f, 0.0f}) {
            kvfast::fp8Values(x.data(), got.data(), n, s);
            for (std::int64_t i = 0; i < n; ++i)
                want[i] = kvmath::fp8Value(x[i], s);
            expectSameBits(got, want, "fp8 s=" + std::to_string(s) + at);
        }

        const KvCodebookFit theory = lloydMaxSphere(d);
        std::vector<float> lv(16), bound(15);
        for (int i = 0; i < 16; ++i)
            lv[i] = static_cast<float>(theory.levels[i]);
        for (int i = 0; i < 15; ++i)
            bound[i] = static_cast<float>((theory.levels[i] + theory.levels[i + 1]) / 2);
        for (const bool rot : {true, false}) {
            kvfast::codebookRows(x.data(), got.data(), kRows, d, b, r, rot, lv.data(), bound.data());
            for (std::int64_t i = 0; i < kRows; ++i)
                kvmath::codebookRow(x.data() + i * d, want.data() + i * d, d, b, r, rot, lv.data(), bound.data(),
                                    tmp.data());
            expectSameBits(got, want, std::string("codebook ") + (rot ? "rot" : "norot") + at);
        }

        for (const bool unrounded : {false, true})
            for (const float fc : {0.156f, 0.195f, 0.1f, 0.3f, 1.0f / 6.0f}) {
                kvfast::constOptRows(x.data(), got.data(), kRows, d, b, r, fc, unrounded);
                for (std::int64_t i = 0; i < kRows; ++i)
                    kvmath::constOptRotatedRow(x.data() + i * d, want.data() + i * d, d, b, r, fc, unrounded,
                                               tmp.data());
                expectSameBits(got, want,
                               "constopt c=" + std::to_string(fc) + (unrounded ? " unrounded" : " pow2") + at);
            }

        kvfast::mxfp4Rows(x.data(), got.data(), kRows, d);
        for (std::int64_t i = 0; i < kRows; ++i)
            kvmath::mxfp4Row(x.data() + i * d, want.data() + i * d, d);
        expectSameBits(got, want, "mxfp4" + at);

        for (const float global : {fp4::nvGlobalScale(amax), 1.0f, fp4::nvGlobalScale(amax) * 1e6f}) {
            kvfast::nvfp4Rows(x.data(), got.data(), kRows, d, global);
            for (std::int64_t i = 0; i < kRows; ++i)
                kvmath::nvfp4Row(x.data() + i * d, want.data() + i * d, d, global);
            expectSameBits(got, want, "nvfp4 global=" + std::to_string(global) + at);
        }

        // INT4: K per channel over groups of 32 tokens (kRows is not a multiple of 32), V per token.
        kvfast::int4Head(x.data(), got.data(), kRows, d, true);
        for (std::int64_t j = 0; j < d; ++j)
            for (std::int64_t t = 0; t < kRows; t += kvmath::kGroup)
                kvmath::int4Group(x.data() + t * d + j, want.data() + t * d + j,
                                  std::min<std::int64_t>(kvmath::kGroup, kRows - t), d);
        expectSameBits(got, want, "int4 K" + at);
        kvfast::int4Head(x.data(), got.data(), kRows, d, false);
        for (std::int64_t t = 0; t < kRows; ++t)
            for (std::int64_t j = 0; j < d; j += kvmath::kGroup)
                kvmath::int4Group(x.data() + t * d + j, want.data() + t * d + j,
                                  std::min<std::int64_t>(kvmath::kGroup, d - j), 1);
        expectSameBits(got, want, "int4 V" + at);
    }
}

TEST(KvRowsCpu, UnsortedCodebookBoundsTakeTheScalarPath)
{
    const std::int64_t d = 64;
    const std::vector<float> x = edgeRows(40, d, 5);
    std::vector<float> lv(16), bound(15), got(x.size()), want(x.size()), tmp(d);
    for (int i = 0; i < 16; ++i)
        lv[i] = 0.05f * static_cast<float>(i * 7 % 16) - 0.4f; // not ascending
    for (int i = 0; i < 15; ++i)
        bound[i] = (lv[i] + lv[i + 1]) / 2;
    kvfast::codebookRows(x.data(), got.data(), 40, d, d, hadamardNorm(d), true, lv.data(), bound.data());
    for (std::int64_t i = 0; i < 40; ++i)
        kvmath::codebookRow(x.data() + i * d, want.data() + i * d, d, d, hadamardNorm(d), true, lv.data(), bound.data(),
                            tmp.data());
    expectSameBits(got, want, "codebook, unsorted bounds");
}

TEST(KvAttentionCpu, ExpIsWithinTwoUlpOfStdExp)
{
    std::vector<double> x;
    for (double v = -746.0; v <= 709.0; v += 0.0137)
        x.push_back(v);
    for (const double v : {0.0, -0.0, 1e-300, -1e-300, 0.5 * std::log(2.0), -0.5 * std::log(2.0), -708.39, -744.4})
        x.push_back(v);
    std::vector<double> y(x.size());
    kvExp(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(x[i]);
        const double ulp = std::max(std::nextafter(want, INFINITY) - want, 4.9406564584124654e-324);
        worst = std::max(worst, std::fabs(y[i] - want) / ulp);
    }
    EXPECT_LE(worst, 2.0);
    EXPECT_EQ(y[y.size() - 8], 1.0); // exp(0)
}

TEST(KvAttentionCpu, PartialTilesEqualADirectComputation)
{
    // d = 13 (a partial group of four channels), segments of 11 keys (tiles straddle them), queries
    // at every fourth position.
    const std::int64_t T = 61, d = 13, seg = 11;
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0, 1);
    std::vector<float> q(T * d), k(T * d), v(T * d), kq(T * d), vq(T * d);
    for (std::int64_t i = 0; i < T * d; ++i) {
        q[i] = 2 * n(rng);
        k[i] = n(rng);
        v[i] = n(rng);
        kq[i] = k[i] + 0.05f * n(rng);
        vq[i] = v[i] + 0.05f * n(rng);
    }
    std::vector<std::int64_t> rows;
    for (std::int64_t i = 0; i < T; i += 4)
        rows.push_back(i);
    const auto e = kvAttentionError(q.data(), k.data(), v.data(), kq.data(), vq.data(), T, d, seg, rows);
    test::expectEqualsDirect(e, q, k, v, kq, vq, d, seg, rows, true);
}

TEST(KvRowsCpu, SweepGroupSseInLanesEqualsTheScalarOpSequence)
{
    // numeric/lanes.h's groupSse32 (the c sweep's CPU evaluator uses it for full groups) against
    // csweep::groupSse, on the edge rows, at the scale bytes around each group's and a few fixed.
    const std::vector<float> x = edgeRows(kRows, 64, 11);
    std::size_t compared = 0;
    for (std::int64_t g = 0; g + 32 <= static_cast<std::int64_t>(x.size()); g += 32) {
        const std::int64_t len = std::min<std::int64_t>(32, static_cast<std::int64_t>(x.size()) - g); // 32
        const float m = kvmath::absmax(x.data() + g, 32);
        for (const float fc : {0.05f, 0.156f, 0.195f, 0.4f, 1.0f}) {
            const float s = fp4::constOptScale(m, fc, false), su = fp4::constOptScale(m, fc, true);
            for (const float sc : {s, su, fp4::e8m0Scale(1), fp4::e8m0Scale(254)}) {
                if (!(sc > 0.0f))
                    continue;
                const double want = csweep::groupSse(csweep::PtrLoad{x.data() + g}, len, sc);
                const double got = lanes::groupSse32(x.data() + g, sc);
                ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
                    << "group at " << g << " scale " << sc;
                ++compared;
            }
        }
    }
    EXPECT_GT(compared, 1000u);
}

TEST(KvRowsCpu, HistogramInLanesEqualsKvUnitHistogramAdd)
{
    // Unit rotated rows plus values at and beyond ±1 and on bin edges, 8-lane path and tail.
    std::vector<float> y;
    for (const std::int64_t d : {64, 96}) {
        const std::vector<float> x = edgeRows(kRows, d, 21);
        std::vector<float> u(x.size());
        kvfast::unitRotatedRows(x.data(), u.data(), kRows, d, kvRotationBlock(d));
        y.insert(y.end(), u.begin(), u.end());
    }
    for (const float v : {-1.0f, 1.0f, -1.0000001f, 1.0000001f, 0.0f, -0.0f, 0.5f, -0.5f, 3.0517578e-05f})
        y.push_back(v);
    KvUnitHistogram want, got;
    for (const float v : y)
        want.add(v);
    kvfast::histogramAdd(y.data(), static_cast<std::int64_t>(y.size()), KvUnitHistogram::kBins, got.n.data(),
                         got.s1.data(), got.s2.data());
    for (std::size_t i = 0; i < want.n.size(); ++i) {
        ASSERT_EQ(got.n[i], want.n[i]) << "bin " << i;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(got.s1[i]), std::bit_cast<std::uint64_t>(want.s1[i])) << "bin " << i;
        ASSERT_EQ(std::bit_cast<std::uint64_t>(got.s2[i]), std::bit_cast<std::uint64_t>(want.s2[i])) << "bin " << i;
    }
    EXPECT_EQ(got.count(), static_cast<double>(y.size()));
}

TEST(KvRowsCpu, UnitRotatedRowsEqualUnitRowThenTheRotation)
{
    for (const std::int64_t d : {64, 128, 96}) {
        const std::vector<float> x = edgeRows(kRows, d, 31);
        const std::int64_t b = kvRotationBlock(d);
        std::vector<float> got(x.size()), want(x.size());
        kvfast::unitRotatedRows(x.data(), got.data(), kRows, d, b);
        for (std::int64_t i = 0; i < kRows; ++i) {
            kvmath::unitRow(x.data() + i * d, want.data() + i * d, d);
            for (std::int64_t o = 0; o < d; o += b)
                hadamardBlock(want.data() + i * d + o, b, hadamardNorm(b));
        }
        expectSameBits(got, want, "unit rotated d=" + std::to_string(d));
        std::vector<float> rot = x, rotWant = x;
        kvfast::rotateRows(rot.data(), kRows, d, b);
        for (std::int64_t i = 0; i < kRows; ++i)
            for (std::int64_t o = 0; o < d; o += b)
                hadamardBlock(rotWant.data() + i * d + o, b, hadamardNorm(b));
        expectSameBits(rot, rotWant, "rotate d=" + std::to_string(d));
    }
}

TEST(KvRowsCpu, PrepareKeyRowsEqualsTheSeparatePasses)
{
    // The lab's one-pass preparation of K: rotateRows's rows, unitRotatedRows's rows and the norm
    // error of a scalar loop (squared norms summed in order in FP64), tiles and tail rows.
    for (const std::int64_t d : {64, 128, 96, 40}) {
        std::vector<float> x = edgeRows(kRows, d, 41);
        const std::int64_t b = kvRotationBlock(d);
        std::vector<float> rot(x.size()), unit(x.size()), rotWant = x, unitWant(x.size());
        double err = 0, errWant = 0;
        kvfast::prepareKeyRows(x.data(), rot.data(), unit.data(), kRows, d, b, err);
        kvfast::rotateRows(rotWant.data(), kRows, d, b);
        kvfast::unitRotatedRows(x.data(), unitWant.data(), kRows, d, b);
        for (std::int64_t i = 0; i < kRows; ++i) {
            double a = 0, s = 0;
            for (std::int64_t j = 0; j < d; ++j) {
                a += static_cast<double>(x[i * d + j]) * x[i * d + j];
                s += static_cast<double>(rotWant[i * d + j]) * rotWant[i * d + j];
            }
            if (a > 0)
                errWant = std::max(errWant, std::fabs(std::sqrt(s) - std::sqrt(a)) / std::sqrt(a));
        }
        expectSameBits(rot, rotWant, "rotated d=" + std::to_string(d));
        expectSameBits(unit, unitWant, "unit d=" + std::to_string(d));
        EXPECT_EQ(std::bit_cast<std::uint64_t>(err), std::bit_cast<std::uint64_t>(errWant)) << "d=" << d;
        EXPECT_GT(err, 0.0) << "d=" << d; // FP32 rotation: the norms move by rounding
    }
}

TEST(KvRowsCpu, QuantizeMseEqualsQuantizeThenSumSquaredDiff)
{
    // kvQuantizeMse (32 rows of a head at a time, the MSE read back per block) against kvQuantize
    // then sumSquaredDiff per head: the kept rows and every MSE bit for bit, every default scheme,
    // both roles; the tokens are not a multiple of 32 (a partial last block) and d = 40 leaves a
    // tail of the squared-difference sum.
    const std::int64_t H = 2, T = 117;
    for (const std::int64_t d : {64, 40}) {
        const std::vector<float> x = edgeRows(H * T, d, 51);
        const KvCodebookFit theory = lloydMaxSphere(d);
        for (const KvScheme &s : defaultKvSchemes())
            for (const KvRole role : {KvRole::K, KvRole::V}) {
                const KvLayerContext ctx{H, T, d, theory.levels, s.cFit ? 0.1965 : s.c};
                const std::vector<float> want = kvQuantize(s, role, x, ctx, 1);
                for (const std::int64_t keep : {std::int64_t{0}, std::int64_t{40}, T}) {
                    std::vector<float> got;
                    std::vector<double> mse;
                    const std::int64_t kept = kvQuantizeMse(s, role, x, ctx, keep, got, mse);
                    const std::string at = s.name() + (role == KvRole::K ? " K" : " V") + " d=" + std::to_string(d) +
                                           " keep=" + std::to_string(keep);
                    EXPECT_EQ(kept, std::min<std::int64_t>(T, (keep + 31) / 32 * 32)) << at;
                    ASSERT_EQ(got.size(), static_cast<std::size_t>(H * kept * d)) << at;
                    ASSERT_EQ(mse.size(), static_cast<std::size_t>(H)) << at;
                    for (std::int64_t h = 0; h < H; ++h) {
                        const double m = kvfast::sumSquaredDiff(x.data() + h * T * d, want.data() + h * T * d, T * d) /
                                         static_cast<double>(T * d);
                        EXPECT_EQ(std::bit_cast<std::uint64_t>(mse[static_cast<std::size_t>(h)]),
                                  std::bit_cast<std::uint64_t>(m))
                            << at << " head " << h;
                        for (std::int64_t i = 0; i < kept * d; ++i)
                            ASSERT_EQ(std::bit_cast<std::uint32_t>(got[static_cast<std::size_t>(h * kept * d + i)]),
                                      std::bit_cast<std::uint32_t>(want[static_cast<std::size_t>(h * T * d + i)]))
                                << at << " head " << h << " value " << i;
                    }
                }
            }
    }
    // Several schemes in one pass (the lab's codebooks, its constOpts, and a mixed list): each
    // scheme's kept rows and MSEs as kvQuantizeMse gives them alone.
    for (const std::int64_t d : {64, 40}) {
        const std::vector<float> x = edgeRows(H * T, d, 54);
        const KvCodebookFit theory = lloydMaxSphere(d);
        std::vector<double> other = theory.levels; // a second level set (a refit's stand-in)
        for (double &v : other)
            v *= 0.93;
        const std::vector<std::vector<KvScheme>> lists = {
            {KvScheme::parse("codebook"), KvScheme::parse("codebook-layer"), KvScheme::parse("codebook-norot")},
            {KvScheme::parse("constopt"), KvScheme::parse("constopt:c=0.195"), KvScheme::parse("constopt:unrounded")},
            {KvScheme::parse("fp8"), KvScheme::parse("codebook"), KvScheme::parse("int4")}};
        for (const auto &list : lists)
            for (const KvRole role : {KvRole::K, KvRole::V}) {
                const int n = static_cast<int>(list.size());
                std::vector<KvLayerContext> ctx;
                for (int k = 0; k < n; ++k)
                    ctx.push_back({H, T, d, k == 1 ? other : theory.levels, list[k].c});
                std::vector<std::vector<float>> outs(n);
                std::vector<std::vector<double>> mses(n);
                std::vector<std::vector<float> *> op;
                std::vector<std::vector<double> *> mp;
                for (int k = 0; k < n; ++k) {
                    op.push_back(&outs[k]);
                    mp.push_back(&mses[k]);
                }
                const std::int64_t kept = kvQuantizeMseN(list.data(), role, x, ctx.data(), n, 50, op.data(), mp.data());
                for (int k = 0; k < n; ++k) {
                    std::vector<float> one;
                    std::vector<double> mse;
                    EXPECT_EQ(kvQuantizeMse(list[k], role, x, ctx[k], 50, one, mse), kept);
                    const std::string at = list[k].name() + " in a list of " + std::to_string(n) +
                                           " d=" + std::to_string(d) + (role == KvRole::K ? " K" : " V");
                    expectSameBits(outs[k], one, at);
                    for (std::int64_t h = 0; h < H; ++h)
                        EXPECT_EQ(std::bit_cast<std::uint64_t>(mses[k][h]), std::bit_cast<std::uint64_t>(mse[h])) << at;
                }
            }
    }
    // The pieces of sumSquaredDiff: blocks of 32 in any number of calls, then the tail.
    const std::vector<float> a = edgeRows(9, 40, 52), b = edgeRows(9, 40, 53);
    const std::int64_t n = 9 * 40; // 360: eleven blocks of 32 and a tail of 8
    double acc[32] = {};
    kvfast::sumSquaredDiffAdd(a.data(), b.data(), 64, acc);
    kvfast::sumSquaredDiffAdd(a.data() + 64, b.data() + 64, 96, acc);
    kvfast::sumSquaredDiffAdd(a.data() + 160, b.data() + 160, n - 160, acc);
    const double got = kvfast::sumSquaredDiffFinish(acc, a.data() + n - 8, b.data() + n - 8, 8);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got),
              std::bit_cast<std::uint64_t>(kvfast::sumSquaredDiff(a.data(), b.data(), n)));
}
