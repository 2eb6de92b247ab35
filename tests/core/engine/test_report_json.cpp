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
    EXPECT_EQ(keys, (std::vector<std::string>{"min", "max", "mean", "std", "skewness", "excess_kurtosis", "nan_count",
                                              "inf_count"}));
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

namespace {

ErrorMetrics sampleMetrics()
{
    ErrorMetrics m;
    m.numel = 12;
    m.counted = 11;
    m.mse = 0.1 + 0.2;
    m.rmse = std::sqrt(0.1 + 0.2);
    m.sqnrDb = std::numeric_limits<double>::infinity(); // error 0: the report writes "inf"
    m.relFrobenius = std::numeric_limits<double>::quiet_NaN();
    m.maxAbsErr = 1e-300;
    m.cosine = 0.999;
    m.errP50 = 1.0 / 3.0;
    m.errP90 = 0.5;
    m.errP99 = 0.75;
    m.errP999 = 0.875;
    m.overlap = 0.25;
    m.w = {-1.0, 2.0, {1, 2, 3}, 4, 5, false, 0.0};
    m.wHat = {-1.5, 2.5, {0, 7}, 1, 0, true, 1e-3};
    m.err = {0.0, std::numeric_limits<double>::infinity(), {9}, 0, 2, false, 0.0};
    m.statsIn = sample();
    m.statsOut = sample();
    return m;
}

} // namespace

TEST(ReportJson, MetricsReportFormHasTheCliAndScanKeysInOrder)
{
    // The expectation built by hand as quantize --json and the scan's lines built it before
    // metricsJson was their one writer.
    const ErrorMetrics m = sampleMetrics();
    nlohmann::ordered_json want;
    want["mse"] = m.mse;
    want["rmse"] = m.rmse;
    want["sqnr_db"] = "inf";
    want["rel_frobenius"] = nullptr;
    want["max_abs_err"] = m.maxAbsErr;
    want["cosine"] = 0.999;
    want["err_p50"] = m.errP50;
    want["err_p90"] = 0.5;
    want["err_p99"] = 0.75;
    want["err_p999"] = 0.875;
    nlohmann::ordered_json withSize = want;
    withSize["bits_per_element"] = 4.25;
    withSize["bytes"] = std::uint64_t{1234};
    EXPECT_EQ(metricsJson(m, MetricsDetail::Report).dump(), want.dump());
    EXPECT_EQ(metricsJson(m, MetricsDetail::Report, StoredSize{4.25, 1234}).dump(), withSize.dump());
    EXPECT_EQ(metricsJson(m, MetricsDetail::Report, StoredSize{4.25, 1234}).dump(1), withSize.dump(1));
    // Non-finite values outside sqnr_db / rel_frobenius stay raw doubles (written null), and an
    // unset cosine is null.
    ErrorMetrics z = m;
    z.mse = std::numeric_limits<double>::infinity();
    z.cosine.reset();
    const auto zj = metricsJson(z, MetricsDetail::Report);
    EXPECT_TRUE(zj["cosine"].is_null());
    EXPECT_TRUE(zj["mse"].is_number_float());
    EXPECT_EQ(zj.dump().rfind("{\"mse\":null,", 0), 0u) << zj.dump();
}

TEST(ReportJson, MetricsFullFormIsTheSessionsAndReadsBack)
{
    // The session's metrics object as session.cpp wrote it by hand before metricsJson.
    const ErrorMetrics m = sampleMetrics();
    auto hist = [](const Histogram &h) {
        return nlohmann::json{{"lo", exactNumber(h.lo)}, {"hi", exactNumber(h.hi)}, {"counts", h.counts},
                              {"below", h.below},        {"above", h.above},        {"symlog", h.symlog},
                              {"t", exactNumber(h.t)}};
    };
    const nlohmann::json want = {{"numel", m.numel},
                                 {"counted", m.counted},
                                 {"mse", exactNumber(m.mse)},
                                 {"rmse", exactNumber(m.rmse)},
                                 {"sqnr_db", exactNumber(m.sqnrDb)},
                                 {"rel_frobenius", exactNumber(m.relFrobenius)},
                                 {"max_abs_err", exactNumber(m.maxAbsErr)},
                                 {"cosine", exactNumber(*m.cosine)},
                                 {"err_p50", exactNumber(m.errP50)},
                                 {"err_p90", exactNumber(m.errP90)},
                                 {"err_p99", exactNumber(m.errP99)},
                                 {"err_p999", exactNumber(m.errP999)},
                                 {"overlap", exactNumber(m.overlap)},
                                 {"w", hist(m.w)},
                                 {"w_hat", hist(m.wHat)},
                                 {"err", hist(m.err)},
                                 {"stats_in", nlohmann::json(statsJson(m.statsIn, StatsDetail::Full))},
                                 {"stats_out", nlohmann::json(statsJson(m.statsOut, StatsDetail::Full))}};
    const nlohmann::json got = nlohmann::json(metricsJson(m, MetricsDetail::Full));
    EXPECT_EQ(got.dump(), want.dump());
    EXPECT_TRUE(got["rel_frobenius"] == "nan");

    // Read back: every field, non-finite ones included.
    const ErrorMetrics back = metricsFromJson(got, "session: ");
    EXPECT_EQ(nlohmann::json(metricsJson(back, MetricsDetail::Full)).dump(), want.dump());
    EXPECT_TRUE(std::isnan(back.relFrobenius));
    EXPECT_EQ(back.wHat.counts, m.wHat.counts);
    EXPECT_TRUE(back.wHat.symlog);

    // Refusals name the key, prefixed as the session's other fields.
    auto message = [](const nlohmann::json &j) {
        try {
            (void)metricsFromJson(j, "session: ");
        } catch (const FormatError &e) {
            return e.message();
        }
        return std::string("(accepted)");
    };
    nlohmann::json bad = want;
    bad.erase("overlap");
    EXPECT_EQ(message(bad), "session: missing 'overlap'");
    bad = want;
    bad["numel"] = 1.5;
    EXPECT_EQ(message(bad), "session: 'numel' must hold integers in range, got 1.5");
    bad = want;
    bad["w"]["counts"] = {1, "x"};
    EXPECT_EQ(message(bad), "session: 'counts' has the wrong type");
    bad = want;
    bad["err"]["symlog"] = 1;
    EXPECT_EQ(message(bad), "session: 'symlog' has the wrong type");
    bad = want;
    bad["cosine"] = nullptr;
    EXPECT_FALSE(metricsFromJson(bad, "session: ").cosine.has_value());
}

TEST(ReportJson, HistogramsObjectOfQuantizeJson)
{
    const ErrorMetrics m = sampleMetrics();
    nlohmann::ordered_json want;
    want["lo"] = -1.0;
    want["hi"] = 2.0;
    want["bins"] = std::size_t{3};
    want["symlog"] = false;
    want["w"] = m.w.counts;
    want["w_hat"] = m.wHat.counts;
    want["err"] = m.err.counts;
    want["err_lo"] = 0.0;
    want["err_hi"] = m.err.hi;
    want["w_hat_below"] = 1;
    want["w_hat_above"] = 0;
    want["overlap"] = 0.25;
    EXPECT_EQ(histogramsJson(m).dump(), want.dump());
}
