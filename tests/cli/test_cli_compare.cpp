// SPDX-License-Identifier: MIT
// `quantscope-cli compare` end to end on stories260K: a checkpoint against itself differs nowhere;
// two exports of one recipe that round differently, with --reference, give each side the error
// `quantize --json` gives that module with that spec; two scan reports give each module the
// reports' own errors; usage and mixed inputs are refused.
#include "cli_run.h"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

using namespace cli_test;
using json = nlohmann::json;

namespace {

fs::path writeFile(const fs::path &p, const std::string &text)
{
    std::ofstream(p) << text;
    return p;
}

/// Spearman by definition (average ranks counted pair by pair, Pearson of the ranks).
double spearmanByCounting(const std::vector<double> &x, const std::vector<double> &y)
{
    auto rank = [](const std::vector<double> &v) {
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            double below = 0, equal = 0;
            for (std::size_t j = 0; j < v.size(); ++j) {
                below += v[j] < v[i];
                equal += j != i && v[j] == v[i];
            }
            r[i] = 1 + below + equal / 2;
        }
        return r;
    };
    const auto rx = rank(x), ry = rank(y);
    const double m = (static_cast<double>(x.size()) + 1) / 2;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - m) * (ry[i] - m);
        sxx += (rx[i] - m) * (rx[i] - m);
        syy += (ry[i] - m) * (ry[i] - m);
    }
    return sxy / std::sqrt(sxx * syy);
}

const char *kRecipe = R"({"quantscope_recipe": 1,
    "rules": [{"patterns": ["*"], "specs": [{"method": "int", "group": 4%s}]}],
    "exclude": [{"pattern": "lm_head", "dialect": "exact"}]})";

std::string recipeText(const std::string &extra)
{
    std::string s = kRecipe;
    s.replace(s.find("%s"), 2, extra);
    return s;
}

} // namespace

TEST(CliCompare, ExportsRoundingDifferentlyAgainstTheReference)
{
    const fs::path weights = stories() / "model.safetensors";
    if (!fs::exists(weights))
        GTEST_SKIP() << weights << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_compare_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path ra = writeFile(dir / "a.json", recipeText("")),
                   rb = writeFile(dir / "b.json", recipeText(R"(, "scale_apply": "reciprocal")"));
    for (const auto &[recipe, out] : {std::pair{ra, dir / "a"}, std::pair{rb, dir / "b"}}) {
        const Result e = run({"export", "--recipe", recipe.string(), "--format", "compressed-tensors", "--checkpoint",
                              weights.string(), "--out-dir", out.string()});
        ASSERT_EQ(e.rc, 0) << e.err;
    }

    // Against itself: zero differences everywhere.
    const Result self = run({"compare", (dir / "a").string(), (dir / "a").string(), "--json"});
    ASSERT_EQ(self.rc, 0) << self.err;
    const json s = json::parse(self.out);
    EXPECT_EQ(s["summary"]["differing"], 0);
    EXPECT_EQ(s["summary"]["codes_differ"], 0);
    EXPECT_GT(s["summary"]["codes_total"].get<long>(), 0);
    for (const auto &m : s["modules"]) {
        EXPECT_EQ(m["rel_diff"], 0.0) << m["module"];
        EXPECT_EQ(m["scheme_diff"], "") << m["module"];
    }

    const Result cmp = run(
        {"compare", (dir / "a").string(), (dir / "b").string(), "--reference", weights.string(), "--json", "--quiet"});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    const json j = json::parse(cmp.out);
    EXPECT_EQ(j["kind"], "checkpoints");
    EXPECT_GT(j["summary"]["codes_differ"].get<long>(), 0);
    std::map<std::string, json> byModule;
    for (const auto &m : j["modules"])
        byModule[m["module"]] = m;
    // Each side's error equals quantize's for that module and spec.
    for (const std::string module : {"model.layers.0.self_attn.q_proj", "model.layers.3.mlp.down_proj"}) {
        SCOPED_TRACE(module);
        const json &m = byModule.at(module);
        for (const auto &[key, flags] :
             {std::pair<std::string, std::vector<std::string>>{"error_a", {}},
              std::pair<std::string, std::vector<std::string>>{"error_b", {"--scale-apply", "reciprocal"}}}) {
            std::vector<std::string> args{"quantize", weights.string(), "--tensor", module + ".weight", "--method",
                                          "int",      "--group",        "4",        "--json",           "--quiet"};
            args.insert(args.end(), flags.begin(), flags.end());
            const Result q = run(args);
            ASSERT_EQ(q.rc, 0) << q.err;
            const double want = json::parse(q.out)["metrics"]["rel_frobenius"];
            EXPECT_NEAR(m[key].get<double>(), want, 1e-9 * want) << key;
        }
        EXPECT_DOUBLE_EQ(m["delta"].get<double>(), m["error_a"].get<double>() - m["error_b"].get<double>());
        EXPECT_GT(m["codes_differ"].get<long>(), 0);
    }
    // Largest difference first.
    for (std::size_t i = 1; i < j["modules"].size(); ++i)
        EXPECT_GE(j["modules"][i - 1]["rel_diff"].get<double>(), j["modules"][i]["rel_diff"].get<double>());

    // The text form names the columns and lists every module.
    const Result text = run({"compare", (dir / "a").string(), (dir / "b").string()});
    ASSERT_EQ(text.rc, 0) << text.err;
    EXPECT_NE(text.out.find("model.layers.4.mlp.up_proj"), std::string::npos) << text.out;
    fs::remove_all(dir);
}

