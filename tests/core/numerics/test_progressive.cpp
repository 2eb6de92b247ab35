// SPDX-License-Identifier: MIT
// ProgressiveSpec (two-stage) against an independent scalar reimplementation of Quark's
// SequentialQuantize as docs/numerics.md states it: stage 2 runs on the FP8-domain values f, and
// the stored scales have Quark's meaning (weight_scale = s1, weight_scale_2 = s2[N]).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "quant/progressive.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {

float rne(float x)
{
    return std::nearbyint(x);
}

struct Stage2Ref {
    std::vector<int> q;
    std::vector<float> s2;
    std::vector<int> z2;
    std::vector<float> xhat1; ///< s2·(q − z2)
};

/// INT4 per channel (rows) on v, symmetric (toolkit /7.5) or asymmetric (/15, signed zero point),
/// codes as Quark computes them: round(v · (1/s) + z) with the FP32 reciprocal, then the clamp.
Stage2Ref refInt4PerChannel(const std::vector<float> &v, std::int64_t R, std::int64_t C, bool sym)
{
    Stage2Ref out;
    out.q.resize(v.size());
    out.xhat1.resize(v.size());
    for (std::int64_t r = 0; r < R; ++r) {
        float mn = 0, mx = 0;
        for (std::int64_t c = 0; c < C; ++c) {
            mn = std::min(mn, v[r * C + c]);
            mx = std::max(mx, v[r * C + c]);
        }
        float s;
        int z = 0;
        if (sym) {
            s = std::max(-mn, mx) / 7.5f;
        } else {
            s = (mx - mn) / 15.0f;
        }
        if (s == 0.0f)
            s = FLT_EPSILON;
        if (!sym)
            z = std::clamp(-8 - static_cast<int>(rne(mn / s)), -8, 7);
        out.s2.push_back(s);
        out.z2.push_back(z);
        for (std::int64_t c = 0; c < C; ++c) {
            const std::int64_t i = r * C + c;
            const float inv = 1.0f / s;
            const float prod = v[i] * inv;
            out.q[i] = std::clamp(static_cast<int>(rne(prod + static_cast<float>(z))), -8, 7);
            out.xhat1[i] = s * static_cast<float>(out.q[i] - z);
        }
    }
    return out;
}

/// Stage 1 FP8 E4M3 per tensor: s1 = amax/448, f = fp8(clamp(W/s1, ±448)).
std::vector<float> refFp8Stage(const std::vector<float> &w, float &s1)
{
    float amax = 0;
    for (float x : w)
        amax = std::max(amax, std::fabs(x));
    s1 = amax / 448.0f;
    if (s1 == 0.0f)
        s1 = FLT_EPSILON;
    std::vector<float> f(w.size());
    for (std::size_t i = 0; i < w.size(); ++i)
        f[i] = e4m3ToFloat(floatToE4m3(std::clamp(w[i] / s1, -448.0f, 448.0f)));
    return f;
}

std::vector<float> gaussian(std::int64_t R, std::int64_t C, std::uint64_t seed, float sigma)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.0f, sigma);
    std::vector<float> v(static_cast<std::size_t>(R * C));
    for (auto &x : v)
        x = nd(rng);
    return v;
}

} // namespace

TEST(Progressive, DefaultIsFp8TensorThenInt4SymmetricChannel)
{
    const ProgressiveSpec ps;
    const nlohmann::json s1 = stageToJson(ps.stage1), s2 = stageToJson(ps.stage2);
    EXPECT_EQ(s1["method"], "fp8");
    EXPECT_EQ(s1["format"], "e4m3");
    EXPECT_EQ(s1["granularity"], "tensor");
    EXPECT_EQ(s2["method"], "int");
    EXPECT_EQ(s2["bits"], 4);
    EXPECT_EQ(s2["granularity"], "channel");
    EXPECT_EQ(s2["axis"], 0);
    EXPECT_EQ(s2["symmetric"], true);
    EXPECT_EQ(s2["rounding"], "half_even");
    // A partial stage 2 starts from the default stage: asymmetric INT4 per channel.
    const auto a = ProgressiveSpec::fromJson({{"stage2", {{"symmetric", false}}}});
    EXPECT_EQ(std::get<IntSpec>(a.stage2).granularity, Granularity::Channel);
    EXPECT_FALSE(std::get<IntSpec>(a.stage2).symmetric);
    EXPECT_EQ(ProgressiveSpec::fromJson(a.toJson()).toJson(), a.toJson());
    EXPECT_THROW(ProgressiveSpec::fromJson({{"stage3", nlohmann::json::object()}}), UnsupportedError);
    EXPECT_THROW(ProgressiveSpec::fromJson({{"stage2", {{"method", "mxfp4"}}}}), UnsupportedError);
    EXPECT_THROW(ProgressiveSpec::fromJson({{"stage2", {{"bitz", 4}}}}), UnsupportedError);
    EXPECT_THROW(ProgressiveSpec::fromJson({{"stage1", 3}}), UnsupportedError);
}

