// SPDX-License-Identifier: MIT
// The session report (issue 42): one self-contained HTML file with the checkpoint's name and
// hash, every configuration, every result and one SVG distribution and error plot per tensor;
// nothing fetched from elsewhere (no script, no external URL); text escaped; the content hash
// follows the bytes.
#include "io/safetensors_fixture.h"
#include "results/report_html.h"

#include <gtest/gtest.h>
#include <regex>

using namespace quantscope;
using namespace quantscope::test;

namespace {

std::size_t count(const std::string &s, const std::string &what)
{
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
        ++n;
    return n;
}

Series ramp(double scale)
{
    Series s;
    for (int i = 0; i < 32; ++i) {
        s.x.push_back(-1 + i / 16.0);
        s.y.push_back(scale * (1 + (i - 16) * (i - 16) % 7));
    }
    return s;
}

Session twoTensorsThreeConfigs()
{
    Session s;
    s.checkpoint = SessionSource{"/models/tiny/model.safetensors", false, false};
    s.configs = {{"INT4 g128", {{"method", "int"}, {"bits", 4}, {"group", 128}}},
                 {"NVFP4", {{"method", "nvfp4"}}},
                 {"<b>odd & label</b>", {{"method", "fp8"}}}};
    for (const char *t : {"model.layers.0.q_proj.weight", "model.layers.0.k_proj.weight"}) {
        TensorProfile p;
        p.tensor = t;
        p.shape = {64, 128};
        p.dtype = "BF16";
        s.results.tensors.push_back(p);
        for (std::size_t c = 0; c < s.configs.size(); ++c) {
            QuantizeOutcome o;
            o.tensor = t;
            o.config = s.configs[c].name;
            o.spec = s.configs[c].spec;
            o.method = o.spec["method"];
            o.device = "cpu";
            o.metrics.relFrobenius = 0.01 * static_cast<double>(c + 1);
            o.metrics.sqnrDb = 40.0 - static_cast<double>(c);
            o.bitsPerElement = 4.125 + static_cast<double>(c);
            o.plot.w = ramp(100);
            o.plot.wHat = ramp(90 + static_cast<double>(c));
            o.plot.err = ramp(10);
            s.results.outcomes.push_back(o);
        }
    }
    return s;
}

} // namespace

TEST(ReportHtml, SelfContainedWithEveryConfigurationResultAndPlot)
{
    const Session s = twoTensorsThreeConfigs();
    ReportInfo info;
    info.checkpointName = "model.safetensors";
    info.checkpointHash = "fnv1a64:0123456789abcdef";
    info.generated = "2026-11-28 12:00 UTC";
    info.version = "0.1.0";
    info.recipe = {{"quantscope_recipe", 1}, {"rules", nlohmann::json::array()}};
    const std::string html = sessionReportHtml(s, info);

    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("model.safetensors"), std::string::npos);
    EXPECT_NE(html.find("fnv1a64:0123456789abcdef"), std::string::npos);
    EXPECT_NE(html.find("quantscope_recipe"), std::string::npos);
    EXPECT_NE(html.find("INT4 g128"), std::string::npos);
    EXPECT_NE(html.find("NVFP4"), std::string::npos);
    // Text is escaped, never markup.
    EXPECT_NE(html.find("&lt;b&gt;odd &amp; label&lt;/b&gt;"), std::string::npos);
    EXPECT_EQ(html.find("<b>odd"), std::string::npos);
    // Every result: six rows (2 tensors × 3 configurations) with their numbers.
    for (const auto &o : s.results.outcomes)
        EXPECT_NE(html.find("<td class=\"l\">" + o.tensor + "</td>"), std::string::npos);
    EXPECT_NE(html.find("4.125"), std::string::npos);
    EXPECT_NE(html.find("6.125"), std::string::npos);
    // Two plots per tensor, inline SVG, each configuration drawn.
    EXPECT_EQ(count(html, "<svg"), 4u);
    EXPECT_EQ(count(html, "</svg>"), 4u);
    EXPECT_EQ(count(html, "<polyline"), 2u * (1 + 3) + 2u * 3);
    // Self-contained: nothing loaded from elsewhere.
    for (const char *external : {"http://", "https://", "<script", " src=", "url(", "@import", "<link", "//cdn"})
        EXPECT_EQ(html.find(external), std::string::npos) << external;
}

TEST(ReportHtml, AFailedRunAndNoResultsAreSaid)
{
    Session s = twoTensorsThreeConfigs();
    s.results.outcomes[1].error = "group 128 does not divide K";
    std::string html = sessionReportHtml(s, {});
    EXPECT_NE(html.find("failed: group 128 does not divide K"), std::string::npos);
    EXPECT_NE(html.find("(checkpoint not found)"), std::string::npos);
    s.results = {};
    html = sessionReportHtml(s, {});
    EXPECT_EQ(count(html, "<svg"), 0u);
    EXPECT_NE(html.find("INT4 g128"), std::string::npos); // the configurations still
}

TEST(ReportHtml, ContentHashFollowsTheBytes)
{
    ScratchDir dir;
    const auto file = dir / "model.safetensors";
    writeSt(file, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", std::string("\x01\x02\x03\x04", 4));
    const std::string a = checkpointContentHash(file);
    EXPECT_TRUE(std::regex_match(a, std::regex("fnv1a64:[0-9a-f]{16}"))) << a;
    EXPECT_EQ(checkpointContentHash(file), a);
    writeSt(file, R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", std::string("\x01\x02\x03\x05", 4));
    EXPECT_NE(checkpointContentHash(file), a);
    EXPECT_THROW(checkpointContentHash(dir / "missing.safetensors"), Error);
}
