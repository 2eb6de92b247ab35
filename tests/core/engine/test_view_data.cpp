// SPDX-License-Identifier: MIT
// The Scale-constant and Kurtosis views' data (issue 17 items 2 and 3), prepared in core.
#include "results/channel_profile.h"
#include "results/kurtosis_data.h"
#include "results/scale_constant_data.h"
#include "numeric/moments.h"

#include <atomic>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <mutex>
#include <random>

using namespace quantscope;

namespace {

Tensor heavyTailed(std::int64_t rows, std::int64_t cols, unsigned seed)
{
    std::mt19937 rng(seed);
    std::student_t_distribution<float> t(4.0f);
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    for (auto &x : v)
        x = 0.02f * t(rng);
    v[7] = 0.9f; // one outlier in column 7
    return Tensor::fromFloats({rows, cols}, v);
}

} // namespace

TEST(ScaleConstantData, CurvesAndReferencesAreSweepCsAndProgressReachesOne)
{
    const Tensor w = heavyTailed(32, 256, 1);
    ScaleConstantOptions o;
    o.rotate = 64;
    o.lo = 0.1;
    o.hi = 0.3;
    o.step = 0.005;
    const CancelToken cancel;
    std::mutex m;
    std::vector<double> seen;
    const ScaleConstantData d = computeScaleConstantData(w, "w", o, &cancel, [&](double f) {
        std::lock_guard lock(m);
        seen.push_back(f);
    });
    for (std::int64_t rotate : {0, 64}) {
        for (auto enc : {ConstOptEncoder::Pow2, ConstOptEncoder::Unrounded}) {
            CSweepOptions so;
            so.rotate = rotate;
            so.encoder = enc;
            so.lo = o.lo;
            so.hi = o.hi;
            so.step = o.step;
            const CSweepResult r = sweepC(w, so);
            ASSERT_TRUE(rotate == 0 || d.rotated);
            const ScaleConstantSet &s = rotate ? *d.rotated : d.plain;
            const ScaleConstantCurve &c = enc == ConstOptEncoder::Pow2 ? s.pow2 : s.unrounded;
            EXPECT_EQ(c.c, r.c);
            EXPECT_EQ(c.mse, r.mse);
            EXPECT_EQ(c.cStar, r.cStar);
            EXPECT_EQ(c.intervalLo, r.intervalLo);
            EXPECT_EQ(c.intervalHi, r.intervalHi);
            EXPECT_EQ(c.mseAtDefault, r.mseAtDefault);
            EXPECT_EQ(s.int4Mse, r.int4Mse);
            EXPECT_EQ(s.mxfp4Mse, r.mxfp4Mse);
            EXPECT_EQ(s.lloydMaxMse, r.lloydMax.mse);
        }
    }
    EXPECT_EQ(d.rotated->rotate, 64);
    EXPECT_TRUE(d.rotated->rotatedKurtosis.has_value());
    ASSERT_FALSE(seen.empty());
    EXPECT_DOUBLE_EQ(*std::max_element(seen.begin(), seen.end()), 1.0);
}

TEST(ScaleConstantData, ARefusedRotationKeepsTheUnrotatedCurvesAndSaysWhy)
{
    const Tensor w = heavyTailed(8, 96, 2); // 64 does not divide 96
    ScaleConstantOptions o;
    o.rotate = 64;
    o.step = 0.01;
    const ScaleConstantData d = computeScaleConstantData(w, "w", o);
    EXPECT_FALSE(d.rotated);
    EXPECT_NE(d.rotatedError.find("96"), std::string::npos) << d.rotatedError;
    EXPECT_EQ(d.plain.pow2.c.size(), 36u);
    const CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(computeScaleConstantData(w, "w", o, &cancel), Cancelled);
}

TEST(ScaleConstantData, SnapsAClickToTheGrid)
{
    EXPECT_DOUBLE_EQ(snapToGrid(0.15630, 0.05, 0.40, 0.0005), 0.05 + 213 * 0.0005);
    EXPECT_DOUBLE_EQ(snapToGrid(0.01, 0.05, 0.40, 0.0005), 0.05);
    EXPECT_DOUBLE_EQ(snapToGrid(0.9, 0.05, 0.40, 0.0005), 0.05 + 700 * 0.0005);
}

