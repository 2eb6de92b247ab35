// SPDX-License-Identifier: MIT
// MXFP4 and NVFP4 against an independent scalar reimplementation written here from
// docs/numerics.md / docs/toolkits.md §6 (E2M1 by its rounding thresholds, E8M0 exponents by
// frexp), plus the shared FP4 scalar helpers against convert.h and the known errors on N(0,1).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "io/native.h"
#include "io/safetensors.h"
#include "numeric/fp4math.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {

// ---- independent reference ---------------------------------------------------------------

/// E2M1 magnitude index by the RNE thresholds of docs/toolkits.md §6.1 (ties to the even code).
int e2m1Index(float a)
{
    if (a <= 0.25f)
        return 0;
    if (a < 0.75f)
        return 1;
    if (a <= 1.25f)
        return 2;
    if (a < 1.75f)
        return 3;
    if (a <= 2.5f)
        return 4;
    if (a < 3.5f)
        return 5;
    if (a <= 5.0f)
        return 6;
    return 7;
}
const float kGrid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

/// Nibble of x (sign in bit 3, kept for values rounding to zero); NaN → 0.
int refE2m1(float x)
{
    if (std::isnan(x))
        return 0;
    return (std::signbit(x) ? 8 : 0) | e2m1Index(std::fabs(x));
}
float refE2m1Value(int nib)
{
    return (nib & 8 ? -1.0f : 1.0f) * kGrid[nib & 7];
}

/// MX shared exponent X (unclamped), modes even/floor/ceil, from frexp: amax = f·2^e, f ∈ [0.5, 1).
int refMxExponent(float amax, MxMode mode)
{
    int e;
    const float f = std::frexp(amax, &e);
    const int fl = e - 1; // floor(log2 amax)
    switch (mode) {
    case MxMode::Floor:
        return fl - 2;
    case MxMode::Ceil:
        return (f == 0.5f ? fl : fl + 1) - 2;
    case MxMode::Even:
        return (2.0f * f >= 1.75f ? fl + 1 : fl) - 2; // 1.m rounded to 1 bit, ties up
    }
    return 0;
}

struct Ref {
    std::vector<int> codes;
    std::vector<float> scales, deq;
    std::int64_t bad = 0;
};

Ref refMx(const std::vector<float> &x, std::int64_t R, std::int64_t C, std::int64_t g, MxMode mode)
{
    Ref out;
    out.codes.assign(x.size(), 0);
    out.deq.assign(x.size(), 0.0f);
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c0 = 0; c0 < C; c0 += g) {
            const std::int64_t c1 = std::min(C, c0 + g);
            float amax = 0;
            bool bad = false;
            for (std::int64_t c = c0; c < c1; ++c) {
                bad |= !std::isfinite(x[r * C + c]);
                if (std::isfinite(x[r * C + c]))
                    amax = std::max(amax, std::fabs(x[r * C + c]));
            }
            int byte = 0;
            if (!bad && amax > 0)
                byte = std::clamp(refMxExponent(amax, mode) + 127, 0, 254);
            const float s = std::ldexp(1.0f, byte - 127);
            out.scales.push_back(s);
            out.bad += bad;
            for (std::int64_t c = c0; c < c1; ++c) {
                const std::int64_t i = r * C + c;
                if (bad)
                    continue;
                out.codes[i] = refE2m1(x[i] / s);
                out.deq[i] = refE2m1Value(out.codes[i]) * s;
            }
        }
    return out;
}

Ref refNv(const std::vector<float> &x, std::int64_t R, std::int64_t C, std::int64_t g, float *globalOut)
{
    float amaxT = 0;
    for (float v : x)
        if (std::isfinite(v))
            amaxT = std::max(amaxT, std::fabs(v));
    float global = 448.0f * 6.0f / amaxT;
    if (!std::isfinite(global))
        global = 1.0f;
    *globalOut = global;
    Ref out;
    out.codes.assign(x.size(), 0);
    out.deq.assign(x.size(), 0.0f);
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c0 = 0; c0 < C; c0 += g) {
            const std::int64_t c1 = std::min(C, c0 + g);
            float amax = 0;
            bool bad = false;
            for (std::int64_t c = c0; c < c1; ++c) {
                bad |= !std::isfinite(x[r * C + c]);
                if (std::isfinite(x[r * C + c]))
                    amax = std::max(amax, std::fabs(x[r * C + c]));
            }
            const float t = std::min((amax / 6.0f) * global, 448.0f);
            float b = e4m3ToFloat(floatToE4m3(t));
            if (b == 0.0f || bad)
                b = 0.125f;
            out.scales.push_back(b);
            out.bad += bad;
            const float eff = b / global;
            for (std::int64_t c = c0; c < c1; ++c) {
                const std::int64_t i = r * C + c;
                if (bad)
                    continue;
                out.codes[i] = refE2m1(x[i] / eff);
                out.deq[i] = refE2m1Value(out.codes[i]) * eff;
            }
        }
    return out;
}

