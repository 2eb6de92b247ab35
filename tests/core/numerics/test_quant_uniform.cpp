// SPDX-License-Identifier: MIT
// Uniform INT and FP8 quantizers against an independent scalar reimplementation written here
// from docs/numerics.md's op sequence (float32 casts of s and x/s; BF16/F16 for `arith source`).
#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "quant/fp8.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {

// ---- independent reference ---------------------------------------------------------------

float toBf16(float x)
{
    return bf16ToFloat(floatToBf16(x));
}
float toF16(float x)
{
    return f16ToFloat(floatToF16(x));
}

/// Rounds to the arithmetic precision: 'f' FP32, 'b' BF16, 'h' F16.
float ar(float x, char a)
{
    return a == 'b' ? toBf16(x) : (a == 'h' ? toF16(x) : x);
}

float rnd(float x, bool halfAway)
{
    return halfAway ? std::round(x) : std::nearbyint(x);
}

struct RefResult {
    std::vector<int> codes;
    std::vector<float> scales;
    std::vector<int> zeros;
    std::vector<float> deq;
};

/// Groups enumerated explicitly as lists of flat indices.
std::vector<std::vector<std::int64_t>> groupsOf(std::int64_t R, std::int64_t C, const IntSpec &s)
{
    std::vector<std::vector<std::int64_t>> groups;
    switch (s.granularity) {
    case Granularity::Tensor:
        groups.emplace_back();
        for (std::int64_t i = 0; i < R * C; ++i)
            groups[0].push_back(i);
        break;
    case Granularity::Channel:
        if (s.axis == 0)
            for (std::int64_t r = 0; r < R; ++r) {
                groups.emplace_back();
                for (std::int64_t c = 0; c < C; ++c)
                    groups.back().push_back(r * C + c);
            }
        else
            for (std::int64_t c = 0; c < C; ++c) {
                groups.emplace_back();
                for (std::int64_t r = 0; r < R; ++r)
                    groups.back().push_back(r * C + c);
            }
        break;
    case Granularity::Group:
        for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t c0 = 0; c0 < C; c0 += s.group) {
                groups.emplace_back();
                for (std::int64_t c = c0; c < std::min(C, c0 + s.group); ++c)
                    groups.back().push_back(r * C + c);
            }
        break;
    case Granularity::Block:
        for (std::int64_t r0 = 0; r0 < R; r0 += s.block)
            for (std::int64_t c0 = 0; c0 < C; c0 += s.block) {
                groups.emplace_back();
                for (std::int64_t r = r0; r < std::min(R, r0 + s.block); ++r)
                    for (std::int64_t c = c0; c < std::min(C, c0 + s.block); ++c)
                        groups.back().push_back(r * C + c);
            }
        break;
    }
    return groups;
}

float refScaleDtype(float s, ScaleDType d, E8m0Mode mode)
{
    switch (d) {
    case ScaleDType::F32:
        return s;
    case ScaleDType::BF16:
        return toBf16(s);
    case ScaleDType::F16:
        return toF16(std::min(s, 65504.0f));
    case ScaleDType::E8M0: {
        if (!(s > 0))
            return s;
        int e;
        const float m = std::frexp(s, &e); // s = m·2^e, m in [0.5, 1)
        // log2 s = e − 1 + log2(2m); ceil: exact powers stay; round: nearest in the log domain.
        int x;
        if (mode == E8m0Mode::Ceil)
            x = (m == 0.5f) ? e - 1 : e;
        else
            x = (2.0 * m < std::sqrt(2.0)) ? e - 1 : e;
        x = std::clamp(x, -127, 127);
        return std::ldexp(1.0f, x);
    }
    }
    return s;
}