TEST(Progressive, StagesAreTypedOnceAndRoundTripTheSameJson)
{
    // JSON → typed stages → JSON: the stages hold the spec structs fromJson parsed (the GPU plan
    // and the quantizer read them without re-parsing), and toJson writes the JSON it wrote when
    // the stages were held as JSON: each stage's full spec, defaults filled in.
    const nlohmann::json given = {{"method", "progressive"},
                                  {"stage1", {{"method", "int"}, {"bits", 8}, {"granularity", "tensor"}}},
                                  {"stage2", {{"method", "fp8"}, {"format", "e5m2"}, {"granularity", "channel"}}}};
    const ProgressiveSpec s = ProgressiveSpec::fromJson(given);
    ASSERT_TRUE(std::holds_alternative<IntSpec>(s.stage1));
    ASSERT_TRUE(std::holds_alternative<Fp8Spec>(s.stage2));
    EXPECT_EQ(std::get<IntSpec>(s.stage1).bits, 8);
    EXPECT_EQ(std::get<IntSpec>(s.stage1).granularity, Granularity::Tensor);
    EXPECT_EQ(std::get<Fp8Spec>(s.stage2).format, Fp8Format::E5M2);
    EXPECT_EQ(std::get<Fp8Spec>(s.stage2).granularity, Granularity::Channel);
    nlohmann::json s1 = IntSpec::fromJson({{"method", "int"}, {"bits", 8}, {"granularity", "tensor"}}).toJson();
    nlohmann::json s2 = Fp8Spec::fromJson({{"method", "fp8"}, {"format", "e5m2"}, {"granularity", "channel"}}).toJson();
    const nlohmann::json expected = {{"method", "progressive"}, {"stage1", s1}, {"stage2", s2}};
    EXPECT_EQ(s.toJson(), expected);
    EXPECT_EQ(s.toJson().dump(), expected.dump());
    EXPECT_EQ(ProgressiveSpec::fromJson(s.toJson()).toJson().dump(), expected.dump());
    // The quantizer's spec is the same JSON.
    EXPECT_EQ(ProgressiveQuantizer(s).spec().dump(), expected.dump());

    // Bad stages are refused at the parse, with the messages of the JSON-held stages.
    auto message = [](const nlohmann::json &j) {
        try {
            (void)ProgressiveSpec::fromJson(j);
        } catch (const UnsupportedError &e) {
            return e.message();
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(message({{"stage2", {{"method", "mxfp4"}}}}),
              "stage2: a progressive stage must be an \"int\" or \"fp8\" spec, got \"mxfp4\"");
    EXPECT_EQ(message({{"stage1", 3}}), "spec field 'stage1' must be a spec object");
    EXPECT_EQ(message({{"stage2", {{"bitz", 4}}}}).rfind("stage2: ", 0), 0u);
    EXPECT_NE(message({{"stage2", {{"bits", 99}}}}).find("stage2: "), std::string::npos);
}

TEST(Progressive, MatchesScalarReferenceAndStoresQuarkScales)
{
    const std::int64_t R = 96, C = 200;
    auto w = gaussian(R, C, 3, 0.03f);
    for (std::int64_t c = 0; c < C; ++c)
        w[static_cast<std::size_t>(7 * C + c)] = 0.0f; // a zero row: s2 = eps
    for (bool sym : {true, false})
        for (int threads : {1, 3}) {
            ProgressiveSpec s;
            std::get<IntSpec>(s.stage2).symmetric = sym;
            QuantizeOptions o;
            o.threads = threads;
            const auto q = ProgressiveQuantizer(s).quantize(Tensor::fromFloats({R, C}, w), o);
            float s1;
            const auto f = refFp8Stage(w, s1);
            const auto ref = refInt4PerChannel(f, R, C, sym);
            // weight_scale = s1, shape [1]; weight_scale_2 = s2, one per output row.
            ASSERT_EQ(q.outerScales.size(), 1u);
            EXPECT_EQ(q.outerScales[0], s1);
            EXPECT_EQ(q.outerLayout.scaleShape(), (Shape{1}));
            EXPECT_EQ(q.outerScaleDtype, DType::F32);
            ASSERT_EQ(q.scales.size(), static_cast<std::size_t>(R));
            EXPECT_EQ(q.layout.scaleShape(), (Shape{R, 1}));
            EXPECT_EQ(q.zeros.empty(), sym); // weight_zero_point_2 only when asymmetric
            EXPECT_TRUE(q.outerZeros.empty());
            std::size_t bad = 0;
            for (std::int64_t r = 0; r < R; ++r) {
                bad += std::memcmp(&q.scales[r], &ref.s2[r], 4) != 0;
                if (!sym)
                    bad += q.zeros[r] != ref.z2[r];
            }
            for (std::size_t i = 0; i < w.size(); ++i) {
                bad += static_cast<std::int8_t>(q.codes[i]) != ref.q[i];
                // Ŵ = s1 · (s2 · (q − z2)), stage 2 dequantized first.
                const float want = ref.xhat1[i] * s1;
                bad += std::memcmp(&q.dequantized[i], &want, 4) != 0;
            }
            EXPECT_EQ(bad, 0u) << (sym ? "symmetric" : "asymmetric") << " threads " << threads;
            EXPECT_EQ(q.scales[7], FLT_EPSILON);
            // bits: 4 per code + N FP32 s2 (+ N INT8 z2) + one FP32 s1.
            EXPECT_DOUBLE_EQ(q.bitsPerElement(), 4.0 + (32.0 * R + (sym ? 0 : 8.0 * R) + 32.0) / (R * C));
            std::vector<float> d(w.size());
            ProgressiveQuantizer(s).dequantize(q, d);
            EXPECT_EQ(0, std::memcmp(d.data(), q.dequantized.data(), d.size() * 4));
        }
}

TEST(Progressive, StageTwoRunsOnFp8DomainValuesNotOnDequantizedOnes)
{
    // In exact arithmetic INT4 per channel is scale invariant, so the two readings differ only
    // through FP32 rounding — on the ±7.5 ties of each row's extreme and on FP8 values whose
    // ratio to the row max is k + 0.5 halves. Quark (and docs/numerics.md) quantize f, not s1·f.
    const std::int64_t R = 512, C = 64;
    const auto w = gaussian(R, C, 11, 0.7f);
    const auto q = ProgressiveQuantizer(ProgressiveSpec{}).quantize(Tensor::fromFloats({R, C}, w), {});
    float s1;
    const auto f = refFp8Stage(w, s1);
    std::vector<float> deq1(f.size());
    for (std::size_t i = 0; i < f.size(); ++i)
        deq1[i] = s1 * f[i];
    const auto onF = refInt4PerChannel(f, R, C, true);
    const auto onDeq = refInt4PerChannel(deq1, R, C, true);
    std::size_t vsF = 0, vsDeq = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        vsF += static_cast<std::int8_t>(q.codes[i]) != onF.q[i];
        vsDeq += static_cast<std::int8_t>(q.codes[i]) != onDeq.q[i];
    }
    EXPECT_EQ(vsF, 0u);
    EXPECT_GT(vsDeq, 0u) << "the test data no longer separates the two readings";
    std::printf("codes that change when stage 2 is fed s1·f: %zu of %zu\n", vsDeq, w.size());
}

TEST(Progressive, GeneralTwoStageCompositions)
{
    const std::int64_t R = 24, C = 96;
    const auto w = gaussian(R, C, 5, 0.05f);
    const Tensor wt = Tensor::fromFloats({R, C}, w);
    // FP8 per channel → INT4 per group of 32, asymmetric.
    {
        ProgressiveSpec s =
            ProgressiveSpec::fromJson({{"stage1", {{"granularity", "channel"}}},
                                       {"stage2", {{"granularity", "group"}, {"group", 32}, {"symmetric", false}}}});
        const auto q = ProgressiveQuantizer(s).quantize(wt, {});
        EXPECT_EQ(q.outerScales.size(), static_cast<std::size_t>(R));
        EXPECT_EQ(q.scales.size(), static_cast<std::size_t>(R * 3));
        std::size_t bad = 0;
        for (std::int64_t r = 0; r < R; ++r) {
            float amax = 0;
            for (std::int64_t c = 0; c < C; ++c)
                amax = std::max(amax, std::fabs(w[r * C + c]));
            const float s1 = amax / 448.0f;
            bad += q.outerScales[r] != s1;
            for (std::int64_t g = 0; g < 3; ++g) {
                std::vector<float> f(32);
                for (int k = 0; k < 32; ++k)
                    f[k] = e4m3ToFloat(floatToE4m3(w[r * C + g * 32 + k] / s1));
                const auto ref = refInt4PerChannel(f, 1, 32, false);
                bad += q.scales[r * 3 + g] != ref.s2[0];
                bad += q.zeros[r * 3 + g] != ref.z2[0];
                for (int k = 0; k < 32; ++k) {
                    bad += static_cast<std::int8_t>(q.codes[r * C + g * 32 + k]) != ref.q[k];
                    bad += q.dequantized[r * C + g * 32 + k] != ref.xhat1[k] * s1;
                }
            }
        }
        EXPECT_EQ(bad, 0u);
    }
    // INT8 per tensor, asymmetric → INT4 per channel: stage 2 sees the INT8 codes (zero point
    // included); Ŵ = s1 · (x̂1 − z1).
    {
        ProgressiveSpec s = ProgressiveSpec::fromJson(
            {{"stage1", {{"method", "int"}, {"bits", 8}, {"granularity", "tensor"}, {"symmetric", false}}}});
        const auto q = ProgressiveQuantizer(s).quantize(wt, {});
        IntSpec is;
        is.bits = 8;
        is.granularity = Granularity::Tensor;
        is.symmetric = false;
        const auto q1 = IntQuantizer(is).quantize(wt, {});
        ASSERT_EQ(q.outerZeros.size(), 1u);
        EXPECT_EQ(q.outerZeros[0], q1.zeros[0]);
        EXPECT_EQ(q.outerScales[0], q1.scales[0]);
        std::vector<float> v(w.size());
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<float>(static_cast<std::int8_t>(q1.codes[i]));
        const auto ref = refInt4PerChannel(v, R, C, true);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            bad += static_cast<std::int8_t>(q.codes[i]) != ref.q[i];
            bad += q.dequantized[i] != q1.scales[0] * (ref.xhat1[i] - static_cast<float>(q1.zeros[0]));
        }
        EXPECT_EQ(bad, 0u);
        const double rel = [&] {
            double se = 0, sx = 0;
            for (std::size_t i = 0; i < w.size(); ++i) {
                se += (w[i] - q.dequantized[i]) * (w[i] - q.dequantized[i]);
                sx += w[i] * w[i];
            }
            return std::sqrt(se / sx);
        }();
        EXPECT_LT(rel, 0.2);
    }
}