std::vector<float> fp4TestMatrix(std::int64_t R, std::int64_t C, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(4.0f);
    std::vector<float> v(static_cast<std::size_t>(R * C));
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c) {
            float x = 0.02f * t(rng) * (c % 37 == 5 ? 20.0f : 1.0f);
            if (r == 3)
                x = 0.0f; // zero groups
            if (r == 4)
                x *= 1e-38f; // subnormal groups
            if (r == 5)
                x = (c % 2 ? -1.0f : 1.0f) * 3.3e38f * (c % 32 == 1 ? 1.0f : 0.01f); // huge amax
            if (r == 6)
                x = static_cast<float>((c % 16) - 8) * 0.25f; // E2M1 ties after scaling
            v[static_cast<std::size_t>(r * C + c)] = x;
        }
    v[static_cast<std::size_t>(7 * C + 40)] = std::numeric_limits<float>::quiet_NaN();
    v[static_cast<std::size_t>(8 * C + 3)] = -std::numeric_limits<float>::infinity();
    return v;
}

void expectSame(const QuantizedTensor &q, const Ref &ref, const std::string &what)
{
    ASSERT_EQ(q.codes.size(), ref.codes.size()) << what;
    ASSERT_EQ(q.scales.size(), ref.scales.size()) << what;
    std::size_t codeDiff = 0, deqDiff = 0, scaleDiff = 0;
    for (std::size_t i = 0; i < ref.codes.size(); ++i) {
        codeDiff += q.codes[i] != ref.codes[i];
        deqDiff += std::memcmp(&q.dequantized[i], &ref.deq[i], 4) != 0;
    }
    for (std::size_t g = 0; g < ref.scales.size(); ++g)
        scaleDiff += std::memcmp(&q.scales[g], &ref.scales[g], 4) != 0;
    EXPECT_EQ(codeDiff, 0u) << what;
    EXPECT_EQ(scaleDiff, 0u) << what;
    EXPECT_EQ(deqDiff, 0u) << what;
    EXPECT_EQ(q.nonFiniteGroups, ref.bad) << what;
}

double relFrobenius(const std::vector<float> &x, const std::vector<float> &xh)
{
    double se = 0, sx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = static_cast<double>(x[i]) - xh[i];
        se += e * e;
        sx += static_cast<double>(x[i]) * x[i];
    }
    return std::sqrt(se / sx);
}

} // namespace

// ---- scalar helpers -----------------------------------------------------------------------

TEST(Fp4Math, E2m1CodeMatchesConvertOverFp32Patterns)
{
    std::size_t diff = 0, valueDiff = 0, n = 0;
    for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 509) { // ~8.4M patterns, all exponents
        const auto bits = static_cast<std::uint32_t>(u);
        float x;
        std::memcpy(&x, &bits, 4);
        const std::uint8_t c = fp4::e2m1Code(x);
        diff += c != floatToE2m1(x);
        diff += c != refE2m1(x);
        const float a = fp4::e2m1Value(c), b = fp4::e2m1RoundValue(x);
        valueDiff += !(a == b) || a != e2m1ToFloat(c);
        ++n;
    }
    EXPECT_GT(n, 8000000u);
    EXPECT_EQ(diff, 0u);
    EXPECT_EQ(valueDiff, 0u);
    // The documented ties: 0.25→0, 0.75→1, 1.25→1, 1.75→2, 2.5→2, 3.5→4, 5→4; saturation.
    const float in[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 7.0f, 1e30f, -0.1f};
    const float want[] = {0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 4.0f, 4.0f, 6.0f, 6.0f, -0.0f};
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(fp4::e2m1Value(fp4::e2m1Code(in[i])), want[i]) << in[i];
    EXPECT_EQ(fp4::e2m1Code(-0.1f), 0x8); // −0 keeps its sign
}

