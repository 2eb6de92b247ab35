// SPDX-License-Identifier: MIT
#pragma once
// Shared by the GPU test files: the GPU backend (or a skip with the reason), seeded heavy-tailed
// data, and the bit-for-bit comparison of a GPU run with the CPU reference (codes, scales, zero
// points and Ŵ bit for bit; histogram counts and percentiles exact; sums and moments within 1e-9
// relative).
#include <gtest/gtest.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>
#include "../core/tensor_fixture.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "register.h"
#include "demo/demo.h"
#include "io/checkpoint.h"
#include "host/engine.h"
#include "kernels/kernels.h"
#include "numeric/moments.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {
// The GPU backend registers into the engine before any test asks the registry.
const bool kGpuRegistered = (registerGpuBackends(), true);

const Backend *gpuOrSkip()
{
    const auto &reg = BackendRegistry::instance();
    return reg.gpu();
}

#define REQUIRE_GPU()                                                                                                  \
    const Backend *gpu = gpuOrSkip();                                                                                  \
    if (!gpu)                                                                                                          \
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
    return quantscope::test::tensorOf(v, {R, C}, dt);
}

bool sameBits(float a, float b)
{
    return std::memcmp(&a, &b, 4) == 0;
}

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
    // The mean is an FP64 sum taken in another order: it may differ by up to n·2⁻⁵³·max|x| (the
    // bound of any summation order). Where large values cancel (groups near FLT_MAX whose Ŵ sum to
    // about 0 beside small ones) that bound, not a relative one, is what the sums can promise.
    if (!(std::abs(g.mean - c.mean) <= static_cast<double>(c.finiteCount) * 0x1p-53 * c.absmax))
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

/// One run of the engine itself (so the value-table path taken can be asserted), codes, Ŵ and metrics
/// collected; debugFlags as PipelineOptions (launch::kNoFastPath: the generic kernels).
struct EngineResult {
    QuantizedTensor q;
    ErrorMetrics m;
    bool fast = false; ///< the value-table path ran (its stage names start with "fast:")
};

inline EngineResult runEngine(gpu::Engine &e, const Tensor &w, const nlohmann::json &spec, int debugFlags)
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

} // namespace
