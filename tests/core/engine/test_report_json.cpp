// SPDX-License-Identifier: MIT
// The one JSON rendering of numbers and statistics (json/report_json.h): the CLI's summary keys,
// the sessions' lossless form, and version-1 session files that named the counts differently.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "results/session.h"
#include "json/report_json.h"
#include "util/error.h"

using namespace quantscope;

namespace {

TensorStats sample()
{
    TensorStats s;
    s.numel = 10;
    s.finiteCount = 8;
    s.nanCount = 1;
    s.infCount = 1;
    s.min = -3.5;
    s.max = 0.1 + 0.2;
    s.absmax = 3.5;
    s.mean = 1e-300;
    s.std = 1.25;
    s.skewness = -0.0;
    s.excessKurtosis = std::nullopt;
    return s;
}

} // namespace

TEST(ReportJson, SummaryHasTheCliKeysInOrder)
{
    const auto j = statsJson(sample());
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"min", "max", "mean", "std", "skewness", "excess_kurtosis",
                                              "nan_count", "inf_count"}));
    EXPECT_EQ(j["max"].get<double>(), 0.1 + 0.2);
    EXPECT_TRUE(j["excess_kurtosis"].is_null());
    TensorStats none;
    none.numel = 2;
    none.nanCount = 2;
    EXPECT_TRUE(statsJson(none)["min"].is_null()); // no finite value: undefined, not 0
}

TEST(ReportJson, NumbersFollowTheirConvention)
{
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(reportNumber(inf), "inf");
    EXPECT_EQ(reportNumber(-inf), "-inf");
    EXPECT_TRUE(reportNumber(std::nan("")).is_null());
    EXPECT_EQ(exactNumber(std::nan("")), "nan");
    EXPECT_TRUE(std::isnan(numberFromJson("nan", "x")));
    EXPECT_EQ(numberFromJson("-inf", "x"), -inf);
    EXPECT_EQ(numberFromJson(2.5, "x"), 2.5);
    try {
        numberFromJson("many", "bins", "session: ");
        FAIL() << "a word was read as a number";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("session: 'bins' is not a number"), std::string::npos) << e.what();
    }
}

TEST(ReportJson, FullFormRoundTripsExactly)
{
    TensorStats s = sample();
    s.max = std::numeric_limits<double>::infinity();
    const auto back = statsFromJson(nlohmann::json::parse(statsJson(s, StatsDetail::Full).dump()));
    EXPECT_EQ(back.numel, s.numel);
    EXPECT_EQ(back.finiteCount, s.finiteCount);
    EXPECT_EQ(back.nanCount, 1);
    EXPECT_EQ(back.infCount, 1);
    EXPECT_EQ(back.min, -3.5);
    EXPECT_TRUE(std::isinf(back.max));
    EXPECT_EQ(back.mean, 1e-300);
    ASSERT_TRUE(back.skewness.has_value());
    EXPECT_TRUE(std::signbit(*back.skewness));
    EXPECT_FALSE(back.excessKurtosis.has_value());
    nlohmann::json missing = statsJson(s, StatsDetail::Full);
    missing.erase("absmax");
    EXPECT_THROW(statsFromJson(missing), FormatError);
}

TEST(ReportJson, VersionOneSessionFilesStillOpen)
{
    // A session as version 1 wrote it: the statistics' counts were "finite", "nan" and "inf".
    Session s;
    s.configs = {{"A", {{"method", "int"}, {"bits", 3}}}};
    QuantizeOutcome o;
    o.tensor = "t";
    o.config = "A";
    o.spec = {{"method", "int"}};
    o.method = "int";
    o.device = "cpu";
    o.metrics.statsIn = sample();
    o.metrics.statsOut = sample();
    s.results.outcomes = {o};
    nlohmann::json j = sessionToJson(s);
    ASSERT_EQ(j["version"], kSessionVersion);
    nlohmann::json v1 = j;
    v1["version"] = 1;
    for (auto &out : v1["results"]["outcomes"])
        for (const char *which : {"stats_in", "stats_out"}) {
            auto &st = out["metrics"][which];
            ASSERT_TRUE(st.contains("nan_count")) << st.dump();
            st["finite"] = st["finite_count"];
            st["nan"] = st["nan_count"];
            st["inf"] = st["inf_count"];
            st.erase("finite_count");
            st.erase("nan_count");
            st.erase("inf_count");
        }
    const Session back = sessionFromJson(v1);
    EXPECT_EQ(sessionToJson(back).dump(), j.dump()); // read as version 1, written as the current one
    EXPECT_EQ(back.results.outcomes.at(0).metrics.statsIn.nanCount, 1);
}