TEST(Fp4Math, E8m0HelpersMatchConvert)
{
    std::size_t diff = 0;
    for (std::uint64_t u = 1; u < 0x7F800000ull; u += 997) {
        const auto bits = static_cast<std::uint32_t>(u);
        float x;
        std::memcpy(&x, &bits, 4);
        diff += fp4::roundLog2Byte(x) != floatToE8m0(x, E8m0Rounding::Round);
        // floor/ceil modes of MX = the E8M0 floor/ceil byte − 2 (clamped).
        diff += fp4::mxScaleByte(x, fp4::MxFloor) !=
                std::clamp(static_cast<int>(floatToE8m0(x, E8m0Rounding::Floor)) - 2, 0, 254);
        if (bits < 0x7F000000u) // below 2^127, where E8M0's own clamp at 254 does not bite first
            diff += fp4::mxScaleByte(x, fp4::MxCeil) !=
                    std::clamp(static_cast<int>(floatToE8m0(x, E8m0Rounding::Ceil)) - 2, 0, 254);
        diff += fp4::e8m0Scale(fp4::roundLog2Byte(x)) != e8m0ToFloat(fp4::roundLog2Byte(x));
    }
    EXPECT_EQ(diff, 0u);
    EXPECT_EQ(fp4::roundLog2Byte(0.0f), 0);
    EXPECT_EQ(fp4::mxScaleByte(0.0f, fp4::MxEven), 0);
    // even: amax = 7.5 (1.875·2^2) rounds to 8 → X = 1; floor keeps X = 0.
    EXPECT_EQ(fp4::mxScaleByte(7.5f, fp4::MxEven), 128);
    EXPECT_EQ(fp4::mxScaleByte(7.5f, fp4::MxFloor), 127);
    EXPECT_EQ(fp4::mxScaleByte(6.5f, fp4::MxEven), 127);    // 1.625 < 1.75: no carry
    EXPECT_EQ(fp4::mxScaleByte(FLT_MAX, fp4::MxEven), 253); // amax' = 2^128: X = 126
    EXPECT_EQ(fp4::mxScaleByte(FLT_MAX, fp4::MxCeil), 253);
    EXPECT_EQ(fp4::mxScaleByte(FLT_MAX, fp4::MxFloor), 252);
}

// ---- MXFP4 --------------------------------------------------------------------------------

TEST(MxFp4, MatchesScalarReference)
{
    const std::int64_t R = 41, C = 300; // ragged last group
    const auto x = fp4TestMatrix(R, C, 7);
    const Tensor w = Tensor::fromFloats({R, C}, x);
    for (MxMode mode : {MxMode::Even, MxMode::Floor, MxMode::Ceil})
        for (std::int64_t g : {32, 64, 7})
            for (int threads : {1, 3}) {
                MxFp4Spec s;
                s.mode = mode;
                s.group = g;
                QuantizeOptions o;
                o.threads = threads;
                const auto q = MxFp4Quantizer(s).quantize(w, o);
                expectSame(q, refMx(x, R, C, g, mode), s.toJson().dump());
                EXPECT_EQ(q.codeDtype, DType::F4);
                EXPECT_EQ(q.scaleDtype, DType::F8_E8M0);
                EXPECT_EQ(q.firstNonFinite, 7 * C + 40);
                // dequantize() from codes and scales gives the same Ŵ.
                std::vector<float> d(x.size());
                MxFp4Quantizer(s).dequantize(q, d);
                EXPECT_EQ(0, std::memcmp(d.data(), q.dequantized.data(), d.size() * 4));
            }
}

TEST(MxFp4, ModesPinnedOnOneGroup)
{
    // amax 7.5: even → s = 2 (7.5/2 = 3.75 → 4), floor → s = 1 (7.5 saturates to 6), ceil → s = 2.
    std::vector<float> g(32, 0.0f);
    g[0] = 7.5f;
    g[1] = -1.25f;
    g[2] = 0.3f;
    const Tensor w = Tensor::fromFloats({1, 32}, g);
    MxFp4Spec s;
    auto q = MxFp4Quantizer(s).quantize(w, {});
    EXPECT_EQ(q.scales[0], 2.0f);
    EXPECT_EQ(q.dequantized[0], 8.0f);
    EXPECT_EQ(q.dequantized[1], -1.0f); // −0.625 → −0.5
    s.mode = MxMode::Floor;
    q = MxFp4Quantizer(s).quantize(w, {});
    EXPECT_EQ(q.scales[0], 1.0f);
    EXPECT_EQ(q.dequantized[0], 6.0f);
    EXPECT_EQ(q.dequantized[1], -1.0f); // tie 1.25 → 1
    s.mode = MxMode::Ceil;
    q = MxFp4Quantizer(s).quantize(w, {});
    EXPECT_EQ(q.scales[0], 2.0f);
    // A zero group gets byte 0 (2^-127) and codes 0.
    q = MxFp4Quantizer(MxFp4Spec{}).quantize(Tensor::zeros(DType::F32, {2, 32}), {});
    EXPECT_EQ(q.scales[0], std::ldexp(1.0f, -127));
    EXPECT_DOUBLE_EQ(q.bitsPerElement(), 4.25);
}

