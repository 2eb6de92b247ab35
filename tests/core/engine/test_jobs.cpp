// SPDX-License-Identifier: MIT
// core/results: channel profiles, plot series, the Numbers rows and the session JSON round trip.
#include "results/config_label.h"
#include "results/overview.h"
#include "results/channel_profile.h"
#include "results/metric_rows.h"
#include "results/plot_data.h"
#include "results/session.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace quantscope;

TEST(ChannelProfile, AbsmaxPerColumnAndRowWithOutliers)
{
    // 4 × 6, column 4 an outlier, one NaN and one -inf that must not count.
    std::vector<float> v(24, 0.1f);
    for (int r = 0; r < 4; ++r)
        v[static_cast<std::size_t>(r * 6 + 4)] = -5.0f - static_cast<float>(r);
    v[1] = std::numeric_limits<float>::quiet_NaN();
    v[7] = -std::numeric_limits<float>::infinity();
    v[13] = 0.3f;
    const Tensor t = Tensor::fromFloats({4, 6}, v);
    const auto p = computeChannelProfiles(t, 2);
    ASSERT_EQ(p.columns.absmax.size(), 6u);
    ASSERT_EQ(p.rows.absmax.size(), 4u);
    EXPECT_FLOAT_EQ(p.columns.absmax[4], 8.0f);
    EXPECT_FLOAT_EQ(p.columns.absmax[1], 0.3f);
    EXPECT_FLOAT_EQ(p.rows.absmax[3], 8.0f);
    ASSERT_EQ(p.columns.top.size(), 2u);
    EXPECT_EQ(p.columns.top[0].index, 4);
    EXPECT_EQ(p.columns.top[1].index, 1);
    EXPECT_NEAR(p.columns.median, 0.1, 1e-7);
    EXPECT_NEAR(p.columns.top[0].ratio, 8.0 / 0.1, 1e-4);
    // Rank ≥ 3 is viewed as [prod(leading), K].
    const auto q = computeChannelProfiles(t.reshaped({2, 2, 6}), 1);
    EXPECT_EQ(q.columns.absmax, p.columns.absmax);
    EXPECT_EQ(q.rows.absmax.size(), 4u);
}

TEST(ChannelProfile, CancelStops)
{
    CancelToken cancel;
    cancel.cancel();
    const Tensor t = Tensor::zeros(DType::F32, {8, 8});
    EXPECT_THROW(computeChannelProfiles(t, 4, &cancel), Cancelled);
}

TEST(PlotData, SeriesHaveOnePointPerBin)
{
    ErrorMetrics m;
    m.w.lo = -1;
    m.w.hi = 1;
    m.w.counts = {1, 5, 3, 0};
    m.wHat = m.w;
    m.wHat.counts = {0, 7, 2, 0};
    m.err.lo = -0.5;
    m.err.hi = 0.5;
    m.err.counts = {2, 2};
    const auto d = prepareDistribution(m);
    ASSERT_EQ(d.w.size(), 4u);
    EXPECT_DOUBLE_EQ(d.w.x[0], -0.75);
    EXPECT_DOUBLE_EQ(d.w.x[3], 0.75);
    EXPECT_EQ(d.overlap.y, (std::vector<double>{0, 5, 2, 0}));
    EXPECT_EQ(d.err.size(), 2u);
    EXPECT_DOUBLE_EQ(d.binWidth, 0.5);
    EXPECT_NEAR(symlogInverse(symlogForward(-0.37, 1e-3), 1e-3), -0.37, 1e-12);
}

namespace {
QuantizeOutcome sampleOutcome()
{
    QuantizeOutcome o;
    o.tensor = "model.layers.0.mlp.down_proj.weight";
    o.config = "A";
    o.spec = {{"method", "int"}, {"bits", 4}};
    o.method = "int";
    o.device = "cpu";
    o.timeMs = 12.5;
    o.metrics.numel = 100;
    o.metrics.counted = 99;
    o.metrics.mse = 1.0 / 3.0;
    o.metrics.rmse = std::sqrt(1.0 / 3.0);
    o.metrics.sqnrDb = std::numeric_limits<double>::infinity();
    o.metrics.relFrobenius = 0.1 + 0.2;
    o.metrics.cosine = std::nullopt;
    o.metrics.w.lo = -0.1;
    o.metrics.w.hi = 0.3;
    o.metrics.w.counts = {1, 2, 3};
    o.metrics.wHat = o.metrics.w;
    o.metrics.err.counts = {4};
    o.metrics.statsIn.finiteCount = 99;
    o.metrics.statsIn.nanCount = 1;
    o.metrics.statsIn.mean = 1e-300;
    o.metrics.statsIn.skewness = -0.0;
    o.bitsPerElement = 4.25;
    o.storedBytes = 557056;
    o.plot = prepareDistribution(o.metrics);
    return o;
}
} // namespace

