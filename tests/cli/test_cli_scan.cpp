// SPDX-License-Identifier: MIT
// `quantscope-cli scan` and `recipe check` end to end: every module's numbers equal the
// single-tensor `quantize --json` for the same spec (demo and stories260K), a report cut
// midway (torn last line) resumes to the uninterrupted report, and `recipe check` reports
// what a hand-made recipe holds.
#include "cli_run.h"

#include <map>
#include <nlohmann/json.hpp>

using namespace cli_test;
using json = nlohmann::json;

namespace {

std::vector<json> jsonLines(const std::string &text)
{
    std::vector<json> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto end = text.find('\n', at);
        out.push_back(json::parse(text.substr(at, end - at)));
        if (end == std::string::npos)
            break;
        at = end + 1;
    }
    return out;
}

json dropTiming(json j)
{
    if (j.is_object()) {
        j.erase("time_ms");
        j.erase("read_ms");
        for (auto &[k, v] : j.items())
            v = dropTiming(v);
    } else if (j.is_array()) {
        for (auto &v : j)
            v = dropTiming(v);
    }
    return j;
}

/// Each scanned module's runs against `quantize --json` of the same tensor and spec.
void expectEqualsQuantize(const fs::path &checkpoint, const std::vector<json> &lines,
                          const std::vector<std::vector<std::string>> &specFlags, std::size_t every = 1)
{
    int compared = 0;
    for (std::size_t i = 1; i < lines.size(); i += every) {
        const json &l = lines[i];
        ASSERT_EQ(l["status"], "scanned") << l.dump();
        ASSERT_EQ(l["runs"].size(), specFlags.size());
        for (std::size_t s = 0; s < specFlags.size(); ++s) {
            std::vector<std::string> args = {"quantize", checkpoint.string(), "--tensor", l["tensor"],
                                             "--json",   "--quiet",           "--device", "cpu"};
            args.insert(args.end(), specFlags[s].begin(), specFlags[s].end());
            const Result q = run(args);
            ASSERT_EQ(q.rc, 0) << q.err;
            const json qj = json::parse(q.out);
            EXPECT_EQ(l["runs"][s]["metrics"], qj["metrics"]) << l["tensor"] << " spec " << s;
            EXPECT_EQ(l["runs"][s]["spec"], qj["spec"]);
            EXPECT_EQ(l["runs"][s]["ragged"], qj["ragged"]);
            ++compared;
        }
    }
    EXPECT_GT(compared, 0);
}

} // namespace