RefResult refInt(const std::vector<float> &x, std::int64_t R, std::int64_t C, const IntSpec &s, char a)
{
    const int qmin = -(1 << (s.bits - 1)), qmax = (1 << (s.bits - 1)) - 1;
    RefResult out;
    out.codes.assign(x.size(), 0);
    out.deq.assign(x.size(), 0.0f);
    float eps = FLT_MIN;
    if (s.eps == EpsPreset::Toolkit)
        eps = s.scaleDtype == ScaleDType::F32    ? FLT_EPSILON
              : s.scaleDtype == ScaleDType::BF16 ? 1.0f / 128
              : s.scaleDtype == ScaleDType::F16  ? 1.0f / 1024
                                                 : 1.0f;
    for (const auto &g : groupsOf(R, C, s)) {
        bool bad = false;
        float mn = 0, mx = 0;
        bool first = true;
        for (auto i : g) {
            if (!std::isfinite(x[i])) {
                bad = true;
                continue;
            }
            mn = first ? x[i] : std::min(mn, x[i]);
            mx = first ? x[i] : std::max(mx, x[i]);
            first = false;
        }
        float scale;
        int zero = 0;
        if (bad) {
            scale = eps;
        } else if (s.symmetric) {
            const float amax = std::max(std::fabs(mn), std::fabs(mx));
            const float d = s.scaleRule == ScaleRule::Toolkit ? (qmax - qmin) / 2.0f : static_cast<float>(qmax);
            scale = ar(amax / d, a);
        } else {
            const float lo = std::min(mn, 0.0f), hi = std::max(mx, 0.0f);
            scale = ar(ar(hi - lo, a) / static_cast<float>(qmax - qmin), a);
        }
        if (!bad) {
            scale = refScaleDtype(scale, s.scaleDtype, s.e8m0Mode);
            if (scale == 0.0f)
                scale = eps;
            if (!s.symmetric) {
                const float lo = std::min(mn, 0.0f);
                zero = std::clamp(qmin - static_cast<int>(rnd(ar(lo / scale, a), s.rounding == Rounding::HalfAway)),
                                  qmin, qmax);
            }
        }
        out.scales.push_back(scale);
        out.zeros.push_back(zero);
        for (auto i : g) {
            if (bad) {
                out.codes[i] = 0;
                out.deq[i] = 0.0f;
                continue;
            }
            const float v = ar(x[i] / scale, a);
            const int q = std::clamp(static_cast<int>(rnd(v, s.rounding == Rounding::HalfAway)) + zero, qmin, qmax);
            out.codes[i] = q;
            out.deq[i] = ar(scale * static_cast<float>(q - zero), a);
        }
    }
    return out;
}

/// Heavy-tailed test matrix with outlier columns, a zero row and (optionally) BF16 rounding.
std::vector<float> testMatrix(std::int64_t R, std::int64_t C, std::uint64_t seed, bool bf16)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(4.0f);
    std::vector<float> v(static_cast<std::size_t>(R * C));
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c) {
            float x = 0.02f * t(rng) * (c % 37 == 5 ? 20.0f : 1.0f);
            if (r == 3)
                x = 0.0f; // a zero row: zero groups in every granularity but tensor
            v[r * C + c] = bf16 ? toBf16(x) : x;
        }
    return v;
}