TEST(MetricRows, KeysFollowTheCliJson)
{
    const auto o = sampleOutcome();
    EXPECT_EQ(toCliJson(metricValue(o, "metrics.sqnr_db")), "inf");
    EXPECT_TRUE(toCliJson(metricValue(o, "metrics.cosine")).is_null());
    EXPECT_EQ(toCliJson(metricValue(o, "metrics.bytes")), 557056);
    EXPECT_EQ(toCliJson(metricValue(o, "stats_in.nan_count")), 1);
    EXPECT_EQ(toCliJson(metricValue(o, "device")), "cpu");
    const auto j = outcomeSummaryJson(o);
    for (const auto &row : metricRows()) {
        const auto dot = row.key.find('.');
        if (dot == std::string::npos)
            EXPECT_TRUE(j.contains(row.key)) << row.key;
        else
            EXPECT_TRUE(j[row.key.substr(0, dot)].contains(row.key.substr(dot + 1))) << row.key;
    }
    QuantizeOutcome failed = o;
    failed.error = "bad spec";
    EXPECT_TRUE(toCliJson(metricValue(failed, "metrics.mse")).is_null());
}

TEST(Session, RoundTripsExactly)
{
    Session s;
    s.checkpoint = SessionSource{"/data/model", false, true};
    s.activation = "act";
    s.activationSource = SessionSource{"/data/act.npy", false, false};
    s.selected = {"a", "b"};
    s.device = "cpu";
    s.bins = 64;
    s.symlog = true;
    s.configs = {{"A", {{"method", "int"}, {"bits", 3}}}, {"B", {{"method", "fp8"}}}};
    s.results.outcomes = {sampleOutcome()};
    TensorProfile p;
    p.tensor = "a";
    p.shape = {2, 3};
    p.dtype = "BF16";
    p.channels =
        computeChannelProfiles(Tensor::fromFloats({2, 3}, std::vector<float>{0.1f, -7.3f, 1e-30f, 2, 3, 4}), 2);
    p.activation = "act";
    p.activationColumns = p.channels.columns;
    s.results.tensors = {p};
    s.results.warnings = {"w"};
    s.view = {{"tab", 1}};

    const auto j = sessionToJson(s);
    const auto text = j.dump();
    const auto back = sessionFromJson(nlohmann::json::parse(text));
    EXPECT_EQ(sessionToJson(back).dump(), text);
    ASSERT_EQ(back.results.outcomes.size(), 1u);
    const auto &o = back.results.outcomes[0];
    EXPECT_TRUE(std::isinf(o.metrics.sqnrDb));
    EXPECT_EQ(o.metrics.relFrobenius, 0.1 + 0.2); // exact, not close
    EXPECT_EQ(o.metrics.statsIn.mean, 1e-300);
    EXPECT_TRUE(std::signbit(*o.metrics.statsIn.skewness));
    EXPECT_FALSE(o.metrics.cosine.has_value());
    EXPECT_EQ(o.plot.w.size(), 3u); // the series are prepared again on reading
    EXPECT_EQ(back.results.tensors[0].channels.columns.top.size(), 2u);
    EXPECT_EQ(back.results.tensors[0].channels.columns.absmax, p.channels.columns.absmax);
    ASSERT_TRUE(back.checkpoint.has_value());
    EXPECT_TRUE(back.checkpoint->lenient);
    EXPECT_EQ(back.configs[1].spec["method"], "fp8");
}

TEST(Session, RefusesWhatItCannotRead)
{
    EXPECT_THROW(sessionFromJson({{"format", "other"}}), FormatError);
    auto j = sessionToJson(Session{});
    j["version"] = kSessionVersion + 1;
    EXPECT_THROW(sessionFromJson(j), FormatError);
    j = sessionToJson(Session{});
    j.erase("configurations");
    EXPECT_THROW(sessionFromJson(j), FormatError);
    j = sessionToJson(Session{});
    j["bins"] = "many";
    EXPECT_THROW(sessionFromJson(j), FormatError);
    // Integer fields holding floats, or integers out of range (the fuzz finding of
    // docs/reliability.md: 1e67 in a histogram's counts was cast to int64, undefined behaviour).
    auto refusedSaying = [](const nlohmann::json &bad, const std::string &what) {
        try {
            sessionFromJson(bad);
            ADD_FAILURE() << "accepted: " << what;
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find("must hold integers in range"), std::string::npos) << e.what();
        }
    };
    Session withOutcome;
    withOutcome.results.outcomes = {sampleOutcome()};
    const auto good = sessionToJson(withOutcome);
    ASSERT_NO_THROW(sessionFromJson(good));
    for (const auto &[path, value] :
         std::vector<std::pair<std::string, nlohmann::json>>{{"/bins", 1e67},
                                                             {"/bins", 64.5},
                                                             {"/bins", 4294967296LL},
                                                             {"/bins", 18446744073709551615ULL},
                                                             {"/results/outcomes/0/metrics/numel", 1e67},
                                                             {"/results/outcomes/0/metrics/err/counts/0", 1e67},
                                                             {"/results/outcomes/0/metrics/err/counts/0", -1.5}}) {
        auto bad = good;
        ASSERT_TRUE(bad.contains(nlohmann::json::json_pointer(path))) << path;
        bad[nlohmann::json::json_pointer(path)] = value;
        refusedSaying(bad, path + " = " + value.dump());
    }
}