TEST(Progressive, Bf16SourceStageTwoSeesExactFp8ValuesInBf16)
{
    // Every E4M3 value is exact in BF16, so with `arith source` stage 2 computes in BF16 on the
    // same f; the result matches the reference with BF16 rounding of each step.
    const std::int64_t R = 16, C = 64;
    auto w = gaussian(R, C, 8, 0.02f);
    std::vector<std::byte> b(w.size() * 2);
    for (std::size_t i = 0; i < w.size(); ++i) {
        const std::uint16_t h = floatToBf16(w[i]);
        w[i] = bf16ToFloat(h);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    const Tensor wt = Tensor::fromBytes(DType::BF16, {R, C}, b);
    ProgressiveSpec s;
    std::get<IntSpec>(s.stage2).arith = Arith::Source;
    const auto q = ProgressiveQuantizer(s).quantize(wt, {});
    float s1;
    const auto f = refFp8Stage(w, s1);
    auto bf = [](float x) { return bf16ToFloat(floatToBf16(x)); };
    std::size_t bad = 0;
    for (std::int64_t r = 0; r < R; ++r) {
        float amax = 0;
        for (std::int64_t c = 0; c < C; ++c)
            amax = std::max(amax, std::fabs(f[r * C + c]));
        const float s2 = bf(amax / 7.5f);
        bad += q.scales[r] != s2;
        for (std::int64_t c = 0; c < C; ++c)
            bad += static_cast<std::int8_t>(q.codes[r * C + c]) !=
                   std::clamp(static_cast<int>(std::nearbyint(bf(bf(f[r * C + c] * bf(1.0f / s2)) + 0.0f))), -8, 7);
    }
    EXPECT_EQ(bad, 0u);
}