Tensor asTensor(const std::vector<float> &v, std::int64_t R, std::int64_t C, bool bf16)
{
    if (!bf16)
        return Tensor::fromFloats({R, C}, v);
    std::vector<std::byte> b(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = floatToBf16(v[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return Tensor::fromBytes(DType::BF16, {R, C}, b);
}

void expectSame(const QuantizedTensor &q, const RefResult &ref, const std::string &what)
{
    ASSERT_EQ(q.codes.size(), ref.codes.size()) << what;
    ASSERT_EQ(q.scales.size(), ref.scales.size()) << what;
    std::size_t codeDiff = 0, scaleDiff = 0, deqDiff = 0;
    for (std::size_t i = 0; i < ref.codes.size(); ++i) {
        codeDiff += static_cast<std::int8_t>(q.codes[i]) != ref.codes[i];
        // Ŵ within 1 ulp of FP32 (it is computed by the same single multiplication).
        const float d = q.dequantized[i], e = ref.deq[i];
        deqDiff += !(d == e || std::nextafter(e, d) == d);
    }
    for (std::size_t g = 0; g < ref.scales.size(); ++g) {
        scaleDiff += std::memcmp(&q.scales[g], &ref.scales[g], 4) != 0;
        if (!q.zeros.empty())
            scaleDiff += q.zeros[g] != ref.zeros[g];
    }
    EXPECT_EQ(codeDiff, 0u) << what;
    EXPECT_EQ(scaleDiff, 0u) << what;
    EXPECT_EQ(deqDiff, 0u) << what;
}

} // namespace

TEST(UniformInt, MatchesScalarReferenceAcrossOptions)
{
    std::fesetround(FE_TONEAREST);
    const std::int64_t R = 37, C = 300; // K = 300: ragged for g = 32, 128 and block 16
    int combos = 0;
    for (bool bf16 : {false, true}) {
        const auto x = testMatrix(R, C, bf16 ? 11 : 12, bf16);
        const Tensor w = asTensor(x, R, C, bf16);
        for (int bits : {2, 3, 4, 8})
            for (bool sym : {true, false})
                for (int gi = 0; gi < 6; ++gi) {
                    IntSpec s;
                    s.bits = bits;
                    s.symmetric = sym;
                    const Granularity gs[] = {Granularity::Tensor, Granularity::Channel, Granularity::Channel,
                                              Granularity::Group,  Granularity::Group,   Granularity::Block};
                    s.granularity = gs[gi];
                    s.axis = gi == 2 ? 1 : 0;
                    s.group = gi == 3 ? 32 : 128;
                    s.block = 16;
                    // Vary the remaining options deterministically over the combinations.
                    const int k = combos++;
                    s.scaleRule = sym && (k % 3 == 1) ? ScaleRule::Max : ScaleRule::Toolkit;
                    s.rounding = (k % 4 == 2) ? Rounding::HalfAway : Rounding::HalfEven;
                    s.scaleDtype = static_cast<ScaleDType>(k % 4);
                    s.e8m0Mode = (k % 8 < 4) ? E8m0Mode::Ceil : E8m0Mode::Round;
                    s.arith = (k % 2) ? Arith::Source : Arith::Fp32;
                    s.eps = (k % 5 == 0) ? EpsPreset::Plain : EpsPreset::Toolkit;
                    const char a = (s.arith == Arith::Source && bf16) ? 'b' : 'f';
                    for (int threads : {1, 3}) {
                        QuantizeOptions o;
                        o.threads = threads;
                        const auto q = IntQuantizer(s).quantize(w, o);
                        expectSame(q, refInt(x, R, C, s, a), s.toJson().dump() + (bf16 ? " bf16" : " f32"));
                        EXPECT_EQ(q.layout.ragged, gi >= 3) << s.toJson().dump();
                    }
                }
    }
    EXPECT_EQ(combos, 2 * 4 * 2 * 6);
}

TEST(UniformInt, F16SourceArithmetic)
{
    std::vector<float> x(64 * 96);
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0, 0.05f);
    std::vector<std::byte> b(x.size() * 2);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint16_t h = floatToF16(n(rng));
        x[i] = f16ToFloat(h);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    const Tensor w = Tensor::fromBytes(DType::F16, {64, 96}, b);
    IntSpec s;
    s.group = 32;
    s.arith = Arith::Source;
    for (bool sym : {true, false}) {
        s.symmetric = sym;
        expectSame(IntQuantizer(s).quantize(w, {}), refInt(x, 64, 96, s, 'h'), "f16 source");
    }
}

TEST(UniformInt, ReciprocalOverflowInF16CodesZeroNotGarbage)
{
    // Quark's x·(1/s) with F16 arithmetic: an all-zero group takes the FP32 eps scale, 1/eps
    // overflows F16 to ∞ and 0·∞ is NaN. The code is then 0 (PyTorch's CUDA cast of NaN), so Ŵ is
    // 0 — not the conversion of NaN to int, which is undefined (INT_MIN on x86, whose Ŵ was −256).
    std::vector<std::byte> b(4 * 64 * 2);
    for (std::size_t i = 64 * 2; i < b.size(); i += 2) { // row 0 zero, the others 0.25
        const std::uint16_t h = floatToF16(0.25f);
        std::memcpy(b.data() + i, &h, 2);
    }
    const Tensor w = Tensor::fromBytes(DType::F16, {4, 64}, b);
    IntSpec s;
    s.group = 32;
    s.arith = Arith::Source;
    s.scaleApply = ScaleApply::Reciprocal;
    QuantizeOptions o;
    o.wantDequantized = true;
    const QuantizedTensor q = IntQuantizer(s).quantize(w, o);
    for (int c = 0; c < 64; ++c) {
        EXPECT_EQ(q.codes[static_cast<std::size_t>(c)], 0) << c;
        EXPECT_EQ(q.dequantized[static_cast<std::size_t>(c)], 0.0f) << c;
    }
    // The other rows: 0.25 at s = 0.25/7.5 codes 7 (= round(7.5) → 8, clamped to 7).
    EXPECT_EQ(static_cast<int>(static_cast<std::int8_t>(q.codes[64])), 7);
}

TEST(UniformInt, SourceArithmeticChangesSomeBf16Codes)
{
    // docs/numerics.md: on BF16 weights `arith source` changes a fraction of INT8 codes vs fp32.
    const std::int64_t R = 256, C = 512;
    const auto x = testMatrix(R, C, 5, true);
    const Tensor w = asTensor(x, R, C, true);
    IntSpec s;
    s.bits = 8;
    s.group = 128;
    const auto a = IntQuantizer(s).quantize(w, {});
    s.arith = Arith::Source;
    const auto b = IntQuantizer(s).quantize(w, {});
    std::size_t diff = 0;
    for (std::size_t i = 0; i < a.codes.size(); ++i)
        diff += a.codes[i] != b.codes[i];
    const double frac = static_cast<double>(diff) / static_cast<double>(a.codes.size());
    EXPECT_GT(frac, 0.01);
    EXPECT_LT(frac, 0.15);
}

TEST(UniformInt, PinnedTieOnMinusSevenPointFive)
{
    // amax = 1.875: s = 1.875/7.5 = 0.25 exactly in FP32, so −1.875/s = −7.5 sits on the tie;
    // half-to-even gives −8 (and half-away too). With the `max` rule, s = 1.875/7 and the code is −7.
    const std::vector<float> g{-1.875f, 1.0f, 0.3f, 0.0f};
    IntSpec s;
    s.granularity = Granularity::Tensor;
    const auto q = IntQuantizer(s).quantize(Tensor::fromFloats({1, 4}, g), {});
    EXPECT_EQ(q.scales[0], 0.25f);
    EXPECT_EQ(static_cast<std::int8_t>(q.codes[0]), -8);
    EXPECT_EQ(static_cast<std::int8_t>(q.codes[1]), 4);
    EXPECT_EQ(static_cast<std::int8_t>(q.codes[2]), 1);
    EXPECT_EQ(q.dequantized[0], -2.0f);
    // amax = 1: s = float(1/7.5) = 0.13333334 rounds up, so −1/s = −7.4999995 → −7: the FP32
    // rounding of s decides the code (FP64 arithmetic would put it on the tie).
    const std::vector<float> h{-1.0f, 0.5f};
    const auto r = IntQuantizer(s).quantize(Tensor::fromFloats({1, 2}, h), {});
    EXPECT_EQ(r.scales[0], 1.0f / 7.5f);
    EXPECT_EQ(static_cast<std::int8_t>(r.codes[0]), -7);
    s.scaleRule = ScaleRule::Max;
    const auto m = IntQuantizer(s).quantize(Tensor::fromFloats({1, 4}, g), {});
    EXPECT_EQ(static_cast<std::int8_t>(m.codes[0]), -7);
}

TEST(UniformInt, ZeroGroupsTakeThePresetEpsilon)
{
    std::vector<float> x(2 * 64, 0.0f);
    for (int i = 64; i < 128; ++i)
        x[i] = 0.01f * (i - 96);
    IntSpec s;
    s.group = 32;
    for (EpsPreset e : {EpsPreset::Toolkit, EpsPreset::Plain})
        for (ScaleDType d : {ScaleDType::F32, ScaleDType::BF16}) {
            s.eps = e;
            s.scaleDtype = d;
            const auto q = IntQuantizer(s).quantize(Tensor::fromFloats({2, 64}, x), {});
            const float want = e == EpsPreset::Plain ? FLT_MIN : (d == ScaleDType::F32 ? FLT_EPSILON : 0.0078125f);
            EXPECT_EQ(q.scales[0], want);
            EXPECT_EQ(q.scales[1], want);
            for (int i = 0; i < 64; ++i) {
                EXPECT_EQ(q.codes[i], 0);
                EXPECT_EQ(q.dequantized[i], 0.0f);
            }
            EXPECT_GT(q.scales[2], 0.01f);
        }
}

TEST(UniformInt, NonFiniteGroupsReportedAndCodedZero)
{
    std::vector<float> x(3 * 32, 0.5f);
    x[40] = std::numeric_limits<float>::quiet_NaN();
    x[75] = -std::numeric_limits<float>::infinity();
    IntSpec s;
    s.group = 32;
    const auto q = IntQuantizer(s).quantize(Tensor::fromFloats({3, 32}, x), {});
    EXPECT_EQ(q.nonFiniteGroups, 2);
    EXPECT_EQ(q.firstNonFinite, 40);
    for (int i = 32; i < 96; ++i)
        EXPECT_EQ(q.codes[i], 0);
    EXPECT_EQ(static_cast<std::int8_t>(q.codes[0]), 7); // 0.5 / (0.5/7.5) = 7.5 → 8 → clamp 7
    s.granularity = Granularity::Tensor;
    const auto t = IntQuantizer(s).quantize(Tensor::fromFloats({3, 32}, x), {});
    EXPECT_EQ(t.nonFiniteGroups, 1);
}

TEST(UniformInt, StrictRefusesRaggedGroupsNamingTensorKAndG)
{
    IntSpec s;
    s.group = 128;
    s.strict = true;
    QuantizeOptions o;
    o.tensorName = "model.layers.0.mlp.down_proj.weight";
    try {
        IntQuantizer(s).quantize(Tensor::zeros(DType::F32, {4, 300}), o);
        FAIL() << "strict ragged accepted";
    } catch (const UnsupportedError &e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("model.layers.0.mlp.down_proj.weight"), std::string::npos) << m;
        EXPECT_NE(m.find("300"), std::string::npos) << m;
        EXPECT_NE(m.find("128"), std::string::npos) << m;
    }
    s.strict = false;
    EXPECT_TRUE(IntQuantizer(s).quantize(Tensor::zeros(DType::F32, {4, 300}), o).layout.ragged);
}