TEST(CliScan, DemoEveryModuleEqualsQuantize)
{
    const fs::path out = fs::path(::testing::TempDir()) / ("qs_scan_demo_" + std::to_string(getpid()) + ".jsonl");
    fs::remove(out);
    const Result r = run({"scan", demoDir().string(), "--specs", "int,fp8:granularity=\"channel\"", "--device", "cpu",
                          "--out", out.string(), "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const json summary = json::parse(r.out);
    const auto lines = jsonLines(slurp(out));
    // Every 2-D .weight of the demo, counted from `info`.
    const json info = json::parse(run({"info", demoDir().string(), "--json"}).out);
    int twoD = 0;
    for (const auto &t : info["tensors"])
        twoD += t["shape"].size() == 2 && t["name"].get<std::string>().ends_with(".weight");
    EXPECT_EQ(summary["modules"], twoD);
    EXPECT_EQ(summary["scanned"], twoD);
    ASSERT_EQ(static_cast<int>(lines.size()), twoD + 1);
    EXPECT_EQ(lines[0]["quantscope_scan"], 1);
    expectEqualsQuantize(demoDir(), lines, {{"--method", "int"}, {"--method", "fp8", "--granularity", "channel"}}, 3);
    EXPECT_GT(summary["peak_rss_bytes"].get<double>(), 0);
    EXPECT_LE(summary["peak_rss_bytes"].get<double>(), summary["memory_bound_bytes"].get<double>());
    fs::remove(out);
}

TEST(CliScan, Stories260KEveryModuleEqualsQuantize)
{
    if (!fs::exists(stories() / "model.safetensors"))
        GTEST_SKIP() << "real test data not found at " << stories() << " (../shared absent): skipped";
    const Result r = run({"scan", (stories() / "model.safetensors").string(), "--device", "cpu", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto lines = jsonLines(r.out);
    ASSERT_GT(lines.size(), 1u);
    bool anyRagged = false;
    for (std::size_t i = 1; i < lines.size(); ++i)
        anyRagged = anyRagged || lines[i]["runs"][0]["ragged"].get<bool>();
    // stories260K's widths (64, 172) leave ragged groups of 128: they are reported, not skipped.
    EXPECT_TRUE(anyRagged);
    expectEqualsQuantize(stories() / "model.safetensors", lines, {{"--method", "int"}});
}

TEST(CliScan, CutReportResumesToTheUninterruptedOne)
{
    const std::string tag = std::to_string(getpid());
    const fs::path full = fs::path(::testing::TempDir()) / ("qs_scan_full_" + tag + ".jsonl");
    const fs::path cut = fs::path(::testing::TempDir()) / ("qs_scan_cut_" + tag + ".jsonl");
    fs::remove(full);
    const std::vector<std::string> common = {
        "--specs", "int:bits=3:group=64", "--spectra", "counts", "--top", "4", "--device", "cpu", "--quiet"};
    auto scan = [&](const fs::path &out) {
        std::vector<std::string> a = {"scan", demoDir().string(), "--out", out.string(), "--json"};
        a.insert(a.end(), common.begin(), common.end());
        return run(a);
    };
    ASSERT_EQ(scan(full).rc, 0);
    const std::string text = slurp(full);
    // The header and 5 modules, then half of the 6th: what a kill during a write leaves.
    std::size_t at = 0;
    for (int i = 0; i < 6; ++i)
        at = text.find('\n', at) + 1;
    const std::size_t next = text.find('\n', at);
    {
        std::ofstream(cut, std::ios::binary) << text.substr(0, at + (next - at) / 2);
    }
    const Result r = scan(cut);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["resumed"], 5);
    const auto a = jsonLines(slurp(full)), b = jsonLines(slurp(cut));
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(dropTiming(a[i]), dropTiming(b[i])) << "line " << i;

    // Another spec list is another scan: refused with the report named, the file untouched.
    const std::string before = slurp(cut);
    const Result other = run({"scan", demoDir().string(), "--out", cut.string(), "--device", "cpu", "--quiet"});
    EXPECT_EQ(other.rc, 1);
    EXPECT_NE(other.err.find(cut.string()), std::string::npos) << other.err;
    EXPECT_EQ(slurp(cut), before);
    fs::remove(full);
    fs::remove(cut);
}

TEST(CliScan, BadOptionsAreUsageErrors)
{
    EXPECT_EQ(run({"scan", demoDir().string(), "--spectra", "all"}).rc, 2);
    EXPECT_EQ(run({"scan"}).rc, 2);
    const Result bad = run({"scan", demoDir().string(), "--specs", "int:bits=99", "--quiet"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("bits"), std::string::npos) << bad.err;
}

TEST(CliRecipe, CheckReportsUnmatchedOverlapsFusionAndRegexDots)
{
    const fs::path recipe = fs::path(::testing::TempDir()) / ("qs_recipe_" + std::to_string(getpid()) + ".json");
    {
        std::ofstream(recipe) << R"({"quantscope_recipe": 1,
          "rules": [
            {"name": "q8", "patterns": ["model.layers.0.self_attn.q_proj"], "dialect": "re",
             "specs": [{"method": "int", "bits": 8}]},
            {"name": "proj", "patterns": ["*_proj"], "specs": [{"method": "int"}]},
            {"name": "never", "patterns": ["*.nothing"], "specs": [{"method": "fp8"}]}
          ],
          "exclude": ["lm_head"]})";
    }
    const Result r = run({"recipe", "check", recipe.string(), "--checkpoint", demoDir().string(), "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const json j = json::parse(r.out);
    // Unmatched: the 2-D weights that are no *_proj (the embedding, the router); lm_head is excluded.
    EXPECT_EQ(j["unmatched"], json::array({"model.embed_tokens", "model.layers.1.mlp.gate"}));
    EXPECT_EQ(j["excluded"], json::array({"lm_head"}));
    ASSERT_EQ(j["unused_rules"].size(), 1u);
    EXPECT_EQ(j["unused_rules"][0]["name"], "never");
    ASSERT_EQ(j["overlaps"].size(), 1u);
    EXPECT_EQ(j["overlaps"][0]["module"], "model.layers.0.self_attn.q_proj");
    ASSERT_EQ(j["fusion_warnings"].size(), 1u);
    EXPECT_EQ(j["fusion_warnings"][0]["group"], "model.layers.0.self_attn.{q,k,v}_proj");
    ASSERT_EQ(j["regex_warnings"].size(), 1u);
    EXPECT_EQ(j["regex_warnings"][0]["example"], "modelXlayers.0.self_attn.q_proj");

    const Result text = run({"recipe", "check", recipe.string(), "--checkpoint", demoDir().string()});
    EXPECT_EQ(text.rc, 0);
    EXPECT_NE(text.out.find("fusion warning"), std::string::npos);
    {
        std::ofstream(recipe)
            << R"({"quantscope_recipe": 1, "rules": [{"patterns": ["*"], "specs": [{"method": "int", "colour": 1}]}]})";
    }
    const Result bad = run({"recipe", "check", recipe.string()});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("rules[0].specs[0]"), std::string::npos) << bad.err;
    fs::remove(recipe);
}