TEST(Fp4, KnownRelativeErrorsOnGaussian4096)
{
    // Issue 5 / docs/numerics.md: N(0,1), 4096×4096, fixed seed, relative Frobenius ±0.0005.
    const std::int64_t N = 4096;
    std::vector<float> x(static_cast<std::size_t>(N * N));
    std::mt19937_64 rng(1234);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto &v : x)
        v = nd(rng);
    const Tensor w = Tensor::fromFloats({N, N}, x);
    struct Case {
        MxMode mode;
        double expected;
    };
    for (const Case c : {Case{MxMode::Even, 0.1119}, Case{MxMode::Floor, 0.1150}, Case{MxMode::Ceil, 0.1442}}) {
        MxFp4Spec s;
        s.mode = c.mode;
        const double rel = relFrobenius(x, MxFp4Quantizer(s).quantize(w, {}).dequantized);
        EXPECT_NEAR(rel, c.expected, 0.0005) << toString(c.mode);
        std::printf("MXFP4 %-5s rel. Frobenius %.5f (expected %.4f)\n", toString(c.mode).c_str(), rel, c.expected);
    }
    const double rel = relFrobenius(x, NvFp4Quantizer(NvFp4Spec{}).quantize(w, {}).dequantized);
    EXPECT_NEAR(rel, 0.0951, 0.0005);
    std::printf("NVFP4       rel. Frobenius %.5f (expected 0.0951)\n", rel);
}

// ---- NVFP4 --------------------------------------------------------------------------------

TEST(NvFp4, MatchesScalarReference)
{
    const std::int64_t R = 41, C = 300;
    auto x = fp4TestMatrix(R, C, 9);
    for (std::int64_t i = 5 * C; i < 6 * C; ++i)
        x[static_cast<std::size_t>(i)] *= 1e-37f; // keep the global amax moderate
    const Tensor w = Tensor::fromFloats({R, C}, x);
    for (std::int64_t g : {16, 32, 5})
        for (int threads : {1, 2}) {
            NvFp4Spec s;
            s.group = g;
            QuantizeOptions o;
            o.threads = threads;
            const auto q = NvFp4Quantizer(s).quantize(w, o);
            float global = 0;
            const Ref ref = refNv(x, R, C, g, &global);
            expectSame(q, ref, s.toJson().dump());
            ASSERT_EQ(q.outerScales.size(), 1u);
            EXPECT_EQ(q.outerScales[0], global);
            EXPECT_EQ(q.scaleDtype, DType::F8_E4M3);
            std::vector<float> d(x.size());
            NvFp4Quantizer(s).dequantize(q, d);
            EXPECT_EQ(0, std::memcmp(d.data(), q.dequantized.data(), d.size() * 4));
        }
}

TEST(NvFp4, UnderflowingBlockScaleTakesEps)
{
    // Block 0 holds the tensor amax 1000 (global = 2.688); block 1 is 1e-4: (1e-4/6)·2.688 ≈ 4.5e-5
    // is below half the smallest E4M3 subnormal (2^-10), so b rounds to 0 and takes 0.125.
    std::vector<float> x(32, 1e-4f);
    x[0] = 1000.0f;
    const auto q = NvFp4Quantizer(NvFp4Spec{}).quantize(Tensor::fromFloats({1, 32}, x), {});
    // compressed-tensors' rounding: reciprocal(amax) · 2688 (1 ulp above 2688/1000 here).
    const volatile float inv = 1.0f / 1000.0f;
    EXPECT_EQ(q.outerScales[0], inv * 2688.0f);
    EXPECT_NE(q.outerScales[0], 2688.0f / 1000.0f);
    EXPECT_EQ(q.scales[1], 0.125f);
    for (int i = 16; i < 32; ++i) {
        EXPECT_EQ(q.codes[i] & 7, 0);
        EXPECT_EQ(q.dequantized[i], 0.0f);
    }
    // A zero tensor: global 1.0, every block eps, Ŵ = 0. Bits: 4 + 8/16 + 32/numel.
    const auto z = NvFp4Quantizer(NvFp4Spec{}).quantize(Tensor::zeros(DType::F32, {4, 64}), {});
    EXPECT_EQ(z.outerScales[0], 1.0f);
    EXPECT_EQ(z.scales[0], 0.125f);
    EXPECT_DOUBLE_EQ(z.bitsPerElement(), 4.5 + 32.0 / 256);
}