TEST(UniformInt, KnownRelativeErrorsOnGaussian4096)
{
    // docs/numerics.md / issue: N(0,1), 4096×4096, INT4 symmetric, relative Frobenius ±0.0005.
    const std::int64_t N = 4096;
    std::vector<float> x(static_cast<std::size_t>(N * N));
    std::mt19937_64 rng(1234);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto &v : x)
        v = nd(rng);
    const Tensor w = Tensor::fromFloats({N, N}, x);
    struct Case {
        std::int64_t g;
        ScaleRule rule;
        double expected;
    };
    for (const Case c : {Case{32, ScaleRule::Toolkit, 0.0948}, Case{32, ScaleRule::Max, 0.0970},
                         Case{128, ScaleRule::Toolkit, 0.1108}, Case{128, ScaleRule::Max, 0.1173}}) {
        IntSpec s;
        s.group = c.g;
        s.scaleRule = c.rule;
        const auto q = IntQuantizer(s).quantize(w, {});
        double se = 0, sx = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double e = static_cast<double>(x[i]) - q.dequantized[i];
            se += e * e;
            sx += static_cast<double>(x[i]) * x[i];
        }
        EXPECT_NEAR(std::sqrt(se / sx), c.expected, 0.0005) << "g" << c.g << " " << toString(c.rule);
    }
}