TEST(ConfigLabel, SaysWhatTheConfigurationIs)
{
    EXPECT_EQ(configLabel("A", {{"method", "int"}, {"bits", 4}, {"group", 128}}), "A · INT4 g128 sym");
    EXPECT_EQ(configLabel("B", {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}, {"symmetric", false}}),
              "B · INT8 per channel asym");
    EXPECT_EQ(configLabel("C", {{"method", "hqq"}, {"bits", 4}, {"group", 64}}), "C · HQQ 4-bit g64");
    EXPECT_EQ(describeSpec({{"method", "fp8"}}), "FP8 E4M3 per tensor");
    EXPECT_EQ(describeSpec({{"method", "milo"}, {"rank", 16}}), "MiLo r16 3-bit g64");
    EXPECT_EQ(describeSpec({{"method", "progressive"}}), "FP8 E4M3 per tensor → INT4 per channel sym (Quark)");
    EXPECT_EQ(describeSpec({{"method", "constopt"}, {"rotate", 64}}), "constOpt c 0.156 g32 H64");
    EXPECT_EQ(describeSpec({{"method", "mxfp4"}}), "MXFP4");
    EXPECT_EQ(describeSpec({{"method", "int"}, {"bits", 99}}), "int"); // does not parse: its method
}

TEST(Overview, FieldsApplyByGranularity)
{
    const nlohmann::json group = {{"method", "int"}, {"granularity", "group"}, {"group", 64}};
    const nlohmann::json channel = {{"method", "int"}, {"granularity", "channel"}};
    EXPECT_TRUE(specFieldApplies(group, "group"));
    EXPECT_FALSE(specFieldApplies(group, "block"));
    EXPECT_FALSE(specFieldApplies(group, "axis"));
    EXPECT_FALSE(specFieldApplies(channel, "group"));
    EXPECT_TRUE(specFieldApplies(channel, "axis"));
    EXPECT_TRUE(specFieldApplies({{"method", "hqq"}, {"group", 64}}, "group")); // no switch
    EXPECT_FALSE(specFieldApplies({{"scale_dtype", "bf16"}}, "e8m0_mode"));
    EXPECT_TRUE(specFieldApplies({{"scale_dtype", "e8m0"}}, "e8m0_mode"));
}

TEST(Overview, RowsNotesAndCsv)
{
    QuantizeJobResult r;
    TensorProfile small;
    small.tensor = "small";
    small.shape = {8, 32};
    r.tensors.push_back(small);
    for (const int g : {16, 128}) {
        QuantizeOutcome o;
        o.tensor = "small";
        o.config = g == 16 ? "A" : "B";
        o.spec = {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", g}};
        o.metrics.relFrobenius = g == 16 ? 0.01 : 0.1;
        r.outcomes.push_back(o);
    }
    const auto d = prepareOverview(r);
    ASSERT_EQ(d.rows.size(), 2u);
    EXPECT_TRUE(d.rows[0].note.empty());                      // 16 ≤ 32
    EXPECT_NE(d.rows[1].note.find("128"), std::string::npos); // 128 > 32: said so
    EXPECT_DOUBLE_EQ(d.minRelError, 0.01);
    EXPECT_DOUBLE_EQ(d.maxRelError, 0.1);
    EXPECT_DOUBLE_EQ(*overviewErrorRank(d, 0.01), 0.0);
    EXPECT_DOUBLE_EQ(*overviewErrorRank(d, 0.1), 1.0);
    EXPECT_NEAR(*overviewErrorRank(d, std::sqrt(0.001)), 0.5, 1e-12); // geometric middle
    const auto csv = overviewCsv(d);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
    EXPECT_NE(csv.find(",0.01,"), std::string::npos); // shortest round-trip form
}