TEST(Fp4, SpecJsonRoundTripAndRefusals)
{
    MxFp4Spec m;
    m.mode = MxMode::Ceil;
    m.group = 64;
    m.strict = true;
    EXPECT_EQ(MxFp4Spec::fromJson(m.toJson()).toJson(), m.toJson());
    NvFp4Spec n;
    n.group = 32;
    EXPECT_EQ(NvFp4Spec::fromJson(n.toJson()).toJson(), n.toJson());
    EXPECT_THROW(MxFp4Spec::fromJson({{"mode", "nearest"}}), UnsupportedError);
    EXPECT_THROW(MxFp4Spec::fromJson({{"bits", 4}}), UnsupportedError);
    EXPECT_THROW(NvFp4Spec::fromJson({{"group", 0}}), UnsupportedError);
    // A group size past 2^20 (or one that only fits after narrowing to 32 bits) is refused.
    EXPECT_THROW(NvFp4Spec::fromJson({{"group", (1 << 20) + 1}}), UnsupportedError);
    EXPECT_THROW(MxFp4Spec::fromJson({{"group", 4294967328LL}}), UnsupportedError); // 2^32 + 32
    EXPECT_EQ(MxFp4Spec::fromJson({{"group", 1 << 20}}).group, 1 << 20);
    EXPECT_THROW(NvFp4Spec::fromJson({{"method", "mxfp4"}}), UnsupportedError);
    EXPECT_EQ(makeQuantizer({{"method", "mxfp4"}, {"mode", "floor"}})->spec()["mode"], "floor");
    EXPECT_EQ(makeQuantizer({{"method", "nvfp4"}})->spec()["group"], 16);
    MxFp4Spec strict;
    strict.strict = true;
    QuantizeOptions o;
    o.tensorName = "w";
    EXPECT_THROW(MxFp4Quantizer(strict).quantize(Tensor::zeros(DType::F32, {2, 40}), o), UnsupportedError);
}

TEST(Fp4, NativeLayoutPacksLowNibbleFirst)
{
    // docs/formats.md: elements (1.0, −0.5) → codes 0x2 and 0x9 → byte 0x92.
    std::vector<float> x(32, 0.0f);
    x[0] = 1.0f;
    x[1] = -0.5f;
    x[2] = 4.0f; // amax 4 → X = 0, s = 1
    const auto q = MxFp4Quantizer(MxFp4Spec{}).quantize(Tensor::fromFloats({1, 32}, x), {});
    ASSERT_EQ(q.scales[0], 1.0f);
    const auto path = std::filesystem::path(::testing::TempDir()) / "qs_fp4_native.safetensors";
    QuantizedTensor named = q;
    named.tensorName = "layer.weight";
    writeNative(path, named);
    const auto f = SafetensorsFile::open(path);
    const Tensor codes = f.tensor("layer.qs_codes");
    EXPECT_EQ(codes.dtype(), DType::U8);
    EXPECT_EQ(codes.shape(), (Shape{1, 16}));
    EXPECT_EQ(std::to_integer<int>(codes.data()[0]), 0x92);
    const Tensor scale = f.tensor("layer.qs_scale");
    EXPECT_EQ(scale.dtype(), DType::F8_E8M0);
    EXPECT_EQ(std::to_integer<int>(scale.data()[0]), 127);
    // NVFP4: E4M3 block scales and the FP32 global beside them.
    auto nq = NvFp4Quantizer(NvFp4Spec{}).quantize(Tensor::fromFloats({1, 32}, x), {});
    nq.tensorName = "layer.weight";
    writeNative(path, nq);
    const auto g = SafetensorsFile::open(path);
    EXPECT_EQ(g.tensor("layer.qs_scale").dtype(), DType::F8_E4M3);
    EXPECT_EQ(g.tensor("layer.qs_global").shape(), (Shape{1}));
    EXPECT_FLOAT_EQ(static_cast<float>(g.tensor("layer.qs_global").at(0)), 2688.0f / 4.0f);
    std::filesystem::remove(path);
}