TEST(UniformInt, BitsPerElementFromStoredDtypes)
{
    const Tensor w = Tensor::fromFloats({4, 256}, std::vector<float>(1024, 0.25f));
    IntSpec s;
    s.group = 128;
    EXPECT_DOUBLE_EQ(IntQuantizer(s).quantize(w, {}).bitsPerElement(), 4.0 + 32.0 / 128);
    s.symmetric = false;
    s.scaleDtype = ScaleDType::BF16;
    EXPECT_DOUBLE_EQ(IntQuantizer(s).quantize(w, {}).bitsPerElement(), 4.0 + 16.0 / 128 + 8.0 / 128);
    s.granularity = Granularity::Tensor;
    s.bits = 8;
    EXPECT_EQ(IntQuantizer(s).quantize(w, {}).storedBytes(), 1024u + 2u + 1u);
}

TEST(Spec, JsonRoundTripAndRefusals)
{
    IntSpec s;
    s.bits = 3;
    s.granularity = Granularity::Block;
    s.block = 64;
    s.symmetric = false;
    s.scaleDtype = ScaleDType::E8M0;
    s.e8m0Mode = E8m0Mode::Round;
    s.arith = Arith::Source;
    s.strict = true;
    s.eps = EpsPreset::Plain;
    s.rounding = Rounding::HalfAway;
    const auto j = s.toJson();
    EXPECT_EQ(IntSpec::fromJson(j).toJson(), j);
    Fp8Spec f;
    f.format = Fp8Format::E5M2;
    f.granularity = Granularity::Block;
    EXPECT_EQ(Fp8Spec::fromJson(f.toJson()).toJson(), f.toJson());
    EXPECT_THROW(IntSpec::fromJson({{"bits", 9}}), UnsupportedError);
    EXPECT_THROW(IntSpec::fromJson({{"bitz", 4}}), UnsupportedError);
    EXPECT_THROW(IntSpec::fromJson({{"granularity", "row"}}), UnsupportedError);
    EXPECT_THROW(IntSpec::fromJson({{"bits", "4"}}), UnsupportedError);
    // 2^32 + 4 must not narrow into a valid bit width; the message names the field.
    try {
        IntSpec::fromJson({{"bits", 4294967300LL}});
        ADD_FAILURE() << "bits 2^32 + 4 accepted";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("'bits'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(IntSpec::fromJson({{"axis", -4294967295LL}}), UnsupportedError);
    EXPECT_THROW(Fp8Spec::fromJson({{"granularity", "group"}}), UnsupportedError);
    EXPECT_THROW(makeQuantizer({{"method", "squeezellm"}}), UnsupportedError);
    EXPECT_EQ(makeQuantizer({{"method", "int"}, {"bits", 8}})->spec()["bits"], 8);
    // Every method lists fields whose keys appear in its default spec JSON.
    for (const auto &m : quantizerMethods())
        for (const auto &f : m.fields)
            EXPECT_TRUE(m.defaults.contains(f.key)) << m.method << "." << f.key;
}

// ---- FP8 ---------------------------------------------------------------------------------

TEST(Fp8, MatchesScalarReference)
{
    const std::int64_t R = 130, C = 200; // ragged 128-blocks
    for (bool bf16 : {false, true}) {
        const auto x = testMatrix(R, C, 21, bf16);
        const Tensor w = asTensor(x, R, C, bf16);
        for (Fp8Format fmt : {Fp8Format::E4M3, Fp8Format::E5M2})
            for (Granularity g : {Granularity::Tensor, Granularity::Channel, Granularity::Block})
                for (Arith arith : {Arith::Fp32, Arith::Source}) {
                    Fp8Spec s;
                    s.format = fmt;
                    s.granularity = g;
                    s.arith = arith;
                    const char a = (arith == Arith::Source && bf16) ? 'b' : 'f';
                    const float M = fmt == Fp8Format::E4M3 ? 448.0f : 57344.0f;
                    IntSpec layoutSpec; // reuse the reference's group enumeration
                    layoutSpec.granularity = g;
                    layoutSpec.block = 128;
                    const auto q = Fp8Quantizer(s).quantize(w, {});
                    std::size_t bad = 0, gi = 0;
                    for (const auto &grp : groupsOf(R, C, layoutSpec)) {
                        float amax = 0;
                        for (auto i : grp)
                            amax = std::max(amax, std::fabs(x[i]));
                        float sc = ar(amax / M, a);
                        if (sc == 0)
                            sc = FLT_EPSILON;
                        bad += std::memcmp(&sc, &q.scales[gi++], 4) != 0;
                        for (auto i : grp) {
                            const float v = std::clamp(ar(x[i] / sc, a), -M, M);
                            const std::uint8_t code = fmt == Fp8Format::E4M3 ? floatToE4m3(v) : floatToE5m2(v);
                            bad += code != q.codes[i];
                            const float dq =
                                ar((fmt == Fp8Format::E4M3 ? e4m3ToFloat(code) : e5m2ToFloat(code)) * sc, a);
                            bad += dq != q.dequantized[i];
                        }
                    }
                    EXPECT_EQ(bad, 0u) << s.toJson().dump() << (bf16 ? " bf16" : "");
                    if (g == Granularity::Block) {
                        EXPECT_EQ(q.layout.scaleShape(), (Shape{2, 2}));
                    }
                }
    }
}

TEST(Fp8, NeverNanFromFiniteInputAndExtremesHitMax)
{
    std::vector<float> x{1e30f, -3.0f, 0.0f, 2.5e-8f};
    Fp8Spec s;
    const auto q = Fp8Quantizer(s).quantize(Tensor::fromFloats({1, 4}, x), {});
    EXPECT_EQ(q.codes[0], 0x7E); // +448
    for (float d : q.dequantized)
        EXPECT_FALSE(std::isnan(d));
    EXPECT_FLOAT_EQ(q.dequantized[0], 1e30f);
}
