// SPDX-License-Identifier: MIT
// The Spectrum view's prepared data against hand-computed values: a diagonal residual with known
// singular values 4, 3, 2, 1 (‖E‖²_F = 30), a 6 × 10 matrix (N + K = 16), so a rank-r FP16
// compensator adds 16·r·16 = 256·r bits, i.e. 256·r / 60 bits per element and 32·r bytes.
#include "engine/job.h"
#include "results/spectrum_plot.h"
#include "metrics/spectrum.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace quantscope;

namespace {

/// E = diag(4, 3, 2, 1, 0, 0) padded to 6 × 10.
std::vector<float> diagonalResidual()
{
    std::vector<float> e(60, 0.0f);
    const float d[] = {4, 3, 2, 1};
    for (int i = 0; i < 4; ++i)
        e[static_cast<std::size_t>(i * 10 + i)] = d[i];
    return e;
}

} // namespace

TEST(SpectrumPlot, RankCurvesEqualHandComputedValues)
{
    SpectrumOptions o;
    o.tau = 0.5;
    const Spectrum s = computeSpectrum(diagonalResidual(), 6, 10, o);
    ASSERT_EQ(s.sigma.size(), 6u);
    // ‖W‖_F = 10 ⇒ relFrobenius = √30 / 10.
    const double rel = std::sqrt(30.0) / 10.0;
    const auto d = prepareSpectrumPlot(s, 6, 10, 4.5, 1000, rel);
    EXPECT_EQ(d.rows, 6);
    EXPECT_EQ(d.cols, 10);
    EXPECT_EQ(d.numel, 60);
    EXPECT_EQ(d.maxRank(), 6);
    ASSERT_EQ(d.rank.size(), 7u);
    ASSERT_EQ(d.index.size(), 6u);
    EXPECT_EQ(d.index.front(), 1.0);
    EXPECT_EQ(d.index.back(), 6.0);
    const double err[] = {std::sqrt(30.0), std::sqrt(14.0), std::sqrt(5.0), 1.0, 0.0, 0.0, 0.0};
    const double energy[] = {0.0, 16.0 / 30, 25.0 / 30, 29.0 / 30, 1.0, 1.0, 1.0};
    for (int r = 0; r <= 6; ++r) {
        const auto i = static_cast<std::size_t>(r);
        EXPECT_EQ(d.rank[i], r);
        // √(‖E‖²_F − Σσ²) of a vanishing rest is √(rounding of 30) ≈ 1e-7.
        EXPECT_NEAR(d.errAfterRank[i], err[r], 1e-6) << r;
        EXPECT_NEAR(d.relErrAfterRank[i], err[r] / 10.0, 1e-7) << r;
        EXPECT_NEAR(d.energy[i], energy[r], 1e-12) << r;
        // (N + K)·r·16 = 256·r bits over 60 elements; 32·r bytes.
        EXPECT_DOUBLE_EQ(d.bitsPerElement[i], 4.5 + 256.0 * r / 60.0) << r;
        EXPECT_DOUBLE_EQ(d.megabytes[i], (1000.0 + 32.0 * r) / 1e6) << r;
    }
    EXPECT_DOUBLE_EQ(compensatorBits(6, 10, 3), 768.0);
    EXPECT_DOUBLE_EQ(compensatorBits(4096, 11008, 64), (4096.0 + 11008.0) * 64 * 16);
}

TEST(SpectrumPlot, TauCountsFollowTheSpectrumRules)
{
    SpectrumOptions o;
    o.tau = 0.5;
    const Spectrum s = computeSpectrum(diagonalResidual(), 6, 10, o);
    // τ = 0.5: σ ≥ 2 → {4, 3, 2}: 3; below: 3 of min(N, K) = 6.
    auto c = tauCounts(s, 0.5);
    EXPECT_EQ(c.geTau, 3);
    EXPECT_EQ(c.ltTau, 3);
    EXPECT_TRUE(c.geExact);
    EXPECT_FALSE(c.derived);
    EXPECT_EQ(c.geTau, s.nSigmaGeTau);
    EXPECT_EQ(c.ltTau, s.nSigmaLtTau);
    // τ = 0.2: σ ≥ 0.8 → 4.
    c = tauCounts(s, 0.2);
    EXPECT_EQ(c.geTau, 4);
    EXPECT_EQ(c.ltTau, 2);
    // Top 2 only: τ = 0.5 finds both ≥ 2 ⇒ a lower bound, the rest derived.
    Spectrum top = s;
    top.sigma.resize(2);
    top.complete = false;
    c = tauCounts(top, 0.5);
    EXPECT_EQ(c.geTau, 2);
    EXPECT_FALSE(c.geExact);
    EXPECT_EQ(c.ltTau, 4);
    EXPECT_TRUE(c.derived);
    c = tauCounts(top, 0.9);
    EXPECT_EQ(c.geTau, 1);
    EXPECT_TRUE(c.geExact);
}

TEST(SpectrumPlot, MiloSpecAtRank)
{
    const nlohmann::json milo = {{"method", "milo"}, {"rank", 16}, {"bits", 3}, {"preset", "paper"}};
    auto j = miloSpecAtRank(milo, 40);
    EXPECT_EQ(j["rank"], 40);
    EXPECT_EQ(j["preset"], "paper");
    EXPECT_EQ(j["bits"], 3);

    j = miloSpecAtRank({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}}, 8);
    EXPECT_EQ(j["method"], "milo");
    EXPECT_EQ(j["rank"], 8);
    EXPECT_EQ(j["compensator"], "fp16");
    EXPECT_EQ(j["bits"], 4);
    EXPECT_EQ(j["group"], 128);

    j = miloSpecAtRank({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}, {"group", 128}}, 2);
    EXPECT_EQ(j["bits"], 8);
    EXPECT_FALSE(j.contains("group"));

    j = miloSpecAtRank({{"method", "fp8"}, {"format", "e4m3"}}, 4);
    EXPECT_EQ(j, (nlohmann::json{{"method", "milo"}, {"rank", 4}, {"compensator", "fp16"}}));
}

TEST(SpectrumPlot, JobKeepsMiloPassHistory)
{
    std::vector<float> v(32 * 48);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) + 0.01 * static_cast<double>(i % 7));
    const Tensor t = Tensor::fromFloats({32, 48}, v);
    QuantizeJobRequest request;
    request.tensors = {"w"};
    request.configs = {{"A", {{"method", "milo"}, {"rank", 4}, {"passes", 3}}},
                       {"B", {{"method", "int"}, {"bits", 4}}}};
    request.device = DeviceChoice::Cpu;
    request.profileChannels = false;
    request.spectrum = SpectrumOptions{};
    TensorSource source;
    source.weight = [&t](const std::string &) { return t; };
    const auto result = runQuantizeJob(request, source, CancelToken());
    ASSERT_EQ(result.outcomes.size(), 2u);
    const auto &milo = result.outcomes[0];
    ASSERT_TRUE(milo.ok()) << milo.error;
    ASSERT_EQ(milo.history.size(), 3u);
    std::size_t best = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(milo.history[i].pass, static_cast<int>(i + 1));
        if (milo.history[i].eps < milo.history[best].eps)
            best = i;
    }
    EXPECT_EQ(milo.chosenPass, static_cast<int>(best) + 1); // the best pass is returned
    // The returned pass's ε is the residual's Frobenius norm that the spectrum measures.
    ASSERT_TRUE(milo.spectrum);
    EXPECT_NEAR(milo.history[best].eps, milo.spectrum->froNorm, 1e-4 * milo.spectrum->froNorm);
    EXPECT_TRUE(result.outcomes[1].history.empty());
}