TEST(CliCompare, TwoScanReportsOfOneCheckpoint)
{
    const fs::path weights = stories() / "model.safetensors";
    if (!fs::exists(weights))
        GTEST_SKIP() << weights << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_compare_scan_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path a = dir / "a.jsonl", b = dir / "b.jsonl";
    for (const auto &[out, specs] : {std::pair{a, "int:group=4"}, std::pair{b, "int:bits=8:group=4"}}) {
        const Result r =
            run({"scan", weights.string(), "--specs", specs, "--out", out.string(), "--quiet", "--device", "cpu"});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    // Each report's own rel_frobenius per module, read here from the lines.
    std::map<std::string, double> ea, eb;
    for (const auto &[path, into] : {std::pair{a, &ea}, std::pair{b, &eb}}) {
        std::ifstream in(path);
        std::string line;
        std::getline(in, line); // header
        while (std::getline(in, line)) {
            const json l = json::parse(line);
            if (l.contains("runs") && !l["runs"].empty())
                (*into)[l["module"]] = l["runs"][0]["metrics"]["rel_frobenius"];
        }
    }
    ASSERT_GT(ea.size(), 30u);
    const Result r = run({"compare", a.string(), b.string(), "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["kind"], "scan-reports");
    EXPECT_EQ(j["modules"].size(), ea.size());
    std::vector<double> xs, ys;
    for (const auto &m : j["modules"]) {
        const std::string name = m["module"];
        EXPECT_EQ(m["error_a"].get<double>(), ea.at(name)) << name;
        EXPECT_EQ(m["error_b"].get<double>(), eb.at(name)) << name;
        EXPECT_EQ(m["scheme_diff"], "bits 4 vs 8") << name;
        xs.push_back(ea.at(name));
        ys.push_back(eb.at(name));
    }
    EXPECT_NEAR(j["spearman"].get<double>(), spearmanByCounting(xs, ys), 1e-12);
    EXPECT_TRUE(j["only_a"].empty());

    // Usage: one path is not enough; a checkpoint and a report are not comparable.
    EXPECT_EQ(run({"compare", a.string()}).rc, 2);
    const Result mixed = run({"compare", a.string(), weights.string()});
    EXPECT_EQ(mixed.rc, 1);
    EXPECT_NE(mixed.err.find("model.safetensors"), std::string::npos) << mixed.err;
    const Result missing = run({"compare", (dir / "nope").string(), (dir / "nope2").string()});
    EXPECT_EQ(missing.rc, 1);
    EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
    fs::remove_all(dir);
}