TEST(ChannelKurtosis, EachChannelIsComputeStatsOfThatChannel)
{
    const std::int64_t rows = 24, cols = 40;
    const Tensor w = heavyTailed(rows, cols, 3);
    std::vector<float> all(static_cast<std::size_t>(rows * cols));
    w.decodeRange(0, all);
    const ChannelKurtosis k = computeChannelKurtosis(w);
    ASSERT_EQ(k.rows.size(), static_cast<std::size_t>(rows));
    ASSERT_EQ(k.columns.size(), static_cast<std::size_t>(cols));
    for (std::int64_t r = 0; r < rows; ++r) {
        std::vector<float> row(all.begin() + r * cols, all.begin() + (r + 1) * cols);
        const double want = *computeStats(Tensor::fromFloats({cols}, row)).excessKurtosis;
        EXPECT_NEAR(k.rows[static_cast<std::size_t>(r)], want, 1e-12 * (1 + std::fabs(want)));
    }
    for (std::int64_t c = 0; c < cols; ++c) {
        std::vector<float> col;
        for (std::int64_t r = 0; r < rows; ++r)
            col.push_back(all[static_cast<std::size_t>(r * cols + c)]);
        const double want = *computeStats(Tensor::fromFloats({rows}, col)).excessKurtosis;
        EXPECT_NEAR(k.columns[static_cast<std::size_t>(c)], want, 1e-12 * (1 + std::fabs(want)));
    }
    EXPECT_GT(k.columns[7], 10.0); // the outlier's column
    // A constant channel has no kurtosis.
    const ChannelKurtosis z = computeChannelKurtosis(Tensor::fromFloats({2, 3}, std::vector<float>(6, 1.0f)));
    EXPECT_TRUE(std::isnan(z.rows[0]));
}

TEST(ChannelKurtosis, RowErrorsCombineToTheRelativeFrobeniusError)
{
    const Tensor w = heavyTailed(6, 10, 4);
    std::vector<float> a(60), b(60);
    w.decodeRange(0, a);
    for (std::size_t i = 0; i < 60; ++i)
        b[i] = a[i] * (i < 10 ? 1.0f : 1.1f); // row 0 exact, the others 10 % off
    const auto e = rowRelativeErrors(w, b);
    ASSERT_EQ(e.size(), 6u);
    EXPECT_EQ(e[0], 0.0);
    for (std::size_t r = 1; r < 6; ++r)
        EXPECT_NEAR(e[r], 0.1, 1e-6);
    EXPECT_THROW(rowRelativeErrors(w, std::vector<float>(5)), UnsupportedError);
}

TEST(KurtosisData, ChannelsRotationAndOnePointPerSuccessfulOutcome)
{
    const Tensor w = heavyTailed(16, 128, 5);
    QuantizeJobResult results;
    QuantizeOutcome ok;
    ok.tensor = "w";
    ok.config = "B";
    ok.spec = {{"method", "int"}, {"bits", 4}};
    ok.metrics.relFrobenius = 0.125;
    QuantizeOutcome failed = ok;
    failed.error = "boom";
    QuantizeOutcome other = ok;
    other.tensor = "not profiled";
    results.outcomes = {ok, failed, other};
    const auto weight = [&](const std::string &name) {
        if (name != "w")
            throw UnsupportedError("no such tensor");
        return w;
    };
    const KurtosisData d = computeKurtosisData(weight, {"w", "missing"}, &results, 64, 3);
    ASSERT_EQ(d.tensors.size(), 2u);
    const KurtosisTensor &t = d.tensors[0];
    EXPECT_EQ(t.rows, 16);
    EXPECT_EQ(t.cols, 128);
    EXPECT_EQ(t.plain.channels.columns, computeChannelKurtosis(w).columns);
    EXPECT_DOUBLE_EQ(t.plain.kurtosis, *computeStats(w).excessKurtosis);
    EXPECT_EQ(t.plain.topColumns.size(), 3u);
    EXPECT_EQ(t.plain.topColumns[0], 7); // the outlier's column
    ASSERT_TRUE(t.rotated);
    EXPECT_LT(t.rotated->kurtosis, t.plain.kurtosis); // the rotation spreads the tails
    EXPECT_FALSE(d.tensors[1].error.empty());
    ASSERT_EQ(d.points.size(), 1u);
    EXPECT_EQ(d.points[0].label, "B · INT4 g128 sym");
    EXPECT_EQ(d.points[0].colorIndex, 1);
    EXPECT_EQ(d.points[0].relError, 0.125);
    EXPECT_EQ(d.points[0].rotatedKurtosis, t.rotated->kurtosis);
    // A block that does not divide K: no rotation, and why.
    const KurtosisData r = computeKurtosisData(weight, {"w"}, nullptr, 256);
    EXPECT_FALSE(r.tensors[0].rotated);
    EXPECT_FALSE(r.tensors[0].rotatedError.empty());
}

TEST(KurtosisData, TopChannelsPutUndefinedLastAndBreakTiesByIndex)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(topChannels({1.0, nan, 3.0, 3.0, 2.0}, 4), (std::vector<std::int64_t>{2, 3, 4, 0}));
    EXPECT_EQ(topChannels({nan, 1.0}, 5), (std::vector<std::int64_t>{1, 0}));
}
